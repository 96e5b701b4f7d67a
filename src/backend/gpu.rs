//! Run a corpus variant on the GPU path: translate the kernel to WGSL, lay the launch's
//! allocations into one heap buffer, upload every thread's payload, dispatch through
//! the `host/` driver and read the buffers back.

use crate::abi::{launch, KernelAbi};
use crate::corpus::case::Case;
use crate::corpus::paths::grf_bytes_of_device;
use crate::interp::{self, ThreadPayload};
use crate::translate::{self, cfg, runtime_error, Target};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use visa_emu_host::{BufferUse, ComputeJob, GpuContext, JobBuffer, Repeat};

/// What one GPU run produced.
pub struct GpuRun {
    pub buffers: Vec<(String, Vec<u8>)>,
    /// `None` where the run cannot tell (a straight module with loops: its lanes count
    /// their own instructions, not the thread's).
    pub instructions: Option<u64>,
    pub channel_ops: u64,
    pub oob_reads: u32,
    pub oob_writes: u32,
    pub pipeline_ms: f64,
    pub dispatch_ms: f64,
    /// Dispatch passes (more than 1 when threads were saved and resumed), of all
    /// pieces.
    pub passes: u32,
    /// Launches the NDRange ran as (more than 1 for non-uniform work-groups:
    /// `abi::launch::Piece`).
    pub pieces: u32,
    /// GPU time of the passes from timestamp queries, when the adapter has them.
    pub gpu_ms: Option<f64>,
    /// "lanes" (an invocation per channel) or "threads" (an invocation per thread).
    pub mapping: &'static str,
    /// Why the mapping asked for did not run the kernel, when it did not.
    pub note: Option<String>,
    /// Why the group's SLM ran from the heap, when it did.
    pub slm_in_heap: Option<SlmMoved>,
    /// The output of the kernel's printf calls, in buffer order (`abi::printf`).
    pub printf: Vec<String>,
    /// A flushing adapter's speculative run met a denormal, and these results are the
    /// exact module's, run again from the inputs (`F32_SPECULATE` in runtime.wgsl).
    pub f32_rerun: bool,
    /// The final heap (where the next piece of a non-uniform NDRange starts).
    heap: Vec<u8>,
}

/// `stat` with a straight lane's report (`hand_over` in runtime.wgsl) as its error
/// when nothing else failed: the code in the top byte, the instruction below it.
fn with_handover(mut stat: Vec<u32>) -> Vec<u32> {
    use translate::stat::{ERROR, ERROR_AT, HANDOVER};
    if let (Some(0), Some(&h)) = (stat.get(ERROR), stat.get(HANDOVER)) {
        if h != 0 {
            stat[ERROR] = h >> 24;
            stat[ERROR_AT] = h & 0x00ff_ffff;
        }
    }
    stat
}

fn words_of(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

fn bytes_of(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The printf buffer's heap offset and length, and the strings that format it.
type PrintfSlot = (usize, usize, Arc<Vec<(u32, String)>>);

/// A variant translated and laid out for the device, ready to dispatch.
#[derive(Clone)]
pub struct GpuLaunch {
    pub module: translate::Module,
    job: ComputeJob,
    /// (argument name, heap offset, length) of every buffer argument.
    buffers: Vec<(String, usize, usize)>,
    /// The printf buffer's heap offset and length, and the strings that format it.
    printf: Option<PrintfSlot>,
    step_limit: u32,
    /// Threads and groups of the launch (to size a sliced run's state).
    threads: u64,
    groups: u64,
    /// The lane mapping of the same launch, where the kernel allows it.
    pub lanes: Option<Box<GpuLaunch>>,
    /// Which mapping `execute` runs (the thread mapping when there is no lane one,
    /// and after a lane run that a driver's loop cap stopped).
    pub mapping: Mapping,
    /// The thread mapping with its GRF in `state`, where `module` keeps more of it in
    /// private memory than some drivers compile (`translate::PRIVATE_GRF_WORDS_MAX`):
    /// what runs on those ([`limits_private_arrays`]).
    grf_in_state_twin: Option<Box<translate::Module>>,
    /// The NDRange's other pieces (non-uniform work-groups, `launch::Piece`), each
    /// built like this one: `execute` runs them after it, each starting from the
    /// memory the one before left.
    more: Vec<GpuLaunch>,
}

/// Loop back-edges one pass may spend on `gpu`, when its driver caps them per shader
/// invocation (see `translate::budget`): llvmpipe allows 65535; a quarter of it is
/// spent on the estimate, because the invocations of one vector that run different
/// blocks pay for each other's loops (`host/tests/loop_limiter.rs`; `math_round_minmax`
/// ran out at a full budget). `VISA_GPU_PASS_BUDGET=N` overrides it (0: no slicing).
pub fn pass_budget(gpu: &GpuContext) -> Option<u32> {
    if let Some(v) = std::env::var_os("VISA_GPU_PASS_BUDGET") {
        return v.to_str().and_then(|s| s.parse().ok()).filter(|&n| n > 0);
    }
    gpu.adapter()
        .name
        .to_lowercase()
        .contains("llvmpipe")
        .then_some(65535 / 4)
}

/// Run a variant folder with the case's arguments on `gpu`.
pub fn run_case(
    gpu: &mut GpuContext,
    dir: &Path,
    case: &Case,
    step_limit: u32,
) -> Result<GpuRun, String> {
    if let Some(why) = super::select::unusable(gpu) {
        return Err(why);
    }
    let launch = build(dir, case, step_limit)?;
    execute(gpu, &launch)
}

/// Translate the variant's kernel and lay out its launch (no device needed).
pub fn build(dir: &Path, case: &Case, step_limit: u32) -> Result<GpuLaunch, String> {
    build_with(
        dir,
        case,
        step_limit,
        false,
        Forms::Straight,
        table_from_env(),
    )
}

/// `VISA_GPU_TABLE=1` (or `0`) forces the thread mapping's table form on (off).
fn table_from_env() -> Option<bool> {
    std::env::var("VISA_GPU_TABLE").ok().map(|v| v == "1")
}

/// [`build`] with the thread mapping's table form forced on or off
/// (`translate::table_form`; `None`: the kernel's size decides).
pub fn build_table(
    dir: &Path,
    case: &Case,
    step_limit: u32,
    table: Option<bool>,
) -> Result<GpuLaunch, String> {
    build_with(dir, case, step_limit, false, Forms::Straight, table)
}

/// [`build`] for probes: the thread mapping with a stop check before every
/// instruction, whose threads [`probe`] stops after an exact instruction count.
pub fn build_probe(dir: &Path, case: &Case) -> Result<GpuLaunch, String> {
    build_with(dir, case, DEFAULT_STEP_LIMIT, true, Forms::Straight, None)
}

/// [`build`] with the scheduled lane form wherever the straight one is refused, for
/// callers that set [`GpuLaunch::mapping`] to [`Mapping::Lanes`] themselves.
pub fn build_every_form(dir: &Path, case: &Case, step_limit: u32) -> Result<GpuLaunch, String> {
    build_with(
        dir,
        case,
        step_limit,
        false,
        Forms::StraightElseScheduled,
        table_from_env(),
    )
}

/// [`build`] whose lane mapping, where there is one, keeps the block scheduler even
/// where the kernel could run straight (for tests of the scheduled form).
pub fn build_scheduled(dir: &Path, case: &Case, step_limit: u32) -> Result<GpuLaunch, String> {
    build_with(
        dir,
        case,
        step_limit,
        false,
        Forms::Scheduled,
        table_from_env(),
    )
}

/// [`build`] whose straight form keeps IGC's aggregated atomics as the kernel has
/// them (the register trees, which make the channels meet), for tests of those
/// meetings (`translate::aggregated_atomics`).
pub fn build_keeping_trees(dir: &Path, case: &Case) -> Result<GpuLaunch, String> {
    build_with(
        dir,
        case,
        DEFAULT_STEP_LIMIT,
        false,
        Forms::StraightKeepingTrees,
        table_from_env(),
    )
}

/// The lane forms a build may take.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Forms {
    /// The lane mapping keeps its block scheduler.
    Scheduled,
    /// The straight form where the kernel allows it (and the scheduled one where
    /// `VISA_GPU_MAPPING` asks for the lane mapping).
    Straight,
    /// The straight form where the kernel allows it, else the scheduled one.
    StraightElseScheduled,
    /// The straight form, IGC's aggregated atomics kept as they are.
    StraightKeepingTrees,
}

fn build_with(
    dir: &Path,
    case: &Case,
    step_limit: u32,
    probe: bool,
    forms: Forms,
    table: Option<bool>,
) -> Result<GpuLaunch, String> {
    let device = dir
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let grf = grf_bytes_of_device(&device);
    let abi = KernelAbi::from_bin(dir, &case.kernel, grf).map_err(|e| e.to_string())?;
    let program =
        crate::cli::load_file(&crate::cli::variant_kernel(dir), grf).map_err(|e| e.to_string())?;
    let p = interp::prepare(&program, &case.kernel).map_err(|e| e.to_string())?;
    let mut built = Vec::new();
    for lp in launch::prepare_pieces(&abi, case, dir).map_err(|e| e.to_string())? {
        built.push(build_piece(&abi, &p, &lp, step_limit, probe, forms, table)?);
    }
    let mut built = built.into_iter();
    let mut first = built.next().ok_or("the NDRange has no pieces")?;
    first.more = built.collect();
    Ok(first)
}

/// [`build_with`] of one piece of the NDRange, laid out as `lp`.
fn build_piece(
    abi: &KernelAbi,
    p: &interp::prepare::Prepared,
    lp: &launch::Prepared,
    step_limit: u32,
    probe: bool,
    forms: Forms,
    table: Option<bool>,
) -> Result<GpuLaunch, String> {
    let l = &lp.launch;
    // Payload: a record per thread of work-group 0, its last word the lane count; the
    // other groups' threads differ only in the group id words, which the shader puts
    // in (`PAYLOAD_RUNTIME` in translate/mod.rs).
    let sample = lp.payload([0, 0, 0], 0);
    let pw = sample.bytes.len().div_ceil(4) + 1;
    let mut payload = Vec::with_capacity(l.threads_per_group as usize * pw);
    for t in 0..l.threads_per_group {
        let pl = lp.payload([0, 0, 0], t);
        let mut w = words_of(&pl.bytes);
        w.resize(pw - 1, 0);
        w.push(pl.lanes);
        payload.extend(w);
    }
    let target = Target {
        threads_per_group: l.threads_per_group,
        slm_bytes: l.slm_bytes,
        lanes: false,
        straight: forms != Forms::Scheduled,
        probe,
        table,
        shared_payload_from: shared_payload_from(abi, &payload, pw),
        local_ids: local_id_layout(lp, &payload, pw, abi.simd),
        grf_in_state: false,
        // The lane count is each thread record's last word.
        full_lanes: payload.chunks(pw).all(|w| w.last() == Some(&abi.simd)),
        // The host checks every group's addresses (`bounds_unheld`): launches past
        // this keep the checks.
        prove_bounds: l.groups.iter().map(|&g| u64::from(g)).product::<u64>() <= BOUNDS_GROUPS_MAX,
        split_atomics: forms != Forms::StraightKeepingTrees,
        // The scheduled lane form only where a run may take it.
        scheduled_fallback: forms == Forms::StraightElseScheduled
            || Mapping::from_env() == Mapping::Lanes,
        private_base: (abi.implicit_args.iter())
            .find(|i| i.kind == crate::abi::ImplicitKind::PrivateBase)
            .map(|i| i.payload_offset),
    };
    // The lane mapping where the kernel allows it, the thread mapping as its fallback:
    // both translated at once (the two take 3 and 6 ms for dot_product_reduce).
    let (module, twin, lane_module) = std::thread::scope(|s| {
        let lane_job = (!probe).then(|| {
            s.spawn(|| {
                let t = std::time::Instant::now();
                let m = translate::translate(
                    p,
                    &Target {
                        lanes: true,
                        ..target
                    },
                );
                (m, t.elapsed())
            })
        });
        let t = std::time::Instant::now();
        let module = translate::translate(p, &target);
        // Over the private-array limit some drivers have, the thread mapping's twin
        // with its GRF in `state` (`force_grf_in_state`), translated while the lane
        // mapping, the longer of the two, still runs. Probes (`validate`'s
        // localization) keep the private form, as the table form does not take them
        // either: on a driver that limits private arrays a large GRF's localization
        // fails with the driver's error.
        let twin = match &module {
            Ok(m) if !probe && m.private_grf_words() > translate::PRIVATE_GRF_WORDS_MAX => {
                let target = Target {
                    grf_in_state: true,
                    ..target
                };
                Some(translate::translate(p, &target))
            }
            _ => None,
        };
        let threads_took = t.elapsed();
        let lane_module = lane_job.map(|j| {
            let (m, took) = j
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            visa_emu_host::stage_log(format_args!(
                "translated: thread mapping {:.1} ms{}, lane mapping {:.1} ms (on two threads)",
                threads_took.as_secs_f64() * 1e3,
                if twin.is_some() {
                    " (and its twin with the GRF in state)"
                } else {
                    ""
                },
                took.as_secs_f64() * 1e3
            ));
            m
        });
        (module, twin, lane_module)
    });
    let mut module = module.map_err(|e| e.to_string())?;
    let grf_in_state_twin = twin.transpose().map_err(|e| e.to_string())?.map(Box::new);
    let mut lanes = None;
    if let Some(lane_module) = lane_module {
        // A kernel the lane translation cannot take still runs in the thread mapping.
        match lane_module {
            Ok(m) => {
                module.why_not_lanes = m.why_not_lanes.clone();
                if m.straight.is_none() {
                    module.why_not_straight = m.why_not_straight.clone();
                }
                lanes = m.lanes.then_some(m);
            }
            Err(e) => module.why_not_lanes = Some(e.to_string()),
        }
    }
    // Debugging hooks: write the module the mapping picks (any command, the bench's
    // scaled launches included), and run hand-edited WGSL in its place (same bindings).
    let picked = match (&mut lanes, Mapping::from_env()) {
        (Some(m), Mapping::Lanes) => m,
        (Some(m), Mapping::Auto) if m.straight.is_some() => m,
        _ => &mut module,
    };
    if let Some(path) = std::env::var_os("VISA_WGSL_DUMP") {
        std::fs::write(&path, &picked.wgsl)
            .map_err(|e| format!("VISA_WGSL_DUMP={}: {e}", Path::new(&path).display()))?;
    }
    if let Some(path) = std::env::var_os("VISA_WGSL_OVERRIDE") {
        picked.wgsl = std::fs::read_to_string(&path)
            .map_err(|e| format!("VISA_WGSL_OVERRIDE={}: {e}", Path::new(&path).display()))?;
    }

    // Heap: every allocation, 8-byte aligned, back to back.
    let allocs = lp.memory.allocations();
    let mut heap: Vec<u8> = Vec::new();
    let mut table = vec![0u32; cfg::ALLOC + 4 * allocs.len()];
    let mut heap_off = Vec::new();
    for (k, a) in allocs.iter().enumerate() {
        let off = heap.len();
        heap_off.push(off);
        heap.extend_from_slice(&a.data);
        // 8-byte aligned: a 64-bit atomic at an aligned address is one `atomic<u64>`.
        heap.resize(heap.len().div_ceil(8) * 8, 0);
        let t = cfg::ALLOC + 4 * k;
        table[t] = a.base as u32;
        table[t + 1] = (a.base >> 32) as u32;
        table[t + 2] = u32::try_from(a.data.len()).map_err(|_| "allocation over 4 GiB")?;
        table[t + 3] = off as u32;
    }
    for a in &lp.allocations {
        if let Some(b) = a.bti {
            if b < 256 {
                table[cfg::BTI + b as usize] = a.id.0 as u32 + 1;
                let k = cfg::ALLOC + 4 * a.id.0;
                let span = cfg::BTI_SPAN + 2 * b as usize;
                table[span] = table[k + 2];
                table[span + 1] = table[k + 3];
            }
        }
    }
    // The first group's thread payloads, which the straight module's launch checks
    // read (the first one is every thread's shared part).
    let first_group: Vec<ThreadPayload> = match lanes.as_ref().and_then(|m| m.straight.as_ref()) {
        Some(_) => (0..l.threads_per_group)
            .map(|t| lp.payload(l.first, t))
            .collect(),
        None => Vec::new(),
    };
    let image = first_group.first().map_or(&[][..], |t| &t.bytes[..]);
    // The straight module's placed flat bases: the allocation each pointer lies in.
    if let Some(s) = lanes.as_ref().and_then(|m| m.straight.as_ref()) {
        flat_spans(&mut table, &s.launch.flat_bases, image, allocs.len());
    }
    // The straight module's unchecked binding-table accesses: inside their entries for
    // every dispatched channel of this launch, or the kernel translated with the checks.
    if let Some(s) = lanes.as_ref().and_then(|m| m.straight.as_ref()) {
        let c = &s.launch;
        let every = c.bti_bounds.iter().any(|b| b.reads_group_ids(p.simd));
        let checked = if every { l.groups } else { [1, 1, 1] };
        let groups = interp::group_box(l.first, checked);
        if let Some(why) = bounds_unheld(c, &table, &first_group, groups, p.simd) {
            let target = Target {
                lanes: true,
                prove_bounds: false,
                ..target
            };
            let mut m = translate::translate(p, &target).map_err(|e| e.to_string())?;
            if m.straight.is_none() {
                m.why_not_straight = Some(why);
            }
            lanes = m.lanes.then_some(m);
        }
    }
    // A word no allocation holds: straight modules' stores out of bounds land there.
    table[cfg::TRASH] = u32::try_from(heap.len() / 4).map_err(|_| "heap over 16 GiB")?;
    heap.resize(heap.len() + 8, 0);
    // The groups this job dispatches, from `l.first` on; threads and groups are
    // numbered (and per-thread buffers sized) by their place in the whole grid.
    let groups = l.groups;
    let grid = l.grid;
    let total_groups = grid[0] as u64 * grid[1] as u64 * grid[2] as u64;
    let threads = total_groups * l.threads_per_group as u64;
    let scratch_words = l.scratch_bytes.div_ceil(4);
    table[cfg::THREADS] = l.threads_per_group;
    table[cfg::GROUPS..cfg::GROUPS + 3].copy_from_slice(&grid);
    table[cfg::PAYLOAD_WORDS] = pw as u32;
    table[cfg::STEP_LIMIT] = step_limit;
    table[cfg::SCRATCH_WORDS] = scratch_words;
    table[cfg::NALLOC] = allocs.len() as u32;
    image_table(&mut table, &lp.memory.images());
    sampler_table(&mut table, lp.memory.samplers());
    if !module.table.is_empty() {
        // The table form's shapes and numbers (translate/table_form.rs).
        table[cfg::TABLE] = table.len() as u32;
        table.extend_from_slice(&module.table);
    }
    let heap_len = heap.len().max(8) as u64;
    let job = ComputeJob {
        key: hash(&module.wgsl),
        wgsl: module.wgsl.clone(),
        entry_point: module.entry_point.into(),
        buffers: vec![
            JobBuffer {
                size: (table.len() * 4) as u64,
                data: bytes_of(&table),
                usage: BufferUse::ReadOnly,
                readback: false,
            },
            JobBuffer {
                size: (payload.len() * 4).max(4) as u64,
                data: bytes_of(&payload),
                usage: BufferUse::ReadOnly,
                readback: false,
            },
            JobBuffer {
                size: heap_len,
                data: heap,
                usage: BufferUse::ReadWrite,
                readback: true,
            },
            JobBuffer {
                size: (threads * scratch_words as u64 * 4).max(4),
                data: Vec::new(),
                usage: BufferUse::ReadWrite,
                readback: false,
            },
            // Counters, then the 64-bit atomics' locks (`STAT_LOCKS`, `N_LOCKS`).
            JobBuffer {
                size: translate::STAT_BYTES,
                data: vec![0; translate::STAT_BYTES as usize],
                usage: BufferUse::ReadWrite,
                readback: true,
            },
            // Binding 5, the saved state of sliced runs: sized by `execute`.
            JobBuffer {
                size: 4,
                data: Vec::new(),
                usage: BufferUse::ReadWrite,
                readback: false,
            },
            // Binding 6, cfg's head as a uniform: filled from cfg by `fill_head` (`ready_to_run`).
            JobBuffer {
                size: 4 * cfg::ALLOC as u64,
                data: Vec::new(),
                usage: BufferUse::Uniform,
                readback: false,
            },
        ],
        workgroups: groups,
        chunk_base_binding: Some(translate::binding::CHUNK),
        first_workgroup: l.first,
        repeat: None,
        aliases: Vec::new(),
    };
    let buffers = lp
        .buffers
        .iter()
        .map(|(n, id)| (n.clone(), heap_off[id.0], allocs[id.0].data.len()))
        .collect();
    let printf = lp.printf.map(|id| {
        (
            heap_off[id.0],
            allocs[id.0].data.len(),
            Arc::new(lp.strings.clone()),
        )
    });
    let mut launch = GpuLaunch {
        module,
        job,
        buffers,
        printf,
        step_limit,
        threads,
        groups: total_groups,
        lanes: None,
        grf_in_state_twin,
        more: Vec::new(),
        mapping: match Mapping::from_env() {
            Mapping::Auto if lanes.as_ref().is_some_and(|m| m.straight.is_some()) => Mapping::Lanes,
            Mapping::Auto => Mapping::Threads,
            m => m,
        },
    };
    // A straight module whose launch conditions do not hold: the scheduled lane form.
    if let Some(why) = lanes
        .as_ref()
        .and_then(|m| m.straight.as_ref())
        .and_then(|s| {
            // Thread `t`'s payload is the same in every group but for the group ids: the
            // first group's threads decide unless an address reads those words.
            let reads_group = s.launch.reads_group_ids(p.simd);
            let checked = if reads_group { groups } else { [1, 1, 1] };
            spans_unheld(&s.launch, &table, image)
                .or_else(|| flat_off_start(&s.launch, &table, image))
                .or_else(|| {
                    straight_unsafe(
                        &s.launch,
                        &table,
                        thread_payloads(lp, l.first, checked, l.threads_per_group),
                        p.simd,
                    )
                })
        })
    {
        let target = Target {
            lanes: true,
            straight: false,
            ..target
        };
        let mut m = translate::translate(p, &target).map_err(|e| e.to_string())?;
        m.why_not_straight = Some(why.clone());
        if !m.lanes {
            // Not even the scheduled lane form: `auto` runs the thread mapping.
            launch.module.why_not_straight = Some(why);
            if Mapping::from_env() == Mapping::Auto {
                launch.mapping = Mapping::Threads;
            }
        }
        lanes = m.lanes.then_some(m);
    }
    if let Some(m) = lanes {
        // A workgroup per thread: the x dimension counts groups times threads.
        let mut job = launch.job.clone();
        job.key = hash(&m.wgsl);
        job.wgsl = m.wgsl.clone();
        job.entry_point = m.entry_point.into();
        // A straight module packs several threads of a group into one workgroup.
        let per_group = l.threads_per_group
            / m.straight
                .as_ref()
                .map_or(1, |s| s.threads_per_workgroup.max(1));
        job.workgroups[0] = groups[0]
            .checked_mul(per_group)
            .ok_or("too many threads in x")?;
        job.first_workgroup[0] = l.first[0]
            .checked_mul(per_group)
            .ok_or("too many threads in x")?;
        if let Some(s) = &m.straight {
            // Each invocation records the blocks it ran (for the host's counts).
            let words = threads * u64::from(p.simd) * u64::from(s.visit_words);
            let st = &mut job.buffers[translate::binding::STATE as usize];
            st.size = (4 * words).max(4);
            st.readback = true;
            set_cfg(&mut job, &[(cfg::COUNT, 1)]);
            owner_tags(&mut job, &s.launch, threads * u64::from(scratch_words))?;
        }
        launch.lanes = Some(Box::new(GpuLaunch {
            module: m,
            job,
            buffers: launch.buffers.clone(),
            printf: launch.printf.clone(),
            step_limit,
            threads,
            groups: total_groups,
            lanes: None,
            mapping: Mapping::Lanes,
            grf_in_state_twin: None,
            more: Vec::new(),
        }));
    }
    Ok(launch)
}

/// How the GPU path maps a vISA thread onto invocations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mapping {
    /// One invocation per vISA thread, its channels a loop (any kernel).
    #[default]
    Threads,
    /// One invocation per channel, a workgroup per thread, where the kernel allows it
    /// (`translate::lanes`), else the thread mapping.
    Lanes,
    /// The lane mapping where it runs straight (`translate::simt`), else the thread
    /// mapping: the fastest exact form the kernel allows. Resolved by [`build`].
    Auto,
}

static CHOSEN_MAPPING: std::sync::OnceLock<Mapping> = std::sync::OnceLock::new();

impl Mapping {
    /// The process's default: what the command line chose ([`Mapping::choose`]), else
    /// `VISA_GPU_MAPPING=auto|lanes|threads`, else auto.
    pub fn from_env() -> Mapping {
        if let Some(m) = CHOSEN_MAPPING.get() {
            return *m;
        }
        match std::env::var("VISA_GPU_MAPPING").as_deref() {
            Ok("lanes") => Mapping::Lanes,
            Ok("threads") => Mapping::Threads,
            _ => Mapping::Auto,
        }
    }

    /// Set the process's default mapping (once; the command line's `--mapping`).
    pub fn choose(m: Mapping) {
        let _ = CHOSEN_MAPPING.set(m);
    }
}

impl std::str::FromStr for Mapping {
    type Err = String;
    fn from_str(s: &str) -> Result<Mapping, String> {
        match s {
            "threads" => Ok(Mapping::Threads),
            "lanes" => Ok(Mapping::Lanes),
            "auto" => Ok(Mapping::Auto),
            other => Err(format!(
                "unknown mapping '{other}': expected auto, threads or lanes"
            )),
        }
    }
}

impl GpuLaunch {
    /// The translation `execute` runs first.
    pub fn chosen(&self) -> &translate::Module {
        match (&self.lanes, self.mapping) {
            (Some(l), Mapping::Lanes) => &l.module,
            _ => &self.module,
        }
    }

    /// The WGSL `gpu` compiles for the chosen mapping (lowered to 64-bit emulation,
    /// or with native 64-bit atomics, as [`for_adapter`] makes it; through the same
    /// cache, so the run reuses it).
    pub fn adapter_wgsl(&self, gpu: &GpuContext) -> Result<String, String> {
        let job = match (&self.lanes, self.mapping) {
            (Some(l), Mapping::Lanes) => &l.job,
            _ => &self.job,
        };
        let (a, fixes) = (adaptation(gpu), float_fixes(gpu));
        let l = if a.is_some() || fixes.any() {
            adapted(job.key, &job.wgsl, a, fixes)?.0
        } else {
            None
        };
        Ok(l.map_or_else(|| job.wgsl.clone(), |(text, _)| text.to_string()))
    }

    /// Why the lane mapping, when asked for, is not used.
    pub fn why_not_lanes(&self) -> Option<&str> {
        (self.mapping == Mapping::Lanes && self.lanes.is_none()).then(|| {
            self.module
                .why_not_lanes
                .as_deref()
                .unwrap_or("not planned")
        })
    }
}

/// A thread's GRF image where a probe stopped it.
pub struct ProbeState {
    /// Group (linear, x fastest) times threads per group plus the thread's index.
    pub thread: u64,
    pub grf: Vec<u8>,
}

/// Run a [`build_probe`] launch with every thread stopped after `steps` instructions
/// (threads that end earlier are not reported) and read their GRF images back. The
/// pieces of a non-uniform NDRange run one after another, each from the memory the one
/// before left (its stopped threads' writes included), as `cpu::run_pieces` runs them
/// with `stop_after`; threads are numbered by their place in the whole grid, so the
/// pieces' states never share a number.
pub fn probe(
    gpu: &mut GpuContext,
    launch: &GpuLaunch,
    steps: u32,
) -> Result<Vec<ProbeState>, String> {
    let (mut states, mut heap) = probe_piece(gpu, launch, steps)?;
    for next in &launch.more {
        let (more, after) = probe_piece(gpu, &next.starting_from(&heap)?, steps)?;
        states.extend(more);
        heap = after;
    }
    Ok(states)
}

/// [`probe`] of one piece: its stopped threads and the heap it left.
fn probe_piece(
    gpu: &mut GpuContext,
    launch: &GpuLaunch,
    steps: u32,
) -> Result<(Vec<ProbeState>, Vec<u8>), String> {
    if let Some(why) = super::select::unusable(gpu) {
        return Err(why);
    }
    let m = &launch.module;
    let mut job = launch.job.clone();
    let budget = pass_budget(gpu).unwrap_or(u32::MAX / 2);
    if u64::from(budget) < m.max_block_cost {
        return Err(format!(
            "a pass allows {budget} loop iterations; one block needs {}",
            m.max_block_cost
        ));
    }
    let state_bytes = launch.state_bytes();
    if state_bytes > gpu.capabilities().max_storage_buffer_binding_size {
        return Err(format!(
            "probing needs {state_bytes} bytes of saved state, over the adapter's limit"
        ));
    }
    enable_passes(&mut job, budget, state_bytes);
    set_cfg(&mut job, &[(cfg::STOP_STEPS, steps.max(1))]);
    let st = translate::binding::STATE as usize;
    job.buffers[st].readback = true;
    // Where a run's SLM lives, the probe's does (over the adapter's workgroup memory,
    // or lock-free 64-bit SLM atomics).
    place_workgroup_memory(gpu, launch, &mut job)?;
    for_adapter(gpu, &mut job)?;
    ready_to_run(gpu, &mut job);
    let mut r = gpu.run(&job).map_err(|e| e.to_string())?;
    let stat = words_of(&r.outputs[translate::binding::STAT as usize]);
    if let Some(why) = runtime_failure(&stat, launch.step_limit, None) {
        return Err(format!("probe run failed: {why}"));
    }
    let words = words_of(&r.outputs[st]);
    let w = m.state_words as usize;
    let grf_words = (m.state_words - m.state_grf_offset) as usize;
    let mut out = Vec::new();
    for t in 0..launch.threads as usize {
        if words.get(t * w) != Some(&translate::status::STOPPED) {
            continue;
        }
        let o = t * w + m.state_grf_offset as usize;
        let grf = bytes_of(&words[o..o + grf_words]);
        out.push(ProbeState {
            thread: t as u64,
            grf,
        });
    }
    let heap = std::mem::take(&mut r.outputs[translate::binding::HEAP as usize]);
    Ok((out, heap))
}

/// Room for a straight module's owner tags (`Conditions::owned_scratch`, `owned_flat`;
/// `claim_word` of runtime.wgsl) in `job`'s scratch buffer, after the scratch space's
/// `scratch_words` (every thread's): the scratch space's tags, then each owned flat
/// base's allocation's (as `flat_spans` placed it in `cfg`), their first words in
/// `cfg::OWNED`. A fresh buffer is zeros: no word has an owner yet.
fn owner_tags(
    job: &mut ComputeJob,
    c: &translate::lane_memory::Conditions,
    scratch_words: u64,
) -> Result<(), String> {
    if !c.owned_scratch && c.owned_flat.is_empty() {
        return Ok(());
    }
    let table = words_of(&job.buffers[translate::binding::CFG as usize].data);
    // `(cfg word, tag words)` per tagged space, laid end to end after the scratch data.
    let mut spaces = Vec::new();
    if c.owned_scratch {
        spaces.push((cfg::OWNED, scratch_words));
    }
    for &j in &c.owned_flat {
        let (_, size) = flat_allocation(&table, j);
        spaces.push((cfg::OWNED + 1 + j as usize, u64::from(size).div_ceil(4)));
    }
    let mut next = scratch_words;
    let mut words = Vec::new();
    for (at, n) in spaces {
        words.push((at, next));
        next += n;
    }
    // Every first word is below the end: one check covers them all.
    u32::try_from(next).map_err(|_| "private memory's owner tags over 16 GiB")?;
    let words: Vec<(usize, u32)> = words.into_iter().map(|(at, w)| (at, w as u32)).collect();
    set_cfg(job, &words);
    let scratch = &mut job.buffers[translate::binding::SCRATCH as usize];
    scratch.size = scratch.size.max(4 * next);
    Ok(())
}

/// `cfg::FLAT_SPAN`: for each placed flat base (a payload byte offset of `image`, the
/// payload every thread shares), the `cfg::ALLOC` entry of the allocation its pointer
/// lies in, or zeros (no allocation: every access through it leaves the straight run).
fn flat_spans(table: &mut [u32], bases: &[u32], image: &[u8], nalloc: usize) {
    for (j, &poff) in bases.iter().enumerate() {
        let Some(ptr) = image
            .get(poff as usize..poff as usize + 8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        else {
            continue;
        };
        let holds = |k: &usize| {
            let t = cfg::ALLOC + 4 * k;
            let base = u64::from(table[t]) | (u64::from(table[t + 1]) << 32);
            ptr >= base && ptr - base < u64::from(table[t + 2])
        };
        if let Some(k) = (0..nalloc).find(holds) {
            let (from, to) = (cfg::ALLOC + 4 * k, cfg::FLAT_SPAN + 4 * j);
            table.copy_within(from..from + 4, to);
        }
    }
}

/// The most groups a launch may have for the host to prove its binding-table
/// accesses' bounds (`Target::prove_bounds`): it checks each group's part of the
/// addresses (`BtiBound::unheld_in`), ~0.4 us a group on this project's VM (saxpy over
/// 1M items, 8,000 groups: ~3 ms), so at most ~0.1 s.
const BOUNDS_GROUPS_MAX: u64 = 1 << 18;

/// Why a straight module's unchecked binding-table accesses (`Conditions::bti_bounds`)
/// could leave their entry in this launch: a channel of a thread whose address lies
/// outside (or an unbound entry), or too many threads to check one by one. The
/// threads: each of `groups` with the payloads `bases` of one group's threads, whose
/// group id words (r0.1, r0.6, r0.7: the only bytes that differ between groups,
/// `abi::launch`) are set to the group's.
fn bounds_unheld(
    c: &translate::lane_memory::Conditions,
    table: &[u32],
    bases: &[ThreadPayload],
    groups: impl Iterator<Item = [u32; 3]> + Clone,
    simd: u32,
) -> Option<String> {
    let bases: Vec<translate::lane_memory::ThreadImage> = bases
        .iter()
        .map(|b| (&b.bytes[..], b.lanes.min(simd) as usize))
        .collect();
    let mut exact = 0;
    c.bti_bounds.iter().find_map(|b| {
        let size = if b.bti < 256 {
            table[cfg::BTI_SPAN + 2 * b.bti as usize]
        } else {
            0
        };
        b.unheld_in(&bases, groups.clone(), size, simd, &mut exact)
    })
}

/// The little-endian value of payload bytes `[at, at + n)` (`n` at most 8), if the
/// payload holds them.
fn payload_le(image: &[u8], at: u32, n: usize) -> Option<u64> {
    let b = image.get(at as usize..at as usize + n)?;
    let mut w = [0u8; 8];
    w[..n].copy_from_slice(b);
    Some(u64::from_le_bytes(w))
}

/// Placed flat base `j`'s allocation as `flat_spans` wrote it: its address and size.
fn flat_allocation(table: &[u32], j: u32) -> (u64, u32) {
    let e = cfg::FLAT_SPAN + 4 * j as usize;
    (
        u64::from(table[e]) | (u64::from(table[e + 1]) << 32),
        table[e + 2],
    )
}

/// Why a straight module's unchecked flat atomics (`Conditions::flat_spans`) could
/// leave their allocation or their word in this launch: a placed base's allocation
/// (`flat_spans`, already in `table`) does not hold the span its accesses may reach
/// from the pointer (payload `image`) on, or the pointer is not word-aligned.
fn spans_unheld(
    c: &translate::lane_memory::Conditions,
    table: &[u32],
    image: &[u8],
) -> Option<String> {
    c.flat_spans.iter().find_map(|&(j, span)| {
        let poff = c.flat_bases[j as usize];
        let ptr = payload_le(image, poff, 8);
        let (base, size) = flat_allocation(table, j);
        let held = ptr.is_some_and(|p| {
            p % 4 == 0 && p >= base && (p - base).saturating_add(span) <= u64::from(size)
        });
        (!held).then(|| {
            format!(
                "the pointer argument at payload byte {poff} is not word-aligned {span} bytes \
                 or more before the end of its buffer, which its atomics' addresses may reach"
            )
        })
    })
}

/// Why a straight module's flat and binding-table accesses of one buffer
/// (`Conditions::flat_bti_start`) may meet in this launch: the base's allocation is the
/// entry's, and its pointer (payload `image`) does not lie as far into it as the
/// binding-table addresses' offset argument says (0 without one).
fn flat_off_start(
    c: &translate::lane_memory::Conditions,
    table: &[u32],
    image: &[u8],
) -> Option<String> {
    use translate::lane_memory::Apart;
    c.flat_bti_start.iter().find_map(|&(j, b, soff)| {
        if !one_allocation(table, j, Apart::Bti(b)) {
            return None;
        }
        let poff = c.flat_bases[j as usize];
        let (base, _) = flat_allocation(table, j);
        let want = match soff {
            None => Some(0),
            Some(s) => payload_le(image, s, 4),
        };
        let into = payload_le(image, poff, 8).and_then(|p| p.checked_sub(base));
        (into.is_none() || into != want).then(|| {
            format!(
                "the pointer argument at payload byte {poff} does not lie where binding-table \
                 entry {b}'s addresses start in its buffer (a store through one may be read \
                 through the other)"
            )
        })
    })
}

/// Whether the placed flat bases `a` and `b`'s allocations (`flat_spans`), or base `a`'s
/// and binding-table entry `b`'s, are one: the same heap offset, both holding bytes.
fn one_allocation(table: &[u32], a: u32, b: translate::lane_memory::Apart) -> bool {
    use translate::lane_memory::Apart;
    let fa = cfg::FLAT_SPAN + 4 * a as usize;
    let (size, off) = match b {
        Apart::Base(b) => {
            let fb = cfg::FLAT_SPAN + 4 * b as usize;
            (table[fb + 2], table[fb + 3])
        }
        Apart::Bti(b) if b < 256 => {
            let e = cfg::BTI_SPAN + 2 * b as usize;
            (table[e], table[e + 1])
        }
        Apart::Bti(_) => (0, 0),
    };
    table[fa + 2] != 0 && size != 0 && table[fa + 3] == off
}

/// Why a straight module's launch conditions (`translate::lane_memory`) fail for this
/// launch: binding-table entries that must differ name one allocation, or a payload
/// vector the addresses are injective in repeats within a thread.
fn straight_unsafe(
    c: &translate::lane_memory::Conditions,
    table: &[u32],
    threads: impl Iterator<Item = ThreadPayload>,
    simd: u32,
) -> Option<String> {
    for &(a, b) in &c.distinct_btis {
        let (x, y) = (table[cfg::BTI + a as usize], table[cfg::BTI + b as usize]);
        if x != 0 && x == y {
            return Some(format!(
                "binding-table entries {a} and {b} are one buffer (a store through one may be read through the other)"
            ));
        }
    }
    for &(a, b) in &c.distinct_flat {
        if one_allocation(table, a, b) {
            return Some(format!(
                "the pointer argument at payload byte {} and {} lie in one buffer (a store through one may be read through the other)",
                c.flat_bases[a as usize],
                match b {
                    translate::lane_memory::Apart::Base(b) =>
                        format!("the one at byte {}", c.flat_bases[b as usize]),
                    translate::lane_memory::Apart::Bti(b) => format!("binding-table entry {b}"),
                }
            ));
        }
    }
    if c.distinct_inputs.is_empty() && c.single.is_empty() && c.single_distinct.is_empty() {
        return None;
    }
    for rec in threads {
        let lanes = rec.lanes.min(simd) as usize;
        for g in &c.single {
            let admitted = (0..lanes)
                .filter(|&l| g.admits(&rec.bytes, l) != Some(false))
                .count();
            if admitted > 1 {
                return Some(format!(
                    "{admitted} channels of a thread reach a store made for the whole thread (payload vector at byte {})",
                    g.offset
                ));
            }
        }
        for vectors in &c.single_distinct {
            if let Some(why) = shared_element(&rec.bytes, vectors, lanes) {
                return Some(why);
            }
        }
        for form in &c.distinct_inputs {
            if let Some(why) = form.overlap(&c.passes, &rec.bytes, lanes) {
                return Some(why);
            }
        }
    }
    None
}

/// Why the payload vectors `(byte offset, element bytes)` fail
/// `Conditions::single_distinct` in a thread's payload `rec` of `lanes` dispatched
/// channels: two of them hold one element of each (or the payload is too short).
fn shared_element(rec: &[u8], vectors: &[(u32, u32)], lanes: usize) -> Option<String> {
    let at: Vec<String> = vectors.iter().map(|(o, _)| o.to_string()).collect();
    let mut tuples: Vec<Vec<&[u8]>> = vec![Vec::new(); lanes];
    for &(o, b) in vectors {
        let (o, b) = (o as usize, b as usize);
        let Some(v) = rec.get(o..o + b * lanes) else {
            return Some(format!(
                "the payload vector at byte {o} is not in the thread's payload"
            ));
        };
        for (t, e) in tuples.iter_mut().zip(v.chunks(b)) {
            t.push(e);
        }
    }
    tuples.sort_unstable();
    tuples.windows(2).any(|w| w[0] == w[1]).then(|| {
        format!(
            "two channels of a thread hold one element of the payload vectors at bytes {}, \
             so more than one may reach the stores made for the whole thread",
            at.join(" and ")
        )
    })
}

/// Every thread's payload, as the interpreter gets it, in dispatch order.
fn thread_payloads(
    lp: &launch::Prepared,
    first: [u32; 3],
    groups: [u32; 3],
    threads_per_group: u32,
) -> impl Iterator<Item = ThreadPayload> + '_ {
    interp::group_box(first, groups)
        .flat_map(move |g| (0..threads_per_group).map(move |t| lp.payload(g, t)))
}

/// Whether `gpu`'s driver fails to compile modules with large invocation-private
/// arrays (`translate::PRIVATE_GRF_WORDS_MAX`): NVIDIA's (seen on the H200, driver
/// 580); `VISA_GPU_EMULATE=grf` says so of any adapter (tests).
pub fn limits_private_arrays(gpu: &GpuContext) -> bool {
    let a = gpu.adapter();
    let nvidia = |s: &str| s.to_lowercase().contains("nvidia");
    nvidia(&a.name) || nvidia(&a.driver) || super::select::emulate_env_names("grf")
}

/// `job` running `module` instead (same inputs; the state buffer is sized when a run
/// starts: `fresh_job`).
fn swap_module(job: &mut ComputeJob, module: &translate::Module) {
    job.key = hash(&module.wgsl);
    job.wgsl = module.wgsl.clone();
}

/// The thread mapping of a launch alone; `twin` (its GRF-in-state twin) in place of
/// its module where the driver needs that.
fn threads_alone(launch: &GpuLaunch, twin: Option<&translate::Module>) -> GpuLaunch {
    let mut job = launch.job.clone();
    if let Some(m) = twin {
        swap_module(&mut job, m);
    }
    GpuLaunch {
        module: twin.unwrap_or(&launch.module).clone(),
        job,
        buffers: launch.buffers.clone(),
        printf: launch.printf.clone(),
        step_limit: launch.step_limit,
        threads: launch.threads,
        groups: launch.groups,
        lanes: None,
        mapping: Mapping::Threads,
        grf_in_state_twin: None,
        more: Vec::new(),
    }
}

impl GpuLaunch {
    /// The pieces of the NDRange this launch runs (1 when its work-groups are uniform).
    pub fn pieces(&self) -> usize {
        1 + self.more.len()
    }

    /// Run the thread mapping with its GRF in `state` on any adapter (what the host
    /// does where the driver limits private arrays: [`limits_private_arrays`]); false
    /// when the launch keeps no more of it in private memory than all drivers take.
    pub fn force_grf_in_state(&mut self) -> bool {
        let mut any = false;
        for m in &mut self.more {
            any |= m.force_grf_in_state();
        }
        let Some(twin) = self.grf_in_state_twin.take() else {
            return any;
        };
        swap_module(&mut self.job, &twin);
        self.module = *twin;
        true
    }

    /// Run the group's SLM from the heap on any adapter (what the host does where it
    /// is over the workgroup memory), in every mapping of the launch; false when the
    /// kernel has no SLM.
    pub fn force_slm_into_heap(&mut self) -> Result<bool, String> {
        let moved = move_slm_into_heap(&mut self.job, self.groups)?;
        if let Some(l) = self.lanes.as_mut() {
            l.force_slm_into_heap()?;
        }
        for m in &mut self.more {
            m.force_slm_into_heap()?;
        }
        Ok(moved)
    }

    /// Timing runs: a straight module skips recording the blocks its invocations ran
    /// (the counts of the run are then 0; the interpreter's are exact).
    pub fn without_counts(&mut self) {
        if let Some(l) = self.lanes.as_mut().filter(|l| l.module.straight.is_some()) {
            stop_counting(&mut l.job);
        }
        for m in &mut self.more {
            m.without_counts();
        }
    }

    /// Bytes of the `state` buffer a sliced run needs: every thread's record (every
    /// invocation's, in the lane mapping) and every group's SLM.
    fn state_bytes(&self) -> u64 {
        4 * (self.threads * self.module.state_words as u64
            + self.groups * self.module.slm_words as u64)
    }
}

/// Make `job` a sliced run: threads save their state into a `bytes`-byte state buffer
/// when a pass's `budget` of loop iterations would run out, and the host dispatches
/// again while any group saved.
fn enable_passes(job: &mut ComputeJob, budget: u32, bytes: u64) {
    set_cfg(
        job,
        &[
            (cfg::EDGE_BUDGET, budget),
            (cfg::PROBE, 2),
            (cfg::SLICED, 1),
        ],
    );
    job.buffers[translate::binding::STATE as usize].size = bytes.max(4);
    job.repeat = Some(Repeat {
        buffer: translate::binding::STAT as usize,
        word: translate::stat::YIELDED as u64,
        max_passes: 1_000_000,
    });
}

/// A straight job that does not record the blocks its invocations ran. The store stays
/// in the module: cut out (stop 37) it lowered llvmpipe's GPU time but raised the
/// dispatch's wall time (saxpy over 1M items 7.5 -> 10.6 ms; docs/design.md).
fn stop_counting(job: &mut ComputeJob) {
    set_cfg(job, &[(cfg::COUNT, 0)]);
    let st = &mut job.buffers[translate::binding::STATE as usize];
    st.size = 4;
    st.readback = false;
}

/// Whether a straight job records the blocks its invocations ran.
fn counting(job: &ComputeJob) -> bool {
    let buf = &job.buffers[translate::binding::CFG as usize].data;
    buf.get(4 * cfg::COUNT..4 * cfg::COUNT + 4)
        .is_some_and(|b| b != [0, 0, 0, 0])
}

/// Overwrite words of a built job's `cfg` buffer.
fn set_cfg(job: &mut ComputeJob, words: &[(usize, u32)]) {
    let buf = &mut job.buffers[translate::binding::CFG as usize].data;
    for &(i, v) in words {
        buf[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
}

/// Dispatch a built launch and read its buffers back (sliced as [`pass_budget`] says).
/// The budget is the driver's own, so a thread-mapping launch first tries one pass
/// (the probe tells whether the driver's loop limiter cut it short).
pub fn execute(gpu: &mut GpuContext, launch: &GpuLaunch) -> Result<GpuRun, String> {
    let budget = pass_budget(gpu);
    let try_one_pass = std::env::var_os("VISA_GPU_PASS_BUDGET").is_none();
    run_pieces(gpu, launch, budget, try_one_pass)
}

/// Dispatch with an explicit per-pass loop budget (`None`: one unbounded pass): a
/// launch that may need more than one pass of it runs in passes.
pub fn execute_with_budget(
    gpu: &mut GpuContext,
    launch: &GpuLaunch,
    budget: Option<u32>,
) -> Result<GpuRun, String> {
    run_pieces(gpu, launch, budget, false)
}

/// The launch, then its further pieces (`GpuLaunch::more`), each from the heap the
/// one before left: one run's results, the last piece's memory.
fn run_pieces(
    gpu: &mut GpuContext,
    launch: &GpuLaunch,
    budget: Option<u32>,
    try_one_pass: bool,
) -> Result<GpuRun, String> {
    let mut run = run_launch(gpu, launch, budget, try_one_pass)?;
    for next in &launch.more {
        let piece = next.starting_from(&run.heap)?;
        let r = run_launch(gpu, &piece, budget, try_one_pass)?;
        run = run.then(r);
    }
    Ok(run)
}

impl GpuLaunch {
    /// This piece with `heap` (a run's final heap, the SLM the run may have put past
    /// the allocations included) as its initial allocations: every piece of a case
    /// lays them out alike (`launch::prepare_piece`).
    fn starting_from(&self, heap: &[u8]) -> Result<GpuLaunch, String> {
        let mut out = self.clone();
        let jobs = std::iter::once(&mut out.job).chain(out.lanes.as_mut().map(|l| &mut l.job));
        for job in jobs {
            let data = &mut job.buffers[translate::binding::HEAP as usize].data;
            let head = heap.get(..data.len()).ok_or_else(|| {
                format!(
                    "the pieces of the NDRange lay their heaps out differently ({} bytes \
                     after {})",
                    data.len(),
                    heap.len()
                )
            })?;
            data.copy_from_slice(head);
        }
        Ok(out)
    }
}

impl GpuRun {
    /// This run followed by `later`, a later piece of the same NDRange: the later
    /// one's memory (its buffers and printf records hold both), both's counts and
    /// times.
    fn then(self, later: GpuRun) -> GpuRun {
        let note = match (self.note, later.note) {
            (Some(a), Some(b)) if a != b => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        };
        GpuRun {
            buffers: later.buffers,
            printf: later.printf,
            heap: later.heap,
            instructions: self
                .instructions
                .zip(later.instructions)
                .map(|(a, b)| a + b),
            channel_ops: self.channel_ops + later.channel_ops,
            oob_reads: self.oob_reads.saturating_add(later.oob_reads),
            oob_writes: self.oob_writes.saturating_add(later.oob_writes),
            pipeline_ms: self.pipeline_ms + later.pipeline_ms,
            dispatch_ms: self.dispatch_ms + later.dispatch_ms,
            passes: self.passes + later.passes,
            pieces: self.pieces + later.pieces,
            gpu_ms: self.gpu_ms.zip(later.gpu_ms).map(|(a, b)| a + b),
            mapping: self.mapping,
            note,
            slm_in_heap: self.slm_in_heap.or(later.slm_in_heap),
            f32_rerun: self.f32_rerun || later.f32_rerun,
        }
    }
}

fn run_launch(
    gpu: &mut GpuContext,
    launch: &GpuLaunch,
    budget: Option<u32>,
    try_one_pass: bool,
) -> Result<GpuRun, String> {
    // The thread mapping's GRF-in-state twin where the driver needs it (lane modules
    // never keep a GRF that large).
    let twin = launch
        .grf_in_state_twin
        .as_deref()
        .filter(|_| limits_private_arrays(gpu));
    if let (Some(lanes), Mapping::Lanes) = (&launch.lanes, launch.mapping) {
        return match run_sliced(gpu, lanes, budget, try_one_pass) {
            Err(e @ SliceError::LanesDoNotFit(_)) => {
                let threads = threads_alone(launch, twin);
                let mut r = run_sliced(gpu, &threads, budget, try_one_pass)?;
                r.note = Some(format!(
                    "{}; ran the thread mapping instead",
                    String::from(e)
                ));
                Ok(r)
            }
            r => Ok(r?),
        };
    }
    match twin {
        Some(_) => Ok(run_sliced(
            gpu,
            &threads_alone(launch, twin),
            budget,
            try_one_pass,
        )?),
        None => Ok(run_sliced(gpu, launch, budget, try_one_pass)?),
    }
}

/// Why a sliced run did not happen.
enum SliceError {
    /// The lane mapping cannot be sliced here (the reason's tail): the thread mapping
    /// can run the kernel instead.
    LanesDoNotFit(String),
    Failed(String),
    /// A one-pass try of a thread-mapping launch ran into the driver's loop limiter
    /// (`try_one_pass`): run it in passes.
    NeedsPasses,
}

impl From<String> for SliceError {
    fn from(e: String) -> Self {
        SliceError::Failed(e)
    }
}

impl From<SliceError> for String {
    fn from(e: SliceError) -> Self {
        match e {
            SliceError::LanesDoNotFit(why) => format!("lane mode: {why}"),
            SliceError::Failed(e) => e,
            SliceError::NeedsPasses => "the driver's loop limiter stopped a one-pass run".into(),
        }
    }
}

/// Run one mapping, in passes when the budget asks for it.
fn run_sliced(
    gpu: &mut GpuContext,
    launch: &GpuLaunch,
    budget: Option<u32>,
    try_one_pass: bool,
) -> Result<GpuRun, SliceError> {
    let step_limit = launch.step_limit;
    let mut job = fresh_job(launch);
    // A straight module's block records must fit one binding; beyond that the run goes
    // on without counts (the bytes are what matter; `run` says so).
    let uncounted = launch.module.straight.is_some()
        && counting(&job)
        && job.buffers[translate::binding::STATE as usize].size
            > gpu.capabilities().max_storage_buffer_binding_size;
    // A straight module's owner tags (`owner_tags`) grow the scratch buffer.
    let scratch = job.buffers[translate::binding::SCRATCH as usize].size;
    if launch.module.straight.is_some()
        && scratch > gpu.capabilities().max_storage_buffer_binding_size
    {
        return Err(SliceError::LanesDoNotFit(format!(
            "the scratch space and the owner tags of private memory ({scratch} bytes) would not fit a buffer"
        )));
    }
    if uncounted {
        stop_counting(&mut job);
    }
    let whole_thread_fits = launch
        .module
        .unsliced_cost
        .zip(budget)
        .is_some_and(|(need, b)| need <= u64::from(b));
    if launch.module.straight.is_some() {
        // The straight form has no saved state to resume from: it runs in one
        // dispatch, a looping lane within the budget (it stops and reports when it
        // would not fit; `execute_with_budget` then runs the thread mapping).
        if let Some(b) = budget {
            if !whole_thread_fits {
                return Err(SliceError::LanesDoNotFit(format!(
                    "a thread needs more loop iterations than one dispatch allows: one pass of the straight form may need {} loop iterations, a dispatch allows {b}",
                    launch.module.unsliced_cost.unwrap_or(u64::MAX)
                )));
            }
            set_cfg(&mut job, &[(cfg::EDGE_BUDGET, b), (cfg::PROBE, 2)]);
        }
        let mut run = finish(gpu, launch, job, step_limit, None, false)?;
        if uncounted {
            run.note = Some(
                "instructions not counted: the straight form's block records would not fit a buffer"
                    .into(),
            );
        }
        return Ok(run);
    }
    if let Some(budget) = budget.filter(|_| !whole_thread_fits) {
        return in_passes(gpu, launch, job, budget, try_one_pass);
    }
    one_pass(&mut job);
    // Where the estimate says a thread fits one pass but the probe saw the driver's
    // limiter cut it (long_arith/tgllp-simd32's table form on llvmpipe), nothing of the
    // run is kept and it runs again in passes, from a fresh copy of the launch's job.
    match (
        budget,
        finish(gpu, launch, job, step_limit, None, budget.is_some()),
    ) {
        (Some(budget), Err(SliceError::NeedsPasses)) => {
            in_passes(gpu, launch, fresh_job(launch), budget, false)
        }
        (_, r) => r,
    }
}

/// The launch's job as a run starts it: its inputs as built, and with the GRF in
/// `state` (translate::grf_in_state) a state buffer that holds every thread's record.
fn fresh_job(launch: &GpuLaunch) -> ComputeJob {
    let mut job = launch.job.clone();
    if launch.module.grf_in_state {
        let st = &mut job.buffers[translate::binding::STATE as usize];
        st.size = st.size.max(launch.state_bytes());
    }
    job
}

/// Run a thread-mapping (or sliced lane) launch in passes of `budget` loop iterations.
fn in_passes(
    gpu: &mut GpuContext,
    launch: &GpuLaunch,
    mut job: ComputeJob,
    budget: u32,
    try_one_pass: bool,
) -> Result<GpuRun, SliceError> {
    let step_limit = launch.step_limit;
    let lanes = launch.module.lanes;
    // Most threads end well within one pass: try that first, with the code that
    // saves threads compiled out (llvmpipe spends seconds compiling it), and run
    // in passes only where the probe saw the driver's limiter stop a loop. (The
    // table form has little to save: no try. A plain module with its GRF in `state`
    // for its size, translate::PRIVATE_GRF_WORDS_MAX, tries: its blocks may be over a
    // pass's budget.)
    let cheap_saves = launch.module.shapes.is_some();
    if try_one_pass && !lanes && !cheap_saves && translate::unsliced(&job.wgsl).is_some() {
        let mut one = job.clone();
        set_cfg(&mut one, &[(cfg::PROBE, 2)]);
        one_pass(&mut one);
        match finish(gpu, launch, one, step_limit, None, true) {
            Err(SliceError::NeedsPasses) => {}
            r => return r,
        }
    }
    let bytes = launch.state_bytes();
    if bytes > gpu.capabilities().max_storage_buffer_binding_size {
        if lanes {
            return Err(SliceError::LanesDoNotFit(format!(
                "a thread needs more loop iterations than one dispatch allows and its saved state ({bytes} bytes) would not fit a buffer"
            )));
        }
        // The state buffer would not fit: run in one pass and let the probe report
        // a driver-stopped loop rather than return wrong data.
        set_cfg(&mut job, &[(cfg::PROBE, 2)]);
        one_pass(&mut job);
        return finish(gpu, launch, job, step_limit, Some(bytes), false);
    }
    let need = launch.module.max_block_cost;
    if u64::from(budget) < need {
        if lanes {
            return Err(SliceError::LanesDoNotFit(format!(
                "a thread needs more loop iterations than one dispatch allows: one block may need {need} loop iterations, a pass allows {budget}"
            )));
        }
        return Err(SliceError::Failed(format!(
            "a pass on '{}' allows {budget} loop iterations; one block of this kernel may need {need} (of which {} restore and save the thread)",
            gpu.adapter().name,
            launch.module.state_cost
        )));
    }
    // The estimate can be too low (a driver's own lowering adds loops the WGSL does
    // not show: long_arith/tgllp-simd32 in the table form on llvmpipe). Where the
    // probe sees the limiter cut a pass, nothing of the run is kept and it runs
    // again from the inputs with half the budget, while a block still fits.
    let mut pass_budget = budget;
    let mut first = Some(job);
    loop {
        let mut passes = first.take().unwrap_or_else(|| fresh_job(launch));
        enable_passes(&mut passes, pass_budget, bytes);
        visa_emu_host::stage_log(format_args!(
            "passes of {pass_budget} loop iterations (the costliest block: {need})"
        ));
        let smaller = pass_budget / 2;
        let retry = u64::from(smaller) >= need;
        match finish(gpu, launch, passes, step_limit, None, retry) {
            Err(SliceError::NeedsPasses) => pass_budget = smaller,
            Ok(mut run) if pass_budget < budget => {
                run.note = Some(format!(
                    "the driver's loop limiter cut passes of {budget} loop iterations; ran in passes of {pass_budget}"
                ));
                return Ok(run);
            }
            r => return r,
        }
    }
}

/// A job that runs in one pass: the module's thread saving compiled out
/// (`translate::unsliced`) where it has the switch.
fn one_pass(job: &mut ComputeJob) {
    if let Some(w) = translate::unsliced(&job.wgsl) {
        job.key = hash(&w);
        job.wgsl = w;
    }
}

/// Append the images' conversion tables and descriptors to the cfg words (layout in
/// shaders/image.wgsl): x / 255 and max(x / 127, -1) as f32 bits for every byte x,
/// exactly the interpreter's `ChannelType::load`, the image entry of each binding-table
/// index (the first image bound there), then 6 words per image.
fn image_table(table: &mut Vec<u32>, images: &[(u32, crate::abi::image::ImageDesc)]) {
    use crate::abi::image::ChannelType;
    if images.is_empty() {
        return;
    }
    table[cfg::IMAGES] = table.len() as u32;
    table[cfg::NIMAGES] = images.len() as u32;
    table.extend((0..256).map(|x| ChannelType::UnormInt8.load(x)));
    table.extend((0..256).map(|x| ChannelType::SnormInt8.load(x)));
    // NO_WORD of shaders/runtime.wgsl: no image at that index.
    const NO_WORD: u32 = u32::MAX;
    let index = table.len();
    let entries = index + 256;
    table.resize(entries, NO_WORD);
    for (k, (bti, _)) in images.iter().enumerate() {
        let slot = index + *bti as usize;
        if *bti < 256 && table[slot] == NO_WORD {
            table[slot] = (entries + 6 * k) as u32;
        }
    }
    for (bti, d) in images {
        table.extend([
            *bti,
            d.dims | (d.array as u32) << 8,
            d.width,
            d.height,
            d.depth,
            d.ty as u32 | (d.order as u32) << 8 | d.ty.bytes() << 16,
        ]);
    }
}

/// The payload offset from which every thread's payload is the same: the ABI's
/// cross-thread data, where the launch's thread records (`payload`, `pw` words each,
/// the last the lane count) indeed agree from there on (checked, so that a layout
/// this reading misses costs speed, not results).
fn shared_payload_from(abi: &KernelAbi, payload: &[u32], pw: usize) -> Option<u32> {
    let from = abi.cross_thread_data.as_ref()?.payload_offset;
    let first = payload.get(from as usize / 4..pw - 1)?;
    (payload.chunks_exact(pw))
        .all(|rec| rec.get(from as usize / 4..pw - 1) == Some(first))
        .then_some(from)
}

/// The local ids' layout when every thread record (`payload`, `pw` words each, the
/// last the lane count) holds exactly the ids it describes (checked, as above).
fn local_id_layout(
    lp: &launch::Prepared,
    payload: &[u32],
    pw: usize,
    simd: u32,
) -> Option<translate::LocalIdLayout> {
    let (offsets, local) = lp.local_id_layout();
    let layout = translate::LocalIdLayout { offsets, local };
    ids_follow(&layout, payload, pw, simd).then_some(layout)
}

/// Whether channel `c` of thread record `t` holds item `t * simd + c`'s local ids
/// (x fastest) at the layout's offsets, for every dispatched channel.
fn ids_follow(ids: &translate::LocalIdLayout, payload: &[u32], pw: usize, simd: u32) -> bool {
    let uw = |rec: &[u32], off: u32| {
        let w = *rec.get(off as usize / 4)?;
        Some((w >> ((off % 4) * 8)) & 0xffff)
    };
    let [lx, ly, _] = ids.local;
    let (Some(plane), true) = (lx.checked_mul(ly), pw > 0) else {
        return false;
    };
    payload.chunks_exact(pw).enumerate().all(|(t, rec)| {
        (0..rec[pw - 1]).all(|lane| {
            let Some(item) = (t as u32)
                .checked_mul(simd)
                .and_then(|i| i.checked_add(lane))
            else {
                return false;
            };
            let want = [item % lx, (item / lx) % ly, item / plane];
            ids.offsets.iter().zip(want).all(|(off, id)| match off {
                None => true,
                Some(off) => off % 2 == 0 && uw(rec, off + 2 * lane) == Some(id),
            })
        })
    })
}

/// Append the sampler codes (`SamplerState::code`, all ones where the emulator
/// cannot reproduce the sampler) after a count; `cfg[15]` points at the count.
fn sampler_table(table: &mut Vec<u32>, samplers: &[crate::abi::image::SamplerState]) {
    if samplers.is_empty() {
        return;
    }
    table[cfg::SAMPLERS] = table.len() as u32;
    table.push(samplers.len() as u32);
    table.extend(samplers.iter().map(|s| match s.unsupported() {
        Some(_) => u32::MAX,
        None => s.code(),
    }));
}

/// The limiter's cut, found before the block at instruction `at` or (`u32::MAX`) by
/// `main`'s closing probe, which names no block.
fn driver_loops(at: u32, unsliced_state: Option<u64>) -> String {
    let place = if at == u32::MAX {
        String::new()
    } else {
        format!(" before the block at instruction {at}")
    };
    match unsliced_state {
        Some(bytes) => format!(
            "the driver stopped the shader's loops{place} (its per-invocation loop limit \
             ran out), and resuming threads in passes would need {bytes} bytes of saved \
             state, over the adapter's buffer limit: use a smaller launch or --backend cpu"
        ),
        None => format!(
            "the driver stopped the shader's loops{place} (its per-invocation loop limit \
             ran out earlier than estimated); the results would be wrong, so none are \
             returned"
        ),
    }
}

/// The error a run reported in its `stat` words, as a sentence; `unsliced_state` is
/// the state a sliced run would have needed when it was too large.
fn runtime_failure(stat: &[u32], step_limit: u32, unsliced_state: Option<u64>) -> Option<String> {
    let at = stat[1];
    Some(match stat[0] {
        0 => return None,
        runtime_error::STEP_LIMIT => format!(
            "watchdog: a thread ran past the step limit of {step_limit} instructions; it was spinning in the block at instruction {at}"
        ),
        runtime_error::SWITCH_RANGE => format!("instruction {at}: switchjmp index out of range"),
        runtime_error::CALL_DEPTH => format!("instruction {at}: call depth over 8"),
        runtime_error::SAMPLER => format!(
            "instruction {at}: a sample through a sampler the emulator cannot reproduce \
             (cube or mirror-once addressing, or no such sampler); --backend cpu names which"
        ),
        runtime_error::LINEAR_INT => format!(
            "instruction {at}: linear filtering of an image with integer channels (OpenCL \
             filters only float and normalized images)"
        ),
        runtime_error::IMAGE_ATOMIC => format!(
            "instruction {at}: a typed atomic on an image whose format takes none (one \
             unnormalized 32-bit channel: R32_UINT/SINT/FLOAT, or R16 with .16); --backend \
             cpu names the format"
        ),
        runtime_error::NOT_IMAGE => format!(
            "instruction {at}: a typed message on a surface that holds no image argument"
        ),
        runtime_error::DRIVER_LOOPS => driver_loops(at, unsliced_state),
        runtime_error::NO_PROGRESS => format!(
            "the block at instruction {at} needs more loop iterations than one pass allows"
        ),
        runtime_error::GATHER4_DIMS => format!(
            "instruction {at}: gather4 on an image that is not 2D or a 2D array (a bilinear \
             footprint needs two filtered axes)"
        ),
        runtime_error::ATOMIC_CONTENDED => "an atomic's compare-and-swap loop (or a 64-bit \
             atomic's lock) retried past its bound under contention, or the driver's loop \
             limiter stopped it: that operation did not happen, so no results are returned"
            .to_string(),
        c => format!("runtime error code {c} at instruction {at}"),
    })
}

/// A module's workgroup memory against the adapter's: not every driver refuses a
/// pipeline over it (NVIDIA's compiled one and never started it). Where the group's
/// SLM is over it, where the kernel has 64-bit SLM atomics and the device native 64-bit
/// atomics, or where `VISA_GPU_EMULATE=slm` asks, the SLM moves into the heap
/// ([`move_slm_into_heap`]); what then still does not fit is an error. Why the SLM
/// moved, when it did. The 64-bit lowering after it leaves the workgroup declarations
/// as they are.
fn place_workgroup_memory(
    gpu: &GpuContext,
    launch: &GpuLaunch,
    job: &mut ComputeJob,
) -> Result<Option<SlmMoved>, String> {
    let limit = u64::from(gpu.capabilities().max_workgroup_storage_bytes);
    let over = |job: &ComputeJob| workgroup_bytes_of(job).filter(|&need| need > limit);
    // 64-bit SLM atomics lock-free on `atomic<u64>` heap words rather than under the
    // split form's locks, on which NVIDIA's driver hung a group's invocations.
    let lock_free = adaptation(gpu) == Some(Adaptation::NativeAtomic64)
        && job.wgsl.contains(translate::ATOMIC64_SLM_MARK);
    let why = if super::select::emulate_env_names("slm") {
        SlmMoved::Asked
    } else if over(job).is_some() {
        SlmMoved::OverWorkgroupMemory
    } else if lock_free {
        SlmMoved::LockFreeAtomics64
    } else {
        return Ok(None);
    };
    let moved = move_slm_into_heap(job, launch.groups)?;
    let heap = &job.buffers[translate::binding::HEAP as usize];
    let most = gpu.capabilities().max_storage_buffer_binding_size;
    if moved && heap.size > most {
        return Err(format!(
            "the groups' SLM, moved into the heap ({}), makes the heap {} bytes, over the {most} bytes one binding of {} may hold",
            why.describe(gpu),
            heap.size,
            gpu.adapter().name
        ));
    }
    if let Some(need) = over(job) {
        return Err(format!(
            "the kernel needs {need} bytes of workgroup memory (its thread group's SLM and the scheduler's words), over the {limit} bytes {} allows",
            gpu.adapter().name
        ));
    }
    Ok(moved.then_some(why))
}

/// Why a run's SLM lives in the heap rather than in workgroup memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlmMoved {
    /// The group's SLM (and the scheduler's words) is over the adapter's limit.
    OverWorkgroupMemory,
    /// The kernel has 64-bit SLM atomics and the device native 64-bit atomics: they
    /// run lock-free on `atomic<u64>` heap words (shaders/atomic64_native.wgsl).
    LockFreeAtomics64,
    /// `VISA_GPU_EMULATE=slm`.
    Asked,
}

impl SlmMoved {
    /// The reason in words, for `gpu`'s adapter.
    pub fn describe(self, gpu: &GpuContext) -> String {
        match self {
            SlmMoved::OverWorkgroupMemory => format!(
                "over the {} KiB of workgroup memory {} has",
                gpu.capabilities().max_workgroup_storage_bytes / 1024,
                gpu.adapter().name
            ),
            SlmMoved::LockFreeAtomics64 => {
                "its 64-bit atomics lock-free on the device's 64-bit atomics".to_string()
            }
            SlmMoved::Asked => "VISA_GPU_EMULATE=slm".to_string(),
        }
    }
}

/// [`translate::workgroup_memory::workgroup_bytes`] of a job's module, once per module
/// and process: the scan reads the whole text (~0.2 ms for 90 KB), and a launch runs
/// many times.
fn workgroup_bytes_of(job: &ComputeJob) -> Option<u64> {
    static CACHE: std::sync::OnceLock<Mutex<HashMap<u64, Option<u64>>>> =
        std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(&b) = cache.lock().ok()?.get(&job.key) {
        return b;
    }
    let b = translate::workgroup_memory::workgroup_bytes(&job.wgsl);
    if let Ok(mut c) = cache.lock() {
        c.insert(job.key, b);
    }
    b
}

/// Move the group's SLM out of workgroup memory into a zeroed heap region of `groups x
/// group_slm_stride` words after every allocation
/// (`translate::workgroup_memory::slm_in_heap`); false when the module has no SLM.
fn move_slm_into_heap(job: &mut ComputeJob, groups: u64) -> Result<bool, String> {
    use translate::workgroup_memory as wm;
    let Some(moved) = wm::slm_in_heap(&job.wgsl) else {
        return Ok(false);
    };
    let stride = wm::group_slm_stride(
        wm::u32_const(&job.wgsl, "K_SLM_WORDS").ok_or("no K_SLM_WORDS")?,
        wm::u32_const(&job.wgsl, "K_SLM_LOCKS").ok_or("no K_SLM_LOCKS")?,
    );
    let heap = &mut job.buffers[translate::binding::HEAP as usize];
    // On an 8-byte boundary, as every group's share then is (`group_slm_stride`).
    let start = heap.size.max(heap.data.len() as u64).div_ceil(8) * 8;
    let total = start + 4 * stride * groups;
    if total / 4 > u64::from(u32::MAX) {
        return Err(format!(
            "the groups' SLM in the heap ({groups} groups x {} bytes) passes 16 GiB",
            4 * stride
        ));
    }
    heap.size = total;
    set_cfg(job, &[(cfg::GSLM, (start / 4) as u32)]);
    job.key = hash(&moved);
    job.wgsl = moved;
    Ok(true)
}

/// The last touches before `gpu.run`, after every change to the WGSL and to `cfg`.
fn ready_to_run(gpu: &GpuContext, job: &mut ComputeJob) {
    prune_for_pipeline(gpu, job);
    fill_head(job);
}

/// Binding 6 (`head`): cfg's words before `cfg::ALLOC` as they are now (`set_cfg` may
/// have changed them since the launch was built).
fn fill_head(job: &mut ComputeJob) {
    let n = 4 * cfg::ALLOC;
    let words = &job.buffers[translate::binding::CFG as usize].data;
    let mut head = words[..n.min(words.len())].to_vec();
    head.resize(n, 0);
    job.buffers[translate::binding::HEAD as usize].data = head;
}

/// The module without the runtime functions its entry point never reaches, with
/// its idle float wrappers' calls written as what they return ([`translate::prune`]),
/// with what NIR would fold late folded already ([`translate::driver_folds`]) and a
/// straight module's GRF image split where its run-time indices have known ranges
/// ([`translate::grf_split`]),
/// when the pipeline is still to be created: the key stays that of the whole text
/// (both are functions of it), so a warm run neither prunes nor hashes again.
fn prune_for_pipeline(gpu: &GpuContext, job: &mut ComputeJob) {
    if !gpu.has_pipeline(job.key) {
        // A lowered module had its folds written before lowering (`lowered`), and
        // one lowered to soft f64 its idle wrappers too.
        let lowering = adaptation(gpu);
        if !matches!(lowering, Some(Adaptation::Lower(_))) {
            job.wgsl = translate::driver_folds::for_driver(&job.wgsl);
        }
        if !matches!(lowering, Some(Adaptation::Lower(e)) if e.f64) {
            job.wgsl = translate::prune::without_idle_wrappers(&job.wgsl);
        }
        job.wgsl = translate::prune::unreachable_functions(&job.wgsl, &job.entry_point);
        job.wgsl = translate::grf_split::split_image(&job.wgsl);
    }
}

/// Run `job` and collect the results; `unsliced_state` is the state a sliced run would
/// have needed when it was too large (for the error message); `may_retry`: a
/// driver-stopped loop is [`SliceError::NeedsPasses`] (the caller runs the launch again
/// in smaller passes), not an error.
fn finish(
    gpu: &mut GpuContext,
    launch: &GpuLaunch,
    mut job: ComputeJob,
    step_limit: u32,
    unsliced_state: Option<u64>,
    may_retry: bool,
) -> Result<GpuRun, SliceError> {
    let slm_in_heap = place_workgroup_memory(gpu, launch, &mut job)?;
    // A flushing adapter runs F32 natively first; where that met a denormal, whatever
    // the run did (its errors too) is dropped and the exact module runs from the inputs.
    let speculate = float_fixes(gpu).ftz && !speculation_missed(job.key);
    let unadapted = speculate.then(|| (job.wgsl.clone(), job.key, job.aliases.clone()));
    let mut lower_ms = adapt(gpu, &mut job, speculate)?;
    ready_to_run(gpu, &mut job);
    let mut r = gpu.run(&job).map_err(|e| e.to_string())?;
    let mut f32_rerun = false;
    if let Some((wgsl, key, aliases)) = unadapted {
        let stat = words_of(&r.outputs[translate::binding::STAT as usize]);
        if stat.get(translate::stat::FTZ_MISS).is_some_and(|&w| w != 0) {
            note_speculation_missed(key);
            (job.wgsl, job.key, job.aliases) = (wgsl, key, aliases);
            lower_ms += adapt(gpu, &mut job, false)?;
            ready_to_run(gpu, &mut job);
            let first = r.timings;
            r = gpu.run(&job).map_err(|e| e.to_string())?;
            r.timings.pipeline_ms += first.pipeline_ms;
            r.timings.dispatch_ms += first.dispatch_ms;
            r.timings.passes += first.passes;
            r.timings.gpu_ms = r.timings.gpu_ms.zip(first.gpu_ms).map(|(a, b)| a + b);
            f32_rerun = true;
        }
    }
    let stat = with_handover(words_of(&r.outputs[translate::binding::STAT as usize]));
    if may_retry
        && matches!(
            stat[0],
            runtime_error::DRIVER_LOOPS | runtime_error::ATOMIC_CONTENDED
        )
    {
        return Err(SliceError::NeedsPasses);
    }
    // A straight run has no saved state: where it stopped (or the driver's loop
    // limiter stopped it), nothing of it is kept and the thread mapping runs the launch
    // from the inputs instead.
    let straight = launch.module.straight.is_some();
    let at = stat[1];
    let handed_over = match stat[0] {
        runtime_error::DRIVER_LOOPS if straight => Some(format!(
            "a thread needs more loop iterations than one dispatch allows: the driver's loop limiter stopped the straight form before the block at instruction {at}"
        )),
        runtime_error::STRAIGHT_ALIAS => Some(format!(
            "the flat access at instruction {at} left the memory the straight form \
             ordered it in (an unplaced atomic or load reached an allocation other \
             instructions address, or an access placed on a pointer argument left that \
             argument's buffer)"
        )),
        runtime_error::STRAIGHT_SHARED => Some(format!(
            "two channels touched one word of private memory (the access at instruction \
             {at} met another channel's word), which the straight form leaves to the \
             thread mapping"
        )),
        runtime_error::STRAIGHT_GRF => Some(format!(
            "the straight form reached GRF word {at}, which its compact image left out \
             (a translator slip the thread mapping does not have)"
        )),
        runtime_error::STRAIGHT_SLOW => Some(format!(
            "the access at instruction {at} is not word-aligned, or an indirect operand \
             there reads outside the variable its address registers point into, which \
             the straight form leaves to the thread mapping"
        )),
        runtime_error::ATOMIC_CONTENDED if straight => Some(
            "an atomic retried past its bound under contention (or the driver's loop \
             limiter stopped its loop) in the straight form"
                .to_string(),
        ),
        runtime_error::STRAIGHT_STOPPED => Some(format!(
            "a thread needs more loop iterations than one dispatch allows: a channel of the straight form ran past its loop budget or the step limit in the block at instruction {at}"
        )),
        _ => None,
    };
    if let Some(why) = handed_over {
        return Err(SliceError::LanesDoNotFit(why));
    }
    if let Some(why) = runtime_failure(&stat, step_limit, unsliced_state) {
        return Err(why.into());
    }
    let heap = std::mem::take(&mut r.outputs[translate::binding::HEAP as usize]);
    let buffers = launch
        .buffers
        .iter()
        .map(|(n, off, len)| (n.clone(), heap[*off..*off + *len].to_vec()))
        .collect();
    let printf = launch
        .printf
        .as_ref()
        .map(|(off, len, strings)| crate::abi::printf::decode(&heap[*off..*off + *len], strings))
        .unwrap_or_default();
    let counted = launch.module.straight.as_ref().filter(|_| counting(&job));
    if let (Some(_), Some(path)) = (counted, std::env::var_os("VISA_GPU_VISITS")) {
        // Debugging hook: a straight run's block records (words per invocation, one bit
        // per block), to compare the paths two adapters' invocations took.
        std::fs::write(&path, &r.outputs[translate::binding::STATE as usize])
            .map_err(|e| format!("VISA_GPU_VISITS={}: {e}", Path::new(&path).display()))?;
    }
    let (instructions, channel_ops) = match counted {
        Some(s) => s.count(
            &words_of(&r.outputs[translate::binding::STATE as usize]),
            launch.module.workgroup_size / s.threads_per_workgroup.max(1),
            launch.threads,
        ),
        None => (
            Some(stat[4] as u64 | (stat[5] as u64) << 32),
            stat[6] as u64 | (stat[7] as u64) << 32,
        ),
    };
    Ok(GpuRun {
        buffers,
        printf,
        instructions,
        channel_ops,
        oob_reads: stat[2],
        oob_writes: stat[3],
        pipeline_ms: r.timings.pipeline_ms + lower_ms,
        dispatch_ms: r.timings.dispatch_ms,
        passes: r.timings.passes,
        pieces: 1,
        gpu_ms: r.timings.gpu_ms,
        mapping: launch.module.mapping(),
        note: None,
        slm_in_heap,
        f32_rerun,
        heap,
    })
}

impl GpuRun {
    /// `"N pass(es)"`, and the pieces they ran where the NDRange was split.
    pub fn passes_text(&self) -> String {
        match self.pieces {
            0 | 1 => format!("{} pass(es)", self.passes),
            n => format!(
                "{} pass(es) over {n} pieces (non-uniform work-groups)",
                self.passes
            ),
        }
    }

    /// The instruction count for reports: `"N instructions"`, or why there is none.
    pub fn instructions_text(&self) -> String {
        match self.instructions {
            Some(n) => format!("{n} instructions"),
            None => "instructions not counted (a straight run with loops counts channels)".into(),
        }
    }
}

/// What a device changes in a module before compiling it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Adaptation {
    /// 64-bit types lowered to exact emulation (`translate::lower64`); 64-bit atomics
    /// keep the runtime's split form.
    Lower(translate::lower64::Emulate),
    /// 64-bit types native and SHADER_INT64_ATOMIC_ALL_OPS: 64-bit atomics on one
    /// `atomic<u64>` (`translate::native_atomic64`).
    NativeAtomic64,
}

/// This device's adaptation, `None` when modules run as translated.
pub fn adaptation(gpu: &GpuContext) -> Option<Adaptation> {
    let emu = super::select::emulation(gpu);
    if emu.any() {
        Some(Adaptation::Lower(emu))
    } else if gpu.capabilities().int64_atomics {
        Some(Adaptation::NativeAtomic64)
    } else {
        None
    }
}

/// The runtime's float switches a device needs to stay exact: `F32_FTZ` (runtime.wgsl)
/// where f32 arithmetic flushes denormals, `F64_SOFT_DIV` (soft_f64.wgsl) where native
/// f64 division or square root is not correctly rounded, `F_KEEP_PRODUCTS`
/// (runtime.wgsl) where the compiler fuses a product into the sum it feeds. The host's
/// probe measures all three when the device opens; `VISA_GPU_EMULATE=ftz` / `f64div` /
/// `products` force them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FloatFixes {
    pub ftz: bool,
    pub soft_div: bool,
    pub keep_products: bool,
    /// Testing only: the native f32 operations of the `F32_FTZ` fast paths flush
    /// denormal results (`F32_FTZ_SIM`), as a flushing adapter's do.
    pub simulate_ftz: bool,
    /// With `ftz`: F add, mul and compares native, a denormal reported instead of
    /// handled (`F32_SPECULATE`); [`finish`] runs the exact module where one was.
    pub speculate: bool,
    /// The F mad in round-to-nearest as WGSL's `fma`, where the probe found it
    /// rounding once and keeping denormals (`F32_MAD_NATIVE`); else through f64, exact
    /// on any adapter.
    pub native_fma: bool,
}

/// `fma_rne32`'s body (shaders/runtime.wgsl; its idle wrappers written out or not) and
/// what it becomes with [`FloatFixes::native_fma`].
const F32_MAD_NATIVE: [(&str, &str); 2] = [
    (
        "return n32(add_odd(w32(x) * w32(y), w32(z)));",
        "return fma(x, y, z);",
    ),
    (
        "return f32(add_odd(f64(x) * f64(y), f64(z)));",
        "return fma(x, y, z);",
    ),
];

impl FloatFixes {
    fn any(self) -> bool {
        self.ftz
            || self.soft_div
            || self.keep_products
            || self.simulate_ftz
            || self.speculate
            || self.native_fma
    }

    /// Each switch: on?, the runtime's `const`s it sets, a short tag, what it means.
    #[allow(clippy::type_complexity)]
    fn switches(self) -> [(bool, &'static [&'static str], &'static str, &'static str); 6] {
        [
            (
                self.ftz,
                &["F32_FTZ"],
                "f32-via-f64",
                "f32 through f64 (for adapters that flush f32 denormals)",
            ),
            (
                self.soft_div,
                // F's division and roots take IEEE's specials there too
                // (runtime.wgsl, `F_DIV_SPECIALS`): a division that is not IEEE's
                // need not get infinities right either.
                &["F64_SOFT_DIV", "F_DIV_SPECIALS"],
                "soft-df-div",
                "DF division and roots on the bits, F's specials too (for inexact native ones)",
            ),
            (
                self.keep_products,
                &["F_KEEP_PRODUCTS"],
                "kept-products",
                "products rounded on their own (for compilers that fuse them into sums)",
            ),
            (
                self.simulate_ftz,
                &["F32_FTZ_SIM"],
                "simulated-ftz",
                "native f32 results flushed as a flushing adapter's (testing)",
            ),
            (
                self.speculate,
                &["F32_SPECULATE"],
                "f32-speculative",
                "f32 add, mul and compares native first, run again exactly where a denormal was met",
            ),
            (
                // No `const`: `apply` rewrites `fma_rne32`'s body (`F32_MAD_NATIVE`).
                self.native_fma,
                &[],
                "native-fma",
                "F mad as the adapter's fma (probed: rounds once, keeps denormals)",
            ),
        ]
    }

    /// `wgsl` with the switches set; `None` when it has none to set.
    fn apply(self, wgsl: &str) -> Option<String> {
        let mut out = None::<String>;
        for (on, names, _, _) in self.switches() {
            if !on {
                continue;
            }
            for name in names {
                let from = format!("const {name}: bool = false;");
                let text = out.as_deref().unwrap_or(wgsl);
                if text.contains(&from) {
                    out = Some(text.replacen(&from, &format!("const {name}: bool = true;"), 1));
                }
            }
        }
        if self.native_fma {
            for (exact, native) in F32_MAD_NATIVE {
                let text = out.as_deref().unwrap_or(wgsl);
                if text.contains(exact) {
                    out = Some(text.replacen(exact, native, 1));
                }
            }
        }
        out
    }

    /// What the switches say, for reports.
    pub fn describe(self) -> Option<String> {
        let parts: Vec<&str> = self
            .switches()
            .into_iter()
            .filter(|s| s.0)
            .map(|s| s.3)
            .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    /// The switches as ` +tag` suffixes of a target's name (`validate`).
    pub fn tags(self) -> String {
        self.switches()
            .into_iter()
            .filter(|s| s.0)
            .map(|s| format!(" +{}", s.2))
            .collect()
    }
}

/// The float switches `gpu` needs ([`FloatFixes`]).
pub fn float_fixes(gpu: &GpuContext) -> FloatFixes {
    let c = gpu.capabilities();
    let forced = super::select::emulate_env_names;
    let native_f64 = !super::select::emulation(gpu).f64;
    let ftz = !c.f32_denormals || forced("ftz");
    // A device taken for a flushing one without asking (tests) flushes the fast
    // paths' native results too, so that their guards are proven on any adapter.
    let simulate_ftz = forced("ftzsim") || !c.floats_probed;
    FloatFixes {
        ftz,
        soft_div: native_f64 && (!c.f64_div_sqrt_exact || forced("f64div")),
        keep_products: !c.keeps_products || forced("products"),
        simulate_ftz,
        speculate: false,
        // Only where f32 keeps denormals: a flushing adapter's F mad runs through f64.
        native_fma: c.fma_single_rounding && !ftz && !simulate_ftz && !forced("fma"),
    }
}

/// Kernels (module keys) whose speculative F32 run met a denormal: later runs of
/// them go to the exact module at once.
static SPECULATION_MISSED: std::sync::OnceLock<Mutex<std::collections::HashSet<u64>>> =
    std::sync::OnceLock::new();

fn speculation_missed(key: u64) -> bool {
    SPECULATION_MISSED
        .get_or_init(Default::default)
        .lock()
        .is_ok_and(|s| s.contains(&key))
}

fn note_speculation_missed(key: u64) {
    if let Ok(mut s) = SPECULATION_MISSED.get_or_init(Default::default).lock() {
        s.insert(key);
    }
}

/// An adapted module: its text and that text's hash (the pipeline cache key); `None`
/// when the adaptation leaves the module as it is.
type Adapted = Option<(Arc<str>, u64)>;
type AdaptedCache = Mutex<HashMap<(u64, Option<Adaptation>, FloatFixes), Adapted>>;
static ADAPTED: std::sync::OnceLock<AdaptedCache> = std::sync::OnceLock::new();

/// `wgsl` (whose hash is `key`) with the float switches `fixes` set, then adapted by
/// `a`, once per module and process; also the milliseconds it took (0 when cached),
/// part of the pipeline's cost on the device.
fn adapted(
    key: u64,
    wgsl: &str,
    a: Option<Adaptation>,
    fixes: FloatFixes,
) -> Result<(Adapted, f64), String> {
    let cache = ADAPTED.get_or_init(Default::default);
    let cached = cache
        .lock()
        .map_err(|_| "adaptation cache poisoned".to_string())?
        .get(&(key, a, fixes))
        .cloned();
    if let Some(l) = cached {
        return Ok((l, 0.0));
    }
    let t = std::time::Instant::now();
    let fixed = fixes.apply(wgsl);
    let src = fixed.as_deref().unwrap_or(wgsl);
    let text = match a {
        Some(Adaptation::Lower(emu)) => Some(lowered(src, emu)?),
        Some(Adaptation::NativeAtomic64) => translate::native_atomic64(src).or(fixed),
        None => fixed,
    };
    let l = text.map(|t| {
        let h = hash(&t);
        (Arc::<str>::from(t), h)
    });
    let ms = t.elapsed().as_secs_f64() * 1e3;
    if let Ok(mut c) = cache.lock() {
        c.insert((key, a, fixes), l.clone());
    }
    Ok((l, ms))
}

/// `wgsl` (its float switches set) with 64-bit types emulated as `emu` says, its idle
/// float wrappers written as what they return first ([`translate::prune`]; after
/// lowering their calls no longer read as such): lowered to soft f64, the dead paths of
/// `fadd32_rne`'s calls in float atomics took llvmpipe over 9 minutes and 13 GB to
/// compile (`float_atomics` acm-g10 SIMD16; 22 s without them).
/// With f64 emulated, the F mad (`fma_rne32`, `fmad32`) also runs on 64-bit integers
/// (`fma32_bits`) rather than through the soft f64 fma.
pub fn lowered(wgsl: &str, emu: translate::lower64::Emulate) -> Result<String, String> {
    let mut text = wgsl.to_string();
    if emu.f64 {
        for (f64_form, int_form) in F32_MAD_ON_INTEGERS {
            text = text.replace(f64_form, int_form);
        }
    }
    translate::lower64::lower(
        &translate::prune::without_idle_wrappers(&translate::driver_folds::for_driver(&text)),
        emu,
    )
    .map_err(|e| format!("64-bit emulation ({}): {e}", emu.describe()))
}

/// The F mad's f64 forms in shaders/runtime.wgsl and their integer twin: `fma32_bits`
/// rounds once in any mode, as the f64 product (exact) summed to odd and rounded does.
const F32_MAD_ON_INTEGERS: [(&str, &str); 2] = [
    (
        "return n32(add_odd(w32(x) * w32(y), w32(z)));",
        "return fma32_bits(x, y, z, 0u);",
    ),
    (
        "return f64_to_f32_rm(sum_in_mode(w32(x) * w32(y), w32(z), md), md);",
        "return fma32_bits(x, y, z, md);",
    ),
];

/// Make `job` runnable on this device ([`adaptation`]): its WGSL lowered to exact
/// 64-bit emulation when the device lacks f64 or 64-bit integers (or
/// `VISA_GPU_EMULATE` asks), else with native 64-bit atomics where the device has them
/// and the kernel uses them (the heap then bound again at `binding::HEAP64`). Returns
/// the milliseconds the adaptation took.
pub fn for_adapter(gpu: &GpuContext, job: &mut ComputeJob) -> Result<f64, String> {
    adapt(gpu, job, false)
}

/// [`for_adapter`], the F32 operations speculative where `speculate` and the device
/// flushes f32 denormals.
fn adapt(gpu: &GpuContext, job: &mut ComputeJob, speculate: bool) -> Result<f64, String> {
    let a = adaptation(gpu);
    let mut fixes = float_fixes(gpu);
    fixes.speculate = speculate && fixes.ftz;
    if a.is_none() && !fixes.any() {
        return Ok(0.0);
    }
    let (l, ms) = adapted(job.key, &job.wgsl, a, fixes)?;
    let rebound = a == Some(Adaptation::NativeAtomic64) && translate::has_split_atomic64(&job.wgsl);
    if let Some((text, key)) = l {
        job.wgsl = text.to_string();
        job.key = key;
        if rebound {
            job.aliases.push((
                translate::binding::HEAP64,
                translate::binding::HEAP as usize,
            ));
        }
    }
    Ok(ms)
}

/// Instructions one GPU thread may execute before the watchdog stops it (the
/// interpreter's default too).
pub const DEFAULT_STEP_LIMIT: u32 = 50_000_000;

/// Pipeline-cache key of a WGSL program.
pub fn hash(s: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// Run a variant on the GPU and compare every output with the case's expectation.
pub fn check_variant(gpu: &mut GpuContext, dir: &Path) -> Result<String, String> {
    check_variant_mapped(gpu, dir, Mapping::from_env())
}

/// [`check_variant`] with the given mapping.
pub fn check_variant_mapped(
    gpu: &mut GpuContext,
    dir: &Path,
    mapping: Mapping,
) -> Result<String, String> {
    let case_dir = dir.parent().ok_or("variant folder has no case folder")?;
    let case = Case::load(case_dir).map_err(|e| e.to_string())?;
    if let Some(why) = super::select::unusable(gpu) {
        return Err(why);
    }
    let mut launch = build(dir, &case, DEFAULT_STEP_LIMIT)?;
    // `Auto` was resolved by `build` (straight lanes or threads).
    if mapping != Mapping::Auto {
        launch.mapping = mapping;
    }
    let run = execute(gpu, &launch)?;
    super::cpu::check_outputs(&case, &run.buffers)?;
    super::cpu::check_printf(&case, &run.printf)?;
    Ok(format!(
        "{}, {} mapping, pipeline {:.0} ms, dispatch {:.1} ms in {}{}",
        run.instructions_text(),
        run.mapping,
        run.pipeline_ms,
        run.dispatch_ms,
        run.passes_text(),
        run.note.map(|n| format!(" ({n})")).unwrap_or_default()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::translate::lane_memory::{Conditions, Guard, LaneForm, Term};

    /// Each switch sets every runtime constant it names, and only those: the soft
    /// division sets DF's `F64_SOFT_DIV` and F's `F_DIV_SPECIALS` together.
    #[test]
    fn float_switches_set_their_constants() {
        let text = "const F64_SOFT_DIV: bool = false;\nconst F_DIV_SPECIALS: bool = false;\nconst F32_FTZ: bool = false;\n";
        let soft = FloatFixes {
            soft_div: true,
            ..Default::default()
        };
        assert_eq!(
            soft.apply(text).unwrap(),
            "const F64_SOFT_DIV: bool = true;\nconst F_DIV_SPECIALS: bool = true;\nconst F32_FTZ: bool = false;\n"
        );
        assert_eq!(FloatFixes::default().apply(text), None);
    }

    /// Where the adapter's fma rounds once, `fma_rne32` becomes it in the runtime as
    /// shipped and as its idle wrappers leave it; the moded forms keep their f64 sums.
    #[test]
    fn native_fma_rewrites_the_round_to_nearest_mad_only() {
        let runtime = include_str!("../../shaders/runtime.wgsl");
        let native = FloatFixes {
            native_fma: true,
            ..Default::default()
        };
        let fixed = native.apply(runtime).expect("rewritten");
        assert!(fixed
            .contains("fn fma_rne32(x: f32, y: f32, z: f32) -> f32 {\n    return fma(x, y, z);"));
        assert!(fixed.contains("sum_in_mode(w32(x) * w32(y), w32(z), md)"));
        let pruned = crate::translate::prune::without_idle_wrappers(runtime);
        let fixed = native.apply(&pruned).expect("rewritten");
        assert!(fixed.contains("return fma(x, y, z);"));
        assert!(!fixed.contains("add_odd(f64(x) * f64(y), f64(z))"));
    }

    /// A straight lane's report becomes the error only when nothing else failed: code
    /// in the top byte, instruction below it.
    #[test]
    fn unchecked_binding_table_accesses_must_stay_in_their_entry() {
        use crate::translate::lane_memory::{BtiBound, RunsWhere};
        // Channel c reads the word at 4 * id (ids at payload byte 0) of entry 2, and
        // runs it where id < n (payload word at byte 16); the entry holds 5 words.
        let id = |coef| Term {
            offset: 0,
            bytes: 2,
            signed: false,
            factors: Vec::new(),
            pass: Vec::new(),
            coef,
        };
        let n = Term::scalar(vec![(16, 4)], 1);
        let bound = |runs_where| BtiBound {
            bti: 2,
            terms: vec![id(4)],
            konst: 0,
            scale: 1,
            offset: 0,
            bytes: 4,
            moff: 0,
            n: 8,
            runs_where,
        };
        let guard = RunsWhere {
            terms: vec![id(1)],
            konst: 0,
            bound: vec![n],
            bound_konst: 0,
            signed: true,
            rel: 4,
            through_when_set: true,
        };
        let mut table = vec![0u32; cfg::BTI_SPAN + 8];
        table[cfg::BTI_SPAN + 4] = 20;
        let thread = |n: u32| {
            let mut bytes: Vec<u8> = (0u16..8).flat_map(|v| v.to_le_bytes()).collect();
            bytes.extend(n.to_le_bytes());
            ThreadPayload { bytes, lanes: 8 }
        };
        let c = |b| Conditions {
            bti_bounds: vec![b],
            ..Default::default()
        };
        let check = |b, n| bounds_unheld(&c(b), &table, &[thread(n)], std::iter::once([0; 3]), 8);
        // Unguarded, ids 5-7 read past the entry; behind `id < n` only up to n - 1.
        assert!(check(bound(None), 5).is_some());
        assert_eq!(check(bound(Some(guard.clone())), 5), None);
        let why = check(bound(Some(guard.clone())), 6).expect("id 5 reads word 5");
        assert!(why.contains("entry 2") && why.contains("20 bytes"), "{why}");
        // An unbound entry holds nothing.
        let other = BtiBound {
            bti: 3,
            ..bound(Some(guard))
        };
        assert!(check(other, 1).is_some());
    }

    #[test]
    fn a_shared_element_of_the_one_channel_vector_is_found() {
        // Local ids (2 bytes) at byte 4 of a payload: 0..3, then a repeat.
        let rec: Vec<u8> = [0u8; 4]
            .into_iter()
            .chain([0u16, 1, 2, 3, 1].iter().flat_map(|v| v.to_le_bytes()))
            .collect();
        assert_eq!(shared_element(&rec, &[(4, 2)], 4), None);
        let why = shared_element(&rec, &[(4, 2)], 5).expect("channels 1 and 4 share");
        assert!(why.contains("bytes 4"), "{why}");
        assert!(
            shared_element(&rec, &[(4, 2)], 6).is_some(),
            "past the payload"
        );
        // Pairs: (x, y) = (0,0) (1,0) (0,1) (1,1) differ, though each vector repeats.
        let xy: Vec<u8> = [0u16, 1, 0, 1, 0, 0, 1, 1]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert!(shared_element(&xy, &[(0, 2)], 4).is_some());
        assert_eq!(shared_element(&xy, &[(0, 2), (8, 2)], 4), None);
        assert!(shared_element(&[xy.clone(), xy].concat(), &[(0, 2), (16, 2)], 4).is_some());
    }

    #[test]
    fn a_hand_over_report_is_read_as_the_error() {
        use crate::translate::stat::HANDOVER;
        let mut stat = vec![0u32; 16];
        stat[HANDOVER] = (runtime_error::STRAIGHT_SLOW << 24) | 42;
        let s = with_handover(stat.clone());
        assert_eq!((s[0], s[1]), (runtime_error::STRAIGHT_SLOW, 42));
        // A `fail` already recorded keeps its place.
        stat[0] = runtime_error::STEP_LIMIT;
        stat[1] = 7;
        let s = with_handover(stat.clone());
        assert_eq!((s[0], s[1]), (runtime_error::STEP_LIMIT, 7));
        // No report: nothing changes.
        assert_eq!(with_handover(vec![0; 16]), vec![0; 16]);
    }

    /// Thread payloads of 16 bytes: the uw elements at byte 0, one lane each.
    fn payload(threads: &[&[u16]]) -> Vec<ThreadPayload> {
        threads
            .iter()
            .map(|t| {
                let mut bytes: Vec<u8> = t.iter().flat_map(|v| v.to_le_bytes()).collect();
                bytes.resize(bytes.len().max(16), 0);
                ThreadPayload {
                    bytes,
                    lanes: t.len() as u32,
                }
            })
            .collect()
    }

    /// Records of `pw` words: local ids x at byte 0 and y at byte 32, 16 channels.
    fn id_records(local: [u32; 2], threads: u32, simd: u32, pw: usize) -> Vec<u32> {
        let mut out = Vec::new();
        for t in 0..threads {
            let mut rec = vec![0u32; pw];
            let lanes = (local[0] * local[1]).saturating_sub(t * simd).min(simd);
            for c in 0..lanes {
                let item = t * simd + c;
                for (base, id) in [(0, item % local[0]), (32, item / local[0])] {
                    let b = base + 2 * c;
                    rec[b as usize / 4] |= id << ((b % 4) * 8);
                }
            }
            rec[pw - 1] = lanes;
            out.extend(rec);
        }
        out
    }

    /// Straight modules compute the local ids only where the records hold exactly
    /// those: a layout that misreads the records (wrong size, wrong offset, a changed
    /// id) is refused, and disabled channels (the last thread's) are not compared.
    #[test]
    fn local_ids_are_computed_only_where_the_payload_agrees() {
        let ids = |offsets: [Option<u32>; 3], local| translate::LocalIdLayout { offsets, local };
        let both = [Some(0), Some(32), None];
        // 12x3 items in SIMD16 threads: the third thread has 4 channels.
        let recs = id_records([12, 3], 3, 16, 17);
        assert!(ids_follow(&ids(both, [12, 3, 1]), &recs, 17, 16));
        assert!(ids_follow(
            &ids([None, Some(32), None], [12, 3, 1]),
            &recs,
            17,
            16
        ));
        assert!(!ids_follow(&ids(both, [6, 6, 1]), &recs, 17, 16));
        assert!(!ids_follow(
            &ids([Some(32), Some(0), None], [12, 3, 1]),
            &recs,
            17,
            16
        ));
        assert!(!ids_follow(&ids(both, [12, 3, 1]), &recs, 17, 8));
        let mut changed = recs.clone();
        changed[17 + 2] ^= 1 << 16; // thread 1, channel 5's x id
        assert!(!ids_follow(&ids(both, [12, 3, 1]), &changed, 17, 16));
        let mut past = recs.clone();
        past[2 * 17 + 3] = 0xffff_ffff; // thread 2, channels 6-7: not dispatched
        assert!(ids_follow(&ids(both, [12, 3, 1]), &past, 17, 16));
    }

    /// `coef * L[c]` (and `+ coef2 * L2[c]` for a second uw vector at byte 8).
    fn form(coef: i64, second: Option<i64>, span: u32) -> LaneForm {
        let t = |offset, coef| Term {
            offset,
            bytes: 2,
            signed: false,
            factors: vec![],
            pass: vec![],
            coef,
        };
        let mut terms = vec![t(0, coef)];
        terms.extend(second.map(|c| t(8, c)));
        LaneForm {
            terms,
            terms2: None,
            width: 32,
            at: [(0, span), (0, span)],
            guards: [None, None],
        }
    }

    /// The same reduction with `off` a loop scalar (`lane_passes`): half the payload's
    /// group size (32, at byte 64), halved each pass; the host checks every value it
    /// takes, 16 down to 0. `l < off` keeps the channels apart in every pass; `l <= off`
    /// lets channel off write what channel 0 reads (off = 16 first), and so does a
    /// write that every channel makes.
    #[test]
    fn loop_scalar_bounds_are_checked_for_every_value() {
        use crate::interp::alu::AluOp;
        use crate::ir::{DataType, Modifier};
        use crate::translate::lane_memory::Bound;
        use crate::translate::lane_passes::{Carried, Node, Passes, Ref, Typed};
        let table = vec![0u32; cfg::ALLOC];
        let ids: Vec<u16> = (0..32).collect();
        let mut rec = payload(&[&ids]);
        rec[0].bytes.resize(68, 0);
        rec[0].bytes[64..68].copy_from_slice(&32u32.to_le_bytes());
        let mut passes = Passes::default();
        let half = |p: &mut Passes, r| {
            p.node(Node {
                op: AluOp::Shr,
                dst: DataType::UD,
                srcs: vec![
                    (r, DataType::UD, Modifier::None),
                    (Ref::Imm(1), DataType::UD, Modifier::None),
                ],
            })
            .unwrap()
        };
        let init = half(&mut passes, Ref::Input(64, 4));
        let update = half(&mut passes, Ref::Carried(0));
        passes.carried.push(Carried {
            at: 256,
            bytes: 4,
            lp: (10, 20),
            init,
            update,
        });
        let off = Typed {
            r: Ref::Carried(0),
            ty: DataType::UD,
        };
        let reduce = |rel: u8, write_guarded: bool| {
            let guard = Guard {
                offset: 0,
                bytes: 2,
                signed: false,
                lo: i64::MIN,
                hi: i64::MAX,
                bound: Some(Bound {
                    value: off,
                    rel,
                    through_when_set: true,
                }),
            };
            let mut read = form(4, None, 4);
            read.terms.push(Term {
                offset: 0,
                bytes: 0,
                signed: false,
                factors: vec![],
                pass: vec![off],
                coef: 4,
            });
            Conditions {
                distinct_inputs: vec![LaneForm {
                    terms2: Some(form(4, None, 4).terms),
                    guards: [Some(guard.clone()), write_guarded.then_some(guard)],
                    ..read
                }],
                passes: passes.clone(),
                ..Default::default()
            }
        };
        // rel 4: v < off; rel 5: v <= off.
        assert_eq!(
            straight_unsafe(&reduce(4, true), &table, rec.iter().cloned(), 32),
            None
        );
        let why = straight_unsafe(&reduce(5, true), &table, rec.iter().cloned(), 32).unwrap();
        assert!(why.contains("when the loop scalars hold [16]"), "{why}");
        assert!(straight_unsafe(&reduce(4, false), &table, rec.iter().cloned(), 32).is_some());
    }

    /// `if (l < off) s[l] += s[l + off]`: channel l reads 4 bytes at 4l + 4 off and
    /// writes 4 at 4l. Without the guard, channel l + off's write meets channel l's
    /// read; with it, channel l + off does not write.
    #[test]
    fn guarded_channels_do_not_meet() {
        let table = vec![0u32; cfg::ALLOC];
        let ids: Vec<u16> = (0..32).collect();
        let rec = payload(&[&ids]);
        let off = 16i64;
        let reduce = |guard: Option<Guard>| Conditions {
            distinct_btis: vec![],
            distinct_inputs: vec![LaneForm {
                at: [(4 * off, 4), (0, 4)],
                guards: [guard.clone(), guard],
                ..form(4, None, 4)
            }],
            ..Default::default()
        };
        let below = |hi| Guard {
            offset: 0,
            bytes: 2,
            signed: false,
            lo: i64::MIN,
            hi,
            bound: None,
        };
        assert!(straight_unsafe(&reduce(None), &table, rec.iter().cloned(), 32).is_some());
        assert_eq!(
            straight_unsafe(&reduce(Some(below(off))), &table, rec.iter().cloned(), 32),
            None
        );
        // One channel too many let through: channel 16 writes what channel 0 reads.
        assert!(straight_unsafe(
            &reduce(Some(below(off + 1))),
            &table,
            rec.iter().cloned(),
            32
        )
        .is_some());
        // A guard on the write alone decides too (the reads of every channel stay).
        let write_only = Conditions {
            distinct_btis: vec![],
            distinct_inputs: vec![LaneForm {
                at: [(4 * off, 4), (0, 4)],
                guards: [None, Some(below(off))],
                ..form(4, None, 4)
            }],
            ..Default::default()
        };
        assert_eq!(
            straight_unsafe(&write_only, &table, rec.iter().cloned(), 32),
            None
        );
    }

    /// Two `__local` arrays: `tmp[l]` (4 bytes at `4 l`) and `tmp2[l]` (2 bytes at
    /// `2 l + S`, S a kernel argument at payload byte 32): apart when S is past tmp's
    /// end, and caught when the arrays overlap.
    #[test]
    fn two_arrays_at_different_strides_are_checked() {
        let table = vec![0u32; cfg::ALLOC];
        let with_offset = |s: u32| {
            let mut ids: Vec<u16> = (0..16).collect();
            ids.extend([s as u16, (s >> 16) as u16]);
            payload(&[&ids])
                .into_iter()
                .map(|mut t| {
                    t.lanes = 16;
                    t
                })
                .collect::<Vec<_>>()
        };
        let arrays = Conditions {
            distinct_inputs: vec![LaneForm {
                terms2: Some(vec![
                    Term {
                        offset: 0,
                        bytes: 2,
                        signed: false,
                        factors: vec![],
                        pass: vec![],
                        coef: 2,
                    },
                    Term {
                        offset: 0,
                        bytes: 0,
                        signed: false,
                        factors: vec![(32, 4)],
                        pass: vec![],
                        coef: 1,
                    },
                ]),
                at: [(0, 4), (0, 2)],
                ..form(4, None, 4)
            }],
            ..Default::default()
        };
        let check = |s| straight_unsafe(&arrays, &table, with_offset(s).into_iter(), 16);
        assert_eq!(check(64), None);
        assert_eq!(check(4096), None);
        // tmp2 inside tmp: lane 1's tmp2[1] is lane 3's tmp[3] (S = 10).
        assert!(check(10).is_some());
        assert!(check(62).is_some());
    }

    #[test]
    fn forms_reading_group_ids_are_found() {
        // uw ids at byte 0 over 4 channels: bytes 0..8 cover r0.1.
        assert!(form(4, None, 4).reads_group_ids(4));
        let mut f = form(4, None, 4);
        f.terms[0].offset = 64;
        assert!(!f.reads_group_ids(16));
        f.terms[0].factors = vec![(28, 4)];
        assert!(f.reads_group_ids(16));
    }

    /// Placed flat bases (`Conditions::flat_bases`): each pointer finds the allocation
    /// it lies in, and bases or binding-table entries that must differ are checked.
    #[test]
    fn placed_flat_bases_find_their_allocations() {
        use translate::lane_memory::Apart;
        // Allocations 0x10_0000_0000 (64 bytes, heap 0), 0x11_0000_0000 (32, heap 64),
        // the second bound at binding-table entry 3.
        let mut table = vec![0u32; cfg::ALLOC + 8];
        for (k, (base, size, off)) in [(0x10_0000_0000u64, 64, 0), (0x11_0000_0000, 32, 64)]
            .into_iter()
            .enumerate()
        {
            let t = cfg::ALLOC + 4 * k;
            table[t..t + 4].copy_from_slice(&[base as u32, (base >> 32) as u32, size, off]);
        }
        table[cfg::BTI_SPAN + 6..cfg::BTI_SPAN + 8].copy_from_slice(&[32, 64]);
        // Pointers at payload bytes 0, 8, 16, 24: the first buffer, inside it, the
        // second, and past both (one past the first's end lies in none).
        let mut image = vec![0u8; 40];
        for (o, p) in [
            (0, 0x10_0000_0000u64),
            (8, 0x10_0000_0010),
            (16, 0x11_0000_0000),
            (24, 0x10_0000_0040),
        ] {
            image[o..o + 8].copy_from_slice(&p.to_le_bytes());
        }
        flat_spans(&mut table, &[0, 8, 16, 24, 36], &image, 2);
        let span = |j: usize| &table[cfg::FLAT_SPAN + 4 * j..cfg::FLAT_SPAN + 4 * j + 4];
        assert_eq!(span(0), &[0, 0x10, 64, 0]);
        assert_eq!(span(1), span(0));
        assert_eq!(span(2), &[0, 0x11, 32, 64]);
        // In no allocation, or past the payload: size 0, every access leaves the run.
        assert_eq!(span(3), &[0, 0, 0, 0]);
        assert_eq!(span(4), &[0, 0, 0, 0]);
        assert!(one_allocation(&table, 0, Apart::Base(1)));
        assert!(!one_allocation(&table, 0, Apart::Base(2)));
        assert!(one_allocation(&table, 2, Apart::Bti(3)));
        assert!(!one_allocation(&table, 0, Apart::Bti(3)));
        assert!(!one_allocation(&table, 3, Apart::Base(4)));
        let c = |pair| Conditions {
            flat_bases: vec![0, 8, 16, 24, 36],
            distinct_flat: vec![pair],
            ..Default::default()
        };
        let why = straight_unsafe(&c((0, Apart::Base(1))), &table, std::iter::empty(), 16);
        assert!(why
            .unwrap()
            .contains("payload byte 0 and the one at byte 8"));
        let why = straight_unsafe(&c((2, Apart::Bti(3))), &table, std::iter::empty(), 16);
        assert!(why.unwrap().contains("binding-table entry 3"));
        assert_eq!(
            straight_unsafe(&c((1, Apart::Base(2))), &table, std::iter::empty(), 16),
            None
        );
        // Unchecked atomics' spans: 64 bytes from the first pointer fit its buffer, 48
        // from the second (16 bytes in) too, 49 do not; a pointer in no allocation
        // holds none.
        let spans = |flat_spans| Conditions {
            flat_bases: vec![0, 8, 16, 24, 36],
            flat_spans,
            ..Default::default()
        };
        assert_eq!(
            spans_unheld(&spans(vec![(0, 64), (1, 48), (2, 32)]), &table, &image),
            None
        );
        let why = spans_unheld(&spans(vec![(0, 64), (1, 49)]), &table, &image).unwrap();
        assert!(
            why.contains("payload byte 8") && why.contains("49 bytes"),
            "{why}"
        );
        assert!(spans_unheld(&spans(vec![(2, 33)]), &table, &image).is_some());
        assert!(spans_unheld(&spans(vec![(3, 1)]), &table, &image).is_some());
        assert!(
            spans_unheld(&spans(vec![(4, 0)]), &table, &image).is_some(),
            "past the payload"
        );
        let mut odd = image.clone();
        odd[8..16].copy_from_slice(&0x10_0000_0012u64.to_le_bytes());
        let why = spans_unheld(&spans(vec![(1, 4)]), &table, &odd).unwrap();
        assert!(why.contains("not word-aligned"), "{why}");
        // One buffer through a pointer and a binding-table entry: the pointer must lie
        // as far into it as the offset argument (payload byte 32) says, 0 without one.
        // Entry 2 names the first buffer, which the second pointer lies 16 bytes into.
        table[cfg::BTI_SPAN + 4..cfg::BTI_SPAN + 6].copy_from_slice(&[64, 0]);
        let start = |pairs| Conditions {
            flat_bases: vec![0, 8, 16, 24, 36],
            flat_bti_start: pairs,
            ..Default::default()
        };
        let mut at = image.clone();
        assert_eq!(
            flat_off_start(&start(vec![(2, 3, None)]), &table, &at),
            None
        );
        assert_eq!(
            flat_off_start(&start(vec![(2, 3, Some(32))]), &table, &at),
            None
        );
        assert_eq!(
            flat_off_start(&start(vec![(0, 2, None)]), &table, &at),
            None
        );
        // Different buffers need nothing.
        assert_eq!(
            flat_off_start(&start(vec![(1, 3, None)]), &table, &at),
            None
        );
        let why = flat_off_start(&start(vec![(1, 2, None)]), &table, &at).unwrap();
        assert!(
            why.contains("payload byte 8") && why.contains("entry 2"),
            "{why}"
        );
        at[32..36].copy_from_slice(&16u32.to_le_bytes());
        assert_eq!(
            flat_off_start(&start(vec![(1, 2, Some(32))]), &table, &at),
            None
        );
        assert!(flat_off_start(&start(vec![(2, 3, Some(32))]), &table, &at).is_some());
        assert!(flat_off_start(&start(vec![(0, 2, Some(32))]), &table, &at).is_some());
    }

    #[test]
    fn straight_launch_conditions_are_checked() {
        let mut table = vec![0u32; cfg::ALLOC];
        table[cfg::BTI] = 1;
        table[cfg::BTI + 1] = 2;
        table[cfg::BTI + 2] = 1;
        let c = |btis: Vec<(u32, u32)>| Conditions {
            distinct_btis: btis,
            distinct_inputs: vec![form(4, None, 4)],
            ..Default::default()
        };
        let ids = payload(&[&[0, 1, 2, 3], &[4, 5, 6, 7]]);
        assert_eq!(
            straight_unsafe(&c(vec![(0, 1)]), &table, ids.iter().cloned(), 4),
            None
        );
        // Entries 0 and 2 name one allocation.
        let why = straight_unsafe(&c(vec![(0, 2)]), &table, ids.iter().cloned(), 4).unwrap();
        assert!(why.contains("0 and 2"), "{why}");
        // An unbound entry is no buffer at all.
        assert_eq!(
            straight_unsafe(&c(vec![(0, 7)]), &table, ids.iter().cloned(), 4),
            None
        );
        // A repeated id within a thread (a 2D group whose rows share x ids).
        let rows = payload(&[&[0, 1, 0, 1, 0, 0, 1, 1]]);
        assert!(straight_unsafe(&c(vec![]), &table, rows.iter().cloned(), 4).is_some());
        // ... apart once the row id (the second vector) counts too: x + 16 y.
        let two = |coef2, span| Conditions {
            distinct_btis: vec![],
            distinct_inputs: vec![form(4, Some(coef2), span)],
            ..Default::default()
        };
        assert_eq!(
            straight_unsafe(&two(64, 4), &table, rows.iter().cloned(), 4),
            None
        );
        // A stride smaller than the bytes a channel touches: neighbours overlap.
        assert!(straight_unsafe(&two(64, 8), &table, ids.iter().cloned(), 4).is_some());
        // Only dispatched lanes count: a partial thread's idle lanes may repeat.
        let partial = payload(&[&[0, 1]]);
        assert_eq!(
            straight_unsafe(&c(vec![]), &table, partial.iter().cloned(), 4),
            None
        );
        // Offsets that wrap a 32-bit address onto another channel's.
        let far = |coef| Conditions {
            distinct_btis: vec![],
            distinct_inputs: vec![form(coef, None, 4)],
            ..Default::default()
        };
        let ends = payload(&[&[0, 2]]);
        assert_eq!(
            straight_unsafe(&far(1 << 30), &table, ends.iter().cloned(), 4),
            None
        );
        assert!(straight_unsafe(&far(1 << 31), &table, ends.iter().cloned(), 4).is_some());
        // Two fields of a 16-byte struct per channel: 12 bytes at +0, 4 at +12.
        let fields = |stride| Conditions {
            distinct_btis: vec![],
            distinct_inputs: vec![LaneForm {
                at: [(0, 12), (12, 4)],
                ..form(stride, None, 4)
            }],
            ..Default::default()
        };
        assert_eq!(
            straight_unsafe(&fields(16), &table, ids.iter().cloned(), 4),
            None
        );
        // Packed 12 bytes apart, channel c's last field is channel c + 1's first.
        assert!(straight_unsafe(&fields(12), &table, ids.iter().cloned(), 4).is_some());
        // A negative element (sign bit set) is refused rather than guessed at.
        let neg = payload(&[&[0, 0x8000]]);
        assert!(straight_unsafe(&c(vec![]), &table, neg.iter().cloned(), 4).is_some());
    }
}
