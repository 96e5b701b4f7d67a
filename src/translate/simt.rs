//! The straight mapping: one invocation per SIMD channel that follows its own
//! channel's branches, with no block scheduler, no barrier and no mirror.
//!
//! Where channels never meet, the min-PC schedule of a vISA thread only decides in
//! which order its channels run their blocks, and that order is invisible: each
//! invocation can run the blocks its channel runs, in program order, straight. The
//! kernel must be acyclic (every block runs at most once per channel, so the thread's
//! instruction count is "every block some channel ran") and the plan must show that no
//! channel reads what another wrote, through registers or memory. What every channel
//! computes alike (scalars, surface moves) runs in every invocation, which is exact
//! when each invocation computes it from the same values as the thread did: in the
//! entry blocks every dispatched channel is present, so there an instruction sees the
//! thread's execution mask (the dispatch mask); further on it must ignore the mask
//! (NoMask) and what it writes is read only in its own block, after it.
//!
//! Statistics: each invocation records the blocks it ran (a bit per block) in the
//! `state` buffer when `cfh(CFG_COUNT)` asks for it; the host ORs a thread's lanes for
//! the instruction count and sums them for the channel-instructions.

use super::lane_memory::{Conditions, Refused};
use super::lanes::{Plan, Run};
use super::straight_rows::Rows;
use super::{blocks, Emit, Module, TranslateError};
use crate::interp::prepare::{Dst, PField, PInst, Prepared, Src};
use crate::isa::Opcode;
use std::collections::HashMap;

/// Whether a kernel (with its straight plan) can run straight: the conditions its
/// launch must meet, or why it cannot. `private_base`: the payload byte offset of the
/// pointer to the work-items' private memory, whose accesses may carry owner tags
/// (`lane_memory::Owned`), as scratch accesses may.
pub fn check(
    p: &Prepared,
    plan: &Plan,
    cfg: &blocks::Blocks,
    tpg: u32,
    private_base: Option<u32>,
) -> Result<Conditions, Refused> {
    if let Some(why) = ineligible(p, plan, cfg, tpg) {
        return Err(why.into());
    }
    let block_of = block_of_each(p, cfg);
    let rounds = Rounds::of(p, cfg);
    // Blocks that end with a branch where channels may part.
    let parts: Vec<bool> = cfg
        .ranges
        .iter()
        .map(|r| {
            let last = &p.insts[r.end - 1];
            matches!(last.op, Opcode::Goto | Opcode::Jmp | Opcode::Switchjmp)
                && may_part(p, plan, last)
        })
        .collect();
    let ordered = |x: usize, y: usize| rounds.apart(block_of[x], block_of[y], &parts);
    let prefix = prefix_blocks(p, cfg);
    super::lane_memory::conditions(p, plan, &block_of, prefix, &ordered, private_base)
}

/// Why a kernel cannot run straight, memory aside (`lane_memory`).
fn ineligible(p: &Prepared, plan: &Plan, cfg: &blocks::Blocks, tpg: u32) -> Option<String> {
    use Opcode::*;
    if let Some(i) = p.insts.iter().find(|i| {
        matches!(i.op, Call | Fcall | Ifcall | Fret | Sbarrier | Nbarrier)
            || (i.op == Barrier && tpg.max(1) * p.simd > MAX_INVOCATIONS)
    }) {
        if super::exchange::synthetic(i) {
            return Some(format!(
                "channels that read each other's registers meet in one workgroup, and the \
                 group's {tpg} threads of SIMD{} are over {MAX_INVOCATIONS} invocations",
                p.simd
            ));
        }
        return Some(format!("{} at instruction {}", i.op.spec_name(), i.index));
    }
    // SLM is the group's: its threads must share one workgroup.
    if tpg > 1 && tpg * p.simd > MAX_INVOCATIONS && super::lanes::uses_slm(p) {
        return Some(format!(
            "shared local memory between {tpg} threads of SIMD{} (over {MAX_INVOCATIONS} invocations)",
            p.simd
        ));
    }
    if let Some(at) = Rounds::of(p, cfg)
        .misaligned(p, plan)
        .filter(|_| !in_order(p))
    {
        return Some(format!(
            "channels that part at instruction {at} may reach different barriers"
        ));
    }
    if let Some(why) = super::indirect_operands::refusal(p, plan) {
        return Some(why);
    }
    if plan.mirrored.iter().any(|&m| m) || plan.mirrored_preds.iter().any(|&m| m) {
        return Some(match plan.first_cross_read {
            Some(k) => format!(
                "channels read each other's registers (first at instruction {}: {})",
                p.insts[k].index,
                p.insts[k].op.spec_name()
            ),
            None => "channels read each other's registers".into(),
        });
    }
    if let Some(k) = plan.run.iter().position(|r| *r == Run::Lane0) {
        return Some(format!(
            "a store or atomic for the whole thread at instruction {}",
            p.insts[k].index
        ));
    }
    // A NoMask store writes for channels that are not running (or not dispatched).
    if let Some(k) = (0..p.insts.len())
        .find(|&k| plan.run[k] == Run::PerLane && plan.mem[k].1 && p.insts[k].exec.mask.no_mask)
    {
        return Some(format!(
            "{NOMASK_STORE} at instruction {}",
            p.insts[k].index
        ));
    }
    let prefix = prefix_blocks(p, cfg);
    // A %cr0 known at every instruction is every channel's, whatever its path.
    let cr0_known = cr0_values(p, plan, cfg, cfg.ranges[prefix - 1].end)
        .iter()
        .all(Option::is_some);
    uniform_consistency(p, plan, &block_of_each(p, cfg), prefix, cr0_known)
}

/// Why a kernel with a per-lane NoMask store is not straight (the start of the
/// message; `exchange.rs` may still run the store whole).
pub(super) const NOMASK_STORE: &str = "a NoMask store";

/// A branch where channels may part and then reach different barriers first (its
/// instruction number), which only in-order meetings allow (`in_order`).
pub(super) fn misaligned(p: &Prepared, plan: &Plan, cfg: &blocks::Blocks) -> Option<usize> {
    Rounds::of(p, cfg).misaligned(p, plan)
}

/// Whether the kernel's barriers are all meetings the straight form inserted
/// (`exchange.rs`), which may meet in program order: a meeting releases only the
/// invocations waiting at the earliest block any invocation is at, so channels that
/// parted and wait at different meetings go on one meeting at a time, the earliest
/// first, as the vISA thread runs them. Every channel a meeting passes registers
/// between then waits at it: no meeting lies in a loop, so none can come back to an
/// earlier one.
pub(super) fn in_order(p: &Prepared) -> bool {
    let mut barriers = p
        .insts
        .iter()
        .filter(|i| i.op == Opcode::Barrier)
        .peekable();
    barriers.peek().is_some() && barriers.all(super::exchange::synthetic)
}

/// The leading blocks every dispatched channel runs: until the first label, branch
/// target or control-flow instruction (the rest are cuts of long straight code).
pub fn prefix_blocks(p: &Prepared, cfg: &blocks::Blocks) -> usize {
    let targets = blocks::branch_targets(&p.insts);
    let mut n = 1;
    for w in cfg.ranges.windows(2) {
        let (prev, next) = (&w[0], &w[1]);
        let last = &p.insts[prev.end - 1];
        let first = &p.insts[next.start];
        // A meeting the straight form inserted keeps every channel (`exchange.rs`).
        if (blocks::ends_block(last.op) && !super::exchange::synthetic(last))
            || matches!(first.op, Opcode::Label | Opcode::Subroutine)
            || targets[next.start]
        {
            break;
        }
        n += 1;
    }
    n.min(cfg.ranges.len())
}

fn block_of_each(p: &Prepared, cfg: &blocks::Blocks) -> Vec<usize> {
    let mut out = vec![0; p.insts.len()];
    for (b, r) in cfg.ranges.iter().enumerate() {
        for k in r.clone() {
            out[k] = b;
        }
    }
    out
}

/// Registers, predicates, surface and address variables an instruction reads or
/// writes, as keys of the consistency check.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Byte(u32),
    Pred(u32),
    Surf(u16),
    Addr(u32),
}

fn state_keys(inst: &PInst) -> (Vec<Key>, Vec<Key>) {
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    for f in &inst.fields {
        match f {
            PField::Surface(id) | PField::Src(Src::State { id, .. }) => reads.push(Key::Surf(*id)),
            PField::Src(Src::Addr { base, .. }) => reads.push(Key::Addr(*base)),
            PField::Dst(Dst::State { id }) => writes.push(Key::Surf(*id)),
            PField::Dst(Dst::Addr { base }) => writes.push(Key::Addr(*base)),
            _ => {}
        }
    }
    (reads, writes)
}

/// What an instruction run in every invocation writes outside the entry blocks is
/// read only in its block, after it (else a channel that skipped the block would read
/// a stale copy).
fn uniform_consistency(
    p: &Prepared,
    plan: &Plan,
    block_of: &[usize],
    prefix: usize,
    cr0_known: bool,
) -> Option<String> {
    let keys_of = |k: usize| -> (Vec<Key>, Vec<Key>) {
        let (mut r, mut w) = state_keys(&p.insts[k]);
        let (gr, pr) = &plan.reads[k];
        r.extend(gr.iter().flat_map(|&(a, b)| (a..b).map(Key::Byte)));
        r.extend(pr.iter().map(|&x| Key::Pred(x)));
        // Run in every invocation, or NoMask per lane (on hardware it also writes the
        // elements of channels that are not in the block).
        if plan.run[k] != Run::PerLane || p.insts[k].exec.mask.no_mask {
            let (gw, pw) = &plan.writes[k];
            w.extend(gw.iter().flat_map(|&(a, b)| (a..b).map(Key::Byte)));
            w.extend(pw.iter().map(|&x| Key::Pred(x)));
        } else {
            w.clear();
        }
        (r, w)
    };
    // Keyed per GRF byte: FxHash (`fast_map`), SipHash was 2% of a large translation.
    let mut late: super::fast_map::FastSet<Key> = Default::default();
    for (k, &b) in block_of.iter().enumerate() {
        if b >= prefix {
            late.extend(keys_of(k).1);
        }
    }
    if cr0_known {
        for x in p.pre.cr0..p.pre.cr0 + 4 {
            late.remove(&Key::Byte(x));
        }
    }
    if late.is_empty() {
        return None;
    }
    // Per run of blocks, the keys written so far by instructions run in every
    // invocation. A block that only a cut of long code (`blocks::MAX_BLOCK_INSTS`)
    // parts from the one before runs right after it for the same channels (it is no
    // branch target, and the lowest pending block runs first), so they count as one.
    let targets = blocks::branch_targets(&p.insts);
    let mut run_of = block_of.to_vec();
    for k in 1..p.insts.len() {
        let cut = block_of[k] != block_of[k - 1]
            && !blocks::ends_block(p.insts[k - 1].op)
            && !matches!(p.insts[k].op, Opcode::Label | Opcode::Subroutine)
            && !targets[k];
        if cut || block_of[k] == block_of[k - 1] {
            run_of[k] = run_of[k - 1];
        }
    }
    let mut written: super::fast_map::FastMap<Key, usize> = Default::default();
    // Keys read outside the run of their last write, with the first such read.
    let mut loose: super::fast_map::FastMap<Key, usize> = Default::default();
    for (k, &b) in run_of.iter().enumerate() {
        let (r, w) = keys_of(k);
        for key in r {
            if late.contains(&key) && written.get(&key) != Some(&b) {
                loose.entry(key).or_insert(k);
            }
        }
        for key in w {
            written.insert(key, b);
        }
    }
    // Constants (IGC materializes float constants with `mov (M1_NM, 1) V imm` where
    // they are first needed) are exact in every copy that reads them after a write.
    let dom = super::lane_memory::dominators(p, block_of);
    // Each loose byte's writers and readers, found in one pass (a pass over the kernel
    // per byte took math_exp_log_pow's straight translation 30 ms).
    let mut touching: super::fast_map::FastMap<u32, Touching> = Default::default();
    for key in loose.keys() {
        if let Key::Byte(x) = key {
            touching.insert(*x, Touching::default());
        }
    }
    for k in 0..p.insts.len() {
        let (writes, reads) = (&plan.writes[k].0, &plan.reads[k].0);
        for (ranges, writer) in [(writes, true), (reads, false)] {
            for &(a, b) in ranges {
                for x in a..b {
                    if let Some(t) = touching.get_mut(&x) {
                        let list = if writer {
                            &mut t.writers
                        } else {
                            &mut t.readers
                        };
                        // Once per instruction, however many of its ranges hold x.
                        if list.last() != Some(&k) {
                            list.push(k);
                        }
                    }
                }
            }
        }
    }
    loose.retain(|key, _| {
        let Key::Byte(x) = *key else {
            return true;
        };
        !constant_key(p, plan, block_of, prefix, &dom, x, &touching[&x])
    });
    let first = loose.values().min().copied()?;
    parting_branch(p, plan, block_of, &loose).map(|at| {
        format!(
            "instruction {} reads what a scalar instruction of another block writes, and the channels may part at instruction {at}",
            p.insts[first].index
        )
    })
}

/// The third way a copy of a scalar written outside the entry blocks stays exact: it
/// holds a constant. Every write of the byte `x` (its writers and readers: `touching`)
/// is a NoMask scalar `mov`, without modifiers, of an immediate of the destination's
/// own type or of a scalar that only the entry blocks write (a kernel input, a
/// pre-defined variable, an address IGC
/// computes in its prologue), of the same type or both integers of one size; all give
/// it one value (the same immediate byte or the same source byte), and every read of it
/// comes after a write in its block or in a block such a write dominates: every channel
/// that reads it wrote that value first, and nothing writes another.
fn constant_key(
    p: &Prepared,
    plan: &Plan,
    block_of: &[usize],
    prefix: usize,
    dom: &[Vec<bool>],
    x: u32,
    touching: &Touching,
) -> bool {
    // Bytes `[a, b)` no instruction writes after the entry blocks, which every channel
    // runs alike: the same in every lane's copy (a per-lane write that a scalar read
    // meets is another channel's register, which the plan mirrors: not straight).
    let settled = |a: u32, b: u32| {
        (0..p.insts.len())
            .filter(|&k| block_of[k] >= prefix)
            .all(|k| plan.writes[k].0.iter().all(|&(wa, wb)| wb <= a || b <= wa))
    };
    /// A byte's value: an immediate's byte or the byte at a GRF offset.
    #[derive(Clone, Copy, PartialEq)]
    enum Value {
        Imm(u64),
        Grf(u32),
    }
    let mut value = None;
    let mut writers = Vec::new();
    for &k in &touching.writers {
        let inst = &p.insts[k];
        let (dsts, srcs, _) = inst.alu_operands();
        let scalar_mov = inst.op == Opcode::Mov
            && inst.exec.size == 1
            && inst.exec.mask.no_mask
            && inst.pred.is_none();
        let byte = match (dsts.as_slice(), srcs.as_slice()) {
            (
                [Dst::Direct {
                    off,
                    ty,
                    sat: false,
                    ..
                }],
                [src],
            ) if scalar_mov && *off <= x && x < off + ty.size() => match src {
                Src::Imm { ty: it, bits } if it == ty && !ty.is_packed() => {
                    Value::Imm((bits >> (8 * (x - off))) & 0xff)
                }
                Src::Direct {
                    off: so,
                    ty: st,
                    m: crate::ir::Modifier::None,
                    ..
                } if (st == ty || (st.is_int() && ty.is_int()))
                    && st.size() == ty.size()
                    && !ty.is_packed()
                    && settled(*so, so + st.size()) =>
                {
                    Value::Grf(so + (x - off))
                }
                _ => return false,
            },
            _ => return false,
        };
        if value.is_some_and(|v| v != byte) {
            return false;
        }
        value = Some(byte);
        writers.push(k);
    }
    let written_before = |r: usize| {
        writers.iter().any(|&w| {
            let (bw, br) = (block_of[w], block_of[r]);
            if bw == br {
                w < r
            } else {
                dom[br][bw]
            }
        })
    };
    !writers.is_empty() && touching.readers.iter().all(|&r| written_before(r))
}

/// The instructions that write a GRF byte and those that read it, in order.
#[derive(Default)]
struct Touching {
    writers: Vec<usize>,
    readers: Vec<usize>,
}

/// The second way a copy of a scalar written outside the entry blocks stays exact:
/// every invocation runs the same writes of it as the thread, in the same order, from
/// the same values, wherever it reads it (a loop counter that IGC keeps in one NoMask
/// register, as mandelbrot's; the counter of a subroutine's loop, written out once per
/// call site by `inline_calls`). Channels part only at a branch whose condition may
/// differ between them (`may_part`); there, for each such key, where a way may write it
/// before the ways meet again (the immediate post-dominator `J`):
/// - nothing reads it from `J` on before writing it whole again (the channels of each
///   way leave with their own way's value, the thread with the last one run);
/// - where more than one way touches it, the ways' blocks before `J` lie in disjoint
///   ranges, so the thread runs one way's blocks after the other's (the lowest pending
///   block runs first), and every way but the first writes it whole before it reads it
///   (its channels still hold the value from before the branch).
///
/// A whole write is unpredicated, NoMask and does not read the key. Returns the vISA
/// index of a branch where that fails.
fn parting_branch(
    p: &Prepared,
    plan: &Plan,
    block_of: &[usize],
    keys: &super::fast_map::FastMap<Key, usize>,
) -> Option<usize> {
    let nb = block_of.last().map_or(0, |&b| b + 1);
    let succ = successors(p, block_of, nb);
    let ipdom = immediate_post_dominators(&succ);
    let branches: Vec<usize> = (0..p.insts.len())
        .filter(|&k| {
            use Opcode::*;
            let inst = &p.insts[k];
            matches!(inst.op, Goto | Jmp | Switchjmp) && may_part(p, plan, inst)
        })
        .collect();
    if branches.is_empty() {
        return None;
    }
    // Each instruction's keys: (read, written, written whole).
    let access: Vec<(Vec<Key>, Vec<Key>, bool)> = (0..p.insts.len())
        .map(|k| {
            let inst = &p.insts[k];
            let (mut r, mut w) = state_keys(inst);
            let (gr, pr) = &plan.reads[k];
            let (gw, pw) = &plan.writes[k];
            r.extend(gr.iter().flat_map(|&(a, b)| (a..b).map(Key::Byte)));
            r.extend(pr.iter().map(|&x| Key::Pred(x)));
            w.extend(gw.iter().flat_map(|&(a, b)| (a..b).map(Key::Byte)));
            w.extend(pw.iter().map(|&x| Key::Pred(x)));
            let whole = inst.pred.is_none() && inst.exec.mask.no_mask;
            (r, w, whole)
        })
        .collect();
    // Blocks reachable from `from` before `stop`.
    let region = |from: usize, stop: Option<usize>| -> Vec<bool> {
        let mut seen = vec![false; nb];
        let mut stack = vec![from];
        while let Some(b) = stack.pop() {
            if Some(b) == stop || std::mem::replace(&mut seen[b], true) {
                continue;
            }
            stack.extend(succ[b].iter().copied());
        }
        seen
    };
    // Each parting branch with where its ways meet again and the blocks each way
    // reaches before that.
    struct Parting {
        at: usize,
        join: Option<usize>,
        /// Each way's first block and the blocks it reaches before `join`.
        ways: Vec<(usize, Vec<bool>)>,
    }
    let parts: Vec<Parting> = branches
        .iter()
        .map(|&at| {
            let b = block_of[at];
            let join = ipdom[b];
            let ways = succ[b].iter().map(|&w| (w, region(w, join))).collect();
            Parting { at, join, ways }
        })
        .collect();
    let mut first_fail: Option<usize> = None;
    let mut sorted: Vec<&Key> = keys.keys().collect();
    sorted.sort_unstable_by_key(|k| match k {
        Key::Byte(x) => (0, *x),
        Key::Pred(x) => (1, *x),
        Key::Surf(x) => (2, *x as u32),
        Key::Addr(x) => (3, *x),
    });
    for key in sorted {
        let mut touches = vec![false; nb];
        let mut writes = vec![false; nb];
        // Per block: the first access reads the key (gen) or writes it whole (kill).
        let mut first: Vec<Option<bool>> = vec![None; nb];
        for (k, (r, w, whole)) in access.iter().enumerate() {
            let b = block_of[k];
            let reads = r.contains(key);
            let writes_it = w.contains(key);
            if reads || writes_it {
                touches[b] = true;
            }
            if writes_it {
                writes[b] = true;
            }
            if first[b].is_none() {
                if reads {
                    first[b] = Some(true);
                } else if writes_it && *whole {
                    first[b] = Some(false);
                }
            }
        }
        if !writes.iter().any(|&w| w) {
            continue;
        }
        // Live on entry: read before any whole write, here or further on.
        let mut live: Vec<bool> = first.iter().map(|f| *f == Some(true)).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..nb).rev() {
                if live[b] || first[b] == Some(false) {
                    continue;
                }
                if succ[b].iter().any(|&s| live[s]) {
                    live[b] = true;
                    changed = true;
                }
            }
        }
        for part in &parts {
            let (k, join, ways) = (part.at, part.join, &part.ways);
            let hits =
                |reach: &[bool], marks: &[bool]| reach.iter().zip(marks).any(|(a, b)| *a && *b);
            if !ways.iter().any(|(_, r)| hits(r, &writes)) {
                continue;
            }
            let mut ok = join.is_none_or(|j| !live[j]);
            let mut touching: Vec<(usize, usize, usize)> = ways
                .iter()
                .filter(|(_, r)| hits(r, &touches))
                .map(|(w, r)| {
                    let lo = r.iter().position(|&x| x).unwrap_or(0);
                    let hi = r.iter().rposition(|&x| x).unwrap_or(0);
                    (lo, hi, *w)
                })
                .collect();
            if touching.len() > 1 {
                ok &= join.is_some();
                touching.sort_unstable();
                ok &= touching.windows(2).all(|t| t[0].1 < t[1].0);
                ok &= touching[1..].iter().all(|&(_, _, w)| !live[w]);
            }
            if !ok {
                first_fail = Some(first_fail.map_or(k, |f| f.min(k)));
            }
        }
    }
    first_fail.map(|k| p.insts[k].index)
}

/// Each block's immediate post-dominator (`None`: only the kernel's end), over the
/// successors `succ` (a block without successors leads to the end). Post-dominator
/// sets are the greatest fixed point; the immediate one is the strict post-dominator
/// that the others post-dominate.
fn immediate_post_dominators(succ: &[Vec<usize>]) -> Vec<Option<usize>> {
    let nb = succ.len();
    let mut pdom = vec![vec![true; nb]; nb];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..nb).rev() {
            let mut d = vec![!succ[b].is_empty(); nb];
            for &s in &succ[b] {
                for (x, y) in d.iter_mut().zip(&pdom[s]) {
                    *x = *x && *y;
                }
            }
            d[b] = true;
            if d != pdom[b] {
                pdom[b] = d;
                changed = true;
            }
        }
    }
    (0..nb)
        .map(|b| {
            let strict: Vec<usize> = (0..nb).filter(|&j| j != b && pdom[b][j]).collect();
            // The nearest: post-dominated by every other strict post-dominator.
            strict
                .iter()
                .copied()
                .find(|&j| strict.iter().all(|&o| o == j || pdom[j][o]))
        })
        .collect()
}

/// Whether channels may take different ways at a branch: a per-channel condition that
/// is not one value for every channel. A scalar branch (exec size 1) reads channel 0's
/// predicate bit, which every copy holds alike (else the plan mirrors it); a predicate
/// written only by NoMask compares of the same scalars, which together cover the whole
/// SIMD width (IGC's SIMD32 halves), is one value.
fn may_part(p: &Prepared, plan: &Plan, inst: &PInst) -> bool {
    if inst.op == Opcode::Switchjmp {
        return true;
    }
    let Some(pred) = inst.pred.filter(|_| inst.exec.size > 1) else {
        return false;
    };
    let id = pred.id.0 as u32;
    let writers: Vec<&PInst> = p
        .insts
        .iter()
        .enumerate()
        .filter(|(w, _)| plan.writes[*w].1.contains(&id))
        .map(|(_, wi)| wi)
        .collect();
    let scalar_compare = |wi: &PInst| {
        wi.op == Opcode::Cmp
            && wi.pred.is_none()
            && wi.exec.mask.no_mask
            && wi.alu_operands().1.iter().all(|s| match s {
                Src::Imm { .. } => true,
                s => super::lanes::src_linear(s, wi.exec.size as u32)
                    .is_some_and(|(_, stride)| stride == 0),
            })
    };
    // The compare itself: relation, sources and types (the destination is `id`).
    let what = |wi: &PInst| {
        let (_, srcs, ints) = wi.alu_operands();
        format!("{srcs:?} {ints:?}")
    };
    let mut covered = 0u64;
    for wi in &writers {
        let off = wi.exec.mask.channel_offset();
        covered |= ((1u64 << wi.exec.size as u32) - 1) << off;
    }
    let full = (1u64 << p.simd.min(32)) - 1;
    !(writers.iter().all(|wi| scalar_compare(wi))
        && writers.iter().all(|wi| what(wi) == what(writers[0]))
        && covered & full == full)
}

/// Where the registers of the GRF scalars are declared (`scalar_slots`).
const SLOTS_MARK: &str = "// (GRF scalars in registers)";

/// Translate a kernel the straight way ([`check`] gave `launch`), with the meetings
/// that pass registers between its lanes (`exchange.rs`), if any.
#[allow(clippy::too_many_arguments)]
pub(super) fn translate(
    p: &Prepared,
    tpg: u32,
    header: Emit,
    consts: HashMap<String, u64>,
    plan: &Plan,
    launch: Conditions,
    target: &super::Target,
    exchanges: Option<&super::exchange::Exchanges>,
) -> Result<Module, TranslateError> {
    let mut launch = launch;
    if !target.prove_bounds {
        launch.bti_bounds.clear();
        launch.bti_proven.clear();
    }
    let shared_from = target.shared_payload_from;
    let cfg_blocks = blocks::split(&p.insts);
    let prefix = prefix_blocks(p, &cfg_blocks);
    let nblocks = cfg_blocks.ranges.len();
    // With loops a block may run many times: each invocation counts its channel's
    // instructions (one word) instead of marking the blocks it ran.
    let cyclic = !blocks::acyclic(&p.insts);
    let barriers = p.insts.iter().any(|i| i.op == Opcode::Barrier);
    let own_loops = loop_regions(p, &cfg_blocks);
    // Inserted meetings only: each meeting releases the earliest waiting (`in_order`)
    // and votes for it.
    let ordered = in_order(p) && Rounds::of(p, &cfg_blocks).misaligned(p, plan).is_some();
    // With barriers every row sits in a loop whose passes the workgroup takes
    // together (see `Rows::emit_loop`): the whole kernel is the outermost.
    let whole_kernel =
        own_loops.len() == 1 && own_loops[0].start == 0 && own_loops[0].end + 1 == nblocks;
    let wrapped = if whole_kernel {
        own_loops.clone()
    } else {
        vec![Region {
            start: 0,
            end: nblocks - 1,
            inner: own_loops.clone(),
        }]
    };
    // Meetings without a vote where the whole workgroup provably arrives together.
    let agreed = barriers
        && !ordered
        && super::wg_uniform::meetings_agree(
            p,
            plan,
            &cfg_blocks,
            &wrapped,
            shared_from,
            target.full_lanes,
        )
        .is_ok();
    // Otherwise, the meetings the workgroup still provably reaches together.
    let plain = if barriers && !agreed && !ordered {
        super::plain_meetings::plain_barriers(p, &cfg_blocks, &own_loops, target.full_lanes)
    } else {
        Default::default()
    };
    // Where every meeting releases its invocations in the pass that brought them
    // there, the rows run once: no loop around the whole kernel, whose values llvmpipe
    // then keeps across every barrier of every pass (dot_product_reduce over 8,192
    // items: 1.6 -> 0.7 GPU ms, against the hand kernel's 0.6). Where the workgroup
    // agrees, a loop around a barrier meets inside itself and takes its passes in
    // place, and the invocation's own vote releases it.
    let single_pass =
        plain.single_pass || (agreed && super::plain_meetings::released_in_pass(p, &cfg_blocks));
    let regions = if barriers && !single_pass {
        wrapped
    } else {
        own_loops
    };
    let plain = plain.barriers;
    let visit_words = if cyclic {
        1
    } else {
        nblocks.div_ceil(32).max(1) as u32
    };
    let mut em = header;
    em.straight = true;
    em.line("var<private> lane: u32;");
    // Where the invocation starts (IDLE: a channel the thread was not dispatched).
    em.line("var<private> lane_pc: u32;");
    // Loop back-edges charged so far (loops' passes), against the budget.
    em.line("var<private> lane_edges: u32;");
    em.line("var<private> step_limit: u32;");
    em.line("var<private> edge_budget: u32;");
    if barriers {
        if agreed {
            // Agreeing meetings' step bound (`straight_rows::Rows::emit_loop`).
            em.line("var<private> wg_steps: u32;");
        } else {
            // The meetings' words (`straight_rows::Rows::meet`), used in turn.
            em.line("var<workgroup> st_live: array<atomic<u32>, 3>;");
            if ordered {
                em.line("var<workgroup> st_first: array<atomic<u32>, 3>;");
            }
            em.line("var<private> meet_k: u32;");
        }
        // `pc` of an invocation that waits at a barrier: its next block plus HELD.
        em.line("const HELD: u32 = 0x80000000u;");
    }
    let mut consts = consts;
    consts.insert("K_VISIT_WORDS".into(), visit_words as u64);
    em.declare_lane_registers(&plan.promoted);
    em.lane_ar = super::indirect_operands::lane_held(p, plan);
    em.row_arrays = super::indirect_operands::RowArrays::of(plan);
    if em.lane_ar {
        em.line(&format!(
            "var<private> al: array<u32, {}u>;",
            p.addr_total + super::operand::AL_SHIFT
        ));
    }
    em.line(&format!("const K_VISIT_WORDS: u32 = {visit_words}u;"));
    // One private per word, not an array: the final loop's dynamic index kept the
    // array in memory, and llvmpipe took longer to create matmul_tiled16's pipeline
    // with it (six alternating rounds, 60-80 -> 40-68 ms).
    for w in 0..visit_words {
        em.line(&format!("var<private> {}: u32;", visited_word(w)));
    }
    em.line("");
    // GRF scalars in registers: their declarations go here once the rewrite at the
    // end knows which slots it moved.
    let mut slots = super::scalar_slots::candidates(p, plan);
    // Words the lanes' meetings write into the image stay in it (`exchange.rs`).
    if let Some(xs) = exchanges {
        let passed = xs.words_written();
        slots.retain(|&(a, e)| {
            !(a / 4..(a + e).div_ceil(4)).any(|w| passed.binary_search(&w).is_ok())
        });
    }
    let mut singles = vec![false; p.layout.total.div_ceil(4) as usize];
    for &(a, e) in &slots {
        for w in a / 4..(a + e).div_ceil(4) {
            singles[w as usize] = true;
        }
    }
    em.line(SLOTS_MARK);
    super::emit_init(
        &mut em,
        p,
        shared_from,
        Some(&plan.image_reads()),
        false,
        &singles,
        target.full_lanes,
    );
    // Promoted inputs: each invocation loads its channel's element of the payload.
    em.open("fn load_lane_inputs()");
    for &(base, e, poff) in &plan.promoted_inputs {
        let r = super::lanes::register(base);
        em.line(&format!("{r} = {};", lane_input(poff, e, target.local_ids)));
    }
    em.close();
    let cr0_at = cr0_values(p, plan, &cfg_blocks, cfg_blocks.ranges[prefix - 1].end);
    let nan_blind = super::nan_blind::blind_results(p, plan);
    em.open("fn run_lane(dm: u32) -> u32");
    em.line("let lem = 1u << lane;");
    em.line("var pc = lane_pc;");
    if agreed {
        em.line(&format!("wg_steps = {}u;", p.insts.len()));
    }
    let mut rows = Rows {
        agreed,
        plain,
        p,
        plan,
        cfg: &cfg_blocks,
        prefix,
        cr0_at: &cr0_at,
        nan_blind: &nan_blind,
        flat_unplaced: &launch.flat_unplaced,
        flat_placed: &launch.flat_placed,
        flat_proven: &launch.flat_proven,
        owned_at: &launch.owned_at,
        bti_proven: &launch.bti_proven,
        cyclic,
        passes: Vec::new(),
        guards: Vec::new(),
        depth: 0,
        exchanges,
        in_order: ordered,
        functions: Vec::new(),
    };
    rows.emit(&mut em, 0, nblocks, &regions, None)?;
    let passes = rows.passes;
    em.line("return 0u;");
    em.close();
    for f in &rows.functions {
        em.out.push_str(f);
    }
    if cyclic || barriers {
        emit_block_starts(&mut em, p, &cfg_blocks);
    }
    // With barriers the whole group shares one workgroup (its SLM, its barriers).
    let tpw = if barriers || super::lanes::uses_slm(p) {
        tpg.max(1)
    } else {
        threads_per_workgroup(p.simd, tpg)
    };
    em.out = own_lane_psets(&em.out, &plan.own_preds);
    em.out = em.row_arrays.apply(&em.out);
    let moved = super::scalar_slots::apply(&em.out, &slots);
    em.out = moved.text.replacen(
        SLOTS_MARK,
        &super::scalar_slots::declarations(&moved.kept),
        1,
    );
    if em.lane_ar {
        em.out = super::indirect_operands::held_address_scalars(&em.out);
    }
    let split = p.insts.len() > BARRIER_FROM_INSTS && moved.uses_image;
    if let Some(xs) = exchanges {
        em.out.push_str(&xs.declarations(tpw));
    }
    emit_main(
        &mut em,
        p.simd,
        tpg,
        tpw,
        split,
        barriers,
        cyclic,
        visit_words,
        !launch.owned_at.is_empty(),
    );
    if exchanges.is_some() {
        // Each thread's slot of the meetings' buffers.
        em.out = em.out.replacen(
            "    lane = l;\n",
            "    lane = l;\n    xslot = li / K_SIMD;\n",
            1,
        );
    }
    let costs = super::budget::Costs::of_functions(
        &format!("{}\n{}", super::cost_runtime(&em.out), em.out),
        &consts,
    );
    let whole = costs
        .block(&em.out[em.out.find("fn run_lane").unwrap_or(0)..])
        .map_err(TranslateError::Budget)?
        + costs.function("init").map_err(TranslateError::Budget)?
        + 64;
    // Everything once (every loop's first pass included), then each further pass of a
    // loop what its rows cost (barrier rounds are passes of the loops around them).
    em.line(&format!("const K_FIXED_COST: u32 = {whole}u;"));
    for (head, text) in &passes {
        let cost = costs.block(text).map_err(TranslateError::Budget)? + 2;
        em.line(&format!("const K_PASS_COST_{head}: u32 = {cost}u;"));
    }
    let mut wgsl = super::runtime_for(&em.out);
    wgsl.push_str(PAYLOAD_ELEM);
    wgsl.push_str("\n// ---- kernel ----\n");
    wgsl.push_str(&em.out);
    // An image over what drivers compile, or a large one the code reaches only at
    // known words: only the rows the code reaches (`grf_rows.rs`).
    let grf_words = consts.get("K_GRF_WORDS").copied().unwrap_or(0) as u32;
    let mut image_words = None;
    if moved.uses_image && grf_words > super::grf_rows::COMPACT_FROM_WORDS {
        // The GRF folds first (`driver_folds`): their literal words then go
        // straight to their compact places, not through `gw` at every call.
        let folded = super::driver_folds::for_driver(&wgsl);
        let compact = super::grf_rows::rows(plan, &moved.kept, grf_words)
            .and_then(|rows| Some((super::grf_rows::apply(&folded, &rows)?, rows.words)));
        if let Some((text, words)) = compact {
            if grf_words > super::PRIVATE_GRF_WORDS_MAX || super::grf_rows::worth_it(&text) {
                wgsl = text;
                image_words = Some(words);
            }
        }
    }
    Ok(Module {
        wgsl,
        entry_point: "main",
        workgroup_size: p.simd * tpw,
        blocks: nblocks,
        max_block_cost: whole,
        state_cost: 0,
        unsliced_cost: Some(whole),
        state_words: 0,
        slm_words: 1,
        block_starts: cfg_blocks
            .ranges
            .iter()
            .map(|r| p.insts[r.start].index)
            .collect(),
        lanes: true,
        why_not_lanes: None,
        state_grf_offset: 0,
        straight: Some(Straight {
            image_words,
            visit_words,
            block_lens: cfg_blocks
                .ranges
                .iter()
                .map(|r| super::exchange::counted(p, r) as u32)
                .collect(),
            launch,
            threads_per_workgroup: tpw,
            cyclic,
            nan_blind: nan_blind
                .iter()
                .zip(&p.insts)
                .filter(|(&b, _)| b)
                .map(|(_, i)| i.index)
                .collect(),
        }),
        why_not_straight: None,
        table: Vec::new(),
        shapes: None,
        grf_in_state: false,
    })
}

/// Writes of predicates that only their own lanes' bits carry (`Plan::own_preds`) as
/// `pown`: the word all ones or zero instead of one bit set or cleared (an invocation
/// is one channel, so no other bit of its copy is ever read).
fn own_lane_psets(text: &str, own: &[bool]) -> String {
    // One pass: a replace per predicate copied the module each time (math_exp_log_pow:
    // 109 predicates over 0.6 MB, 15 ms).
    const SET: &str = "pset(";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(k) = rest.find(SET) {
        let after = &rest[k + SET.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let owned = after[digits..].starts_with("u, ")
            && (after[..digits].parse::<usize>()).is_ok_and(|pid| own.get(pid) == Some(&true));
        out.push_str(&rest[..k]);
        out.push_str(if owned { "pown(" } else { SET });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// What the host needs of a straight module to count instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Straight {
    /// Words of the compact GRF image (`grf_rows.rs`), where the whole one is over
    /// `PRIVATE_GRF_WORDS_MAX`.
    pub image_words: Option<u32>,
    /// Words of visited-block bits per invocation in the `state` buffer.
    pub visit_words: u32,
    /// Instructions of each block.
    pub block_lens: Vec<u32>,
    /// What the launch must satisfy (the host checks it before it runs the module).
    pub launch: super::lane_memory::Conditions,
    /// vISA threads per workgroup ([`threads_per_workgroup`]).
    pub threads_per_workgroup: u32,
    /// The kernel has loops: each invocation records its channel's instruction count
    /// (one word) rather than the blocks it ran, and a thread's instructions cannot be
    /// told from its channels' (the channel-instructions can).
    pub cyclic: bool,
    /// Kernel instructions (body indices) whose float results keep the adapter's NaN
    /// bits: only arithmetic and compares read them (`nan_blind`).
    pub nan_blind: Vec<usize>,
}

impl Straight {
    /// `(instructions, channel-instructions)` of the visited-block words of a run
    /// (`simd` invocations per thread, `threads` threads).
    pub fn count(&self, words: &[u32], simd: u32, threads: u64) -> (Option<u64>, u64) {
        if self.cyclic {
            let n = (threads * simd as u64) as usize;
            let chans = words.iter().take(n).map(|&w| w as u64).sum();
            return (None, chans);
        }
        let vw = self.visit_words as usize;
        let len_of = |bits: u32, w: usize| -> u64 {
            (0..32)
                .filter(|i| bits & (1 << i) != 0)
                .map(|i| self.block_lens.get(w * 32 + i).copied().unwrap_or(0) as u64)
                .sum()
        };
        let (mut insts, mut chans) = (0u64, 0u64);
        for t in 0..threads as usize {
            for w in 0..vw {
                let mut any = 0u32;
                for l in 0..simd as usize {
                    let bits = words
                        .get((t * simd as usize + l) * vw + w)
                        .copied()
                        .unwrap_or(0);
                    any |= bits;
                    chans += len_of(bits, w);
                }
                insts += len_of(any, w);
            }
        }
        (Some(insts), chans)
    }
}

/// The value %cr0 holds before each instruction, where it is known: the launch starts
/// it at 0 (`init` leaves it so), and IGC sets its float-mode bits once, in the entry
/// blocks, with a NoMask `or` / `and` / `xor` / `mov` of immediates (`or (M1_NM, 1)
/// %cr0 %cr0 0x4c0`), and may toggle the rounding mode around a conversion further on
/// (`xor ... 0x30` twice). The value flows over the blocks (a NoMask write runs
/// whenever its block runs, for every channel alike); where two paths bring different
/// values, or a write is of another form, it is unknown. Kernels with subroutine
/// calls know it only where nothing after the entry blocks (`prefix_end`: the first
/// instruction after them) writes it.
pub(super) fn cr0_values(
    p: &Prepared,
    plan: &Plan,
    cfg: &blocks::Blocks,
    prefix_end: usize,
) -> Vec<Option<u32>> {
    use Opcode::*;
    let cr0 = p.pre.cr0;
    // An indirect destination writes inside its traced variable (the run-time check
    // holds it there), else it may write anything.
    let writes = |k: usize| {
        let indirect = p.insts[k]
            .fields
            .iter()
            .any(|f| matches!(f, PField::Dst(Dst::Indirect { .. })));
        let inside = match plan.indirect[k] {
            super::indirect_operands::Target::Known(lo, hi) => hi <= cr0 || cr0 + 4 <= lo,
            _ => false,
        };
        plan.writes[k]
            .0
            .iter()
            .any(|&(a, b)| a < cr0 + 4 && cr0 < b)
            || (indirect && !inside)
    };
    let n = p.insts.len();
    let step = |k: usize, v: Option<u32>| {
        if writes(k) {
            v.and_then(|cur| cr0_write(&p.insts[k], cr0, cur))
        } else {
            v
        }
    };
    if !(prefix_end..n).any(writes) {
        let mut out = Vec::with_capacity(n);
        let mut v = Some(0u32);
        for k in 0..n {
            out.push(v);
            v = step(k, v);
        }
        return out;
    }
    if p.insts
        .iter()
        .any(|i| matches!(i.op, Call | Fcall | Ifcall | Fret))
    {
        return vec![None; n];
    }
    // Entry values per block: None = not reached (yet), Some(None) = unknown.
    let nb = cfg.ranges.len();
    let block_at = |k: usize| cfg.ranges.iter().position(|r| r.contains(&k));
    let mut entry: Vec<Option<Option<u32>>> = vec![None; nb];
    if nb > 0 {
        entry[0] = Some(Some(0));
    }
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..nb {
            let Some(mut v) = entry[b] else { continue };
            let range = cfg.ranges[b].clone();
            for k in range.clone() {
                v = step(k, v);
            }
            // Successors: the next block always (conservative) and branch targets.
            let mut succ: Vec<usize> = block_at(range.end).into_iter().collect();
            for t in blocks::targets(&p.insts[range.end - 1]) {
                succ.extend(block_at(t as usize));
            }
            for s in succ {
                let merged = match entry[s] {
                    None => Some(v),
                    Some(x) if x == v => Some(x),
                    Some(_) => Some(None),
                };
                if merged != entry[s] {
                    entry[s] = merged;
                    changed = true;
                }
            }
        }
    }
    let mut out = vec![None; n];
    for (b, r) in cfg.ranges.iter().enumerate() {
        let mut v = entry[b].flatten();
        for k in r.clone() {
            out[k] = v;
            v = step(k, v);
        }
    }
    out
}

/// The value a NoMask scalar write of %cr0 from itself and immediates leaves.
pub(super) fn cr0_write(inst: &PInst, cr0: u32, cur: u32) -> Option<u32> {
    use Opcode::*;
    if inst.exec.size != 1 || !inst.exec.mask.no_mask || inst.pred.is_some() {
        return None;
    }
    let (dsts, srcs, _) = inst.alu_operands();
    match dsts.as_slice() {
        [Dst::Direct {
            off,
            ty,
            sat: false,
            ..
        }] if *off == cr0 && ty.size() == 4 => {}
        _ => return None,
    }
    let vals: Vec<u32> = srcs
        .iter()
        .map(|s| match s {
            Src::Imm { bits, ty } if ty.size() == 4 => Some(*bits as u32),
            Src::Direct {
                off,
                ty,
                m: crate::ir::Modifier::None,
                ..
            } if *off == cr0 && ty.size() == 4 => Some(cur),
            _ => None,
        })
        .collect::<Option<_>>()?;
    match (inst.op, vals.as_slice()) {
        (Mov, [a]) => Some(*a),
        (Or, [a, b]) => Some(a | b),
        (And, [a, b]) => Some(a & b),
        (Xor, [a, b]) => Some(a ^ b),
        _ => None,
    }
}

/// The rounds of a straight kernel with barriers: an invocation runs until its next
/// barrier, every invocation of the workgroup (the whole group) meets there, and the
/// next round starts after it. A round starts at the entry or after a barrier block
/// (a barrier ends its block).
struct Rounds {
    /// Blocks each round start reaches without passing a barrier.
    reach: Vec<Vec<bool>>,
    /// Per block: it ends with a barrier.
    barrier: Vec<bool>,
    succ: Vec<Vec<usize>>,
    block_of: Vec<usize>,
    /// `reach_from(b).0` per block, as `apart` needs them.
    from: std::cell::RefCell<Vec<Option<Vec<bool>>>>,
}

impl Rounds {
    fn of(p: &Prepared, cfg: &blocks::Blocks) -> Rounds {
        let block_of = block_of_each(p, cfg);
        let nb = cfg.ranges.len();
        let succ = successors(p, &block_of, nb);
        let barrier: Vec<bool> = cfg
            .ranges
            .iter()
            .map(|r| p.insts[r.end - 1].op == Opcode::Barrier)
            .collect();
        let mut starts = vec![0];
        starts.extend((0..nb).filter(|&b| barrier[b] && b + 1 < nb).map(|b| b + 1));
        let mut out = Rounds {
            reach: Vec::new(),
            barrier,
            succ,
            block_of,
            from: Default::default(),
        };
        out.reach = starts.iter().map(|&s| out.reach_from(s).0).collect();
        out
    }

    /// Blocks reachable from `start` without passing a barrier, and the barrier blocks
    /// met first.
    fn reach_from(&self, start: usize) -> (Vec<bool>, Vec<usize>) {
        let mut seen = vec![false; self.barrier.len()];
        let mut first = Vec::new();
        let mut stack = vec![start];
        while let Some(b) = stack.pop() {
            if std::mem::replace(&mut seen[b], true) {
                continue;
            }
            if self.barrier[b] {
                first.push(b);
                continue;
            }
            stack.extend(self.succ[b].iter().copied());
        }
        first.sort_unstable();
        (seen, first)
    }

    /// Whether two channels of a thread never run blocks `a` and `b` in one round:
    /// their memory accesses are then ordered by a barrier. The channels of a thread
    /// start a round together (the rounds are aligned), so they can only be in both
    /// when one block leads to the other without a barrier, or a branch of the round
    /// where channels may part (`parts`, per block) leads to both; ways that a branch
    /// on one value for every channel separates are never taken in one round.
    fn apart(&self, a: usize, b: usize, parts: &[bool]) -> bool {
        let from = |x: usize| {
            let mut memo = self.from.borrow_mut();
            if memo.len() <= x {
                memo.resize(x + 1, None);
            }
            memo[x].get_or_insert_with(|| self.reach_from(x).0).clone()
        };
        if !self.reach.iter().any(|r| r[a] && r[b]) {
            return true;
        }
        if from(a)[b] || from(b)[a] {
            return false;
        }
        !self.reach.iter().any(|r| {
            r[a] && r[b]
                && (0..parts.len()).any(|q| {
                    parts[q] && r[q] && {
                        let f = from(q);
                        f[a] && f[b]
                    }
                })
        })
    }

    /// A branch where channels may part and then meet different barriers first (the
    /// rounds would pair one channel's barrier with another's). A way that ends the
    /// channel first is fine: a finished channel no longer takes part.
    fn misaligned(&self, p: &Prepared, plan: &Plan) -> Option<usize> {
        if !self.barrier.iter().any(|&b| b) {
            return None;
        }
        p.insts.iter().enumerate().find_map(|(k, inst)| {
            use Opcode::*;
            if !matches!(inst.op, Goto | Jmp | Switchjmp) || !may_part(p, plan, inst) {
                return None;
            }
            let firsts: Vec<Vec<usize>> = self.succ[self.block_of[k]]
                .iter()
                .map(|&s| self.reach_from(s).1)
                .filter(|f| !f.is_empty())
                .collect();
            let aligned = firsts.iter().all(|f| f.len() == 1 && *f == firsts[0]);
            (!aligned).then_some(inst.index)
        })
    }
}

/// Successors of each block: the next block unless every channel leaves by an
/// unpredicated goto, jmp or ret, and branch targets.
fn successors(p: &Prepared, block_of: &[usize], nb: usize) -> Vec<Vec<usize>> {
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for (k, inst) in p.insts.iter().enumerate() {
        let b = block_of[k];
        let leaves =
            inst.pred.is_none() && matches!(inst.op, Opcode::Goto | Opcode::Jmp | Opcode::Ret);
        if let Some(&n) = block_of.get(k + 1) {
            if n != b && !leaves {
                succ[b].push(n);
            }
        }
        for t in blocks::targets(inst) {
            if let Some(&tb) = block_of.get(t as usize) {
                succ[b].push(tb);
            }
        }
    }
    for s in &mut succ {
        s.sort_unstable();
        s.dedup();
    }
    succ
}

/// A loop of a straight kernel: blocks `start..=end`, entered at the top, left by a
/// branch past `end` or before `start`; `inner`: the loops nested in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Region {
    pub start: usize,
    pub end: usize,
    pub inner: Vec<Region>,
}

/// The loops of a kernel as nested block ranges: each backward branch spans its
/// target's block to its own; ranges that overlap without nesting merge into one.
pub(super) fn loop_regions(p: &Prepared, cfg: &blocks::Blocks) -> Vec<Region> {
    let block_of = |k: usize| {
        cfg.ranges
            .iter()
            .position(|r| r.contains(&k))
            .unwrap_or(cfg.ranges.len())
    };
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (k, inst) in p.insts.iter().enumerate() {
        for t in blocks::targets(inst) {
            if (t as usize) <= k {
                spans.push((block_of(t as usize), block_of(k)));
            }
        }
    }
    nest_spans(spans)
}

/// Block ranges `(first, last)` as nested regions, merging ranges that overlap
/// without nesting.
fn nest_spans(mut spans: Vec<(usize, usize)>) -> Vec<Region> {
    // Merge partial overlaps until the ranges nest (each round removes one).
    loop {
        spans.sort_unstable_by_key(|&(a, b)| (a, std::cmp::Reverse(b)));
        spans.dedup();
        let crossing = (0..spans.len()).find_map(|i| {
            (i + 1..spans.len())
                .find(|&j| spans[j].0 <= spans[i].1 && spans[i].1 < spans[j].1)
                .map(|j| (i, j))
        });
        let Some((i, j)) = crossing else { break };
        let merged = (spans[i].0, spans[j].1);
        spans.remove(j);
        spans[i] = merged;
    }
    fn nest(spans: &[(usize, usize)]) -> Vec<Region> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < spans.len() {
            let (a, b) = spans[i];
            let mut j = i + 1;
            while j < spans.len() && spans[j].0 <= b {
                j += 1;
            }
            out.push(Region {
                start: a,
                end: b,
                inner: nest(&spans[i + 1..j]),
            });
            i = j;
        }
        out
    }
    nest(&spans)
}

/// `fn block_start(b)`: the vISA index of block `b`'s first instruction (for reports).
fn emit_block_starts(em: &mut Emit, p: &Prepared, cfg: &blocks::Blocks) {
    em.open("fn block_start(b: u32) -> u32");
    em.open("switch b");
    for (b, r) in cfg.ranges.iter().enumerate() {
        // A block may open with a meeting (`exchange::SYNTHETIC`, no vISA index).
        let first = r
            .clone()
            .map(|k| p.insts[k].index)
            .find(|&i| i != super::exchange::SYNTHETIC)
            .unwrap_or(0);
        em.line(&format!("case {b}u: {{ return {first}u; }}"));
    }
    em.line("default: { return 0u; }");
    em.close();
    em.close();
}

/// The invocation's element of a payload vector of `e`-byte elements at byte `poff`
/// (u64 for 8 bytes, else u32). An aligned element never straddles a word, so it is
/// read without `payload_elem`'s byte loop: llvmpipe runs that loop (a gather in it)
/// on every invocation, masked, whether or not it is taken.
fn lane_input(poff: u32, e: u32, ids: Option<super::LocalIdLayout>) -> String {
    // A local id, computed: the channel's item in its group, x fastest.
    let dim = ids.filter(|_| e == 2).and_then(|ids| {
        let d = ids.offsets.iter().position(|&o| o == Some(poff))?;
        Some((d, ids.local))
    });
    if let Some((d, [lx, ly, _])) = dim {
        let item = "(pl_t * K_SIMD + lane)";
        return match d {
            0 => format!("{item} % {lx}u"),
            1 => format!("({item} / {lx}u) % {ly}u"),
            _ => format!("{item} / {}u", lx.saturating_mul(ly)),
        };
    }
    let at = format!("{poff}u + lane * {e}u");
    match e {
        4 if poff.is_multiple_of(4) => format!("pl_word({at})"),
        1 | 2 if poff.is_multiple_of(e) => {
            let mask = (1u32 << (8 * e)) - 1;
            format!("(pl_word({at}) >> ((({at}) & 3u) * 8u)) & {mask}u")
        }
        8 if poff.is_multiple_of(8) => {
            format!("u64(pl_word({at})) | (u64(pl_word({at} + 4u)) << 32u)")
        }
        8 => format!("payload_elem({at}, 8u)"),
        _ => format!("u32(payload_elem({at}, {e}u))"),
    }
}

/// One payload element of `n` (1, 2, 4 or 8) bytes at byte `o`.
const PAYLOAD_ELEM: &str = r#"
fn payload_elem(o: u32, n: u32) -> u64 {
    if ((o & 3u) + n <= 4u) {
        let v = pl_word(o & ~3u) >> ((o & 3u) * 8u);
        return u64(select(v & ((1u << (n * 8u)) - 1u), v, n == 4u));
    }
    var v = 0lu;
    // loop-bound: 8
    for (var i = 0u; i < n; i++) {
        v = v | (u64(pl_byte(o + i)) << (8u * i));
    }
    return v;
}
"#;

/// Kernels longer than this that still address the GRF image `g` get a workgroup
/// barrier before `run_lane`: llvmpipe compiles a barrier-free shader as one function,
/// and with the image that took 75 s instead of 3.4 s on SIMD32 kernels of about a
/// hundred instructions (as_type_bitcasts, before `scalar_slots`; without the image:
/// 0.3 s either way). The barrier costs llvmpipe 20-30% of the run time (stencil3x3
/// over 262,144 items), nothing on hardware.
const BARRIER_FROM_INSTS: usize = 32;

/// Invocations a workgroup of the straight form holds at most: wgpu's default limit,
/// which every adapter offers.
const MAX_INVOCATIONS: u32 = 256;

/// The private holding word `w` of an invocation's visited blocks (its instruction
/// count where the kernel loops).
pub(super) fn visited_word(w: u32) -> String {
    format!("visited{w}")
}

/// vISA threads per workgroup: the most threads of a group (a divisor of `tpg`) whose
/// channels fit one workgroup. Straight invocations never meet, so any grouping is
/// exact; bigger workgroups cost llvmpipe less per thread.
pub fn threads_per_workgroup(simd: u32, tpg: u32) -> u32 {
    (1..=tpg.max(1))
        .rev()
        .find(|&d| tpg.is_multiple_of(d) && d * simd.max(1) <= MAX_INVOCATIONS)
        .unwrap_or(1)
}

/// `main` of a straight module. Its `step_limit` is the limit over the SIMD width (a
/// thread runs at most that many times its longest channel's path); where the
/// workgroup agrees, `wg_steps` already bounds the thread's own count, and the share
/// only hands such a launch to the thread mapping sooner.
#[allow(clippy::too_many_arguments)]
fn emit_main(
    em: &mut Emit,
    simd: u32,
    tpg: u32,
    tpw: u32,
    split: bool,
    barriers: bool,
    cyclic: bool,
    visit_words: u32,
    claims: bool,
) {
    // The binding-table spans the checked word accesses read (`bti_word`).
    let spans = if em.out.contains("bti_ld4(") || em.out.contains("bti_st4(") {
        "    load_bti_spans();\n"
    } else {
        ""
    };
    let record: String = (0..visit_words)
        .map(|w| format!("        state[rec + {w}u] = {};\n", visited_word(w)))
        .collect();
    // A compact GRF image's slips (`grf_rows.rs`, filled in there).
    let grf_miss = super::grf_rows::MISS_MARK;
    // Owner tags of private memory (`claim_word` in runtime.wgsl), where accesses
    // claim words (`Conditions::owned_at`): the channel's number, and the report of a
    // word two channels met in.
    let (owner, shared) = if claims {
        (
            "    owner_id = tid * K_SIMD + l + 1u;\n",
            "    if (shared_at != 0u) {{ code = ERR_STRAIGHT_SHARED; at = shared_at - 1u; }}\n",
        )
    } else {
        ("", "")
    };
    let run = if barriers {
        // Rounds: every invocation calls `run_lane` (uniform control flow); its rows
        // sit in loops the workgroup passes together, meeting after each barrier's
        // row and at the end of each pass (`Rows::meet`).
        r#"    lane_pc = select(IDLE, 0u, l < n);
    let r = run_lane(dm);
"#
    } else {
        "    if (l < n) { let r = run_lane(dm); }
"
    };
    // What a lane reports, the first of these that applies: an unaligned word, an
    // atomic's alias, a lane stopped (`stop_at`: 1 + its block; loops and barrier
    // rounds only, which have `block_start`), the driver's limiter stopped a loop (the
    // probe; only needed where vISA loops are). One report site, one atomic
    // (`hand_over`): llvmpipe runs the code of every branch whether or not an
    // invocation takes it, and each of the four sites was a `fail`, a CAS loop
    // (mandelbrot over 196,608 items with no iteration: 2.9x -> 2.5-2.8x its
    // hand-written WGSL's GPU time).
    // A loop the driver's limiter stopped early would leave wrong results: the probe
    // says so. Without vISA loops the only loops are the runtime's, bounded by their
    // `loop-bound` notes (K_FIXED_COST, which the host checks against the probed
    // budget before the run), so the probe is left out: llvmpipe pays for its loop on
    // every invocation even when cfh(CFG_PROBE) is 0 (saxpy over 1M items: 6.2 -> 5.4
    // GPU ms).
    let probe = if cyclic {
        "    if (cfh(CFG_PROBE) != 0u && loops_exhausted()) { code = ERR_DRIVER_LOOPS; at = 0u; }\n"
    } else {
        ""
    };
    let stopped = if cyclic || barriers {
        "    if (stop_at != 0u) { code = ERR_STRAIGHT_STOPPED; at = block_start(stop_at - 1u); }\n"
    } else {
        ""
    };
    let barrier = if split {
        "    // Splits the shader for llvmpipe's compiler (see BARRIER_FROM_INSTS).\n    workgroupBarrier();\n"
    } else {
        ""
    };
    let per = tpg / tpw;
    let wg = tpw * simd;
    em.out.push_str(&format!(
        r#"
@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
    // {tpw} thread(s) of a group per workgroup, {per} workgroup(s) per group.
    let l = li % K_SIMD;
    lane = l;
    zero_word = cfh(CFG_ZERO);
    // A channel counts its own path; its thread runs the union of its channels' paths,
    // at most the SIMD width times the longest. A lane past this share hands the launch
    // to the thread mapping, which counts as the interpreter does.
    step_limit = cfh(CFG_STEP_LIMIT) / K_SIMD;
    // No budget (0): a limit no pass count reaches, so a pass tests both limits at once.
    edge_budget = select(cfh(CFG_EDGE_BUDGET), 0xffffffffu, cfh(CFG_EDGE_BUDGET) == 0u);
    let wx = wid.x + chunk.x;
    let t = (wx % {per}u) * {tpw}u + li / K_SIMD;
    let grp = vec3<u32>(wx / {per}u, wid.y + chunk.y, wid.z + chunk.z);
    let group = (grp.z * cfh(CFG_GROUPS + 1u) + grp.y) * cfh(CFG_GROUPS) + grp.x;
    let tid = group * cfh(CFG_THREADS) + t;
    init(tid, t, grp);
{owner}{spans}    load_lane_inputs();
    let n = pl_n;
    // The thread's execution mask in the entry blocks: the dispatched channels.
    var dm = 0xffffffffu;
    if (n < 32u) {{ dm = (1u << n) - 1u; }}
    lane_edges = K_FIXED_COST;
{barrier}{run}    keep_bindings();
    flush_oob();
    // Each of these makes the host run the launch in the thread mapping.
    var code = 0u;
    var at = 0u;
{probe}{stopped}    if (alias_at != 0u) {{ code = ERR_STRAIGHT_ALIAS; at = alias_at - 1u; }}
    if (slow_at != 0u) {{ code = ERR_STRAIGHT_SLOW; at = slow_at - 1u; }}
{shared}{grf_miss}
    if (code != 0u) {{ hand_over(code, at); }}
    if (cfh(CFG_COUNT) != 0u) {{
        let rec = (tid * K_SIMD + l) * K_VISIT_WORDS;
{record}    }}
}}
"#
    ));
}

#[cfg(test)]
mod tests {
    use super::{threads_per_workgroup, Straight};

    #[test]
    fn loops_nest_and_crossing_loops_merge() {
        use super::{nest_spans, Region};
        let r = |start, end, inner| Region { start, end, inner };
        // Two loops in sequence, the second with a loop inside; a repeated back edge.
        assert_eq!(
            nest_spans(vec![(1, 2), (4, 9), (5, 6), (1, 2)]),
            vec![r(1, 2, vec![]), r(4, 9, vec![r(5, 6, vec![])])]
        );
        // Crossing back edges (3..6 and 5..8) make one loop; a self-loop inside stays.
        assert_eq!(
            nest_spans(vec![(3, 6), (5, 8), (7, 7)]),
            vec![r(3, 8, vec![r(7, 7, vec![])])]
        );
    }

    #[test]
    fn workgroups_hold_whole_threads_up_to_256_invocations() {
        assert_eq!(threads_per_workgroup(16, 8), 8);
        assert_eq!(threads_per_workgroup(32, 8), 8);
        assert_eq!(threads_per_workgroup(32, 16), 8);
        // A divisor of the group's threads: 6 threads of SIMD32 fit (192 invocations),
        // of SIMD64 only 3 of them.
        assert_eq!(threads_per_workgroup(32, 6), 6);
        assert_eq!(threads_per_workgroup(64, 6), 3);
        assert_eq!(threads_per_workgroup(16, 1), 1);
    }

    /// Two threads of two lanes, blocks of 3 and 5 instructions: a thread's
    /// instructions are the blocks any lane ran, its channel-instructions every lane's.
    #[test]
    fn counts_from_visited_blocks() {
        let s = Straight {
            image_words: None,
            visit_words: 1,
            block_lens: vec![3, 5],
            launch: Default::default(),
            threads_per_workgroup: 1,
            cyclic: false,
            nan_blind: Vec::new(),
        };
        // Thread 0: lane 0 ran both blocks, lane 1 the first; thread 1: only lane 1
        // ran, the second block.
        let words = [0b11, 0b01, 0b00, 0b10];
        assert_eq!(s.count(&words, 2, 2), (Some(3 + 5 + 5), 8 + 3 + 5));
        // With loops: one word per lane, its channel's instructions.
        let looped = Straight { cyclic: true, ..s };
        assert_eq!(looped.count(&[7, 0, 4, 9], 2, 2), (None, 20));
    }
}
