//! The GPU half of `visa-emu bench`: the translated kernel and its hand-written WGSL
//! baseline on one adapter.
//!
//! Baseline convention (`benches/wgsl/<case>.wgsl`): entry point `main`, the case's
//! buffer arguments in argument order at bindings 0.. (storage, read_write), then its
//! scalar arguments packed in argument order (each at its own size, 4-byte aligned) in
//! one uniform at the next binding (none without scalars); `@workgroup_size` equal to
//! the case's local size.
//! It is dispatched over global / local work-groups.

use super::bench::{median, BaselineBench, GpuBench};
use crate::backend::gpu;
use crate::corpus::case::Case;
use std::path::{Path, PathBuf};
use std::time::Instant;
use visa_emu_host::{BufferUse, ComputeJob, GpuContext, JobBuffer};

/// Where the baselines live: `dir` if given, else `benches/wgsl` of the source tree.
pub fn baseline_dir(dir: Option<&Path>) -> PathBuf {
    dir.map(Path::to_path_buf)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/wgsl"))
}

/// Bench the GPU path on `ctx`; `cpu_ms` is the interpreter's time for the ratio.
#[allow(clippy::too_many_arguments)]
pub fn bench_gpu(
    ctx: &mut GpuContext,
    dir: &Path,
    case: &Case,
    runs: usize,
    cpu_ms: f64,
    channel_ops: u64,
    buffer_bytes: u64,
    baselines: &Path,
) -> Result<GpuBench, String> {
    let t = Instant::now();
    let mut launch = gpu::build(dir, case, gpu::DEFAULT_STEP_LIMIT)?;
    launch.without_counts();
    let translate_ms = t.elapsed().as_secs_f64() * 1e3;
    let first = gpu::execute(ctx, &launch)?;
    let mut times = Vec::new();
    let mut gpu_times = Vec::new();
    let mut last = first;
    let pipeline_ms = last.pipeline_ms;
    for _ in 0..runs.max(1) {
        last = gpu::execute(ctx, &launch)?;
        times.push(last.dispatch_ms);
        if let Some(g) = last.gpu_ms {
            gpu_times.push(g);
        }
    }
    let dispatch_ms = median(times);
    let gpu_ms = (!gpu_times.is_empty()).then(|| median(gpu_times));
    let kernel_ms = gpu_ms.unwrap_or(dispatch_ms);
    let case_name = dir
        .parent()
        .and_then(|p| p.file_name())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = baselines.join(format!("{case_name}.wgsl"));
    let baseline = if file.exists() {
        Some(bench_baseline(
            ctx,
            &file,
            case,
            runs,
            dispatch_ms,
            &last.buffers,
        )?)
    } else {
        None
    };
    Ok(GpuBench {
        adapter: ctx.adapter().name.clone(),
        translate_ms,
        wgsl_bytes: launch.chosen().wgsl.len(),
        mapping: last.mapping.to_string(),
        emulation: crate::backend::select::emulation(ctx).describe().into(),
        pipeline_ms,
        dispatch_ms,
        gpu_ms,
        passes: last.passes,
        channel_ops_per_s: channel_ops as f64 / (kernel_ms / 1e3),
        gb_per_s: buffer_bytes as f64 / (kernel_ms / 1e3) / 1e9,
        speedup_vs_cpu: cpu_ms / dispatch_ms,
        baseline,
    })
}

fn bench_baseline(
    ctx: &mut GpuContext,
    file: &Path,
    case: &Case,
    runs: usize,
    emulated_ms: f64,
    emulated: &[(String, Vec<u8>)],
) -> Result<BaselineBench, String> {
    let wgsl = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut buffers = Vec::new();
    let mut names = Vec::new();
    let mut params: Vec<u8> = Vec::new();
    for a in &case.args {
        match a.kind.as_str() {
            "buffer" => {
                let data = case.input_bytes(a).map_err(|e| e.to_string())?;
                names.push(a.name.clone());
                buffers.push(JobBuffer {
                    size: data.len().max(4) as u64,
                    data,
                    usage: BufferUse::ReadWrite,
                    readback: true,
                });
            }
            "scalar" => {
                let b = case.scalar_bytes(a).map_err(|e| e.to_string())?;
                params.extend_from_slice(&b);
                params.resize(params.len().div_ceil(4) * 4, 0);
            }
            other => {
                return Err(format!(
                    "{}: argument kind `{other}` has no place in the baseline convention",
                    file.display()
                ))
            }
        }
    }
    if !params.is_empty() {
        params.resize(params.len().div_ceil(16) * 16, 0);
        buffers.push(JobBuffer {
            size: params.len() as u64,
            data: params,
            usage: BufferUse::Uniform,
            readback: false,
        });
    }
    let nd = &case.ndrange;
    let mut workgroups = [1u32; 3];
    for (d, (wg, global)) in workgroups.iter_mut().zip(&nd.global_size).enumerate() {
        let local = nd.local_size.get(d).copied().unwrap_or(1).max(1);
        *wg = global.div_ceil(local) as u32;
    }
    let mut job = ComputeJob {
        key: gpu::hash(&wgsl),
        wgsl,
        entry_point: "main".into(),
        buffers,
        workgroups,
        chunk_base_binding: None,
        repeat: None,
        aliases: Vec::new(),
    };
    gpu::for_adapter(ctx, &mut job)?;
    let mut r = ctx
        .run(&job)
        .map_err(|e| format!("{}: {e}", file.display()))?;
    let mut times = Vec::new();
    let mut gpu_times = Vec::new();
    for _ in 0..runs.max(1) {
        r = ctx
            .run(&job)
            .map_err(|e| format!("{}: {e}", file.display()))?;
        times.push(r.timings.dispatch_ms);
        if let Some(g) = r.timings.gpu_ms {
            gpu_times.push(g);
        }
    }
    let dispatch_ms = median(times);
    let gpu_ms = (!gpu_times.is_empty()).then(|| median(gpu_times));
    // The first word where the baseline's buffers and the GPU path's differ.
    let mut difference = None;
    for (i, n) in names.iter().enumerate() {
        let Some((_, b)) = emulated.iter().find(|(m, _)| m == n) else {
            continue;
        };
        let w = |v: &[u8], k: usize| {
            v.get(4 * k..4 * k + 4)
                .map_or(0, |c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
        };
        let words = b.len().div_ceil(4);
        let differ: Vec<usize> = (0..words)
            .filter(|&k| w(b, k) != w(&r.outputs[i], k))
            .collect();
        if let Some(&k) = differ.first() {
            // How many differ tells a baseline that rounds differently (a few words
            // one unit apart) from one that computes something else.
            difference = Some(format!(
                "{n} word {k}: GPU path {:#010x}, baseline {:#010x}; {} of {words} words differ",
                w(b, k),
                w(&r.outputs[i], k),
                differ.len()
            ));
            break;
        }
    }
    Ok(BaselineBench {
        file: file.display().to_string(),
        dispatch_ms,
        gpu_ms,
        slowdown: emulated_ms / dispatch_ms,
        difference,
    })
}
