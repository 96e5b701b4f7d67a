//! Run a corpus variant on the GPU path: translate the kernel to WGSL, lay the launch's
//! allocations into one heap buffer, upload every thread's payload, dispatch through
//! the `host/` driver and read the buffers back.

use crate::abi::{launch, KernelAbi};
use crate::corpus::case::Case;
use crate::corpus::paths::grf_bytes_of_device;
use crate::interp;
use crate::translate::{self, cfg, runtime_error, Target};
use std::path::Path;
use visa_emu_host::{BufferUse, ComputeJob, GpuContext, JobBuffer};

/// What one GPU run produced.
pub struct GpuRun {
    pub buffers: Vec<(String, Vec<u8>)>,
    pub instructions: u64,
    pub channel_ops: u64,
    pub oob_reads: u32,
    pub oob_writes: u32,
    pub pipeline_ms: f64,
    pub dispatch_ms: f64,
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Run a variant folder with the case's arguments on `gpu`.
pub fn run_case(
    gpu: &mut GpuContext,
    dir: &Path,
    case: &Case,
    step_limit: u32,
) -> Result<GpuRun, String> {
    let device = dir
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let grf = grf_bytes_of_device(&device);
    let abi = KernelAbi::from_bin(dir, &case.kernel, grf).map_err(|e| e.to_string())?;
    let program =
        crate::cli::load_file(&dir.join("kernel.visaasm"), grf).map_err(|e| e.to_string())?;
    let p = interp::prepare(&program, &case.kernel).map_err(|e| e.to_string())?;
    let lp = launch::prepare(&abi, case, dir).map_err(|e| e.to_string())?;
    let l = &lp.launch;
    let target = Target {
        threads_per_group: l.threads_per_group,
        slm_bytes: l.slm_bytes,
    };
    let module = translate::translate(&p, &target).map_err(|e| e.to_string())?;

    // Heap: every allocation, word-aligned, back to back.
    let allocs = lp.memory.allocations();
    let mut heap: Vec<u8> = Vec::new();
    let mut table = vec![0u32; cfg::ALLOC + 4 * allocs.len()];
    let mut heap_off = Vec::new();
    for (k, a) in allocs.iter().enumerate() {
        let off = heap.len();
        heap_off.push(off);
        heap.extend_from_slice(&a.data);
        heap.resize(heap.len().div_ceil(4) * 4, 0);
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
            }
        }
    }
    let groups = l.groups;
    let total_groups = groups[0] as u64 * groups[1] as u64 * groups[2] as u64;
    let threads = total_groups * l.threads_per_group as u64;
    // Payload: one record per thread, its last word the lane count.
    let sample = lp.payload([0, 0, 0], 0);
    let pw = sample.bytes.len().div_ceil(4) + 1;
    let mut payload = Vec::with_capacity(threads as usize * pw);
    for z in 0..groups[2] {
        for y in 0..groups[1] {
            for x in 0..groups[0] {
                for t in 0..l.threads_per_group {
                    let pl = lp.payload([x, y, z], t);
                    let mut w = words(&pl.bytes);
                    w.resize(pw - 1, 0);
                    w.push(pl.lanes);
                    payload.extend(w);
                }
            }
        }
    }
    let scratch_words = l.scratch_bytes.div_ceil(4);
    table[cfg::THREADS] = l.threads_per_group;
    table[cfg::GROUPS..cfg::GROUPS + 3].copy_from_slice(&groups);
    table[cfg::PAYLOAD_WORDS] = pw as u32;
    table[cfg::STEP_LIMIT] = step_limit;
    table[cfg::SCRATCH_WORDS] = scratch_words;
    table[cfg::NALLOC] = allocs.len() as u32;
    let heap_len = heap.len().max(4) as u64;
    let job = ComputeJob {
        key: hash(&module.wgsl),
        wgsl: module.wgsl.clone(),
        entry_point: module.entry_point.into(),
        buffers: vec![
            JobBuffer {
                size: (table.len() * 4) as u64,
                data: bytes(&table),
                usage: BufferUse::ReadOnly,
                readback: false,
            },
            JobBuffer {
                size: (payload.len() * 4).max(4) as u64,
                data: bytes(&payload),
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
            JobBuffer {
                size: 32,
                data: vec![0; 32],
                usage: BufferUse::ReadWrite,
                readback: true,
            },
        ],
        workgroups: groups,
        chunk_base_binding: Some(translate::binding::CHUNK),
    };
    let r = gpu.run(&job).map_err(|e| e.to_string())?;
    let stat = words(&r.outputs[4]);
    if stat[0] != 0 {
        let at = stat[1];
        let why = match stat[0] {
            runtime_error::STEP_LIMIT => format!(
                "watchdog: a thread ran past the step limit of {step_limit} instructions; it was spinning in the block at instruction {at}"
            ),
            runtime_error::SWITCH_RANGE => format!("instruction {at}: switchjmp index out of range"),
            runtime_error::CALL_DEPTH => format!("instruction {at}: call depth over 8"),
            c => format!("runtime error code {c} at instruction {at}"),
        };
        return Err(why);
    }
    let heap = &r.outputs[2];
    let buffers = lp
        .buffers
        .iter()
        .map(|(n, id)| {
            let off = heap_off[id.0];
            let len = allocs[id.0].data.len();
            (n.clone(), heap[off..off + len].to_vec())
        })
        .collect();
    Ok(GpuRun {
        buffers,
        instructions: stat[4] as u64 | (stat[5] as u64) << 32,
        channel_ops: stat[6] as u64 | (stat[7] as u64) << 32,
        oob_reads: stat[2],
        oob_writes: stat[3],
        pipeline_ms: r.timings.pipeline_ms,
        dispatch_ms: r.timings.dispatch_ms,
    })
}

fn hash(s: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// Run a variant on the GPU and compare every output with the case's expectation.
pub fn check_variant(gpu: &mut GpuContext, dir: &Path) -> Result<String, String> {
    let case_dir = dir.parent().ok_or("variant folder has no case folder")?;
    let case = Case::load(case_dir).map_err(|e| e.to_string())?;
    let run = run_case(gpu, dir, &case, 50_000_000)?;
    super::cpu::check_outputs(&case, &run.buffers)?;
    Ok(format!(
        "{} instructions, pipeline {:.0} ms, dispatch {:.1} ms",
        run.instructions, run.pipeline_ms, run.dispatch_ms
    ))
}
