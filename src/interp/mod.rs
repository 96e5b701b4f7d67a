//! The CPU reference interpreter: the golden model every other path is judged
//! against. It follows the spec's pseudo-code: EvaluateChEn, regions, the conversion
//! rules, min-PC reconvergence for divergent control flow, and the memory messages.
//!
//! Use: [`prepare`] a kernel once, then [`run`] a launch over a [`Memory`] with a
//! payload builder that gives each SIMD thread its initial GRF image.

pub mod alu;
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
    pub groups: [u32; 3],
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
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            step_limit: 50_000_000,
            trace: std::env::var_os("VISA_TRACE").is_some(),
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
}

/// Run every group of `launch`: groups one after the other, the SIMD threads of a group
/// interleaved at barriers so that SLM and barriers behave.
pub fn run(
    p: &Prepared,
    launch: &Launch,
    mem: &mut Memory,
    payload: &dyn Fn([u32; 3], u32) -> ThreadPayload,
    opts: &RunOptions,
) -> Result<RunStats, ExecError> {
    let mut stats = RunStats::default();
    let mut slm = vec![0u8; launch.slm_bytes as usize];
    for gz in 0..launch.groups[2] {
        for gy in 0..launch.groups[1] {
            for gx in 0..launch.groups[0] {
                let group = [gx, gy, gz];
                slm.iter_mut().for_each(|b| *b = 0);
                let mut threads: Vec<Thread> = (0..launch.threads_per_group)
                    .map(|t| {
                        let pl = payload(group, t);
                        Thread::new(t, p, &pl.bytes, pl.lanes, group, launch.scratch_bytes)
                    })
                    .collect();
                let mut done = vec![false; threads.len()];
                let mut cx = Ctx {
                    mem,
                    slm: &mut slm,
                    step_limit: opts.step_limit,
                    grf_bytes: p.grf_bytes,
                    trace: opts.trace,
                };
                loop {
                    let mut waiting = 0;
                    for (t, th) in threads.iter_mut().enumerate() {
                        if done[t] {
                            continue;
                        }
                        match th.run(p, &mut cx)? {
                            Yield::Done => done[t] = true,
                            Yield::Barrier => waiting += 1,
                        }
                    }
                    if waiting == 0 {
                        break;
                    }
                    // Every live thread waits at the barrier (threads that ended count as
                    // arrived): the next round releases them all.
                }
                stats.threads += threads.len() as u64;
                stats.instructions += threads.iter().map(|t| t.steps).sum::<u64>();
                stats.channel_ops += threads.iter().map(|t| t.chan_ops).sum::<u64>();
            }
        }
    }
    stats.oob_reads = mem.oob_reads;
    stats.oob_writes = mem.oob_writes;
    Ok(stats)
}
