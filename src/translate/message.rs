//! Memory messages: the WGSL twin of the interpreter's `Thread::message` and
//! `Thread::lsc`. The message parameters are constants of the instruction, so each
//! message becomes a loop over its enabled channels calling the runtime's `mem_ld`,
//! `mem_st` and `mem_atomic` with the address space decided here where it is static.

use super::lane_memory::Owned;
use super::operand::src_elem;
use super::{chen_expr, Emit, TranslateError};
use crate::interp::memory::AtomicOp;
use crate::interp::prepare::{PField, PInst};
use crate::isa::Opcode;

// Message fields by name: the interpreter's lookups, so both paths read the same fields.
use crate::interp::thread::{
    elt_size_bytes, ffld as field, fint as int, fraw as raw, lsc_typed_op,
};

/// `raw_read(off, byte, len)` as a u64 expression.
fn rd(off: Option<u32>, byte: &str, len: u32) -> String {
    match off {
        Some(o) => format!("gld({}, {len}u)", at(o, byte)),
        None => "0lu".into(),
    }
}

fn wr(off: Option<u32>, byte: &str, len: u32, v: &str) -> String {
    match off {
        Some(o) => format!("gst({}, {len}u, {v});", at(o, byte)),
        None => format!("_ = {v};"),
    }
}

/// Byte `byte` of a raw operand at `o`, one literal where `byte` is one (the form
/// `scalar_slots` moves into registers).
fn at(o: u32, byte: &str) -> String {
    match super::literal::u32_literal(byte) {
        Some(k) => format!("{}u", o + k),
        None => format!("{o}u + {byte}"),
    }
}

/// Whether every GRF access of a message's code is at a constant offset: a
/// transposed LSC load or store emitted element by element
/// ([`lsc_transposed_unrolled`]), or a legacy scaled gather or scatter of one element
/// (`rdv` and `wrv` fold its `i`). `scalar_slots` then reads each access the
/// footprint records of it as a whole one.
pub(super) fn constant_offsets(inst: &PInst, grf_bytes: u32) -> bool {
    use Opcode::*;
    match inst.op {
        LscUntyped => {
            matches!(int(inst, "LscSubOp"), 0x00 | 0x04)
                && lsc_transposed_unrolled(&lsc_shape(inst, inst.exec.size as u32, grf_bytes))
        }
        GatherScaled | ScatterScaled | Gather4Scaled | Scatter4Scaled | SvmGather4Scaled
        | SvmScatter4Scaled => inst.exec.size == 1,
        _ => false,
    }
}

/// A transposed LSC load or store the emitter writes element by element, each at a
/// constant GRF offset.
fn lsc_transposed_unrolled(s: &LscShape) -> bool {
    s.transpose && lsc_unrolled(s.vec) && s.mem_bytes == s.slot
}

/// Bytes `k + stride * i` of raw operand `off` (element `i`): the lane's register
/// where lane mode promoted them, else the GRF image.
fn rdv(em: &Emit, off: Option<u32>, k: u32, stride: u32, len: u32) -> String {
    match off {
        Some(o) => match em.lane_reg(o + k, stride, len) {
            Some((r, part)) => super::lanes::part_read(&r, part),
            None if em.one_elem => format!("gld({}u, {len}u)", o + k),
            None => format!("gld({}u + {stride}u * i, {len}u)", o + k),
        },
        None => "0lu".into(),
    }
}

fn wrv(em: &Emit, off: Option<u32>, k: u32, stride: u32, len: u32, v: &str) -> String {
    match off {
        Some(o) => match em.lane_reg(o + k, stride, len) {
            Some((r, part)) => super::lanes::part_store(&r, part, v),
            None if em.one_elem => format!("gst({}u, {len}u, {v});", o + k),
            None => format!("gst({}u + {stride}u * i, {len}u, {v});", o + k),
        },
        None => format!("_ = {v};"),
    }
}

/// Whether a SIMT LSC load or store of `vec` elements per address is emitted one
/// element at a time (constant GRF offsets) rather than as a loop over them.
pub(crate) fn lsc_unrolled(vec: u32) -> bool {
    vec <= 8
}

/// The scalar source `name` (element 0) as a u64 expression.
fn scalar(inst: &PInst, name: &str) -> String {
    match field(inst, name) {
        Some(PField::Src(s)) => {
            // Element 0: the message code binds `i = 0` before using it.
            src_elem(s, 1, Some(0)).raw
        }
        _ => "0lu".into(),
    }
}

/// The space of a message's accesses where the translator knows it: the short forms
/// (`bti_ld`/`slm_ld`...) then replace the general `mem_ld`/`mem_st`, whose other
/// spaces' code llvmpipe would run masked on every access.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Known {
    Any,
    Bti,
    /// A binding-table surface in a straight module, whose word accesses may leave an
    /// unaligned one to the thread mapping (`bti_ld4`/`bti_st4`).
    BtiFast,
    /// A binding-table access in a straight module whose every channel's address the
    /// host proved inside the entry (`lane_memory::BtiBound`): bytes and aligned words
    /// without a check.
    BtiProven,
    Slm,
    /// SLM in a straight module (`slm_ld4`/`slm_st4`).
    SlmFast,
    /// The thread's scratch space in a straight module (`scratch_ld4`/`scratch_st4`;
    /// other sizes `mem_ld`/`mem_st`).
    ScratchFast,
    /// Flat memory through placed base `j` in a straight module (`flat_at`): an
    /// access outside the base's allocation hands the launch to the thread mapping.
    Flat(u32),
}

/// [`Known::Bti`], or its branch-free form where the module can fall back.
fn known_bti(em: &Emit) -> Known {
    if em.straight {
        if em.bti_proven {
            Known::BtiProven
        } else {
            Known::BtiFast
        }
    } else {
        Known::Bti
    }
}

/// [`Known::Slm`], or its branch-free form where the module can fall back.
fn known_slm(em: &Emit) -> Known {
    if em.straight {
        Known::SlmFast
    } else {
        Known::Slm
    }
}

/// `let sp = ...; let bt = ...;` for the surface field `name`, and whether the space is
/// a binding-table surface known at translation time (`Emit::surface_bti`).
fn space(em: &mut Emit, inst: &PInst, name: &str) -> Known {
    match (field(inst, name), em.surface_bti) {
        // The predefined surfaces (`surf_code` of runtime.wgsl): T0 is SLM, T1-T4
        // flat, T5 scratch, whatever the surface variables hold; SLM's short forms
        // spare llvmpipe the general helpers' other spaces (matmul_tiled16's straight
        // module on lavapipe: 6.2-7.6 -> 3.4 GPU ms, pipeline creation 1000 -> 465 ms).
        (Some(PField::Surface(0)), _) => {
            em.line("let sp = SP_SLM; let bt = 0u;");
            known_slm(em)
        }
        (Some(PField::Surface(1..=4)), _) => {
            em.line("let sp = SP_FLAT; let bt = 0u;");
            Known::Any
        }
        (Some(PField::Surface(5)), _) => {
            em.line("let sp = SP_SCRATCH; let bt = 0u;");
            if em.straight {
                Known::ScratchFast
            } else {
                Known::Any
            }
        }
        (Some(PField::Surface(_)), Some(b)) => {
            em.line(&format!("let sp = SP_BTI; let bt = {b}u;"));
            known_bti(em)
        }
        (Some(PField::Surface(id)), None) => {
            em.line(&format!(
                "let sb = surf_space({id}u); let sp = sb.x; let bt = sb.y;"
            ));
            Known::Any
        }
        _ => {
            em.line("let sp = SP_FLAT; let bt = 0u;");
            Known::Any
        }
    }
}

/// A load of `n` bytes at `addr` from the space `sp`/`bt` (a short form where the space
/// is known).
fn ld(em: &Emit, known: Known, addr: &str, n: u32, at: usize) -> String {
    let claimed = claimed(em, known, addr, n, at);
    let addr = claimed.as_str();
    // Straight modules: an unplaced flat load checks its address against the
    // allocations the kernel stores to (`Conditions::flat_unplaced`).
    let addr = match known {
        Known::Any => em.avoid_btis.iter().fold(addr.to_string(), |a, b| {
            format!("flat_avoid({a}, {n}u, {b}u, {}u)", at + 1)
        }),
        _ => addr.to_string(),
    };
    let addr = addr.as_str();
    match known {
        Known::Flat(j) if n == 4 => format!("u64(flat_ld4({j}u, {addr}, {at}u))"),
        Known::Flat(j) if n == 8 => format!("flat_ld8({j}u, {addr}, {at}u)"),
        Known::Flat(j) if n == 1 => format!("u64(heap_ld1(flat_at({j}u, {addr}, 1u, {at}u)))"),
        Known::Flat(j) if n < 4 => format!("flat_ld({j}u, {addr}, {n}u, {at}u)"),
        Known::BtiProven if n == 4 => format!("u64(atomicLoad(&heap[bti_in(bt, {addr}) >> 2u]))"),
        Known::BtiProven if n == 1 => format!("u64(heap_byte(bti_in(bt, {addr})))"),
        Known::BtiFast | Known::BtiProven if n == 4 => format!("u64(bti_ld4(bt, {addr}, {at}u))"),
        Known::BtiFast | Known::BtiProven if n == 1 => {
            format!("u64(heap_ld1(bti_at(bt, {addr}, 1u)))")
        }
        Known::Bti | Known::BtiFast | Known::BtiProven if n <= 4 => {
            format!("bti_ld(bt, {addr}, {n}u)")
        }
        Known::ScratchFast if n == 4 => format!("u64(scratch_ld4({addr}, {at}u))"),
        Known::SlmFast if n == 4 => format!("u64(slm_ld4({addr}, {at}u))"),
        Known::SlmFast if n == 1 => format!("u64(slm_ld1(slm_at({addr}, 1u)))"),
        Known::Slm | Known::SlmFast if n <= 4 => format!("slm_ld({addr}, {n}u)"),
        _ => format!("mem_ld(sp, bt, {addr}, {n}u)"),
    }
}

/// A flat (SVM, LSC `flat[...]:a64`) message's space: its placed pointer argument in
/// straight modules (`lane_memory::flat_base`), else any allocation.
fn flat_known(em: &Emit) -> Known {
    match em.flat_base {
        Some(j) if em.straight => Known::Flat(j),
        _ => Known::Any,
    }
}

/// Straight modules: `addr` claimed for the invocation's channel where the access's
/// memory carries owner tags (`Emit::claim`: `claim_scratch`, `claim_flat` of
/// runtime.wgsl), else as it is. A word access of a branch-free form (`known`: `scratch_ld4`, `flat_ld4`,
/// `flat_ld8` and their stores) claims its words alone: a misaligned address hands
/// the launch over anyway.
fn claimed(em: &Emit, known: Known, addr: &str, n: u32, at: usize) -> String {
    match (em.claim, known) {
        (Some(Owned::Scratch), Known::ScratchFast) if n == 4 => {
            format!("claim_scratch4({addr}, {at}u)")
        }
        (Some(Owned::Flat(j)), Known::Flat(k)) if j == k && (n == 4 || n == 8) => {
            format!("claim_flat_words({j}u, {addr}, {n}u, {at}u)")
        }
        (Some(Owned::Scratch), _) => format!("claim_scratch({addr}, {n}u, {at}u)"),
        (Some(Owned::Flat(j)), _) => format!("claim_flat({j}u, {addr}, {n}u, {at}u)"),
        (None, _) => addr.to_string(),
    }
}

/// The store matching [`ld`].
fn st(em: &Emit, known: Known, addr: &str, n: u32, v: &str, at: usize) -> String {
    let claimed = claimed(em, known, addr, n, at);
    let addr = claimed.as_str();
    match known {
        Known::Flat(j) if n == 4 => {
            format!("flat_st4({j}u, {addr}, u32(({v}) & 0xfffffffflu), {at}u);")
        }
        Known::Flat(j) if n == 8 => format!("flat_st8({j}u, {addr}, {v}, {at}u);"),
        Known::Flat(j) if n < 4 => format!("flat_st({j}u, {addr}, {n}u, {v}, {at}u);"),
        Known::BtiProven if n == 4 => {
            format!("atomicStore(&heap[bti_in(bt, {addr}) >> 2u], u32(({v}) & 0xfffffffflu));")
        }
        Known::BtiFast | Known::BtiProven if n == 4 => {
            format!("bti_st4(bt, {addr}, u32(({v}) & 0xfffffffflu), {at}u);")
        }
        Known::Bti | Known::BtiFast | Known::BtiProven if n <= 4 => {
            format!("bti_st(bt, {addr}, {n}u, {v});")
        }
        Known::ScratchFast if n == 4 => {
            format!("scratch_st4({addr}, u32(({v}) & 0xfffffffflu), {at}u);")
        }
        Known::SlmFast if n == 4 => {
            format!("slm_st4({addr}, u32(({v}) & 0xfffffffflu), {at}u);")
        }
        Known::Slm | Known::SlmFast if n <= 4 => format!("slm_st({addr}, {n}u, {v});"),
        _ => format!("mem_st(sp, bt, {addr}, {n}u, {v});"),
    }
}

/// The atomic `op` of `bytes` at `addr` (space `sp`/`bt`, `known` where the translator
/// knows it, `flat` where it knows it is flat) with operands `x`, `y`, its old value in `old`. Straight modules give
/// WGSL's own 32-bit atomics on a known space the short form (`rmw_word`: the word
/// located once, also for the alias check, and no misaligned path; then the one WGSL
/// atomic, [`wgsl_rmw`]); the rest `mem_atomic`.
#[allow(clippy::too_many_arguments)]
fn atomic_old(
    em: &mut Emit,
    inst: &PInst,
    (known, flat): (Known, bool),
    addr: &str,
    bytes: u32,
    op: AtomicOp,
    x: &str,
    y: &str,
) {
    let claimed = claimed(em, Known::Any, addr, bytes, inst.index);
    let addr = claimed.as_str();
    let code = marked_code(em, op, bytes);
    let own = bytes == 4 && (code <= 6 || (8..=10).contains(&code) || code == 13);
    let located = match known {
        Known::BtiFast | Known::BtiProven => Some(("SP_BTI", format!("bti_at(bt, {addr}, 4u)"))),
        Known::SlmFast => Some(("SP_SLM", format!("slm_at({addr}, 4u)"))),
        Known::Flat(j) if em.flat_proven => Some(("SP_FLAT", format!("flat_in({j}u, {addr})"))),
        Known::Flat(j) => Some((
            "SP_FLAT",
            format!("flat_at({j}u, {addr}, 4u, {}u)", inst.index),
        )),
        Known::Any if em.straight && flat => {
            Some(("SP_FLAT", format!("locate(SP_FLAT, 0u, {addr}, 4u)")))
        }
        _ => None,
    };
    match located {
        // Provably inside the allocation, on a word (`lane_memory::flat_spans`).
        Some((_, o)) if own && em.flat_proven => {
            em.line(&format!("let o = {o};"));
            avoid_check(em, inst, |b| format!("bti_holds(o, {b}u)"));
            let v = format!("u32({x} & 0xfffffffflu)");
            em.line(&format!(
                "let old = u64({});",
                wgsl_rmw(code, "&heap[o >> 2u]", &v)
            ));
        }
        Some((space, o)) if own => {
            em.line(&format!("let o = {o};"));
            if space == "SP_FLAT" {
                avoid_check(em, inst, |b| format!("bti_holds(o, {b}u)"));
            } else {
                avoid_check(em, inst, |b| format!("flat_hits_bti({addr}, 4u, {b}u)"));
            }
            em.line(&format!("let w4 = rmw_word(o, {}u);", inst.index));
            em.line("var old32 = 0u;");
            let array = if space == "SP_SLM" { "slm" } else { "heap" };
            let v = format!("u32({x} & 0xfffffffflu)");
            em.line(&format!(
                "if (w4 != NO_WORD) {{ old32 = {}; }}",
                wgsl_rmw(code, &format!("&{array}[w4]"), &v)
            ));
            em.line("let old = u64(old32);");
        }
        _ => {
            if bytes == 8 {
                em.line(super::ATOMIC64_MARK);
                if !flat && !matches!(known, Known::Bti | Known::BtiFast | Known::BtiProven) {
                    em.line(super::ATOMIC64_SLM_MARK);
                }
            }
            if let Known::Flat(j) = known {
                // Only the check: the general atomic finds the same bytes.
                em.line(&format!(
                    "_ = flat_at({j}u, {addr}, {bytes}u, {}u);",
                    inst.index
                ));
            }
            avoid_check(em, inst, |b| {
                format!("flat_hits_bti({addr}, {bytes}u, {b}u)")
            });
            em.line(&format!(
                "let old = mem_atomic(sp, bt, {addr}, {bytes}u, {code}u, {x}, {y});"
            ));
        }
    }
}

/// WGSL's atomic for the 32-bit `code` (those `atomic_old` gives the short form; the
/// runtime's `wrmw` is the same table at run time) on `ptr` with operand `v`: the
/// increments and decrements (2, 3, 13) apply 1, min and max are unsigned as the
/// `atomic<u32>` arrays hold them.
fn wgsl_rmw(code: u32, ptr: &str, v: &str) -> String {
    let v = if matches!(code, 2 | 3 | 13) { "1u" } else { v };
    let f = match code {
        0 | 2 => "atomicAdd",
        1 | 3 | 13 => "atomicSub",
        4 => "atomicMin",
        5 => "atomicMax",
        6 => "atomicExchange",
        8 => "atomicAnd",
        9 => "atomicOr",
        _ => "atomicXor",
    };
    format!("{f}({ptr}, {v})")
}

/// Straight modules: stop the run (the host then runs the thread mapping) when this
/// unplaced flat atomic's address falls in an allocation another instruction of the kernel
/// addresses through the binding table (`Emit::avoid_btis`; `hit(b)` tests entry b).
fn avoid_check(em: &mut Emit, inst: &PInst, hit: impl Fn(u32) -> String) {
    if em.avoid_btis.is_empty() {
        return;
    }
    let hits: Vec<String> = em.avoid_btis.iter().map(|&b| hit(b)).collect();
    // Recorded, reported by `main` (an atomic in every access's branch costs llvmpipe
    // even where it is never taken); the run's results are discarded then anyway.
    em.line(&format!(
        "alias_at = select(alias_at, {}u, {});",
        inst.index + 1,
        hits.join(" || ")
    ));
}

/// `op`'s runtime code, after its [`super::atomic_ops::mark`] line (the module's
/// runtime keeps only the operations, and float widths, the kernel uses).
fn marked_code(em: &mut Emit, op: AtomicOp, bytes: u32) -> u32 {
    let code = atomic_code(op);
    em.line(&super::atomic_ops::mark(code, bytes));
    code
}

pub fn atomic_code(op: AtomicOp) -> u32 {
    use AtomicOp::*;
    match op {
        Add => 0,
        Sub => 1,
        Inc => 2,
        Dec => 3,
        UMin => 4,
        UMax => 5,
        Xchg => 6,
        CmpXchg => 7,
        And => 8,
        Or => 9,
        Xor => 10,
        IMin => 11,
        IMax => 12,
        PreDec => 13,
        FMax => 14,
        FMin => 15,
        FCmpWr => 16,
        FAdd => 17,
        FSub => 18,
        Load => 19,
        Store => 20,
    }
}

/// The WGSL of what an atomic writes back from its `old` value (`AtomicOp::returned`:
/// PREDEC gives the new value).
fn returned(op: AtomicOp, width: u32, old: &str) -> String {
    match (op, width) {
        (AtomicOp::PreDec, 64) => format!("({old} - 1lu)"),
        (AtomicOp::PreDec, _) => format!("(({old} - 1lu) & {}lu)", (1u64 << width) - 1),
        _ => old.to_string(),
    }
}

/// Bits of a dword or SVM atomic's operands (the op code's width field).
pub(super) fn atomic_width(inst: &PInst) -> u32 {
    let code = int(inst, "Op");
    if inst.op == Opcode::SvmAtomic {
        [32, 16, 64, 32][((code >> 5) & 3) as usize]
    } else if code & 0x20 != 0 {
        16
    } else {
        32
    }
}

/// How an untyped LSC message lays out its operands.
pub(super) struct LscShape {
    /// Bytes of one address.
    pub asize: u32,
    /// Bytes of one element in memory, and of its GRF slot.
    pub mem_bytes: u32,
    pub slot: u32,
    /// Elements per address.
    pub vec: u32,
    pub transpose: bool,
    /// Bytes between the vector components of the data operand.
    pub pitch: u32,
}

pub(super) fn lsc_shape(inst: &PInst, n: u32, grf_bytes: u32) -> LscShape {
    let asize = match int(inst, "AddrSize") {
        1 => 2,
        3 => 8,
        _ => 4,
    };
    let (mem_bytes, slot) = match int(inst, "DataSize") {
        1 => (1, 1),
        2 => (2, 2),
        4 => (8, 8),
        5 => (1, 4),
        6 | 7 => (2, 4),
        _ => (4, 4),
    };
    LscShape {
        asize,
        mem_bytes,
        slot,
        vec: [0u32, 1, 2, 3, 4, 8, 16, 32, 64][(int(inst, "DataElemsPerAddr") as usize).min(8)],
        transpose: int(inst, "DataOrder") == crate::isa::syntax::LSC_ORDER_TRANSPOSE,
        pitch: (n * slot).div_ceil(grf_bytes) * grf_bytes,
    }
}

pub fn emit(em: &mut Emit, inst: &PInst, grf_bytes: u32) -> Result<(), TranslateError> {
    // One element: `i` is 0 wherever it is bound (`rdv`, `wrv` fold it).
    em.one_elem = inst.exec.size == 1;
    let r = emit_message(em, inst, grf_bytes);
    em.one_elem = false;
    r
}

fn emit_message(em: &mut Emit, inst: &PInst, grf_bytes: u32) -> Result<(), TranslateError> {
    use Opcode::*;
    let unsupported = |what: String| TranslateError::Unsupported {
        index: inst.index,
        op: inst.op.spec_name(),
        what,
    };
    let n = inst.exec.size as u32;
    em.line("let i = 0u;");
    em.line(&format!("let ce = {};", chen_expr(inst, "em")));
    match inst.op {
        Gather4Scaled | Scatter4Scaled | SvmGather4Scaled | SvmScatter4Scaled => {
            let svm = matches!(inst.op, SvmGather4Scaled | SvmScatter4Scaled);
            let bti = if svm {
                em.line("let sp = SP_FLAT; let bt = 0u;");
                em.line(&format!("let base = {};", scalar(inst, "Address")));
                Known::Any
            } else {
                let b = space(em, inst, "Surface");
                em.line(&format!("let base = {};", scalar(inst, "Offset")));
                b
            };
            let mask = int(inst, "Channels");
            let offs = raw(inst, "Element_offset");
            let load = matches!(inst.op, Gather4Scaled | SvmGather4Scaled);
            let data = if load {
                raw(inst, "Dst")
            } else {
                raw(inst, "Src")
            };
            let slots = n.max(grf_bytes / 4);
            let mut pos = 0;
            for ch in 0..4u32 {
                if mask & (1 << ch) == 0 {
                    continue;
                }
                em.open_enabled_elems(n, "ce");
                let eoff = if svm {
                    rdv(em, offs, 0, 8, 8)
                } else {
                    rdv(em, offs, 0, 4, 4)
                };
                em.line(&format!("let a = base + {eoff} + {}lu;", 4 * ch));
                let k = 4 * pos * slots;
                if load {
                    em.line(&wrv(em, data, k, 4, 4, &ld(em, bti, "a", 4, inst.index)));
                } else {
                    em.line(&st(em, bti, "a", 4, &rdv(em, data, k, 4, 4), inst.index));
                }
                em.close();
                pos += 1;
            }
        }
        D3Load | D3Sample | D3Sample4 | Gather4Typed | Scatter4Typed | TypedAtomic => {
            typed(em, inst, n, grf_bytes)?
        }
        MediaLd | MediaSt => {
            // The interpreter's `Thread::media`: bytes of a block, row i at i * pitch.
            if int(inst, "Modifiers") != 0 || int(inst, "Plane") != 0 {
                return Err(unsupported(
                    "media block field modifiers or planes other than 0".into(),
                ));
            }
            space(em, inst, "Surface");
            let load = inst.op == MediaLd;
            block_bytes(
                em,
                inst,
                ("Block_width", "Block_height"),
                ("X_offset", "Y_offset"),
                (load, if load { "Dst" } else { "Src" }),
            );
        }
        SvmGather | SvmScatter => {
            // The interpreter's layout (`svm_blocks`).
            let (bsize, blocks) = crate::interp::thread::svm_blocks(inst, n);
            let addrs = raw(inst, "Addresses");
            let load = inst.op == SvmGather;
            let data = raw(inst, if load { "Dst" } else { "Src" });
            em.line("let sp = SP_FLAT; let bt = 0u;");
            let known = flat_known(em);
            em.open_enabled_elems(n, "ce");
            em.line(&format!("let base = {};", rdv(em, addrs, 0, 8, 8)));
            for (j, &(k, stride)) in (0u32..).zip(&blocks) {
                em.line(&format!("let a{j} = base + {}lu;", j * bsize));
                let at = format!("a{j}");
                if load {
                    em.line(&wrv(
                        em,
                        data,
                        k,
                        stride,
                        bsize,
                        &ld(em, known, &at, bsize, inst.index),
                    ));
                } else {
                    em.line(&st(
                        em,
                        known,
                        &at,
                        bsize,
                        &rdv(em, data, k, stride, bsize),
                        inst.index,
                    ));
                }
            }
            em.close();
        }
        GatherScaled | ScatterScaled | Gather | Scatter => {
            // `Thread::message`: element i at Offset + Element_offset[i] bytes, or (GATHER/
            // SCATTER) at (Global_offset + Element_offset[i]) * Elt_size; a dword slot.
            let scaled = matches!(inst.op, GatherScaled | ScatterScaled);
            let bti = space(em, inst, "Surface");
            let offs = raw(inst, "Element_offset");
            let bytes = if scaled {
                em.line(&format!("let base = {};", scalar(inst, "Offset")));
                em.open_enabled_elems(n, "ce");
                em.line(&format!("let a = base + {};", rdv(em, offs, 0, 4, 4)));
                1u32 << (int(inst, "Num_blocks") & 3)
            } else {
                let bytes = elt_size_bytes(int(inst, "Elt_size"))
                    .ok_or_else(|| unsupported("Elt_size code 3".into()))?;
                em.line(&format!(
                    "let base = u64(u32({}));",
                    scalar(inst, "Global_offset")
                ));
                em.open_enabled_elems(n, "ce");
                em.line(&format!(
                    "let a = (base + u64(u32({}))) * {bytes}lu;",
                    rdv(em, offs, 0, 4, 4)
                ));
                bytes
            };
            let load = matches!(inst.op, GatherScaled | Gather);
            let data = raw(inst, if load { "Dst" } else { "Src" });
            if load {
                em.line(&wrv(
                    em,
                    data,
                    0,
                    4,
                    4,
                    &ld(em, bti, "a", bytes, inst.index),
                ));
            } else {
                em.line(&st(
                    em,
                    bti,
                    "a",
                    bytes,
                    &rdv(em, data, 0, 4, bytes),
                    inst.index,
                ));
            }
            em.close();
        }
        QwGather | QwScatter => {
            // `Thread::message`: qword j of lane i at Offset[i] + 8j, element j * n + i.
            let bti = space(em, inst, "Surface");
            let blocks = 1u32 << (int(inst, "Num_blocks") & 3);
            let offs = raw(inst, "Offset");
            let load = inst.op == QwGather;
            let data = raw(inst, if load { "Dst" } else { "Src" });
            em.open_enabled_elems(n, "ce");
            em.line(&format!("let a = {};", rdv(em, offs, 0, 4, 4)));
            for j in 0..blocks {
                let a = format!("(a + {}lu)", 8 * j);
                let k = 8 * j * n;
                if load {
                    em.line(&wrv(em, data, k, 8, 8, &ld(em, bti, &a, 8, inst.index)));
                } else {
                    em.line(&st(em, bti, &a, 8, &rdv(em, data, k, 8, 8), inst.index));
                }
            }
            em.close();
        }
        OwordLd | OwordLdUnaligned | OwordSt | SvmBlockLd | SvmBlockSt => {
            let svm = matches!(inst.op, SvmBlockLd | SvmBlockSt);
            // SVM blocks: a flat byte address; oword blocks: a surface offset in owords.
            let bti = space(em, inst, if svm { "Address" } else { "Surface" });
            let size = if svm { "Properties" } else { "Size" };
            let owords = 1u32 << (int(inst, size) & 7);
            let off = scalar(inst, if svm { "Address" } else { "Offset" });
            let addr = if matches!(inst.op, OwordLdUnaligned | SvmBlockLd | SvmBlockSt) {
                off
            } else {
                format!("({off} * 16lu)")
            };
            em.line(&format!("let base = {addr};"));
            let store = matches!(inst.op, OwordSt | SvmBlockSt);
            let data = if store {
                raw(inst, "Src")
            } else {
                raw(inst, "Dst")
            };
            em.open(&format!("for (var b = 0u; b < {}u; b += 4u)", owords * 16));
            if store {
                em.line(&st(
                    em,
                    bti,
                    "base + u64(b)",
                    4,
                    &rd(data, "b", 4),
                    inst.index,
                ));
            } else {
                em.line(&wr(
                    data,
                    "b",
                    4,
                    &ld(em, bti, "base + u64(b)", 4, inst.index),
                ));
            }
            em.close();
        }
        DwordAtomic | SvmAtomic => {
            let svm = inst.op == SvmAtomic;
            let code = int(inst, "Op");
            let op = AtomicOp::from_legacy(code)
                .ok_or_else(|| unsupported(format!("atomic op code {code}")))?;
            let width = atomic_width(inst);
            let bytes = width / 8;
            let slot = if width == 64 { 8 } else { 4 };
            let known = if svm {
                em.line("let sp = SP_FLAT; let bt = 0u;");
                (flat_known(em), true)
            } else {
                let flat = matches!(field(inst, "Surface"), Some(PField::Surface(1..=4)));
                (space(em, inst, "Surface"), flat)
            };
            let addrs = if svm {
                raw(inst, "Addresses")
            } else {
                raw(inst, "Element_offset")
            };
            let (s0, s1, d) = (raw(inst, "Src0"), raw(inst, "Src1"), raw(inst, "Dst"));
            em.open_enabled_elems(n, "ce");
            let a = if svm {
                rdv(em, addrs, 0, 8, 8)
            } else {
                rdv(em, addrs, 0, 4, 4)
            };
            em.line(&format!("let a = {a};"));
            em.line(&format!("let a0 = {};", rdv(em, s0, 0, slot, slot)));
            em.line(&format!("let a1 = {};", rdv(em, s1, 0, slot, slot)));
            // Legacy CMPXCHG: new = (old == src1) ? src0 : old.
            let (x, y) = if op == AtomicOp::CmpXchg {
                ("a1", "a0")
            } else {
                ("a0", "a1")
            };
            atomic_old(em, inst, known, "a", bytes, op, x, y);
            em.line(&wrv(em, d, 0, slot, slot, &returned(op, width, "old")));
            em.close();
        }
        LscUntyped => lsc(em, inst, n, grf_bytes)?,
        LscTyped => lsc_typed(em, inst, n, grf_bytes)?,
        _ => {
            return Err(unsupported(format!(
                "{} is not translated yet",
                inst.op.spec_name()
            )))
        }
    }
    Ok(())
}

fn lsc(em: &mut Emit, inst: &PInst, n: u32, gb: u32) -> Result<(), TranslateError> {
    let unsupported = |what: String| TranslateError::Unsupported {
        index: inst.index,
        op: inst.op.spec_name(),
        what,
    };
    let subop = int(inst, "LscSubOp");
    let sfid = int(inst, "LscSFID");
    let ty = int(inst, "AddrType");
    let shape = lsc_shape(inst, n, gb);
    let transposed_unrolled = lsc_transposed_unrolled(&shape);
    let LscShape {
        asize,
        mem_bytes,
        slot,
        vec,
        transpose,
        pitch,
    } = shape;
    let scale = int(inst, "AddrScale").max(1);
    let imm = int(inst, "AddrImmOffset") as u32 as i32 as i64;
    em.line(&format!("let surf = {};", scalar(inst, "Surface")));
    let bti = match (sfid, ty) {
        (3, _) => known_slm(em),
        (_, 4) => known_bti(em),
        (_, 1) => flat_known(em),
        _ => Known::Any,
    };
    if sfid == 3 {
        em.line("let sp = SP_SLM; let bt = 0u;");
    } else if matches!(bti, Known::Bti | Known::BtiFast | Known::BtiProven) {
        em.line("let sp = SP_BTI; let bt = u32(surf & 0xfffffffflu);");
    } else {
        em.line("let sp = SP_FLAT; let bt = 0u;");
    }
    let addrs = raw(inst, "Src0Addrs");
    let base = if matches!(ty, 2 | 3) { "surf" } else { "0lu" };
    let addr_of = |em: &Emit, i: &str| -> String {
        let a = if i == "i" {
            rdv(em, addrs, 0, asize, asize)
        } else if i == "0u" {
            rd(addrs, "0u", asize)
        } else {
            rd(addrs, &format!("{asize}u * {i}"), asize)
        };
        format!("(u64(i64({a} * {scale}lu) + {imm}li) + {base})")
    };
    let dst = raw(inst, "DstData");
    let src1 = raw(inst, "Src1Data");
    let src2 = raw(inst, "Src2Data");
    let keep = if mem_bytes < slot {
        format!(" & {}lu", (1u64 << (8 * mem_bytes)) - 1)
    } else {
        String::new()
    };
    match subop {
        0x03 | 0x07 => block2d(em, inst, gb).map_err(unsupported)?,
        0x1b => {
            // LOAD_STATUS (`Thread::lsc`): bit i of the destination's first dword when
            // channel i is enabled and every element it addresses is in bound memory.
            // A whole-thread result: kernels with it keep the thread mapping.
            em.line("var stb = 0u;");
            em.open_enabled_elems(n, "ce");
            em.line(&format!("let addr = {};", addr_of(em, "i")));
            em.line("var ok = true;");
            for v in 0..vec {
                em.line(&format!(
                    "ok = ok && locate(sp, bt, addr + {}lu, {mem_bytes}u) != NO_WORD;",
                    v * mem_bytes
                ));
            }
            em.line("if (ok) { stb = stb | (1u << i); }");
            em.close();
            em.line(&wr(dst, "0u", 4, "u64(stb)"));
        }
        0x28 | 0x29 => {
            // Append counter atomics (`Thread::lsc`): the page's loop over channels in
            // order as one operation: one atomic add of the enabled addends' sum, then
            // each channel's old value is the counter plus the addends before it.
            if ty != 4 || mem_bytes != 4 {
                return Err(unsupported(
                    "an append counter on other than a binding-table surface, or of other than 32-bit data"
                        .into(),
                ));
            }
            let src0 = raw(inst, "Src0Addrs");
            let (op, step) = if subop == 0x28 {
                ("0u", "+")
            } else {
                ("1u", "-")
            };
            em.line("var tot = 0u;");
            em.open_enabled_elems(n, "ce");
            em.line(&format!("tot = tot + u32({});", rd(src0, "i * 4u", 4)));
            em.close();
            em.line(&format!(
                "var run = append_rmw(u32(surf & 0xfffffffflu), {op}, tot);"
            ));
            em.open_enabled_elems(n, "ce");
            em.line(&wr(dst, "i * 4u", 4, "u64(run)"));
            em.line(&format!("run = run {step} u32({});", rd(src0, "i * 4u", 4)));
            em.close();
        }
        0x01 | 0x02 | 0x05 | 0x06 => {
            // Strided (lane i at the first lane's address plus i pitches) and quad (the
            // enabled X/Y/Z/W elements into successive components): `Thread::lsc`.
            let load = subop <= 0x02;
            let parts: Vec<(u32, u32)> = if matches!(subop, 0x02 | 0x06) {
                let mask = int(inst, "ChMask") as u32 & 0xf;
                (0..4).filter(|c| mask & (1 << c) != 0).zip(0..).collect()
            } else {
                (0..vec).map(|v| (v, v)).collect()
            };
            if transpose {
                return Err(unsupported(
                    "a transposed strided or quad LSC message (the page's forms are SIMT)".into(),
                ));
            }
            if matches!(subop, 0x01 | 0x05) {
                em.line(&format!("let first = {};", addr_of(em, "0u")));
                em.line(&format!(
                    "let stride = i64(i32(u32({} & 0xfffffffflu)));",
                    scalar(inst, "Src0AddrPitch")
                ));
            }
            em.open_enabled_elems(n, "ce");
            if matches!(subop, 0x01 | 0x05) {
                em.line("let addr = first + u64(i64(i) * stride);");
            } else {
                em.line(&format!("let addr = {};", addr_of(em, "i")));
            }
            for (e, v) in parts {
                let a = format!("(addr + {}lu)", e * mem_bytes);
                let r = format!("{}u + i * {slot}u", v * pitch);
                if load {
                    em.line(&wr(dst, &r, slot, &ld(em, bti, &a, mem_bytes, inst.index)));
                } else {
                    let x = format!("{}{keep}", rd(src1, &r, slot));
                    em.line(&st(em, bti, &a, mem_bytes, &x, inst.index));
                }
            }
            em.close();
        }
        0x00 | 0x04 => {
            let load = subop == 0x00;
            if transposed_unrolled {
                // Each element at its constant offset (`constant_offsets`).
                em.line(&format!("let addr = {};", addr_of(em, "0u")));
                for v in 0..vec {
                    let a = format!("(addr + {}lu)", v * mem_bytes);
                    let r = format!("{}u", v * slot);
                    if load {
                        em.line(&wr(dst, &r, slot, &ld(em, bti, &a, mem_bytes, inst.index)));
                    } else {
                        em.line(&st(
                            em,
                            bti,
                            &a,
                            mem_bytes,
                            &rd(src1, &r, mem_bytes),
                            inst.index,
                        ));
                    }
                }
                return Ok(());
            }
            if transpose {
                em.line(&format!("let addr = {};", addr_of(em, "0u")));
                em.open(&format!("for (var v = 0u; v < {vec}u; v++)"));
                em.line(&format!("let a = addr + u64(v * {mem_bytes}u);"));
                if load {
                    em.line(&wr(
                        dst,
                        &format!("v * {slot}u"),
                        slot,
                        &ld(em, bti, "a", mem_bytes, inst.index),
                    ));
                } else {
                    em.line(&st(
                        em,
                        bti,
                        "a",
                        mem_bytes,
                        &rd(src1, &format!("v * {slot}u"), mem_bytes),
                        inst.index,
                    ));
                }
                em.close();
                return Ok(());
            }
            em.open_enabled_elems(n, "ce");
            em.line(&format!("let addr = {};", addr_of(em, "i")));
            if vec == 1 {
                // One element per address: addressed like any per-lane operand.
                if load {
                    em.line(&wrv(
                        em,
                        dst,
                        0,
                        slot,
                        slot,
                        &ld(em, bti, "addr", mem_bytes, inst.index),
                    ));
                } else {
                    let v = format!("{}{keep}", rdv(em, src1, 0, slot, slot));
                    em.line(&st(em, bti, "addr", mem_bytes, &v, inst.index));
                }
                em.close();
                return Ok(());
            }
            if lsc_unrolled(vec) {
                // Each element at its own constant offset, so that lane mode can
                // keep it in the lane's register (`lanes::msg_foot` agrees).
                for v in 0..vec {
                    let a = format!("(addr + {}lu)", v * mem_bytes);
                    if load {
                        let x = ld(em, bti, &a, mem_bytes, inst.index);
                        em.line(&wrv(em, dst, v * pitch, slot, slot, &x));
                    } else {
                        let x = format!("{}{keep}", rdv(em, src1, v * pitch, slot, slot));
                        em.line(&st(em, bti, &a, mem_bytes, &x, inst.index));
                    }
                }
                em.close();
                return Ok(());
            }
            em.open(&format!("for (var v = 0u; v < {vec}u; v++)"));
            em.line(&format!("let a = addr + u64(v * {mem_bytes}u);"));
            let r = format!("v * {pitch}u + i * {slot}u");
            if load {
                em.line(&wr(dst, &r, slot, &ld(em, bti, "a", mem_bytes, inst.index)));
            } else {
                let v = format!("{}{keep}", rd(src1, &r, slot));
                em.line(&st(em, bti, "a", mem_bytes, &v, inst.index));
            }
            em.close();
            em.close();
        }
        0x08..=0x1a => {
            let op = AtomicOp::from_lsc(subop)
                .ok_or_else(|| unsupported(format!("LSC atomic sub-op {subop:#x}")))?;
            em.open_enabled_elems(n, "ce");
            em.line(&format!("let addr = {};", addr_of(em, "i")));
            em.line(&format!("let a1 = {};", rdv(em, src1, 0, slot, slot)));
            em.line(&format!("let a2 = {};", rdv(em, src2, 0, slot, slot)));
            let flat = sfid != 3 && !matches!(bti, Known::Bti | Known::BtiFast | Known::BtiProven);
            atomic_old(em, inst, (bti, flat), "addr", mem_bytes, op, "a1", "a2");
            em.line(&wrv(em, dst, 0, slot, slot, "old"));
            em.close();
        }
        _ => {
            return Err(unsupported(format!(
                "{} is not translated yet",
                crate::isa::syntax::LSC_SUBOP
                    .name(subop)
                    .unwrap_or("lsc sub-op")
            )))
        }
    }
    Ok(())
}

/// `lsc_load_block2d` / `lsc_store_block2d` (the interpreter's `Thread::lsc_block2d`
/// over `interp::block2d`): one loop over the GRF elements of the blocks, each mapped
/// back to its block element by `Block2d::source`'s arithmetic, clipped to the surface.
fn block2d(em: &mut Emit, inst: &PInst, gb: u32) -> Result<(), String> {
    let s = crate::interp::block2d::Block2d::of(inst, gb)?;
    let i32_of = |name: &str| format!("i64(i32(u32({} & 0xfffffffflu)))", scalar(inst, name));
    let u32_of = |name: &str| format!("i64(u32({} & 0xfffffffflu))", scalar(inst, name));
    em.line(&format!(
        "let b2_base = {};",
        scalar(inst, "SurfaceBaseAddr")
    ));
    em.line(&format!("let b2_w = {};", u32_of("SurfaceWidth")));
    em.line(&format!("let b2_h = {};", u32_of("SurfaceHeight")));
    em.line(&format!("let b2_p = {};", u32_of("SurfacePitch")));
    em.line(&format!("let b2_x = {};", i32_of("Src0AddrX")));
    em.line(&format!("let b2_y = {};", i32_of("Src0AddrY")));
    let (e, run, pack) = (s.elem, s.row_pitch * s.pack, s.pack);
    let (minor_n, major_n) = if s.transpose {
        (s.height, s.width)
    } else {
        (s.width, s.height)
    };
    em.open(&format!("for (var e = 0u; e < {}u; e++)", s.grf_elems()));
    em.line(&format!(
        "let b = e / {bp}u; let eb = e % {bp}u;",
        bp = s.block_pitch
    ));
    em.line(&format!("let q = eb / {run}u; let k = eb % {run}u;"));
    em.line(&format!(
        "let mi = k / {pack}u; let ma = q * {pack}u + k % {pack}u;"
    ));
    let (y, x) = if s.transpose {
        ("mi", "ma")
    } else {
        ("ma", "mi")
    };
    em.line(&format!(
        "let col = b2_x + i64(b * {}u + {x}); let row = b2_y + i64({y});",
        s.width
    ));
    em.line(&format!(
        "let ok = mi < {minor_n}u && ma < {major_n}u && col >= 0li && (col + 1li) * {e}li <= b2_w + 1li \
         && row >= 0li && row <= b2_h;"
    ));
    em.line(&format!(
        "let a = b2_base + u64(row * (b2_p + 1li) + col * {e}li);"
    ));
    let data = raw(inst, if s.load { "DstData" } else { "Src1Data" });
    if s.load {
        em.line("var v = 0lu;");
        em.line(&format!(
            "if (ok) {{ v = {}; }}",
            ld(em, Known::Any, "a", e, inst.index)
        ));
        em.line(&wr(data, &format!("e * {e}u"), e, "v"));
    } else {
        em.line(&format!(
            "if (ok) {{ {} }}",
            st(
                em,
                Known::Any,
                "a",
                e,
                &rd(data, &format!("e * {e}u"), e),
                inst.index
            )
        ));
    }
    em.close();
    Ok(())
}

/// LSC_TYPED (the interpreter's `Thread::lsc_typed`): quad loads and stores through
/// `img_read`/`img_write`, atomics through `img_atomic`, each enabled channel's data a
/// GRF-rounded pitch apart; coordinates with their immediate offsets.
/// A block of bytes of the image `bt` (set by the caller) to or from raw operand
/// `data` (`load`, its field name), the interpreter's `Thread::block_bytes`: MEDIA_LD,
/// MEDIA_ST and LSC_TYPED's 2D blocks, row i at i * pitch bytes of the data.
fn block_bytes(
    em: &mut Emit,
    inst: &PInst,
    (wf, hf): (&str, &str),
    (xf, yf): (&str, &str),
    (load, data): (bool, &str),
) {
    let (w, h) = (int(inst, wf), int(inst, hf));
    let pitch = crate::interp::thread::media_pitch(w as u32);
    let at = inst.index;
    em.line(&format!("let mx = i32(u32({}));", scalar(inst, xf)));
    em.line(&format!("let my = i32(u32({}));", scalar(inst, yf)));
    if let Some(o) = raw(inst, data) {
        em.open(&format!("for (var bi = 0u; bi < {h}u; bi++)"));
        em.open(&format!("for (var bj = 0u; bj < {w}u; bj++)"));
        em.line(&format!("let go = {o}u + bi * {pitch}u + bj;"));
        em.line("let bx = mx + i32(bj); let by = my + i32(bi);");
        if load {
            em.line(&format!(
                "gst(go, 1u, u64(img_block_ld(bt, bx, by, {at}u)));"
            ));
        } else {
            em.line(&format!(
                "img_block_st(bt, bx, by, u32(gld(go, 1u)), {at}u);"
            ));
        }
        em.close();
        em.close();
    }
}

fn lsc_typed(em: &mut Emit, inst: &PInst, n: u32, gb: u32) -> Result<(), TranslateError> {
    let unsupported = |what: String| TranslateError::Unsupported {
        index: inst.index,
        op: inst.op.spec_name(),
        what,
    };
    let subop = int(inst, "LscSubOp");
    if int(inst, "AddrType") != 4 {
        return Err(unsupported(
            "LSC_TYPED with an address model other than bti(N)".into(),
        ));
    }
    if matches!(subop, 0x03 | 0x07) {
        em.line(&format!(
            "let bt = u32({} & 0xfffffffflu);",
            scalar(inst, "Surface")
        ));
        let load = subop == 0x03;
        block_bytes(
            em,
            inst,
            ("BlockWidth", "BlockHeight"),
            ("Src0AddrX", "Src0AddrY"),
            (load, if load { "DstData" } else { "Src1Data" }),
        );
        return Ok(());
    }
    if int(inst, "DataSize") != 3 {
        return Err(unsupported(
            "LSC_TYPED with a data size other than d32".into(),
        ));
    }
    let op = lsc_typed_op(subop).map_err(unsupported)?;
    let at = inst.index;
    let pitch = (4 * n).div_ceil(gb) * gb;
    let mask = int(inst, "ChMask") as u32 & 0xf;
    em.line(&format!(
        "let bt = u32({} & 0xfffffffflu);",
        scalar(inst, "Surface")
    ));
    if subop == 0x1b {
        em.line("var stb = 0u;");
    }
    em.open_enabled_elems(n, "ce");
    let coord = |em: &Emit, c: &str| -> String {
        let v = match raw(inst, &format!("Src0Addrs{c}")) {
            Some(off) => format!("u32({})", rdv(em, Some(off), 0, 4, 4)),
            None => "0u".into(),
        };
        match c {
            "LOD" => v,
            _ => format!(
                "({v} + {}u)",
                int(inst, &format!("Src0Addrs{c}Offset")) as u32
            ),
        }
    };
    let [u, v, r, lod] = ["U", "V", "R", "LOD"].map(|c| coord(em, c));
    let enabled: Vec<u32> = (0..4).filter(|c| mask & (1 << c) != 0).collect();
    if subop == 0x1b {
        // LOAD_STATUS (`Thread::lsc_typed`): bit i when channel i's texel lies in the
        // image at LOD 0. A whole-thread result: kernels with it keep the thread mapping.
        em.line(&format!(
            "stb = stb | select(0u, 1u << i, img_inside(bt, {u}, {v}, {r}, {lod}, {at}u));"
        ));
        em.close();
        em.line(&wr(raw(inst, "DstData"), "0u", 4, "u64(stb)"));
        return Ok(());
    }
    match op {
        None if subop == 0x02 => {
            em.line(&format!(
                "let tx = img_read(bt, {u}, {v}, {r}, {lod}, {at}u);"
            ));
            for (m, c) in enabled.iter().enumerate() {
                let k = m as u32 * pitch;
                em.line(&wrv(
                    em,
                    raw(inst, "DstData"),
                    k,
                    4,
                    4,
                    &format!("u64(tx[{c}])"),
                ));
            }
        }
        None => {
            em.line("var tv = vec4<u32>(0u);");
            for (m, c) in enabled.iter().enumerate() {
                let k = m as u32 * pitch;
                em.line(&format!(
                    "tv[{c}] = u32({});",
                    rdv(em, raw(inst, "Src1Data"), k, 4, 4)
                ));
            }
            em.line(&format!(
                "img_write(bt, {u}, {v}, {r}, {lod}, {mask}u, tv, {at}u);"
            ));
        }
        Some(op) => {
            let [a1, a2] = ["Src1Data", "Src2Data"].map(|s| rdv(em, raw(inst, s), 0, 4, 4));
            let code = marked_code(em, op, 4);
            em.line(&format!(
                "let old = img_atomic(bt, {u}, {v}, {r}, {lod}, 4u, {code}u, {a1}, {a2}, {at}u);"
            ));
            em.line(&wrv(
                em,
                raw(inst, "DstData"),
                0,
                4,
                4,
                &returned(op, 32, "old"),
            ));
        }
    }
    em.close();
    Ok(())
}

/// Typed image messages (the interpreter's `Thread::typed`): per enabled lane one
/// `img_read`/`img_write` of the runtime's shaders/image.wgsl; the texel's enabled
/// channels at dword `pos * slots + i` of the data operand.
fn typed(em: &mut Emit, inst: &PInst, n: u32, grf_bytes: u32) -> Result<(), TranslateError> {
    use Opcode::*;
    space(em, inst, "Surface");
    // gather4 writes four samples of one channel as R, G, B, A.
    let mask = if inst.op == D3Sample4 {
        0xf
    } else {
        int(inst, "Channels") as u32 & 0xf
    };
    let at = inst.index;
    let coord = |em: &Emit, name: &str, has: bool| -> String {
        match raw(inst, name) {
            Some(off) if has => format!("u32({})", rdv(em, Some(off), 0, 4, 4)),
            _ => "0u".into(),
        }
    };
    let enabled: Vec<u32> = (0..4).filter(|c| mask & (1 << c) != 0).collect();
    match inst.op {
        TypedAtomic => {
            let (op, width) = crate::interp::thread::typed_atomic_op(inst).map_err(|what| {
                TranslateError::Unsupported {
                    index: inst.index,
                    op: inst.op.spec_name(),
                    what,
                }
            })?;
            em.open_enabled_elems(n, "ce");
            let [u, v, r, lod] = ["U", "V", "R", "LOD"].map(|c| coord(em, c, true));
            let [a0, a1] = ["Src0", "Src1"].map(|s| rdv(em, raw(inst, s), 0, 4, 4));
            // Legacy CMPXCHG: new = (old == src1) ? src0 : old.
            let (x, y) = match op {
                AtomicOp::CmpXchg | AtomicOp::FCmpWr => (a1, a0),
                _ => (a0, a1),
            };
            let bytes = width / 8;
            let code = marked_code(em, op, bytes);
            em.line(&format!(
                "let old = img_atomic(bt, {u}, {v}, {r}, {lod}, {bytes}u, {code}u, {x}, {y}, {at}u);"
            ));
            em.line(&wrv(
                em,
                raw(inst, "Dst"),
                0,
                4,
                4,
                &returned(op, width, "old"),
            ));
            em.close();
        }
        D3Load | D3Sample | D3Sample4 => {
            let coords = crate::interp::thread::sampler_coords(inst).map_err(|what| {
                TranslateError::Unsupported {
                    index: inst.index,
                    op: inst.op.spec_name(),
                    what,
                }
            })?;
            let dst = raw(inst, "Dst");
            let per = (4 * n).div_ceil(grf_bytes) * grf_bytes;
            em.open_enabled_elems(n, "ce");
            let [u, v, r, lod] = coords
                .params
                .map(|c| coord(em, c.unwrap_or(""), c.is_some()));
            let [ou, ov, or] = coords.offsets;
            let off = if coords.offsets_in_register {
                // The interpreter's `texel_offsets` of the register's element 0.
                em.line(&format!(
                    "let ao = u32({} & 0xfffffffflu);",
                    scalar(inst, "Aoffimmi")
                ));
                "vec3<i32>(i32(ao << 20u) >> 28u, i32(ao << 24u) >> 28u, i32(ao << 28u) >> 28u)"
                    .to_string()
            } else {
                format!("vec3<i32>({ou}, {ov}, {or})")
            };
            if inst.op != D3Load {
                let Some(PField::Sampler(sidx)) = field(inst, "Sampler") else {
                    return Err(TranslateError::Unsupported {
                        index: inst.index,
                        op: inst.op.spec_name(),
                        what: "a sample without a sampler".into(),
                    });
                };
                if inst.op == D3Sample4 {
                    let ch = int(inst, "Src_channel") & 3;
                    em.line(&format!(
                        "let tx = img_gather4(bt, {sidx}u, {u}, {v}, {r}, {off}, {ch}u, {at}u);"
                    ));
                } else {
                    em.line(&format!(
                        "let tx = img_sample(bt, {sidx}u, {u}, {v}, {r}, {off}, {at}u);"
                    ));
                }
            } else if coords.offsets == [0; 3] && !coords.offsets_in_register {
                em.line(&format!(
                    "let tx = img_read(bt, {u}, {v}, {r}, {lod}, {at}u);"
                ));
            } else {
                em.line(&format!(
                    "let tx = img_ld(bt, {u}, {v}, {r}, {lod}, {off}, {at}u);"
                ));
            }
            for (pos, c) in enabled.iter().enumerate() {
                let k = pos as u32 * per;
                em.line(&wrv(em, dst, k, 4, 4, &format!("u64(tx[{c}])")));
            }
            em.close();
            if int(inst, "Op") & crate::isa::text_form::PIXEL_NULL_MASK != 0 {
                let bits = if n >= 32 { u32::MAX } else { (1 << n) - 1 };
                let k = enabled.len() as u32 * per;
                em.line(&wr(dst, &format!("{k}u"), 4, &format!("{bits}lu")));
            }
        }
        Gather4Typed | Scatter4Typed => {
            let slots = n.max(grf_bytes / 4);
            let data = if inst.op == Gather4Typed {
                raw(inst, "Dst")
            } else {
                raw(inst, "Src")
            };
            em.open_enabled_elems(n, "ce");
            let (u, v, r, lod) = (
                coord(em, "U", true),
                coord(em, "V", true),
                coord(em, "R", true),
                coord(em, "LOD", true),
            );
            if inst.op == Gather4Typed {
                em.line(&format!(
                    "let tx = img_read(bt, {u}, {v}, {r}, {lod}, {at}u);"
                ));
                for (pos, c) in enabled.iter().enumerate() {
                    let k = 4 * pos as u32 * slots;
                    em.line(&wrv(em, data, k, 4, 4, &format!("u64(tx[{c}])")));
                }
            } else {
                em.line("var tv = vec4<u32>(0u);");
                for (pos, c) in enabled.iter().enumerate() {
                    let k = 4 * pos as u32 * slots;
                    em.line(&format!("tv[{c}] = u32({});", rdv(em, data, k, 4, 4)));
                }
                em.line(&format!(
                    "img_write(bt, {u}, {v}, {r}, {lod}, {mask}u, tv, {at}u);"
                ));
            }
            em.close();
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::wgsl_rmw;

    /// The translator's atomic for each 32-bit code is the runtime's `wrmw` arm for it
    /// (the heap's), and increments and decrements apply 1.
    #[test]
    fn named_atomics_follow_the_runtime_table() {
        let rt = crate::translate::RUNTIME;
        let body = &rt[rt.find("fn wrmw(").expect("wrmw")..];
        let body = &body[..body.find("\n}\n").expect("wrmw's end")];
        // The outer switch's last arm (a line of its own): the heap's operations.
        let heap = &body[body.find("default: {\n").expect("the heap's arm")..];
        for code in [0u32, 1, 2, 3, 4, 5, 6, 8, 9, 10, 13] {
            let got = wgsl_rmw(code, "&heap[w]", "x");
            let f = &got[..got.find('(').unwrap()];
            let arm = heap
                .lines()
                .find(|l| {
                    let l = l.trim();
                    l.starts_with("case ")
                        && l[5..l.find(':').unwrap()]
                            .split(',')
                            .any(|c| c.trim() == format!("{code}u"))
                })
                .unwrap_or_else(|| {
                    heap.lines()
                        .find(|l| l.trim().starts_with("default: { return"))
                        .unwrap()
                });
            assert!(
                arm.contains(&format!("return {f}(&heap[w], x)")),
                "{code}: {got} / {arm}"
            );
            let one = matches!(code, 2 | 3 | 13);
            assert_eq!(got.ends_with(", 1u)"), one, "{code}: {got}");
        }
    }
}
