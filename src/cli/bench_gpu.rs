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
    let pipeline_ms = first.pipeline_ms;
    let first_run_ms = first.dispatch_ms;
    let startup_ms = translate_ms + pipeline_ms + first_run_ms;
    let case_name = dir
        .parent()
        .and_then(|p| p.file_name())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = baselines.join(format!("{case_name}.wgsl"));
    let mut base = if file.exists() {
        Some(Baseline::new(ctx, &file, case)?)
    } else {
        None
    };
    // The two alternate run by run, so that a burst of load on a shared machine
    // slows both alike and the ratio (the median of the runs' ratios) stays true.
    let mut ours = Timed::default();
    let mut theirs = Timed::default();
    let mut last = first;
    for _ in 0..runs.max(1) {
        last = gpu::execute(ctx, &launch)?;
        ours.push(last.dispatch_ms, last.gpu_ms);
        if let Some(b) = base.as_mut() {
            let t = b.run(ctx)?;
            theirs.push(t.dispatch_ms, t.gpu_ms);
        }
    }
    let dispatch_ms = median(ours.dispatch.clone());
    let gpu_ms = ours.gpu_median();
    let kernel_ms = gpu_ms.unwrap_or(dispatch_ms);
    let baseline = base.map(|b| b.report(&ours, &theirs, &last.buffers, startup_ms));
    Ok(GpuBench {
        adapter: ctx.adapter().name.clone(),
        translate_ms,
        wgsl_bytes: launch.chosen().wgsl.len(),
        mapping: last.mapping.to_string(),
        emulation: crate::backend::select::emulation(ctx).describe().into(),
        pipeline_ms,
        first_run_ms,
        dispatch_ms,
        gpu_ms,
        passes: last.passes,
        channel_ops_per_s: channel_ops as f64 / (kernel_ms / 1e3),
        gb_per_s: buffer_bytes as f64 / (kernel_ms / 1e3) / 1e9,
        speedup_vs_cpu: cpu_ms / dispatch_ms,
        baseline,
    })
}

/// Times of one side's runs, in run order (the pairs line up by index).
#[derive(Default)]
struct Timed {
    dispatch: Vec<f64>,
    gpu: Vec<Option<f64>>,
}

impl Timed {
    fn push(&mut self, dispatch_ms: f64, gpu_ms: Option<f64>) {
        self.dispatch.push(dispatch_ms);
        self.gpu.push(gpu_ms);
    }

    /// The GPU times, when every run had one.
    fn gpu_times(&self) -> Option<Vec<f64>> {
        let g: Option<Vec<f64>> = self.gpu.iter().copied().collect();
        g.filter(|g| !g.is_empty())
    }

    fn gpu_median(&self) -> Option<f64> {
        self.gpu_times().map(median)
    }
}

/// Median of `a[i] / b[i]`.
fn paired_ratio(a: &[f64], b: &[f64]) -> f64 {
    median(a.iter().zip(b).map(|(x, y)| x / y).collect())
}

/// The hand-written WGSL kernel of a case, built and warmed up on the adapter.
struct Baseline {
    file: PathBuf,
    job: ComputeJob,
    names: Vec<String>,
    last: Vec<Vec<u8>>,
    /// Its warm-up: pipeline creation and the first run.
    first: visa_emu_host::JobTimings,
}

impl Baseline {
    fn new(ctx: &mut GpuContext, file: &Path, case: &Case) -> Result<Baseline, String> {
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
            first_workgroup: [0; 3],
            repeat: None,
            aliases: Vec::new(),
        };
        gpu::for_adapter(ctx, &mut job)?;
        let mut b = Baseline {
            file: file.to_path_buf(),
            job,
            names,
            last: Vec::new(),
            first: Default::default(),
        };
        // The warm-up: pipeline creation and the driver's first-use compile.
        b.first = b.run(ctx)?;
        Ok(b)
    }

    fn run(&mut self, ctx: &mut GpuContext) -> Result<visa_emu_host::JobTimings, String> {
        let r = ctx
            .run(&self.job)
            .map_err(|e| format!("{}: {e}", self.file.display()))?;
        self.last = r.outputs;
        Ok(r.timings)
    }

    /// The row's baseline columns; `emulated` are the GPU path's output buffers,
    /// `startup_ms` its translation, pipeline and first run.
    fn report(
        self,
        ours: &Timed,
        theirs: &Timed,
        emulated: &[(String, Vec<u8>)],
        startup_ms: f64,
    ) -> BaselineBench {
        let gpu_slowdown = match (ours.gpu_times(), theirs.gpu_times()) {
            (Some(a), Some(b)) => Some(paired_ratio(&a, &b)),
            _ => None,
        };
        let their_start = self.first.pipeline_ms + self.first.dispatch_ms;
        BaselineBench {
            file: self.file.display().to_string(),
            pipeline_ms: self.first.pipeline_ms,
            first_run_ms: self.first.dispatch_ms,
            startup_slowdown: startup_ms / their_start.max(1e-3),
            dispatch_ms: median(theirs.dispatch.clone()),
            gpu_ms: theirs.gpu_median(),
            slowdown: paired_ratio(&ours.dispatch, &theirs.dispatch),
            gpu_slowdown,
            difference: first_difference(&self.names, emulated, &self.last),
        }
    }
}

/// The first word where the baseline's buffers and the GPU path's differ.
fn first_difference(
    names: &[String],
    emulated: &[(String, Vec<u8>)],
    outputs: &[Vec<u8>],
) -> Option<String> {
    for (i, n) in names.iter().enumerate() {
        let Some((_, b)) = emulated.iter().find(|(m, _)| m == n) else {
            continue;
        };
        let w = |v: &[u8], k: usize| {
            v.get(4 * k..4 * k + 4)
                .map_or(0, |c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
        };
        let words = b.len().div_ceil(4);
        let empty = Vec::new();
        let theirs = outputs.get(i).unwrap_or(&empty);
        let differ: Vec<usize> = (0..words).filter(|&k| w(b, k) != w(theirs, k)).collect();
        if let Some(&k) = differ.first() {
            // How many differ tells a baseline that rounds differently (a few words
            // one unit apart) from one that computes something else.
            return Some(format!(
                "{n} word {k}: GPU path {:#010x}, baseline {:#010x}; {} of {words} words differ",
                w(b, k),
                w(theirs, k),
                differ.len()
            ));
        }
    }
    None
}
