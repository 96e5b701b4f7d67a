//! IGC's aggregated atomics written back per channel, for the straight lane form only.
//!
//! For an atomic whose address is the same in every channel and whose old value is
//! not used, IGC reduces the channels' operands in the registers first and makes one
//! atomic for the whole thread:
//!
//! ```text
//! mov (M1_NM, 8) T 0x0                  // the operation's identity everywhere
//! mov (M1, 8) T X                       // the enabled channels' operands
//! add (M1_NM, 4) T1 T(0,0)<1;1,0> T(0,4)<1;1,0>
//! add (M1_NM, 2) T2 T1(0,0)<1;1,0> T1(0,2)<1;1,0>
//! add (M1_NM, 1) R T2(0,0)<0;1,0> T2(0,1)<0;1,0>
//! svm_atomic.add (M1_NM, 1) A %null R %null
//! ```
//!
//! The straight form runs a channel per invocation, so such a tree makes the channels
//! meet (`exchange.rs`: a workgroup barrier and the GRF image) at every atomic;
//! llvmpipe compiled atomic_global_counters SIMD32's eleven of them in 2.2-3.3 s. The
//! memory such an atomic leaves is what each enabled channel's own atomic of its
//! operand leaves: the operation is associative and commutative (`add` wraps, the rest
//! are lattice operations), the identity changes nothing, and no one reads the old
//! value. So the tree becomes, in the same instruction slots (the block lengths, and
//! so a run's instruction counts, stay the interpreter's): the masked moves as they
//! are, a per-channel copy of the address, and a per-channel atomic of `T`; the other
//! slots write a sink word no instruction reads. The tree's registers must be read
//! nowhere else. An `atomic_inc`/`atomic_dec` is aggregated as a count of the enabled
//! channels (`setp P 0; cmp.eq P V V; mov R P; cbit C R; mov D (-)C`, then `add D`):
//! it becomes an `inc`/`dec` of each enabled channel. The thread mapping keeps the
//! kernel as it is.

use crate::interp::memory::AtomicOp;
use crate::interp::prepare::{Dst, PField, PInst, Prepared, Src};
use crate::interp::thread::{ffld, fint, fraw};
use crate::ir::{DataType, ExecSize, MaskControl, Modifier};
use crate::isa::Opcode;
use std::collections::HashMap;

/// The kernel with every aggregated atomic it has written per channel, or `None` when
/// it has none.
pub fn split(p: &Prepared) -> Option<Prepared> {
    let found: Vec<Tree> = (0..p.insts.len())
        .filter_map(|k| tree_at(p, k).or_else(|| count_at(p, k)))
        .collect();
    if found.is_empty() {
        return None;
    }
    let mut out = p.clone();
    // Fresh registers past the kernel's: a sink word, then each tree's addresses (a
    // vector of its own, so that each address register has one pointer behind it).
    let gb = p.grf_bytes.max(4);
    let mut next = p.layout.total.div_ceil(gb) * gb;
    let sink = next;
    next += gb;
    for t in &found {
        let addrs = next;
        next += (8 * p.simd).div_ceil(gb) * gb; // 8 bytes a channel suits both kinds
        t.rewrite(&mut out.insts, sink, addrs);
    }
    out.layout.total = next;
    Some(out)
}

/// One aggregated atomic: the instructions of its tree (`start..atomic`), the masked
/// moves among them, and the atomic.
struct Tree {
    start: usize,
    atomic: usize,
    /// Positions of the moves of the channels' operands.
    moves: Vec<usize>,
    /// A count of the enabled channels (`count_at`): the channels it counts, and
    /// whether the atomic adds its negation (a decrement each).
    count: Option<(ExecSize, bool)>,
}

impl Tree {
    /// Rewrite the tree in `insts`: the moves stay; the last `2 * moves` other slots
    /// copy the address for each move's channels, then make their atomics; the rest
    /// write the sink.
    fn rewrite(&self, insts: &mut [PInst], sink: u32, addrs: u32) {
        let atomic = insts[self.atomic].clone();
        let (field, aty) = address_field(atomic.op).expect("a matched atomic");
        let addr_reg = fraw(&atomic, field).expect("a matched atomic has an address");
        let asize = aty.size();
        if let Some((exec, down)) = self.count {
            // [setp, cmp, mov, cbit, mov, atomic]: the copy where `cbit` was, the
            // increments in the atomic's slot, sinks in the rest.
            let template = insts[self.start + 2].clone();
            let lanes_at = addrs + asize * exec.mask.channel_offset();
            let copy_at = self.start + 3;
            for (k, inst) in insts
                .iter_mut()
                .enumerate()
                .take(self.atomic)
                .skip(self.start)
            {
                *inst = if k == copy_at {
                    address_copy(&template, exec, (addr_reg, aty), lanes_at, inst.index)
                } else {
                    sink_move(&template, sink, inst.index)
                };
            }
            let mut step = per_channel_atomic(&atomic, exec, lanes_at, None, atomic.index);
            let info = crate::isa::table::info(atomic.op);
            if let Some(i) = info.index_of("Op") {
                let code = fint(&atomic, "Op");
                step.fields[i] = PField::Int((code & !0x1f) | if down { 3 } else { 2 });
            }
            insts[self.atomic] = step;
            return;
        }
        let slots: Vec<usize> = (self.start..=self.atomic)
            .filter(|k| !self.moves.contains(k))
            .collect();
        let h = self.moves.len();
        let (sinks, tail) = slots.split_at(slots.len() - 2 * h);
        let template = insts[self.moves[0]].clone();
        for &k in sinks {
            let index = insts[k].index;
            insts[k] = sink_move(&template, sink, index);
        }
        for (j, &m) in self.moves.iter().enumerate() {
            let exec = insts[m].exec;
            let data = move_dst(&insts[m]).expect("a matched move");
            let lanes_at = addrs + asize * exec.mask.channel_offset();
            let copy_at = tail[j];
            let index = insts[copy_at].index;
            insts[copy_at] = address_copy(&template, exec, (addr_reg, aty), lanes_at, index);
            let atomic_at = tail[h + j];
            let index = insts[atomic_at].index;
            insts[atomic_at] = per_channel_atomic(&atomic, exec, lanes_at, Some(data), index);
        }
    }
}

/// `mov (M1_NM, 1) sink 0x0:ud` in the shape of `template` (a move).
fn sink_move(template: &PInst, sink: u32, index: usize) -> PInst {
    PInst {
        op: Opcode::Mov,
        exec: ExecSize {
            size: 1,
            mask: MaskControl {
                group: 0,
                no_mask: true,
            },
        },
        pred: None,
        fields: with_operands(
            template,
            Dst::Direct {
                off: sink,
                ty: DataType::UD,
                hs: 1,
                sat: false,
            },
            Src::Imm {
                ty: DataType::UD,
                bits: 0,
            },
        ),
        index,
    }
}

/// `mov (exec) lanes<1>:uq addr<0;1,0>:uq` (`:ud` for offsets): the atomic's one
/// address in each channel.
fn address_copy(
    template: &PInst,
    exec: ExecSize,
    (addr, ty): (u32, DataType),
    lanes: u32,
    index: usize,
) -> PInst {
    PInst {
        op: Opcode::Mov,
        exec,
        pred: None,
        fields: with_operands(
            template,
            Dst::Direct {
                off: lanes,
                ty,
                hs: 1,
                sat: false,
            },
            Src::Direct {
                off: addr,
                ty,
                vs: 0,
                w: 1,
                hs: 0,
                m: Modifier::None,
            },
        ),
        index,
    }
}

/// `template` (a move) with its destination and source replaced.
fn with_operands(template: &PInst, dst: Dst, src: Src) -> Vec<PField> {
    template
        .fields
        .iter()
        .map(|f| match f {
            PField::Dst(_) => PField::Dst(dst.clone()),
            PField::Src(_) => PField::Src(src.clone()),
            other => other.clone(),
        })
        .collect()
}

/// `atomic` made for channels `exec`, at the addresses `lanes`, of the operands `data`
/// (`None`: %null).
fn per_channel_atomic(
    atomic: &PInst,
    exec: ExecSize,
    lanes: u32,
    data: Option<(u32, DataType)>,
    index: usize,
) -> PInst {
    let info = crate::isa::table::info(atomic.op);
    let mut fields = atomic.fields.clone();
    let (field, ty) = address_field(atomic.op).expect("a matched atomic");
    if let Some(i) = info.index_of(field) {
        fields[i] = PField::Raw(Some(lanes), ty);
    }
    if let Some(i) = info.index_of("Src0") {
        fields[i] = match data {
            Some((at, ty)) => PField::Raw(Some(at), ty),
            None => PField::Raw(None, DataType::UD),
        };
    }
    PInst {
        op: atomic.op,
        exec,
        pred: None,
        fields,
        index,
    }
}

/// The address operand of an atomic a tree may end in, and the type of one channel's
/// address: SVM's 64-bit addresses, DWORD_ATOMIC's 32-bit offsets into its surface
/// (SLM's `__local` counters among them).
fn address_field(op: Opcode) -> Option<(&'static str, DataType)> {
    match op {
        Opcode::SvmAtomic => Some(("Addresses", DataType::UQ)),
        Opcode::DwordAtomic => Some(("Element_offset", DataType::UD)),
        _ => None,
    }
}

/// Whether `atomic` is one for the whole thread of 32 bits whose old value nothing
/// reads, and its address register.
fn thread_atomic(atomic: &PInst) -> Option<u32> {
    let (field, _) = address_field(atomic.op)?;
    let code = fint(atomic, "Op");
    // SVM: bits 5-6 give the width (0 or 3: 32 bits); DWORD: bit 5 is 16 bits.
    let bits32 = match atomic.op {
        Opcode::SvmAtomic => matches!((code >> 5) & 3, 0 | 3),
        _ => code & 0x20 == 0,
    };
    let whole = atomic.exec.size == 1 && atomic.exec.mask.no_mask && atomic.pred.is_none();
    (whole && bits32 && fraw(atomic, "Dst").is_none())
        .then(|| fraw(atomic, field))
        .flatten()
}

/// The tree IGC built for the atomic at `k`, if that is one.
fn tree_at(p: &Prepared, k: usize) -> Option<Tree> {
    let atomic = &p.insts[k];
    let addr = thread_atomic(atomic)?;
    let code = fint(atomic, "Op");
    let op = AtomicOp::from_legacy(code)?;
    let (alu, signed, identity) = match op {
        AtomicOp::Add => (Opcode::Add, None, 0u32),
        AtomicOp::Or => (Opcode::Or, None, 0),
        AtomicOp::Xor => (Opcode::Xor, None, 0),
        AtomicOp::And => (Opcode::And, None, u32::MAX),
        AtomicOp::UMax => (Opcode::MinMax, Some(false), 0),
        AtomicOp::UMin => (Opcode::MinMax, Some(false), u32::MAX),
        AtomicOp::IMax => (Opcode::MinMax, Some(true), 0x8000_0000),
        AtomicOp::IMin => (Opcode::MinMax, Some(true), 0x7fff_ffff),
        _ => return None,
    };
    let min = matches!(op, AtomicOp::UMin | AtomicOp::IMin);
    let operand = fraw(atomic, "Src0")?;
    if !matches!(
        ffld(atomic, "Src0"),
        Some(PField::Raw(_, ty)) if ty.size() == 4 && ty.is_int()
    ) {
        return None;
    }
    // The tree: the instructions right before the atomic that are its parts.
    let is_part = |i: &PInst| {
        i.pred.is_none()
            && (i.op == alu && i.exec.mask.no_mask && tree_op_ok(i, alu, signed, min)
                || i.op == Opcode::Mov && move_dst(i).is_some())
    };
    let mut first = k;
    while first > 0 && is_part(&p.insts[first - 1]) {
        first -= 1;
    }
    // The scan may take in instructions before the tree (an address move): the
    // longest run before the atomic that is a whole tree.
    let shape = Shape {
        identity,
        operand,
        addr,
    };
    (first..k).find_map(|start| shape.tree(p, start, k))
}

/// What the tree of one atomic must compute.
struct Shape {
    identity: u32,
    /// The atomic's operand register and address register.
    operand: u32,
    addr: u32,
}

impl Shape {
    /// Instructions `start..k` as the whole tree of the atomic at `k`.
    fn tree(&self, p: &Prepared, start: usize, k: usize) -> Option<Tree> {
        // The channels each dword's value combines (`None`: not a reduction value):
        // the identity combines none, a masked move's element its channel.
        let mut val: HashMap<u32, Option<Vec<u32>>> = HashMap::new();
        let mut moves = Vec::new();
        let mut written: Vec<u32> = Vec::new();
        for (pos, inst) in p.insts.iter().enumerate().take(k).skip(start) {
            let n = inst.exec.size as u32;
            let (dsts, srcs, _) = inst.alu_operands();
            let [Dst::Direct { off, hs, .. }] = dsts.as_slice() else {
                return None;
            };
            let (off, hs) = (*off, *hs);
            let mut new = Vec::with_capacity(n as usize);
            if inst.op == Opcode::Mov {
                match (inst.exec.mask.no_mask, srcs.as_slice()) {
                    // The identity, in every element.
                    (true, [Src::Imm { ty, bits }]) if ty.size() == 4 && ty.is_int() => {
                        if *bits as u32 != self.identity {
                            return None;
                        }
                        new.resize(n as usize, Some(Vec::new()));
                    }
                    // The channels' operands over the identity.
                    (false, [_]) => {
                        let moff = inst.exec.mask.channel_offset();
                        for i in 0..n {
                            let old = val.get(&(off + 4 * hs * i)).cloned().flatten();
                            if old.as_deref() != Some(&[]) {
                                return None;
                            }
                            new.push(Some(vec![moff + i]));
                        }
                        moves.push(pos);
                    }
                    _ => return None,
                }
            } else {
                let [a, b] = srcs.as_slice() else {
                    return None;
                };
                for i in 0..n {
                    let x = val.get(&elem(a, i)?).cloned().flatten();
                    let y = val.get(&elem(b, i)?).cloned().flatten();
                    new.push(match (x, y) {
                        (Some(mut x), Some(y)) => {
                            x.extend(y);
                            Some(x)
                        }
                        _ => None,
                    });
                }
            }
            for (i, v) in (0..n).zip(new) {
                let at = off + 4 * hs * i;
                val.insert(at, v);
                written.push(at);
            }
        }
        // Every channel's operand exactly once, each move's channels among them.
        let mut chans = val.get(&self.operand).cloned().flatten()?;
        chans.sort_unstable();
        let moved: u32 = moves.iter().map(|&m| p.insts[m].exec.size as u32).sum();
        if chans != (0..p.simd).collect::<Vec<_>>() || moved != p.simd {
            return None;
        }
        // Enough slots after the last move for the copies and the atomics.
        let after = (moves[moves.len() - 1] + 1..=k).count();
        if after < 2 * moves.len() {
            return None;
        }
        // The tree's registers are read nowhere else (the moves' operands included);
        // the address is not one of them.
        written.sort_unstable();
        written.dedup();
        let hit = |a: u32, b: u32| {
            let i = written.partition_point(|&w| w + 4 <= a);
            written.get(i).is_some_and(|&w| w < b)
        };
        if hit(self.addr, self.addr + 8) {
            return None;
        }
        let outside = (0..p.insts.len()).filter(|&j| j < start || j > k || moves.contains(&j));
        for j in outside {
            if reads_any(p, &p.insts[j], &hit) {
                return None;
            }
        }
        Some(Tree {
            start,
            atomic: k,
            moves,
            count: None,
        })
    }
}

/// The count of enabled channels IGC adds for an `atomic_inc`/`atomic_dec` at `k`:
/// `setp (M1_NM, n) P 0; cmp.eq (Mk, m) P V V; mov (M1_NM, 1) R P; cbit C R;
/// mov D C` (or `(-)C`), then `svm_atomic.add (M1_NM, 1) A %null D`.
fn count_at(p: &Prepared, k: usize) -> Option<Tree> {
    use crate::interp::alu::{AluOp, RelOp};
    if k < 5 {
        return None;
    }
    let atomic = &p.insts[k];
    let addr = thread_atomic(atomic)?;
    if AtomicOp::from_legacy(fint(atomic, "Op"))? != AtomicOp::Add {
        return None;
    }
    let operand = fraw(atomic, "Src0")?;
    let [setp, cmp, to_reg, cbit, sign, _] = &p.insts[k - 5..=k] else {
        return None;
    };
    let whole = |i: &PInst, op: Opcode| {
        i.op == op && i.pred.is_none() && i.exec.mask.no_mask && i.exec.mask.group == 0
    };
    // setp: every bit of P cleared.
    let (sd, ss, _) = setp.alu_operands();
    let ([Dst::Pred(pid)], [Src::Imm { bits: 0, .. }]) = (sd.as_slice(), ss.as_slice()) else {
        return None;
    };
    if !whole(setp, Opcode::Setp) {
        return None;
    }
    // cmp.eq of an integer with itself: P's bit set for each enabled channel.
    let (cd, cs, ci) = cmp.alu_operands();
    let ([Dst::Pred(cid)], [a, b]) = (cd.as_slice(), cs.as_slice()) else {
        return None;
    };
    let int_direct = matches!(a, Src::Direct { ty, m: Modifier::None, .. } if ty.is_int());
    let channels = cmp.exec;
    if cmp.op != Opcode::Cmp
        || cmp.pred.is_some()
        || channels.mask.no_mask
        || cid != pid
        || a != b
        || !int_direct
        || AluOp::from_opcode(Opcode::Cmp, &ci) != Some(AluOp::Cmp(RelOp::Eq))
        || channels.mask.channel_offset() + channels.size as u32 > setp.exec.size as u32
    {
        return None;
    }
    // mov R P (a word for up to 16 channels); cbit C R; mov D C or -C.
    let one = |i: &PInst, op: Opcode| -> Option<(u32, u32, Src)> {
        let (d, s, _) = i.alu_operands();
        match (whole(i, op) && i.exec.size == 1, d.as_slice(), s.as_slice()) {
            (
                true,
                [Dst::Direct {
                    off,
                    ty,
                    sat: false,
                    ..
                }],
                [src],
            ) if matches!(ty.size(), 2 | 4) && ty.is_int() => {
                Some((*off, ty.size(), (*src).clone()))
            }
            _ => None,
        }
    };
    let (r, r_size, src_r) = one(to_reg, Opcode::Mov)?;
    let (c, 4, src_c) = one(cbit, Opcode::Cbit)? else {
        return None;
    };
    let (d, 4, src_d) = one(sign, Opcode::Mov)? else {
        return None;
    };
    let reads = |s: &Src, at: u32, size: u32, neg: bool| {
        matches!(s, Src::Direct { off, ty, m, .. }
            if *off == at && ty.size() == size && ty.is_int()
                && *m == if neg { Modifier::Neg } else { Modifier::None })
    };
    let down = reads(&src_d, c, 4, true);
    if !matches!(src_r, Src::Pred(q) if q.id == *pid && !q.inverse)
        || !reads(&src_c, r, r_size, false)
        || !(down || reads(&src_d, c, 4, false))
        || d != operand
    {
        return None;
    }
    // R, C, D and P are read nowhere else.
    let written = [r, c, d];
    let hit = |a: u32, b: u32| written.iter().any(|&w| w < b && a < w + 4);
    if hit(addr, addr + 8) {
        return None;
    }
    let reads_p = |i: &PInst| {
        i.pred.is_some_and(|q| q.id == *pid)
            || i.fields
                .iter()
                .any(|f| matches!(f, PField::Src(Src::Pred(q)) if q.id == *pid))
    };
    // `mov R P` reads the whole predicate word: the bits past setp's stay the
    // thread's initial zeros only where nothing else ever writes P.
    let writes_p = |i: &PInst| {
        i.fields
            .iter()
            .any(|f| matches!(f, PField::Dst(Dst::Pred(q)) if q == pid))
    };
    for (j, inst) in p.insts.iter().enumerate() {
        if j + 5 >= k && j <= k {
            continue;
        }
        if reads_any(p, inst, &hit) || reads_p(inst) || writes_p(inst) {
            return None;
        }
    }
    Some(Tree {
        start: k - 5,
        atomic: k,
        moves: Vec::new(),
        count: Some((channels, down)),
    })
}

/// A move's destination: 4-byte integer elements, direct, contiguous, unsaturated.
fn move_dst(i: &PInst) -> Option<(u32, DataType)> {
    let (dsts, srcs, _) = i.alu_operands();
    match (dsts.as_slice(), srcs.len()) {
        (
            [Dst::Direct {
                off,
                ty,
                hs: 1,
                sat: false,
            }],
            1,
        ) if ty.size() == 4 && ty.is_int() => Some((*off, *ty)),
        _ => None,
    }
}

/// Whether `i` is a step of the tree: `alu` of two direct 4-byte integer sources of the
/// destination's type (signed as the atomic where it compares), no modifier.
fn tree_op_ok(i: &PInst, alu: Opcode, signed: Option<bool>, min: bool) -> bool {
    let (dsts, srcs, ints) = i.alu_operands();
    let [Dst::Direct { ty, sat: false, .. }] = dsts.as_slice() else {
        return false;
    };
    if ty.size() != 4 || !ty.is_int() {
        return false;
    }
    if alu == Opcode::MinMax && ints.first() != Some(&u64::from(!min)) {
        return false;
    }
    srcs.len() == 2
        && srcs.iter().all(|s| match s {
            Src::Direct {
                ty: st,
                m: Modifier::None,
                ..
            } => {
                st.size() == 4
                    && st.is_int()
                    && signed.is_none_or(|sg| st.is_signed_int() == sg && ty.is_signed_int() == sg)
            }
            _ => false,
        })
}

/// The GRF byte of element `i` of a direct source with a width
/// (`operand::elem_offset`).
fn elem(s: &Src, i: u32) -> Option<u32> {
    matches!(s, Src::Direct { w, .. } if *w > 0)
        .then(|| super::operand::elem_offset(s, i))
        .flatten()
}

/// Whether `inst` may read a byte that `hit` names: its direct sources' regions,
/// indirect sources anywhere, raw operands within the variables they start in.
fn reads_any(p: &Prepared, inst: &PInst, hit: &dyn Fn(u32, u32) -> bool) -> bool {
    let n = inst.exec.size as u32;
    inst.fields.iter().any(|f| match f {
        PField::Src(s @ Src::Direct { ty, .. }) => {
            (0..n).any(|i| super::operand::elem_offset(s, i).is_some_and(|a| hit(a, a + ty.size())))
        }
        PField::Src(Src::Indirect { .. }) => true,
        PField::Raw(Some(off), _) => hit(*off, raw_end(p, *off)),
        _ => false,
    })
}

/// Where the variables a raw operand at GRF byte `off` starts in end (the furthest).
fn raw_end(p: &Prepared, off: u32) -> u32 {
    let l = &p.layout;
    l.offsets
        .iter()
        .zip(&l.sizes)
        .filter(|&(&o, &s)| o <= off && off < o + s)
        .map(|(&o, &s)| o + s)
        .max()
        .unwrap_or(off + 4 * p.grf_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECLS: &str = ".decl V0040 v_type=G type=uq num_elts=1 align=qword\n\
         .decl V0041 v_type=G type=d num_elts=8 align=hword\n\
         .decl V0042 v_type=G type=d num_elts=8 align=hword\n\
         .decl V0043 v_type=G type=d num_elts=4 align=hword\n\
         .decl V0044 v_type=G type=d num_elts=2 align=hword\n\
         .decl V0045 v_type=G type=d num_elts=1 align=dword\n\
         .decl V0046 v_type=G type=uw num_elts=1 align=dword\n\
         .decl V0047 v_type=G type=ud num_elts=1 align=dword\n\
         .decl V0048 v_type=G type=d num_elts=1 align=dword\n\
         .decl P1 v_type=P num_elts=8\n\
         .input V0040 offset=32 size=8\n\
         .input V0041 offset=64 size=32\n";

    /// IGC's SIMD8 tree for `atomic_<op>(p, x)`: identity, operands, three steps.
    fn tree(init: &str, step: &str, atomic: &str) -> String {
        format!(
            "mov (M1_NM, 8) V0042(0,0)<1> {init}\n\
             mov (M1, 8) V0042(0,0)<1> V0041(0,0)<1;1,0>\n\
             {step} (M1_NM, 4) V0043(0,0)<1> V0042(0,0)<1;1,0> V0042(0,4)<1;1,0>\n\
             {step} (M1_NM, 2) V0044(0,0)<1> V0043(0,0)<1;1,0> V0043(0,2)<1;1,0>\n\
             {step} (M1_NM, 1) V0045(0,0)<1> V0044(0,0)<0;1,0> V0044(0,1)<0;1,0>\n\
             svm_atomic.{atomic} (M1_NM, 1) V0040.0 %null.0 V0045.0 %null.0\n"
        )
    }

    fn kernel(body: &str) -> Prepared {
        super::super::test_kernel(DECLS, 8, body)
    }

    fn atomics(p: &Prepared) -> Vec<&PInst> {
        p.insts
            .iter()
            .filter(|i| i.op == Opcode::SvmAtomic)
            .collect()
    }

    /// A sum, a signed minimum and an AND tree each become one atomic of the
    /// channels' own operands (M1, 8), with the address copied to every channel;
    /// the other slots write the sink; every instruction keeps its slot.
    #[test]
    fn trees_become_atomics_of_each_channel() {
        for (init, step, atomic) in [
            ("0x0:d", "add", "add"),
            ("0x7fffffff:d", "min", "minsint"),
            ("0xffffffff:d", "and", "and"),
        ] {
            let p = kernel(&tree(init, step, atomic));
            let s = split(&p).unwrap_or_else(|| panic!("{atomic}: not split"));
            assert_eq!(s.insts.len(), p.insts.len());
            assert!(s.layout.total > p.layout.total);
            let [a] = atomics(&s)[..] else {
                panic!("one atomic")
            };
            assert_eq!(a.exec.size, 8);
            assert!(!a.exec.mask.no_mask);
            assert_eq!(fraw(a, "Src0"), move_dst(&p.insts[1]).map(|d| d.0));
            assert!(fraw(a, "Addresses").unwrap() >= p.layout.total);
            // The tree's steps are gone: no instruction reads V0043-V0045.
            assert!(!s
                .insts
                .iter()
                .any(|i| matches!(i.op, Opcode::Add | Opcode::MinMax | Opcode::And)));
            assert_eq!(
                format!("{:?}", s.insts[1]),
                format!("{:?}", p.insts[1]),
                "the operands' move stays"
            );
        }
    }

    /// The shapes that must not change: an initial value that is not the
    /// identity, a step of another operation, a tree register read elsewhere, a
    /// returned old value.
    #[test]
    fn other_shapes_stay() {
        let not_identity = tree("0x1:d", "add", "add");
        let other_step = tree("0x0:d", "or", "add");
        let read_later = format!(
            "{}mov (M1, 8) V0041(0,0)<1> V0043(0,0)<0;1,0>\n",
            tree("0x0:d", "add", "add")
        );
        let returned = tree("0x0:d", "add", "add").replace(
            "svm_atomic.add (M1_NM, 1) V0040.0 %null.0",
            "svm_atomic.add (M1_NM, 1) V0040.0 V0048.0",
        );
        for body in [not_identity, other_step, read_later, returned] {
            assert!(split(&kernel(&body)).is_none(), "{body}");
        }
    }

    /// `atomic_inc` and `atomic_dec` as IGC counts the channels: an increment or a
    /// decrement of each enabled channel.
    #[test]
    fn counts_become_increments() {
        for (sign, code) in [("", 2), ("(-)", 3)] {
            let body = format!(
                "setp (M1_NM, 8) P1 0x0:ud\n\
                 cmp.eq (M1, 8) P1 V0046(0,0)<0;1,0> V0046(0,0)<0;1,0>\n\
                 mov (M1_NM, 1) V0046(0,0)<1> P1\n\
                 cbit (M1_NM, 1) V0047(0,0)<1> V0046(0,0)<0;1,0>\n\
                 mov (M1_NM, 1) V0048(0,0)<1> {sign}V0047(0,0)<0;1,0>\n\
                 svm_atomic.add (M1_NM, 1) V0040.0 %null.0 V0048.0 %null.0\n"
            );
            let p = kernel(&body);
            let s = split(&p).expect("split");
            let [a] = atomics(&s)[..] else {
                panic!("one atomic")
            };
            assert_eq!(fint(a, "Op") & 0x1f, code);
            assert_eq!((a.exec.size, a.exec.mask.no_mask), (8, false));
            assert_eq!(fraw(a, "Src0"), None);
            // P1 is read again, or written before: the count stays.
            let again = format!("{body}(P1) mov (M1, 8) V0041(0,0)<1> 0x1:d\n");
            assert!(split(&kernel(&again)).is_none());
            let before = format!("setp (M1_NM, 16) P1 0xffff:ud\n{body}");
            assert!(split(&kernel(&before)).is_none());
        }
    }
}
