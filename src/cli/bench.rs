//! `visa-emu bench`: the interpreter's speed on corpus workloads, in channel-operations
//! per second (executed instructions times their running channels), the median of
//! several runs after a warm-up. Decoding and layout are timed apart from execution.

use crate::abi::{launch, KernelAbi};
use crate::corpus::case::Case;
use crate::corpus::paths::grf_bytes_of_device;
use crate::interp::{self, RunOptions};
use std::path::Path;
use std::time::Instant;

#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchRow {
    pub workload: String,
    pub prepare_ms: f64,
    pub run_ms: f64,
    pub channel_ops: u64,
    pub channel_ops_per_s: f64,
}

/// Time one variant folder: `runs` timed runs after one warm-up.
pub fn bench_variant(dir: &Path, runs: usize) -> Result<BenchRow, String> {
    let case = Case::load(dir.parent().ok_or("no case folder")?).map_err(|e| e.to_string())?;
    let device = dir
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let abi = KernelAbi::from_bin(dir, &case.kernel, grf_bytes_of_device(&device))
        .map_err(|e| e.to_string())?;
    let t0 = Instant::now();
    let program = crate::cli::load_file(&dir.join("kernel.visaasm"), grf_bytes_of_device(&device))
        .map_err(|e| e.to_string())?;
    let prepared = interp::prepare(&program, &case.kernel).map_err(|e| e.to_string())?;
    let prepare_ms = t0.elapsed().as_secs_f64() * 1e3;
    let opts = RunOptions {
        trace: false,
        ..RunOptions::default()
    };
    let mut times = Vec::new();
    let mut ops = 0;
    for i in 0..runs + 1 {
        let mut lp = launch::prepare(&abi, &case, dir).map_err(|e| e.to_string())?;
        let mut mem = std::mem::take(&mut lp.memory);
        let t = Instant::now();
        let stats = interp::run(
            &prepared,
            &lp.launch,
            &mut mem,
            &|g, th| lp.payload(g, th),
            &opts,
        )
        .map_err(|e| e.to_string())?;
        if i > 0 {
            times.push(t.elapsed().as_secs_f64());
        }
        ops = stats.channel_ops;
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let median = times[times.len() / 2];
    Ok(BenchRow {
        workload: crate::cli::conformance::variant_name(dir),
        prepare_ms,
        run_ms: median * 1e3,
        channel_ops: ops,
        channel_ops_per_s: ops as f64 / median,
    })
}

pub fn table(rows: &[BenchRow]) -> String {
    let mut s = format!(
        "{:<40} {:>11} {:>10} {:>14} {:>16}\n",
        "workload", "prepare ms", "run ms", "channel ops", "channel ops/s"
    );
    for r in rows {
        s += &format!(
            "{:<40} {:>11.2} {:>10.2} {:>14} {:>16.3e}\n",
            r.workload, r.prepare_ms, r.run_ms, r.channel_ops, r.channel_ops_per_s
        );
    }
    s
}
