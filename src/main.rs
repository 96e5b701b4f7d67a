//! The `visa-emu` command line.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use visa_emu::cli;

#[derive(Parser)]
#[command(
    name = "visa-emu",
    version,
    about = "Run Intel vISA kernels on a CPU reference interpreter or any wgpu GPU"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Where kernels execute (`run`, `conformance`).
#[derive(clap::Args, Clone)]
struct DeviceFlags {
    /// `auto` (a hardware GPU when one can run the translated kernels, else the CPU
    /// interpreter, with a notice), `cpu` (the reference interpreter), or the GPU path
    /// on `gpu` (any backend), `vulkan`, `metal`, `dx12`, `gl`.
    #[arg(long, default_value = "auto")]
    backend: String,
    /// Adapter index among the backend's adapters (best first).
    #[arg(long)]
    adapter: Option<usize>,
    /// Open the device without subgroup operations (the generated code uses none, so
    /// this only proves it).
    #[arg(long)]
    no_subgroups: bool,
    /// Open the device without f16 (half precision is always emulated exactly on u32
    /// bits, so this only proves it).
    #[arg(long)]
    no_f16: bool,
    /// Open the device without f64 (doubles emulated exactly; `VISA_GPU_EMULATE=f64`
    /// forces it on any device).
    #[arg(long)]
    no_f64: bool,
    /// Open the device without 64-bit integers (emulated on u32 pairs, doubles too;
    /// `VISA_GPU_EMULATE=int64`).
    #[arg(long)]
    no_int64: bool,
    /// GPU path: `auto` (the lane mapping where it runs straight, else threads),
    /// `threads` (an invocation per vISA thread, any kernel) or `lanes` (an invocation
    /// per SIMD channel where the kernel allows it; see docs/design.md).
    #[arg(long, default_value = "auto")]
    mapping: String,
}

impl DeviceFlags {
    /// Open what the flags ask for; `None` is the CPU interpreter.
    fn args(
        &self,
    ) -> Result<
        (
            visa_emu::backend::select::BackendArg,
            visa_emu::backend::select::DeviceArgs,
        ),
        Failed,
    > {
        let arg = self.backend.parse().map_err(Failed)?;
        let dev = visa_emu::backend::select::DeviceArgs {
            adapter: self.adapter,
            no_subgroups: self.no_subgroups,
            no_f16: self.no_f16,
            no_f64: self.no_f64,
            no_int64: self.no_int64,
        };
        Ok((arg, dev))
    }

    /// Another device like the one `open` gave, without its notices (a worker's own,
    /// so that pipelines compile in parallel).
    fn open_another(&self) -> Result<visa_emu_host::GpuContext, String> {
        let (arg, dev) = self.args().map_err(|e| e.0)?;
        visa_emu::backend::select::open(arg, &dev, &mut |_| {})?
            .ok_or_else(|| "the GPU device could not be opened again".to_string())
    }

    fn open(&self) -> Result<Option<visa_emu_host::GpuContext>, Failed> {
        use visa_emu::backend::select;
        let mapping: visa_emu::backend::gpu::Mapping = self.mapping.parse().map_err(Failed)?;
        visa_emu::backend::gpu::Mapping::choose(mapping);
        let (arg, dev) = self.args()?;
        let ctx = select::open(arg, &dev, &mut |n| eprintln!("visa-emu: {n}")).map_err(Failed)?;
        match &ctx {
            Some(c) => eprintln!(
                "visa-emu: GPU path on {} ({})",
                c.adapter().name,
                c.adapter().backend
            ),
            None => eprintln!("visa-emu: CPU interpreter"),
        }
        Ok(ctx)
    }
}

#[derive(Subcommand)]
enum Command {
    /// Summarize a .isa or .visaasm file: kernels, SIMD size, variables, inputs, histogram.
    Info {
        file: PathBuf,
        /// GRF size of the target platform in bytes (64 for PVC).
        #[arg(long, default_value_t = 32)]
        grf_bytes: u32,
    },
    /// Check a kernel's structure: region rules, ids and labels (errors exit non-zero).
    Check {
        file: PathBuf,
        #[arg(long, default_value_t = 32)]
        grf_bytes: u32,
        /// Also list the notes (spec rules IGC's output breaks routinely).
        #[arg(long)]
        notes: bool,
    },
    /// Print a .isa or .visaasm file as .visaasm text (IGC syntax).
    Disasm {
        file: PathBuf,
        #[arg(long, default_value_t = 32)]
        grf_bytes: u32,
    },
    /// Assemble a .visaasm file (and the `NAME_fN.visaasm` stack functions beside it)
    /// into a binary .isa (CISA 4.1/4.2, the spec's layout)
    Asm {
        file: PathBuf,
        /// Where to write the .isa
        #[arg(short, long)]
        output: PathBuf,
        #[arg(long, default_value_t = 32)]
        grf_bytes: u32,
    },
    /// Run one compiled variant folder (CASE/DEVICE-simdN), or an IGC dump's kernel
    /// (`.visaasm`/`.isa`) with `--bin` (the `.bin` ocloc wrote), on the GPU path or the
    /// CPU interpreter.
    Run {
        #[command(flatten)]
        device: DeviceFlags,
        /// Write the WGSL the kernel translates to into this file.
        #[arg(long)]
        wgsl: Option<PathBuf>,
        /// A variant folder, or a kernel file of an IGC dump (with --bin).
        variant: PathBuf,
        /// The `.bin` ocloc wrote for the kernel file given as VARIANT: its patch tokens
        /// give the device and the arguments, which `--set` fills (`--global` required).
        #[arg(long)]
        bin: Option<PathBuf>,
        /// With --bin: write the dump, its arguments and this run's final buffers (as
        /// the expected outputs) as a case folder here, for `validate`, `bench` and
        /// `conformance`.
        #[arg(long, requires = "bin")]
        save_case: Option<PathBuf>,
        /// Global size, e.g. `4096` or `64,48` (default: the case's).
        #[arg(long)]
        global: Option<String>,
        /// Local (work-group) size (default: the case's).
        #[arg(long)]
        local: Option<String>,
        /// Argument override: NAME=@FILE (buffer bytes) or NAME=VALUE (scalar).
        #[arg(long = "set")]
        set: Vec<String>,
        /// Write every buffer argument's final bytes to DIR/NAME.bin.
        #[arg(long)]
        out_dir: Option<PathBuf>,
        /// Print each executed instruction (index, opcode, execution mask) to stderr.
        #[arg(long)]
        trace: bool,
        /// Threads running work-groups in parallel (1 = deterministic order).
        #[arg(long, default_value_t = 1)]
        workers: usize,
        /// Instructions one vISA thread may execute before the watchdog stops it and
        /// names the block it was in (both backends).
        #[arg(long, default_value_t = visa_emu::backend::gpu::DEFAULT_STEP_LIMIT, value_parser = clap::value_parser!(u32).range(1..))]
        step_limit: u32,
    },
    /// Measure the CPU interpreter and the GPU path side by side on variant folders:
    /// times, channel-operations/s, GB/s, and the ratios against the interpreter and
    /// against a hand-written WGSL kernel (`benches/wgsl/<case>.wgsl`) when there is one.
    Bench {
        /// Variant or case folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        device: DeviceFlags,
        #[command(flatten)]
        opts: BenchArgs,
    },
    /// List the adapters of every wgpu backend (the `--adapter N` indices) and what each
    /// offers the GPU path.
    Adapters,
    /// Compile WGSL files (entry point `main`) into pipelines on an adapter's driver
    /// without running them: a line per file with the driver's time or its error, a lost
    /// device replaced before the next file (for bisecting a module a driver refuses:
    /// write the modules with `VISA_GPU_PIPELINE_DIR`, edit, compile here). Exits
    /// non-zero when any failed.
    Compile {
        /// WGSL files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        device: DeviceFlags,
    },
    /// Run variants on the CPU interpreter and on every adapter of every wgpu backend;
    /// report per buffer whether each agrees with the interpreter (exits non-zero on a
    /// disagreement or an error).
    Validate {
        /// Variant or case folders, or folders of cases.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Also write the report as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// On a disagreement, do not search for the first differing instruction.
        #[arg(long)]
        no_localize: bool,
        /// Also run every adapter in the thread mapping (an invocation per vISA
        /// thread; each adapter always runs the mapping `run` picks, `--mapping auto`).
        #[arg(long)]
        threads: bool,
        /// Also run every adapter in the lane mapping (an invocation per channel).
        #[arg(long)]
        lanes: bool,
        /// Only the adapters of this backend (`vulkan`, `metal`, `dx12`, `gl`;
        /// repeatable). Default: every backend.
        #[arg(long = "backend")]
        backends: Vec<String>,
    },
    /// Run every case folder (corpus layout) and compare with the expected outputs.
    Conformance {
        /// Case folders, variant folders, or folders of cases.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        device: DeviceFlags,
        /// Worker threads (default: all cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// File of documented disagreements between expected outputs and the vISA
        /// (`variant | mismatch | reason`); matching failures are reported as KNOWN.
        #[arg(long)]
        known: Option<PathBuf>,
    },
}

/// Why a command failed (already printed lines aside).
#[derive(Debug)]
struct Failed(String);

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn conformance(
    paths: &[PathBuf],
    device: &DeviceFlags,
    jobs: Option<usize>,
    known: Option<&std::path::Path>,
) -> Result<(), Failed> {
    use visa_emu::cli::conformance as c;
    let known = match known {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).map_err(|e| Failed(format!("{}: {e}", p.display())))?;
            c::parse_known(&text).map_err(|e| Failed(format!("{}: {e}", p.display())))?
        }
        None => Vec::new(),
    };
    let variants = c::discover(paths).map_err(|e| Failed(e.to_string()))?;
    if variants.is_empty() {
        return Err(Failed("no case folders found".into()));
    }
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let opts = visa_emu::interp::RunOptions::default();
    // The GPU path: a device per worker (taken from a pool, opened on first need), so
    // that translation and the driver's pipeline compiles run in parallel.
    let pool = device.open()?.map(|c| std::sync::Mutex::new(vec![c]));
    // A bar on a terminal (GPU pipelines can take minutes per variant on software
    // drivers); nothing when stderr is redirected. Result lines go to stdout as before.
    let bar = indicatif::ProgressBar::new(variants.len() as u64).with_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {pos}/{len} {wide_bar}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    let outcomes = c::run_parallel(
        &variants,
        jobs,
        |v| match &pool {
            Some(pool) => {
                let taken = pool.lock().unwrap_or_else(|p| p.into_inner()).pop();
                let mut g = match taken {
                    Some(g) => g,
                    None => device.open_another()?,
                };
                let r = visa_emu::backend::gpu::check_variant(&mut g, v);
                // A lost device fails every later job: drop it, and the next job
                // opens a fresh one (a driver fault or a hang ends one case, not all).
                match g.lost() {
                    Some(why) => bar.suspend(|| {
                        eprintln!("visa-emu: the device was lost running {} ({why}); the next case opens another", c::variant_name(v))
                    }),
                    None => pool.lock().unwrap_or_else(|p| p.into_inner()).push(g),
                }
                r
            }
            None => visa_emu::backend::cpu::check_variant(v, &opts),
        },
        |o| {
            bar.suspend(|| match c::explained(&known, o) {
                Some(k) => println!("KNOWN {}  {}  [{}]", o.name, k.mismatch, k.reason),
                None => println!("{}", c::line(o)),
            });
            bar.inc(1);
        },
    );
    bar.finish_and_clear();
    let n_known = outcomes
        .iter()
        .filter(|o| c::explained(&known, o).is_some())
        .count();
    if n_known > 0 {
        println!("{n_known} known disagreement(s) with the reference outputs (not counted)");
    }
    let summary = c::summary(&outcomes, &known);
    println!("{summary}");
    if outcomes
        .iter()
        .any(|o| o.result.is_err() && c::explained(&known, o).is_none())
    {
        return Err(Failed(summary));
    }
    Ok(())
}

/// `bench`'s options.
#[derive(clap::Args)]
struct BenchArgs {
    /// Timed runs per workload (after one warm-up); the median is reported.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Interpreter threads (default: all cores).
    #[arg(long)]
    workers: Option<usize>,
    /// K times the work-items (dimension 0), buffer contents repeated K times.
    #[arg(long, default_value_t = 1)]
    scale: u64,
    /// Argument override after scaling: NAME=@FILE or NAME=VALUE.
    #[arg(long = "set")]
    set: Vec<String>,
    /// Folder of hand-written WGSL baselines (default: benches/wgsl of the sources).
    #[arg(long)]
    baselines: Option<PathBuf>,
    /// Also write the rows as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also draw the ratios as an SVG bar chart into this file.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Skip the PoCL column (the same OpenCL source on PoCL, when it is installed).
    #[arg(long)]
    no_pocl: bool,
}

fn bench(paths: &[PathBuf], device: &DeviceFlags, o: &BenchArgs) -> Result<(), Failed> {
    use visa_emu::cli::{bench as b, bench_gpu as bg, conformance as c, run as r};
    let variants = c::discover(paths).map_err(|e| Failed(e.to_string()))?;
    if variants.is_empty() {
        return Err(Failed("no case folders found".into()));
    }
    let mut gpu = device.open()?;
    let workers = o
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let baselines = bg::baseline_dir(o.baselines.as_deref());
    let pocl = if o.no_pocl {
        None
    } else {
        match visa_emu::cli::bench_pocl::probe() {
            Ok((py, dev)) => {
                eprintln!("visa-emu: PoCL column on {dev}");
                Some(py)
            }
            Err(why) => {
                eprintln!("visa-emu: no PoCL column: {why}");
                None
            }
        }
    };
    let tmp = std::env::temp_dir().join(format!("visa-emu-bench-{}", std::process::id()));
    let mut rows = Vec::new();
    for v in &variants {
        let name = c::variant_name(v);
        let fail = |e: String| Failed(format!("{name}: {e}"));
        eprintln!("visa-emu: bench {name}");
        let case_dir = v.parent().ok_or_else(|| fail("no case folder".into()))?;
        let mut case =
            visa_emu::corpus::case::Case::load(case_dir).map_err(|e| fail(e.to_string()))?;
        r::scale_case(&mut case, o.scale, &tmp.join(&name)).map_err(fail)?;
        for s in &o.set {
            r::apply_set(&mut case, s).map_err(fail)?;
        }
        let (items, bytes) = b::shape(&case);
        let cpu = b::bench_cpu(v, &case, o.runs.max(1), workers).map_err(fail)?;
        // A workload the GPU path cannot run (or that loses the device) is reported in
        // its row; the next one gets a fresh device when this one was lost.
        let (gpu_row, gpu_error) = match gpu.as_mut() {
            Some(g) => match bg::bench_gpu(
                g,
                v,
                &case,
                o.runs,
                cpu.run_ms,
                cpu.channel_ops,
                bytes,
                &baselines,
            ) {
                Ok(row) => (Some(row), None),
                Err(e) => {
                    eprintln!("visa-emu: {name}: GPU path: {e}");
                    if g.lost().is_some() {
                        eprintln!("visa-emu: the device was lost; the next workload opens another");
                        gpu = Some(device.open_another().map_err(Failed)?);
                    }
                    (None, Some(e))
                }
            },
            None => (None, None),
        };
        let pocl_row = match &pocl {
            Some(py) => {
                match visa_emu::cli::bench_pocl::bench_pocl(
                    py,
                    case_dir,
                    &case,
                    o.runs,
                    &tmp.join(&name),
                ) {
                    Ok(p) => Some(p),
                    Err(e) => {
                        eprintln!("visa-emu: {name}: PoCL: {e}");
                        None
                    }
                }
            }
            None => None,
        };
        rows.push(b::BenchRow {
            workload: if o.scale > 1 {
                format!("{name} x{}", o.scale)
            } else {
                name
            },
            work_items: items,
            buffer_bytes: bytes,
            cpu,
            gpu: gpu_row,
            gpu_error,
            pocl: pocl_row,
        });
    }
    let _ = std::fs::remove_dir_all(&tmp);
    print!("{}", b::table(&rows));
    if let Some(p) = &o.json {
        let text = serde_json::to_string_pretty(&rows).map_err(|e| Failed(e.to_string()))?;
        std::fs::write(p, text).map_err(|e| Failed(format!("{}: {e}", p.display())))?;
    }
    if let Some(p) = &o.svg {
        std::fs::write(p, b::svg(&rows)).map_err(|e| Failed(format!("{}: {e}", p.display())))?;
    }
    let failed: Vec<&str> = rows
        .iter()
        .filter(|r| r.gpu_error.is_some())
        .map(|r| r.workload.as_str())
        .collect();
    if !failed.is_empty() {
        return Err(Failed(format!(
            "the GPU path failed on {} workload(s): {}",
            failed.len(),
            failed.join(", ")
        )));
    }
    Ok(())
}

/// `run`'s launch shape: sizes and argument overrides.
struct RunShape<'a> {
    global: Option<String>,
    local: Option<String>,
    set: &'a [String],
}

/// `run`'s tracing, parallelism and watchdog.
struct RunLimits {
    trace: bool,
    workers: usize,
    step_limit: u32,
}

fn run(
    device: &DeviceFlags,
    wgsl: Option<&std::path::Path>,
    (variant, bin, save_case): (
        &std::path::Path,
        Option<&std::path::Path>,
        Option<&std::path::Path>,
    ),
    shape: RunShape,
    out_dir: Option<&std::path::Path>,
    limits: RunLimits,
) -> Result<(), Failed> {
    use visa_emu::cli::dump;
    let Some(bin) = bin else {
        if variant.is_file() {
            return Err(Failed(format!(
                "{} is a kernel file: run it with --bin K.bin (the .bin ocloc wrote for it), \
                 --global and --set for its arguments, or give a variant folder (CASE/DEVICE-simdN)",
                variant.display()
            )));
        }
        return run_variant(device, wgsl, variant, None, shape, out_dir, limits).map(|_| ());
    };
    if shape.global.is_none() {
        return Err(Failed(
            "a dump has no NDRange: give --global (and --local; by default one thread of \
             the kernel's SIMD width a group)"
                .into(),
        ));
    }
    let work = std::env::temp_dir().join(format!("visa-emu-run-{}", std::process::id()));
    let adopted = dump::adopt(variant, bin, &work).map_err(Failed)?;
    let result = run_variant(
        device,
        wgsl,
        &adopted.variant,
        Some(adopted.case),
        shape,
        out_dir,
        limits,
    )
    .and_then(|(case, buffers, executor)| match save_case {
        Some(dir) => {
            dump::save_case(
                dir,
                &adopted.variant,
                &case,
                &buffers,
                &format!("visa-emu run ({executor}), saved by --save-case"),
            )
            .map_err(Failed)?;
            eprintln!(
                "visa-emu: wrote the case folder {} (this run's buffers are its expected outputs)",
                dir.display()
            );
            Ok(())
        }
        None => Ok(()),
    });
    std::fs::remove_dir_all(&work).ok();
    result
}

/// What `run_variant` ran: the case as run, the final buffers, the executor's name.
type RunResult = (visa_emu::corpus::case::Case, Vec<(String, Vec<u8>)>, String);

/// `run` on a variant folder, with its case folder's case or `adopted` (a dump's).
fn run_variant(
    device: &DeviceFlags,
    wgsl: Option<&std::path::Path>,
    variant: &std::path::Path,
    adopted: Option<visa_emu::corpus::case::Case>,
    shape: RunShape,
    out_dir: Option<&std::path::Path>,
    limits: RunLimits,
) -> Result<RunResult, Failed> {
    let RunShape { global, local, set } = shape;
    let RunLimits {
        trace,
        workers,
        step_limit,
    } = limits;
    use visa_emu::cli::run as r;
    // `run .` inside a variant folder: its parent is the case folder.
    let variant = &std::fs::canonicalize(variant)
        .map_err(|e| Failed(format!("{}: {e}", variant.display())))?;
    let from_dump = adopted.is_some();
    let mut case = match adopted {
        Some(c) => c,
        None => {
            let case_dir = r::case_dir_of(variant).map_err(Failed)?;
            visa_emu::corpus::case::Case::load(&case_dir).map_err(|e| Failed(e.to_string()))?
        }
    };
    if let Some(g) = global {
        case.ndrange.global_size = r::sizes(&g).map_err(Failed)?;
        case.ndrange.work_dim = case.ndrange.global_size.len() as u32;
    }
    if let Some(l) = &local {
        case.ndrange.local_size = r::sizes(l).map_err(Failed)?;
    }
    if from_dump && local.is_none() {
        // One thread of the kernel's SIMD width a group, in the NDRange's dimensions.
        let simd = case.ndrange.local_size[0];
        let dims = case.ndrange.global_size.len();
        case.ndrange.local_size = std::iter::once(simd.min(case.ndrange.global_size[0]))
            .chain(std::iter::repeat_n(1, dims.saturating_sub(1)))
            .collect();
    }
    for s in set {
        r::apply_set(&mut case, s).map_err(Failed)?;
    }
    if from_dump {
        let missing = visa_emu::cli::dump::missing_values(&case);
        if !missing.is_empty() {
            return Err(Failed(format!(
                "kernel `{}` needs a value for every argument; missing: {}",
                case.kernel,
                missing.join("; ")
            )));
        }
    }
    visa_emu::backend::gpu::Mapping::choose(device.mapping.parse().map_err(Failed)?);
    let gpu = if wgsl.is_some() && device.backend == "auto" {
        None // --wgsl alone: translate, and run on the interpreter
    } else {
        device.open()?
    };
    // One translation serves both --wgsl and the GPU run.
    let t0 = std::time::Instant::now();
    let built = if wgsl.is_some() || gpu.is_some() {
        Some(visa_emu::backend::gpu::build(variant, &case, step_limit).map_err(Failed)?)
    } else {
        None
    };
    if let (Some(path), Some(built)) = (wgsl, &built) {
        let m = built.chosen();
        // The 64-bit emulation the adapter needs, for the message.
        let emu = gpu
            .as_ref()
            .map(visa_emu::backend::select::emulation)
            .unwrap_or_default();
        // What the adapter compiles, through the driver's cache: the run below reuses it.
        let text = match gpu.as_ref() {
            Some(g) => built.adapter_wgsl(g).map_err(Failed)?,
            None => m.wgsl.clone(),
        };
        std::fs::write(path, &text).map_err(|e| Failed(format!("{}: {e}", path.display())))?;
        eprintln!(
            "visa-emu: wrote {} ({} bytes of WGSL, {} blocks{}, {} mapping, 64-bit emulation: {})",
            path.display(),
            text.len(),
            m.blocks,
            m.shapes
                .map(|n| format!(" in the table form, {n} instruction shapes"))
                .unwrap_or_default(),
            m.mapping(),
            emu.describe()
        );
        // Why a kernel left the fast lane form: what a user can change or report.
        if m.mapping() != "straight" {
            if let Some(why) = &m.why_not_straight {
                eprintln!("visa-emu: not the straight lane form: {why}");
            }
        }
    }
    // The GPU's total includes its translation; the interpreter's starts here.
    let t = if gpu.is_some() {
        t0
    } else {
        std::time::Instant::now()
    };
    let (buffers, printf, executor) = match (gpu, built) {
        (Some(mut g), Some(built)) => {
            if trace {
                return Err(Failed(
                    "--trace needs the CPU interpreter: add --backend cpu".into(),
                ));
            }
            let run = visa_emu::backend::gpu::execute(&mut g, &built).map_err(Failed)?;
            if let Some(why) = built
                .why_not_lanes()
                .map(str::to_string)
                .or(run.note.clone())
            {
                if run.mapping == "threads" {
                    eprintln!("visa-emu: the thread mapping ran this kernel: {why}");
                } else {
                    eprintln!("visa-emu: {why}");
                }
            }
            if let Some(why) = run.slm_in_heap {
                eprintln!(
                    "visa-emu: the thread group's SLM ran from the heap ({})",
                    why.describe(&g)
                );
            }
            if run.f32_rerun {
                eprintln!(
                    "visa-emu: the native F32 run met a denormal, which {} flushes: the exact module ran again from the inputs",
                    g.adapter().name
                );
            }
            if run.mapping == "lanes" {
                if let Some(why) = built.chosen().why_not_straight.as_deref() {
                    eprintln!("visa-emu: lanes ran scheduled, not straight: {why}");
                }
            }
            if run.mapping == "threads" && built.why_not_lanes().is_none() && run.note.is_none() {
                if let Some(why) = built
                    .chosen()
                    .why_not_straight
                    .as_deref()
                    .filter(|w| *w != "not asked for")
                {
                    eprintln!("visa-emu: the thread mapping ran this kernel, not the straight lane form: {why}");
                }
            }
            println!(
                "ran on the GPU ({} mapping): {} ({} channel-ops); pipeline {:.1} ms, dispatch {:.1} ms in {}, total {:.1} ms; {} out-of-bounds reads, {} writes",
                run.mapping,
                run.instructions_text(),
                run.channel_ops,
                run.pipeline_ms,
                run.dispatch_ms,
                run.passes_text(),
                t.elapsed().as_secs_f64() * 1e3,
                run.oob_reads,
                run.oob_writes
            );
            (
                run.buffers,
                run.printf,
                format!("GPU path on {}", g.adapter().name),
            )
        }
        _ => {
            let opts = visa_emu::interp::RunOptions {
                trace,
                workers,
                step_limit: u64::from(step_limit),
                ..Default::default()
            };
            let run = visa_emu::backend::cpu::run_case(variant, &case, &opts).map_err(Failed)?;
            println!(
                "ran {} threads, {} instructions ({} channel-ops) in {:.1} ms; {} out-of-bounds reads, {} writes",
                run.stats.threads,
                run.stats.instructions,
                run.stats.channel_ops,
                t.elapsed().as_secs_f64() * 1e3,
                run.stats.oob_reads,
                run.stats.oob_writes
            );
            (run.buffers, run.printf, "CPU interpreter".to_string())
        }
    };
    // The kernel's printf output, as an OpenCL runtime prints it after the kernel.
    for line in &printf {
        print!("{line}");
    }
    if printf.last().is_some_and(|l| !l.ends_with('\n')) {
        println!();
    }
    for (name, bytes) in &buffers {
        let words: Vec<String> = bytes
            .chunks_exact(4)
            .take(4)
            .map(|c| format!("{:#010x}", u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect();
        println!("  {name}: {} bytes [{} ...]", bytes.len(), words.join(" "));
        if let Some(dir) = out_dir {
            std::fs::create_dir_all(dir).map_err(|e| Failed(format!("{}: {e}", dir.display())))?;
            let p = dir.join(format!("{name}.bin"));
            std::fs::write(&p, bytes).map_err(|e| Failed(format!("{}: {e}", p.display())))?;
        }
    }
    Ok((case, buffers, executor))
}

/// `visa-emu compile`: each file's pipeline on a fresh device where the last was lost.
fn compile(files: &[PathBuf], device: &DeviceFlags) -> Result<(), Failed> {
    let open = || {
        device
            .open()?
            .ok_or_else(|| Failed("compile needs a GPU adapter (--backend)".into()))
    };
    let mut gpu = open()?;
    let mut failed = 0;
    for (i, f) in files.iter().enumerate() {
        let wgsl =
            std::fs::read_to_string(f).map_err(|e| Failed(format!("{}: {e}", f.display())))?;
        if gpu.lost().is_some() {
            gpu = open()?;
        }
        // A key per file: each compiles anew, even one identical to an earlier file.
        let key = visa_emu::backend::gpu::hash(&wgsl) ^ i as u64;
        match gpu.compile(key, &wgsl) {
            Ok(ms) => println!("OK {}  {} bytes, {ms:.0} ms", f.display(), wgsl.len()),
            Err(e) => {
                failed += 1;
                println!("FAIL {}  {e}", f.display());
            }
        }
    }
    println!("{} compiled, {failed} failed", files.len() - failed);
    if failed > 0 {
        return Err(Failed(format!(
            "{failed} of {} did not compile",
            files.len()
        )));
    }
    Ok(())
}

fn adapters() -> Result<(), Failed> {
    let all = visa_emu::backend::select::open_each();
    for (b, a, ctx) in &all {
        println!(
            "--backend {} --adapter {}: {} ({}, {})",
            b.name(),
            a.index,
            a.name,
            a.device_type,
            a.driver.trim()
        );
        match ctx {
            Ok(ctx) => {
                let c = ctx.capabilities();
                let yes = |f: bool| if f { "yes" } else { "no" };
                println!(
                    "    int64 {} f64 {} f16 {} subgroups {} ({}..{} wide) int64-atomics {} timestamps {}; \
                     workgroup up to {} invocations, {} KiB shared; storage binding up to {} MiB",
                    yes(c.int64),
                    yes(c.f64),
                    yes(c.f16),
                    yes(c.subgroups),
                    c.subgroup_min_size,
                    c.subgroup_max_size,
                    yes(c.int64_atomics),
                    yes(c.timestamps),
                    c.max_invocations_per_workgroup,
                    c.max_workgroup_storage_bytes / 1024,
                    c.max_storage_buffer_binding_size >> 20
                );
                use visa_emu::backend::gpu::{adaptation, Adaptation};
                let emu = visa_emu::backend::select::emulation(ctx);
                let atomics = if adaptation(ctx) == Some(Adaptation::NativeAtomic64) {
                    "64-bit atomics exact (atomic<u64>)"
                } else {
                    "64-bit atomics split (CAS low word, then high word)"
                };
                match visa_emu::backend::select::unusable(ctx) {
                    Some(why) => println!("    GPU path: unusable: {why}"),
                    None if emu.any() => println!(
                        "    GPU path: usable, 64-bit types emulated exactly ({}), {atomics}",
                        emu.describe()
                    ),
                    None => println!("    GPU path: usable, {atomics}"),
                }
                if visa_emu::backend::gpu::limits_private_arrays(ctx) {
                    println!(
                        "    private arrays: limited; a thread's GRF over {} words runs from a storage buffer",
                        visa_emu::translate::PRIVATE_GRF_WORDS_MAX
                    );
                }
                println!(
                    "    floats (probed): f32 denormals {}, products {} into sums, f32 fma {}, f64 division and sqrt {}{}",
                    if c.f32_denormals { "kept" } else { "flushed" },
                    if c.keeps_products { "not fused" } else { "fused" },
                    if c.fma_single_rounding {
                        "rounds once"
                    } else if !c.f32_denormals {
                        "not probed (f32 flushes)"
                    } else {
                        "inexact"
                    },
                    if !c.f64 {
                        "emulated"
                    } else if c.f64_div_sqrt_exact {
                        "correctly rounded"
                    } else {
                        "inexact"
                    },
                    visa_emu::backend::gpu::float_fixes(ctx)
                        .describe()
                        .map_or(String::new(), |d| format!("; the GPU path runs {d}"))
                );
            }
            Err(e) => println!("    cannot open: {e}"),
        }
    }
    if all.is_empty() {
        println!(
            "no adapters (on Linux without a GPU: apt-get install mesa-vulkan-drivers for lavapipe)"
        );
    }
    Ok(())
}

fn validate(
    paths: &[PathBuf],
    json: Option<&std::path::Path>,
    localize: bool,
    extra: visa_emu::cli::validate::Mappings,
    backends: &[String],
) -> Result<(), Failed> {
    use visa_emu::cli::{conformance as c, validate as v};
    const KNOWN: [&str; 4] = ["vulkan", "metal", "dx12", "gl"];
    if let Some(b) = backends.iter().find(|b| !KNOWN.contains(&b.as_str())) {
        return Err(Failed(format!(
            "--backend {b}: expected one of {}",
            KNOWN.join(", ")
        )));
    }
    let variants = c::discover(paths).map_err(|e| Failed(e.to_string()))?;
    if variants.is_empty() {
        return Err(Failed("no case folders found".into()));
    }
    let mut adapters = v::Adapters::open_backends(backends);
    if adapters.devices.is_empty() {
        return Err(Failed(format!(
            "no adapter on the backend(s) {}: `visa-emu adapters` lists them",
            backends.join(", ")
        )));
    }
    eprintln!(
        "visa-emu: validating {} variant(s) on the CPU interpreter and {} adapter(s)",
        variants.len(),
        adapters.devices.len()
    );
    let mut reports = Vec::new();
    for (i, dir) in variants.iter().enumerate() {
        eprintln!("[{}/{}] {}", i + 1, variants.len(), c::variant_name(dir));
        reports.push(v::validate_variant(dir, &mut adapters, localize, extra));
    }
    print!("{}", v::table(&reports));
    if let Some(p) = json {
        let text = serde_json::to_string_pretty(&reports).map_err(|e| Failed(e.to_string()))?;
        std::fs::write(p, text).map_err(|e| Failed(format!("{}: {e}", p.display())))?;
    }
    let failed = reports.iter().filter(|r| r.failed()).count();
    if failed > 0 {
        return Err(Failed(format!(
            "{failed} variant(s) with a disagreement or an error"
        )));
    }
    Ok(())
}

fn check(file: &std::path::Path, grf_bytes: u32, notes: bool) -> Result<(), Failed> {
    use visa_emu::validate::{validate, Severity};
    let p = cli::load_file(file, grf_bytes).map_err(|e| Failed(e.to_string()))?;
    let (mut errors, mut n_notes) = (0, 0);
    for k in &p.kernels {
        for f in validate(k, grf_bytes) {
            match f.severity {
                Severity::Error => {
                    errors += 1;
                    println!("error: kernel {}: {f}", k.name);
                }
                Severity::Note => {
                    n_notes += 1;
                    if notes {
                        println!("note: kernel {}: {f}", k.name);
                    }
                }
            }
        }
    }
    println!("{errors} error(s), {n_notes} note(s)");
    if errors > 0 {
        return Err(Failed(format!("{errors} error(s)")));
    }
    Ok(())
}

/// `visa-emu disasm X | head` closes the pipe early: Rust's `print!` then panics.
/// End quietly instead, with the status a shell gives a command that SIGPIPE ended.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    quiet_on_closed_stdout();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { file, grf_bytes } => match cli::load_file(&file, grf_bytes) {
            Ok(p) => {
                print!("{}", cli::info::render(&p));
                Ok(())
            }
            Err(e) => {
                // A .isa whose instruction stream cannot be decoded still has readable
                // symbol tables: show them, and say why the body is missing.
                let bytes = std::fs::read(&file).unwrap_or_default();
                match visa_emu::decode::binary::decode_isa_symbols(&bytes, grf_bytes) {
                    Ok(p) if bytes.starts_with(b"CISA") => {
                        eprintln!("visa-emu: warning: {e}; showing the symbol tables only");
                        print!("{}", cli::info::render(&p));
                        Ok(())
                    }
                    _ => Err(Failed(e.to_string())),
                }
            }
        },
        Command::Disasm { file, grf_bytes } => cli::load_file(&file, grf_bytes)
            .map(|p| print!("{}", visa_emu::print::print_program(&p)))
            .map_err(|e| Failed(e.to_string())),
        Command::Asm {
            file,
            output,
            grf_bytes,
        } => cli::assemble(&file, &output, grf_bytes).map_err(|e| Failed(e.to_string())),
        Command::Run {
            device,
            wgsl,
            variant,
            bin,
            save_case,
            global,
            local,
            set,
            out_dir,
            trace,
            workers,
            step_limit,
        } => run(
            &device,
            wgsl.as_deref(),
            (&variant, bin.as_deref(), save_case.as_deref()),
            RunShape {
                global,
                local,
                set: &set,
            },
            out_dir.as_deref(),
            RunLimits {
                trace,
                workers,
                step_limit,
            },
        ),
        Command::Check {
            file,
            grf_bytes,
            notes,
        } => check(&file, grf_bytes, notes),
        Command::Bench {
            paths,
            device,
            opts,
        } => bench(&paths, &device, &opts),
        Command::Adapters => adapters(),
        Command::Compile { files, device } => compile(&files, &device),
        Command::Validate {
            paths,
            json,
            no_localize,
            threads,
            lanes,
            backends,
        } => validate(
            &paths,
            json.as_deref(),
            !no_localize,
            visa_emu::cli::validate::Mappings { threads, lanes },
            &backends,
        ),
        Command::Conformance {
            paths,
            device,
            jobs,
            known,
        } => conformance(&paths, &device, jobs, known.as_deref()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("visa-emu: {e}");
            ExitCode::FAILURE
        }
    }
}
