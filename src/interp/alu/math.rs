//! The math-unit instructions (INV LOG EXP SQRT RSQRT SIN COS POW DIV) and the IEEE
//! macros (DIVM SQRTM INVM RSQTM).
//!
//! Precision. The pages state no error bound for the math unit. The model computes
//! each function in f64 (Rust's libm: within 1 ULP of f64) and rounds that once in the
//! execution format, so an F or HF result is within 0.5 + 2^-28 ULP of the exact value
//! (1 ULP bound tested); INV, SQRT, DIV and the F/DF SQRTM, DIVM are correctly rounded.
//! Rounding: the spec says nothing of the math unit and %cr0, so this follows the
//! interpreter's and the GPU path's one rule: F results round in the %cr0 mode (IGC's
//! integer division runs INV under RZ), HF, BF and DF results to nearest. DIV is
//! `src0 / src1` as its page's pseudo-code says. In ALT mode LOG, RSQRT and SQRT take
//! |src0| and an infinite F result becomes the largest finite one (2_datatypes).
use super::float::{self, Fmt};
use super::float_ops::{fin, finish};
use super::types::{AluOp, AluOut, FpEnv, Rounding, Val};
use crate::ir::DataType;

/// DIV on floats: the quotient, correctly rounded ([`math_mode`]).
pub fn div(exec: Fmt, dst: DataType, s: &[Val], sat: bool, env: &FpEnv) -> u64 {
    let (a, b) = (fin(s[0], env), fin(s[1], env));
    finish(quotient(a, b), exec, dst, s, sat, math_mode(exec, env), env)
}

/// The rounding the math unit applies: the %cr0 mode for F, to nearest otherwise.
fn math_mode(exec: Fmt, env: &FpEnv) -> Rounding {
    if exec == Fmt::F {
        env.mode()
    } else {
        Rounding::Rne
    }
}

/// `a / b` in f64 and the sign of what rounding dropped (a - q*b is exact; its sign
/// over b's is the tail's), for one correct rounding in any mode.
fn quotient(a: f64, b: f64) -> (f64, i8) {
    let q = a / b;
    let rem = (-q).mul_add(b, a);
    let t = if q.is_finite() && q != 0.0 || (q == 0.0 && a != 0.0) {
        float::sign(rem) * float::sign(b)
    } else {
        0
    };
    (q, t)
}

/// The f64 value of a math-unit function.
#[inline]
fn function(op: AluOp, a: f64, b: f64, alt: bool) -> f64 {
    let abs_in_alt = |x: f64| if alt { x.abs() } else { x };
    match op {
        AluOp::Inv => 1.0 / a,
        AluOp::Sqrt => abs_in_alt(a).sqrt(),
        AluOp::Rsqrt => 1.0 / abs_in_alt(a).sqrt(),
        AluOp::Log => abs_in_alt(a).log2(),
        AluOp::Exp => a.exp2(),
        AluOp::Sin => a.sin(),
        AluOp::Cos => a.cos(),
        // C's pow special cases (pow(x, 0) = 1, pow(1, y) = 1, ...).
        _ => a.powf(b),
    }
}

/// INV LOG EXP SQRT RSQRT SIN COS (one source) and POW (two).
pub fn unary_or_pow(op: AluOp, exec: Fmt, dst: DataType, s: &[Val], sat: bool, env: &FpEnv) -> u64 {
    let a = fin(s[0], env);
    let b = s.get(1).map_or(0.0, |v| fin(*v, env));
    let alt = env.alt && exec == Fmt::F;
    let r = function(op, a, b, alt);
    // rsqrt(-0) is -inf and sqrt(-0) is -0 (IEEE); f64 already does both.
    finish((r, 0), exec, dst, s, sat, math_mode(exec, env), env)
}

/// DIVM SQRTM (correctly rounded in the %cr0 mode), INVM RSQTM (the same values as
/// the initial approximation, plus the early-out bit: the result is NaN, inf or 0).
pub fn ieee_macro(
    op: AluOp,
    exec: Fmt,
    dst: DataType,
    s: &[Val],
    sat: bool,
    env: &FpEnv,
) -> AluOut {
    let a = fin(s[0], env);
    let b = s.get(1).map_or(1.0, |v| fin(*v, env));
    let mode = if matches!(op, AluOp::Rsqtm) {
        Rounding::Rne
    } else {
        env.mode()
    };
    let exact = match op {
        // DF in a directed mode: on integers (df_exact.rs), where the nearest result's
        // remainder can underflow and lose its sign.
        AluOp::Sqrtm if exec == Fmt::Df && a.is_finite() && a > 0.0 => {
            (super::df_exact::sqrt(a, mode), 0)
        }
        AluOp::Divm | AluOp::Invm
            if exec == Fmt::Df && a.is_finite() && b.is_finite() && a != 0.0 && b != 0.0 =>
        {
            (super::df_exact::div(a, b, mode), 0)
        }
        AluOp::Sqrtm => {
            let r = a.sqrt();
            let rem = (-r).mul_add(r, a);
            (r, if r.is_finite() { float::sign(rem) } else { 0 })
        }
        AluOp::Divm | AluOp::Invm => quotient(a, b),
        _ => (1.0 / a.sqrt(), 0),
    };
    let sat = sat && matches!(op, AluOp::Sqrtm | AluOp::Divm);
    let bits = finish(exact, exec, dst, s, sat, mode, env);
    let extra = if matches!(op, AluOp::Invm | AluOp::Rsqtm) {
        let v = float::decode(Fmt::of(dst).unwrap_or(exec), bits);
        (v.is_nan() || v.is_infinite() || v == 0.0) as u64
    } else {
        0
    };
    AluOut { dst: bits, extra }
}
