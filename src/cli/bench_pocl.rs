//! The PoCL column of `visa-emu bench`: the case's OpenCL source (`kernel.cl`) built
//! and run by PoCL, an independent OpenCL on the CPU, on the same (scaled) arguments.
//!
//! PoCL is reached through `tools/pocl_bench.py` (pyopencl): the bench writes a request
//! (source, NDRange, every argument's bytes) and reads back the build time and the
//! kernel time of each run from OpenCL profiling events. `VISA_POCL_PYTHON` names the
//! interpreter (default: the first of `/usr/bin/python3`, `python3` that imports
//! pyopencl and finds a PoCL platform); without one the column shows `-`.

use crate::corpus::case::Case;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Debug, serde::Serialize)]
pub struct PoclBench {
    pub device: String,
    pub build_ms: f64,
    /// Median kernel time (profiling events), uploads excluded.
    pub run_ms: f64,
}

fn helper() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/pocl_bench.py")
}

/// A Python that runs the helper and finds PoCL, with PoCL's device name; the reason
/// when there is none.
pub fn probe() -> Result<(String, String), String> {
    let candidates: Vec<String> = match std::env::var("VISA_POCL_PYTHON") {
        Ok(p) => vec![p],
        Err(_) => vec!["/usr/bin/python3".into(), "python3".into()],
    };
    let mut why = String::from("no python3");
    for py in candidates {
        match Command::new(&py).arg(helper()).arg("--probe").output() {
            Ok(o) if o.status.success() => {
                let v: serde_json::Value = serde_json::from_slice(&o.stdout)
                    .map_err(|e| format!("{}: unreadable probe output: {e}", helper().display()))?;
                let dev = v["device"].as_str().unwrap_or("PoCL").to_string();
                return Ok((py, dev));
            }
            Ok(o) => why = String::from_utf8_lossy(&o.stderr).trim().to_string(),
            Err(e) => why = format!("{py}: {e}"),
        }
    }
    Err(why)
}

/// Build and time `case` (as scaled and changed by the caller) on PoCL.
pub fn bench_pocl(
    python: &str,
    case_dir: &Path,
    case: &Case,
    runs: usize,
    tmp: &Path,
) -> Result<PoclBench, String> {
    std::fs::create_dir_all(tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let mut args = Vec::new();
    let mut sorted: Vec<_> = case.args.iter().collect();
    sorted.sort_by_key(|a| a.index);
    for a in sorted {
        args.push(match a.kind.as_str() {
            "buffer" => {
                let data = case.input_bytes(a).map_err(|e| e.to_string())?;
                let f = tmp.join(format!("pocl-{}.bin", a.index));
                std::fs::write(&f, data).map_err(|e| format!("{}: {e}", f.display()))?;
                serde_json::json!({"kind": "buffer", "file": f})
            }
            "scalar" => {
                let b = case.scalar_bytes(a).map_err(|e| e.to_string())?;
                let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
                serde_json::json!({"kind": "scalar", "hex": hex})
            }
            "local" => serde_json::json!({"kind": "local", "bytes": a.bytes.unwrap_or(0)}),
            other => return Err(format!("argument `{}`: kind {other}", a.name)),
        });
    }
    let req = serde_json::json!({
        "source": case_dir.join("kernel.cl"),
        "kernel": case.kernel,
        "options": case.pocl_build_options.clone().unwrap_or_default(),
        "global": case.ndrange.global_size,
        "local": case.ndrange.local_size,
        "offset": case.ndrange.global_offset,
        "runs": runs.max(1),
        "args": args,
    });
    let rf = tmp.join("pocl-request.json");
    std::fs::write(&rf, req.to_string()).map_err(|e| format!("{}: {e}", rf.display()))?;
    let o = Command::new(python)
        .arg(helper())
        .arg(&rf)
        .output()
        .map_err(|e| format!("{python}: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "PoCL run failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        ));
    }
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).map_err(|e| format!("PoCL helper output: {e}"))?;
    let times: Vec<f64> = v["run_ms"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x.as_f64()).collect())
        .unwrap_or_default();
    if times.is_empty() {
        return Err("PoCL helper reported no runs".into());
    }
    Ok(PoclBench {
        device: v["device"].as_str().unwrap_or("PoCL").to_string(),
        build_ms: v["build_ms"].as_f64().unwrap_or(0.0),
        run_ms: super::bench::median(times),
    })
}
