//! `visa-emu bench`: speed of the CPU interpreter and of the GPU path on corpus
//! workloads, side by side in one process, with ratios.
//!
//! Per workload: the interpreter's median run (all cores unless `--workers`), and on
//! the GPU translation time, cold pipeline creation, the median warm dispatch (upload,
//! passes, readback: wall clock) and the GPU's own time where the adapter has timestamp
//! queries. Channel-operations are executed instructions times their enabled channels;
//! effective GB/s counts every buffer argument's bytes once per run. A hand-written
//! WGSL kernel of the same algorithm (`benches/wgsl/<case>.wgsl`) runs on the same
//! adapter and data when it exists: the emulation's cost is the ratio of the two.

use crate::abi::KernelAbi;
use crate::corpus::case::Case;
use crate::corpus::paths::grf_bytes_of_device;
use crate::interp::{self, RunOptions};
use std::path::Path;
use std::time::Instant;

#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchRow {
    pub workload: String,
    /// Work-items of the NDRange.
    pub work_items: u64,
    /// Bytes of all buffer arguments.
    pub buffer_bytes: u64,
    pub cpu: CpuBench,
    pub gpu: Option<GpuBench>,
    /// Why the GPU path did not run this workload (a translation error, a lost device):
    /// the other workloads still run, and `bench` exits non-zero at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_error: Option<String>,
    /// The same OpenCL source on PoCL, when PoCL is installed.
    pub pocl: Option<super::bench_pocl::PoclBench>,
}

impl BenchRow {
    /// The emulation's time (the GPU path's, else the interpreter's) over PoCL's.
    pub fn vs_pocl(&self) -> Option<f64> {
        let p = self.pocl.as_ref()?;
        let ours = self.gpu.as_ref().map_or(self.cpu.run_ms, |g| g.dispatch_ms);
        Some(ours / p.run_ms.max(1e-6))
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct CpuBench {
    pub workers: usize,
    pub prepare_ms: f64,
    pub run_ms: f64,
    pub channel_ops: u64,
    pub channel_ops_per_s: f64,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct GpuBench {
    pub adapter: String,
    pub translate_ms: f64,
    pub wgsl_bytes: usize,
    /// The mapping that ran: `threads` or `lanes`.
    pub mapping: String,
    /// 64-bit types emulated on this device: `none`, `f64` or `f64+int64`
    /// (`translate::lower64`; its lowering time is part of `pipeline_ms`).
    pub emulation: String,
    /// Shader module and pipeline creation, first run (the cache was cold).
    pub pipeline_ms: f64,
    /// The first run after the pipeline's creation (upload, dispatch passes,
    /// readback): where the driver compiles a shader when it first runs (llvmpipe does)
    /// that compile is in here, so translation + pipeline + this is the time to the
    /// first result.
    pub first_run_ms: f64,
    /// Median warm run: upload, dispatch passes, readback.
    pub dispatch_ms: f64,
    /// Median GPU time from timestamp queries, when the adapter has them.
    pub gpu_ms: Option<f64>,
    pub passes: u32,
    pub channel_ops_per_s: f64,
    pub gb_per_s: f64,
    /// CPU interpreter run time / GPU dispatch time (above 1: the GPU path is faster).
    pub speedup_vs_cpu: f64,
    pub baseline: Option<BaselineBench>,
}

/// The hand-written WGSL kernel of the same algorithm on the same adapter.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BaselineBench {
    pub file: String,
    /// Its pipeline's creation and first run, as the GPU path's `pipeline_ms` and
    /// `first_run_ms` (0 and a warm run where this process had created it before).
    pub pipeline_ms: f64,
    pub first_run_ms: f64,
    /// The GPU path's time to the first result (translation, pipeline, first run)
    /// over the hand-written kernel's (pipeline, first run).
    pub startup_slowdown: f64,
    pub dispatch_ms: f64,
    pub gpu_ms: Option<f64>,
    /// GPU path time / hand-written time (1.0 = as fast as hand-written WGSL): the
    /// median of the runs' ratios of dispatch wall times (the two alternate run by run).
    pub slowdown: f64,
    /// The same from the adapter's timestamps (kernel time only), when it has them.
    pub gpu_slowdown: Option<f64>,
    /// The first word where its buffers differ from the GPU path's (float code may
    /// differ in the last bit where the driver contracts a*b+c; reported, not required).
    pub difference: Option<String>,
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Time the interpreter on `case` (as changed by the caller): `runs` timed runs after
/// one warm-up.
pub fn bench_cpu(dir: &Path, case: &Case, runs: usize, workers: usize) -> Result<CpuBench, String> {
    let device = dir
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let abi = KernelAbi::from_bin(dir, &case.kernel, grf_bytes_of_device(&device))
        .map_err(|e| e.to_string())?;
    let t0 = Instant::now();
    let program = crate::cli::load_file(
        &crate::cli::variant_kernel(dir),
        grf_bytes_of_device(&device),
    )
    .map_err(|e| e.to_string())?;
    let prepared = interp::prepare(&program, &case.kernel).map_err(|e| e.to_string())?;
    let prepare_ms = t0.elapsed().as_secs_f64() * 1e3;
    let opts = RunOptions {
        trace: false,
        workers,
        ..RunOptions::default()
    };
    let mut times = Vec::new();
    let mut ops = 0;
    for i in 0..runs + 1 {
        // A non-uniform NDRange runs as its pieces, one after another over one memory.
        let mut pieces =
            crate::abi::launch::prepare_pieces(&abi, case, dir).map_err(|e| e.to_string())?;
        let t = Instant::now();
        let (_, stats) = crate::backend::cpu::run_pieces(&prepared, &mut pieces, &opts)?;
        ops = stats.channel_ops;
        if i > 0 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    let m = median(times);
    Ok(CpuBench {
        workers,
        prepare_ms,
        run_ms: m * 1e3,
        channel_ops: ops,
        channel_ops_per_s: ops as f64 / m,
    })
}

/// Work-items and buffer bytes of a case.
pub fn shape(case: &Case) -> (u64, u64) {
    let items = case.ndrange.global_size.iter().product();
    let bytes = case
        .args
        .iter()
        .filter(|a| a.kind == "buffer" || a.kind == "image")
        .map(|a| a.bytes.unwrap_or(0))
        .sum();
    (items, bytes)
}

pub fn table(rows: &[BenchRow]) -> String {
    let mut s = format!(
        "{:<34} {:>9} {:>10} {:>11} | {:>9} {:>9} {:>9} {:>10} {:>10} {:>6} {:>11} {:>7} {:>9} | {:>10} {:>8} {:>8} {:>8} | {:>9} {:>8}\n",
        "workload",
        "items",
        "cpu ms",
        "cpu ops/s",
        "transl ms",
        "pipe ms",
        "1st ms",
        "disp ms",
        "gpu ms",
        "passes",
        "gpu ops/s",
        "GB/s",
        "vs cpu",
        "wgsl ms",
        "vs wgsl",
        "gpu vs",
        "start vs",
        "pocl ms",
        "vs pocl"
    );
    for r in rows {
        s += &format!(
            "{:<34} {:>9} {:>10.2} {:>11.3e} |",
            r.workload, r.work_items, r.cpu.run_ms, r.cpu.channel_ops_per_s
        );
        match &r.gpu {
            Some(g) => {
                s += &format!(
                    " {:>9.1} {:>9.0} {:>9.0} {:>10.2} {:>10} {:>6} {:>11.3e} {:>7.3} {:>8.2}x |",
                    g.translate_ms,
                    g.pipeline_ms,
                    g.first_run_ms,
                    g.dispatch_ms,
                    g.gpu_ms.map_or("-".into(), |m| format!("{m:.2}")),
                    format!(
                        "{}{}{}",
                        g.passes,
                        match g.mapping.as_str() {
                            "lanes" => "L",
                            "straight" => "S",
                            _ => "",
                        },
                        if g.emulation == "none" { "" } else { "E" }
                    ),
                    g.channel_ops_per_s,
                    g.gb_per_s,
                    g.speedup_vs_cpu
                );
                match &g.baseline {
                    Some(b) => {
                        s += &format!(
                            " {:>10.2} {:>7.2}x {:>8} {:>7.2}x |",
                            b.dispatch_ms,
                            b.slowdown,
                            b.gpu_slowdown.map_or("-".into(), |r| format!("{r:.2}x")),
                            b.startup_slowdown
                        )
                    }
                    None => s += &format!(" {:>10} {:>8} {:>8} {:>8} |", "-", "-", "-", "-"),
                }
            }
            None if r.gpu_error.is_some() => s += &format!(" {:>124} |", "(GPU path failed)"),
            None => s += &format!(" {:>124} |", "(no GPU run)"),
        }
        match (&r.pocl, r.vs_pocl()) {
            (Some(p), Some(v)) => s += &format!(" {:>9.3} {:>7.2}x", p.run_ms, v),
            _ => s += &format!(" {:>9} {:>8}", "-", "-"),
        }
        if let Some(d) = r
            .gpu
            .as_ref()
            .and_then(|g| g.baseline.as_ref())
            .and_then(|b| b.difference.as_ref())
        {
            s += &format!(" (wgsl differs: {d})");
        }
        if let Some(e) = &r.gpu_error {
            s += &format!(" (GPU: {e})");
        }
        s.push('\n');
    }
    s
}

/// The ratios as a horizontal bar chart (log scale): per workload, the GPU path's
/// speed-up over the interpreter and its slowdown against hand-written WGSL.
pub fn svg(rows: &[BenchRow]) -> String {
    let bars: Vec<(String, &str, f64)> = rows
        .iter()
        .filter_map(|r| r.gpu.as_ref().map(|g| (r, g)))
        .flat_map(|(r, g)| {
            let mut v = vec![(
                r.workload.clone(),
                "speed-up vs CPU interpreter",
                g.speedup_vs_cpu,
            )];
            if let Some(b) = &g.baseline {
                v.push((
                    r.workload.clone(),
                    "slowdown vs hand-written WGSL",
                    b.slowdown,
                ));
                if let Some(k) = b.gpu_slowdown {
                    v.push((
                        r.workload.clone(),
                        "kernel-time slowdown vs hand-written WGSL",
                        k,
                    ));
                }
            }
            if let Some(p) = r.vs_pocl() {
                v.push((r.workload.clone(), "time vs PoCL (OpenCL on the CPU)", p));
            }
            v
        })
        .collect();
    let (w, row_h, left, right) = (900.0, 22.0, 330.0, 80.0);
    let h = 60.0 + row_h * bars.len() as f64;
    let max = bars
        .iter()
        .map(|b| b.2.abs().log10())
        .fold(1.0f64, f64::max)
        .ceil();
    let x_of = |v: f64| left + (v.max(1e-3).log10() + max) / (2.0 * max) * (w - left - right);
    let esc = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;");
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <text x=\"10\" y=\"20\" font-size=\"14\">visa-emu bench: ratios (log scale, 1x at the line)</text>\n\
         <line x1=\"{x1}\" y1=\"30\" x2=\"{x1}\" y2=\"{y2}\" stroke=\"black\"/>\n",
        x1 = x_of(1.0),
        y2 = h - 10.0
    );
    for (i, (name, what, v)) in bars.iter().enumerate() {
        let y = 40.0 + row_h * i as f64;
        let (x0, x1) = (x_of(1.0).min(x_of(*v)), x_of(1.0).max(x_of(*v)));
        let color = if what.contains("PoCL") {
            "#5a9a5a"
        } else if what.contains("CPU") {
            "#4878a8"
        } else {
            "#c8742c"
        };
        s += &format!(
            "<text x=\"10\" y=\"{ty}\">{} — {}</text>\n<rect x=\"{x0}\" y=\"{y}\" width=\"{bw}\" height=\"{bh}\" fill=\"{color}\"/>\n<text x=\"{tx}\" y=\"{ty}\">{v:.2}x</text>\n",
            esc(name),
            esc(what),
            ty = y + 14.0,
            bw = (x1 - x0).max(1.0),
            bh = row_h - 6.0,
            tx = x1 + 4.0,
        );
    }
    s + "</svg>\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(speedup: f64, slowdown: Option<f64>) -> BenchRow {
        BenchRow {
            workload: "w<1>".into(),
            work_items: 1,
            buffer_bytes: 4,
            cpu: CpuBench {
                workers: 1,
                prepare_ms: 0.0,
                run_ms: 1.0,
                channel_ops: 1,
                channel_ops_per_s: 1.0,
            },
            gpu: Some(GpuBench {
                adapter: "a".into(),
                translate_ms: 1.0,
                wgsl_bytes: 1,
                mapping: "threads".into(),
                emulation: "none".into(),
                pipeline_ms: 1.0,
                first_run_ms: 1.0,
                dispatch_ms: 1.0,
                gpu_ms: None,
                passes: 1,
                channel_ops_per_s: 1.0,
                gb_per_s: 1.0,
                speedup_vs_cpu: speedup,
                baseline: slowdown.map(|s| BaselineBench {
                    file: "f".into(),
                    pipeline_ms: 1.0,
                    first_run_ms: 1.0,
                    startup_slowdown: 1.5,
                    dispatch_ms: 1.0,
                    gpu_ms: None,
                    slowdown: s,
                    gpu_slowdown: Some(s * 2.0),
                    difference: None,
                }),
            }),
            gpu_error: None,
            pocl: Some(super::super::bench_pocl::PoclBench {
                device: "pocl".into(),
                build_ms: 1.0,
                run_ms: 0.25,
            }),
        }
    }

    #[test]
    fn the_chart_has_one_bar_per_ratio_and_escapes_names() {
        let s = svg(&[row(20.0, Some(3.0)), row(0.5, None)]);
        // Row 1: vs CPU, vs WGSL (dispatch and kernel time), vs PoCL; row 2: two.
        assert_eq!(s.matches("<rect").count(), 6);
        assert!(s.contains("w&lt;1>") && s.contains("20.00x") && s.contains("0.50x"));
        assert!(s.contains("6.00x"), "{s}");
        // GPU dispatch 1 ms against PoCL's 0.25 ms.
        assert!(s.contains("4.00x"), "{s}");
        let t = table(&[row(20.0, Some(3.0))]);
        assert!(
            t.contains("20.00x")
                && t.contains("3.00x")
                && t.contains("6.00x")
                && t.contains("4.00x"),
            "{t}"
        );
    }
}
