//! `visa-emu validate`: run kernels on the CPU interpreter (the reference) and on every
//! adapter of every wgpu backend, and report per output buffer whether they agree, with
//! the first differing element.

use crate::backend::{cpu, gpu, select};
use crate::corpus::case::Case;
use std::path::Path;
use std::time::Instant;
use visa_emu_host::GpuContext;

/// The first element where a target's buffer differs from the reference.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Difference {
    pub element: usize,
    pub reference: String,
    pub got: String,
    /// How many elements differ in all.
    pub count: usize,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct BufferVerdict {
    pub name: String,
    pub dtype: String,
    /// Equal bytes, or (an output the case compares with a tolerance: the results of
    /// transcendental math, whose ULP bounds the GPU path keeps) every element within
    /// that tolerance.
    pub agree: bool,
    /// Where the buffer agrees within a tolerance only: which (e.g. `ulp`).
    pub within_tolerance: Option<String>,
    pub first_difference: Option<Difference>,
}

/// One target (the interpreter or one adapter) on one variant.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TargetResult {
    pub target: String,
    /// `reference`, `agree`, `disagree`, `unusable` (the adapter cannot run it) or `error`.
    pub verdict: String,
    /// The error or the reason the adapter is unusable.
    pub message: Option<String>,
    /// Against the case's expected outputs (within its tolerances): `pass`, or the
    /// first mismatch.
    pub expected_outputs: Option<String>,
    pub buffers: Vec<BufferVerdict>,
    pub ms: f64,
    /// On a disagreement: the first instruction whose results differ (or why it
    /// could not be found).
    pub localization: Option<Result<crate::backend::localize::Localization, String>>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct VariantReport {
    pub variant: String,
    pub targets: Vec<TargetResult>,
}

impl VariantReport {
    /// A usable target disagreed with the reference, or the reference failed.
    pub fn failed(&self) -> bool {
        self.targets
            .iter()
            .any(|t| matches!(t.verdict.as_str(), "disagree" | "error"))
    }
}

/// Every adapter of every backend, opened once (errors kept as the reason), with what
/// opens it again after its device is lost.
pub struct Adapters {
    pub devices: Vec<(String, Result<GpuContext, String>)>,
    reopen: Vec<(visa_emu_host::BackendChoice, usize)>,
}

impl Adapters {
    /// Every adapter of the named backends (`vulkan`, `metal`, `dx12`, `gl`; all when
    /// `backends` is empty).
    pub fn open_backends(backends: &[String]) -> Adapters {
        let mut reopen = Vec::new();
        let devices = select::open_each()
            .into_iter()
            .filter(|(b, _, _)| backends.is_empty() || backends.iter().any(|n| n == b.name()))
            .map(|(b, a, ctx)| {
                reopen.push((b, a.index));
                let mut name = format!("{} #{} {}", a.backend, a.index, a.name);
                let ctx = ctx.and_then(|c| match select::unusable(&c) {
                    Some(why) => Err(why),
                    None => Ok(c),
                });
                // A report should say when the GPU path ran its exact float forms there.
                if let Ok(c) = &ctx {
                    name += &crate::backend::gpu::float_fixes(c).tags();
                }
                (name, ctx)
            })
            .collect();
        Adapters { devices, reopen }
    }

    /// Device `i` again, where its device was lost (a driver fault, a GPU wait past
    /// the limit): the later variants run on a fresh one instead of failing with it.
    fn renew_if_lost(&mut self, i: usize) {
        let lost = matches!(&self.devices[i].1, Ok(c) if c.lost().is_some());
        if let (true, Some(&(backend, index))) = (lost, self.reopen.get(i)) {
            self.devices[i].1 = visa_emu_host::GpuContext::new(&visa_emu_host::GpuOptions {
                backend,
                adapter: Some(index),
                ..Default::default()
            })
            .map_err(|e| format!("lost, and could not be opened again: {e}"));
        }
    }
}

/// Element size and formatter of a numpy dtype name (unknown names: 32-bit words).
fn element(dtype: &str) -> (usize, fn(&[u8]) -> String) {
    fn le<const N: usize>(b: &[u8]) -> [u8; N] {
        let mut a = [0u8; N];
        a.copy_from_slice(&b[..N]);
        a
    }
    match dtype {
        "float32" => (4, |b| format!("{:e}", f32::from_le_bytes(le(b)))),
        "float64" => (8, |b| format!("{:e}", f64::from_le_bytes(le(b)))),
        "float16" => (2, |b| {
            format!("{:e}", half::f16::from_le_bytes(le(b)).to_f32())
        }),
        "int8" => (1, |b| format!("{}", b[0] as i8)),
        "uint8" => (1, |b| format!("{}", b[0])),
        "int16" => (2, |b| format!("{}", i16::from_le_bytes(le(b)))),
        "uint16" => (2, |b| format!("{}", u16::from_le_bytes(le(b)))),
        "int32" => (4, |b| format!("{}", i32::from_le_bytes(le(b)))),
        "int64" => (8, |b| format!("{}", i64::from_le_bytes(le(b)))),
        "uint64" => (8, |b| format!("{}", u64::from_le_bytes(le(b)))),
        _ => (4, |b| format!("{:#010x}", u32::from_le_bytes(le(b)))),
    }
}

/// Compare one buffer with the reference element by element (bit-exact), and where
/// bytes differ and the case compares this output with a tolerance, within it.
pub fn compare_buffer(
    name: &str,
    dtype: &str,
    reference: &[u8],
    got: &[u8],
    loose: Option<&crate::corpus::case::Output>,
) -> BufferVerdict {
    let (size, fmt) = element(dtype);
    let mut first = None;
    let mut count = 0;
    let n = reference.len().max(got.len()).div_ceil(size);
    for k in 0..n {
        let r = reference.get(k * size..(k + 1) * size);
        let g = got.get(k * size..(k + 1) * size);
        if r != g {
            count += 1;
            if first.is_none() {
                let show = |x: Option<&[u8]>| x.map_or("(missing)".to_string(), fmt);
                first = Some((k, show(r), show(g)));
            }
        }
    }
    let within = loose.filter(|o| {
        count > 0
            && got.len() == reference.len()
            && crate::corpus::compare::compare(&o.dtype, &o.tolerance, got, reference).is_ok()
    });
    BufferVerdict {
        name: name.to_string(),
        dtype: dtype.to_string(),
        agree: count == 0 || within.is_some(),
        within_tolerance: within.map(|o| o.tolerance.kind.to_string()),
        first_difference: first.map(|(element, reference, got)| Difference {
            element,
            reference,
            got,
            count,
        }),
    }
}

fn dtype_of(case: &Case, buffer: &str) -> String {
    case.args
        .iter()
        .find(|a| a.name == buffer)
        .and_then(|a| a.dtype.clone())
        .unwrap_or_else(|| "uint32".into())
}

/// Which GPU mappings `validate` runs on every adapter: the one `run` picks (always),
/// and the thread and lane mappings where asked.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mappings {
    pub threads: bool,
    pub lanes: bool,
}

/// Run one variant on the interpreter and on every usable adapter, in the mapping `run`
/// picks and the `extra` ones; `localize`: find the first differing instruction of a
/// disagreement (probes of the thread mapping).
pub fn validate_variant(
    dir: &Path,
    adapters: &mut Adapters,
    localize: bool,
    extra: Mappings,
) -> VariantReport {
    let variant = crate::cli::conformance::variant_name(dir);
    let mut targets = Vec::new();
    let loaded = dir
        .parent()
        .ok_or_else(|| "variant folder has no case folder".to_string())
        .and_then(|c| Case::load(c).map_err(|e| e.to_string()));
    let case = match loaded {
        Ok(c) => c,
        Err(e) => {
            targets.push(error_target("cpu (reference)", e, 0.0));
            return VariantReport { variant, targets };
        }
    };
    let t = Instant::now();
    let reference = match cpu::run_case(dir, &case, &Default::default()) {
        Ok(r) => r.buffers,
        Err(e) => {
            targets.push(error_target("cpu (reference)", e, ms(t)));
            return VariantReport { variant, targets };
        }
    };
    targets.push(TargetResult {
        target: "cpu (reference)".into(),
        verdict: "reference".into(),
        message: None,
        expected_outputs: Some(expected(&case, &reference)),
        buffers: Vec::new(),
        ms: ms(t),
        localization: None,
    });
    // One translation serves every adapter and mapping (each device lowers it for
    // itself where it needs 64-bit emulation).
    let t_build = Instant::now();
    let mut built = if extra.lanes {
        gpu::build_every_form(dir, &case, gpu::DEFAULT_STEP_LIMIT)
    } else {
        gpu::build(dir, &case, gpu::DEFAULT_STEP_LIMIT)
    };
    let build_ms = ms(t_build);
    // `None`: the mapping `build` chose, as `run` would run it.
    let chosen = built.as_ref().map_or(gpu::Mapping::Threads, |l| l.mapping);
    let mut mappings = vec![None];
    if extra.threads && chosen != gpu::Mapping::Threads {
        mappings.push(Some(gpu::Mapping::Threads));
    }
    if extra.lanes {
        mappings.push(Some(gpu::Mapping::Lanes));
    }
    for i in 0..adapters.devices.len() {
        adapters.renew_if_lost(i);
        let (name, ctx) = &mut adapters.devices[i];
        let ctx = match ctx {
            Ok(c) => c,
            Err(why) => {
                targets.push(TargetResult {
                    target: name.clone(),
                    verdict: "unusable".into(),
                    message: Some(why.clone()),
                    expected_outputs: None,
                    buffers: Vec::new(),
                    ms: 0.0,
                    localization: None,
                });
                continue;
            }
        };
        for &asked in &mappings {
            let mapping = asked.unwrap_or(chosen);
            let target = match asked {
                None => name.clone(),
                Some(gpu::Mapping::Threads) => format!("{name} [threads]"),
                Some(gpu::Mapping::Lanes) => format!("{name} [lanes]"),
                Some(gpu::Mapping::Auto) => format!("{name} [auto]"),
            };
            let t = Instant::now();
            let launch = match &mut built {
                Ok(l) if mapping == gpu::Mapping::Lanes && l.lanes.is_none() => {
                    targets.push(TargetResult {
                        target,
                        verdict: "unusable".into(),
                        message: Some(format!(
                            "no lane mapping: {}",
                            l.module.why_not_lanes.as_deref().unwrap_or("not planned")
                        )),
                        expected_outputs: None,
                        buffers: Vec::new(),
                        ms: 0.0,
                        localization: None,
                    });
                    continue;
                }
                Ok(l) => {
                    l.mapping = mapping;
                    &*l
                }
                Err(e) => {
                    targets.push(error_target(&target, e.clone(), build_ms));
                    continue;
                }
            };
            match gpu::execute(ctx, launch) {
                Err(e) => targets.push(error_target(&target, e, build_ms + ms(t))),
                Ok(run) => {
                    // The mapping `run` picks: name it.
                    let target = match asked {
                        None => format!("{name} [{}]", run.mapping),
                        Some(_) => target,
                    };
                    let buffers: Vec<BufferVerdict> = reference
                        .iter()
                        .map(|(n, want)| {
                            let got = run
                                .buffers
                                .iter()
                                .find(|(m, _)| m == n)
                                .map_or(&[][..], |(_, b)| b.as_slice());
                            compare_buffer(n, &dtype_of(&case, n), want, got, case.loose_output(n))
                        })
                        .collect();
                    let agree = buffers.iter().all(|b| b.agree);
                    // Probes run the thread mapping: a disagreement of another
                    // mapping that the thread mapping does not share localizes to
                    // an error saying the registers never part.
                    let localization = (!agree && localize).then(|| {
                        crate::backend::localize::localize(ctx, dir, &case)
                            .map_err(|e| not_localized(e, run.mapping))
                    });
                    targets.push(TargetResult {
                        target,
                        verdict: if agree { "agree" } else { "disagree" }.into(),
                        message: run.note.clone(),
                        expected_outputs: Some(expected(&case, &run.buffers)),
                        buffers,
                        ms: build_ms + ms(t),
                        localization,
                    });
                }
            }
        }
    }
    VariantReport { variant, targets }
}

/// Why a disagreement was not localized; where the probes (thread mapping) found no
/// register difference but the run used another mapping, that mapping is the suspect.
fn not_localized(e: String, mapping: &str) -> String {
    if e == crate::backend::localize::NO_REGISTER_DIFFERENCE && mapping != "threads" {
        format!(
            "the thread mapping's registers agree with the interpreter at every probed \
             step, so the disagreement is the {mapping} mapping's own or in memory \
             operations (`--threads` runs the thread mapping's outputs too)"
        )
    } else {
        e
    }
}

fn expected(case: &Case, buffers: &[(String, Vec<u8>)]) -> String {
    match cpu::check_outputs(case, buffers) {
        Ok(()) => "pass".into(),
        Err(e) => e,
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn error_target(target: &str, e: String, ms: f64) -> TargetResult {
    TargetResult {
        target: target.into(),
        verdict: "error".into(),
        message: Some(e),
        expected_outputs: None,
        buffers: Vec::new(),
        ms,
        localization: None,
    }
}

/// The readable table: one line per variant and target.
pub fn table(reports: &[VariantReport]) -> String {
    // Wide enough for the longest target (adapter, mapping, float forms), within reason.
    let w = reports
        .iter()
        .flat_map(|r| r.targets.iter().map(|t| t.target.chars().count()))
        .max()
        .unwrap_or(0)
        .clamp(44, 96);
    let mut s = format!(
        "{:<36} {:<w$} {:<10} {:>10}  details\n",
        "variant", "target", "verdict", "ms"
    );
    for r in reports {
        for (i, t) in r.targets.iter().enumerate() {
            let v = if i == 0 { r.variant.as_str() } else { "" };
            let mut details = String::new();
            if let Some(m) = &t.message {
                details = m.lines().next().unwrap_or("").to_string();
            }
            for b in t.buffers.iter().filter(|b| !b.agree) {
                if let Some(d) = &b.first_difference {
                    details += &format!(
                        "{}: {} of its elements differ, first [{}]: reference {} got {}; ",
                        b.name, d.count, d.element, d.reference, d.got
                    );
                }
            }
            if t.verdict == "agree" {
                let loose: Vec<String> = t
                    .buffers
                    .iter()
                    .filter_map(|b| {
                        let (kind, d) =
                            (b.within_tolerance.as_ref()?, b.first_difference.as_ref()?);
                        Some(format!("{} ({} elements, {kind})", b.name, d.count))
                    })
                    .collect();
                details = format!("{} buffers equal", t.buffers.len() - loose.len());
                if !loose.is_empty() {
                    details += &format!(
                        ", {} within the case's tolerance: {}",
                        loose.len(),
                        loose.join(", ")
                    );
                }
            }
            match t.expected_outputs.as_deref() {
                Some("pass") | None => {}
                Some(e) => details += &format!(" (expected outputs: {e})"),
            }
            s += &format!(
                "{:<36} {:<w$} {:<10} {:>10.1}  {}\n",
                v,
                truncate(&t.target, w),
                t.verdict,
                t.ms,
                details.trim()
            );
            match &t.localization {
                Some(Ok(l)) => {
                    s += &format!(
                        "{:<36} first difference: thread {}, step {}: [{}] {}\n",
                        "", l.thread, l.step, l.instruction, l.text
                    );
                    if let (Some(v), Some(r), Some(g)) = (&l.variable, &l.reference, &l.gpu) {
                        s += &format!(
                            "{:<36}   then {v} holds {r} on the interpreter, {g} on the GPU\n",
                            ""
                        );
                    } else {
                        s += &format!(
                            "{:<36}   the thread is stopped on one side and ended on the other: control flow differs\n",
                            ""
                        );
                    }
                }
                Some(Err(e)) => s += &format!("{:<36} not localized: {e}\n", ""),
                None => {}
            }
        }
    }
    s
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).collect::<String>() + "…"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_compare_by_element_of_their_dtype() {
        let a: Vec<u8> = [1.0f32, 2.0, 3.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let mut b = a.clone();
        assert!(compare_buffer("x", "float32", &a, &b, None).agree);
        b[5] ^= 1; // element 1
        b[9] ^= 1; // element 2
        let v = compare_buffer("x", "float32", &a, &b, None);
        let d = v.first_difference.unwrap();
        assert_eq!((d.element, d.count), (1, 2));
        assert_eq!(d.reference, "2e0");
        let short = compare_buffer("x", "int16", &a, &a[..4], None);
        assert_eq!(short.first_difference.unwrap().got, "(missing)");
    }

    /// An output the case compares within a tolerance agrees where every element is
    /// within it (and says so), and disagrees past it; an exact one never.
    #[test]
    fn loose_outputs_agree_within_the_cases_tolerance() {
        let output = |kind: &str| crate::corpus::case::Output {
            arg: "x".into(),
            file: "x.bin".into(),
            dtype: serde_json::from_str("\"float32\"").unwrap(),
            count: 3,
            tolerance: serde_json::from_str(&format!(
                "{{\"type\": \"{kind}\", \"ulp\": 2, \"check_ulp\": 4}}"
            ))
            .unwrap(),
        };
        let words = |v: [u32; 3]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let a = words([0x3f80_0000, 0x4000_0000, 0x4040_0000]);
        let near = words([0x3f80_0000, 0x4000_0003, 0x4040_0000]);
        let far = words([0x3f80_0000, 0x4000_0009, 0x4040_0000]);
        let ulp = output("ulp");
        let v = compare_buffer("x", "float32", &a, &near, Some(&ulp));
        assert!(v.agree);
        assert_eq!(v.within_tolerance.as_deref(), Some("ulp"));
        assert_eq!(v.first_difference.unwrap().count, 1);
        let v = compare_buffer("x", "float32", &a, &far, Some(&ulp));
        assert!(!v.agree && v.within_tolerance.is_none());
        assert!(!compare_buffer("x", "float32", &a, &near, None).agree);
        let same = compare_buffer("x", "float32", &a, &a, Some(&ulp));
        assert!(same.agree && same.within_tolerance.is_none());
    }

    #[test]
    fn an_unlocalized_disagreement_of_another_mapping_names_it() {
        use crate::backend::localize::NO_REGISTER_DIFFERENCE;
        let m = not_localized(NO_REGISTER_DIFFERENCE.into(), "straight");
        assert!(m.contains("straight mapping's own"), "{m}");
        let t = not_localized(NO_REGISTER_DIFFERENCE.into(), "threads");
        assert_eq!(t, NO_REGISTER_DIFFERENCE);
        assert_eq!(not_localized("x".into(), "lanes"), "x");
    }
}
