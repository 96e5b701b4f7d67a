//! Whether every invocation of a workgroup is at the same place at every meeting of a
//! straight module (`straight_rows::Rows::meet`). Then each invocation's own vote is
//! the workgroup's, and a meeting is a plain barrier: no atomics, no vote read back
//! (slm_prefix_scan on llvmpipe: 2.3-2.5 -> 1.6-1.7 times the hand kernel's kernel
//! time). It holds when
//!
//! - every channel of every thread is dispatched (the host says so: `full_lanes`), so
//!   all invocations start together; and
//! - every branch either decides alike in every invocation (its condition is
//!   *workgroup-uniform*: computed by plain ALU instructions, outside divergent code,
//!   from immediates, the payload part every thread shares and the group ids), or is
//!   a forward branch whose paths meet again at a block before any barrier, loop
//!   boundary or thread end (an `if`/`else` inside a barrier round): the rows run in
//!   program order, so all its invocations reach that block in the same pass.
//!
//! The analysis is flow-insensitive (a register is uniform when every instruction
//! writing it is) and assumes nothing it cannot see: memory, special registers,
//! per-thread payload words (local ids, r0) and indirect operands are not uniform.

use std::collections::{HashMap, HashSet};

use super::blocks::{self, Blocks};
use super::lanes::Plan;
use super::simt::Region;
use crate::interp::prepare::{Dst, PField, PInst, Prepared, Src};
use crate::isa::{Family, Opcode};

/// See the module's comment; `Err` says why not. `regions` are the straight module's
/// loops (block ranges), `shared_from` the payload offset from which every thread's
/// payload is the same.
pub(super) fn meetings_agree(
    p: &Prepared,
    plan: &Plan,
    cfg: &Blocks,
    regions: &[Region],
    shared_from: Option<u32>,
    full_lanes: bool,
) -> Result<(), String> {
    if !full_lanes {
        return Err("some thread of the launch has channels not dispatched".into());
    }
    let n = p.insts.len();
    let roots = uniform_roots(p, shared_from);
    // Bytes each thread starts with its own values in (its payload, r0, its state
    // registers): not uniform even where clean instructions write them later, as a
    // read may come first.
    let mut seeded: HashSet<u32> = HashSet::new();
    for &(goff, _, size) in &p.inputs {
        seeded.extend(goff..goff + size);
    }
    let pre = &p.pre;
    seeded.extend(pre.r0..pre.r0 + p.grf_bytes);
    seeded.extend(pre.sr0..pre.sr0 + 16);
    seeded.extend(pre.hw_id..pre.hw_id + 4);
    for t in pre.thread_xy {
        seeded.extend(t..t + 4);
    }
    let bytes = |t: &(Vec<(u32, u32)>, Vec<u32>)| -> Vec<u32> {
        t.0.iter().flat_map(|&(a, b)| a..b).collect()
    };
    let reads: Vec<Vec<u32>> = (0..n).map(|k| bytes(&plan.reads[k])).collect();
    let writes: Vec<Vec<u32>> = (0..n).map(|k| bytes(&plan.writes[k])).collect();
    let written: HashSet<u32> = writes.iter().flatten().copied().collect();
    // The writers of each predicate (a predicate is the same in every invocation when
    // one clean instruction writes every channel its readers read).
    let mut pred_writers: HashMap<u32, Vec<usize>> = HashMap::new();
    for (k, i) in p.insts.iter().enumerate() {
        for f in &i.fields {
            if let PField::Dst(Dst::Pred(id)) = f {
                pred_writers.entry(id.0 as u32).or_default().push(k);
            }
        }
    }
    let mut clean: Vec<bool> = p.insts.iter().map(plain_alu).collect();
    loop {
        // Bytes some unclean instruction writes.
        let mut mixed: HashSet<u32> = HashSet::new();
        for k in 0..n {
            if !clean[k] {
                mixed.extend(writes[k].iter().copied());
            }
        }
        let uniform = |b: &u32| {
            !mixed.contains(b)
                && (roots.contains(b) || (written.contains(b) && !seeded.contains(b)))
        };
        // A predicate is alike in every invocation when its writers are clean and one
        // computation (IGC's SIMD parts: the same instruction for other channels) and
        // together write every channel the reader reads.
        let pred_uniform = |clean: &[bool], reader: &PInst| -> bool {
            let Some(pr) = reader.pred else { return true };
            let ws = pred_writers
                .get(&(pr.id.0 as u32))
                .map_or(&[][..], |v| &v[..]);
            let Some(&first) = ws.first() else {
                return false;
            };
            let same = |w: &usize| {
                let (a, b) = (&p.insts[*w], &p.insts[first]);
                clean[*w] && a.op == b.op && a.pred.is_none() && a.fields == b.fields
            };
            let span = |e: &crate::ir::ExecSize| {
                let o = e.mask.channel_offset() as u64;
                ((1u64 << e.size as u64) - 1) << o
            };
            let covered = ws.iter().fold(0u64, |m, w| m | span(&p.insts[*w].exec));
            ws.iter().all(same) && span(&reader.exec) & !covered == 0
        };
        let mut changed = false;
        for k in 0..n {
            if clean[k] && !(reads[k].iter().all(uniform) && pred_uniform(&clean, &p.insts[k])) {
                clean[k] = false;
                changed = true;
            }
        }
        // Divergent branches: the code up to where their paths meet runs in some
        // invocations only, so what it writes is not uniform; a divergence that does
        // not meet again before a barrier or a loop's edge answers no.
        for (b, r) in cfg.ranges.iter().enumerate() {
            let last = &p.insts[r.end - 1];
            let alike = match last.op {
                _ if !blocks::ends_block(last.op) => true,
                Opcode::Barrier | Opcode::Nbarrier => true,
                Opcode::Goto | Opcode::Jmp | Opcode::Ret => pred_uniform(&clean, last),
                // The index: scalar sources every invocation computes alike.
                Opcode::Switchjmp => {
                    scalar_sources(last)
                        && reads[r.end - 1].iter().all(uniform)
                        && pred_uniform(&clean, last)
                }
                _ => false,
            };
            if alike {
                continue;
            }
            let Some(meet) = rejoins(p, cfg, regions, b) else {
                return Err(format!(
                    "block {b} ends in a branch that may divide the workgroup ({} at \
                     instruction {}) and its paths do not meet again before a barrier, a \
                     loop's edge or a return",
                    last.op.spec_name(),
                    last.index
                ));
            };
            for c in &mut clean[cfg.ranges[b + 1].start..cfg.ranges[meet].start] {
                changed |= *c;
                *c = false;
            }
        }
        if !changed {
            return Ok(());
        }
    }
}

/// GRF bytes every invocation of a workgroup starts with alike: the kernel arguments
/// the shared payload holds and the group ids.
fn uniform_roots(p: &Prepared, shared_from: Option<u32>) -> HashSet<u32> {
    let mut roots = HashSet::new();
    if let Some(from) = shared_from {
        for &(goff, poff, size) in &p.inputs {
            for i in 0..size {
                if poff + i >= from {
                    roots.insert(goff + i);
                }
            }
        }
    }
    for g in p.pre.group_id {
        roots.extend(g..g + 4);
    }
    roots
}

/// Register-to-register arithmetic, logic, moves and compares: what they write is
/// uniform when what they read is. Control flow, memory, messages, state moves and
/// indirect operands are not.
fn plain_alu(i: &PInst) -> bool {
    use Opcode::*;
    if i.op.family() != Family::EuCore
        || blocks::ends_block(i.op)
        || matches!(
            i.op,
            Label | Subroutine | Fcall | Ifcall | Faddr | Movs | Fence | Wait | Yield | Sbarrier
        )
    {
        return false;
    }
    // Destinations in the GRF or a predicate (not an address register, not indirect).
    let plain_dst = |f: &PField| match f {
        PField::Dst(d) => matches!(d, Dst::Direct { .. } | Dst::Pred(_)),
        _ => true,
    };
    scalar_sources(i) && i.fields.iter().all(plain_dst)
}

/// Every source reads one value for all channels: a direct operand whose region
/// repeats one element (`<0;w,0>`), or a scalar immediate (not a packed V/UV/VF
/// vector). Each channel then computes the same value, so the result is the same in
/// every invocation (lane) as well as in every thread.
fn scalar_sources(i: &PInst) -> bool {
    use crate::ir::DataType;
    i.fields.iter().all(|f| match f {
        PField::Src(Src::Direct { vs, hs, .. }) => *vs == 0 && *hs == 0,
        PField::Src(Src::Imm { ty, .. }) => {
            !matches!(ty, DataType::V | DataType::UV | DataType::VF)
        }
        PField::Src(_) => false,
        _ => true,
    })
}

/// Where the paths of block `b`'s divergent branch meet again: the furthest block it
/// may go to, when every block between goes only forward to at most there, none ends
/// in a barrier or a return, and no loop starts or ends between (the rows of one pass
/// then bring every invocation there); `None` otherwise.
fn rejoins(p: &Prepared, cfg: &Blocks, regions: &[Region], b: usize) -> Option<usize> {
    let succ = |j: usize| -> Option<Vec<usize>> {
        let r = &cfg.ranges[j];
        let last = &p.insts[r.end - 1];
        let mut out = vec![j + 1];
        if blocks::ends_block(last.op) {
            if !matches!(last.op, Opcode::Goto | Opcode::Jmp) {
                return None;
            }
            for t in blocks::targets(last) {
                let k = *cfg.block_of.get(t as usize)?;
                if k == u32::MAX {
                    return None;
                }
                out.push(k as usize);
            }
        }
        Some(out)
    };
    let first = succ(b)?;
    if first.iter().any(|&t| t <= b) {
        return None;
    }
    let mut meet = *first.iter().max()?;
    let mut j = b + 1;
    while j < meet {
        let s = succ(j)?;
        if s.iter().any(|&t| t <= j) {
            return None;
        }
        meet = meet.max(*s.iter().max()?);
        j += 1;
    }
    if meet >= cfg.ranges.len() {
        return None;
    }
    // No loop boundary inside (b, meet]: every loop holds both ends or neither, and
    // none starts after b up to meet.
    fn crosses(rs: &[Region], b: usize, meet: usize) -> bool {
        rs.iter().any(|r| {
            let (hb, hm) = (
                (r.start..=r.end).contains(&b),
                (r.start..=r.end).contains(&meet),
            );
            hb != hm || (r.start > b && r.start <= meet) || crosses(&r.inner, b, meet)
        })
    }
    (!crosses(regions, b, meet)).then_some(meet)
}
