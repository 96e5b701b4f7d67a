//! From an ABI, case arguments and an NDRange to what the interpreter runs: memory
//! allocations (buffers, private memory, program-scope data) bound to their BTIs, the
//! launch shape, and each SIMD thread's payload image (r0, local ids, cross-thread data).

use super::{AbiError, KernelAbi};
use crate::corpus::case::{hex_bytes, Case};
use crate::interp::{AllocId, Launch, Memory, ThreadPayload};
use std::path::Path;

/// Allocations start at 64 GiB and are 4 GiB apart, so that an address computed with
/// 32-bit arithmetic by mistake can never land in a buffer.
const BASE: u64 = 0x10_0000_0000;
const STRIDE: u64 = 0x1_0000_0000;

/// Everything needed to run one variant and read its outputs back.
pub struct Prepared {
    pub memory: Memory,
    pub launch: Launch,
    /// (argument name, allocation) of every buffer argument.
    pub buffers: Vec<(String, AllocId)>,
    payload: PayloadPlan,
}

struct PayloadPlan {
    simd: u32,
    grf_bytes: u32,
    local: [u32; 3],
    local_id_offsets: [Option<u32>; 3],
    /// The cross-thread bytes, already at their payload offsets.
    image: Vec<u8>,
}

impl Prepared {
    /// The payload of SIMD thread `t` of `group`.
    pub fn payload(&self, group: [u32; 3], t: u32) -> ThreadPayload {
        let p = &self.payload;
        let mut bytes = p.image.clone();
        let put = |b: &mut Vec<u8>, off: usize, v: &[u8]| {
            if b.len() < off + v.len() {
                b.resize(off + v.len(), 0);
            }
            b[off..off + v.len()].copy_from_slice(v);
        };
        put(&mut bytes, 4, &group[0].to_le_bytes());
        put(&mut bytes, 24, &group[1].to_le_bytes());
        put(&mut bytes, 28, &group[2].to_le_bytes());
        // r0.2 bits 7:0: the thread's index within its group. IGC for Xe-HPG reads
        // get_sub_group_id() from r0 byte 8 (corpus subgroup_reduce_scan_simd16,
        // acm-g10: `mov V0097 V0098(0,8)` with V0098 a byte view of r0).
        put(&mut bytes, 8, &[t as u8]);
        let items = p.local[0] * p.local[1] * p.local[2];
        let first = t * p.simd;
        let lanes = items.saturating_sub(first).min(p.simd);
        for lane in 0..p.simd {
            let lin = first + lane;
            let id = if lane < lanes {
                [
                    lin % p.local[0],
                    (lin / p.local[0]) % p.local[1],
                    lin / (p.local[0] * p.local[1]),
                ]
            } else {
                [0; 3]
            };
            for (off, v) in p.local_id_offsets.iter().zip(id) {
                if let Some(off) = off {
                    put(
                        &mut bytes,
                        (off + 2 * lane) as usize,
                        &(v as u16).to_le_bytes(),
                    );
                }
            }
        }
        let _ = p.grf_bytes;
        ThreadPayload { bytes, lanes }
    }
}

fn dim3(v: &[u64], fill: u64) -> [u64; 3] {
    [
        v.first().copied().unwrap_or(fill),
        v.get(1).copied().unwrap_or(fill),
        v.get(2).copied().unwrap_or(fill),
    ]
}

/// Lay out memory and payload for `case` compiled as `abi` (variant folder `dir`).
pub fn prepare(abi: &KernelAbi, case: &Case, dir: &Path) -> Result<Prepared, AbiError> {
    let nd = &case.ndrange;
    let global = dim3(&nd.global_size, 1);
    let local = dim3(&nd.local_size, 1);
    let offset = dim3(&nd.global_offset, 0);
    for d in 0..3 {
        if local[d] == 0 || !global[d].is_multiple_of(local[d]) {
            return Err(AbiError::Launch(format!(
                "global size {} is not a multiple of local size {} in dimension {d}",
                global[d], local[d]
            )));
        }
    }
    let groups = [
        (global[0] / local[0]) as u32,
        (global[1] / local[1]) as u32,
        (global[2] / local[2]) as u32,
    ];
    let items = (local[0] * local[1] * local[2]) as u32;
    let threads_per_group = items.div_ceil(abi.simd);
    let total_threads =
        threads_per_group as u64 * groups.iter().map(|g| *g as u64).product::<u64>();

    let mut memory = Memory::new();
    let mut image = vec![0u8; 0];
    let put = |img: &mut Vec<u8>, off: u32, v: &[u8]| {
        let off = off as usize;
        if img.len() < off + v.len() {
            img.resize(off + v.len(), 0);
        }
        img[off..off + v.len()].copy_from_slice(v);
    };
    let mut next_base = BASE;
    let mut buffers = Vec::new();
    let mut slm_cursor = abi.slm.inline_bytes;
    for a in &abi.args {
        let ca = case.args.iter().find(|c| c.index == a.index);
        match a.kind.as_str() {
            "buffer" => {
                let ca =
                    ca.ok_or_else(|| AbiError::Launch(format!("case has no argument {}", a.name)))?;
                let data = case
                    .input_bytes(ca)
                    .map_err(|e| AbiError::Launch(e.to_string()))?;
                let base = next_base;
                next_base += STRIDE;
                let id = memory.add(&ca.name, base, data);
                if let Some(b) = a.bti {
                    memory.bind(b, id);
                }
                if let Some(p) = &a.stateless_pointer {
                    put(
                        &mut image,
                        p.payload_offset,
                        &base.to_le_bytes()[..p.size.min(8) as usize],
                    );
                }
                buffers.push((ca.name.clone(), id));
            }
            "scalar" => {
                let ca =
                    ca.ok_or_else(|| AbiError::Launch(format!("case has no argument {}", a.name)))?;
                let bytes = ca.bytes_hex.as_deref().and_then(hex_bytes).ok_or_else(|| {
                    AbiError::Launch(format!("argument {} has no bytes_hex", a.name))
                })?;
                match &a.fragments {
                    Some(frags) => {
                        let ts = a.type_size.unwrap_or(bytes.len() as u32);
                        for f in frags {
                            let n = f.size.min(ts.saturating_sub(f.source_offset)) as usize;
                            let s = f.source_offset as usize;
                            if let Some(src) = bytes.get(s..s + n) {
                                put(&mut image, f.payload_offset, src);
                            }
                        }
                    }
                    None => {
                        if let Some(off) = a.payload_offset {
                            put(&mut image, off, &bytes);
                        }
                    }
                }
            }
            "local" => {
                let ca =
                    ca.ok_or_else(|| AbiError::Launch(format!("case has no argument {}", a.name)))?;
                let align = a.slm_alignment.unwrap_or(4).max(1);
                slm_cursor = slm_cursor.div_ceil(align) * align;
                if let Some(s) = &a.slm_offset_slot {
                    put(
                        &mut image,
                        s.payload_offset,
                        &(slm_cursor as u64).to_le_bytes()[..s.size.min(8) as usize],
                    );
                }
                slm_cursor += ca.bytes.unwrap_or(0) as u32;
            }
            _ => {}
        }
    }
    for i in &abi.implicit_args {
        let d = i.dim.unwrap_or(0) as usize;
        let v: Option<u64> = match i.kind.as_str() {
            "global_work_offset" => Some(offset[d.min(2)]),
            "local_work_size" | "enqueued_local_work_size" => Some(local[d.min(2)]),
            "global_work_size" => Some(global[d.min(2)]),
            "num_work_groups" => Some(groups[d.min(2)] as u64),
            "work_dimensions" => Some(nd.work_dim as u64),
            "private_base" => {
                let per = i.per_thread_private_size.unwrap_or(0) as u64
                    * if i.per_simt_lane.unwrap_or(false) {
                        abi.simd as u64
                    } else {
                        1
                    };
                let size = (per * total_threads).max(64);
                let base = next_base;
                next_base += STRIDE.max(size.next_power_of_two());
                let id = memory.add("private", base, vec![0; size as usize]);
                if let Some(b) = i.bti {
                    memory.bind(b, id);
                }
                Some(base)
            }
            "program_constant_surface" | "program_global_surface" => {
                let want = if i.kind == "program_constant_surface" {
                    "CONSTANT"
                } else {
                    "GLOBAL"
                };
                let inline = abi
                    .program_data
                    .iter()
                    .find(|(n, idx, _)| {
                        n.contains(want) && Some(*idx) == i.buffer_index.or(Some(0))
                    })
                    .map(|(_, _, d)| d.clone());
                let file = abi
                    .program
                    .program_patch_tokens
                    .iter()
                    .find(|t| t.name.contains(want) && t.buffer_index == i.buffer_index.or(Some(0)))
                    .and_then(|t| t.inline_data_file.clone());
                let data = match (inline, file) {
                    (Some(d), _) => d,
                    (None, Some(f)) => std::fs::read(dir.join(&f)).map_err(|e| AbiError::Io {
                        path: dir.join(f).display().to_string(),
                        source: e,
                    })?,
                    (None, None) => Vec::new(),
                };
                let base = next_base;
                next_base += STRIDE;
                let id = memory.add(&i.kind, base, data);
                if let Some(b) = i.bti {
                    memory.bind(b, id);
                }
                Some(base)
            }
            _ => None,
        };
        if let Some(v) = v {
            put(
                &mut image,
                i.payload_offset,
                &v.to_le_bytes()[..i.size.min(8) as usize],
            );
        }
    }
    let mut local_id_offsets = [None; 3];
    for l in &abi.per_thread_payload.local_ids {
        let d = match l.dim.as_str() {
            "x" => 0,
            "y" => 1,
            _ => 2,
        };
        local_id_offsets[d] = Some(l.payload_offset);
    }
    Ok(Prepared {
        memory,
        launch: Launch {
            groups,
            threads_per_group,
            slm_bytes: slm_cursor.max(64 * 1024),
            scratch_bytes: abi
                .scratch
                .as_ref()
                .map_or(0, |s| s.per_thread_scratch_bytes),
        },
        buffers,
        payload: PayloadPlan {
            simd: abi.simd,
            grf_bytes: abi.grf_bytes,
            local: [local[0] as u32, local[1] as u32, local[2] as u32],
            local_id_offsets,
            image,
        },
    })
}
