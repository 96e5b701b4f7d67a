//! Float semantics in IEEE mode (2_datatypes): sources are read exactly (denormals
//! flushed where %cr0 says), each operation's exact result is rounded once to the
//! execution format in the %cr0 rounding mode, saturated, and stored in the
//! destination type.

use super::convert::{float_to_float, int_value, mask, sat_float};
use super::df_exact;
use super::float::{self, exact_sum, two_prod, two_sum, Fmt};
use super::types::{AluError, AluOp, AluOut, FpEnv, RelOp, Rounding, TypeList, Val};
use crate::ir::DataType;

/// A float source: its exact value, flushed if it is a denormal and its format's
/// denorm mode is off.
#[inline]
pub fn fin(v: Val, env: &FpEnv) -> f64 {
    match Fmt::of(v.ty) {
        Some(fmt) => float::flush(fmt, float::decode(fmt, v.bits), env),
        None => int_value(v) as f64,
    }
}

/// The default NaN of each format (positive, quiet).
#[inline]
pub fn default_nan(fmt: Fmt) -> u64 {
    match fmt {
        Fmt::Df => 0x7ff8_0000_0000_0000,
        Fmt::F => 0x7fc0_0000,
        Fmt::Hf => 0x7e00,
        Fmt::Bf => 0x7fc0,
    }
}

/// Round the exact result `(s, tail)` to the execution format in `mode`, apply ALT
/// mode and saturation, and return the destination's bits. A NaN result is the
/// first NaN source, quieted, or the default NaN.
#[inline]
pub fn finish(
    exact: (f64, i8),
    exec: Fmt,
    dst: DataType,
    srcs: &[Val],
    sat: bool,
    mode: Rounding,
    env: &FpEnv,
) -> u64 {
    let dfmt = Fmt::of(dst).unwrap_or(exec);
    let (s, tail) = exact;
    if s.is_nan() {
        if sat {
            return 0;
        }
        return nan_result(dfmt, srcs);
    }
    let mut r = float::round(exec, s, tail, mode, exec.keeps_denorms(env));
    if env.alt && exec == Fmt::F && r.is_infinite() {
        r = exec.max_finite().copysign(r);
    }
    if sat {
        r = sat_float(r);
    }
    float::encode(dfmt, float_to_float(r, exec, dfmt, env))
}

fn nan_result(dfmt: Fmt, srcs: &[Val]) -> u64 {
    for v in srcs {
        if let Some(f) = Fmt::of(v.ty) {
            let x = float::decode(f, v.bits);
            if x.is_nan() {
                return float::encode(dfmt, x);
            }
        }
    }
    default_nan(dfmt)
}

/// ADD, MUL, MAD (fused: one rounding) on floats.
#[inline]
pub fn arith(op: AluOp, exec: Fmt, dst: DataType, s: &[Val], sat: bool, env: &FpEnv) -> u64 {
    if let Some(bits) = native(op, exec, dst, s, sat, env) {
        return bits;
    }
    arith_exact(op, exec, dst, s, sat, env)
}

/// ADD, MUL, MAD from the exact result, in any mode.
fn arith_exact(op: AluOp, exec: Fmt, dst: DataType, s: &[Val], sat: bool, env: &FpEnv) -> u64 {
    let a = fin(s[0], env);
    let b = fin(s[1], env);
    if exec == Fmt::Df && env.rounding != 0 {
        // Directed DF: on integers, where an underflowing product or an overflow has
        // no `(s, tail)` form (df_exact.rs).
        let c = (op == AluOp::Mad).then(|| fin(s[2], env));
        if a.is_finite() && b.is_finite() && c.is_none_or(f64::is_finite) {
            let mode = env.mode();
            let r = match op {
                AluOp::Add => df_exact::add(a, b, mode),
                _ => df_exact::mad(a, b, c, mode),
            };
            return finish((r, 0), exec, dst, s, sat, mode, env);
        }
    }
    let exact = match op {
        AluOp::Add => {
            let (r, e) = two_sum(a, b);
            (r, float::sign(e))
        }
        AluOp::Mul => {
            let (p, e) = two_prod(a, b);
            (p, float::sign(e))
        }
        _ => {
            let c = fin(s[2], env);
            if exec == Fmt::Df {
                let r = a.mul_add(b, c);
                if !r.is_finite() {
                    (r, 0)
                } else {
                    let (p, pe) = two_prod(a, b);
                    (r, float::sign(exact_sum(&[p, pe, c, -r]).0))
                }
            } else {
                // a*b is exact in f64 for HF, BF and F operands.
                exact_sum(&[a * b, c])
            }
        }
    };
    // IEEE: an exact zero sum of operands that are not all zeros of one sign is +0,
    // or -0 when rounding down.
    let positive_zero = |x: f64| x == 0.0 && x.is_sign_positive();
    let all_plus_zero = match op {
        AluOp::Add => positive_zero(a) && positive_zero(b),
        AluOp::Mad => positive_zero(a * b) && positive_zero(fin(s[2], env)),
        _ => true,
    };
    let exact = match exact {
        (r, 0) if r == 0.0 && env.mode() == Rounding::Rd && !all_plus_zero => (-0.0, 0),
        _ => exact,
    };
    finish(exact, exec, dst, s, sat, env.mode(), env)
}

/// The common case on the host's own IEEE arithmetic, which is correctly rounded to
/// nearest and keeps denormals: F or DF operands and destination, RNE, denormals
/// kept, IEEE mode. NaN results take the general path (its NaN rules).
#[inline]
fn native(op: AluOp, exec: Fmt, dst: DataType, s: &[Val], sat: bool, env: &FpEnv) -> Option<u64> {
    if env.rounding != 0 || env.alt || Fmt::of(dst) != Some(exec) {
        return None;
    }
    let same = |t: DataType| s.iter().all(|v| v.ty == t);
    let r = match exec {
        Fmt::F if env.f_denorm && same(DataType::F) => {
            let x = |i: usize| f32::from_bits(s[i].bits as u32);
            let r = match op {
                AluOp::Add => x(0) + x(1),
                AluOp::Mul => x(0) * x(1),
                _ => x(0).mul_add(x(1), x(2)),
            };
            r as f64
        }
        Fmt::Df if env.df_denorm && same(DataType::DF) => {
            let x = |i: usize| f64::from_bits(s[i].bits);
            match op {
                AluOp::Add => x(0) + x(1),
                AluOp::Mul => x(0) * x(1),
                _ => x(0).mul_add(x(1), x(2)),
            }
        }
        _ => return None,
    };
    if r.is_nan() {
        return None;
    }
    Some(float::encode(exec, if sat { sat_float(r) } else { r }))
}

/// MIN/MAX on floats (MIN_MAX notes): a NaN loses to a number; two NaNs give src1;
/// -0 is below +0.
#[inline]
pub fn min_max(max: bool, exec: Fmt, dst: DataType, s: &[Val], sat: bool, env: &FpEnv) -> u64 {
    let a = fin(s[0], env);
    let b = fin(s[1], env);
    let pick_a = if a.is_nan() {
        false
    } else if b.is_nan() {
        true
    } else if a == b {
        // Equal values, possibly zeros of different signs.
        (a.is_sign_negative() != b.is_sign_negative()) && (a.is_sign_negative() != max)
    } else {
        (a > b) == max
    };
    let (v, x) = if pick_a { (s[0], a) } else { (s[1], b) };
    if x.is_nan() {
        let dfmt = Fmt::of(dst).unwrap_or(exec);
        return if sat { 0 } else { nan_result(dfmt, &[v]) };
    }
    finish((x, 0), exec, dst, s, sat, env.mode(), env)
}

/// CMP: the predicate bit in `dst`, the general destination's value in `extra`.
/// Floats compare unordered (any NaN: only NE is true; -0 == +0).
pub fn cmp(rel: RelOp, dst: DataType, s: &[Val], env: &FpEnv) -> Result<AluOut, AluError> {
    let fa = Fmt::of(s[0].ty);
    let fb = Fmt::of(s[1].ty);
    let ord = match (fa, fb) {
        (None, None) => Some(int_value(s[0]).cmp(&int_value(s[1]))),
        (Some(_), Some(_)) => fin(s[0], env).partial_cmp(&fin(s[1], env)),
        _ => {
            return Err(AluError::Types {
                op: "cmp",
                dst,
                srcs: TypeList::of(s),
                expected: "two integer or two float sources",
            })
        }
    };
    use std::cmp::Ordering::*;
    let t = match (rel, ord) {
        (RelOp::Ne, None) => true,
        (_, None) => false,
        (RelOp::Eq, Some(o)) => o == Equal,
        (RelOp::Ne, Some(o)) => o != Equal,
        (RelOp::Gt, Some(o)) => o == Greater,
        (RelOp::Ge, Some(o)) => o != Less,
        (RelOp::Lt, Some(o)) => o == Less,
        (RelOp::Le, Some(o)) => o != Greater,
    };
    let width = match dst {
        DataType::Bool => 1,
        d => 8 * d.size(),
    };
    Ok(AluOut {
        dst: t as u64,
        extra: if t { mask(width) } else { 0 },
    })
}

/// FRC, RND*, LRP, PLN (F only).
pub fn f_only(op: AluOp, exec: Fmt, dst: DataType, s: &[Val], sat: bool, env: &FpEnv) -> u64 {
    let a = fin(s[0], env);
    let exact = match op {
        AluOp::Frc => {
            // src0 - floor(src0), rounded once: values just below an integer can
            // round up to 1.0 in RNE, as the page's formula implies.
            if a.is_infinite() {
                (f64::NAN, 0)
            } else {
                exact_sum(&[a, -a.floor()])
            }
        }
        AluOp::Rndd => (a.floor(), 0),
        AluOp::Rndu => (a.ceil(), 0),
        AluOp::Rnde => (a.round_ties_even(), 0),
        AluOp::Rndz => (a.trunc(), 0),
        AluOp::Lrp => {
            // The page's C formula, src1*src0 + src2*(1.0 - src0), as the interpreter
            // (`Thread::alu`) runs it: four f32 roundings in round-to-nearest, the f64
            // formula rounded once in a directed mode.
            let (b, c) = (fin(s[1], env), fin(s[2], env));
            if env.rounding == 0 {
                let (a, b, c) = (a as f32, b as f32, c as f32);
                (f64::from(a * b + (1.0 - a) * c), 0)
            } else {
                (a * b + (1.0 - a) * c, 0)
            }
        }
        _ => {
            // PLN: [p, q, r, u, v] -> p*u + q*v + r, one rounding.
            let (q, r, u, v) = (
                fin(s[1], env),
                fin(s[2], env),
                fin(s[3], env),
                fin(s[4], env),
            );
            exact_sum(&[a * u, q * v, r])
        }
    };
    finish(exact, exec, dst, s, sat, env.mode(), env)
}

/// FCVT: HF <-> BF8 (E5M2, carried as UB), F <-> TF32 (carried as UD).
pub fn fcvt(dst: DataType, v: Val) -> Option<AluOut> {
    let bits = match (v.ty, dst) {
        // BF8 is the top byte of an HF: widening is exact.
        (DataType::UB, DataType::HF) => (v.bits & 0xff) << 8,
        (DataType::HF, DataType::UB) => hf_to_bf8_rne(v.bits as u16) as u64,
        // TF32 is an F with ten mantissa bits: widening is a no-op.
        (DataType::UD, DataType::F) => v.bits & 0xffff_ffff,
        (DataType::F, DataType::UD) => f_to_tf32_rne(v.bits as u32) as u64,
        _ => return None,
    };
    Some(AluOut::bits(bits))
}

/// HF -> BF8 with round to nearest even, denormals kept, NaN stays NaN.
fn hf_to_bf8_rne(h: u16) -> u8 {
    if h & 0x7c00 == 0x7c00 && h & 0x3ff != 0 {
        // NaN: keep sign, force a quiet mantissa bit.
        return ((h >> 8) as u8) | 0x02;
    }
    let low = h & 0xff;
    let mut top = h >> 8;
    if low > 0x80 || (low == 0x80 && top & 1 == 1) {
        top += 1; // carries into the exponent; 0x7b.. + 1 becomes infinity
    }
    top as u8
}

/// F -> TF32 with round to nearest even; denormals flushed (FCVT page).
fn f_to_tf32_rne(f: u32) -> u32 {
    let exp = f & 0x7f80_0000;
    if exp == 0 {
        return f & 0x8000_0000;
    }
    if exp == 0x7f80_0000 {
        // inf stays, NaN keeps a quiet bit inside the ten mantissa bits.
        return if f & 0x7f_ffff != 0 {
            (f & 0xffff_e000) | 0x40_0000
        } else {
            f
        };
    }
    let low = f & 0x1fff;
    let mut r = f & 0xffff_e000;
    if low > 0x1000 || (low == 0x1000 && r & 0x2000 != 0) {
        r += 0x2000;
    }
    r
}

/// SRND: stochastic rounding. The random bits are added to the source's magnitude at
/// its last mantissa bit, then the sum is truncated to the narrower format
/// (denormals kept, NaN/inf preserved; a sum past the largest finite value becomes
/// infinity).
pub fn srnd(dst: DataType, s: &[Val]) -> Option<AluOut> {
    let (src, rnd) = (s[0], s[1].bits);
    let (from, to, random_bits) = match (src.ty, dst) {
        (DataType::F, DataType::HF) => (Fmt::F, Fmt::Hf, 13),
        (DataType::HF, DataType::UB) => (Fmt::Hf, Fmt::Hf, 8),
        _ => return None,
    };
    let x = float::decode(from, src.bits);
    let r = if x.is_nan() || x.is_infinite() || x == 0.0 {
        x
    } else {
        // The weight of the source's last mantissa bit (its ulp, denormals included).
        let ulp = match from {
            Fmt::F => {
                let e = ((src.bits >> 23) & 0xff) as i32;
                float::pow2(e.max(1) - 127 - 23)
            }
            _ => {
                let e = ((src.bits >> 10) & 0x1f) as i32;
                float::pow2(e.max(1) - 15 - 10)
            }
        };
        let add = (rnd & mask(random_bits)) as f64 * ulp;
        let m = x.abs() + add; // exact: few bits
        let t = if m >= HF_LIMIT {
            f64::INFINITY
        } else if dst == DataType::UB {
            // BF8 keeps two mantissa bits of the HF exponent range.
            trunc_bf8(m)
        } else {
            float::round(to, m, 0, Rounding::Rz, true)
        };
        t.copysign(x)
    };
    let bits = if dst == DataType::UB {
        let h = float::encode(Fmt::Hf, r) as u16;
        if r.is_nan() {
            (((h >> 8) as u8) | 0x02) as u64
        } else {
            (h >> 8) as u64
        }
    } else {
        float::encode(Fmt::Hf, r)
    };
    Some(AluOut::bits(bits))
}

/// 2^16: HF's and BF8's exponent range ends here; a sum at or past it is infinite.
const HF_LIMIT: f64 = 65536.0;

/// Truncate a magnitude to BF8 (E5M2: HF's exponent, two mantissa bits).
fn trunc_bf8(m: f64) -> f64 {
    let h = float::round(Fmt::Hf, m, 0, Rounding::Rz, true);
    let bits = float::encode(Fmt::Hf, h) as u16 & 0xff00;
    float::decode(Fmt::Hf, bits as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf8_rounding_ties_to_even() {
        // 1.0 (0x3c00) + half a BF8 ulp (0x0080): tie -> even (stays 0x3c).
        assert_eq!(hf_to_bf8_rne(0x3c80), 0x3c);
        assert_eq!(hf_to_bf8_rne(0x3d80), 0x3e);
        assert_eq!(hf_to_bf8_rne(0x3c81), 0x3d);
        assert_eq!(hf_to_bf8_rne(0x7bff), 0x7c); // rounds to infinity
        assert_eq!(hf_to_bf8_rne(0x7e00) & 0x7f, 0x7e); // NaN stays NaN
    }

    #[test]
    fn native_fast_path_agrees_with_the_exact_path() {
        let env = FpEnv::IEEE_DENORMS;
        let fs = [
            0.0f32,
            -0.0,
            1.0,
            -1.5,
            1.0e-40,
            -3.0e-39,
            f32::MIN_POSITIVE,
            f32::MAX,
            -f32::MAX,
            1.0 + f32::EPSILON,
            3.0e38,
            1.0 / 3.0,
            7.0e-20,
            f32::INFINITY,
        ];
        for &x in &fs {
            for &y in &fs {
                for &z in &fs[..6] {
                    let s = [
                        Val::new(DataType::F, x.to_bits() as u64),
                        Val::new(DataType::F, y.to_bits() as u64),
                        Val::new(DataType::F, z.to_bits() as u64),
                    ];
                    let d = |v: f32| Val::new(DataType::DF, (v as f64 / 3.0).to_bits());
                    let sd = [d(x), d(y), d(z)];
                    for op in [AluOp::Add, AluOp::Mul, AluOp::Mad] {
                        for sat in [false, true] {
                            for (fmt, dt, v) in
                                [(Fmt::F, DataType::F, &s), (Fmt::Df, DataType::DF, &sd)]
                            {
                                if let Some(fast) = native(op, fmt, dt, v, sat, &env) {
                                    let exact = arith_exact(op, fmt, dt, v, sat, &env);
                                    assert_eq!(fast, exact, "{op:?} {x} {y} {z} sat={sat} {fmt:?}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn tf32_rounding() {
        assert_eq!(f_to_tf32_rne(0x3f80_1000), 0x3f80_0000);
        assert_eq!(f_to_tf32_rne(0x3f80_3000), 0x3f80_4000);
        assert_eq!(f_to_tf32_rne(0x0000_0001), 0);
    }
}
