//! Placed flat atomics whose bytes provably lie within a known span after their
//! pointer, which then need no check in the shader.
//!
//! A placed access is checked against its base's allocation on every run (`flat_at`):
//! atomic_histogram at 262,144 items spends a sixth of its GPU time on that check on
//! llvmpipe. Where IGC builds a 64-bit address from dword halves (tgllp, acm-g10) as
//! `addc L C ptr.lo x`, `add H C ptr.hi`, `mov A(0,0)<2> L`, `mov A(0,1)<2> H`, and
//! `x` is a value of few bits (a byte zero-extended, shifted: the bin of a histogram),
//! every channel's address is `ptr + x` with `x <= max`. The host checks that the
//! pointer is word-aligned and its allocation holds `[ptr, ptr + span)`
//! (`Conditions::flat_spans`); then
//! `ptr.lo + x` does not carry (allocations lie below 4 GiB each, on 4 GiB
//! boundaries), the high half is the pointer's, and the access stays inside the
//! allocation, on a word: its heap word is the low half's, unchecked (`flat_in`), and
//! the atomic applies to it directly.

use super::{imm_value, writes_ints, Chain, Chains};
use crate::interp::prepare::{Dst, PInst, Src};
use crate::interp::thread::{fint as int, fraw as raw};
use crate::ir::{DataType, Modifier};
use crate::isa::Opcode;
use crate::translate::lanes::{self, Run};

/// How many definitions [`bound`] follows back.
const DEPTH: u32 = 8;

/// The bytes after the pointer (placed base at payload byte `ptr`) that 32-bit atomic
/// `k` (SVM, or LSC on flat addresses) touches in any channel, where every channel's
/// address provably is the pointer plus a bounded multiple of 4 (the host checks the
/// pointer is word-aligned).
pub(super) fn span(c: &Chains, k: usize, ptr: u32) -> Option<u64> {
    use crate::translate::message::{atomic_width, lsc_shape};
    let inst = &c.p.insts[k];
    let n = inst.exec.size as u32;
    let (reg, bytes) = match inst.op {
        Opcode::SvmAtomic => (raw(inst, "Addresses")?, atomic_width(inst) / 8),
        Opcode::LscUntyped
            if (0x08..=0x1a).contains(&int(inst, "LscSubOp"))
                && int(inst, "LscSFID") != 3
                && int(inst, "AddrImmOffset") == 0
                && int(inst, "AddrScale") <= 1
                && int(inst, "AddrType") == 1 =>
        {
            let s = lsc_shape(inst, n, c.p.grf_bytes);
            if s.asize != 8 || s.vec > 1 || s.transpose {
                return None;
            }
            (raw(inst, "Src0Addrs")?, s.mem_bytes)
        }
        _ => return None,
    };
    if c.plan.run[k] != Run::PerLane || bytes != 4 {
        return None;
    }
    let chain = c.chain(k);
    let moff = inst.exec.mask.channel_offset();
    let mut most = 0u64;
    for i in 0..n {
        let x = offset_bound(&chain, reg + 8 * i, k, moff + i, ptr)?;
        most = most.max(x);
    }
    most.checked_add(u64::from(bytes))
}

/// The largest offset from the pointer at payload byte `ptr` that channel `ch`'s
/// 64-bit address at GRF byte `at` holds at instruction `k`: its halves copied from
/// an `addc` of the pointer's low half and a bounded value, and an `add` of that
/// `addc`'s carry and the pointer's high half.
fn offset_bound(c: &Chain, at: u32, k: usize, ch: u32, ptr: u32) -> Option<u64> {
    let half = |b: u32| {
        let (d, e) = def(c, b, 4, k, ch)?;
        let inst = &c.p.insts[d];
        let (_, srcs, _) = inst.alu_operands();
        match (inst.op, srcs.as_slice()) {
            (Opcode::Mov, [s]) if writes_half(inst, b, e) => Some((d, src_at(s, inst, e)?)),
            _ => None,
        }
    };
    let ((dl, lo), (dh, hi)) = (half(at)?, half(at + 4)?);
    // The low half: `addc L C ptr.lo x` in channel ch.
    let (a, e) = def(c, lo.0, 4, dl, ch)?;
    let addc = &c.p.insts[a];
    let (dsts, srcs, _) = addc.alu_operands();
    let (
        Opcode::Addc,
        [Dst::Direct {
            off,
            ty,
            hs,
            sat: false,
            ..
        }, Dst::Direct {
            off: coff,
            ty: cty,
            hs: chs,
            ..
        }],
    ) = (addc.op, dsts.as_slice())
    else {
        return None;
    };
    if lo.0 != off + e * hs * ty.size() || ty.size() != 4 || cty.size() != 4 {
        return None;
    }
    let carry = coff + e * chs * 4;
    let pointer = |s: &Src, half: u32| {
        matches!(s, Src::Direct { ty, m: Modifier::None, .. } if ty.size() == 4)
            && lanes::src_linear(s, addc.exec.size as u32).is_some_and(|(from, stride)| {
                stride == 0 && c.input_scalar(from, 4) == Some(ptr + half)
            })
    };
    let x = match srcs.as_slice() {
        [p, x] | [x, p] if pointer(p, 0) => src_at(x, addc, e)?,
        _ => return None,
    };
    // The high half: `add H C ptr.hi`, C this channel's carry of that `addc`.
    let (h, eh) = def(c, hi.0, 4, dh, ch)?;
    let add = &c.p.insts[h];
    let (_, hsrcs, _) = add.alu_operands();
    let is_carry = |s: &Src| {
        src_at(s, add, eh).is_some_and(|(b, t)| b == carry && t.size() == 4)
            && c.reaching(carry, carry + 4, h).ok().flatten() == Some(a)
    };
    let high = add.op == Opcode::Add
        && add.pred.is_none()
        && matches!(hsrcs.as_slice(), [q, p] | [p, q] if is_carry(q) && pointer(p, 4));
    let whole =
        hi.0.checked_sub(eh * 4)
            .is_some_and(|start| writes_ints(add, start, 4, Some(1)));
    if !high || !whole {
        return None;
    }
    // Word-aligned offsets only: the host checks the pointer is, so the atomic's word
    // needs no alignment check either.
    bound(c, x.0, x.1, a, ch, 0).and_then(|(most, zeros)| (zeros >= 2).then_some(most))
}

/// The definition of channel `ch`'s `size` bytes at GRF byte `at` that reaches
/// instruction `before`, which that channel ran (unpredicated, its channels covering
/// `ch`), and `ch`'s element index there.
fn def(c: &Chain, at: u32, size: u32, before: usize, ch: u32) -> Option<(usize, u32)> {
    let d = c.reaching(at, at + size, before).ok()??;
    let inst = &c.p.insts[d];
    let dm = inst.exec.mask.channel_offset();
    let runs = inst.pred.is_none()
        && c.ran_before(d, before)
        && (c.plan.run[d] == Run::PerLane || c.plan.run[d] == Run::Uniform)
        && dm <= ch
        && ch < dm + inst.exec.size as u32;
    runs.then_some((d, ch - dm))
}

/// Whether `inst` writes 4-byte integer element `e` at GRF byte `at`, every other
/// dword (one half of 64-bit addresses).
fn writes_half(inst: &PInst, at: u32, e: u32) -> bool {
    at.checked_sub(e * 8)
        .is_some_and(|start| writes_ints(inst, start, 4, Some(2)))
}

/// The GRF byte and type of element `e` of source `s` (a plain linear region).
fn src_at(s: &Src, inst: &PInst, e: u32) -> Option<(u32, DataType)> {
    let (ty, from, stride) = super::plain_linear(s, inst.exec.size as u32)?;
    Some((from + e * stride, ty))
}

/// The largest value channel `ch`'s element of type `ty` at GRF byte `at` holds at
/// instruction `before`, read as unsigned (a zero-extended byte or word, shifted
/// left, masked, or the sum of two such values, within 32 bits), and how many of its
/// low bits are provably zero.
fn bound(
    c: &Chain,
    at: u32,
    ty: DataType,
    before: usize,
    ch: u32,
    depth: u32,
) -> Option<(u64, u32)> {
    const U32: u64 = u32::MAX as u64;
    if depth > DEPTH || !ty.is_int() || ty.size() > 4 {
        return None;
    }
    let (d, e) = def(c, at, ty.size(), before, ch)?;
    let inst = &c.p.insts[d];
    let (_, srcs, _) = inst.alu_operands();
    if !writes_ints(inst, at.checked_sub(e * ty.size())?, ty.size(), Some(1)) {
        return None;
    }
    let value = |s: &Src| match s {
        Src::Imm { ty, bits } if ty.is_int() => {
            let v = u64::try_from(imm_value(*ty, *bits)).ok()?;
            Some((v, v.trailing_zeros().min(32)))
        }
        _ => {
            let (b, t) = src_at(s, inst, e)?;
            match t {
                DataType::UB => Some((0xff, 0)),
                DataType::UW => Some((0xffff, 0)),
                _ if t.size() == 4 => bound(c, b, t, d, ch, depth + 1),
                _ => None,
            }
        }
    };
    let (most, zeros) = match (inst.op, srcs.as_slice()) {
        (Opcode::Mov, [s]) => value(s)?,
        (Opcode::Shl, [s, Src::Imm { bits, .. }]) if *bits < 32 => {
            let (m, z) = value(s)?;
            (m << bits, (z + *bits as u32).min(32))
        }
        // A mask bounds the value and clears the low bits it clears.
        (Opcode::And, [a, b]) => match (value(a), value(b)) {
            (Some((x, zx)), Some((y, zy))) => (x.min(y), zx.max(zy)),
            (Some(v), None) | (None, Some(v)) => v,
            (None, None) => return None,
        },
        (Opcode::Add, [a, b]) => {
            let ((x, zx), (y, zy)) = (value(a)?, value(b)?);
            (x + y, zx.min(zy))
        }
        _ => return None,
    };
    (most <= U32 && most < 1u64 << (8 * ty.size())).then_some((most, zeros))
}
