//! The CPU reference interpreter: the golden model every other path is judged
//! against. It follows the spec's pseudo-code: EvaluateChEn, regions, the conversion
//! rules, min-PC reconvergence for divergent control flow, and the memory messages.
//!
//! Use: [`prepare`] a kernel once, then [`run`] a launch over a [`Memory`] with a
//! payload builder that gives each SIMD thread its initial GRF image.

pub mod alu;
pub(crate) mod block2d;
pub mod layout;
pub mod memory;
pub mod prepare;
pub mod thread;

pub use memory::{AllocId, Memory, Space};
pub use prepare::{prepare, Prepared};

use thread::{Ctx, Thread, Yield};

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("kernel `{0}` not found in the program")]
    NoKernel(String),
    #[error("linking stack functions: {0}")]
    Link(#[from] crate::ir::link::LinkError),
    #[error("variable layout: {0}")]
    Layout(String),
    #[error("instruction {index}: label L{label} is never defined")]
    BadLabel { index: usize, label: u16 },
    #[error("instruction {index}: {what}")]
    Malformed { index: usize, what: String },
    #[error("instruction {index}: unsupported: {what}")]
    Unsupported { index: usize, what: String },
    #[error("instruction {index} ({op}): step limit of {limit} instructions per thread reached; the kernel does not end")]
    StepLimit {
        index: usize,
        op: &'static str,
        limit: u64,
    },
    #[error(
        "barrier deadlock in group {group:?}: some threads ended while others wait at a barrier"
    )]
    BarrierDeadlock { group: [u32; 3] },
}

/// A thread's initial GRF image (from offset 0: r0, local ids, cross-thread data) and
/// how many of its channels carry work-items.
#[derive(Clone, Debug)]
pub struct ThreadPayload {
    pub bytes: Vec<u8>,
    pub lanes: u32,
}

/// The shape of a GPGPU launch.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The groups this launch runs: `groups` of them from group id `first` on (a
    /// piece of a non-uniform NDRange, `abi::launch::Piece`; else all of `grid`).
    pub groups: [u32; 3],
    pub first: [u32; 3],
    /// The NDRange's group counts: threads are numbered by their group's place in it.
    pub grid: [u32; 3],
    /// SIMD threads per group.
    pub threads_per_group: u32,
    /// Bytes of SLM per group.
    pub slm_bytes: u32,
    /// Bytes of `%scratch` per SIMD thread.
    pub scratch_bytes: u32,
}

#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Instructions one thread may execute before it is stopped.
    pub step_limit: u64,
    /// Print each executed instruction (index, opcode, execution mask) to stderr.
    pub trace: bool,
    /// Threads that run groups in parallel (1: one group after another, deterministic).
    pub workers: usize,
    /// Stop every thread after this many executed instructions and record its state
    /// ([`RunStats::stopped`]): the GPU path's probes compare the same points.
    pub stop_after: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            step_limit: 50_000_000,
            trace: std::env::var_os("VISA_TRACE").is_some(),
            workers: 1,
            stop_after: None,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct RunStats {
    pub threads: u64,
    pub instructions: u64,
    /// Channel-instructions: instructions times the channels they ran on.
    pub channel_ops: u64,
    pub oob_reads: u64,
    pub oob_writes: u64,
    /// With `RunOptions::stop_after`: the threads that reached it.
    pub stopped: Vec<Snapshot>,
}

impl RunStats {
    /// Fold in the stats of another run over the same memory (a later piece of a
    /// non-uniform NDRange): counts add up, the out-of-bounds counts are the memory's
    /// running totals, so the later run's stand.
    pub fn add(&mut self, o: RunStats) {
        self.threads += o.threads;
        self.instructions += o.instructions;
        self.channel_ops += o.channel_ops;
        self.oob_reads = o.oob_reads;
        self.oob_writes = o.oob_writes;
        self.stopped.extend(o.stopped);
    }
}

/// The group ids of `groups` groups from `first` on, x fastest.
pub fn group_box(first: [u32; 3], groups: [u32; 3]) -> impl Iterator<Item = [u32; 3]> + Clone {
    let [fx, fy, fz] = first;
    (0..groups[2]).flat_map(move |z| {
        (0..groups[1]).flat_map(move |y| (0..groups[0]).map(move |x| [fx + x, fy + y, fz + z]))
    })
}

/// A thread's state when `RunOptions::stop_after` stopped it.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Group (linear, x fastest) times threads per group plus the thread's index.
    pub thread: u64,
    /// Index of the last instruction it executed.
    pub last: usize,
    pub grf: Vec<u8>,
}

/// Run every group of `launch`. Groups are spread over `opts.workers` threads (they
/// share global memory through a lock; an atomic is one locked read-modify-write); the
/// SIMD threads of a group run round-robin, each until it reaches a `barrier` or ends, so
/// SLM and barriers behave. With one worker the run is fully deterministic; with more,
/// only kernels whose result depends on the order of unordered accesses can differ.
pub fn run(
    p: &Prepared,
    launch: &Launch,
    mem: &mut Memory,
    payload: &(dyn Fn([u32; 3], u32) -> ThreadPayload + Sync),
    opts: &RunOptions,
) -> Result<RunStats, ExecError> {
    let groups: Vec<[u32; 3]> = group_box(launch.first, launch.groups).collect();
    // Where threads that share SLM take turns (`run_group`): the instructions that read
    // or write memory (messages; not barriers or the EU's own instructions).
    let memory_flags: Option<Vec<bool>> = (launch.threads_per_group > 1 && launch.slm_bytes > 0)
        .then(|| {
            p.insts
                .iter()
                .map(|i| {
                    !matches!(
                        i.op.family(),
                        crate::isa::Family::EuCore | crate::isa::Family::SyncGateway
                    )
                })
                .collect()
        });
    let shared = std::sync::Mutex::new(std::mem::take(mem));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let workers = opts.workers.max(1).min(groups.len().max(1));
    let results: Vec<Result<RunStats, ExecError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| -> Result<RunStats, ExecError> {
                    let mut stats = RunStats::default();
                    let mut slm = vec![0u8; launch.slm_bytes as usize];
                    loop {
                        if failed.load(std::sync::atomic::Ordering::Relaxed) {
                            break;
                        }
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&group) = groups.get(i) else { break };
                        if let Err(e) = run_group(
                            p,
                            launch,
                            &shared,
                            &mut slm,
                            group,
                            payload,
                            opts,
                            &mut stats,
                            memory_flags.as_deref(),
                        ) {
                            failed.store(true, std::sync::atomic::Ordering::Relaxed);
                            return Err(e);
                        }
                    }
                    Ok(stats)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(ExecError::Malformed {
                        index: 0,
                        what: "a worker thread panicked".into(),
                    })
                })
            })
            .collect()
    });
    *mem = shared.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut stats = RunStats::default();
    for r in results {
        stats.add(r?);
    }
    stats.oob_reads = mem.oob_reads;
    stats.oob_writes = mem.oob_writes;
    Ok(stats)
}

/// One group: its SIMD threads round-robin between barriers; with `hold` (a flag per
/// instruction that touches memory, given where several threads share SLM) they also
/// take turns at those instructions.
#[allow(clippy::too_many_arguments)]
fn run_group(
    p: &Prepared,
    launch: &Launch,
    mem: &std::sync::Mutex<Memory>,
    slm: &mut Vec<u8>,
    group: [u32; 3],
    payload: &(dyn Fn([u32; 3], u32) -> ThreadPayload + Sync),
    opts: &RunOptions,
    stats: &mut RunStats,
    hold: Option<&[bool]>,
) -> Result<(), ExecError> {
    slm.iter_mut().for_each(|b| *b = 0);
    let gid = (group[2] as u64 * launch.grid[1] as u64 + group[1] as u64) * launch.grid[0] as u64
        + group[0] as u64;
    let mut threads: Vec<Thread> = (0..launch.threads_per_group)
        .map(|t| {
            let pl = payload(group, t);
            // The GPU path numbers threads in u32 too (`tid`).
            let tid = (gid * launch.threads_per_group as u64 + t as u64) as u32;
            Thread::new(tid, p, &pl.bytes, pl.lanes, group, launch.scratch_bytes)
        })
        .collect();
    let mut done = vec![false; threads.len()];
    let mut cx = Ctx {
        mem,
        slm,
        step_limit: opts.step_limit,
        grf_bytes: p.grf_bytes,
        trace: opts.trace,
        stop_after: opts.stop_after,
    };
    // Threads that share SLM touch memory in the order an EU's interleaving of them
    // would: by the instructions each ran since the group last met at a barrier, the
    // lower thread first on a tie (`hold` stops a thread before each memory
    // instruction; the one with the fewest instructions behind it goes). IGC's
    // work-group collectives read an SLM word after one barrier and write it again
    // before the next (a race in the vISA that hardware's interleaving decides one
    // way); running each thread up to its next barrier decided it the other way (own
    // case work_group_collectives). Threads without SLM run to their barriers.
    let mut waiting = vec![false; threads.len()];
    let mut held = vec![false; threads.len()];
    let mut since = vec![0u64; threads.len()];
    loop {
        for (t, th) in threads.iter_mut().enumerate() {
            if done[t] || waiting[t] || held[t] {
                continue;
            }
            let before = th.steps;
            let y = th.run(p, &mut cx, hold);
            since[t] += th.steps - before;
            match y? {
                Yield::Done => done[t] = true,
                Yield::Barrier => waiting[t] = true,
                Yield::Memory => held[t] = true,
                Yield::Stopped => {
                    done[t] = true;
                    stats.stopped.push(Snapshot {
                        thread: gid * launch.threads_per_group as u64 + t as u64,
                        last: th.last,
                        grf: th.grf.clone(),
                    });
                }
            }
        }
        // The held thread with the fewest instructions since the barrier goes on.
        if let Some(t) = (0..threads.len())
            .filter(|&t| held[t])
            .min_by_key(|&t| (since[t], t))
        {
            held[t] = false;
            continue;
        }
        if !waiting.contains(&true) {
            break;
        }
        // Every live thread waits at the barrier (threads that ended count as
        // arrived): the next round releases them all.
        waiting.iter_mut().for_each(|w| *w = false);
        since.iter_mut().for_each(|n| *n = 0);
    }
    stats.threads += threads.len() as u64;
    stats.instructions += threads.iter().map(|t| t.steps).sum::<u64>();
    stats.channel_ops += threads.iter().map(|t| t.chan_ops).sum::<u64>();
    Ok(())
}
