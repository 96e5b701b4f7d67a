//! [`exec`]: one element of one ALU instruction. Checks the operand classes the page
//! allows, then hands over to the integer, float or math semantics.

use super::convert;
use super::float::Fmt;
use super::types::{AluError, AluOp, AluOut, FpEnv, TypeList, Val};
use super::{float_ops, int_ops, math};
use crate::ir::DataType;

/// Execute one element of `op`. `srcs` are the element's sources after source
/// modifiers ([`super::apply_src_modifier`]) and immediate unpacking
/// ([`super::unpack_immediate`]), in the page's order (see [`AluOp`] for the
/// operations that take more). `sat` is the destination's saturation, `env` the
/// current %cr0.
#[inline]
pub fn exec(
    op: AluOp,
    dst: DataType,
    srcs: &[Val],
    sat: bool,
    env: &FpEnv,
) -> Result<AluOut, AluError> {
    if srcs.len() != op.arity() {
        return Err(AluError::Arity {
            op: op.name(),
            expected: op.arity(),
            got: srcs.len(),
        });
    }
    use AluOp::*;
    match op {
        // Conversions and selections: any pair of non-packed types.
        Mov => {
            check(op, dst, srcs, !dst.is_packed(), "a non-packed destination")?;
            Ok(AluOut::bits(convert::convert(srcs[0], dst, sat, env)))
        }
        Sel => {
            check(op, dst, srcs, !dst.is_packed(), "a non-packed destination")?;
            let pick = if srcs[2].bits & 1 != 0 {
                srcs[0]
            } else {
                srcs[1]
            };
            Ok(AluOut::bits(convert::convert(pick, dst, sat, env)))
        }
        Cmp(rel) => float_ops::cmp(rel, dst, srcs, env),
        Min | Max => match exec_fmt(op, dst, srcs)? {
            Some(fmt) => Ok(AluOut::bits(float_ops::min_max(
                op == Max,
                fmt,
                dst,
                srcs,
                sat,
                env,
            ))),
            None => Ok(AluOut::bits(int_ops::min_max(op == Max, dst, srcs, sat))),
        },
        // Arithmetic on either integers or floats.
        Add | Mul | Mad => match exec_fmt(op, dst, srcs)? {
            Some(fmt) => Ok(AluOut::bits(float_ops::arith(op, fmt, dst, srcs, sat, env))),
            None => Ok(AluOut::bits(int_ops::arith(op, dst, srcs, sat))),
        },
        Div => match exec_fmt(op, dst, srcs)? {
            Some(fmt) => Ok(AluOut::bits(math::div(fmt, dst, srcs, sat, env))),
            None => Ok(AluOut::bits(int_ops::div_mod(false, dst, srcs, sat))),
        },
        // Float only.
        Exp | Log | Sin | Cos | Sqrt | Rsqrt | Inv | Pow => {
            let fmt = float_only(op, dst, srcs, &[Fmt::Hf, Fmt::F, Fmt::Df])?;
            if fmt == Fmt::Df && !matches!(op, Inv) {
                return Err(types(op, dst, srcs, "F or HF operands"));
            }
            Ok(AluOut::bits(math::unary_or_pow(
                op, fmt, dst, srcs, sat, env,
            )))
        }
        Frc | Rndd | Rndu | Rnde | Rndz | Lrp | Pln => {
            let fmt = float_only(op, dst, srcs, &[Fmt::F])?;
            Ok(AluOut::bits(float_ops::f_only(
                op, fmt, dst, srcs, sat, env,
            )))
        }
        Sqrtm | Divm | Invm | Rsqtm => {
            let fmt = float_only(op, dst, srcs, &[Fmt::F, Fmt::Df])?;
            Ok(math::ieee_macro(op, fmt, dst, srcs, sat, env))
        }
        Fcvt => float_ops::fcvt(dst, srcs[0]).ok_or_else(|| {
            types(
                op,
                dst,
                srcs,
                "UB (BF8) -> HF, HF -> UB, UD (TF32) -> F or F -> UD",
            )
        }),
        Srnd => float_ops::srnd(dst, srcs).ok_or_else(|| {
            types(
                op,
                dst,
                srcs,
                "F -> HF (random UW) or HF -> UB/BF8 (random UB)",
            )
        }),
        // Integer only (BOOL allowed for the logic operations).
        And | Or | Xor | Not => {
            let bools = dst == DataType::Bool && srcs.iter().all(|s| s.ty == DataType::Bool);
            if !bools {
                int_only(op, dst, srcs)?;
            }
            Ok(AluOut::bits(int_ops::logic(op, dst, srcs)))
        }
        _ => {
            int_only(op, dst, srcs)?;
            int_ops::exec_int(op, dst, srcs, sat)
                .ok_or_else(|| types(op, dst, srcs, int_ops::expected_types(op)))
        }
    }
}

fn types(op: AluOp, dst: DataType, srcs: &[Val], expected: &'static str) -> AluError {
    AluError::Types {
        op: op.name(),
        dst,
        srcs: TypeList::of(srcs),
        expected,
    }
}

#[inline]
fn check(
    op: AluOp,
    dst: DataType,
    srcs: &[Val],
    ok: bool,
    expected: &'static str,
) -> Result<(), AluError> {
    if ok {
        Ok(())
    } else {
        Err(types(op, dst, srcs, expected))
    }
}

#[inline]
fn is_int(t: DataType) -> bool {
    t.is_int() || matches!(t, DataType::V | DataType::UV)
}

/// The execution format: `None` for integer operations, else the widest float among
/// the operands (mixed HF/F computes in F). Integer and float sources cannot mix
/// (2_datatypes, Type Conversion); a float execution type needs a float destination.
#[inline]
fn exec_fmt(op: AluOp, dst: DataType, srcs: &[Val]) -> Result<Option<Fmt>, AluError> {
    let mut fmt: Option<Fmt> = None;
    let mut ints = 0;
    for s in srcs {
        match Fmt::of(s.ty) {
            Some(f) => fmt = Some(fmt.map_or(f, |g| g.wider(f))),
            None if is_int(s.ty) => ints += 1,
            None => return Err(types(op, dst, srcs, "integer or float sources")),
        }
    }
    match (fmt, Fmt::of(dst)) {
        (None, None) if is_int(dst) => Ok(None),
        (Some(f), Some(d)) if ints == 0 => Ok(Some(f.wider(d))),
        _ => Err(types(
            op,
            dst,
            srcs,
            "all-integer or all-float operands (no mixing)",
        )),
    }
}

fn float_only(op: AluOp, dst: DataType, srcs: &[Val], allowed: &[Fmt]) -> Result<Fmt, AluError> {
    let expected = match allowed {
        [Fmt::F] => "F operands",
        [Fmt::F, Fmt::Df] => "F or DF operands",
        _ => "float operands",
    };
    match exec_fmt(op, dst, srcs)? {
        Some(f) if allowed.contains(&f) => {
            // DF does not mix with the narrower formats.
            let df = |t: DataType| t == DataType::DF;
            if (f == Fmt::Df) && !(df(dst) && srcs.iter().all(|s| df(s.ty))) {
                return Err(types(op, dst, srcs, "DF operands only"));
            }
            Ok(f)
        }
        _ => Err(types(op, dst, srcs, expected)),
    }
}

fn int_only(op: AluOp, dst: DataType, srcs: &[Val]) -> Result<(), AluError> {
    if is_int(dst) && srcs.iter().all(|s| is_int(s.ty)) {
        Ok(())
    } else {
        Err(types(op, dst, srcs, "integer operands"))
    }
}
