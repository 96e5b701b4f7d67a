//! WGSL expressions for one element of an operand: where it lives in the GRF image,
//! its raw bits, and its numeric value (the interpreter's `Val` and `Num`).
//!
//! Element expressions take the channel index as the WGSL variable `i` (u32).

use crate::interp::alu::unpack;
use crate::interp::prepare::{Dst, Src};
use crate::ir::{DataType, Modifier};

/// The numeric view of a value: an integer in extended precision (i64), or a float
/// in the type the operation computes in.
#[derive(Clone, Debug)]
pub enum Num {
    I(String),
    F32(String),
    F64(String),
}

/// A source element: its raw bits (as `u64`) and type after immediate unpacking.
#[derive(Clone, Debug)]
pub struct Elem {
    pub raw: String,
    pub ty: DataType,
    pub m: Modifier,
}

/// The byte stride of a region whose element `i` sits at `off + i * stride` (a scalar,
/// one row, rows that continue each other, or one element per row), else `None`.
pub fn linear_stride(vs: u32, w: u32, hs: u32, e: u32, n: u32) -> Option<u32> {
    if vs == 0 && hs == 0 {
        Some(0)
    } else if w >= n || vs == w * hs {
        Some(hs * e)
    } else if w == 1 {
        Some(vs * e)
    } else {
        None
    }
}

/// `off + ((i / w) * vs + (i % w) * hs) * e`, folded where the region allows.
fn region_offset(off: u32, vs: u32, w: u32, hs: u32, e: u32, n: u32) -> String {
    match linear_stride(vs, w, hs, e, n) {
        // One element: `i` is 0 (`scalar_slots` finds the constant form).
        _ if n == 1 => format!("{off}u"),
        Some(0) => format!("{off}u"),
        Some(stride) => format!("({off}u + i * {stride}u)"),
        None => format!(
            "({off}u + (i / {w}u) * {}u + (i % {w}u) * {}u)",
            vs * e,
            hs * e
        ),
    }
}

/// Byte offset of element `i` of a direct source (`None` for other operands).
pub fn elem_offset(s: &Src, i: u32) -> Option<u32> {
    match s {
        Src::Direct {
            off, ty, vs, w, hs, ..
        } => {
            let w = (*w).max(1);
            Some(off + ((i / w) * vs + (i % w) * hs) * ty.size())
        }
        _ => None,
    }
}

/// Bytes of the GRF image a direct operand touches (for overlap checks).
pub fn direct_range(s: &Src, n: u32) -> Option<(u32, u32)> {
    let e = match s {
        Src::Direct { ty, .. } => ty.size(),
        _ => return None,
    };
    let lo = elem_offset(s, 0)?;
    let hi = (0..n).filter_map(|i| elem_offset(s, i)).max().unwrap_or(lo) + e;
    Some((lo, hi))
}

pub fn dst_range(d: &Dst, n: u32) -> Option<(u32, u32)> {
    match d {
        Dst::Direct { off, ty, hs, .. } => {
            Some((*off, off + (n.max(1) - 1) * hs * ty.size() + ty.size()))
        }
        _ => None,
    }
}

/// [`src_elem`], through the lane's register where lane mode promoted the operand.
pub fn src_elem_at(em: &super::Emit, s: &Src, n: u32, pred_view: Option<u32>) -> Elem {
    if let Src::Indirect { ty, m, .. } = s {
        let a = indirect_address_at(em, s).unwrap_or_default();
        let raw = match &em.column {
            Some(h) if ty.size() == h.column.elem => h.read(&a),
            _ => format!("gld(u32(max(0, {a})), {}u)", ty.size()),
        };
        return Elem {
            raw,
            ty: *ty,
            m: *m,
        };
    }
    if let Src::Direct { ty, m, .. } = s {
        if let Some((r, part)) = super::lanes::src_linear(s, n)
            .and_then(|(at, stride)| em.lane_reg(at, stride, ty.size()))
        {
            return Elem {
                raw: super::lanes::part_read(&r, part),
                ty: *ty,
                m: *m,
            };
        }
        let single = em
            .only_lane
            .filter(|_| em.lane_elems)
            .and_then(|c| super::lanes::single_lane_vector(s, n, c))
            .filter(|v| em.promoted.contains(v));
        if let Some((base, _)) = single {
            return Elem {
                raw: format!("u64({})", super::lanes::register(base)),
                ty: *ty,
                m: *m,
            };
        }
    }
    src_elem(s, n, pred_view)
}

/// [`store`], into the lane's register where lane mode promoted the destination.
pub fn store_at(em: &super::Emit, d: &Dst, lane: &str, v: &str) -> String {
    if let Dst::Indirect {
        addr, imm, ty, hs, ..
    } = d
    {
        let e = ty.size();
        let a = format!(
            "(i32({}) + {imm} + i32(({lane}) * {}u))",
            dst_address_register(em, *addr),
            hs * e
        );
        return match &em.column {
            Some(h) if e == h.column.elem => h.write(&a, v),
            _ => format!("gst(u32(max(0, {a})), {e}u, {v});"),
        };
    }
    if let (Dst::Addr { base }, true) = (d, em.lane_ar && em.lane_elems) {
        let x = held_index(*base, em.moff);
        return format!("al[{x}u] = u32({v}) & 0xffffu;");
    }
    if let Dst::Direct { off, ty, hs, .. } = d {
        let e = ty.size();
        if let Some((r, part)) = em.lane_reg(*off, hs * e, e) {
            return super::lanes::part_store(&r, part, v);
        }
    }
    store(d, lane, v)
}

/// Store the low `e` bytes of the u64 `v` into register `r` (u32, or u64 for 8).
pub fn reg_store(r: &str, e: u32, v: &str) -> String {
    if e >= 8 {
        format!("{r} = {v};")
    } else {
        format!("{r} = u32(({v}) & {}lu);", (1u64 << (8 * e)) - 1)
    }
}

/// The raw element `i` of a source. `pred_view`: the predicate-source view (see
/// `interp::thread::Thread::pred_view`).
pub fn src_elem(s: &Src, n: u32, pred_view: Option<u32>) -> Elem {
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
            Elem {
                raw: format!("gld({}, {e}u)", region_offset(*off, *vs, *w, *hs, e, n)),
                ty: *ty,
                m: *m,
            }
        }
        Src::Indirect { ty, m, .. } => {
            let a = indirect_address(s).unwrap_or_default();
            Elem {
                raw: format!("gld(u32(max(0, {a})), {}u)", ty.size()),
                ty: *ty,
                m: *m,
            }
        }
        Src::Imm { ty, bits } => {
            if ty.is_packed() {
                let lanes = if *ty == DataType::VF { 4 } else { 8 };
                let vals: Vec<_> = (0..lanes).map(|l| unpack(*ty, *bits, l)).collect();
                let list: Vec<String> = vals.iter().map(|v| immediate(v.ty, v.bits)).collect();
                Elem {
                    raw: format!("array<u64, {lanes}>({})[i % {lanes}u]", list.join(", ")),
                    ty: vals[0].ty,
                    m: Modifier::None,
                }
            } else {
                Elem {
                    raw: immediate(*ty, *bits),
                    ty: *ty,
                    m: Modifier::None,
                }
            }
        }
        Src::Pred(p) => {
            let b = if p.inverse {
                format!("(~pr[{}u])", p.id.0)
            } else {
                format!("pr[{}u]", p.id.0)
            };
            let raw = match pred_view {
                Some(off) => format!("u64(({b} >> (i + {off}u)) & 1u)"),
                None => format!("u64({b})"),
            };
            Elem {
                raw,
                ty: DataType::UD,
                m: Modifier::None,
            }
        }
        Src::Addr { base, width } => Elem {
            raw: format!("u64(ar[{base}u + i % {width}u])"),
            ty: DataType::UW,
            m: Modifier::None,
        },
        Src::AddrOf { off } => Elem {
            raw: imm(*off as u64),
            ty: DataType::UW,
            m: Modifier::None,
        },
        Src::State { id, .. } => Elem {
            raw: format!("u64(surf_value({id}u))"),
            ty: DataType::UD,
            m: Modifier::None,
        },
    }
}

/// An immediate operand: a float one, or an integer one with a special float's bits,
/// through `imm_opaque` (runtime.wgsl), which no compiler can fold; others through
/// `imm`. Vulkan drivers treat float operations not decorated `NoContraction` (WGSL
/// cannot ask for it) as free to rewrite algebraically, and a literal operand invites
/// it: lavapipe's NIR turns `x * 0.0` into `+0` (wrong for negative `x`), `x + 0.0`
/// into `x` (wrong for `-0`) and `(x + c1) + c2` into `x + (c1 + c2)`, which changed
/// IGC's `cos` reduction `(v + 1.5*2^23) - 1.5*2^23 - 0.5` (own case `math_trig`
/// with 64-bit types emulated); NVIDIA's acted on a literal infinity. The results
/// themselves reach the next instruction through `canon_nan`'s barrier.
pub fn immediate(ty: DataType, bits: u64) -> String {
    if is_float(ty) || special_float(ty, bits) {
        imm_call("imm_opaque", bits)
    } else {
        imm(bits)
    }
}

/// Whether an immediate is an infinity or a NaN of its float type, or of the float type
/// of its width where an integer immediate holds the usual such patterns (IGC moves
/// float constants as `:d`/`:q` too): these reach the kernel through `imm_opaque`
/// (runtime.wgsl), since a driver may assume that no float operation meets one.
pub fn special_float(ty: DataType, bits: u64) -> bool {
    let all_ones = |mask: u64| bits & mask == mask;
    match ty {
        DataType::F => all_ones(0x7f80_0000),
        DataType::DF => all_ones(0x7ff0_0000_0000_0000),
        DataType::HF => all_ones(0x7c00),
        DataType::BF => all_ones(0x7f80),
        DataType::D | DataType::UD => {
            matches!(bits as u32 & 0x7fff_ffff, 0x7f80_0000 | 0x7fc0_0000)
        }
        DataType::Q | DataType::UQ => matches!(
            bits & 0x7fff_ffff_ffff_ffff,
            0x7ff0_0000_0000_0000 | 0x7ff8_0000_0000_0000
        ),
        _ => false,
    }
}

/// A 64-bit constant as a runtime value: naga's constant evaluator cannot convert
/// 64-bit literals (`u32(1lu)` is rejected), so immediates go through `imm`.
pub fn imm(bits: u64) -> String {
    imm_call("imm", bits)
}

/// `bits` as the call of runtime function `f` on its low and high words.
fn imm_call(f: &str, bits: u64) -> String {
    format!("{f}({}u, {}u)", bits as u32, (bits >> 32) as u32)
}

pub fn is_float(t: DataType) -> bool {
    matches!(
        t,
        DataType::F | DataType::DF | DataType::HF | DataType::BF | DataType::VF
    )
}

fn int_bits(t: DataType) -> u32 {
    8 * t.size()
}

/// The value of the raw bits as a float of its own type, as f64 (exact).
fn float_of(raw: &str, t: DataType) -> String {
    match t {
        DataType::DF => format!("bitcast<f64>({raw})"),
        DataType::HF => format!("f64(hf2f(u32({raw})))"),
        DataType::BF => format!("w32(bf2f(u32({raw})))"),
        _ => format!("w32(bitcast<f32>(u32({raw})))"),
    }
}

/// The integer value of raw bits of an integer type, extended to i64.
fn int_of(raw: &str, t: DataType) -> String {
    if t.is_signed_int() {
        if t.size() >= 8 {
            format!("i64({raw})")
        } else {
            // `sext` written out: its constant-width call costs llvmpipe's compile.
            match 32 - int_bits(t) {
                0 => format!("i64(bitcast<i32>(u32({raw})))"),
                s => format!("i64(bitcast<i32>(u32({raw}) << {s}u) >> {s}u)"),
            }
        }
    } else if t.size() >= 8 {
        format!("i64({raw})")
    } else {
        format!("i64(({raw}) & {}lu)", (1u64 << int_bits(t)) - 1)
    }
}

/// The interpreter's `modify(v, m)`: `Num::Int` for integer types, `Num::Float` (as
/// f64) for float types, with the source modifier applied.
pub fn num(e: &Elem) -> Num {
    if matches!(e.ty, DataType::F | DataType::VF) {
        // Modifiers on the sign bit: an adapter that flushes denormals would flush
        // them in a float negate or abs.
        let bits = |op: &str| format!("bitcast<f32>(u32({}) {op})", e.raw);
        return Num::F32(match e.m {
            Modifier::Neg => bits("^ 0x80000000u"),
            Modifier::Abs => bits("& 0x7fffffffu"),
            Modifier::NegAbs => bits("| 0x80000000u"),
            _ => format!("bitcast<f32>(u32({}))", e.raw),
        });
    }
    if is_float(e.ty) {
        let f = float_of(&e.raw, e.ty);
        let f = match e.m {
            Modifier::Neg => format!("(-{f})"),
            Modifier::Abs => format!("abs({f})"),
            Modifier::NegAbs => format!("(-abs({f}))"),
            _ => f,
        };
        Num::F64(f)
    } else {
        let v = match e.m {
            Modifier::Not => int_of(&format!("(~({}))", e.raw), e.ty),
            _ => int_of(&e.raw, e.ty),
        };
        let v = match e.m {
            Modifier::Neg => format!("(-{v})"),
            Modifier::Abs => format!("abs({v})"),
            Modifier::NegAbs => format!("(-abs({v}))"),
            _ => v,
        };
        Num::I(v)
    }
}

impl Num {
    /// `Num::as_int`: floats truncate (saturating, NaN 0).
    pub fn as_int(&self) -> String {
        match self {
            Num::I(s) => s.clone(),
            Num::F32(s) => format!("f2i(w32({s}))"),
            Num::F64(s) => format!("f2i({s})"),
        }
    }

    /// `Num::as_f64`.
    pub fn as_f64(&self) -> String {
        match self {
            Num::I(s) => format!("f64({s})"),
            Num::F32(s) => format!("w32({s})"),
            Num::F64(s) => s.clone(),
        }
    }

    /// `a.as_f64() as f32`.
    pub fn as_f32(&self) -> String {
        match self {
            Num::F32(s) => s.clone(),
            _ => format!("n32({})", self.as_f64()),
        }
    }
}

fn f64_lit(v: f64) -> String {
    format!("{v:?}lf")
}

/// MOV of a UQ element (`raw`, u64 bits) into a float type, as a `u64` expression: the
/// value is unsigned, which [`Num::I`] (an i64) cannot hold from 2^63 up.
pub fn uq_to_float_bits(raw: &str, to: DataType) -> String {
    let md = "(cr >> 4u) & 3u";
    match to {
        DataType::F => {
            format!("u64(bitcast<u32>(flush32(u2f32_rm({raw}, {md}), ((cr & 0x80u) != 0u))))")
        }
        DataType::DF => format!("bitcast<u64>(u2f64_rm({raw}, {md}))"),
        // Every UQ at the HF boundary is exact in f64.
        DataType::HF => format!("u64(f64_to_hf_rm(u2f64_rm({raw}, 0u), {md}))"),
        _ => format!("u64(f64_to_bf(u2f64_rm({raw}, 0u)))"),
    }
}

/// The interpreter's `to_bits(n, to, sat, env)` as a `u64` expression. `cr` names the
/// WGSL variable holding cr0.
pub fn to_bits(n: &Num, to: DataType, sat: bool) -> String {
    use DataType::*;
    match to {
        F => {
            let keep = "((cr & 0x80u) != 0u)";
            let r = match (n, sat) {
                (Num::I(i), false) => format!("i2f32({i}, (cr >> 4u) & 3u)"),
                (Num::F32(f), _) => {
                    let f = if sat {
                        format!("sat32({f})")
                    } else {
                        f.clone()
                    };
                    format!("flush32({f}, {keep})")
                }
                _ => {
                    let mut f = n.as_f64();
                    if sat {
                        f = format!("sat64({f})");
                    }
                    format!("f64_to_f32_rm(flush_f({f}, {keep}), (cr >> 4u) & 3u)")
                }
            };
            format!("u64(bitcast<u32>(flush32({r}, {keep})))")
        }
        DF => {
            let keep = "((cr & 0x40u) != 0u)";
            let f = match (n, sat) {
                (Num::I(i), false) => format!("i2f64_rm({i}, (cr >> 4u) & 3u)"),
                _ => {
                    let f = n.as_f64();
                    let f = if sat { format!("sat64({f})") } else { f };
                    format!("flush64({f}, {keep})")
                }
            };
            format!("bitcast<u64>({f})")
        }
        HF | BF => {
            let mut f = n.as_f64();
            if sat {
                f = format!("sat64({f})");
            }
            if to == HF {
                // Narrowing to HF uses the cr0 mode (2_datatypes); BF's is not listed.
                format!("u64(f64_to_hf_rm(flush_h({f}, ((cr & 0x400u) != 0u)), (cr >> 4u) & 3u))")
            } else {
                format!("u64(f64_to_bf({f}))")
            }
        }
        _ => {
            let bits = int_bits(to);
            let mask = if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            let (lo, hi): (i128, i128) = match to {
                UD => (0, u32::MAX as i128),
                D => (i32::MIN as i128, i32::MAX as i128),
                UW => (0, u16::MAX as i128),
                W => (i16::MIN as i128, i16::MAX as i128),
                UB | Bool => (0, u8::MAX as i128),
                B => (i8::MIN as i128, i8::MAX as i128),
                UQ => (0, u64::MAX as i128),
                _ => (i64::MIN as i128, i64::MAX as i128),
            };
            let lit = |v: i128| -> String {
                if v == i64::MIN as i128 {
                    "i64(-9223372036854775807li - 1li)".into()
                } else {
                    format!("{v}li")
                }
            };
            match n {
                Num::I(i) => {
                    if !sat {
                        return format!("(u64({i}) & {mask}lu)");
                    }
                    match to {
                        UQ => format!("u64(max({i}, 0li))"),
                        Q => format!("u64({i})"),
                        _ => format!("(u64(clamp({i}, {}, {})) & {mask}lu)", lit(lo), lit(hi)),
                    }
                }
                _ => {
                    let f = n.as_f64();
                    if to == UQ {
                        return format!("f2uq({f})");
                    }
                    format!(
                        "(u64(f2int({f}, {}, {}, {}, {})) & {mask}lu)",
                        lit(lo),
                        lit(hi),
                        f64_lit(hi as f64),
                        f64_lit(lo as f64)
                    )
                }
            }
        }
    }
}

/// Store `v` (a u64 expression) as element `lane` (a u32 expression) of `d`.
pub fn store(d: &Dst, lane: &str, v: &str) -> String {
    match d {
        Dst::Direct { off, ty, hs, .. } => {
            let e = ty.size();
            format!("gst({off}u + ({lane}) * {}u, {e}u, {v});", hs * e)
        }
        Dst::Indirect {
            addr, imm, ty, hs, ..
        } => {
            let e = ty.size();
            format!(
                "gst(u32(max(0, i32(ar[{addr}u]) + {imm} + i32(({lane}) * {}u))), {e}u, {v});",
                hs * e
            )
        }
        Dst::Pred(p) => format!("pset({}u, {lane}, ({v} & 1lu) != 0lu);", p.0),
        Dst::Addr { base } => format!("ar[{base}u + ({lane})] = u32({v}) & 0xffffu;"),
        Dst::State { id } => format!("sv[{id}u] = u32({v}) & 0x7fffffffu;"),
        Dst::Null => String::new(),
    }
}

/// Where a lane keeps its address-register elements (`Emit::lane_ar`): element `x`
/// at `x - lane + AL_SHIFT`.
pub const AL_SHIFT: u32 = 32;

/// The `al` index of element `base + i` of a per-lane access at mask offset `moff`
/// (`i` is `lane - moff`).
fn held_index(base: u32, moff: u32) -> u32 {
    base + AL_SHIFT - moff
}

/// The address-register element an indirect destination reads, as WGSL.
pub fn dst_address_register(em: &super::Emit, addr: u32) -> String {
    match (em.lane_ar, em.dst_lane) {
        (true, Some(ch)) => format!("al[{}u]", addr + AL_SHIFT - ch),
        _ => format!("ar[{addr}u]"),
    }
}

/// [`indirect_address`] where the lane keeps its own address-register elements.
pub fn indirect_address_at(em: &super::Emit, s: &Src) -> Option<String> {
    match s {
        Src::Indirect {
            addr,
            imm,
            vs: None,
            w: 1,
            ..
        } if em.lane_ar && em.lane_elems => {
            Some(format!("i32(al[{}u]) + {imm}", held_index(*addr, em.moff)))
        }
        _ => indirect_address(s),
    }
}

/// The GRF byte address (an `i32` expression of the element `i`) that element `i` of
/// an indirect source reads.
pub fn indirect_address(s: &Src) -> Option<String> {
    let Src::Indirect {
        addr,
        imm,
        ty,
        vs,
        w,
        hs,
        ..
    } = s
    else {
        return None;
    };
    let e = ty.size();
    Some(match vs {
        None => format!(
            "i32(ar[{addr}u + i / {w}u]) + {imm} + i32((i % {w}u) * {}u)",
            hs * e
        ),
        Some(vs) => format!(
            "i32(ar[{addr}u]) + {imm} + i32((i / {w}u) * {}u + (i % {w}u) * {}u)",
            vs * e,
            hs * e
        ),
    })
}
