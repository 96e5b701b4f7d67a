//! What each f64 and 64-bit integer operation becomes: the two [`Stage`]s.

use naga::{
    BinaryOperator as B, Expression, Handle, Literal, MathFunction as M, Scalar, ScalarKind, Type,
    TypeInner, UnaryOperator as U, VectorSize,
};

use super::rewrite::{Action, Cx, Stage};

pub(super) struct F64Stage;
pub(super) struct Int64Stage;
pub(super) const F64: F64Stage = F64Stage;
pub(super) const INT64: Int64Stage = Int64Stage;

fn scalar(t: &TypeInner) -> Option<Scalar> {
    match *t {
        TypeInner::Scalar(s) => Some(s),
        _ => None,
    }
}

/// The 64-bit scalar of a vector, matrix or array element type, which no stage lowers.
fn wide_in_aggregate(t: &TypeInner, width_of: impl Fn(Scalar) -> bool) -> bool {
    match *t {
        TypeInner::Vector { scalar, .. } | TypeInner::Matrix { scalar, .. } => width_of(scalar),
        TypeInner::Atomic(s) => width_of(s),
        _ => false,
    }
}

/// Whether an `As` with this `convert` yields a 64-bit value: a conversion to width 8,
/// or a bit cast of a 64-bit source.
fn yields_64_bits(convert: Option<u8>, from: Option<Scalar>) -> bool {
    convert == Some(8) || (convert.is_none() && from.is_some_and(|s| s.width == 8))
}

const FLOAT64: Scalar = Scalar {
    kind: ScalarKind::Float,
    width: 8,
};

fn is_f64(t: &TypeInner) -> bool {
    scalar(t) == Some(FLOAT64)
}

impl Stage for F64Stage {
    fn name(&self) -> &'static str {
        "f64"
    }

    fn replace_type(&self, ty: &Type) -> Option<Type> {
        is_f64(&ty.inner).then(|| Type {
            name: Some("f64_bits".into()),
            inner: TypeInner::Scalar(Scalar::U64),
        })
    }

    fn global_literal(&self, lit: &Literal) -> Option<Action> {
        match *lit {
            Literal::F64(x) => Some(Action::Replace(Expression::Literal(Literal::U64(
                x.to_bits(),
            )))),
            _ => None,
        }
    }

    fn decide(&self, cx: &Cx, h: Handle<Expression>) -> Result<Action, String> {
        let call = |name, args: Vec<Handle<Expression>>| Ok(Action::Call(name, args));
        let e = &cx.fun.expressions[h];
        match *e {
            Expression::Literal(ref l) => Ok(self.global_literal(l).unwrap_or(Action::Keep)),
            Expression::Binary { op, left, right } if is_f64(cx.ty(left)) => {
                let name = match op {
                    B::Add => "f64_add",
                    B::Subtract => "f64_sub",
                    B::Multiply => "f64_mul",
                    B::Divide => "f64_div",
                    B::Equal => "f64_eq",
                    B::NotEqual => "f64_ne",
                    B::Less => "f64_lt",
                    B::LessEqual => "f64_le",
                    B::Greater => "f64_gt",
                    B::GreaterEqual => "f64_ge",
                    other => return Err(format!("the f64 operator {other:?}")),
                };
                call(name, vec![left, right])
            }
            Expression::Unary {
                op: U::Negate,
                expr,
            } if is_f64(cx.ty(expr)) => call("f64_neg", vec![expr]),
            Expression::As {
                expr,
                kind,
                convert,
            } => {
                let from = scalar(cx.ty(expr));
                let from_f64 = from == Some(FLOAT64);
                let to_f64 = kind == ScalarKind::Float && yields_64_bits(convert, from);
                if !from_f64 && !to_f64 {
                    return Ok(Action::Keep);
                }
                if from_f64 && to_f64 {
                    // f64(x) of an f64: the same bits.
                    return Ok(Action::Replace(Expression::As {
                        expr,
                        kind: ScalarKind::Uint,
                        convert: Some(8),
                    }));
                }
                match convert {
                    // Bit casts between f64 and a 64-bit integer: a cast between integers.
                    None => Ok(Action::Replace(Expression::As {
                        expr,
                        kind: if kind == ScalarKind::Float {
                            ScalarKind::Uint
                        } else {
                            kind
                        },
                        convert: None,
                    })),
                    Some(w) if from_f64 => match (kind, w) {
                        (ScalarKind::Float, 4) => call("f64_to_f32", vec![expr]),
                        (ScalarKind::Sint, 8) => call("f64_to_i64", vec![expr]),
                        (ScalarKind::Uint, 8) => call("f64_to_u64", vec![expr]),
                        (ScalarKind::Sint, 4) => call("f64_to_i32", vec![expr]),
                        (ScalarKind::Uint, 4) => call("f64_to_u32", vec![expr]),
                        _ => Err(format!("the conversion of f64 to {kind:?}{}", w * 8)),
                    },
                    Some(_) => match from {
                        Some(Scalar::F32) => call("f64_from_f32", vec![expr]),
                        Some(Scalar::I64) => call("f64_from_i64", vec![expr]),
                        Some(Scalar::U64) => call("f64_from_u64", vec![expr]),
                        Some(Scalar::I32) => call("f64_from_i32", vec![expr]),
                        Some(Scalar::U32) => call("f64_from_u32", vec![expr]),
                        other => Err(format!("the conversion of {other:?} to f64")),
                    },
                }
            }
            Expression::Math {
                fun,
                arg,
                arg1,
                arg2,
                ..
            } if is_f64(cx.ty(arg)) => {
                let name = match fun {
                    M::Abs => "f64_abs",
                    M::Min => "f64_min",
                    M::Max => "f64_max",
                    M::Clamp => "f64_clamp",
                    M::Floor => "f64_floor",
                    M::Ceil => "f64_ceil",
                    M::Trunc => "f64_trunc",
                    M::Round => "f64_round",
                    M::Sqrt => "f64_sqrt",
                    M::Fma => "f64_fma",
                    other => return Err(format!("the f64 function {other:?}")),
                };
                call(
                    name,
                    [Some(arg), arg1, arg2].into_iter().flatten().collect(),
                )
            }
            _ if wide_in_aggregate(cx.ty(h), |s| s == FLOAT64) => {
                Err("a vector, matrix or atomic of f64".to_string())
            }
            _ => Ok(Action::Keep),
        }
    }
}

fn int64(t: &TypeInner) -> Option<bool> {
    match scalar(t)? {
        Scalar::I64 => Some(true),
        Scalar::U64 => Some(false),
        _ => None,
    }
}

impl Stage for Int64Stage {
    fn name(&self) -> &'static str {
        "int64"
    }

    fn replace_type(&self, ty: &Type) -> Option<Type> {
        let signed = int64(&ty.inner)?;
        let base = ty
            .name
            .clone()
            .unwrap_or_else(|| if signed { "i64" } else { "u64" }.into());
        Some(Type {
            name: Some(format!("emu_{base}")),
            inner: TypeInner::Vector {
                size: VectorSize::Bi,
                scalar: Scalar::U32,
            },
        })
    }

    fn global_literal(&self, lit: &Literal) -> Option<Action> {
        match *lit {
            Literal::I64(v) => Some(Action::Const64 {
                bits: v as u64,
                signed: true,
            }),
            Literal::U64(v) => Some(Action::Const64 {
                bits: v,
                signed: false,
            }),
            _ => None,
        }
    }

    fn decide(&self, cx: &Cx, h: Handle<Expression>) -> Result<Action, String> {
        let call = |name, args: Vec<Handle<Expression>>| Ok(Action::Call(name, args));
        let pick = |signed: bool, s: &'static str, u: &'static str| if signed { s } else { u };
        let e = &cx.fun.expressions[h];
        match *e {
            Expression::Literal(ref l) => Ok(self.global_literal(l).unwrap_or(Action::Keep)),
            Expression::Binary { op, left, right } => {
                let Some(signed) = int64(cx.ty(left)) else {
                    return Ok(Action::Keep);
                };
                // Bitwise operators work on the pair as they are: no call.
                if matches!(op, B::And | B::InclusiveOr | B::ExclusiveOr) {
                    return Ok(Action::Replace(Expression::Binary { op, left, right }));
                }
                let name = match op {
                    B::Add => "e64_add",
                    B::Subtract => "e64_sub",
                    B::Multiply => "e64_mul",
                    B::Divide => pick(signed, "i64_div", "u64_div"),
                    B::Modulo => pick(signed, "i64_rem", "u64_rem"),
                    B::ShiftLeft => "e64_shl",
                    B::ShiftRight => pick(signed, "i64_shr", "u64_shr"),
                    B::Equal => "e64_eq",
                    B::NotEqual => "e64_ne",
                    B::Less => pick(signed, "i64_lt", "u64_lt"),
                    B::LessEqual => pick(signed, "i64_le", "u64_le"),
                    B::Greater => pick(signed, "i64_gt", "u64_gt"),
                    B::GreaterEqual => pick(signed, "i64_ge", "u64_ge"),
                    other => return Err(format!("the 64-bit integer operator {other:?}")),
                };
                call(name, vec![left, right])
            }
            Expression::Unary { op, expr } if int64(cx.ty(expr)).is_some() => match op {
                U::Negate => call("e64_neg", vec![expr]),
                U::BitwiseNot => Ok(Action::Replace(Expression::Unary {
                    op: U::BitwiseNot,
                    expr,
                })),
                U::LogicalNot => Err("logical not of a 64-bit integer".into()),
            },
            Expression::As {
                expr,
                kind,
                convert,
            } => {
                let from = scalar(cx.ty(expr));
                let from64 = from.and_then(|s| int64(&TypeInner::Scalar(s)));
                let to64 = matches!(kind, ScalarKind::Sint | ScalarKind::Uint)
                    && yields_64_bits(convert, from);
                match (from64, to64) {
                    (None, false) => Ok(Action::Keep),
                    // Between i64 and u64: the same bits.
                    (Some(_), true) => Ok(Action::Replace(Expression::As {
                        expr,
                        kind: ScalarKind::Uint,
                        convert: None,
                    })),
                    (Some(signed), false) => match (kind, convert) {
                        // The low word.
                        (ScalarKind::Uint, Some(4)) => {
                            Ok(Action::Replace(Expression::AccessIndex {
                                base: expr,
                                index: 0,
                            }))
                        }
                        (ScalarKind::Sint, Some(4)) => call("e64_to_i32", vec![expr]),
                        (ScalarKind::Float, Some(4)) => {
                            call(pick(signed, "i64_to_f32", "u64_to_f32"), vec![expr])
                        }
                        (ScalarKind::Bool, _) => call("e64_to_bool", vec![expr]),
                        _ => Err(format!(
                            "the conversion of a 64-bit integer to {kind:?} {convert:?}"
                        )),
                    },
                    (None, true) => match from {
                        // Extension by the destination's signedness, as naga's SPIR-V.
                        Some(Scalar::U32) => call(
                            pick(kind == ScalarKind::Sint, "i64_from_u32", "u64_from_u32"),
                            vec![expr],
                        ),
                        Some(Scalar::I32) => call(
                            pick(kind == ScalarKind::Sint, "i64_from_i32", "u64_from_i32"),
                            vec![expr],
                        ),
                        Some(Scalar::BOOL) => call("u64_from_bool", vec![expr]),
                        Some(Scalar::F32) => call(
                            pick(kind == ScalarKind::Sint, "i64_from_f32", "u64_from_f32"),
                            vec![expr],
                        ),
                        other => Err(format!("the conversion of {other:?} to a 64-bit integer")),
                    },
                }
            }
            Expression::Math {
                fun,
                arg,
                arg1,
                arg2,
                ..
            } => {
                let Some(signed) = int64(cx.ty(arg)) else {
                    return Ok(Action::Keep);
                };
                let name = match fun {
                    M::Abs => pick(signed, "i64_abs", "u64_abs"),
                    M::Min => pick(signed, "i64_min", "u64_min"),
                    M::Max => pick(signed, "i64_max", "u64_max"),
                    M::Clamp => pick(signed, "i64_clamp", "u64_clamp"),
                    M::CountOneBits => "e64_popcount",
                    other => return Err(format!("the 64-bit integer function {other:?}")),
                };
                call(
                    name,
                    [Some(arg), arg1, arg2].into_iter().flatten().collect(),
                )
            }
            _ if wide_in_aggregate(cx.ty(h), |s| s.width == 8) => {
                Err("a vector, matrix or atomic of 64-bit values".to_string())
            }
            _ => Ok(Action::Keep),
        }
    }
}
