//! The lane mapping's plan: which instructions run one element per invocation, which
//! GRF words and predicates must be mirrored in workgroup memory, and where the
//! invocations of a vISA thread must meet at a barrier.
//!
//! In lane mode a workgroup runs one vISA thread, one invocation per SIMD channel.
//! Every invocation keeps its own copy of the thread's GRF image and runs the
//! *uniform* instructions (scalars, control flow, anything that reads across
//! channels) in full, like the thread mapping does; a *per-lane* instruction computes
//! only the element of the invocation's channel. That is exact as long as no
//! invocation reads a byte that another channel wrote per lane. The analysis below
//! finds every such byte (flow-insensitively, over the whole kernel): its word is
//! *mirrored*, i.e. every write to it also goes to workgroup memory, and after each
//! per-lane instruction that writes a mirrored word the invocations meet and copy it
//! back. Side effects of uniform instructions (stores, atomics) happen once, in lane 0.

use super::indirect_operands::{Column, Target, Written};
use super::{alu, message, operand};
use crate::interp::prepare::{Dst, PField, PInst, Prepared, Src};
use crate::interp::thread::{fint as int, fraw as raw};
use crate::ir::PredCombine;
use crate::isa::Opcode;

/// How one instruction runs in lane mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Run {
    /// Every invocation runs all of it (its reads are the same in every copy).
    Uniform,
    /// Each invocation runs the element of its own channel.
    PerLane,
    /// Lane 0 runs it (side effects happen once); its GRF results are published.
    Lane0,
}

/// Mirrored word ranges `[a, b)` and predicates an instruction's lanes publish.
#[derive(Clone, Debug, Default)]
pub struct Publish {
    pub words: Vec<(u32, u32)>,
    pub preds: Vec<u32>,
}

impl Publish {
    pub fn is_empty(&self) -> bool {
        self.words.is_empty() && self.preds.is_empty()
    }
}

/// GRF byte ranges `[a, b)` and predicates one instruction reads or writes.
pub type Touched = (Vec<(u32, u32)>, Vec<u32>);

/// The lane-mode plan of a kernel.
#[derive(Clone, Debug)]
pub struct Plan {
    pub run: Vec<Run>,
    /// Words of the GRF image every write mirrors (index = word).
    pub mirrored: Vec<bool>,
    /// Predicates every write mirrors.
    pub mirrored_preds: Vec<bool>,
    /// The first instruction (position in `insts`) that reads a register another
    /// channel wrote: why a kernel is not straight, for its message.
    pub first_cross_read: Option<usize>,
    /// Predicates only ever read and written at their own lane's bit (channel `c`'s
    /// bit by lane `c`, never whole, never by a uniform instruction or an any/all
    /// combine): a straight module keeps them as all-ones or zero (`pown`), which
    /// every read of the own bit sees alike and costs llvmpipe no bit arithmetic.
    pub own_preds: Vec<bool>,
    /// Per instruction: what to copy back from the mirror afterwards (empty: no
    /// meeting needed).
    pub publish: Vec<Publish>,
    /// Per instruction: whether it writes any mirrored word or predicate (its stores
    /// then go through the mirroring helpers).
    pub mirrors: Vec<bool>,
    /// Per instruction: a memory barrier before it (another channel's access to the
    /// same address may come earlier in program order).
    pub sync_before: Vec<bool>,
    /// Words of the mirror (one past the last mirrored word).
    pub xg_words: u32,
    /// Lane vectors `(base, element bytes)` held in one register per invocation:
    /// every access to their bytes is a per-lane access of the lane's own element.
    pub promoted: Vec<(u32, u32)>,
    /// Straight plans (`simt.rs`): promoted lane vectors the launch initializes,
    /// `(base, element bytes, payload byte offset of element 0)`.
    pub promoted_inputs: Vec<(u32, u32, u32)>,
    /// Per GRF word: every byte of it an access touches belongs to a promoted lane
    /// vector (the image never holds it).
    pub in_registers: Vec<bool>,
    /// Per instruction: whether it reads / writes memory.
    pub mem: Vec<(bool, bool)>,
    /// Per instruction: GRF byte ranges and predicates it writes (for the straight
    /// mapping's checks).
    pub writes: Vec<Touched>,
    /// Per instruction: GRF byte ranges and predicates it reads.
    pub reads: Vec<Touched>,
    /// Per GRF byte: the one lane that writes it per lane (`c + 1`), 0 where none
    /// does, `u32::MAX` where several do.
    pub owner: Vec<u32>,
    /// The same per predicate bit (channel).
    pub pred_owner: Vec<[u32; 32]>,
    /// Per instruction: the bytes and predicates it reads that another lane writes
    /// (what the straight form passes between lanes: `exchange.rs`).
    pub cross: Vec<Touched>,
    /// Per instruction: what its indirect operands may reach (`indirect_operands.rs`).
    pub indirect: Vec<Target>,
    /// The variables indirect destinations write, with their per-channel layouts
    /// (`indirect_operands::columns`).
    pub columns: Vec<Written>,
    /// Per instruction: its predicate's bits known there (`known_pred_bits`).
    pub known_preds: Vec<(u32, u32)>,
    /// Per instruction: a `setp` nothing reads (`unread_setps`).
    pub unread: Vec<bool>,
    /// Straight plans with meetings (`exchange.rs`), per instruction: the meeting
    /// earlier in its block, whose first lane runs it if it is a whole-thread
    /// store or atomic (empty without meetings).
    pub led: Vec<Option<u32>>,
}

/// Bytes and predicate bits one instruction reads or writes, each with the lane that
/// does it (`None`: every lane).
#[derive(Default)]
struct Foot {
    reads: Vec<(u32, u32, Option<u32>)>,
    writes: Vec<(u32, u32, Option<u32>)>,
    /// Per GRF access above (reads, then writes): the lane vector it addresses
    /// regularly (see [`lane_vector`]), if any.
    vec_reads: Vec<Option<(u32, u32)>>,
    vec_writes: Vec<Option<(u32, u32)>>,
    pred_reads: Vec<(u32, u32, Option<u32>)>,
    pred_writes: Vec<(u32, u32, Option<u32>)>,
    mem_read: bool,
    mem_write: bool,
}

/// A per-lane access of element `i` at byte `at + i * stride`, `len` bytes, made by
/// lane `i + moff`: when the stride is the element size, lane `c` always finds its
/// element at `base + c * len`, so the bytes `[base, base + SIMD * len)` can live in
/// one register per invocation. Returns `(base, len)`. The analysis and the emitters
/// both decide with this function, so they cannot disagree. A narrower access at
/// that stride (the low byte of a gathered dword, one half of a 64-bit address) is a
/// [`LanePart`] of the vector of `stride`-byte elements aligned to `stride`.
pub fn lane_vector(at: u32, stride: u32, len: u32, moff: u32) -> Option<(u32, u32)> {
    lane_part(at, stride, len, moff).map(|p| (p.base, p.elem))
}

/// The part of its lane's element a per-lane access touches (see [`lane_vector`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LanePart {
    /// The vector: element `c` (lane `c`'s) at `base + c * elem`.
    pub base: u32,
    pub elem: u32,
    /// The access: `len` bytes from byte `k` of the element.
    pub k: u32,
    pub len: u32,
}

pub fn lane_part(at: u32, stride: u32, len: u32, moff: u32) -> Option<LanePart> {
    if !matches!(len, 1 | 2 | 4 | 8) || at < moff * stride {
        return None;
    }
    let first = at - moff * stride;
    if stride == len {
        return Some(LanePart {
            base: first,
            elem: len,
            k: 0,
            len,
        });
    }
    // A part: the elements aligned to their size, the part to its own.
    let k = first % stride.max(1);
    (matches!(stride, 2 | 4 | 8) && len < stride && k.is_multiple_of(len)).then_some(LanePart {
        base: first - k,
        elem: stride,
        k,
        len,
    })
}

/// The lane's part as a u64 expression, `r` the vector's register (u32, or u64 for
/// 8-byte elements).
pub fn part_read(r: &str, p: LanePart) -> String {
    if p.k == 0 && p.len == p.elem {
        return format!("u64({r})");
    }
    let mask = (1u64 << (8 * p.len)) - 1;
    format!("((u64({r}) >> {}u) & {mask}lu)", 8 * p.k)
}

/// Store the low `len` bytes of the u64 `v` into the lane's part.
pub fn part_store(r: &str, p: LanePart, v: &str) -> String {
    if p.k == 0 && p.len == p.elem {
        return operand::reg_store(r, p.elem, v);
    }
    let mask = (1u64 << (8 * p.len)) - 1;
    let field = format!("((({v}) & {mask}lu) << {}u)", 8 * p.k);
    let keep = !(mask << (8 * p.k)) & ((1u128 << (8 * p.elem)) - 1) as u64;
    if p.elem >= 8 {
        format!("{r} = ({r} & {keep}lu) | {field};")
    } else {
        format!("{r} = ({r} & {keep}u) | u32({field});")
    }
}

/// The register holding lane vector `base`.
pub fn register(base: u32) -> String {
    format!("rv{base}")
}

/// Why a kernel keeps the thread mapping.
pub fn ineligible(p: &Prepared, tpg: u32, slm_bytes: u32) -> Option<String> {
    refusal(p, tpg, slm_bytes, true)
}

/// [`ineligible`] for the straight form, which runs whole-thread block messages (media
/// and LSC_TYPED's 2D blocks; their GRF bytes exact in [`msg_foot`], which LSC_UNTYPED's
/// 2D blocks are not) whole in every invocation, as the thread does: a load gives every
/// copy the block, a store writes the same bytes from each (its data passed at a
/// meeting, `exchange.rs`), and fences order it against the channels' own accesses
/// (`fences.rs`).
pub fn ineligible_straight(p: &Prepared) -> Option<String> {
    refusal(p, 1, 0, false).or_else(|| super::indirect_operands::untraced(p))
}

/// `blocks_too`: the scheduled lane mapping, which also refuses media blocks and any
/// indirect operand (the straight form reads indirect sources: `indirect_operands.rs`).
fn refusal(p: &Prepared, tpg: u32, slm_bytes: u32, blocks_too: bool) -> Option<String> {
    use Opcode::*;
    if p.simd > 32 || p.simd == 0 {
        return Some(format!("SIMD width {}", p.simd));
    }
    for inst in &p.insts {
        if matches!(inst.op, Dpas | Dpasw) {
            return Some(format!(
                "DPAS at instruction {} reads every channel's rows (the thread mapping runs it)",
                inst.index
            ));
        }
        if inst.op == LscUntyped && matches!(int(inst, "LscSubOp"), 0x03 | 0x07) {
            return Some(format!(
                "2D block message at instruction {} (the thread mapping runs them)",
                inst.index
            ));
        }
        let status = inst.op == LscTyped && int(inst, "LscSubOp") == 0x1b;
        if status || inst.op == LscUntyped && matches!(int(inst, "LscSubOp"), 0x1b | 0x28 | 0x29) {
            return Some(format!(
                "LSC load status or append counter at instruction {} (a result that \
                 depends on every channel: the thread mapping runs them)",
                inst.index
            ));
        }
        let typed_block = inst.op == LscTyped && matches!(int(inst, "LscSubOp"), 0x03 | 0x07);
        if blocks_too && (matches!(inst.op, MediaLd | MediaSt) || typed_block) {
            return Some(format!(
                "media block message at instruction {} (the thread mapping runs them)",
                inst.index
            ));
        }
        if matches!(inst.op, Barrier | Sbarrier | Nbarrier) && tpg > 1 {
            return Some("barriers between the threads of a group".into());
        }
        for f in &inst.fields {
            match f {
                PField::Src(Src::Indirect { .. }) if blocks_too => {
                    return Some(format!("indirect operand at instruction {}", inst.index))
                }
                PField::Dst(Dst::Indirect { .. }) if blocks_too => {
                    return Some(format!("indirect operand at instruction {}", inst.index))
                }
                _ => {}
            }
        }
    }
    if slm_bytes > 0 && tpg > 1 && uses_slm(p) {
        return Some("shared local memory between the threads of a group".into());
    }
    None
}

/// Whether any message may reach SLM: surface T0 named directly or moved into a
/// surface variable, or an LSC message to the SLM port.
pub(crate) fn uses_slm(p: &Prepared) -> bool {
    p.insts.iter().any(|inst| {
        (inst.op == Opcode::LscUntyped && int(inst, "LscSFID") == 3)
            || inst.fields.iter().any(|f| {
                matches!(
                    f,
                    PField::Surface(0) | PField::Src(Src::State { id: 0, .. })
                )
            })
    })
}

fn per_lane_message(inst: &PInst) -> bool {
    use Opcode::*;
    match inst.op {
        Gather4Scaled | Scatter4Scaled | SvmGather4Scaled | SvmScatter4Scaled | GatherScaled
        | ScatterScaled | DwordAtomic | SvmAtomic | QwGather | QwScatter | SvmGather
        | SvmScatter | Gather | Scatter => true,
        // Typed messages: each channel's coordinates and texel in its own elements (a
        // pixel null mask is a whole-thread word: not per lane).
        Gather4Typed | Scatter4Typed | TypedAtomic => true,
        // LSC_TYPED's 2D blocks are one message for the thread.
        LscTyped => !matches!(int(inst, "LscSubOp"), 0x03 | 0x07),
        D3Load | D3Sample | D3Sample4 => {
            int(inst, "Op") & crate::isa::text_form::PIXEL_NULL_MASK == 0
        }
        LscUntyped => {
            let subop = int(inst, "LscSubOp");
            let transpose = int(inst, "DataOrder") == crate::isa::syntax::LSC_ORDER_TRANSPOSE;
            (matches!(subop, 0x00 | 0x04) && !transpose) || (0x08..=0x1a).contains(&subop)
        }
        _ => false,
    }
}

pub(super) fn message_effects(inst: &PInst) -> (bool, bool) {
    use Opcode::*;
    match inst.op {
        Gather4Scaled | SvmGather4Scaled | GatherScaled | OwordLd | OwordLdUnaligned
        | SvmGather | SvmBlockLd | QwGather | Gather => (true, false),
        Scatter4Scaled | SvmScatter4Scaled | ScatterScaled | OwordSt | SvmScatter | SvmBlockSt
        | QwScatter | Scatter => (false, true),
        DwordAtomic | SvmAtomic | TypedAtomic => (true, true),
        D3Load | D3Sample | D3Sample4 | Gather4Typed => (true, false),
        Scatter4Typed => (false, true),
        LscTyped => match int(inst, "LscSubOp") {
            0x02 | 0x03 => (true, false),
            0x06 | 0x07 => (false, true),
            _ => (true, true),
        },
        LscUntyped => match int(inst, "LscSubOp") {
            0x00..=0x03 => (true, false),
            0x04..=0x07 => (false, true),
            _ => (true, true),
        },
        MediaLd => (true, false),
        MediaSt => (false, true),
        _ => (false, false),
    }
}

/// Bytes of element `i` of a direct source.
fn src_bytes(s: &Src, i: u32) -> Option<(u32, u32)> {
    match s {
        Src::Direct { ty, .. } => {
            let o = operand::elem_offset(s, i)?;
            Some((o, o + ty.size()))
        }
        _ => None,
    }
}

/// Element `i` of a direct source at `at + i * stride`, when its region is linear
/// (the forms `operand::region_offset` folds to a plain stride).
pub fn src_linear(s: &Src, n: u32) -> Option<(u32, u32)> {
    match s {
        Src::Direct {
            off, ty, vs, w, hs, ..
        } => operand::linear_stride(*vs, *w, *hs, ty.size(), n).map(|st| (*off, st)),
        _ => None,
    }
}

/// Bytes `[a, b)`, or a lane vector `(base, element bytes)`.
type Range = (u32, u32);

/// The one channel a per-lane instruction can run for: its predicate's known bits
/// (`known_pred_bits`) enable exactly one channel of its range (IGC's one-channel
/// stores, `indirect_operands.rs`).
pub fn single_lane(inst: &PInst, known: (u32, u32)) -> Option<u32> {
    let pred = inst.pred.filter(|_| pred_folded(inst, known))?;
    let channels = span(inst.exec.size as u32, inst.exec.mask.channel_offset());
    let enabling = if pred.inverse { !known.1 } else { known.1 } & channels;
    (enabling.count_ones() == 1).then(|| enabling.trailing_zeros())
}

/// Whether instruction `inst`'s predicate bits are all known where it reads them
/// (`known`, from [`known_pred_bits`]): the straight form writes their value in its
/// channel enable instead of reading the predicate (SEL's predicate selects instead).
pub fn pred_folded(inst: &PInst, known: (u32, u32)) -> bool {
    let Some(pred) = inst.pred else {
        return false;
    };
    let (n, off) = (inst.exec.size as u32, inst.exec.mask.channel_offset());
    // Branches and calls evaluate their predicate otherwise (`straight_rows`).
    if pred.combine != PredCombine::Sequential
        || inst.op == Opcode::Sel
        || super::blocks::ends_block(inst.op)
        || matches!(inst.op, Opcode::Fcall | Opcode::Ifcall)
        || off >= 32
    {
        return false;
    }
    let channels = span(n, off);
    known.0 & channels == channels
}

/// The channel bits of `n` channels from `off` (the instruction's predicate bits).
pub fn span(n: u32, off: u32) -> u32 {
    alu::full(n).checked_shl(off).unwrap_or(0)
}

/// Per instruction: a `setp` of an immediate into a predicate that every reader
/// reads folded ([`pred_folded`]): nothing reads what it writes (IGC's one-hot
/// predicates, 224 in private_array_dynamic SIMD32).
pub fn unread_setps(p: &Prepared, known: &[(u32, u32)]) -> Vec<bool> {
    let npred = p.kernel.preds.len().max(1);
    let mut read = vec![false; npred];
    for (inst, &kn) in p.insts.iter().zip(known) {
        if let Some(pred) = inst.pred {
            if !pred_folded(inst, kn) {
                if let Some(r) = read.get_mut(pred.id.0 as usize) {
                    *r = true;
                }
            }
        }
        for f in &inst.fields {
            if let PField::Src(Src::Pred(pr)) = f {
                if let Some(r) = read.get_mut(pr.id.0 as usize) {
                    *r = true;
                }
            }
        }
    }
    p.insts
        .iter()
        .map(|inst| {
            let (dsts, srcs, _) = inst.alu_operands();
            inst.op == Opcode::Setp
                && inst.pred.is_none()
                && matches!(srcs.first(), Some(Src::Imm { .. }))
                && matches!(dsts.first(), Some(Dst::Pred(q)) if read.get(q.0 as usize) == Some(&false))
        })
        .collect()
}

/// A scalar source (every element the same bytes) of an instruction that runs for
/// channel `lane` alone ([`single_lane`]): that channel's element of the lane vector
/// `(base, element bytes)` the bytes belong to (`V(0,k)<0;1,0>` in channel k).
pub fn single_lane_vector(s: &Src, n: u32, lane: u32) -> Option<(u32, u32)> {
    let Src::Direct { ty, .. } = s else {
        return None;
    };
    let (at, stride) = src_linear(s, n)?;
    let e = ty.size();
    if stride != 0 {
        return None;
    }
    at.checked_sub(lane * e).map(|b| (b, e))
}

fn alu_foot(
    inst: &PInst,
    lane_of: &dyn Fn(u32) -> Option<u32>,
    (grf, target, column): (u32, Target, Option<Option<Column>>),
    (disabled, only): (u32, Option<u32>),
    f: &mut Foot,
) {
    let n = inst.exec.size as u32;
    let moff = inst.exec.mask.channel_offset();
    let (dsts, srcs, _) = inst.alu_operands();
    // A predicate source's element `i` is bit `i + moff` (the interpreter's
    // `pred_view`), except for a scalar instruction with a GRF destination, which
    // reads the whole predicate.
    let whole_pred = n == 1 && !matches!(dsts.first(), Some(Dst::Pred(_)));
    for i in 0..n {
        if i + moff < 32 && disabled & (1 << (i + moff)) != 0 {
            continue;
        }
        let l = lane_of(i);
        // An indirect operand of a variable laid out per channel reaches the lane's
        // column (`indirect_operands::check` holds the lane to it at run time).
        // Without `column` (the plan's first pass) destinations are left out.
        // Each row's element is a lane vector's, which may live in a register
        // (`Column::registers`) where the access is a whole element.
        let reach = |f: &mut Foot, write: bool, size: u32| {
            if write && column.is_none() {
                return;
            }
            let ranges: Vec<(Range, Option<Range>)> = match (target, column.flatten(), l) {
                (_, Some(c), Some(l)) => c
                    .of_lane(l)
                    .map(|r| {
                        (
                            r,
                            c.vector(r.0 - (l - c.lane0) * c.elem)
                                .filter(|_| size == c.elem),
                        )
                    })
                    .collect(),
                (Target::Known(lo, hi), _, _) => vec![((lo, hi), None)],
                _ => vec![((0, u32::MAX), None)],
            };
            for ((a, b), v) in ranges {
                if write {
                    f.writes.push((a, b, l));
                    f.vec_writes.push(v);
                } else {
                    f.reads.push((a, b, l));
                    f.vec_reads.push(v);
                }
            }
        };
        for s in &srcs {
            match s {
                Src::Direct { ty, .. } => {
                    let (a, b) = src_bytes(s, i).unwrap_or((0, 0));
                    f.reads.push((a, b, l));
                    let v = src_linear(s, n)
                        .and_then(|(at, st)| lane_vector(at, st, ty.size(), moff))
                        .or_else(|| only.and_then(|c| single_lane_vector(s, n, c)));
                    f.vec_reads.push(l.and(v));
                }
                // Any byte of the variable its address registers point into
                // (`indirect_operands.rs`; untraced ones are refused before any plan).
                Src::Indirect { ty, .. } => reach(f, false, ty.size()),
                Src::Pred(p) if whole_pred => f.pred_reads.push((p.id.0 as u32, u32::MAX, None)),
                Src::Pred(p) => f
                    .pred_reads
                    .push((p.id.0 as u32, 1 << ((i + moff) & 31), l)),
                _ => {}
            }
        }
        for (k, d) in dsts.iter().enumerate() {
            match d {
                Dst::Direct { off, ty, hs, .. } => {
                    let e = ty.size();
                    let o = off + i * hs * e;
                    f.writes.push((o, o + e, l));
                    // Every destination's store uses registers (ADDC's carry, SUBB's
                    // borrow, MADW's high half: `alu::emit`).
                    let v = lane_vector(*off, hs * e, e, moff);
                    f.vec_writes.push(l.and(v));
                    if k == 0 && inst.op == Opcode::Madw {
                        let hi_off = off + (n * e * hs).div_ceil(grf) * grf;
                        let hi = hi_off + i * hs * e;
                        f.writes.push((hi, hi + e, l));
                        f.vec_writes
                            .push(l.and(lane_vector(hi_off, hs * e, e, moff)));
                    }
                }
                Dst::Pred(p) => f.pred_writes.push((p.0 as u32, 1 << (i + moff), l)),
                Dst::Indirect { ty, .. } => reach(f, true, ty.size()),
                _ => {}
            }
        }
    }
}

/// Every raw operand of `inst` read or written as a whole (32 GRFs from its start).
fn whole_raw_operands(inst: &PInst, grf: u32, f: &mut Foot) {
    for (k, fld) in inst.fields.iter().enumerate() {
        if let PField::Raw(Some(o), _) = fld {
            let name = crate::isa::table::info(inst.op)
                .fields
                .get(k)
                .map(|x| x.name)
                .unwrap_or("");
            let len = 32 * grf;
            if name.starts_with("Dst") {
                f.writes.push((*o, o + len, None));
                f.vec_writes.push(None);
            } else {
                f.reads.push((*o, o + len, None));
                f.vec_reads.push(None);
            }
        }
    }
}

fn msg_foot(inst: &PInst, lane_of: &dyn Fn(u32) -> Option<u32>, grf: u32, f: &mut Foot) {
    use Opcode::*;
    let n = inst.exec.size as u32;
    let (r, w) = message_effects(inst);
    f.mem_read = r;
    f.mem_write = w;
    let moff = inst.exec.mask.channel_offset();
    // Scalar sources (surface, base address), read by every lane.
    for fld in &inst.fields {
        if let PField::Src(s) = fld {
            if let Some((a, b)) = src_bytes(s, 0) {
                f.reads.push((a, b, None));
                f.vec_reads.push(None);
            }
        }
    }
    // Bytes `k + stride * i` of raw operand `name`, as the emitters address them
    // (`message::rd`/`wr`); `i` is the element.
    let rd =
        |name: &str, (k, stride, i): (u32, u32, u32), len: u32, l: Option<u32>, f: &mut Foot| {
            if let Some(base) = raw(inst, name) {
                let o = base + k + stride * i;
                f.reads.push((o, o + len, l));
                f.vec_reads
                    .push(l.and(lane_vector(base + k, stride, len, moff)));
            }
        };
    let wr =
        |name: &str, (k, stride, i): (u32, u32, u32), len: u32, l: Option<u32>, f: &mut Foot| {
            if let Some(base) = raw(inst, name) {
                let o = base + k + stride * i;
                f.writes.push((o, o + len, l));
                f.vec_writes
                    .push(l.and(lane_vector(base + k, stride, len, moff)));
            }
        };
    // A block of rows from fields `(width, height)`, loaded into or stored from raw
    // operand `data`.
    let block = |(wf, hf): (&str, &str), (load, data): (bool, &str), f: &mut Foot| {
        let (w, h) = (int(inst, wf) as u32, int(inst, hf) as u32);
        let pitch = crate::interp::thread::media_pitch(w);
        for i in 0..h {
            if load {
                wr(data, (i * pitch, 0, 0), w, None, f);
            } else {
                rd(data, (i * pitch, 0, 0), w, None, f);
            }
        }
    };
    match inst.op {
        Gather4Scaled | Scatter4Scaled | SvmGather4Scaled | SvmScatter4Scaled => {
            let svm = matches!(inst.op, SvmGather4Scaled | SvmScatter4Scaled);
            let load = matches!(inst.op, Gather4Scaled | SvmGather4Scaled);
            let mask = int(inst, "Channels");
            let slots = n.max(grf / 4);
            for i in 0..n {
                let l = lane_of(i);
                if svm {
                    rd("Element_offset", (0, 8, i), 8, l, f);
                } else {
                    rd("Element_offset", (0, 4, i), 4, l, f);
                }
                let mut pos = 0;
                for ch in 0..4u32 {
                    if mask & (1 << ch) == 0 {
                        continue;
                    }
                    let at = (4 * pos * slots, 4, i);
                    if load {
                        wr("Dst", at, 4, l, f);
                    } else {
                        rd("Src", at, 4, l, f);
                    }
                    pos += 1;
                }
            }
        }
        D3Load | D3Sample | D3Sample4 => {
            // The coordinates it reads, and each enabled channel's dwords, a channel's
            // data starting a GRF on (gather4: four samples of one channel as R, G, B,
            // A, `Thread::typed`).
            let coords =
                crate::interp::thread::sampler_coords(inst).map_or([None; 4], |c| c.params);
            let per = (4 * n).div_ceil(grf) * grf;
            let channels = match inst.op {
                D3Sample4 => 4,
                _ => (int(inst, "Channels") as u32 & 0xf).count_ones(),
            };
            for i in 0..n {
                let l = lane_of(i);
                for name in coords.iter().flatten() {
                    rd(name, (0, 4, i), 4, l, f);
                }
                for pos in 0..channels {
                    wr("Dst", (pos * per, 4, i), 4, l, f);
                }
            }
            if int(inst, "Op") & crate::isa::text_form::PIXEL_NULL_MASK != 0 {
                wr("Dst", (channels * per, 0, 0), 4, None, f);
            }
        }
        Gather4Typed | Scatter4Typed => {
            let slots = n.max(grf / 4);
            let channels = (int(inst, "Channels") as u32 & 0xf).count_ones();
            for i in 0..n {
                let l = lane_of(i);
                for name in ["U", "V", "R", "LOD"] {
                    rd(name, (0, 4, i), 4, l, f);
                }
                for pos in 0..channels {
                    if inst.op == Gather4Typed {
                        wr("Dst", (4 * pos * slots, 4, i), 4, l, f);
                    } else {
                        rd("Src", (4 * pos * slots, 4, i), 4, l, f);
                    }
                }
            }
        }
        // 2D blocks and media blocks: rows of `width` bytes at `media_pitch(width)`
        // apart (`Thread::block_bytes`), each exact (the straight form keeps every
        // copy's bytes alike only so).
        LscTyped if matches!(int(inst, "LscSubOp"), 0x03 | 0x07) => {
            let load = int(inst, "LscSubOp") == 0x03;
            let data = if load { "DstData" } else { "Src1Data" };
            block(("BlockWidth", "BlockHeight"), (load, data), f);
        }
        MediaLd => block(("Block_width", "Block_height"), (true, "Dst"), f),
        MediaSt => block(("Block_width", "Block_height"), (false, "Src"), f),
        LscTyped => {
            let subop = int(inst, "LscSubOp");
            let pitch = (4 * n).div_ceil(grf) * grf;
            let channels = (int(inst, "ChMask") as u32 & 0xf).count_ones();
            for i in 0..n {
                let l = lane_of(i);
                for name in ["Src0AddrsU", "Src0AddrsV", "Src0AddrsR", "Src0AddrsLOD"] {
                    rd(name, (0, 4, i), 4, l, f);
                }
                match subop {
                    0x02 => (0..channels).for_each(|m| wr("DstData", (m * pitch, 4, i), 4, l, f)),
                    0x06 => (0..channels).for_each(|m| rd("Src1Data", (m * pitch, 4, i), 4, l, f)),
                    _ => {
                        rd("Src1Data", (0, 4, i), 4, l, f);
                        rd("Src2Data", (0, 4, i), 4, l, f);
                        wr("DstData", (0, 4, i), 4, l, f);
                    }
                }
            }
        }
        QwGather | QwScatter => {
            let blocks = 1u32 << (int(inst, "Num_blocks") & 3);
            for i in 0..n {
                let l = lane_of(i);
                rd("Offset", (0, 4, i), 4, l, f);
                for j in 0..blocks {
                    if inst.op == QwGather {
                        wr("Dst", (8 * j * n, 8, i), 8, l, f);
                    } else {
                        rd("Src", (8 * j * n, 8, i), 8, l, f);
                    }
                }
            }
        }
        SvmGather | SvmScatter => {
            // Lane i's address at 8 i, its blocks where `svm_blocks` lays them out.
            let (bsize, blocks) = crate::interp::thread::svm_blocks(inst, n);
            for i in 0..n {
                let l = lane_of(i);
                rd("Addresses", (0, 8, i), 8, l, f);
                for &(k, stride) in &blocks {
                    let at = (k, stride, i);
                    if inst.op == SvmGather {
                        wr("Dst", at, bsize, l, f);
                    } else {
                        rd("Src", at, bsize, l, f);
                    }
                }
            }
        }
        TypedAtomic => {
            for i in 0..n {
                let l = lane_of(i);
                for name in ["U", "V", "R", "LOD", "Src0", "Src1"] {
                    rd(name, (0, 4, i), 4, l, f);
                }
                wr("Dst", (0, 4, i), 4, l, f);
            }
        }
        GatherScaled | ScatterScaled | Gather | Scatter => {
            // Each element in a dword slot; GATHER/SCATTER's size from `Elt_size`.
            let bytes = if matches!(inst.op, Gather | Scatter) {
                crate::interp::thread::elt_size_bytes(int(inst, "Elt_size")).unwrap_or(4)
            } else {
                1u32 << (int(inst, "Num_blocks") & 3)
            };
            for i in 0..n {
                let l = lane_of(i);
                rd("Element_offset", (0, 4, i), 4, l, f);
                if matches!(inst.op, GatherScaled | Gather) {
                    wr("Dst", (0, 4, i), 4, l, f);
                } else {
                    rd("Src", (0, 4, i), bytes, l, f);
                }
            }
        }
        OwordLd | OwordLdUnaligned | OwordSt | SvmBlockLd | SvmBlockSt => {
            let size = if matches!(inst.op, SvmBlockLd | SvmBlockSt) {
                "Properties"
            } else {
                "Size"
            };
            let bytes = 16 * (1u32 << (int(inst, size) & 7));
            if matches!(inst.op, OwordSt | SvmBlockSt) {
                rd("Src", (0, 0, 0), bytes, None, f);
            } else {
                wr("Dst", (0, 0, 0), bytes, None, f);
            }
        }
        DwordAtomic | SvmAtomic => {
            let svm = inst.op == SvmAtomic;
            let slot = if message::atomic_width(inst) == 64 {
                8
            } else {
                4
            };
            for i in 0..n {
                let l = lane_of(i);
                if svm {
                    rd("Addresses", (0, 8, i), 8, l, f);
                } else {
                    rd("Element_offset", (0, 4, i), 4, l, f);
                }
                rd("Src0", (0, slot, i), slot, l, f);
                rd("Src1", (0, slot, i), slot, l, f);
                wr("Dst", (0, slot, i), slot, l, f);
            }
        }
        LscUntyped if matches!(int(inst, "LscSubOp"), 0x01..=0x03 | 0x05..=0x07) => {
            // Strided, quad and 2D block messages: a whole-thread message
            // (`per_lane_message`), every raw operand as a whole.
            whole_raw_operands(inst, grf, f);
        }
        LscUntyped => {
            let subop = int(inst, "LscSubOp");
            let message::LscShape {
                asize,
                slot,
                vec,
                transpose,
                pitch,
                ..
            } = message::lsc_shape(inst, n, grf);
            if transpose {
                rd("Src0Addrs", (0, 0, 0), asize, None, f);
                for v in 0..vec {
                    if subop == 0x00 {
                        wr("DstData", (v * slot, 0, 0), slot, None, f);
                    } else {
                        rd("Src1Data", (v * slot, 0, 0), slot, None, f);
                    }
                }
                return;
            }
            for i in 0..n {
                let l = lane_of(i);
                rd("Src0Addrs", (0, asize, i), asize, l, f);
                match subop {
                    0x00 | 0x04 => {
                        for v in 0..vec {
                            let at = (v * pitch, slot, i);
                            if subop == 0x00 {
                                wr("DstData", at, slot, l, f);
                            } else {
                                rd("Src1Data", at, slot, l, f);
                            }
                            // Many elements per address are addressed through a
                            // loop variable (`message::lsc`): never in registers.
                            if !message::lsc_unrolled(vec) {
                                let last = if subop == 0x00 {
                                    f.vec_writes.last_mut()
                                } else {
                                    f.vec_reads.last_mut()
                                };
                                if let Some(x) = last {
                                    *x = None;
                                }
                            }
                        }
                    }
                    _ => {
                        rd("Src1Data", (0, slot, i), slot, l, f);
                        rd("Src2Data", (0, slot, i), slot, l, f);
                        wr("DstData", (0, slot, i), slot, l, f);
                    }
                }
            }
        }
        // Anything else: every raw operand as a whole (conservative).
        _ => whole_raw_operands(inst, grf, f),
    }
}

/// Per predicate: whether every access of every instruction is lane `l`'s own bit
/// `1 << l` (see [`Plan::own_preds`]).
fn own_lane_preds(feet: &[Foot], npred: usize) -> Vec<bool> {
    let mut own = vec![true; npred];
    for f in feet {
        for &(pid, bits, l) in f.pred_reads.iter().chain(&f.pred_writes) {
            let mine = l.is_some_and(|l| l < 32 && bits == 1 << l);
            if let Some(o) = own.get_mut(pid as usize) {
                *o &= mine;
            }
        }
    }
    own
}

/// Per instruction: the bits of the predicate it reads that the translator knows
/// there, as (known channels, their values). A `setp` NoMask of an immediate earlier
/// in straight-line code (no label or branch between), with no other write of the
/// predicate between, sets them (IGC's one-hot predicates, one channel's store each:
/// `indirect_operands.rs`).
pub(super) fn known_pred_bits(p: &Prepared) -> Vec<(u32, u32)> {
    use Opcode::*;
    let writes = |inst: &PInst, pid: u16| {
        inst.fields
            .iter()
            .any(|f| matches!(f, PField::Dst(Dst::Pred(q)) if q.0 == pid))
    };
    let mut out = vec![(0u32, 0u32); p.insts.len()];
    for (k, inst) in p.insts.iter().enumerate() {
        let Some(pred) = inst.pred else {
            continue;
        };
        let Some(w) = p.insts[..k]
            .iter()
            .rev()
            .take_while(|w| !super::blocks::joins_or_leaves(w.op))
            .find(|w| writes(w, pred.id.0))
        else {
            continue;
        };
        let (_, srcs, _) = w.alu_operands();
        if let (Setp, true, Some(Src::Imm { bits, .. })) = (w.op, w.exec.mask.no_mask, srcs.first())
        {
            let (n, moff) = (w.exec.size as u32, w.exec.mask.channel_offset());
            if moff < 32 {
                out[k] = (span(n, moff), ((*bits as u32) & alu::full(n)) << moff);
            }
        }
    }
    out
}

/// What instruction `inst` touches when it runs as `run`.
fn foot(
    inst: &PInst,
    run: Run,
    (grf, target, column): (u32, Target, Option<Option<Column>>),
    known: (u32, u32),
    cr0: u32,
) -> Foot {
    let mut f = Foot::default();
    let moff = inst.exec.mask.channel_offset();
    let per_lane = run == Run::PerLane;
    let lane_of = |i: u32| per_lane.then_some(i + moff);
    if let Some(p) = inst.pred {
        let n = inst.exec.size as u32;
        for i in 0..n {
            let l = if p.combine == PredCombine::Sequential {
                lane_of(i)
            } else {
                None
            };
            let bit = if i + moff < 32 { 1 << (i + moff) } else { 0 };
            f.pred_reads.push((p.id.0 as u32, bit, l));
        }
    }
    if super::is_message(inst.op) {
        msg_foot(inst, &lane_of, grf, &mut f);
    } else if !super::is_nop(inst.op) {
        f.reads.push((cr0, cr0 + 4, None));
        f.vec_reads.push(None);
        // Channels the predicate's known bits disable touch nothing (SEL's predicate
        // selects a source instead).
        let disabled = match inst.pred {
            Some(p) if p.combine == PredCombine::Sequential && inst.op != Opcode::Sel => {
                let enabling = if p.inverse { !known.1 } else { known.1 };
                known.0 & !enabling
            }
            _ => 0,
        };
        let only = single_lane(inst, known).filter(|_| per_lane);
        alu_foot(
            inst,
            &lane_of,
            (grf, target, column),
            (disabled, only),
            &mut f,
        );
    }
    debug_assert_eq!(f.reads.len(), f.vec_reads.len());
    debug_assert_eq!(f.writes.len(), f.vec_writes.len());
    f
}

fn choose(inst: &PInst, simd: u32, grf: u32, straight: bool) -> Run {
    use Opcode::*;
    let n = inst.exec.size as u32;
    let moff = inst.exec.mask.channel_offset();
    let fits = n > 1 && moff + n <= simd;
    // Straight code: each invocation follows its own channel's branches, reading its
    // own predicate bit.
    if straight && fits && matches!(inst.op, Goto | Jmp | Ret) {
        return Run::PerLane;
    }
    // A short NoMask vector (a transposed message's payload, IGC's 64-bit stack pointer
    // as two dwords: `mov (M1_NM, 4)`, a `gather_scaled (M1_NM, 2)` of a `__local`
    // pair) holds values of the thread, not of channels 0-3: in straight code every
    // invocation computes all of it, as the thread does whenever its block runs
    // (outside the entry blocks only the channels on the path would make their
    // elements: nonuniform_groups tgllp read `acc[1]` as 0 when its gather ran so).
    let thread_vector = straight && inst.exec.mask.no_mask && n <= 4 && n < simd;
    if super::is_message(inst.op) {
        if fits && per_lane_message(inst) && !thread_vector {
            return Run::PerLane;
        }
        // Straight plans run a whole-thread store where one channel at most reaches it
        // (`lane_memory::conditions` checks that), in that channel's invocation.
        return if message_effects(inst).1 && !straight {
            Run::Lane0
        } else {
            Run::Uniform
        };
    }
    if super::is_nop(inst.op)
        || matches!(
            inst.op,
            Goto | Jmp | Call | Ret | Fret | Switchjmp | Barrier | Sbarrier | Nbarrier | Movs
        )
    {
        return Run::Uniform;
    }
    if thread_vector {
        return Run::Uniform;
    }
    let (dsts, srcs, _) = inst.alu_operands();
    // Straight code: an address register's elements per lane like a lane vector's
    // (`indirect_operands.rs` checks that each copy then holds what its reads need).
    // An indirect destination: the lane's element, in its column of the variable
    // (`indirect_operands.rs`).
    let plain_dst = dsts.iter().all(|d| {
        matches!(d, Dst::Direct { .. } | Dst::Pred(_) | Dst::Null)
            || (straight && matches!(d, Dst::Addr { .. } | Dst::Indirect { .. }))
    });
    // An indirect operand buffers the thread's results (it may read what it writes);
    // a straight lane reads its one element from its copy before it writes it.
    let indirect = srcs.iter().any(|s| matches!(s, Src::Indirect { .. }))
        || dsts.iter().any(|d| matches!(d, Dst::Indirect { .. }));
    let buffered = if straight && indirect {
        alu::direct_overlap(inst, grf)
    } else {
        alu::two_pass(inst, grf)
    };
    if fits && plain_dst && !buffered {
        Run::PerLane
    } else {
        Run::Uniform
    }
}

/// Who writes each byte per lane (0 = nobody, c + 1 = only lane c, `u32::MAX` =
/// several), and the same per predicate bit.
fn byte_owners(feet: &[Foot], total: usize, npred: usize) -> (Vec<u32>, Vec<[u32; 32]>) {
    let mut owner = vec![0u32; total];
    let mut pred_owner = vec![[0u32; 32]; npred];
    let own = |o: &mut u32, l: u32| {
        *o = if *o == 0 || *o == l + 1 {
            l + 1
        } else {
            u32::MAX
        };
    };
    for f in feet {
        for &(a, b, l) in &f.writes {
            if let Some(l) = l {
                for x in a..b.min(total as u32) {
                    own(&mut owner[x as usize], l);
                }
            }
        }
        for &(pid, bits, l) in &f.pred_writes {
            if let (Some(l), Some(po)) = (l, pred_owner.get_mut(pid as usize)) {
                for (c, o) in po.iter_mut().enumerate() {
                    if bits & (1 << c) != 0 {
                        own(o, l);
                    }
                }
            }
        }
    }
    (owner, pred_owner)
}

/// The per-channel layout of the variable `target` reaches, if an indirect
/// destination writes it.
fn column_of(columns: &[Written], target: Target) -> Option<Column> {
    match target {
        Target::Known(lo, hi) => columns
            .iter()
            .find(|(r, _)| *r == (lo, hi))
            .and_then(|x| x.1),
        _ => None,
    }
}

/// [`plan`] over the kernel's own basic blocks.
pub fn plan_kernel(p: &Prepared) -> Plan {
    plan(p, &super::blocks::split(&p.insts), false)
}

/// Plan lane mode for an eligible kernel (see [`ineligible`]); `straight`: for the
/// straight mapping (`simt.rs`), where branches are per lane and launch-initialized
/// lane vectors may live in registers.
pub(super) fn plan(p: &Prepared, blocks: &super::blocks::Blocks, straight: bool) -> Plan {
    plan_forced(p, blocks, straight, &[])
}

/// [`plan`] with the instructions `uniform` marks run whole in every lane
/// (`exchange.rs`: NoMask code in the entry blocks, which the thread runs for all of
/// its channels).
pub(super) fn plan_forced(
    p: &Prepared,
    blocks: &super::blocks::Blocks,
    straight: bool,
    uniform: &[bool],
) -> Plan {
    let grf = p.grf_bytes;
    let total = 4 * p.layout.total.div_ceil(4).max(1) as usize;
    let npred = p.kernel.preds.len().max(1);
    let run: Vec<Run> = p
        .insts
        .iter()
        .enumerate()
        .map(|(k, i)| {
            if uniform.get(k) == Some(&true) {
                Run::Uniform
            } else {
                choose(i, p.simd, grf, straight)
            }
        })
        .collect();
    let targets = super::indirect_operands::targets(p);
    let known = known_pred_bits(p);
    let feet_with = |columns: Option<&[Written]>| -> Vec<Foot> {
        (0..p.insts.len())
            .map(|k| {
                let column = columns.map(|cs| column_of(cs, targets[k]));
                foot(
                    &p.insts[k],
                    run[k],
                    (grf, targets[k], column),
                    known[k],
                    p.pre.cr0,
                )
            })
            .collect()
    };
    // Indirect destinations write their lane's column of a variable laid out per
    // channel, a layout read off the other writes (`indirect_operands::columns`).
    let indirect_dsts = p.insts.iter().any(|i| {
        i.fields
            .iter()
            .any(|f| matches!(f, PField::Dst(Dst::Indirect { .. })))
    });
    let columns = if indirect_dsts {
        let owner = byte_owners(&feet_with(None), total, npred).0;
        super::indirect_operands::columns(p, &targets, &owner)
    } else {
        Vec::new()
    };
    let feet = feet_with(Some(&columns));
    let (owner, pred_owner) = byte_owners(&feet, total, npred);
    // A read is fine when nobody wrote the byte per lane, or only the reading lane did.
    let ok = |o: u32, l: Option<u32>| o == 0 || l.is_some_and(|l| o == l + 1);
    let mut mirrored = vec![false; total / 4 + 1];
    let mut mirrored_preds = vec![false; npred];
    let mut first_cross_read = None;
    let mut cross: Vec<Touched> = Vec::with_capacity(feet.len());
    for (k, f) in feet.iter().enumerate() {
        let (mut bytes, mut preds): Touched = Default::default();
        for &(a, b, l) in &f.reads {
            for x in a..b.min(total as u32) {
                if !ok(owner[x as usize], l) {
                    mirrored[x as usize / 4] = true;
                    first_cross_read.get_or_insert(k);
                    match bytes.last_mut() {
                        Some(r) if r.1 == x => r.1 = x + 1,
                        _ => bytes.push((x, x + 1)),
                    }
                }
            }
        }
        for &(pid, bits, l) in &f.pred_reads {
            if let Some(po) = pred_owner.get(pid as usize) {
                if (0..32).any(|c| bits & (1 << c) != 0 && !ok(po[c], l)) {
                    mirrored_preds[pid as usize] = true;
                    first_cross_read.get_or_insert(k);
                    preds.push(pid);
                }
            }
        }
        cross.push((bytes, preds));
    }
    // Lane 0's results reach the other lanes through the mirror.
    for (f, r) in feet.iter().zip(&run) {
        if *r == Run::Lane0 {
            for &(a, b, _) in &f.writes {
                for x in a..b.min(total as u32) {
                    mirrored[x as usize / 4] = true;
                }
            }
        }
    }
    let own_preds = own_lane_preds(&feet, npred);
    let mut publish = Vec::with_capacity(feet.len());
    let mut mirrors = Vec::with_capacity(feet.len());
    for (f, r) in feet.iter().zip(&run) {
        let mut words: Vec<u32> = f
            .writes
            .iter()
            .flat_map(|&(a, b, _)| (a / 4)..b.div_ceil(4))
            .filter(|&w| mirrored.get(w as usize).copied().unwrap_or(false))
            .collect();
        words.sort_unstable();
        words.dedup();
        let mut preds: Vec<u32> = f
            .pred_writes
            .iter()
            .map(|x| x.0)
            .filter(|&pid| mirrored_preds.get(pid as usize).copied().unwrap_or(false))
            .collect();
        preds.sort_unstable();
        preds.dedup();
        mirrors.push(!words.is_empty() || !preds.is_empty());
        if *r == Run::Uniform {
            publish.push(Publish::default());
            continue;
        }
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        for w in words {
            match ranges.last_mut() {
                Some(last) if last.1 == w => last.1 = w + 1,
                _ => ranges.push((w, w + 1)),
            }
        }
        publish.push(Publish {
            words: ranges,
            preds,
        });
    }
    // Memory hazards: another lane's access to the same address may come earlier.
    let any_write = feet.iter().any(|f| f.mem_write);
    let mut sync_before = vec![false; feet.len()];
    for range in &blocks.ranges {
        let (mut wrote, mut touched) = (any_write, any_write);
        for k in range.clone() {
            let f = &feet[k];
            if (f.mem_read && wrote) || (f.mem_write && touched) {
                sync_before[k] = true;
                wrote = false;
                touched = false;
            }
            touched |= f.mem_read || f.mem_write;
            wrote |= f.mem_write;
            if !publish[k].is_empty() {
                // A publication meets with a storage barrier too.
                wrote = false;
                touched = false;
            }
        }
    }
    let xg_words = mirrored
        .iter()
        .rposition(|&m| m)
        .map_or(1, |w| w as u32 + 1);
    let (promoted, promoted_inputs, in_registers) = promote(p, &feet, &mirrored, total, straight);
    // What each instruction touches, whichever lane does it.
    let touched = |bytes: &[(u32, u32, Option<u32>)], preds: &[(u32, u32, Option<u32>)]| {
        (
            bytes.iter().map(|&(a, b, _)| (a, b)).collect(),
            preds.iter().map(|x| x.0).collect(),
        )
    };
    let writes = feet
        .iter()
        .map(|f| touched(&f.writes, &f.pred_writes))
        .collect();
    let reads = feet
        .iter()
        .map(|f| touched(&f.reads, &f.pred_reads))
        .collect();
    Plan {
        run,
        mirrored,
        mirrored_preds,
        first_cross_read,
        own_preds,
        publish,
        mirrors,
        sync_before,
        xg_words,
        promoted,
        promoted_inputs,
        in_registers,
        mem: feet.iter().map(|f| (f.mem_read, f.mem_write)).collect(),
        writes,
        reads,
        owner,
        pred_owner,
        cross,
        indirect: targets,
        columns,
        unread: unread_setps(p, &known),
        known_preds: known,
        led: Vec::new(),
    }
}

impl Plan {
    /// The per-channel layout of the variable an indirect operand reaches, where an
    /// indirect destination writes it (`indirect_operands::Column`).
    pub fn column(&self, target: Target) -> Option<Column> {
        column_of(&self.columns, target)
    }

    /// GRF words some instruction reads from the GRF image (promoted lane vectors are
    /// read from their registers instead): the only words `init` must fill.
    pub fn image_reads(&self) -> Vec<bool> {
        let mut words = vec![false; self.mirrored.len()];
        for (bytes, _) in &self.reads {
            for &(a, b) in bytes {
                for w in (a / 4)..b.div_ceil(4) {
                    if let Some(x) = words.get_mut(w as usize) {
                        *x = true;
                    }
                }
            }
        }
        for (w, x) in words.iter_mut().enumerate() {
            *x &= !self.in_registers.get(w).copied().unwrap_or(false);
        }
        words
    }
}

/// The lane vectors that can live in registers: every access to any of their bytes
/// addresses exactly that vector regularly, and the launch does not initialize them
/// (`inputs`: or initializes them from inputs, whose element the invocation then
/// loads; returned second with the payload offset of element 0).
type Promoted = (Vec<(u32, u32)>, Vec<(u32, u32, u32)>, Vec<bool>);
fn promote(p: &Prepared, feet: &[Foot], mirrored: &[bool], total: usize, inputs: bool) -> Promoted {
    const BLOCKED: u32 = u32::MAX;
    let mut ids: Vec<(u32, u32)> = Vec::new();
    // Each vector's place in `ids` (a search of `ids` per access made this the
    // translator's hot spot: private_array_large, 1.3 of its 2.7 s).
    let mut id_of: super::fast_map::FastMap<(u32, u32), u32> = Default::default();
    let mut claim = vec![0u32; total];
    let mut past = super::fast_map::FastSet::default();
    let mut mark = |a: u32, b: u32, v: Option<(u32, u32)>, claim: &mut Vec<u32>| {
        let id = match v {
            Some(v) => *id_of.entry(v).or_insert_with(|| {
                ids.push(v);
                ids.len() as u32
            }),
            None => BLOCKED,
        };
        for x in a..b.min(total as u32) {
            let c = &mut claim[x as usize];
            *c = if *c == 0 || *c == id { id } else { BLOCKED };
        }
        // An access past the image cannot be in a register either.
        if b as usize > total {
            past.insert(id);
        }
    };
    for f in feet {
        for (&(a, b, _), v) in f.reads.iter().zip(&f.vec_reads) {
            mark(a, b, *v, &mut claim);
        }
        for (&(a, b, _), v) in f.writes.iter().zip(&f.vec_writes) {
            mark(a, b, *v, &mut claim);
        }
    }
    if !inputs {
        for &(goff, _, size) in &p.inputs {
            mark(goff, goff + size, None, &mut claim);
        }
    }
    let pre = &p.pre;
    // What `init` writes besides the inputs.
    for o in [pre.r0, pre.cr0, pre.sr0] {
        mark(o, o + p.grf_bytes, None, &mut claim);
    }
    for o in pre.group_id {
        mark(o, o + 4, None, &mut claim);
    }
    // A vector is regular when no byte its accesses touch is touched otherwise, and
    // no byte of its span is blocked (touched by an access that is no lane vector's,
    // or by two vectors) or mirrored. Bytes of its span that it never touches may
    // belong to other vectors: IGC places the two SIMD16 halves of a SIMD32 value
    // apart, so lanes 16-31 of the first half's vector hold the second half of
    // another. (A blocked byte in the span could be one an emitter still addresses
    // as this vector's element, through a path the footprint records as a whole
    // operand: GATHER/SCATTER.)
    let mut bad = vec![false; ids.len()];
    let mut seen = vec![false; ids.len()];
    for &c in &claim {
        if c != 0 && c != BLOCKED {
            seen[c as usize - 1] = true;
        }
    }
    for (k, b) in bad.iter_mut().enumerate() {
        let (base, e) = ids[k];
        let span = base as usize..((base + p.simd * e) as usize).min(total);
        // Every byte it touched went to another claim too.
        *b |= !seen[k]
            || past.contains(&(k as u32 + 1))
            || span.clone().any(|x| claim[x] == BLOCKED || mirrored[x / 4]);
    }
    // Bytes a vector touched that another access also touched block it: find them by
    // replaying its accesses against the final claims.
    let mut extent = vec![(u32::MAX, 0u32); ids.len()];
    for f in feet {
        let accesses = f
            .reads
            .iter()
            .zip(&f.vec_reads)
            .chain(f.writes.iter().zip(&f.vec_writes));
        for (&(a, b, _), v) in accesses {
            let Some(k) = v.and_then(|v| id_of.get(&v)).map(|&id| id as usize - 1) else {
                continue;
            };
            if (a..b.min(total as u32)).any(|x| claim[x as usize] != k as u32 + 1) {
                bad[k] = true;
            }
            extent[k] = (extent[k].0.min(a), extent[k].1.max(b));
        }
    }
    // A vector the launch initializes is promoted when inputs that lie back to back
    // in the payload as in the GRF cover the bytes it touches (IGC's SIMD32 local
    // ids: two inputs of 16 channels each); each invocation loads its element.
    let (mut plain, mut loaded) = (Vec::new(), Vec::new());
    for (k, &(base, e)) in ids.iter().enumerate() {
        if bad[k] || (base + p.simd * e) as usize > total {
            continue;
        }
        let (from, to) = extent[k];
        let overlaps: Vec<_> = p
            .inputs
            .iter()
            .filter(|&&(goff, _, size)| from < goff + size && goff < to)
            .collect();
        if overlaps.is_empty() {
            plain.push((base, e));
        } else if let Some(poff) = linear_payload(&overlaps, from, to)
            .and_then(|d| u32::try_from(i64::from(base) - d).ok())
        {
            plain.push((base, e));
            loaded.push((base, e, poff));
        }
    }
    // GRF words whose every touched byte is a promoted vector's: `init` leaves them.
    // Indexed by claim (a vector's place in `ids` plus one): a search of `plain` per
    // byte was quadratic in the vectors (private_array_large: thousands).
    let mut ours = vec![false; ids.len() + 1];
    for v in &plain {
        if let Some(&id) = id_of.get(v) {
            ours[id as usize] = true;
        }
    }
    let is_ours = |c: u32| ours.get(c as usize).copied().unwrap_or(false);
    let in_registers = claim
        .chunks(4)
        .map(|w| w.iter().all(|&c| c == 0 || is_ours(c)) && w.iter().any(|c| *c != 0))
        .collect();
    (plain, loaded, in_registers)
}

/// The GRF-to-payload distance (GRF offset minus payload offset) when the inputs
/// `ins` (`(grf offset, payload offset, size)`) cover `[base, end)` without a gap and
/// place it in the payload in one piece (the same distance for all).
fn linear_payload(ins: &[&(u32, u32, u32)], base: u32, end: u32) -> Option<i64> {
    let delta = |&&(goff, poff, _): &&(u32, u32, u32)| i64::from(goff) - i64::from(poff);
    let d = delta(ins.first()?);
    if ins.iter().any(|i| delta(i) != d) {
        return None;
    }
    let mut sorted: Vec<_> = ins
        .iter()
        .map(|&&(goff, _, size)| (goff, goff + size))
        .collect();
    sorted.sort_unstable();
    let mut covered = base;
    for (a, b) in sorted {
        if a > covered {
            return None;
        }
        covered = covered.max(b);
    }
    if covered < end {
        return None;
    }
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `setp` NoMask of an immediate makes its bits known to the readers after it in
    /// straight-line code (not past a label, not after another write); the `setp` is
    /// dropped only where every reader folds it (a SEL, whose predicate selects, or a
    /// predicate source keeps it).
    #[test]
    fn known_predicate_bits_and_unread_setps() {
        let p = super::super::test_kernel(
            ".decl V0032 v_type=G type=d num_elts=16 align=hword\n\
             .decl V0033 v_type=G type=d num_elts=16 align=hword\n\
             .decl P1 v_type=P num_elts=16\n\
             .decl P2 v_type=P num_elts=16\n\
             .decl P3 v_type=P num_elts=16\n",
            16,
            "setp (M1_NM, 16) P1 0x4:ud\n\
             (P1) mov (M1, 16) V0033(0,0)<1> V0032(0,0)<1;1,0>\n\
             (!P1) add (M1, 8) V0033(0,0)<1> V0032(0,0)<1;1,0> 0x1:d\n\
             setp (M1_NM, 16) P2 0x3:ud\n\
             (P2) sel (M1, 16) V0033(0,0)<1> V0032(0,0)<1;1,0> 0x1:d\n\
             setp (M5_NM, 8) P3 0x1:ud\n\
             _L1:\n\
             (P3) mov (M5, 8) V0033(0,0)<1> V0032(0,0)<1;1,0>\n",
        );
        let known = known_pred_bits(&p);
        let at = |i: usize| p.insts.iter().position(|x| x.index == i).unwrap();
        assert_eq!(known[at(1)], (0xffff, 0x4));
        // The inverse reads the same bits; one channel of M1 8 runs it: none, as 0x4
        // enables channel 2, which the inverse disables.
        assert_eq!(known[at(2)], (0xffff, 0x4));
        assert_eq!(single_lane(&p.insts[at(1)], known[at(1)]), Some(2));
        assert_eq!(single_lane(&p.insts[at(2)], known[at(2)]), None);
        assert!(!pred_folded(&p.insts[at(4)], known[at(4)]), "SEL selects");
        // Past the label the bits are not known.
        assert_eq!(known[at(7)], (0, 0));
        let unread = unread_setps(&p, &known);
        assert_eq!(
            (unread[at(0)], unread[at(3)], unread[at(5)]),
            (true, false, false)
        );
    }

    #[test]
    fn parts_of_a_lane_vector() {
        // Whole elements: the vector starts at lane 0's element, aligned or not.
        let whole = lane_part(3040, 4, 4, 8).unwrap();
        assert_eq!(
            (whole.base, whole.elem, whole.k, whole.len),
            (3008, 4, 0, 4)
        );
        assert_eq!(lane_vector(3042, 4, 4, 0), Some((3042, 4)));
        // The high half of lane 16's 64-bit element, the low byte of a dword.
        let hi = lane_part(3268, 8, 4, 16).unwrap();
        assert_eq!((hi.base, hi.elem, hi.k, hi.len), (3136, 8, 4, 4));
        assert_eq!(lane_vector(2464, 4, 1, 0), Some((2464, 4)));
        // A part that would straddle two elements, or misaligned within its own.
        assert_eq!(lane_part(3138, 8, 8, 0).map(|p| p.k), Some(0));
        assert_eq!(lane_part(3142, 8, 4, 0), None);
        assert_eq!(lane_part(3137, 8, 2, 0), None);
        assert_eq!(lane_part(100, 3, 1, 0), None);
        assert_eq!(lane_part(100, 4, 3, 0), None);
        // Element 0 would lie before the GRF.
        assert_eq!(lane_part(16, 4, 4, 8), None);
    }

    #[test]
    fn part_accessors_touch_only_their_bytes() {
        let part = |elem, k, len| LanePart {
            base: 0,
            elem,
            k,
            len,
        };
        let hi = part(8, 4, 4);
        assert_eq!(part_read("r", hi), "((u64(r) >> 32u) & 4294967295lu)");
        assert_eq!(
            part_store("r", hi, "v"),
            "r = (r & 4294967295lu) | (((v) & 4294967295lu) << 32u);"
        );
        let byte1 = part(4, 1, 1);
        assert_eq!(
            part_store("r", byte1, "v"),
            "r = (r & 4294902015u) | u32((((v) & 255lu) << 8u));"
        );
        assert_eq!(part_read("r", part(4, 0, 4)), "u64(r)");
    }

    #[test]
    fn inputs_cover_a_vector_in_one_payload_piece() {
        // IGC's SIMD32 local ids: two 32-byte inputs back to back in both places.
        let (a, b) = ((1792, 32, 32), (1824, 64, 32));
        assert_eq!(linear_payload(&[&a, &b], 1792, 1856), Some(1760));
        assert_eq!(linear_payload(&[&b, &a], 1800, 1856), Some(1760));
        // Apart in the payload, a gap in the GRF, or short of the vector's end.
        assert_eq!(linear_payload(&[&a, &(1824, 96, 32)], 1792, 1856), None);
        assert_eq!(linear_payload(&[&a, &(1828, 68, 28)], 1792, 1856), None);
        assert_eq!(linear_payload(&[&a], 1792, 1856), None);
        assert_eq!(linear_payload(&[&a], 1796, 1824), Some(1760));
    }
}
