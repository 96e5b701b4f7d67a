//! Type conversion (2_datatypes "Type Conversion") and saturation ("Saturation").
//!
//! Integers travel as i128 (every vISA integer fits, with room for the extra
//! precision of intermediate results); floats as f64 (exact for HF, BF, F, DF).

use super::float::{self, Fmt};
use super::types::{FpEnv, Rounding, Val};
use crate::ir::DataType;

/// Bit width of an integer type's value (BOOL is one bit).
#[inline]
pub fn int_width(ty: DataType) -> u32 {
    match ty {
        DataType::Bool => 1,
        t => 8 * t.size(),
    }
}

/// A mask of the low `width` bits.
#[inline]
pub fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The integer value of an integer-typed element: sign- or zero-extended from its
/// width. Packed types are treated as their element type (V signed, UV unsigned).
#[inline]
pub fn int_value(v: Val) -> i128 {
    use DataType::*;
    match v.ty {
        UB | Bool => (v.bits as u8) as i128,
        B => (v.bits as u8 as i8) as i128,
        UW => (v.bits as u16) as i128,
        W => (v.bits as u16 as i16) as i128,
        UD | UV => (v.bits as u32) as i128,
        D | V => (v.bits as u32 as i32) as i128,
        UQ => v.bits as i128,
        Q => v.bits as i64 as i128,
        // Floats reinterpreted as integers: their raw bits (callers reject floats
        // where the spec does).
        DF => v.bits as i128,
        F | VF => (v.bits as u32) as i128,
        HF | BF => (v.bits as u16) as i128,
    }
}

/// The inclusive saturation range of an integer type (2_datatypes, saturation table).
#[inline]
pub fn int_range(ty: DataType) -> (i128, i128) {
    use DataType::*;
    match ty {
        UB => (0, u8::MAX as i128),
        B => (i8::MIN as i128, i8::MAX as i128),
        UW => (0, u16::MAX as i128),
        W => (i16::MIN as i128, i16::MAX as i128),
        UD => (0, u32::MAX as i128),
        D => (i32::MIN as i128, i32::MAX as i128),
        UQ => (0, u64::MAX as i128),
        Q => (i64::MIN as i128, i64::MAX as i128),
        Bool => (0, 1),
        _ => (i128::MIN, i128::MAX),
    }
}

/// An integer result stored in an integer type: truncation to the low bits, or the
/// saturation table with `sat`.
#[inline]
pub fn int_to_int(x: i128, to: DataType, sat: bool) -> u64 {
    let x = if sat {
        let (lo, hi) = int_range(to);
        x.clamp(lo, hi)
    } else {
        x
    };
    (x as u64) & mask(int_width(to))
}

/// Float to integer: NaN -> 0, truncation toward zero, clamped to the type's range
/// (2_datatypes, Float to Integer). Negative values into unsigned types give 0: the
/// table's "qNaN Indefinite" rows name no integer, and clamping to Imin is what the
/// signed table and the saturation rule both say.
#[inline]
pub fn float_to_int(f: f64, to: DataType) -> u64 {
    if f.is_nan() {
        return 0;
    }
    let (lo, hi) = int_range(to);
    let t = f.trunc();
    let x = if t >= hi as f64 {
        hi
    } else if t <= lo as f64 {
        lo
    } else {
        t as i128
    };
    (x as u64) & mask(int_width(to))
}

/// An integer into a float format, rounded in `mode` (2_datatypes, Integer to Float;
/// cr0 selects the mode, RNE by default).
#[inline]
pub fn int_to_float(x: i128, fmt: Fmt, mode: Rounding) -> f64 {
    let s = x as f64; // RNE
    let tail = if s.is_finite() {
        // |s| <= 2^65, so `s as i128` is exact.
        match x.cmp(&(s as i128)) {
            std::cmp::Ordering::Greater => 1,
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
        }
    } else {
        0
    };
    float::round(fmt, s, tail, mode, true)
}

/// Float saturation: [0.0, 1.0], NaN -> 0.0.
#[inline]
pub fn sat_float(f: f64) -> f64 {
    if f.is_nan() {
        0.0
    } else {
        f.clamp(0.0, 1.0)
    }
}

/// A float value (exactly representable in `from`) stored in `to`: widening is exact,
/// narrowing rounds in the cr0 mode; source denormals narrow to a signed zero and
/// destination denormals are flushed where cr0 says (2_datatypes, Float to Float).
#[inline]
pub fn float_to_float(f: f64, from: Fmt, to: Fmt, env: &FpEnv) -> f64 {
    if to >= from && !(from == Fmt::Bf && to == Fmt::Hf) {
        return f;
    }
    let f = if f != 0.0 && f.abs() < from.min_normal() {
        0.0f64.copysign(f)
    } else {
        f
    };
    float::round(to, f, 0, env.mode(), to.keeps_denorms(env))
}

/// Convert one element to `to` (MOV's semantics), with saturation. Every pair of
/// non-packed types; a packed source is read as its element type (see
/// [`super::unpack_immediate`]). BOOL converts as a one-bit unsigned integer.
pub fn convert(v: Val, to: DataType, sat: bool, env: &FpEnv) -> u64 {
    match (Fmt::of(v.ty), Fmt::of(to)) {
        (None, None) => int_to_int(int_value(v), to, sat),
        (None, Some(tf)) => {
            let mut f = int_to_float(int_value(v), tf, env.mode());
            if sat {
                f = sat_float(f);
            }
            float::encode(tf, float::flush(tf, f, env))
        }
        (Some(ff), None) => {
            let f = float::decode(ff, v.bits);
            float_to_int(f, to)
        }
        (Some(ff), Some(tf)) => {
            let f = float::decode(ff, v.bits);
            let mut r = float_to_float(f, ff, tf, env);
            if sat {
                r = sat_float(r);
            }
            if r.is_nan() {
                return nan_bits(tf, v.bits, ff);
            }
            float::encode(tf, r)
        }
    }
}

/// The NaN of `to` for a NaN source: sign and the top payload bits kept, quieted.
fn nan_bits(to: Fmt, bits: u64, from: Fmt) -> u64 {
    let f = float::decode(from, bits);
    float::encode(to, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_to_float_rounds_in_the_cr0_mode() {
        let x = (1i128 << 24) + 1; // not representable in F
        assert_eq!(int_to_float(x, Fmt::F, Rounding::Rne), 16777216.0);
        assert_eq!(int_to_float(x, Fmt::F, Rounding::Ru), 16777218.0);
        assert_eq!(int_to_float(-x, Fmt::F, Rounding::Rz), -16777216.0);
        let big = u64::MAX as i128;
        assert_eq!(int_to_float(big, Fmt::Df, Rounding::Rz), next_below_2_64());
    }

    fn next_below_2_64() -> f64 {
        float::next_down(18446744073709551616.0)
    }
}
