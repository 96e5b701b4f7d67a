//! The first, numeric-value view of the ALU that the interpreter core was built on
//! (`Num`, `modify`, `to_bits`, ...). Kept so that callers can move to [`super::exec`]
//! one instruction at a time.
//!
//! Integers are computed in i128 ("extra precision") and then narrowed to the
//! destination type (truncation, or the saturation table with `.sat`). Floats are
//! computed in the execution type: F in f32, DF in f64, HF and BF in f64 then rounded
//! once to the destination (exact for add/mul of 11-bit mantissas).

use super::convert::int_to_float;
use super::float::{self, Fmt};
use super::types::{FpEnv, Val};
use crate::ir::{DataType, Modifier};

/// What a value means numerically.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Int(i128),
    Float(f64),
}

pub fn is_float(t: DataType) -> bool {
    matches!(t, DataType::F | DataType::DF | DataType::HF | DataType::BF)
}

/// The numeric value of an element.
pub fn num(v: Val) -> Num {
    use DataType::*;
    match v.ty {
        UD | UV => Num::Int((v.bits as u32) as i128),
        D | V => Num::Int((v.bits as u32 as i32) as i128),
        UW => Num::Int((v.bits as u16) as i128),
        W => Num::Int((v.bits as u16 as i16) as i128),
        UB | Bool => Num::Int((v.bits as u8) as i128),
        B => Num::Int((v.bits as u8 as i8) as i128),
        UQ => Num::Int(v.bits as i128),
        Q => Num::Int(v.bits as i64 as i128),
        F | VF => Num::Float(f32::from_bits(v.bits as u32) as f64),
        DF => Num::Float(f64::from_bits(v.bits)),
        HF => Num::Float(half::f16::from_bits(v.bits as u16).to_f64()),
        BF => Num::Float(half::bf16::from_bits(v.bits as u16).to_f64()),
    }
}

/// Apply a source modifier. `not` is bitwise; `neg` on integers wraps in the type
/// (computed in extra precision by the consumer), on floats flips the sign.
pub fn modify(v: Val, m: Modifier) -> Num {
    let n = num(v);
    match (m, n) {
        (Modifier::None | Modifier::Sat, n) => n,
        (Modifier::Not, Num::Int(_)) => Num::Int(
            num(Val {
                ty: v.ty,
                bits: !v.bits,
            })
            .as_int(),
        ),
        (Modifier::Not, n) => n,
        (Modifier::Neg, Num::Int(i)) => Num::Int(-i),
        (Modifier::Neg, Num::Float(f)) => Num::Float(-f),
        (Modifier::Abs, Num::Int(i)) => Num::Int(i.abs()),
        (Modifier::Abs, Num::Float(f)) => Num::Float(f.abs()),
        (Modifier::NegAbs, Num::Int(i)) => Num::Int(-i.abs()),
        (Modifier::NegAbs, Num::Float(f)) => Num::Float(-f.abs()),
    }
}

impl Num {
    pub fn as_int(self) -> i128 {
        match self {
            Num::Int(i) => i,
            Num::Float(f) => f as i128,
        }
    }

    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

fn int_range(t: DataType) -> (i128, i128) {
    use DataType::*;
    match t {
        UD => (0, u32::MAX as i128),
        D => (i32::MIN as i128, i32::MAX as i128),
        UW => (0, u16::MAX as i128),
        W => (i16::MIN as i128, i16::MAX as i128),
        UB => (0, u8::MAX as i128),
        B => (i8::MIN as i128, i8::MAX as i128),
        UQ => (0, u64::MAX as i128),
        Q => (i64::MIN as i128, i64::MAX as i128),
        _ => (i128::MIN, i128::MAX),
    }
}

fn flush(f: f64, ty: DataType, env: &FpEnv) -> f64 {
    let keep = match ty {
        DataType::F => env.f_denorm,
        DataType::DF => env.df_denorm,
        DataType::HF => env.hf_denorm,
        _ => true,
    };
    if keep {
        return f;
    }
    let min_normal = match ty {
        DataType::F => f32::MIN_POSITIVE as f64,
        DataType::DF => f64::MIN_POSITIVE,
        DataType::HF => 6.103515625e-05,
        _ => 0.0,
    };
    if f != 0.0 && f.abs() < min_normal {
        0.0f64.copysign(f)
    } else {
        f
    }
}

/// Round an f64 to f32 with the given mode (0 RNE, 1 RU, 2 RD, 3 RZ).
pub fn f64_to_f32(f: f64, mode: u8) -> f32 {
    let r = f as f32;
    if mode == 0 || f.is_nan() || r as f64 == f {
        return r;
    }
    let up = |x: f32| if x == f32::INFINITY { x } else { next_up(x) };
    let down = |x: f32| {
        if x == f32::NEG_INFINITY {
            x
        } else {
            next_down(x)
        }
    };
    let (lo, hi) = if (r as f64) < f {
        (r, up(r))
    } else {
        (down(r), r)
    };
    match mode {
        1 => hi,
        2 => lo,
        _ => {
            if f > 0.0 {
                lo
            } else {
                hi
            }
        }
    }
}

fn next_up(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    let b = x.to_bits();
    f32::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

/// A source's numeric value (after its modifier) back as an element of its type, for
/// [`super::exec`]: float values encode exactly, integers truncate to their width.
/// `None` for a value of the other kind.
pub fn val_of(n: Num, ty: DataType) -> Option<Val> {
    let ty = if ty == DataType::VF { DataType::F } else { ty };
    let bits = match (n, Fmt::of(ty)) {
        (Num::Float(f), Some(fmt)) => float::encode(fmt, f),
        (Num::Int(i), None) => i as u64 & super::convert::mask(8 * ty.size()),
        _ => return None,
    };
    Some(Val { ty, bits })
}

/// Convert a numeric value to the bits of `to`. Float->int: NaN -> 0, clamped to the
/// range; int narrowing truncates unless `sat`; float results saturate to [0, 1] with
/// `sat` (NaN -> 0).
pub fn to_bits(n: Num, to: DataType, sat: bool, env: &FpEnv) -> u64 {
    use DataType::*;
    match to {
        F | DF | HF | BF => {
            let mut f = n.as_f64();
            if sat {
                f = if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) };
            }
            let f = flush(f, to, env);
            // An integer converts from its exact value in the cr0 mode (`as f64` would
            // round it first); so does a float narrowed to HF (2_datatypes: DF -> F,
            // DF -> HF and F -> HF use the control register's mode).
            let int = match n {
                Num::Int(i) if !sat => Some(i),
                _ => None,
            };
            let directed = env.rounding != 0;
            match to {
                F => {
                    let r = match int {
                        Some(i) if !directed => i as f32,
                        Some(i) => int_to_float(i, Fmt::F, env.mode()) as f32,
                        None => f64_to_f32(f, env.rounding),
                    };
                    (flush(r as f64, F, env) as f32).to_bits() as u64
                }
                DF => match int {
                    Some(i) if !directed => (i as f64).to_bits(),
                    Some(i) => int_to_float(i, Fmt::Df, env.mode()).to_bits(),
                    None => f.to_bits(),
                },
                HF => match int {
                    None if !directed => half::f16::from_f64(f).to_bits() as u64,
                    Some(i) => float::encode(Fmt::Hf, int_to_float(i, Fmt::Hf, env.mode())),
                    None => float::encode(Fmt::Hf, float::round(Fmt::Hf, f, 0, env.mode(), true)),
                },
                _ => half::bf16::from_f64(f).to_bits() as u64,
            }
        }
        _ => {
            let (lo, hi) = int_range(to);
            let i = match n {
                Num::Int(i) => {
                    if sat {
                        i.clamp(lo, hi)
                    } else {
                        i
                    }
                }
                Num::Float(f) => {
                    if f.is_nan() {
                        0
                    } else if f >= hi as f64 {
                        hi
                    } else if f <= lo as f64 {
                        lo
                    } else {
                        f.trunc() as i128
                    }
                }
            };
            let size = to.size();
            if size >= 8 {
                i as u64
            } else {
                (i as u64) & ((1u64 << (8 * size)) - 1)
            }
        }
    }
}

/// A float type's sign bit and all-ones exponent (`None`: not a float); its bits are a
/// NaN when `bits & !sign > inf`.
pub fn float_layout(t: DataType) -> Option<(u64, u64)> {
    match t {
        DataType::F => Some((0x8000_0000, 0x7f80_0000)),
        DataType::DF => Some((1 << 63, 0x7ff0_0000_0000_0000)),
        DataType::HF => Some((0x8000, 0x7c00)),
        DataType::BF => Some((0x8000, 0x7f80)),
        _ => None,
    }
}

/// Whether `bits` are a NaN of float type `t`.
pub fn is_nan_bits(bits: u64, t: DataType) -> bool {
    float_layout(t).is_some_and(|(sign, inf)| bits & !sign > inf)
}

/// The NaN arithmetic results take (positive, quiet, no payload): the spec leaves
/// NaN payloads and signs open, host and GPU float units fill them differently (x86's
/// default NaN is negative, a sum keeps one operand's payload), so every float
/// instruction but the moves (MOV, SEL, FCVT) writes this one instead.
pub fn canonical_nan(bits: u64, t: DataType) -> u64 {
    match default_nan(t) {
        Some(nan) if is_nan_bits(bits, t) => nan,
        _ => bits,
    }
}

/// The canonical NaN of a float type (`None`: not a float).
pub fn default_nan(t: DataType) -> Option<u64> {
    Some(match t {
        DataType::F => 0x7fc0_0000,
        DataType::DF => 0x7ff8_0000_0000_0000,
        DataType::HF => 0x7e00,
        DataType::BF => 0x7fc0,
        _ => return None,
    })
}

/// A move of a NaN between equal float types: its raw bits (signaling NaNs stay
/// signaling, payloads stay), the sign the source modifier gave `n` (`None`: not such
/// a move; the numeric path would quiet it through the host's f64).
pub fn moved_nan(raw: Val, n: Num, to: DataType, sat: bool) -> Option<u64> {
    let (sign, _) = float_layout(to)?;
    let Num::Float(f) = n else { return None };
    if sat || raw.ty != to || !is_nan_bits(raw.bits, to) {
        return None;
    }
    Some((raw.bits & !sign) | if f.is_sign_negative() { sign } else { 0 })
}

/// The type an operation computes in: a float if any source or the destination is a
/// float (the widest float), else an integer (extra precision).
pub fn float_exec_type(dst: DataType, srcs: &[Val]) -> Option<DataType> {
    let mut t: Option<DataType> = None;
    for ty in srcs.iter().map(|s| s.ty).chain(std::iter::once(dst)) {
        if is_float(ty) {
            t = Some(match (t, ty) {
                (Some(DataType::DF), _) | (_, DataType::DF) => DataType::DF,
                (Some(DataType::F), _) | (_, DataType::F) => DataType::F,
                (_, x) => x,
            });
        }
    }
    t
}

/// Round a float result to the precision of the execution type, before conversion to
/// the destination (so that F ops round like f32 hardware).
pub fn round_exec(f: f64, exec: DataType) -> f64 {
    match exec {
        DataType::F => f as f32 as f64,
        DataType::HF => half::f16::from_f64(f).to_f64(),
        DataType::BF => half::bf16::from_f64(f).to_f64(),
        _ => f,
    }
}

/// The IEEE-754 minNum/maxNum rule of MIN/MAX: a NaN operand yields the other one.
pub fn fmin_max(a: f64, b: f64, max: bool) -> f64 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == b && a == 0.0 {
        // -0 < +0 for min/max.
        return if max == a.is_sign_negative() { b } else { a };
    }
    if max {
        a.max(b)
    } else {
        a.min(b)
    }
}

/// Compare for CMP; unordered compares are false except `ne`.
pub fn compare(rel: u64, a: Num, b: Num) -> bool {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => match rel {
            0 => x == y,
            1 => x != y,
            2 => x > y,
            3 => x >= y,
            4 => x < y,
            _ => x <= y,
        },
        _ => {
            let (x, y) = (a.as_f64(), b.as_f64());
            match rel {
                0 => x == y,
                1 => x != y,
                2 => x > y,
                3 => x >= y,
                4 => x < y,
                _ => x <= y,
            }
        }
    }
}

/// Unpack element `lane` of a packed immediate (V, UV: 8 nibbles; VF: 4 bytes).
pub fn unpack(ty: DataType, bits: u64, lane: u32) -> Val {
    match ty {
        DataType::V => {
            let n = ((bits >> (4 * (lane % 8))) & 0xf) as i8;
            let v = (n << 4) >> 4;
            Val {
                ty: DataType::W,
                bits: v as i16 as u16 as u64,
            }
        }
        DataType::UV => Val {
            ty: DataType::UW,
            bits: (bits >> (4 * (lane % 8))) & 0xf,
        },
        DataType::VF => {
            let b = ((bits >> (8 * (lane % 4))) & 0xff) as u32;
            // Restricted float: sign, 3-bit exponent (bias 3), 4-bit mantissa.
            let sign = if b & 0x80 != 0 { -1.0 } else { 1.0 };
            let e = ((b >> 4) & 7) as i32;
            let m = (b & 0xf) as f32;
            let f = if e == 0 && m == 0.0 {
                0.0
            } else {
                sign * (1.0 + m / 16.0) * 2f32.powi(e - 3)
            };
            Val {
                ty: DataType::F,
                bits: f.to_bits() as u64,
            }
        }
        _ => Val { ty, bits },
    }
}

/// The float operations whose F, DF and HF sources %cr0's denorm bits flush (2_datatypes:
/// denormals are flushed "in mathematical operations", on input and output; HF's by bit
/// 10, which the hardware has and IGC sets, where the chapter says always): the
/// arithmetic, the math unit and the IEEE macros, the rounding instructions. Moves,
/// selects, comparisons and min/max pass sources as they are. The interpreter's
/// `element` and the GPU path's both ask here.
pub fn flushes_denormal_sources(op: crate::isa::Opcode) -> bool {
    use crate::isa::Opcode::*;
    matches!(
        op,
        Add | Mul
            | Mad
            | Div
            | Inv
            | Sqrt
            | Rsqrt
            | Exp
            | Log
            | Sin
            | Cos
            | Pow
            | Divm
            | Sqrtm
            | Invm
            | Rsqtm
            | Lrp
            | Pln
            | Frc
            | Rndd
            | Rndu
            | Rnde
            | Rndz
    )
}

/// `n` (an element of type `ty`) flushed to a zero of its sign where it is an F, DF or HF
/// denormal and `env` flushes that type.
pub fn flush_source(n: Num, ty: DataType, env: &FpEnv) -> Num {
    match (n, ty) {
        (Num::Float(x), DataType::F | DataType::DF | DataType::HF) => Num::Float(flush(x, ty, env)),
        _ => n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENV: FpEnv = FpEnv {
        rounding: 0,
        f_denorm: true,
        df_denorm: true,
        hf_denorm: true,
        alt: false,
    };

    #[test]
    fn float_to_int_rules_of_2_datatypes() {
        // NaN -> 0, out of range clamps, truncation toward zero.
        assert_eq!(to_bits(Num::Float(f64::NAN), DataType::D, false, &ENV), 0);
        assert_eq!(
            to_bits(Num::Float(3e10), DataType::D, false, &ENV),
            i32::MAX as u32 as u64
        );
        assert_eq!(to_bits(Num::Float(-3e10), DataType::UD, false, &ENV), 0);
        assert_eq!(
            to_bits(Num::Float(-2.7), DataType::D, false, &ENV),
            (-2i32) as u32 as u64
        );
    }

    #[test]
    fn integer_narrowing_truncates_or_saturates() {
        assert_eq!(
            to_bits(Num::Int(0x1_0000_0005), DataType::UD, false, &ENV),
            5
        );
        assert_eq!(to_bits(Num::Int(300), DataType::UB, true, &ENV), 255);
        assert_eq!(to_bits(Num::Int(-5), DataType::UW, true, &ENV), 0);
        assert_eq!(to_bits(Num::Int(-129), DataType::B, true, &ENV), 0x80);
    }

    #[test]
    fn float_saturation_clamps_to_unit_interval() {
        assert_eq!(
            to_bits(Num::Float(1.5), DataType::F, true, &ENV),
            1.0f32.to_bits() as u64
        );
        assert_eq!(to_bits(Num::Float(f64::NAN), DataType::F, true, &ENV), 0);
    }

    #[test]
    fn rounding_modes_and_denorm_flush() {
        let x = 1.0 + f64::EPSILON; // not representable in f32
        let rz = FpEnv { rounding: 3, ..ENV };
        let ru = FpEnv { rounding: 1, ..ENV };
        assert_eq!(
            to_bits(Num::Float(x), DataType::F, false, &rz),
            1.0f32.to_bits() as u64
        );
        assert!(f32::from_bits(to_bits(Num::Float(x), DataType::F, false, &ru) as u32) > 1.0);
        let ftz = FpEnv {
            f_denorm: false,
            ..ENV
        };
        let tiny = f32::from_bits(1) as f64;
        assert_eq!(to_bits(Num::Float(tiny), DataType::F, false, &ftz), 0);
        assert_eq!(to_bits(Num::Float(tiny), DataType::F, false, &ENV), 1);
    }

    #[test]
    fn min_max_nan_and_zero_rules() {
        assert_eq!(fmin_max(f64::NAN, 2.0, true), 2.0);
        assert!(fmin_max(-0.0, 0.0, false).is_sign_negative());
        assert!(!fmin_max(-0.0, 0.0, true).is_sign_negative());
    }

    #[test]
    fn packed_immediates() {
        // V: nibble 0xF = -1
        assert_eq!(num(unpack(DataType::V, 0xf, 0)), Num::Int(-1));
        assert_eq!(num(unpack(DataType::UV, 0x76543210, 3)), Num::Int(3));
        // VF 0x30 = exponent 3 -> 1.0
        assert_eq!(num(unpack(DataType::VF, 0x30, 0)), Num::Float(1.0));
    }

    #[test]
    fn modifiers() {
        let v = Val {
            ty: DataType::D,
            bits: 5,
        };
        assert_eq!(modify(v, Modifier::Neg), Num::Int(-5));
        assert_eq!(modify(v, Modifier::Not), Num::Int(-6));
        let u = Val {
            ty: DataType::UW,
            bits: 5,
        };
        assert_eq!(modify(u, Modifier::Not), Num::Int(0xfffa));
    }
}
