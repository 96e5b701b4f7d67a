//! Binding-table loads and stores whose every channel's address the host proves
//! inside the entry, which then need no bounds check in the shader.
//!
//! A straight module checks each binding-table access against its entry's size
//! (`bti_at`, `bti_word`): out of bounds a load gives 0 and a store goes nowhere, both
//! counted. atomic_histogram at 262,144 items spends a seventh of its GPU time on its
//! byte load's check on llvmpipe. Where the address register is a linear function of
//! the launch (`Chain::vector`: payload vectors such as the local ids, times kernel
//! arguments, plus the group's base and constants), the host bounds it over every
//! dispatched channel before the run (`super::bound_check`); where every
//! address lies inside its entry, the shader reads the heap at the entry's offset
//! plus the address (`bti_in`). Where the proof fails for a launch (a guard `i < n`
//! under a rounded-up NDRange), the host translates the kernel again without it
//! (`Target::prove_bounds`): a check behind a uniform branch would cost more on
//! llvmpipe than the check itself.

use super::{group_id_bytes, imm_value, space, writes_any, Affine, Chain, Chains, Space, Term};
use crate::interp::prepare::{Dst, PField, Src};
use crate::interp::thread::{ffld as field, fint as int, fraw as raw};
use crate::ir::Modifier;
use crate::isa::Opcode;
use crate::translate::lanes;
use crate::translate::lanes::Run;

/// A proven access: channel c's address is `scale · ((Σ terms + konst) mod 2^32) +
/// offset`, and it touches `bytes` from there, in channels `moff..moff + n`, through
/// binding-table entry `bti`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BtiBound {
    pub bti: u32,
    pub terms: Vec<Term>,
    pub konst: i64,
    pub scale: u64,
    pub offset: i64,
    pub bytes: u64,
    pub moff: u32,
    pub n: u32,
    /// The compare of the branch before it, where one lets only some channels through
    /// (`if (i < n)`): only those must address inside the entry.
    pub runs_where: Option<RunsWhere>,
}

/// A branch's compare `v rel b` (32-bit, signed or not): v a form like an address's,
/// b a sum of payload scalars and a constant; a channel goes through where the
/// compare's result is `through_when_set`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunsWhere {
    pub terms: Vec<Term>,
    pub konst: i64,
    pub bound: Vec<Term>,
    pub bound_konst: i64,
    pub signed: bool,
    /// 2 gt, 3 ge, 4 lt, 5 le (`isa::syntax`'s codes).
    pub rel: u8,
    pub through_when_set: bool,
}

impl BtiBound {
    /// Whether the payload bytes it reads over `simd` channels lie in the group id
    /// words (then every group's threads must be evaluated, not the first group's).
    pub fn reads_group_ids(&self, simd: u32) -> bool {
        let guard = self
            .runs_where
            .iter()
            .flat_map(|r| r.terms.iter().chain(&r.bound));
        self.terms.iter().chain(guard).any(|t| {
            group_id_bytes(t.offset, t.bytes.saturating_mul(simd))
                || t.factors.iter().any(|&(o, n)| group_id_bytes(o, n))
        })
    }
}

/// The bound of access `k` (a legacy scaled gather or scatter, or an untransposed LSC
/// load or store, through a binding-table entry), where its address register is a
/// linear function of the launch and each element it moves is a byte or an aligned
/// word (the forms `message.rs` then writes without a check).
pub(super) fn bound(c: &Chains, targets: &[bool], k: usize) -> Option<BtiBound> {
    let inst = &c.p.insts[k];
    let Some(Space::Bti(bti)) = space(c.p, k) else {
        return None;
    };
    if c.plan.run[k] != Run::PerLane {
        return None;
    }
    let n = inst.exec.size as u32;
    let moff = inst.exec.mask.channel_offset();
    // (address register, scale, constant offset, element bytes, bytes from the address)
    let (reg, scale, offset, elem, bytes) = match inst.op {
        Opcode::GatherScaled | Opcode::ScatterScaled => {
            let Some(PField::Src(Src::Imm { bits, .. })) = field(inst, "Offset") else {
                return None;
            };
            let e = 1u32 << (int(inst, "Num_blocks") & 3);
            let reg = raw(inst, "Element_offset")?;
            (reg, 1, i64::from(*bits as u32), e, u64::from(e))
        }
        // A word per enabled channel of four, channel c at the address plus 4c.
        Opcode::Gather4Scaled | Opcode::Scatter4Scaled => {
            let Some(PField::Src(Src::Imm { bits, .. })) = field(inst, "Offset") else {
                return None;
            };
            let mask = int(inst, "Channels") & 0xf;
            let reg = raw(inst, "Element_offset")?;
            let top = u64::from(mask.checked_ilog2()?) + 1;
            (reg, 1, i64::from(*bits as u32), 4, 4 * top)
        }
        Opcode::LscUntyped if matches!(int(inst, "LscSubOp"), 0x00 | 0x04) => {
            let s = crate::translate::message::lsc_shape(inst, n, c.p.grf_bytes);
            if s.asize != 4 || s.transpose {
                return None;
            }
            let scale = int(inst, "AddrScale").max(1);
            let imm = i64::from(int(inst, "AddrImmOffset") as u32 as i32);
            let reg = raw(inst, "Src0Addrs")?;
            (
                reg,
                scale,
                imm,
                s.mem_bytes,
                u64::from(s.vec.max(1) * s.mem_bytes),
            )
        }
        _ => return None,
    };
    let chain = c.chain(k);
    let f = chain.vector(reg, 4, moff, n, k, 0)?;
    if f.width < 32 {
        return None;
    }
    let terms = host_terms(&chain, &f)?;
    let runs_where = match super::guarding_goto(&chain, targets, k) {
        None => None,
        Some(g) => Some(runs_where(c, g, (moff, n))?),
    };
    // Words must be aligned for the unchecked form: every part of the address a
    // multiple of 4 (2^32 is one, so the wrap keeps it).
    let aligned = offset % 4 == 0
        && (scale % 4 == 0
            || (scale == 1 && f.konst % 4 == 0 && terms.iter().all(|t| t.coef % 4 == 0)));
    let load = matches!(inst.op, Opcode::GatherScaled | Opcode::Gather4Scaled)
        || (inst.op == Opcode::LscUntyped && int(inst, "LscSubOp") == 0x00);
    let plain = (elem == 1 && load) || (elem == 4 && aligned);
    plain.then_some(BtiBound {
        bti,
        terms,
        konst: f.konst,
        scale,
        offset,
        bytes,
        moff,
        n,
        runs_where,
    })
}

/// Form `f` as terms the host evaluates: its launch vectors, and its scalars as
/// products of payload scalars ([`scalar_products`]).
fn host_terms(chain: &Chain, f: &Affine) -> Option<Vec<Term>> {
    let mut terms: Vec<Term> = f
        .leaves
        .iter()
        .map(|&(l, coef)| Term {
            offset: l.at,
            bytes: l.bytes,
            signed: l.signed,
            factors: l.factors.iter().flatten().copied().collect(),
            pass: Vec::new(),
            coef,
        })
        .collect();
    for (scalars, coef) in &f.uni {
        let mut sum: Products = vec![(Vec::new(), *coef)];
        for s in scalars {
            if s.pass.is_some() {
                return None;
            }
            sum = times(&sum, &scalar_products(chain, s.at, s.size, 0)?)?;
        }
        terms.extend(product_terms(sum));
    }
    Some(terms)
}

/// The compare of `goto` at `g` (every write of its predicate: an unpredicated 32-bit
/// compare of one form with one bound, before the branch in a block that dominates
/// it, the writes together covering the access's channels `moff..moff + n`).
fn runs_where(c: &Chains, g: usize, (moff, n): (u32, u32)) -> Option<RunsWhere> {
    let p = c.p;
    let goto = &p.insts[g];
    let pred = goto.pred?;
    if pred.combine != crate::ir::PredCombine::Sequential {
        return None;
    }
    let pid = pred.id.0 as u32;
    let chain = c.chain(g);
    let gb = chain.block_of[g];
    let mut found: Option<RunsWhere> = None;
    let mut covered = Vec::new();
    for j in (0..p.insts.len()).filter(|&j| c.plan.writes[j].1.contains(&pid)) {
        let inst = &p.insts[j];
        let (dsts, srcs, ints) = inst.alu_operands();
        let plain = inst.op == Opcode::Cmp
            && inst.pred.is_none()
            && c.plan.run[j] == Run::PerLane
            && j < g
            && chain.dom[gb][chain.block_of[j]]
            && matches!(dsts.as_slice(), [Dst::Pred(d)] if d.0 as u32 == pid);
        let rel = u8::try_from(*ints.first()?).ok()?;
        if !plain || !(2..=5).contains(&rel) {
            return None;
        }
        let swapped = super::swapped_rel(u64::from(rel)) as u8;
        let (v, b, rel) = match srcs.as_slice() {
            [v @ Src::Direct { .. }, b] => (v, b, rel),
            [b, v @ Src::Direct { .. }] => (v, b, swapped),
            _ => return None,
        };
        let (jm, jn) = (inst.exec.mask.channel_offset(), inst.exec.size as u32);
        let (ty, off) = super::int_lane_vector(v, jn)?;
        if ty.size() != 4 {
            return None;
        }
        let at = Chain {
            blocks: [chain.block_of[j]; 2],
            ..chain
        };
        let f = at.vector(off, 4, jm, jn, j, 0)?;
        if f.width < 32 {
            return None;
        }
        let (bound, bound_konst) = match b {
            // An immediate the compare's type holds as it is.
            Src::Imm { ty: it, bits } if it.is_int() => {
                let k = imm_value(*it, *bits);
                let held = if crate::translate::lane_passes::signed(ty) {
                    i32::try_from(k).is_ok()
                } else {
                    u32::try_from(k).is_ok()
                };
                if !held {
                    return None;
                }
                (Vec::new(), k)
            }
            // A scalar bound of the compare's signedness (the compare's type is then
            // one for both sides).
            Src::Direct {
                ty: bt,
                m: Modifier::None,
                ..
            } if bt.is_int()
                && bt.size() <= 4
                && crate::translate::lane_passes::signed(*bt)
                    == crate::translate::lane_passes::signed(ty) =>
            {
                let (from, st) = lanes::src_linear(b, jn)?;
                if st != 0 {
                    return None;
                }
                (product_terms(scalar_products(&at, from, bt.size(), 0)?), 0)
            }
            _ => return None,
        };
        let this = RunsWhere {
            terms: host_terms(&at, &f)?,
            konst: f.konst,
            bound,
            bound_konst,
            signed: crate::translate::lane_passes::signed(ty),
            rel,
            through_when_set: pred.inverse,
        };
        if found.as_ref().is_some_and(|r| *r != this) {
            return None;
        }
        found = Some(this);
        covered.push((jm, jm + jn));
    }
    // The writes cover the access's channels.
    covered.sort_unstable();
    super::covers(&covered, (moff, moff + n))
        .then_some(found)
        .flatten()
}

/// A sum of products of payload scalars `(payload byte offset, bytes)` with their
/// coefficients, as `offsets` evaluates a term of no bytes.
type Products = Vec<(Vec<(u32, u32)>, i64)>;

/// How many products a sum may hold, and how deep [`scalar_products`] looks.
const PRODUCTS: usize = 8;
const DEPTH: u32 = 4;

/// The scalar at GRF byte `at` (`size` bytes) that every channel reads alike, as the
/// host computes it from the payload: an input or r0, or what the entry blocks compute once
/// from inputs and immediates by `mov`, `add` and `mul` (IGC's group base, the group
/// id times the local size), modulo 2^32 like the address.
fn scalar_products(c: &Chain, at: u32, size: u32, depth: u32) -> Option<Products> {
    if let Some(o) = c.input_scalar(at, size) {
        return Some(vec![(vec![(o, size)], 1)]);
    }
    if depth > DEPTH || size > 4 {
        return None;
    }
    let mut writers = (0..c.p.insts.len()).filter(|&k| writes_any(c.plan, k, at, at + size));
    let (first, second) = (writers.next(), writers.next());
    // r0, which `init` copies from the payload's first bytes (the group id at r0.1).
    let r0 = c.p.pre.r0;
    if first.is_none() && r0 <= at && at + size <= r0 + c.p.grf_bytes {
        return Some(vec![(vec![(at - r0, size)], 1)]);
    }
    let (Some(w), None) = (first, second) else {
        return None;
    };
    let inst = &c.p.insts[w];
    let (dsts, srcs, _) = inst.alu_operands();
    let whole = matches!(dsts.as_slice(), [Dst::Direct { off, ty, sat: false, .. }]
        if *off == at && ty.size() == size && ty.is_int());
    if c.block_of[w] >= c.prefix || inst.pred.is_some() || inst.exec.size != 1 || !whole {
        return None;
    }
    // A source's value: elements whose sign bit is set are refused by the host
    // (`offsets`), so a narrower source's extension does not matter.
    let value = |s: &Src| -> Option<Products> {
        match s {
            Src::Imm { ty, bits } if ty.is_int() => Some(vec![(Vec::new(), imm_value(*ty, *bits))]),
            Src::Direct {
                ty,
                m: Modifier::None,
                ..
            } if ty.is_int() && ty.size() <= 4 => {
                let (from, _) = lanes::src_linear(s, 1)?;
                scalar_products(c, from, ty.size(), depth + 1)
            }
            _ => None,
        }
    };
    match (inst.op, srcs.as_slice()) {
        (Opcode::Mov, [a]) => value(a),
        (Opcode::Add, [a, b]) => {
            let mut sum = value(a)?;
            sum.extend(value(b)?);
            (sum.len() <= PRODUCTS).then_some(sum)
        }
        (Opcode::Mul, [a, b]) => times(&value(a)?, &value(b)?),
        _ => None,
    }
}

/// A sum of products as the terms of no bytes `offsets` evaluates.
fn product_terms(sum: Products) -> Vec<Term> {
    sum.into_iter()
        .map(|(factors, coef)| Term::scalar(factors, coef))
        .collect()
}

/// The product of two sums, at most [`PRODUCTS`] terms.
fn times(a: &Products, b: &Products) -> Option<Products> {
    let mut out = Vec::new();
    for (fa, ca) in a {
        for (fb, cb) in b {
            let mut f = fa.clone();
            f.extend(fb.iter().copied());
            out.push((f, ca.checked_mul(*cb)?));
        }
    }
    (out.len() <= PRODUCTS).then_some(out)
}
