//! One SIMD thread: its GRF, address registers, predicates, surface values and the
//! per-channel program counters that implement divergent control flow.
//!
//! Reconvergence is min-PC: every live channel has its own PC; the thread executes the
//! instruction at the smallest one with the channels that sit there as its execution
//! mask. A forward goto parks the taken channels at the target (they rejoin when the
//! others get there), a backward goto sends them back while the rest wait after the
//! goto — exactly the behaviour 3_execution_model describes. Calls push a frame so
//! that a subroutine runs once with the calling channels, NoMask instructions included.

use super::alu::{self, FpEnv, Num, Val};
use super::block2d::{Block2d, Surface2d};
use super::memory::{AtomicOp, Memory, Space};
use super::prepare::{Dst, PField, PInst, Prepared, Src};
use super::ExecError;
use crate::abi::image::SamplerState;
use crate::ir::*;
use crate::isa::Opcode;

/// A channel that is not running (finished, not dispatched, or outside this frame).
pub const IDLE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Surf {
    Bti(u32),
    Slm,
    Stateless,
    Scratch,
}

struct Frame {
    /// Channel PCs of the caller, restored when every callee channel has returned.
    saved: [u32; 32],
}

pub struct Thread {
    pub grf: Vec<u8>,
    pub addrs: Vec<u16>,
    pub preds: Vec<u32>,
    pub surfaces: Vec<Option<Surf>>,
    pub pcs: [u32; 32],
    frames: Vec<Frame>,
    pub at_barrier: bool,
    pub steps: u64,
    /// Index of the instruction executed last.
    pub last: usize,
    /// Channel-instructions executed (instructions times their running channels).
    pub chan_ops: u64,
    /// This thread's `%scratch` space.
    pub scratch: Vec<u8>,
    /// Predicate-operand view of the instruction being executed: the first predicate
    /// bit its element 0 reads (its mask offset), or `None` for the whole word (a
    /// scalar `mov dst P`).
    pred_view: Option<u32>,
}

/// Outcome of running a thread for a while.
#[derive(Debug, PartialEq, Eq)]
pub enum Yield {
    Done,
    Barrier,
    /// The next instruction touches memory and `run` was told to hold there: it runs
    /// when the group's scheduler lets it (`Thread::go`).
    Memory,
    /// `Ctx::stop_after` instructions ran (see `RunOptions::stop_after`).
    Stopped,
}

/// Everything a message needs besides the thread.
pub struct Ctx<'a> {
    /// Global memory, shared by the groups that run in parallel; every access locks it
    /// (an atomic's read-modify-write under one lock).
    pub mem: &'a std::sync::Mutex<Memory>,
    pub slm: &'a mut Vec<u8>,
    pub step_limit: u64,
    pub grf_bytes: u32,
    /// Print every executed instruction to stderr.
    pub trace: bool,
    /// Stop each thread once it has executed this many instructions.
    pub stop_after: Option<u64>,
}

fn read_le(b: &[u8], off: usize, len: usize) -> u64 {
    let mut v = [0u8; 8];
    if let Some(s) = b.get(off..off + len) {
        v[..len].copy_from_slice(s);
    }
    u64::from_le_bytes(v)
}

fn write_le(b: &mut [u8], off: usize, len: usize, value: u64) {
    if let Some(s) = b.get_mut(off..off + len) {
        s.copy_from_slice(&value.to_le_bytes()[..len]);
    }
}

impl Thread {
    /// `tid`: the thread's index in the dispatch (group-linear * threads per group +
    /// thread in group).
    pub fn new(
        tid: u32,
        p: &Prepared,
        payload: &[u8],
        lanes: u32,
        group: [u32; 3],
        scratch_bytes: u32,
    ) -> Thread {
        let mut grf = vec![0u8; p.layout.total as usize];
        for &(goff, poff, size) in &p.inputs {
            for b in 0..size as usize {
                let v = payload.get(poff as usize + b).copied().unwrap_or(0);
                if let Some(d) = grf.get_mut(goff as usize + b) {
                    *d = v;
                }
            }
        }
        let r0 = p.pre.r0 as usize;
        for b in 0..p.grf_bytes as usize {
            if let Some(d) = grf.get_mut(r0 + b) {
                *d = payload.get(b).copied().unwrap_or(0);
            }
        }
        for (d, g) in group.iter().enumerate() {
            write_le(&mut grf, p.pre.group_id[d] as usize, 4, *g as u64);
        }
        let dmask: u64 = if lanes >= 32 {
            u32::MAX as u64
        } else {
            (1u64 << lanes) - 1
        };
        write_le(&mut grf, p.pre.sr0 as usize + 8, 4, dmask);
        // sr0.0 and %hw_id identify the hardware thread; IGC derives a thread's
        // private-memory slot from them: from sr0 by squeezing out bits 6 and 3
        // (tests/cases/private_array_types, acm-g10: `and sr0 0x3fff`, then two
        // shift/mask/or steps, times the per-thread size), and the stack of stack calls
        // as private_base + %hw_id * per-thread size (tests/cases/stack_calls). Real
        // hardware only keeps them distinct among the threads running at once; every
        // thread of the dispatch gets its own slot here (its index in the dispatch, which
        // the private allocation covers), so neither interleaved threads nor parallel
        // workers (nor the GPU path's concurrent groups) ever share private memory.
        // sr0's slot field holds 12 bits: beyond 4096 threads slots repeat 4096 apart.
        let with_bit3 = (tid & 7) | ((tid & !7) << 1);
        let sr0 = (with_bit3 & 0x3f) | ((with_bit3 & !0x3f) << 1);
        write_le(&mut grf, p.pre.sr0 as usize, 4, sr0 as u64);
        write_le(&mut grf, p.pre.hw_id as usize, 4, tid as u64);
        let mut pcs = [IDLE; 32];
        for (i, pc) in pcs.iter_mut().enumerate().take(lanes.min(p.simd) as usize) {
            let _ = i;
            *pc = 0;
        }
        Thread {
            grf,
            addrs: vec![0; p.addr_total as usize],
            preds: vec![0; p.kernel.preds.len()],
            surfaces: vec![None; p.kernel.surfaces.len().max(8)],
            pcs,
            frames: Vec::new(),
            at_barrier: false,
            steps: 0,
            last: 0,
            chan_ops: 0,
            scratch: vec![0; scratch_bytes as usize],
            pred_view: Some(0),
        }
    }

    fn env(&self, p: &Prepared) -> FpEnv {
        FpEnv::from_cr0(read_le(&self.grf, p.pre.cr0 as usize, 4) as u32)
    }

    /// The channel enables of 5_operands' EvaluateChEn.
    fn chen(&self, inst: &PInst, em: u32) -> u32 {
        let n = inst.exec.size as u32;
        let off = inst.exec.mask.channel_offset();
        let full = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
        let mut ch = if inst.exec.mask.no_mask {
            full
        } else {
            (em >> off) & full
        };
        if let Some(p) = inst.pred {
            let bits = self.preds.get(p.id.0 as usize).copied().unwrap_or(0);
            let mut pm = (bits >> off) & full;
            match p.combine {
                PredCombine::Sequential => {}
                PredCombine::Any => pm = if pm != 0 { full } else { 0 },
                PredCombine::All => pm = if pm == full { full } else { 0 },
            }
            if p.inverse {
                pm = !pm & full;
            }
            ch &= pm;
        }
        ch
    }

    // ---- operands ----

    fn src_elem(&self, s: &Src, i: u32) -> (Val, Modifier) {
        match s {
            Src::Direct {
                off,
                ty,
                vs,
                w,
                hs,
                m,
            } => {
                let e = ty.size();
                let o = off + ((i / w) * vs + (i % w) * hs) * e;
                (
                    Val {
                        ty: *ty,
                        bits: read_le(&self.grf, o as usize, e as usize),
                    },
                    *m,
                )
            }
            Src::Indirect {
                addr,
                imm,
                ty,
                vs,
                w,
                hs,
                m,
            } => {
                let e = ty.size();
                let o = match vs {
                    None => {
                        // Multi-address: one address register element per `w` elements.
                        let a = self
                            .addrs
                            .get((*addr + i / w) as usize)
                            .copied()
                            .unwrap_or(0) as i64;
                        a + *imm as i64 + ((i % w) * hs * e) as i64
                    }
                    Some(vs) => {
                        let a = self.addrs.get(*addr as usize).copied().unwrap_or(0) as i64;
                        a + *imm as i64 + (((i / w) * vs + (i % w) * hs) * e) as i64
                    }
                };
                (
                    Val {
                        ty: *ty,
                        bits: read_le(&self.grf, o.max(0) as usize, e as usize),
                    },
                    *m,
                )
            }
            Src::Imm { ty, bits } => {
                if ty.is_packed() {
                    (alu::unpack(*ty, *bits, i), Modifier::None)
                } else {
                    (
                        Val {
                            ty: *ty,
                            bits: *bits,
                        },
                        Modifier::None,
                    )
                }
            }
            Src::Pred(p) => {
                let b = self.preds.get(p.id.0 as usize).copied().unwrap_or(0);
                let b = if p.inverse { !b } else { b };
                let bits = match self.pred_view {
                    Some(off) => ((b >> (i + off)) & 1) as u64,
                    None => b as u64,
                };
                (
                    Val {
                        ty: DataType::UD,
                        bits,
                    },
                    Modifier::None,
                )
            }
            Src::Addr { base, width } => {
                let a = self
                    .addrs
                    .get((base + i % width) as usize)
                    .copied()
                    .unwrap_or(0);
                (
                    Val {
                        ty: DataType::UW,
                        bits: a as u64,
                    },
                    Modifier::None,
                )
            }
            Src::AddrOf { off } => (
                Val {
                    ty: DataType::UW,
                    bits: *off as u64,
                },
                Modifier::None,
            ),
            Src::State { id, .. } => {
                let v = match self.surfaces.get(*id as usize).copied().flatten() {
                    Some(Surf::Bti(b)) => b as u64,
                    _ => 0,
                };
                (
                    Val {
                        ty: DataType::UD,
                        bits: v,
                    },
                    Modifier::None,
                )
            }
        }
    }

    fn src_num(&self, s: &Src, i: u32) -> (Num, DataType) {
        let (v, m) = self.src_elem(s, i);
        (alu::modify(v, m), v.ty)
    }

    fn write_dst(&mut self, d: &Dst, i: u32, bits: u64) {
        match d {
            Dst::Direct { off, ty, hs, .. } => {
                let e = ty.size();
                write_le(&mut self.grf, (off + i * hs * e) as usize, e as usize, bits);
            }
            Dst::Indirect {
                addr, imm, ty, hs, ..
            } => {
                let e = ty.size();
                let a = self.addrs.get(*addr as usize).copied().unwrap_or(0) as i64;
                let o = a + *imm as i64 + (i * hs * e) as i64;
                write_le(&mut self.grf, o.max(0) as usize, e as usize, bits);
            }
            Dst::Pred(p) => {
                if let Some(w) = self.preds.get_mut(p.0 as usize) {
                    if bits & 1 != 0 {
                        *w |= 1 << i;
                    } else {
                        *w &= !(1 << i);
                    }
                }
            }
            Dst::Addr { base } => {
                if let Some(a) = self.addrs.get_mut((base + i) as usize) {
                    *a = bits as u16;
                }
            }
            Dst::State { id } => {
                if let Some(s) = self.surfaces.get_mut(*id as usize) {
                    *s = Some(Surf::Bti(bits as u32));
                }
            }
            Dst::Null => {}
        }
    }

    fn raw_read(&self, off: Option<u32>, byte: u32, len: usize) -> u64 {
        match off {
            Some(o) => read_le(&self.grf, (o + byte) as usize, len),
            None => 0,
        }
    }

    fn raw_write(&mut self, off: Option<u32>, byte: u32, len: usize, v: u64) {
        if let Some(o) = off {
            write_le(&mut self.grf, (o + byte) as usize, len, v);
        }
    }

    fn surface_of(&self, id: u16) -> Surf {
        match id {
            0 => Surf::Slm,
            5 => Surf::Scratch,
            1..=4 => Surf::Stateless,
            _ => self
                .surfaces
                .get(id as usize)
                .copied()
                .flatten()
                .unwrap_or(Surf::Bti(id as u32)),
        }
    }

    // ---- the run loop ----

    /// Run until the thread ends or reaches a barrier; with `hold` (one flag per
    /// instruction), also until it is about to run a held instruction other than the
    /// one it stopped at last (`Yield::Memory`).
    pub fn run(
        &mut self,
        p: &Prepared,
        cx: &mut Ctx,
        hold: Option<&[bool]>,
    ) -> Result<Yield, ExecError> {
        if self.at_barrier {
            self.at_barrier = false;
        }
        let mut resumed = true;
        loop {
            let pc = self.pcs.iter().copied().min().unwrap_or(IDLE);
            if pc == IDLE {
                if let Some(f) = self.frames.pop() {
                    self.pcs = f.saved;
                    continue;
                }
                return Ok(Yield::Done);
            }
            let Some(inst) = p.insts.get(pc as usize) else {
                // Falling off the end ends those channels.
                for c in self.pcs.iter_mut() {
                    if *c == pc {
                        *c = IDLE;
                    }
                }
                continue;
            };
            if cx.stop_after.is_some_and(|k| self.steps >= k) {
                return Ok(Yield::Stopped);
            }
            if !resumed && hold.is_some_and(|h| h.get(pc as usize) == Some(&true)) {
                return Ok(Yield::Memory);
            }
            resumed = false;
            let mut em = 0u32;
            for (c, &cpc) in self.pcs.iter().enumerate() {
                if cpc == pc {
                    em |= 1 << c;
                }
            }
            self.steps += 1;
            self.last = inst.index;
            self.chan_ops += em.count_ones() as u64;
            if self.steps > cx.step_limit {
                return Err(ExecError::StepLimit {
                    index: inst.index,
                    op: inst.op.spec_name(),
                    limit: cx.step_limit,
                });
            }
            if cx.trace {
                eprintln!(
                    "[{:>5}] {:<14} em={em:08x}",
                    inst.index,
                    inst.op.spec_name()
                );
            }
            // Default: the running channels move on.
            let next = pc + 1;
            match self.exec(p, inst, em, pc, cx)? {
                Flow::Next => self.advance(em, next),
                Flow::Barrier => {
                    self.advance(em, next);
                    self.at_barrier = true;
                    return Ok(Yield::Barrier);
                }
                Flow::Done => {}
            }
        }
    }

    fn advance(&mut self, em: u32, next: u32) {
        for c in 0..32 {
            if em & (1 << c) != 0 {
                self.pcs[c] = next;
            }
        }
    }

    fn exec(
        &mut self,
        p: &Prepared,
        inst: &PInst,
        em: u32,
        pc: u32,
        cx: &mut Ctx,
    ) -> Result<Flow, ExecError> {
        use Opcode::*;
        let unsupported = |what: &str| ExecError::Unsupported {
            index: inst.index,
            what: format!("{} ({what})", inst.op.spec_name()),
        };
        match inst.op {
            Label | Subroutine | Loc | File | Lifetime | Fence | LscFence | Wait | Yield
            | CacheFlush => Ok(Flow::Next),
            Barrier | Sbarrier | Nbarrier => Ok(Flow::Barrier),
            Goto | Jmp => {
                let target = target(inst);
                // Exec size 1 without a predicate: every running channel branches.
                let taken = if inst.exec.size == 1 {
                    let ch = self.chen(inst, 1);
                    if inst.pred.is_none() || ch & 1 != 0 {
                        em
                    } else {
                        0
                    }
                } else {
                    (self.chen(
                        inst,
                        em >> inst.exec.mask.channel_offset() << inst.exec.mask.channel_offset(),
                    ) << inst.exec.mask.channel_offset())
                        & em
                };
                for c in 0..32 {
                    if em & (1 << c) != 0 {
                        self.pcs[c] = if taken & (1 << c) != 0 {
                            target
                        } else {
                            pc + 1
                        };
                    }
                }
                Ok(Flow::Done)
            }
            Call => {
                let ch = self.chen(inst, em) << inst.exec.mask.channel_offset() & em;
                let callees = if inst.exec.size == 1 && inst.pred.is_none() {
                    em
                } else {
                    ch
                };
                let mut saved = self.pcs;
                for (c, s) in saved.iter_mut().enumerate() {
                    if em & (1 << c) != 0 {
                        *s = pc + 1;
                    }
                }
                self.frames.push(Frame { saved });
                let t = target(inst);
                for c in 0..32 {
                    self.pcs[c] = if callees & (1 << c) != 0 { t } else { IDLE };
                }
                Ok(Flow::Done)
            }
            Ret | Fret => {
                let ch = self.chen(inst, em) << inst.exec.mask.channel_offset() & em;
                let leaving = if inst.exec.size == 1 && inst.pred.is_none() {
                    em
                } else {
                    ch
                };
                for c in 0..32 {
                    if em & (1 << c) != 0 {
                        self.pcs[c] = if leaving & (1 << c) != 0 {
                            IDLE
                        } else {
                            pc + 1
                        };
                    }
                }
                Ok(Flow::Done)
            }
            Switchjmp => {
                let idx = match inst.fields.get(2) {
                    Some(PField::Src(s)) => self.src_num(s, 0).0.as_int(),
                    _ => 0,
                };
                let targets = match inst.fields.get(3) {
                    Some(PField::Targets(t)) => t.clone(),
                    _ => Vec::new(),
                };
                let t = targets
                    .get(usize::try_from(idx).unwrap_or(usize::MAX))
                    .copied()
                    .ok_or_else(|| unsupported("switchjmp index out of range"))?;
                for c in 0..32 {
                    if em & (1 << c) != 0 {
                        self.pcs[c] = t;
                    }
                }
                Ok(Flow::Done)
            }
            // ir::link turns fcall/ifcall/faddr/fret into call/switchjmp/mov/ret first.
            Fcall | Ifcall | Faddr => Err(unsupported(
                "stack functions are run only through ir::link, which prepare applies",
            )),
            Fccall => Err(unsupported(
                "FCCALL (a CM construct IGC's OpenCL output never uses) is not emulated",
            )),
            Gather4Scaled | Scatter4Scaled | GatherScaled | ScatterScaled | QwGather
            | QwScatter | OwordLd | OwordLdUnaligned | OwordSt | DwordAtomic | SvmAtomic
            | SvmGather4Scaled | SvmScatter4Scaled | SvmBlockLd | SvmBlockSt | SvmGather
            | SvmScatter | LscUntyped | Gather | Scatter => {
                self.message(p, inst, em, cx)?;
                Ok(Flow::Next)
            }
            D3Load | Gather4Typed | Scatter4Typed | TypedAtomic => {
                self.typed(inst, em, cx)?;
                Ok(Flow::Next)
            }
            MediaLd | MediaSt => {
                self.media(inst, cx)?;
                Ok(Flow::Next)
            }
            LscTyped => {
                self.lsc_typed(inst, em, cx)?;
                Ok(Flow::Next)
            }
            D3Sample | D3Sample4 => {
                self.typed(inst, em, cx)?;
                Ok(Flow::Next)
            }
            SampleUnorm => Err(unsupported(
                "unorm sampling (SAMPLE_UNORM, media sampler hardware) is not emulated; \
                 sample_lz, sample_l, gather4, sampler-less image reads and typed messages run",
            )),
            Avs | VmeIme | VmeSic | VmeFbr | VmeIdm | Info | RtWrite | RtRead | UrbWrite
            | RawSend | RawSends => Err(unsupported("Intel fixed-function hardware; not emulated")),
            Dpas => {
                self.dpas(inst, em, cx.grf_bytes)?;
                Ok(Flow::Next)
            }
            Dpasw => Err(unsupported(
                "DPASW reads half of Src2 from the fused partner thread's registers \
                 (EU fusion); compile without fusion to get DPAS",
            )),
            _ => {
                self.alu(p, inst, em)?;
                Ok(Flow::Next)
            }
        }
    }

    // ---- ALU ----

    fn alu(&mut self, p: &Prepared, inst: &PInst, em: u32) -> Result<(), ExecError> {
        use Opcode::*;
        let env = self.env(p);
        let n = inst.exec.size as u32;
        let moff = inst.exec.mask.channel_offset();
        let chen = self.chen(inst, em);
        let (dsts, srcs, ints) = inst.alu_operands();
        let Some(&dst) = dsts.first() else {
            return Err(ExecError::Malformed {
                index: inst.index,
                what: "no destination".into(),
            });
        };
        let dty = dst.ty();
        let sat = dst.sat();
        self.pred_view = if n == 1 && !matches!(dst, Dst::Pred(_)) {
            None
        } else {
            Some(moff)
        };
        // Compute every enabled element first (dst may overlap a source).
        let mut out: Vec<(u32, u64, Option<u64>)> = Vec::with_capacity(n as usize);
        match inst.op {
            Setp => {
                let scalar = matches!(srcs.first(), Some(Src::Imm { .. }))
                    || matches!(
                        srcs.first(),
                        Some(Src::Direct {
                            vs: 0,
                            w: 1,
                            hs: 0,
                            ..
                        })
                    );
                for i in 0..n {
                    if scalar {
                        let v = self.src_elem(srcs[0], 0).0.bits;
                        out.push((i, (v >> i) & 1, None));
                    } else if chen & (1 << i) != 0 {
                        out.push((i, self.src_elem(srcs[0], i).0.bits & 1, None));
                    }
                }
            }
            Sel => {
                // The predicate selects; only EM enables.
                let full = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
                let en = if inst.exec.mask.no_mask {
                    full
                } else {
                    (em >> moff) & full
                };
                let pbits = inst.pred.map(|pr| {
                    let b = (self.preds.get(pr.id.0 as usize).copied().unwrap_or(0) >> moff) & full;
                    if pr.inverse {
                        !b & full
                    } else {
                        b
                    }
                });
                for i in 0..n {
                    if en & (1 << i) == 0 {
                        continue;
                    }
                    let pick = pbits.is_none_or(|b| b & (1 << i) != 0);
                    let s = if pick { srcs[0] } else { srcs[1] };
                    let (v, m) = self.src_elem(s, i);
                    let a = alu::modify(v, m);
                    let bits = alu::moved_nan(v, a, dty, sat)
                        .unwrap_or_else(|| alu::to_bits(a, dty, sat, &env));
                    out.push((i, bits, None));
                }
            }
            Movs => {
                if let (Dst::State { id }, Some(s)) = (dst, srcs.first()) {
                    let v = match s {
                        Src::State { id: sid, .. } => self.surface_of(*sid),
                        _ => Surf::Bti(self.src_elem(s, 0).0.bits as u32),
                    };
                    if let Some(slot) = self.surfaces.get_mut(*id as usize) {
                        *slot = Some(v);
                    }
                    return Ok(());
                }
                for i in 0..n {
                    if chen & (1 << i) != 0 {
                        out.push((i, self.src_elem(srcs[0], i).0.bits, None));
                    }
                }
            }
            _ => {
                for i in 0..n {
                    if chen & (1 << i) == 0 {
                        continue;
                    }
                    // At most four sources (bfi): fixed arrays, no allocation per element.
                    let mut vals = [(Num::Int(0), DataType::UD); 4];
                    let mut raw = [Val {
                        ty: DataType::UD,
                        bits: 0,
                    }; 4];
                    let k = srcs.len().min(4);
                    for (j, s) in srcs.iter().take(4).enumerate() {
                        let (v, m) = self.src_elem(s, i);
                        raw[j] = v;
                        vals[j] = (alu::modify(v, m), v.ty);
                    }
                    let (vals, raw) = (&vals[..k], &raw[..k]);
                    let (r, extra) =
                        element(inst, dty, vals, raw, &ints, sat, &env).map_err(|what| {
                            ExecError::Unsupported {
                                index: inst.index,
                                what: format!("{}: {what}", inst.op.spec_name()),
                            }
                        })?;
                    out.push((i, r, extra));
                }
            }
        }
        if inst.op == Cmp {
            // A predicate destination gets a bit for every channel in exec size: the
            // disabled ones keep their value.
            if matches!(dst, Dst::Pred(_)) {
                for (i, v, _) in &out {
                    self.write_dst(dst, *i + moff, *v & 1);
                }
            } else {
                // General destination: all ones for true.
                let ones = if dty.size() >= 8 {
                    u64::MAX
                } else {
                    (1u64 << (8 * dty.size())) - 1
                };
                for (i, v, _) in &out {
                    self.write_dst(dst, *i, if *v & 1 != 0 { ones } else { 0 });
                }
            }
            return Ok(());
        }
        if trace_values() {
            if let Some((i, v, _)) = out.first() {
                eprintln!("    [{}] lane {i} <- {v:#x}", inst.index);
            }
        }
        // A predicate destination's bit for channel i is i + the mask offset (cmp's, and
        // INVM's and RSQTM's second destination).
        let lane = |d: &Dst, i: u32| {
            if matches!(d, Dst::Pred(_)) {
                i + moff
            } else {
                i
            }
        };
        for (i, v, extra) in &out {
            self.write_dst(dst, lane(dst, *i), *v);
            if let (Some(e), Some(d2)) = (extra, dsts.get(1)) {
                self.write_dst(d2, lane(d2, *i), *e);
            }
            if let (Some(e), Madw) = (extra, inst.op) {
                // High halves follow the low halves, starting on the next GRF.
                if let Dst::Direct { off, ty, hs, sat } = dst {
                    let lo_bytes = n * ty.size() * hs;
                    let hi = Dst::Direct {
                        off: off + lo_bytes.div_ceil(p.grf_bytes) * p.grf_bytes,
                        ty: *ty,
                        hs: *hs,
                        sat: *sat,
                    };
                    self.write_dst(&hi, *i, *e);
                }
            }
        }
        Ok(())
    }
}

enum Flow {
    Next,
    Barrier,
    /// The instruction set the channel PCs itself.
    Done,
}

fn target(inst: &PInst) -> u32 {
    inst.fields
        .iter()
        .find_map(|f| match f {
            PField::Target(t) => Some(*t),
            _ => None,
        })
        .unwrap_or(IDLE)
}

fn int_bits(t: DataType) -> u32 {
    8 * t.size()
}

/// ADD, MUL or MAD of float operands through `alu::exec`: the exact result rounded
/// once in the cr0 mode; `None` where an operand's value is not of its type's kind or
/// `exec` refuses the types (the caller's f64 formulas run then).
fn rounded_once(
    op: Opcode,
    dty: DataType,
    v: &[(Num, DataType)],
    sat: bool,
    env: &FpEnv,
) -> Option<u64> {
    by_exec(op, dty, v, sat, env).map(|o| o.dst)
}

/// `alu::exec` on the operands' values, as [`rounded_once`] takes them.
fn by_exec(
    op: Opcode,
    dty: DataType,
    v: &[(Num, DataType)],
    sat: bool,
    env: &FpEnv,
) -> Option<alu::AluOut> {
    let mut vals = [Val {
        ty: DataType::F,
        bits: 0,
    }; 3];
    for (slot, &(n, ty)) in vals.iter_mut().zip(v) {
        *slot = alu::val_of(n, ty)?;
    }
    let op = alu::AluOp::from_opcode(op, &[])?;
    let k = v.len().min(3);
    alu::exec(op, dty, &vals[..k], sat, env).ok()
}

/// One element of an ALU instruction: (dst bits, extra result).
fn element(
    inst: &PInst,
    dty: DataType,
    v: &[(Num, DataType)],
    raw: &[Val],
    ints: &[u64],
    sat: bool,
    env: &FpEnv,
) -> Result<(u64, Option<u64>), String> {
    use Opcode::*;
    let fexec = alu::float_exec_type(dty, raw);
    // Denormal sources a flushing %cr0 mode turns into zeros (on input, as results).
    let flushed: [(Num, DataType); 3];
    let v = if fexec.is_some() && alu::flushes_denormal_sources(inst.op) && v.len() <= 3 {
        let mut f = [(Num::Int(0), DataType::UD); 3];
        for (slot, &(n, ty)) in f.iter_mut().zip(v) {
            *slot = (alu::flush_source(n, ty, env), ty);
        }
        flushed = f;
        &flushed[..v.len()]
    } else {
        v
    };
    let a = v.first().map(|x| x.0).unwrap_or(Num::Int(0));
    let b = v.get(1).map(|x| x.0).unwrap_or(Num::Int(0));
    let c = v.get(2).map(|x| x.0).unwrap_or(Num::Int(0));
    let out = |n: Num| alu::to_bits(n, dty, sat, env);
    // Float arithmetic in the execution type.
    let fop = |f: &dyn Fn(f64, f64, f64) -> f64, f32op: &dyn Fn(f32, f32, f32) -> f32| -> Num {
        match fexec {
            // Round-to-nearest: the native f32 operation. Directed modes (cr0, e.g. the
            // RZ that IGC's integer division sequence sets): the f64 result (exact for
            // add/mul of f32 values) rounded once in that mode.
            Some(DataType::F) if env.rounding == 0 => {
                Num::Float(f32op(a.as_f64() as f32, b.as_f64() as f32, c.as_f64() as f32) as f64)
            }
            Some(DataType::F) => {
                let (x, y, z) = (
                    a.as_f64() as f32 as f64,
                    b.as_f64() as f32 as f64,
                    c.as_f64() as f32 as f64,
                );
                Num::Float(alu::f64_to_f32(f(x, y, z), env.rounding) as f64)
            }
            Some(t) => Num::Float(alu::round_exec(f(a.as_f64(), b.as_f64(), c.as_f64()), t)),
            None => Num::Float(f(a.as_f64(), b.as_f64(), c.as_f64())),
        }
    };
    // Directed rounding modes (IGC sets RZ, RU, RD around conversions and its integer
    // division), and HF's mad in any mode: ADD, MUL and MAD round once from the exact
    // result, as `alu::exec` computes it; the f64 formulas below would round twice.
    // ALT mode (2_datatypes: no infinite F results; log, rsq, sqrt of |src|) is
    // `alu::exec`'s too.
    // So are ALT mode's other F results (lrp, pln, frc, the roundings).
    let once = env.rounding != 0 || env.alt || (inst.op == Mad && fexec == Some(DataType::HF));
    let alt_f = matches!(inst.op, Lrp | Pln | Frc | Rndd | Rndu | Rnde | Rndz);
    if (once && fexec.is_some() && matches!(inst.op, Add | Mul | Mad))
        || (env.alt && alt_f && fexec == Some(DataType::F))
    {
        if let Some(bits) = rounded_once(inst.op, dty, v, sat, env) {
            return Ok((alu::canonical_nan(bits, dty), None));
        }
    }
    // Float DIV and the math unit: one model, `alu::exec`'s (math.rs: the rounding,
    // the precision, ALT mode). DF math other than INV is refused there and below.
    let math = matches!(
        inst.op,
        Div | Inv | Sqrt | Rsqrt | Exp | Log | Sin | Cos | Pow
    );
    if fexec.is_some() && math {
        if let Some(o) = by_exec(inst.op, dty, v, sat, env) {
            return Ok((alu::canonical_nan(o.dst, dty), None));
        }
    }
    // The IEEE macros (F and DF only): `alu::exec`'s, correctly rounded in the cr0
    // mode (DF's division and root on integers there), INVM of src0 by src1, and the
    // early-out bit of INVM and RSQTM for their predicate destination.
    if fexec.is_some() && matches!(inst.op, Divm | Sqrtm | Invm | Rsqtm) {
        if let Some(o) = by_exec(inst.op, dty, v, sat, env) {
            let extra = matches!(inst.op, Invm | Rsqtm).then_some(o.extra);
            return Ok((alu::canonical_nan(o.dst, dty), extra));
        }
    }
    let r = match inst.op {
        Mov | Fcvt => {
            let r = match raw.first() {
                Some(&r) => alu::moved_nan(r, a, dty, sat).unwrap_or_else(|| out(a)),
                None => out(a),
            };
            // ALT mode: a conversion that overflows F (DF -> F) gives ±fmax, not ±inf.
            let inf = r as u32 & 0x7fff_ffff == 0x7f80_0000;
            if env.alt && dty == DataType::F && inf && a.as_f64().is_finite() {
                (r as u32 & 0x8000_0000 | 0x7f7f_ffff) as u64
            } else {
                r
            }
        }
        Add => match fexec {
            Some(_) => out(fop(&|x, y, _| x + y, &|x, y, _| x + y)),
            None => out(Num::Int(a.as_int() + b.as_int())),
        },
        Mul => match fexec {
            Some(_) => out(fop(&|x, y, _| x * y, &|x, y, _| x * y)),
            None => out(Num::Int(a.as_int().wrapping_mul(b.as_int()))),
        },
        Mad => match fexec {
            Some(_) => out(fop(&|x, y, z| x.mul_add(y, z), &|x, y, z| x.mul_add(y, z))),
            None => out(Num::Int(a.as_int().wrapping_mul(b.as_int()) + c.as_int())),
        },
        Add3 => out(Num::Int(a.as_int() + b.as_int() + c.as_int())),
        AddrAdd => out(Num::Int(a.as_int() + b.as_int())),
        Avg => out(Num::Int((a.as_int() + b.as_int() + 1) >> 1)),
        Div => match fexec {
            Some(_) => out(fop(&|x, y, _| x / y, &|x, y, _| x / y)),
            None => {
                let (x, y) = (a.as_int(), b.as_int());
                if y == 0 {
                    return Ok((out(Num::Int(-1)), None));
                }
                out(Num::Int(x / y))
            }
        },
        Mod => {
            let (x, y) = (a.as_int(), b.as_int());
            if y == 0 {
                return Ok((out(Num::Int(x)), None));
            }
            out(Num::Int(x % y))
        }
        Divm => out(fop(&|x, y, _| x / y, &|x, y, _| x / y)),
        Mulh => {
            let p = a.as_int().wrapping_mul(b.as_int());
            let bits = int_bits(raw[0].ty).max(int_bits(raw.get(1).map_or(raw[0].ty, |x| x.ty)));
            out(Num::Int(p >> bits))
        }
        Madw => {
            let r = a.as_int().wrapping_mul(b.as_int()) + c.as_int();
            let lo = alu::to_bits(Num::Int(r), dty, false, env);
            let hi = alu::to_bits(Num::Int(r >> 32), dty, false, env);
            return Ok((lo, Some(hi)));
        }
        Addc => {
            let r = (a.as_int() as u32 as u64) + (b.as_int() as u32 as u64);
            return Ok((r & 0xffff_ffff, Some(r >> 32)));
        }
        Subb => {
            let (x, y) = (a.as_int() as u32, b.as_int() as u32);
            return Ok((x.wrapping_sub(y) as u64, Some((x < y) as u64)));
        }
        And | Or | Xor | Not => {
            let (x, y) = (a.as_int(), b.as_int());
            let r = match inst.op {
                And => x & y,
                Or => x | y,
                Xor => x ^ y,
                _ => !x,
            };
            out(Num::Int(r))
        }
        Shl | Shr | Asr => {
            let wide = int_bits(raw[0].ty) == 64 || int_bits(dty) == 64;
            let count = (b.as_int() as u64 & if wide { 63 } else { 31 }) as u32;
            let sbits = int_bits(raw[0].ty);
            let x = raw[0].bits
                & if sbits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << sbits) - 1
                };
            let r: i128 = match inst.op {
                Shl => (a.as_int() as u128).wrapping_shl(count) as i128,
                Shr => (x >> count) as i128,
                _ => a.as_int() >> count,
            };
            out(Num::Int(r))
        }
        Rol | Ror => {
            let bits = int_bits(dty).max(16);
            let mask = if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            let x = raw[0].bits & mask;
            let n = (b.as_int() as u32) % bits;
            if n == 0 {
                x
            } else if inst.op == Rol {
                ((x << n) | (x >> (bits - n))) & mask
            } else {
                ((x >> n) | (x << (bits - n))) & mask
            }
        }
        Cbit => out(Num::Int(raw[0].bits.count_ones() as i128 & 0xff)),
        Fbl => {
            let x = raw[0].bits as u32;
            out(Num::Int(if x == 0 {
                0xffff_ffff
            } else {
                x.trailing_zeros() as i128
            }))
        }
        Fbh => {
            let x = raw[0].bits as u32;
            let r = if raw[0].ty.is_signed_int() {
                let y = if (x as i32) < 0 { !x } else { x };
                if x == 0 || x == u32::MAX {
                    0xffff_ffff
                } else {
                    y.leading_zeros() as i128
                }
            } else if x == 0 {
                0xffff_ffff
            } else {
                x.leading_zeros() as i128
            };
            out(Num::Int(r))
        }
        Lzd => out(Num::Int((raw[0].bits as u32).leading_zeros() as i128)),
        Bfrev => out(Num::Int((raw[0].bits as u32).reverse_bits() as i128)),
        Bfe => {
            let w = (a.as_int() as u32) & 0x1f;
            let off = (b.as_int() as u32) & 0x1f;
            let x = raw[2].bits as u32;
            let mask = if w == 0 { 0 } else { (1u64 << w) - 1 } as u32;
            out(Num::Int(((x >> off) & mask) as i128))
        }
        Bfi => {
            let w = (a.as_int() as u32) & 0x1f;
            let off = (b.as_int() as u32) & 0x1f;
            let mask = (if w == 0 { 0 } else { ((1u64 << w) - 1) as u32 }) << off;
            let ins = (raw[2].bits as u32) << off;
            let base = raw.get(3).map_or(0, |x| x.bits as u32);
            out(Num::Int(((ins & mask) | (base & !mask)) as i128))
        }
        Bfn => {
            let ctrl = ints.first().copied().unwrap_or(0);
            let (x, y, z) = (raw[0].bits, raw[1].bits, raw[2].bits);
            let mut r = 0u64;
            for bit in 0..64 {
                // Spec: index = src0 + (src1 << 1) + (src2 << 2).
                let idx = ((x >> bit) & 1) | (((y >> bit) & 1) << 1) | (((z >> bit) & 1) << 2);
                r |= ((ctrl >> idx) & 1) << bit;
            }
            out(Num::Int(r as i128))
        }
        Cmp => {
            let rel = ints.first().copied().unwrap_or(0);
            return Ok((alu::compare(rel, a, b) as u64, None));
        }
        MinMax => {
            let max = ints.first().copied().unwrap_or(0) == 1;
            match fexec {
                Some(t) => out(Num::Float(alu::round_exec(
                    alu::fmin_max(a.as_f64(), b.as_f64(), max),
                    t,
                ))),
                None => out(Num::Int(if max {
                    a.as_int().max(b.as_int())
                } else {
                    a.as_int().min(b.as_int())
                })),
            }
        }
        Frc => out(Num::Float(a.as_f64() - a.as_f64().floor())),
        Rndd => out(Num::Float(a.as_f64().floor())),
        Rndu => out(Num::Float(a.as_f64().ceil())),
        Rndz => out(Num::Float(a.as_f64().trunc())),
        Rnde => out(Num::Float(a.as_f64().round_ties_even())),
        Inv | Invm => out(fop(&|x, _, _| 1.0 / x, &|x, _, _| 1.0 / x)),
        Sqrt | Sqrtm => out(fop(&|x, _, _| x.sqrt(), &|x, _, _| x.sqrt())),
        Rsqrt | Rsqtm => out(fop(&|x, _, _| 1.0 / x.sqrt(), &|x, _, _| {
            (1.0 / (x as f64).sqrt()) as f32
        })),
        Exp => out(fop(&|x, _, _| x.exp2(), &|x, _, _| {
            (x as f64).exp2() as f32
        })),
        Log => out(fop(&|x, _, _| x.log2(), &|x, _, _| {
            (x as f64).log2() as f32
        })),
        Sin => out(fop(&|x, _, _| x.sin(), &|x, _, _| (x as f64).sin() as f32)),
        Cos => out(fop(&|x, _, _| x.cos(), &|x, _, _| (x as f64).cos() as f32)),
        Pow => out(fop(&|x, y, _| x.powf(y), &|x, y, _| {
            (x as f64).powf(y as f64) as f32
        })),
        Lrp => out(fop(&|x, y, z| x * y + (1.0 - x) * z, &|x, y, z| {
            x * y + (1.0 - x) * z
        })),
        Dp4a => {
            let s = |v: Val, k: u32| -> i128 {
                let byte = (v.bits >> (8 * k)) & 0xff;
                if v.ty.is_signed_int() {
                    byte as u8 as i8 as i128
                } else {
                    byte as i128
                }
            };
            let mut acc = a.as_int();
            for k in 0..4 {
                acc += s(raw[1], k) * s(raw[2], k);
            }
            out(Num::Int(acc))
        }
        other => {
            return Err(format!(
                "{} is not an ALU instruction this interpreter knows",
                other.spec_name()
            ))
        }
    };
    // Arithmetic's NaN results: the canonical NaN (the moves returned above).
    let r = match inst.op {
        Mov | Fcvt => r,
        _ => alu::canonical_nan(r, dty),
    };
    Ok((r, None))
}

// ---- memory messages ----

/// Bytes between the rows of a media block in its data operand.
pub(crate) fn media_pitch(width: u32) -> u32 {
    if width < 4 {
        4
    } else {
        width.next_power_of_two()
    }
}

/// Where each lane of a 3D_LOAD or 3D_SAMPLE the emulator runs finds its u, v, r and
/// LOD: the row field holding each (`None`: not among the NumParams given, so 0), or
/// why the operation is not emulated. Loads run `ld` and `ld_lz`; samples run
/// `sample_lz` and `sample_l` (nearest or linear filtering, one mip level: the LOD
/// clamps to it),
/// whose text-order parameters sit in the row's U, V, R, Ai slots.
pub(crate) fn sampler_coords(inst: &PInst) -> Result<SamplerCoords, String> {
    use crate::isa::text_form::{LOAD_3D_OPS, PIXEL_NULL_MASK, SAMPLE4_OPS, SAMPLE_3D_PARAMS};
    let op = fint(inst, "Op") & !PIXEL_NULL_MASK;
    let (params, coords): (&[&str], [Option<&'static str>; 4]) = match (inst.op, op) {
        (Opcode::D3Load, 0x07 | 0x1a) => (
            LOAD_3D_OPS.iter().find(|o| o.0 == op).map_or(&[], |o| o.2),
            [Some("U"), Some("V"), Some("R"), Some("Lod")],
        ),
        (Opcode::D3Load, _) => {
            return Err(format!(
                "3D_LOAD operation {op:#x} (only ld and ld_lz are emulated)"
            ))
        }
        (Opcode::D3Sample, 0x18) => (&SAMPLE_3D_PARAMS, [Some("U"), Some("V"), Some("R"), None]),
        // gather4 reads mip level 0's bilinear footprint (only level 0 exists, so
        // gather4_l's LOD and gather4_b's bias, the first parameter, select it too).
        (Opcode::D3Sample4, _) => match SAMPLE4_OPS.iter().find(|o| o.0 == op) {
            Some((_, _, false)) => (&SAMPLE_3D_PARAMS, [Some("U"), Some("V"), Some("R"), None]),
            Some((_, _, true)) => (&SAMPLE_3D_PARAMS, [Some("V"), Some("R"), Some("Ai"), None]),
            None => {
                return Err(format!(
                    "3D_SAMPLE4 operation {op:#x} (gather4, gather4_l, gather4_b and gather4_i \
                     are emulated; the compare forms need a sampler's shadow function, which \
                     OpenCL samplers lack, and the offset forms are not modelled)"
                ))
            }
        },
        (Opcode::D3Sample, 0x02) => (&SAMPLE_3D_PARAMS, [Some("V"), Some("R"), Some("Ai"), None]),
        (o, _) => {
            return Err(format!(
                "{} operation {op:#x} (of the sampler operations sample_lz and sample_l are \
                 emulated)",
                o.spec_name()
            ))
        }
    };
    // `_aoffimmi`: the texel offsets the sampler adds to the integer texel coordinates
    // (IGC writes the immediate 0 for OpenCL). A register operand gives the same word
    // for the whole message (the hardware takes it into the message header): its
    // element 0, read when the instruction runs.
    let (offsets, offsets_in_register) = match ffld(inst, "Aoffimmi") {
        None => ([0; 3], false),
        Some(PField::Src(Src::Imm { bits, .. })) => (texel_offsets(*bits), false),
        Some(PField::Src(_)) => ([0; 3], true),
        Some(_) => {
            return Err(format!(
                "{} with an _aoffimmi operand that is neither an immediate nor a register",
                inst.op.spec_name()
            ))
        }
    };
    let given = &params[..(fint(inst, "NumParams") as usize).min(params.len())];
    Ok(SamplerCoords {
        params: coords.map(|c| c.filter(|c| given.contains(c))),
        offsets,
        offsets_in_register,
    })
}

/// A sampler message's coordinate parameters (the row's U, V, R and LOD slots that hold
/// them, `None` where the message gives none) and its `_aoffimmi` texel offsets.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SamplerCoords {
    pub params: [Option<&'static str>; 4],
    /// U, V, R offsets in texels (an immediate `_aoffimmi`).
    pub offsets: [i32; 3],
    /// `_aoffimmi` is a register: the offsets are its element 0's, read at run time.
    pub offsets_in_register: bool,
}

/// The `_aoffimmi` word's texel offsets (3D_SAMPLE's page: U in bits 11:8, V in 7:4,
/// R in 3:0, each a signed 4-bit value).
pub(crate) fn texel_offsets(bits: u64) -> [i32; 3] {
    let signed = |shift: u32| (((bits >> shift) & 0xf) as i32) << 28 >> 28;
    [signed(8), signed(4), signed(0)]
}

impl Thread {
    /// MEDIA_LD / MEDIA_ST on an image: a block of Block_width bytes by Block_height
    /// rows at (x bytes, y rows), row i at i * reg_pitch bytes of the data operand
    /// (reg_pitch = max(4, next power of two of the width)), as the pages' pseudo-code.
    /// Block messages take no channel enables.
    fn media(&mut self, inst: &PInst, cx: &mut Ctx) -> Result<(), ExecError> {
        let unsupported = |what: String| ExecError::Unsupported {
            index: inst.index,
            what,
        };
        let bti = match ffld(inst, "Surface") {
            Some(PField::Surface(id)) => match self.surface_of(*id) {
                Surf::Bti(b) if lock(cx.mem).image(b).is_some() => b,
                s => {
                    return Err(unsupported(format!(
                        "{} on {s:?}: media blocks need a 2D image surface",
                        inst.op.spec_name()
                    )))
                }
            },
            _ => return Err(unsupported("a media block without a surface".into())),
        };
        if fint(inst, "Modifiers") != 0 || fint(inst, "Plane") != 0 {
            return Err(unsupported(
                "media block field modifiers or planes other than 0 (interlaced and planar \
                 video surfaces are not modelled)"
                    .into(),
            ));
        }
        let load = inst.op == Opcode::MediaLd;
        self.block_bytes(
            cx,
            inst,
            bti,
            ("Block_width", "Block_height"),
            ("X_offset", "Y_offset"),
            (load, if load { "Dst" } else { "Src" }),
        );
        Ok(())
    }

    /// Move a block of bytes, `wf` bytes wide and `hf` rows high (`inst`'s fields), at
    /// (`xf` bytes, `yf` rows; scalar fields) of the image at `bti` to (`load`) or from
    /// the raw operand in field `data`, row i at i * media_pitch(w) bytes: MEDIA_LD /
    /// MEDIA_ST and LSC_TYPED's 2D blocks, with MEDIA_LD's edges (reads clamp to the
    /// nearest texel, writes outside are dropped). `message::block_bytes` is its twin.
    fn block_bytes(
        &mut self,
        cx: &mut Ctx,
        inst: &PInst,
        bti: u32,
        (wf, hf): (&str, &str),
        (xf, yf): (&str, &str),
        (load, data): (bool, &str),
    ) {
        let (w, h) = (fint(inst, wf) as u32, fint(inst, hf) as u32);
        let scalar = |t: &Thread, name: &str| -> i32 {
            match ffld(inst, name) {
                Some(PField::Src(s)) => t.src_elem(s, 0).0.bits as u32 as i32,
                _ => 0,
            }
        };
        let (x, y) = (scalar(self, xf), scalar(self, yf));
        let data = fraw(inst, data);
        let pitch = media_pitch(w);
        for i in 0..h {
            for j in 0..w {
                let (bx, by) = (x.wrapping_add(j as i32), y.wrapping_add(i as i32));
                if load {
                    let b = lock(cx.mem).media_byte(bti, bx, by).unwrap_or(0);
                    self.raw_write(data, i * pitch + j, 1, b as u64);
                } else {
                    let b = self.raw_read(data, i * pitch + j, 1) as u8;
                    lock(cx.mem).media_byte_write(bti, bx, by, b);
                }
            }
        }
    }

    /// The sampler state a sample reads (its index resolved by `prepare`), refused where
    /// the emulator cannot reproduce it (cube and mirror-once address modes).
    fn sampler_of(&self, inst: &PInst, cx: &mut Ctx) -> Result<SamplerState, ExecError> {
        let fail = |what: String| ExecError::Unsupported {
            index: inst.index,
            what,
        };
        let Some(PField::Sampler(idx)) = ffld(inst, "Sampler") else {
            return Err(fail("a sample without a sampler".into()));
        };
        let s = lock(cx.mem).sampler(*idx).ok_or_else(|| {
            fail(format!(
                "sampler index {idx}: neither the kernel's binary nor a sampler argument \
                 gives that sampler state"
            ))
        })?;
        match s.unsupported() {
            Some(why) => Err(fail(format!("sampler {idx}: {why} is not emulated"))),
            None => Ok(s),
        }
    }

    /// Typed surface messages on images: 3D_LOAD (ld, ld_lz: the sampler-less
    /// `read_image*`), GATHER4_TYPED and SCATTER4_TYPED. Channel `c`'s data for lane
    /// `i` sits at dword `pos(c) * slots + i`, `pos` counting enabled channels; the load
    /// starts each channel in a new GRF, the typed gather/scatter every
    /// max(exec_size, GRF/4) dwords (the pages' pseudo-code).
    fn typed(&mut self, inst: &PInst, em: u32, cx: &mut Ctx) -> Result<(), ExecError> {
        use Opcode::*;
        let n = inst.exec.size as u32;
        let chen = self.chen(inst, em);
        let unsupported = |what: String| ExecError::Unsupported {
            index: inst.index,
            what,
        };
        let bti = match ffld(inst, "Surface") {
            Some(PField::Surface(id)) => match self.surface_of(*id) {
                Surf::Bti(b) => b,
                s => {
                    return Err(unsupported(format!(
                        "{} on {s:?}: typed messages need an image surface",
                        inst.op.spec_name()
                    )))
                }
            },
            _ => return Err(unsupported("a typed message without a surface".into())),
        };
        if lock(cx.mem).image(bti).is_none() {
            return Err(unsupported(format!(
                "{} on binding-table entry {bti}, which holds no image",
                inst.op.spec_name()
            )));
        }
        // gather4 writes four samples of one channel as R, G, B, A.
        let mask = if inst.op == D3Sample4 {
            0xf
        } else {
            fint(inst, "Channels") as u32 & 0xf
        };
        let lane = |t: &Thread, name: &str, i: u32| t.raw_read(fraw(inst, name), 4 * i, 4) as u32;
        match inst.op {
            TypedAtomic => {
                let (op, width) = typed_atomic_op(inst).map_err(unsupported)?;
                let desc = lock(cx.mem).image(bti);
                if let Some(why) = desc.and_then(|d| d.atomic_refusal(width)) {
                    return Err(unsupported(why));
                }
                let bytes = (width / 8) as usize;
                let dst = fraw(inst, "Dst");
                for i in (0..n).filter(|i| chen & (1 << i) != 0) {
                    let [u, v, r, lod] = ["U", "V", "R", "LOD"].map(|c| lane(self, c, i));
                    let a0 = self.raw_read(fraw(inst, "Src0"), 4 * i, 4);
                    let a1 = self.raw_read(fraw(inst, "Src1"), 4 * i, 4);
                    // Legacy CMPXCHG: new = (old == src1) ? src0 : old.
                    let (x, y) = match op {
                        AtomicOp::CmpXchg | AtomicOp::FCmpWr => (a1, a0),
                        _ => (a0, a1),
                    };
                    let at = desc.and_then(|d| d.texel_offset(u, v, r).filter(|_| lod == 0));
                    let old = match at {
                        Some(off) => {
                            matomic(cx, &mut self.scratch, Space::Bti(bti), off, bytes, |old| {
                                op.apply(old, x, y, width)
                            })
                        }
                        // Outside the image (only mip level 0 exists): zero back, nothing
                        // written.
                        None => {
                            let mut m = lock(cx.mem);
                            m.oob_reads += 1;
                            m.oob_writes += 1;
                            0
                        }
                    };
                    self.raw_write(dst, 4 * i, 4, op.returned(old, width));
                }
            }
            D3Load | D3Sample | D3Sample4 => {
                let coords = sampler_coords(inst).map_err(unsupported)?;
                let sampler = match inst.op {
                    D3Sample | D3Sample4 => Some(self.sampler_of(inst, cx)?),
                    _ => None,
                };
                let gather = (inst.op == D3Sample4).then(|| fint(inst, "Src_channel") as usize & 3);
                // One lock, released here (a guard in an `if let` lives through its else).
                let desc = lock(cx.mem).image(bti);
                if let (Some(_), Some(d)) = (gather, &desc) {
                    if d.dims as usize - d.array as usize != 2 {
                        return Err(unsupported(format!(
                            "gather4 on a {}-dimensional image (a bilinear footprint needs \
                             two filtered axes)",
                            d.dims as usize - d.array as usize
                        )));
                    }
                } else if let (Some(s), Some(d)) = (&sampler, &desc) {
                    if s.linear && !d.ty.is_float() {
                        return Err(unsupported(format!(
                            "linear filtering of an image of {:?} channels (OpenCL filters \
                             only float and normalized images)",
                            d.ty
                        )));
                    }
                }
                let dst = fraw(inst, "Dst");
                let per = (4 * n).div_ceil(cx.grf_bytes) * cx.grf_bytes;
                let off = match ffld(inst, "Aoffimmi") {
                    Some(PField::Src(s)) if coords.offsets_in_register => {
                        texel_offsets(self.src_elem(s, 0).0.bits)
                    }
                    _ => coords.offsets,
                };
                for i in (0..n).filter(|i| chen & (1 << i) != 0) {
                    let [u, v, r, lod] = coords.params.map(|c| c.map_or(0, |f| lane(self, f, i)));
                    let texel = match (&sampler, gather) {
                        (Some(s), Some(ch)) => {
                            lock(cx.mem).texel_gather4(bti, s, [u, v, r], off, ch)
                        }
                        (Some(s), None) => lock(cx.mem).texel_sample(bti, s, [u, v, r], off),
                        // Only mip level 0 exists.
                        (None, _) if lod != 0 => {
                            lock(cx.mem).oob_reads += 1;
                            None
                        }
                        (None, _) => lock(cx.mem).texel_load(bti, [u, v, r], off),
                    }
                    .unwrap_or([0; 4]);
                    let enabled = (0..4).filter(|c| mask & (1 << c) != 0);
                    for (pos, c) in enabled.enumerate() {
                        self.raw_write(dst, pos as u32 * per + 4 * i, 4, texel[c] as u64);
                    }
                }
                if fint(inst, "Op") & crate::isa::text_form::PIXEL_NULL_MASK != 0 {
                    // No texel comes from a null page: every pixel's bit is set.
                    let bits = if n >= 32 { u32::MAX } else { (1 << n) - 1 };
                    self.raw_write(dst, mask.count_ones() * per, 4, bits as u64);
                }
            }
            Gather4Typed | Scatter4Typed => {
                let load = inst.op == Gather4Typed;
                let data = fraw(inst, if load { "Dst" } else { "Src" });
                let slots = n.max(cx.grf_bytes / 4);
                for i in (0..n).filter(|i| chen & (1 << i) != 0) {
                    let (u, v, r) = (lane(self, "U", i), lane(self, "V", i), lane(self, "R", i));
                    let lod = lane(self, "LOD", i);
                    let enabled = (0..4).filter(|c| mask & (1 << c) != 0);
                    if load {
                        let texel = if lod != 0 {
                            lock(cx.mem).oob_reads += 1;
                            [0; 4]
                        } else {
                            lock(cx.mem).texel_read(bti, u, v, r).unwrap_or([0; 4])
                        };
                        for (pos, c) in enabled.enumerate() {
                            self.raw_write(data, 4 * (pos as u32 * slots + i), 4, texel[c] as u64);
                        }
                    } else {
                        let mut val = [0u32; 4];
                        for (pos, c) in enabled.enumerate() {
                            val[c] = self.raw_read(data, 4 * (pos as u32 * slots + i), 4) as u32;
                        }
                        if lod != 0 {
                            lock(cx.mem).oob_writes += 1;
                        } else {
                            lock(cx.mem).texel_write(bti, (u, v, r), mask, val);
                        }
                    }
                }
            }
            other => {
                return Err(unsupported(format!(
                    "{} is not a typed message",
                    other.spec_name()
                )))
            }
        }
        Ok(())
    }

    fn message(
        &mut self,
        _p: &Prepared,
        inst: &PInst,
        em: u32,
        cx: &mut Ctx,
    ) -> Result<(), ExecError> {
        use Opcode::*;
        let n = inst.exec.size as u32;
        let chen = self.chen(inst, em);
        let int = |name: &str| fint(inst, name);
        let fld = |name: &str| ffld(inst, name);
        let raw = |name: &str| fraw(inst, name);
        let scalar = |t: &Thread, name: &str| -> u64 {
            match fld(name) {
                Some(PField::Src(s)) => t.src_elem(s, 0).0.bits,
                _ => 0,
            }
        };
        let space_of = |t: &Thread, name: &str| -> Space {
            match fld(name) {
                Some(PField::Surface(id)) => match t.surface_of(*id) {
                    Surf::Slm => Space::Slm,
                    Surf::Stateless => Space::Flat,
                    Surf::Scratch => Space::Scratch,
                    Surf::Bti(b) => Space::Bti(b),
                },
                _ => Space::Flat,
            }
        };
        // gather4: each enabled channel's data starts max(exec_size, GRF/4) dwords on.
        let dw_slots = |_: &Thread| -> u32 { n.max(cx.grf_bytes / 4) };
        match inst.op {
            Gather4Scaled | Scatter4Scaled | SvmGather4Scaled | SvmScatter4Scaled => {
                let svm = matches!(inst.op, SvmGather4Scaled | SvmScatter4Scaled);
                let space = if svm {
                    Space::Flat
                } else {
                    space_of(self, "Surface")
                };
                let base = if svm {
                    scalar(self, "Address")
                } else {
                    scalar(self, "Offset")
                };
                let mask = int("Channels");
                let offs = raw("Element_offset");
                let data = if matches!(inst.op, Gather4Scaled | SvmGather4Scaled) {
                    raw("Dst")
                } else {
                    raw("Src")
                };
                let load = matches!(inst.op, Gather4Scaled | SvmGather4Scaled);
                let slots = dw_slots(self);
                let mut pos = 0;
                for ch in 0..4 {
                    if mask & (1 << ch) == 0 {
                        continue;
                    }
                    for i in 0..n {
                        if chen & (1 << i) == 0 {
                            continue;
                        }
                        let eoff = if svm {
                            self.raw_read(offs, 8 * i, 8)
                        } else {
                            self.raw_read(offs, 4 * i, 4)
                        };
                        let addr = base.wrapping_add(eoff).wrapping_add(4 * ch);
                        let slot = 4 * (pos * slots + i);
                        if load {
                            let v = mread(cx, &self.scratch, space, addr, 4);
                            self.raw_write(data, slot, 4, v);
                        } else {
                            let v = self.raw_read(data, slot, 4);
                            mwrite(cx, &mut self.scratch, space, addr, 4, v);
                        }
                    }
                    pos += 1;
                }
            }
            GatherScaled | ScatterScaled | Gather | Scatter => {
                // Element i at Offset + Element_offset[i] bytes (the scaled forms), or
                // at (Global_offset + Element_offset[i]) elements of Elt_size bytes
                // (GATHER/SCATTER); each in a dword slot (loads zero-extend).
                let scaled = matches!(inst.op, GatherScaled | ScatterScaled);
                let (bytes, base, scale) = if scaled {
                    let bytes = 1usize << (int("Num_blocks") & 3);
                    (bytes, scalar(self, "Offset"), 1)
                } else {
                    let bytes =
                        elt_size_bytes(int("Elt_size")).ok_or_else(|| ExecError::Malformed {
                            index: inst.index,
                            what: "Elt_size code 3".into(),
                        })? as usize;
                    let base = scalar(self, "Global_offset") as u32 as u64;
                    (bytes, base, bytes as u64)
                };
                let space = space_of(self, "Surface");
                let offs = raw("Element_offset");
                let load = matches!(inst.op, GatherScaled | Gather);
                let data = if load { raw("Dst") } else { raw("Src") };
                for i in (0..n).filter(|i| chen & (1 << i) != 0) {
                    let e = self.raw_read(offs, 4 * i, 4);
                    let addr = base.wrapping_add(e).wrapping_mul(scale);
                    if load {
                        let v = mread(cx, &self.scratch, space, addr, bytes);
                        self.raw_write(data, 4 * i, 4, v);
                    } else {
                        let v = self.raw_read(data, 4 * i, bytes);
                        mwrite(cx, &mut self.scratch, space, addr, bytes, v);
                    }
                }
            }
            QwGather | QwScatter => {
                // The pages' pseudo-code: qword j of lane i at byte Offset[i] + 8j,
                // register element j * exec_size + i.
                let space = space_of(self, "Surface");
                let blocks = 1u32 << (int("Num_blocks") & 3);
                let offs = raw("Offset");
                let load = inst.op == QwGather;
                let data = if load { raw("Dst") } else { raw("Src") };
                for i in (0..n).filter(|i| chen & (1 << i) != 0) {
                    let addr = self.raw_read(offs, 4 * i, 4);
                    for j in 0..blocks {
                        let a = addr.wrapping_add(8 * j as u64);
                        let slot = 8 * (j * n + i);
                        if load {
                            let v = mread(cx, &self.scratch, space, a, 8);
                            self.raw_write(data, slot, 8, v);
                        } else {
                            let v = self.raw_read(data, slot, 8);
                            mwrite(cx, &mut self.scratch, space, a, 8, v);
                        }
                    }
                }
            }
            OwordLd | OwordLdUnaligned | OwordSt | SvmBlockLd | SvmBlockSt => {
                // SVM blocks (spec SVM_BLOCK_LD/ST): a flat byte address; oword blocks:
                // a surface offset in owords (in bytes for the unaligned load).
                let svm = matches!(inst.op, SvmBlockLd | SvmBlockSt);
                let store = matches!(inst.op, OwordSt | SvmBlockSt);
                let space = if svm {
                    Space::Flat
                } else {
                    space_of(self, "Surface")
                };
                let owords = 1u64 << (int(if svm { "Properties" } else { "Size" }) & 7);
                let off = scalar(self, if svm { "Address" } else { "Offset" });
                let addr = if svm || inst.op == OwordLdUnaligned {
                    off
                } else {
                    off.wrapping_mul(16)
                };
                let data = if store { raw("Src") } else { raw("Dst") };
                for b in (0..owords * 16).step_by(4) {
                    if store {
                        let v = self.raw_read(data, b as u32, 4);
                        mwrite(cx, &mut self.scratch, space, addr.wrapping_add(b), 4, v);
                    } else {
                        let v = mread(cx, &self.scratch, space, addr.wrapping_add(b), 4);
                        self.raw_write(data, b as u32, 4, v);
                    }
                }
            }
            DwordAtomic | SvmAtomic => {
                let svm = inst.op == SvmAtomic;
                let code = int("Op");
                let op = AtomicOp::from_legacy(code).ok_or_else(|| ExecError::Unsupported {
                    index: inst.index,
                    what: format!("atomic op code {code}"),
                })?;
                let width = if svm {
                    [32, 16, 64, 32][((code >> 5) & 3) as usize]
                } else if code & 0x20 != 0 {
                    16
                } else {
                    32
                };
                let bytes = (width / 8) as usize;
                let slot = if width == 64 { 8 } else { 4 };
                let space = if svm {
                    Space::Flat
                } else {
                    space_of(self, "Surface")
                };
                let addrs = if svm {
                    raw("Addresses")
                } else {
                    raw("Element_offset")
                };
                let (s0, s1, d) = (raw("Src0"), raw("Src1"), raw("Dst"));
                for i in 0..n {
                    if chen & (1 << i) == 0 {
                        continue;
                    }
                    let addr = if svm {
                        self.raw_read(addrs, 8 * i, 8)
                    } else {
                        self.raw_read(addrs, 4 * i, 4)
                    };
                    let a0 = self.raw_read(s0, slot * i, slot as usize);
                    let a1 = self.raw_read(s1, slot * i, slot as usize);
                    // Legacy CMPXCHG: new = (old == src1) ? src0 : old.
                    let (x, y) = if op == AtomicOp::CmpXchg {
                        (a1, a0)
                    } else {
                        (a0, a1)
                    };
                    let old = matomic(cx, &mut self.scratch, space, addr, bytes, |old| {
                        op.apply(old, x, y, width)
                    });
                    self.raw_write(d, slot * i, slot as usize, op.returned(old, width));
                }
            }
            LscUntyped => self.lsc(inst, chen, cx)?,
            SvmGather | SvmScatter => {
                let (bsize, blocks) = svm_blocks(inst, n);
                let addrs = raw("Addresses");
                let load = inst.op == SvmGather;
                let data = if load { raw("Dst") } else { raw("Src") };
                for i in (0..n).filter(|i| chen & (1 << i) != 0) {
                    let base = self.raw_read(addrs, 8 * i, 8);
                    for (j, &(k, stride)) in (0u32..).zip(&blocks) {
                        let addr = base.wrapping_add((j * bsize) as u64);
                        let slot = k + stride * i;
                        let len = bsize as usize;
                        if load {
                            let v = mread(cx, &self.scratch, Space::Flat, addr, len);
                            // A byte block lands in the low byte of its slot; its GRF
                            // neighbours are other blocks, so write the byte alone.
                            self.raw_write(data, slot, len, v);
                        } else {
                            let v = self.raw_read(data, slot, len);
                            mwrite(cx, &mut self.scratch, Space::Flat, addr, len, v);
                        }
                    }
                }
            }
            _ => {
                return Err(ExecError::Unsupported {
                    index: inst.index,
                    what: format!("{} is not emulated yet", inst.op.spec_name()),
                })
            }
        }
        Ok(())
    }

    /// LSC_TYPED on an image (`.tgm`): the quad load and store are GATHER4_TYPED and
    /// SCATTER4_TYPED with the ChMask channels, each enabled channel's data starting a
    /// GRF on; the atomics are TYPED_ATOMIC's with LSC_UNTYPED's operands (src1, src2;
    /// no swap for compare-exchange). The coordinates carry immediate offsets.
    /// DPAS over whole operands (`alu::dpas`); channel i of each destination row is
    /// written where channel i is enabled.
    fn dpas(&mut self, inst: &PInst, em: u32, grf_bytes: u32) -> Result<(), ExecError> {
        let n = inst.exec.size as u32;
        let chen = self.chen(inst, em);
        let bad = |what: String| ExecError::Unsupported {
            index: inst.index,
            what: format!("DPAS: {what}"),
        };
        let ops = dpas_operands(inst, grf_bytes).map_err(bad)?;
        let (dst, dty) = ops.dst;
        let (s0, s0ty) = ops.src0;
        let (b0, b1, b2) = ops.shape.operand_bytes();
        let bytes = |o: u32, len: usize| -> Vec<u8> {
            let o = o as usize;
            let mut v = vec![0u8; len];
            if let Some(src) = self.grf.get(o..o + len) {
                v.copy_from_slice(src);
            }
            v
        };
        let c = s0.map(|o| (s0ty, bytes(o, b0 * s0ty.size() as usize / 4)));
        let out = alu::dpas(
            ops.shape,
            dty,
            c.as_ref().map(|(t, b)| (*t, b.as_slice())),
            &bytes(ops.src1, b1),
            &bytes(ops.src2, b2),
        )
        .map_err(|e| bad(e.to_string()))?;
        let Some(d) = dst else { return Ok(()) };
        let es = dty.size() as usize;
        for (e, chunk) in out.chunks(es).enumerate() {
            if chen & (1 << (e as u32 % n)) != 0 {
                let v = read_le(chunk, 0, es);
                write_le(&mut self.grf, d as usize + e * es, es, v);
            }
        }
        Ok(())
    }

    fn lsc_typed(&mut self, inst: &PInst, em: u32, cx: &mut Ctx) -> Result<(), ExecError> {
        let n = inst.exec.size as u32;
        let chen = self.chen(inst, em);
        let int = |name: &str| fint(inst, name);
        let subop = int("LscSubOp");
        let unsupported = |what: String| ExecError::Unsupported {
            index: inst.index,
            what,
        };
        let bti = match (int("AddrType"), ffld(inst, "Surface")) {
            (4, Some(PField::Src(s))) => self.src_elem(s, 0).0.bits as u32,
            (ty, _) => {
                return Err(unsupported(format!(
                    "LSC_TYPED with address model {} (only bti(N) surfaces are bound)",
                    crate::isa::syntax::LSC_ADDR_TYPE.name(ty).unwrap_or("?")
                )))
            }
        };
        let desc = lock(cx.mem).image(bti).ok_or_else(|| {
            unsupported(format!(
                "LSC_TYPED on binding-table entry {bti}, which holds no image"
            ))
        })?;
        if matches!(subop, 0x03 | 0x07) {
            // 2D blocks: one message for the thread, no channel enables (the page's
            // LOAD_BLOCK2D/STORE_BLOCK2D loops, MEDIA_LD's edges).
            let load = subop == 0x03;
            self.block_bytes(
                cx,
                inst,
                bti,
                ("BlockWidth", "BlockHeight"),
                ("Src0AddrX", "Src0AddrY"),
                (load, if load { "DstData" } else { "Src1Data" }),
            );
            return Ok(());
        }
        let bits = match int("DataSize") {
            3 => 32,
            d => {
                return Err(unsupported(format!(
                    "LSC_TYPED with data size {} (texel channels and atomics move as d32)",
                    crate::isa::syntax::LSC_DATA_SIZE.name(d).unwrap_or("?")
                )))
            }
        };
        let slot_pitch = (4 * n).div_ceil(cx.grf_bytes) * cx.grf_bytes;
        let coord = |t: &Thread, c: &str, i: u32| -> u32 {
            let v = t.raw_read(fraw(inst, &format!("Src0Addrs{c}")), 4 * i, 4) as u32;
            let off = if c == "LOD" {
                0
            } else {
                fint(inst, &format!("Src0Addrs{c}Offset")) as u32
            };
            v.wrapping_add(off)
        };
        let mask = int("ChMask") as u32 & 0xf;
        let enabled: Vec<usize> = (0..4).filter(|c| mask & (1 << c) != 0).collect();
        let op = lsc_typed_op(subop).map_err(unsupported)?;
        if let Some(why) = op.and_then(|_| desc.atomic_refusal(bits)) {
            return Err(unsupported(why));
        }
        if subop == 0x1b {
            // LOAD_STATUS, as on untyped surfaces: bit i of the destination's first
            // dword when channel i is enabled and its texel lies in the image (LOD 0:
            // the emulator's images have one level); no texel is read.
            let mut bits = 0u64;
            for i in (0..n).filter(|i| chen & (1 << i) != 0) {
                let [u, v, r, lod] = ["U", "V", "R", "LOD"].map(|c| coord(self, c, i));
                let inside = desc.texel_offset(u, v, r).is_some() && lod == 0;
                bits |= u64::from(inside) << i;
            }
            self.raw_write(fraw(inst, "DstData"), 0, 4, bits);
            return Ok(());
        }
        for i in (0..n).filter(|i| chen & (1 << i) != 0) {
            let [u, v, r, lod] = ["U", "V", "R", "LOD"].map(|c| coord(self, c, i));
            let at = desc.texel_offset(u, v, r).filter(|_| lod == 0);
            match (op, subop) {
                (None, 0x02) => {
                    let texel = match at {
                        Some(_) => lock(cx.mem).texel_read(bti, u, v, r).unwrap_or([0; 4]),
                        None => {
                            lock(cx.mem).oob_reads += 1;
                            [0; 4]
                        }
                    };
                    for (m, &c) in enabled.iter().enumerate() {
                        let dst = fraw(inst, "DstData");
                        self.raw_write(dst, m as u32 * slot_pitch + 4 * i, 4, texel[c] as u64);
                    }
                }
                (None, _) => {
                    let mut val = [0u32; 4];
                    for (m, &c) in enabled.iter().enumerate() {
                        let src = fraw(inst, "Src1Data");
                        val[c] = self.raw_read(src, m as u32 * slot_pitch + 4 * i, 4) as u32;
                    }
                    match at {
                        Some(_) => lock(cx.mem).texel_write(bti, (u, v, r), mask, val),
                        None => lock(cx.mem).oob_writes += 1,
                    }
                }
                (Some(op), _) => {
                    let a1 = self.raw_read(fraw(inst, "Src1Data"), 4 * i, 4);
                    let a2 = self.raw_read(fraw(inst, "Src2Data"), 4 * i, 4);
                    let old = match at {
                        Some(off) => matomic(
                            cx,
                            &mut self.scratch,
                            Space::Bti(bti),
                            off,
                            (bits / 8) as usize,
                            |old| op.apply(old, a1, a2, bits),
                        ),
                        None => {
                            let mut m = lock(cx.mem);
                            m.oob_reads += 1;
                            m.oob_writes += 1;
                            0
                        }
                    };
                    self.raw_write(fraw(inst, "DstData"), 4 * i, 4, op.returned(old, bits));
                }
            }
        }
        Ok(())
    }

    fn lsc(&mut self, inst: &PInst, chen: u32, cx: &mut Ctx) -> Result<(), ExecError> {
        let int = |name: &str| fint(inst, name);
        let fld = |name: &str| ffld(inst, name);
        let raw = |name: &str| fraw(inst, name);
        let n = inst.exec.size as u32;
        let subop = int("LscSubOp");
        let sfid = int("LscSFID");
        let ty = int("AddrType");
        let asize = match int("AddrSize") {
            1 => 2,
            3 => 8,
            _ => 4,
        };
        let (mem_bytes, slot) = match int("DataSize") {
            1 => (1, 1),
            2 => (2, 2),
            4 => (8, 8),
            5 => (1, 4),
            6 | 7 => (2, 4),
            _ => (4, 4),
        };
        let vec = [0, 1, 2, 3, 4, 8, 16, 32, 64][(int("DataElemsPerAddr") as usize).min(8)];
        let transpose = int("DataOrder") == crate::isa::syntax::LSC_ORDER_TRANSPOSE;
        let scale = int("AddrScale").max(1);
        let imm = int("AddrImmOffset") as u32 as i32 as i64;
        let surf = match fld("Surface") {
            Some(PField::Src(s)) => self.src_elem(s, 0).0.bits,
            _ => 0,
        };
        let space = if sfid == 3 {
            Space::Slm
        } else if ty == 4 {
            Space::Bti(surf as u32)
        } else {
            Space::Flat
        };
        let addrs = raw("Src0Addrs");
        let addr_of = |t: &Thread, i: u32| -> u64 {
            let a = t.raw_read(addrs, asize * i, asize as usize);
            let base = if matches!(ty, 2 | 3) { surf } else { 0 };
            (a.wrapping_mul(scale) as i64).wrapping_add(imm) as u64 + base
        };
        // Each vector element of a SIMT message starts on a GRF boundary.
        let reg_pitch = |grfb: u32| (n * slot).div_ceil(grfb) * grfb;
        let gb = cx.grf_bytes;
        let dst = raw("DstData");
        let src1 = raw("Src1Data");
        let src2 = raw("Src2Data");
        let mask_slot = |v: u64| -> u64 {
            if mem_bytes < slot {
                v & ((1u64 << (8 * mem_bytes)) - 1)
            } else {
                v
            }
        };
        match subop {
            0x03 | 0x07 => return self.lsc_block2d(inst, cx),
            0x00..=0x02 | 0x04..=0x06 => {
                let load = subop <= 0x02;
                let strided = matches!(subop, 0x01 | 0x05);
                // (element in memory, component in the data operand): a quad's enabled
                // X/Y/Z/W channels packed into successive components.
                let parts: Vec<(u32, u32)> = if matches!(subop, 0x02 | 0x06) {
                    let mask = int("ChMask") as u32 & 0xf;
                    (0..4).filter(|c| mask & (1 << c) != 0).zip(0..).collect()
                } else {
                    (0..vec).map(|v| (v, v)).collect()
                };
                if transpose && (strided || parts.len() as u32 != vec) {
                    return Err(ExecError::Unsupported {
                        index: inst.index,
                        what:
                            "a transposed strided or quad LSC message (the page's forms are SIMT)"
                                .into(),
                    });
                }
                // Strided: lane i at the first lane's address plus i pitches.
                let pitch = match fld("Src0AddrPitch") {
                    Some(PField::Src(p)) if strided => {
                        self.src_elem(p, 0).0.bits as u32 as i32 as i64
                    }
                    _ => 0,
                };
                if transpose {
                    let addr = addr_of(self, 0);
                    for v in 0..vec {
                        let a = addr + (v * mem_bytes) as u64;
                        if load {
                            let x = mread(cx, &self.scratch, space, a, mem_bytes as usize);
                            self.raw_write(dst, v * slot, slot as usize, x);
                        } else {
                            let x = self.raw_read(src1, v * slot, mem_bytes as usize);
                            mwrite(cx, &mut self.scratch, space, a, mem_bytes as usize, x);
                        }
                    }
                    return Ok(());
                }
                let first = addr_of(self, 0);
                for i in 0..n {
                    if chen & (1 << i) == 0 {
                        continue;
                    }
                    let addr = if strided {
                        first.wrapping_add((i as i64).wrapping_mul(pitch) as u64)
                    } else {
                        addr_of(self, i)
                    };
                    for &(e, v) in &parts {
                        let a = addr.wrapping_add((e * mem_bytes) as u64);
                        let r = v * reg_pitch(gb) + i * slot;
                        if load {
                            let x = mread(cx, &self.scratch, space, a, mem_bytes as usize);
                            self.raw_write(dst, r, slot as usize, x);
                        } else {
                            let x = mask_slot(self.raw_read(src1, r, slot as usize));
                            mwrite(cx, &mut self.scratch, space, a, mem_bytes as usize, x);
                        }
                    }
                }
            }
            0x1b => {
                // LOAD_STATUS: bit n of the destination's first dword is set when
                // channel n is enabled and every element it addresses is valid (in
                // bound memory: the emulator has no tiled resources); no memory is read.
                let mut bits = 0u64;
                let mem = lock(cx.mem);
                let local: &[u8] = if space == Space::Scratch {
                    &self.scratch
                } else {
                    cx.slm
                };
                for i in 0..n {
                    if chen & (1 << i) == 0 {
                        continue;
                    }
                    let addr = addr_of(self, i);
                    let ok = (0..vec).all(|v| {
                        let a = addr.wrapping_add((v * mem_bytes) as u64);
                        mem.valid(space, local, a, mem_bytes as usize)
                    });
                    bits |= u64::from(ok) << i;
                }
                drop(mem);
                self.raw_write(dst, 0, 4, bits);
            }
            0x28 | 0x29 => {
                // Append counter atomics: no address; the page's loop over channels
                // in order under one lock (the whole message is one operation).
                let Space::Bti(bti) = space else {
                    return Err(ExecError::Unsupported {
                        index: inst.index,
                        what: "an append counter on a surface other than a binding-table entry"
                            .into(),
                    });
                };
                if mem_bytes != 4 {
                    return Err(ExecError::Unsupported {
                        index: inst.index,
                        what: "an append counter atomic of other than 32-bit data".into(),
                    });
                }
                let src0 = addrs;
                let mut mem = lock(cx.mem);
                for i in 0..n {
                    if chen & (1 << i) == 0 {
                        continue;
                    }
                    let x = self.raw_read(src0, i * 4, 4) as u32;
                    let delta = if subop == 0x28 { x } else { x.wrapping_neg() };
                    let old = mem.append_counter_add(bti, delta);
                    self.raw_write(dst, i * 4, 4, u64::from(old));
                }
            }
            0x08..=0x1a => {
                let op = AtomicOp::from_lsc(subop).ok_or_else(|| ExecError::Unsupported {
                    index: inst.index,
                    what: format!("LSC atomic sub-op {subop:#x}"),
                })?;
                let width = 8 * mem_bytes;
                for i in 0..n {
                    if chen & (1 << i) == 0 {
                        continue;
                    }
                    let addr = addr_of(self, i);
                    let a1 = self.raw_read(src1, i * slot, slot as usize);
                    let a2 = self.raw_read(src2, i * slot, slot as usize);
                    let old = matomic(
                        cx,
                        &mut self.scratch,
                        space,
                        addr,
                        mem_bytes as usize,
                        |old| op.apply(old, a1, a2, width),
                    );
                    self.raw_write(dst, i * slot, slot as usize, old);
                }
            }
            _ => {
                return Err(ExecError::Unsupported {
                    index: inst.index,
                    what: format!(
                        "{} is not emulated yet",
                        crate::isa::syntax::LSC_SUBOP
                            .name(subop)
                            .unwrap_or("lsc sub-op")
                    ),
                })
            }
        }
        Ok(())
    }
}

impl Thread {
    /// `lsc_load_block2d` / `lsc_store_block2d` (`block2d`): a whole-thread message
    /// (the page's examples run it `(M1_NM, 1)`; IGC's are `(M1, 16)`), so the
    /// execution mask does not enter.
    fn lsc_block2d(&mut self, inst: &PInst, cx: &mut Ctx) -> Result<(), ExecError> {
        let shape = Block2d::of(inst, cx.grf_bytes).map_err(|what| ExecError::Unsupported {
            index: inst.index,
            what,
        })?;
        let surf = block2d_surface(inst, |s| self.src_elem(s, 0).0.bits);
        let e = shape.elem;
        let data = fraw(inst, if shape.load { "DstData" } else { "Src1Data" });
        for b in 0..shape.blocks {
            for g in 0..shape.block_pitch {
                let at = (b * shape.block_pitch + g) * e;
                let addr = shape
                    .source(g)
                    .and_then(|(y, x)| surf.address(&shape, b, y, x));
                if shape.load {
                    let v =
                        addr.map_or(0, |a| mread(cx, &self.scratch, Space::Flat, a, e as usize));
                    self.raw_write(data, at, e as usize, v);
                } else if let Some(a) = addr {
                    let v = self.raw_read(data, at, e as usize);
                    mwrite(cx, &mut self.scratch, Space::Flat, a, e as usize, v);
                }
            }
        }
        Ok(())
    }
}

/// A block2d message's run-time surface operands, `read` giving a scalar's bits.
pub(crate) fn block2d_surface(inst: &PInst, read: impl Fn(&Src) -> u64) -> Surface2d {
    let v = |name: &str| match ffld(inst, name) {
        Some(PField::Src(s)) => read(s),
        _ => 0,
    };
    Surface2d {
        base: v("SurfaceBaseAddr"),
        width: v("SurfaceWidth") as u32,
        height: v("SurfaceHeight") as u32,
        pitch: v("SurfacePitch") as u32,
        x: v("Src0AddrX") as u32 as i32,
        y: v("Src0AddrY") as u32 as i32,
    }
}

/// TYPED_ATOMIC's operation and width from its `Op` field (bits 4..0 the operation,
/// bit 5 the 16-bit form).
pub(crate) fn typed_atomic_op(inst: &PInst) -> Result<(AtomicOp, u32), String> {
    let code = fint(inst, "Op");
    let op = AtomicOp::from_legacy(code).ok_or_else(|| format!("typed atomic op code {code}"))?;
    Ok((op, if code & 0x20 != 0 { 16 } else { 32 }))
}

pub(crate) fn ffld<'a>(inst: &'a PInst, name: &str) -> Option<&'a PField> {
    crate::isa::table::info(inst.op)
        .index_of(name)
        .and_then(|i| inst.fields.get(i))
}

/// A DPAS instruction as the interpreter and the translator both read it: its shape
/// and its operands' GRF offsets (`None`: %null) with their variables' types.
pub(crate) struct DpasOperands {
    pub shape: alu::DpasShape,
    pub dst: (Option<u32>, DataType),
    pub src0: (Option<u32>, DataType),
    pub src1: u32,
    pub src2: u32,
}

/// Read and check a DPAS instruction (the page's rules, `alu::dpas_check`; a row is
/// one GRF). The error says what is wrong.
pub(crate) fn dpas_operands(inst: &PInst, grf_bytes: u32) -> Result<DpasOperands, String> {
    let n = inst.exec.size as u32;
    let raw = |name: &str| match ffld(inst, name) {
        Some(PField::Raw(off, ty)) => (*off, *ty),
        _ => (None, DataType::UD),
    };
    let prec = |name: &str| {
        alu::Precision::from_code(fint(inst, name))
            .ok_or_else(|| format!("precision code {} for {name}", fint(inst, name)))
    };
    let shape = alu::DpasShape {
        w: prec("W")?,
        a: prec("A")?,
        depth: fint(inst, "SD") as u32,
        repeat: fint(inst, "RC") as u32,
        exec_size: n,
    };
    if 4 * n != grf_bytes {
        return Err(format!(
            "execution size {n} on a {grf_bytes}-byte GRF (a row is one GRF: 8 channels \
             on 32-byte GRFs, 16 on 64-byte)"
        ));
    }
    let src2 = match ffld(inst, "Src2") {
        Some(PField::Src(Src::Direct { off, .. })) => *off,
        _ => return Err("an indirect or immediate Src2".into()),
    };
    let (dst, src0) = (raw("Dst"), raw("Src0"));
    let src1 = raw("Src1").0.ok_or("a null Src1")?;
    alu::dpas_check(shape, dst.1, src0.0.map(|_| src0.1)).map_err(|e| e.to_string())?;
    Ok(DpasOperands {
        shape,
        dst,
        src0,
        src1,
        src2,
    })
}

/// What an LSC_TYPED sub-op does: a quad load or store or a status load (`None`) or
/// an atomic (2D blocks are handled before it); surface info is refused with the reason.
pub(crate) fn lsc_typed_op(subop: u64) -> Result<Option<AtomicOp>, String> {
    match subop {
        0x02 | 0x06 | 0x1b => Ok(None),
        0x08..=0x1a => AtomicOp::from_lsc(subop)
            .map(Some)
            .ok_or_else(|| format!("LSC atomic sub-op {subop:#x}")),
        _ => Err(format!(
            "{} on a typed surface is not emulated (quad loads and stores of d32, 2D blocks, \
             atomics and load status are)",
            crate::isa::syntax::LSC_SUBOP
                .name(subop)
                .unwrap_or("this LSC sub-op")
        )),
    }
}

/// GATHER/SCATTER's Elt_size code as bytes (1, 2, 4; code 3 is undefined).
pub(crate) fn elt_size_bytes(code: u64) -> Option<u32> {
    match code & 3 {
        0 => Some(1),
        1 => Some(2),
        2 => Some(4),
        _ => None,
    }
}

/// SVM_GATHER/SVM_SCATTER's data layout (the pages' pseudo-code), for the interpreter,
/// the translator's messages and the lane plan alike: the block size in bytes, and per
/// block j (at address offset `j * size`) its data's byte offset and per-lane stride:
/// 4/8-byte blocks j of lane i at data[j*exec_size + i]; byte blocks packed per lane,
/// max(num_blocks, 4) bytes apart.
pub(crate) fn svm_blocks(inst: &PInst, n: u32) -> (u32, Vec<(u32, u32)>) {
    let size = match fint(inst, "Block_size") & 3 {
        0 => 1u32,
        1 => 4,
        _ => 8,
    };
    let blocks = 1u32 << (fint(inst, "Num_blocks") & 3);
    let data = (0..blocks)
        .map(|j| {
            if size == 1 {
                (j, blocks.max(4))
            } else {
                (j * n * size, size)
            }
        })
        .collect();
    (size, data)
}

pub(crate) fn fint(inst: &PInst, name: &str) -> u64 {
    match ffld(inst, name) {
        Some(PField::Int(v)) => *v,
        _ => 0,
    }
}

pub(crate) fn fraw(inst: &PInst, name: &str) -> Option<u32> {
    match ffld(inst, name) {
        Some(PField::Raw(r, _)) => *r,
        _ => None,
    }
}

fn lock(mem: &std::sync::Mutex<Memory>) -> std::sync::MutexGuard<'_, Memory> {
    // A worker that panicked while holding the lock leaves memory consistent (every
    // access is a whole read or write), so a poisoned lock is still usable.
    mem.lock().unwrap_or_else(|p| p.into_inner())
}

/// A memory read through the shared memory, the group's SLM or the thread's scratch.
fn mread(cx: &mut Ctx, scratch: &[u8], space: Space, addr: u64, len: usize) -> u64 {
    let slm: &[u8] = if space == Space::Scratch {
        scratch
    } else {
        cx.slm
    };
    lock(cx.mem).read(space, slm, addr, len)
}

fn mwrite(cx: &mut Ctx, scratch: &mut [u8], space: Space, addr: u64, len: usize, value: u64) {
    let mut mem = lock(cx.mem);
    let local: &mut [u8] = if space == Space::Scratch {
        scratch
    } else {
        cx.slm
    };
    mem.write(space, local, addr, len, value);
}

/// An atomic read-modify-write under one lock; returns the old value. `f` gives the new
/// value, or `None` to leave memory unchanged.
fn matomic(
    cx: &mut Ctx,
    scratch: &mut [u8],
    space: Space,
    addr: u64,
    len: usize,
    f: impl FnOnce(u64) -> Option<u64>,
) -> u64 {
    let mut mem = lock(cx.mem);
    let local: &mut [u8] = if space == Space::Scratch {
        scratch
    } else {
        cx.slm
    };
    let old = mem.read(space, local, addr, len);
    if let Some(new) = f(old) {
        mem.write(space, local, addr, len, new);
    }
    old
}

/// `VISA_TRACE_VALUES` read once: a `getenv` per ALU instruction was 7% of the
/// interpreter's time (stencil3x3 at 262,144 work-items).
fn trace_values() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("VISA_TRACE_VALUES").is_some())
}
