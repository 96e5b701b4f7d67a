//! Find the first instruction whose results differ between the GPU path and the
//! interpreter: both run the variant with every thread stopped after exactly `k`
//! executed instructions, and their GRF images are compared thread by thread; a
//! bisection over `k` finds the step at which a thread's registers first differ (or
//! at which a thread is stopped on one side and already ended on the other: a
//! difference in control flow). The instruction is that thread's `k`-th.

use super::{cpu, gpu};
use crate::corpus::case::Case;
use crate::interp::RunOptions;
use std::collections::BTreeMap;
use std::path::Path;
use visa_emu_host::GpuContext;

/// Where the GPU path's registers first part from the interpreter's.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Localization {
    /// The thread (group, x fastest, times threads per group, plus its index).
    pub thread: u64,
    /// Its `step`-th executed instruction is the first after which they differ.
    pub step: u64,
    /// That instruction: index in the kernel and its `.visaasm` text.
    pub instruction: usize,
    pub text: String,
    /// The first differing GRF byte, the variable that holds it, and the 32-bit word
    /// there on each side (`None`: the thread had ended on that side).
    pub byte: Option<u32>,
    pub variable: Option<String>,
    pub reference: Option<String>,
    pub gpu: Option<String>,
    /// Probe runs it took (each side).
    pub probes: u32,
}

/// The outcome when no register difference is found.
pub const NO_REGISTER_DIFFERENCE: &str =
    "the registers agree at every probed step: the difference is in memory operations";

/// Threads stopped after `k` instructions: thread id -> GRF image.
pub type States = BTreeMap<u64, Vec<u8>>;

/// The interpreter's threads after `k` instructions, and the index of the last
/// instruction each executed.
pub fn cpu_states(
    dir: &Path,
    case: &Case,
    k: u64,
) -> Result<(States, BTreeMap<u64, usize>), String> {
    let opts = RunOptions {
        stop_after: Some(k),
        trace: false,
        ..RunOptions::default()
    };
    let run = cpu::run_case(dir, case, &opts)?;
    let mut states = States::new();
    let mut last = BTreeMap::new();
    for s in run.stats.stopped {
        last.insert(s.thread, s.last);
        states.insert(s.thread, s.grf);
    }
    Ok((states, last))
}

/// A thread and its first differing GRF byte (`None`: stopped on one side only).
type ThreadDiff = (u64, Option<u32>);

/// The first thread whose state differs between `a` and `b`, with the first differing
/// byte among the first `len`.
fn first_difference(a: &States, b: &States, len: usize) -> Option<ThreadDiff> {
    let threads: std::collections::BTreeSet<u64> = a.keys().chain(b.keys()).copied().collect();
    for t in threads {
        match (a.get(&t), b.get(&t)) {
            (Some(x), Some(y)) => {
                let n = len.min(x.len()).min(y.len());
                if let Some(i) = (0..n).find(|&i| x[i] != y[i]) {
                    return Some((t, Some(i as u32)));
                }
            }
            _ => return Some((t, None)),
        }
    }
    None
}

/// Where two executions of a kernel part: the step `k`, thread and byte such that all
/// threads agree after `k - 1` instructions and this one differs after `k`.
#[derive(Clone, Debug)]
pub struct Parting {
    pub step: u64,
    pub thread: u64,
    pub byte: Option<u32>,
    /// Probes taken (each side).
    pub probes: u32,
}

/// Bisect over the step count between a reference and another execution, each given
/// as "threads stopped after k instructions"; GRF images compared on `len` bytes.
pub fn bisect(
    reference: &mut dyn FnMut(u64) -> Result<States, String>,
    other: &mut dyn FnMut(u64) -> Result<States, String>,
    len: usize,
) -> Result<Parting, String> {
    let mut probes = 0u32;
    // The difference after `k` steps, and whether any thread ran that long.
    let mut differs = |k: u64| -> Result<(Option<ThreadDiff>, bool), String> {
        probes += 1;
        let (a, b) = (reference(k)?, other(k)?);
        let reached = !a.is_empty() || !b.is_empty();
        Ok((first_difference(&a, &b, len), reached))
    };
    // Double until a difference shows, or no thread runs that long.
    let (mut lo, mut hi) = (0u64, 1u64);
    let mut found = loop {
        let (d, reached) = differs(hi)?;
        if let Some(d) = d {
            break d;
        }
        if !reached {
            return Err(NO_REGISTER_DIFFERENCE.into());
        }
        lo = hi;
        hi = hi.checked_mul(2).ok_or("no difference within 2^63 steps")?;
    };
    // No difference after `lo` instructions, one after `hi`.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        match differs(mid)?.0 {
            Some(d) => {
                hi = mid;
                found = d;
            }
            None => lo = mid,
        }
    }
    Ok(Parting {
        step: hi,
        thread: found.0,
        byte: found.1,
        probes,
    })
}

/// Localize the first differing instruction of a variant on `ctx` (thread mapping),
/// over every piece of a non-uniform NDRange (both sides run them in order, each
/// stopped run leaving the memory the next starts from; see [`gpu::probe`]).
pub fn localize(ctx: &mut GpuContext, dir: &Path, case: &Case) -> Result<Localization, String> {
    let device = dir
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let grf = crate::corpus::paths::grf_bytes_of_device(&device);
    let program =
        crate::cli::load_file(&crate::cli::variant_kernel(dir), grf).map_err(|e| e.to_string())?;
    let p = crate::interp::prepare(&program, &case.kernel).map_err(|e| e.to_string())?;
    let launch = gpu::build_probe(dir, case)?;
    let mut gpu_states = |k: u64| -> Result<States, String> {
        let steps = u32::try_from(k).map_err(|_| "step count over 2^32")?;
        Ok(gpu::probe(ctx, &launch, steps)?
            .into_iter()
            .map(|s| (s.thread, s.grf))
            .collect())
    };
    let mut cpu = |k: u64| cpu_states(dir, case, k).map(|x| x.0);
    let part = bisect(&mut cpu, &mut gpu_states, p.layout.total as usize)?;
    let (cpu_at, last) = cpu_states(dir, case, part.step)?;
    let gpu_at = gpu_states(part.step)?;
    Ok(describe(&p, &part, &cpu_at, &last, &gpu_at))
}

/// The report of a parting point: the instruction, the variable, both words.
pub fn describe(
    p: &crate::interp::Prepared,
    part: &Parting,
    reference: &States,
    last: &BTreeMap<u64, usize>,
    other: &States,
) -> Localization {
    let index = last.get(&part.thread).copied();
    let text = match index.and_then(|i| p.kernel.body.get(i)) {
        Some(ins) => crate::print::instruction(&p.kernel, ins).trim().to_string(),
        None => "(the thread had ended on the interpreter)".into(),
    };
    let word = |s: &States| -> Option<String> {
        let b = part.byte? as usize & !3;
        let w = s.get(&part.thread)?.get(b..b + 4)?;
        Some(format!(
            "{:#010x}",
            u32::from_le_bytes([w[0], w[1], w[2], w[3]])
        ))
    };
    Localization {
        thread: part.thread,
        step: part.step,
        instruction: index.unwrap_or(0),
        text,
        byte: part.byte,
        variable: part.byte.and_then(|b| variable_at(p, b)),
        reference: word(reference),
        gpu: word(other),
        probes: part.probes,
    }
}

/// The smallest declared variable whose bytes hold GRF byte `b`.
fn variable_at(p: &crate::interp::Prepared, b: u32) -> Option<String> {
    let l = &p.layout;
    (0..p.kernel.vars.len())
        .filter(|&i| {
            let (o, s) = (l.offsets.get(i).copied(), l.sizes.get(i).copied());
            matches!((o, s), (Some(o), Some(s)) if o <= b && b < o + s && s > 0)
        })
        .min_by_key(|&i| l.sizes[i])
        .map(|i| {
            let v = &p.kernel.vars[i];
            format!("{} (+{} bytes)", v.name, b - l.offsets[i])
        })
}
