//! ALU instructions: the WGSL twin of the interpreter's `Thread::alu` and `element`.
//! Every element follows the same steps as the golden model: raw bits, numeric value
//! with the source modifier, the operation in the execution type (integers in
//! extended precision, floats in F, DF, or f64 rounded to HF/BF), then the
//! destination conversion with saturation and the cr0 rounding and denormal modes.

use super::operand::{self, dst_range, is_float, num, src_elem, to_bits, Elem, Num};
use super::{chen_expr, Emit, TranslateError};
use crate::interp::alu::{default_nan, float_layout, flushes_denormal_sources};
use crate::interp::prepare::{Dst, PInst, Src};
use crate::ir::{DataType, Modifier};
use crate::isa::Opcode;

/// The widest float among the sources and the destination (interp `float_exec_type`).
fn float_exec_type(dst: DataType, srcs: &[DataType]) -> Option<DataType> {
    let mut t: Option<DataType> = None;
    for &ty in srcs.iter().chain(std::iter::once(&dst)) {
        let ty = if ty == DataType::VF { DataType::F } else { ty };
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

/// What an element computes: a number to convert to the destination, or final bits.
enum Out {
    N(Num),
    Bits(String),
    /// Bits of the destination and of the second result (addc, subb, madw).
    Two(String, String),
    /// A number, and for the second destination (a predicate) whether the
    /// destination's value is NaN, infinite or zero (INVM's and RSQTM's early out).
    Eo(Num),
}

/// A float operation given as an f64 formula over `x`, `y`, `z`, (for F) the f32
/// formula used in round-to-nearest mode and (for DF, when it differs) the formula
/// exact on any adapter (`ddiv`, `dsqrt` of soft_f64.wgsl).
struct FOp<'a> {
    f64: &'a str,
    f32: Option<&'a str>,
    df: Option<&'a str>,
}

/// `f` with its operands `$x`, `$y`, `$z` replaced by `a`, `b`, `c`.
fn subst(f: &str, a: &str, b: &str, c: &str) -> String {
    f.replace("$x", &format!("({a})"))
        .replace("$y", &format!("({b})"))
        .replace("$z", &format!("({c})"))
}

/// Operand `k` of a float operation (0.0 where the instruction has fewer).
fn operand(v: &[Num], k: usize) -> Num {
    v.get(k).cloned().unwrap_or(Num::F32("0.0".into()))
}

fn fop(exec: Option<DataType>, v: &[Num], op: FOp) -> Result<Num, String> {
    let (a, b, c) = (operand(v, 0), operand(v, 1), operand(v, 2));
    Ok(match exec {
        Some(DataType::F) => {
            let (x, y, z) = (a.as_f32(), b.as_f32(), c.as_f32());
            let wide = subst(
                op.f64,
                &format!("w32({x})"),
                &format!("w32({y})"),
                &format!("w32({z})"),
            );
            match op.f32 {
                // Round-to-nearest runs natively; the helpers take the f64 path only
                // in a directed rounding mode.
                Some(f) => Num::F32(format!("{f}({x}, {y}, {z}, md)")),
                None => Num::F32(format!("f64_to_f32_rm({wide}, md)")),
            }
        }
        Some(DataType::DF) | None => Num::F64(subst(
            op.df.unwrap_or(op.f64),
            &a.as_f64(),
            &b.as_f64(),
            &c.as_f64(),
        )),
        Some(DataType::HF) => Num::F64(format!(
            "round_hf({})",
            subst(op.f64, &a.as_f64(), &b.as_f64(), &c.as_f64())
        )),
        Some(_) => Num::F64(format!(
            "round_bf({})",
            subst(op.f64, &a.as_f64(), &b.as_f64(), &c.as_f64())
        )),
    })
}

/// Transcendental math: f32 builtins (within the pages' ULP bounds), no f64 forms.
fn fmath(exec: Option<DataType>, v: &[Num], f: &str) -> Result<Num, String> {
    let (x, y) = (operand(v, 0).as_f32(), operand(v, 1).as_f32());
    let e = f
        .replace("$x", &format!("({x})"))
        .replace("$y", &format!("({y})"));
    Ok(match exec {
        Some(DataType::F) => Num::F32(e),
        Some(DataType::HF) => Num::F64(format!("round_hf(w32({e}))")),
        Some(DataType::BF) => Num::F64(format!("round_bf(w32({e}))")),
        Some(DataType::DF) => {
            return Err("double-precision transcendental math has no WGSL form".into())
        }
        _ => Num::F64(format!("w32({e})")),
    })
}

/// An HF operation whose f64 formula (over `$x`, `$y`, `$z`) is exact or rounded to
/// odd, rounded once to HF in the cr0 mode `md`.
fn hf_in_mode(v: &[Num], f: &str) -> Num {
    let x = |k: usize| operand(v, k).as_f64();
    Num::F64(format!(
        "round_hf_rm({}, md)",
        subst(f, &x(0), &x(1), &x(2))
    ))
}

/// An operation with one f64 formula and no f32 form.
fn df_op(f: &str) -> FOp<'_> {
    FOp {
        f64: f,
        f32: None,
        df: None,
    }
}

/// Division in any float type; DF's is exact on any adapter.
const DIV: FOp = FOp {
    f64: "fdiv64($x, $y)",
    f32: None,
    df: Some("ddiv($x, $y)"),
};

/// RSQRT's and RSQTM's reciprocal square root (RSQTM's F rounds to nearest apart).
const RSQRT: FOp = FOp {
    f64: "fdiv64(1.0lf, fsqrt64($x))",
    f32: None,
    df: Some("ddiv(1.0lf, dsqrt($x))"),
};

/// DIVM's and INVM's division: DF's in the cr0 mode.
const DIV_IN_MODE: FOp = FOp {
    f64: "fdiv64($x, $y)",
    f32: None,
    df: Some("ddiv_rm($x, $y, md)"),
};

fn int_bits(t: DataType) -> u32 {
    8 * t.size()
}

/// One element: the interpreter's `element`. `alt`: the WGSL condition under which
/// %cr0 asks for ALT mode, where the kernel may set it ([`super::alt_mode`]).
fn element(
    op: Opcode,
    dty: DataType,
    e: &[Elem],
    ints: &[u64],
    alt: Option<&str>,
) -> Result<Out, String> {
    let tys: Vec<DataType> = e.iter().map(|x| x.ty).collect();
    let fexec = float_exec_type(dty, &tys);
    // ALT mode touches F operations on float operands only (`alu::exec` takes the
    // others apart, without it).
    let alt = alt.filter(|_| {
        fexec == Some(DataType::F) && is_float(dty) && tys.iter().all(|&t| is_float(t))
    });
    let Some(cond) = alt else {
        return element_in_mode(op, dty, e, ints, fexec, None);
    };
    let out = element_in_mode(op, dty, e, ints, fexec, Some(cond))?;
    let clamps = matches!(
        op,
        Opcode::Add
            | Opcode::Mul
            | Opcode::Mad
            | Opcode::Lrp
            | Opcode::Rndd
            | Opcode::Rndu
            | Opcode::Rnde
            | Opcode::Rndz
            | Opcode::Div
            | Opcode::Inv
            | Opcode::Sqrt
            | Opcode::Rsqrt
            | Opcode::Exp
            | Opcode::Log
            | Opcode::Sin
            | Opcode::Cos
            | Opcode::Pow
            | Opcode::Divm
            | Opcode::Sqrtm
            | Opcode::Invm
            | Opcode::Rsqtm
    );
    if !clamps {
        return Ok(out);
    }
    // Rounded to F already (RND*'s f64 values are F values or infinite).
    let fin = |x: Num| Num::F32(format!("alt_fin32({}, {cond})", x.as_f32()));
    Ok(match out {
        Out::N(x) => Out::N(fin(x)),
        Out::Eo(x) => Out::Eo(fin(x)),
        other => other,
    })
}

/// [`element`] in the execution type `fexec` it found, with `alt_abs` the ALT
/// condition LOG, RSQ and SQRT take |src| under.
fn element_in_mode(
    op: Opcode,
    dty: DataType,
    e: &[Elem],
    ints: &[u64],
    fexec: Option<DataType>,
    alt_abs: Option<&str>,
) -> Result<Out, String> {
    use Opcode::*;
    // Denormal sources a flushing %cr0 mode turns into zeros (`alu::flush_source`);
    // tidy.rs drops the flush where %cr0 is known to keep them.
    let flush = fexec.is_some() && flushes_denormal_sources(op);
    let v: Vec<Num> = e
        .iter()
        .map(|x| match (num(x), x.ty) {
            (Num::F32(s), DataType::F) if flush => {
                Num::F32(format!("flush32({s}, ((cr & 0x80u) != 0u))"))
            }
            (Num::F64(s), DataType::DF) if flush => {
                Num::F64(format!("flush64({s}, ((cr & 0x40u) != 0u))"))
            }
            (Num::F64(s), DataType::HF) if flush => {
                Num::F64(format!("flush_h({s}, ((cr & 0x400u) != 0u))"))
            }
            (n, _) => n,
        })
        .collect();
    let v = match (alt_abs, v.split_first()) {
        (Some(cond), Some((x, rest))) if matches!(op, Sqrt | Rsqrt | Log) => {
            let x = Num::F32(format!("alt_abs32({}, {cond})", x.as_f32()));
            std::iter::once(x).chain(rest.iter().cloned()).collect()
        }
        _ => v,
    };
    let n = |k: usize| {
        v.get(k)
            .cloned()
            .unwrap_or(Num::I("i64(imm(0u, 0u))".into()))
    };
    let (a, b, c) = (n(0), n(1), n(2));
    let raw = |k: usize| e.get(k).map_or("0lu".to_string(), |x| x.raw.clone());
    let rty = |k: usize| e.get(k).map_or(DataType::UD, |x| x.ty);
    let int2 = |f: &str| -> Num {
        Num::I(
            f.replace("$x", &format!("({})", a.as_int()))
                .replace("$y", &format!("({})", b.as_int())),
        )
    };
    let arith = |f64f: &'static str, f32f: &'static str, intf: &str| -> Result<Num, String> {
        match fexec {
            Some(_) => fop(
                fexec,
                &v,
                FOp {
                    f64: f64f,
                    f32: Some(f32f),
                    df: None,
                },
            ),
            None => Ok(Num::I(
                intf.replace("$x", &format!("({})", a.as_int()))
                    .replace("$y", &format!("({})", b.as_int()))
                    .replace("$z", &format!("({})", c.as_int())),
            )),
        }
    };
    let out = match op {
        Mov | Fcvt => Out::N(a),
        // DF in a directed cr0 mode rounds on the bits (`dadd_rm` and the others,
        // soft_f64.wgsl); tidy.rs calls their round-to-nearest twins where the mode is
        // known: the native sum, the native product rounded on its own where the
        // compiler would fuse it into a following add (`keep64`), `dfma`.
        // HF: the f64 sum and product of halves are exact, mad's sum is rounded to
        // odd, so one rounding in the cr0 mode follows (the interpreter's `alu::exec`).
        Add => Out::N(match fexec {
            Some(DataType::DF) => fop(fexec, &v, df_op("dadd_rm($x, $y, md)"))?,
            Some(DataType::HF) => hf_in_mode(&v, "$x + $y"),
            _ => arith("$x + $y", "fadd32", "$x + $y")?,
        }),
        Mul => Out::N(match fexec {
            Some(DataType::DF) => fop(fexec, &v, df_op("dmul_rm($x, $y, md)"))?,
            Some(DataType::HF) => hf_in_mode(&v, "$x * $y"),
            _ => arith("$x * $y", "fmul32", "$x * $y")?,
        }),
        Mad => Out::N(match fexec {
            Some(DataType::DF) => fop(fexec, &v, df_op("dfma_rm($x, $y, $z, md)"))?,
            Some(DataType::HF) => hf_in_mode(&v, "add_odd($x * $y, $z)"),
            _ => arith("dfma($x, $y, $z)", "fmad32", "$x * $y + $z")?,
        }),
        Add3 => Out::N(Num::I(format!(
            "({} + {} + {})",
            a.as_int(),
            b.as_int(),
            c.as_int()
        ))),
        AddrAdd => Out::N(int2("($x + $y)")),
        Avg => Out::N(int2("(($x + $y + 1li) >> 1u)")),
        Div => match fexec {
            Some(_) => Out::N(fop(fexec, &v, DIV)?),
            None => Out::N(int2("select($x / $y, -1li, $y == 0li)")),
        },
        Mod => Out::N(int2("select($x % $y, $x, $y == 0li)")),
        // The IEEE macros in the cr0 mode: DF on the bits where the mode is directed
        // (`ddiv_rm`, `dsqrt_rm`; tidy.rs calls `ddiv`/`dsqrt` in round-to-nearest),
        // F through the f64 result (exact: see `fop`). INVM divides src0 by src1 (its
        // page) and RSQTM rounds to nearest (the interpreter's `ieee_macro`); both
        // give the early-out bit for their predicate destination.
        Divm | Invm => {
            let q = fop(fexec, &v, DIV_IN_MODE)?;
            if op == Invm {
                Out::Eo(q)
            } else {
                Out::N(q)
            }
        }
        Mulh => {
            let bits = int_bits(rty(0)).max(int_bits(rty(1)));
            if bits > 32 {
                return Err("mulh of 64-bit operands needs 128-bit products".into());
            }
            if !rty(0).is_signed_int() && !rty(1).is_signed_int() {
                Out::N(Num::I(format!(
                    "i64((u64({}) * u64({})) >> 32u)",
                    a.as_int(),
                    b.as_int()
                )))
            } else {
                Out::N(int2("(($x * $y) >> 32u)"))
            }
        }
        Madw => {
            let r = format!("({} * {} + {})", a.as_int(), b.as_int(), c.as_int());
            let lo = to_bits(&Num::I(r.clone()), dty, false);
            let hi = to_bits(&Num::I(format!("({r} >> 32u)")), dty, false);
            Out::Two(lo, hi)
        }
        Addc => {
            let r = format!(
                "((u64({}) & 0xfffffffflu) + (u64({}) & 0xfffffffflu))",
                a.as_int(),
                b.as_int()
            );
            Out::Two(format!("({r} & 0xfffffffflu)"), format!("({r} >> 32u)"))
        }
        Subb => {
            let (x, y) = (
                format!("u32(u64({}) & 0xfffffffflu)", a.as_int()),
                format!("u32(u64({}) & 0xfffffffflu)", b.as_int()),
            );
            Out::Two(
                format!("u64({x} - {y})"),
                format!("select(0lu, 1lu, {x} < {y})"),
            )
        }
        And => Out::N(int2("($x & $y)")),
        Or => Out::N(int2("($x | $y)")),
        Xor => Out::N(int2("($x ^ $y)")),
        Not => Out::N(int2("(~$x)")),
        Shl | Shr | Asr => {
            let wide = int_bits(rty(0)) == 64 || int_bits(dty) == 64;
            let count = format!(
                "u32(u64({}) & {}lu)",
                b.as_int(),
                if wide { 63 } else { 31 }
            );
            let sbits = int_bits(rty(0));
            let mask = if sbits >= 64 {
                u64::MAX
            } else {
                (1u64 << sbits) - 1
            };
            Out::N(Num::I(match op {
                Shl => format!("i64(u64({}) << {count})", a.as_int()),
                Shr => format!("i64(({} & {mask}lu) >> {count})", raw(0)),
                _ => format!("({} >> {count})", a.as_int()),
            }))
        }
        Rol | Ror => {
            let bits = int_bits(dty).max(16);
            Out::Bits(format!(
                "rol({}, u32({}), {bits}u, {})",
                raw(0),
                b.as_int(),
                op == Rol
            ))
        }
        Cbit => Out::N(Num::I(format!(
            "i64(countOneBits(u32({r} & 0xfffffffflu)) + countOneBits(u32({r} >> 32u)))",
            r = raw(0)
        ))),
        // u32 results widen through u64: naga's SPIR-V sign-extends `i64(u32)`.
        Fbl => Out::N(Num::I(format!(
            "i64(u64(firstTrailingBit(u32({} & 0xfffffffflu))))",
            raw(0)
        ))),
        Fbh => Out::N(Num::I(format!(
            "i64(u64(fbh(u32({} & 0xfffffffflu), {})))",
            raw(0),
            rty(0).is_signed_int()
        ))),
        Lzd => Out::N(Num::I(format!(
            "i64(u64(countLeadingZeros(u32({} & 0xfffffffflu))))",
            raw(0)
        ))),
        Bfrev => Out::N(Num::I(format!(
            "i64(u64(reverseBits(u32({} & 0xfffffffflu))))",
            raw(0)
        ))),
        Bfe => Out::N(Num::I(format!(
            "i64(u64(bfe(u32(u64({}) & 0xfffffffflu), u32(u64({}) & 0xfffffffflu), u32({} & 0xfffffffflu))))",
            a.as_int(),
            b.as_int(),
            raw(2)
        ))),
        Bfi => Out::N(Num::I(format!(
            "i64(u64(bfi(u32(u64({}) & 0xfffffffflu), u32(u64({}) & 0xfffffffflu), u32({} & 0xfffffffflu), u32({} & 0xfffffffflu))))",
            a.as_int(),
            b.as_int(),
            raw(2),
            if e.len() > 3 { raw(3) } else { "0lu".into() }
        ))),
        Bfn => {
            let ctrl = ints.first().copied().unwrap_or(0);
            let (x, y, z) = (raw(0), raw(1), raw(2));
            let mut terms = Vec::new();
            for idx in 0..8u32 {
                if (ctrl >> idx) & 1 == 0 {
                    continue;
                }
                let pick = |bit: u32, s: &str| {
                    if (idx >> bit) & 1 == 1 {
                        format!("({s})")
                    } else {
                        format!("(~({s}))")
                    }
                };
                terms.push(format!("({} & {} & {})", pick(0, &x), pick(1, &y), pick(2, &z)));
            }
            let r = if terms.is_empty() {
                "0lu".to_string()
            } else {
                terms.join(" | ")
            };
            Out::N(Num::I(format!("i64({r})")))
        }
        Cmp => {
            let rel = ints.first().copied().unwrap_or(0);
            let r = match (&a, &b) {
                // `rel_i` with its relation resolved here.
                (Num::I(x), Num::I(y)) => {
                    let op = ["==", "!=", ">", ">=", "<"].get(rel as usize).unwrap_or(&"<=");
                    format!("(({x}) {op} ({y}))")
                }
                (Num::F32(x), Num::F32(y)) => format!("rel_f32({rel}u, {x}, {y})"),
                _ => format!("rel_f({rel}u, {}, {})", a.as_f64(), b.as_f64()),
            };
            Out::Bits(format!("select(0lu, 1lu, {r})"))
        }
        MinMax => {
            let max = ints.first().copied().unwrap_or(0) == 1;
            match fexec {
                Some(t) => {
                    let r = format!("fminmax64({}, {}, {max})", a.as_f64(), b.as_f64());
                    Out::N(Num::F64(match t {
                        DataType::F => format!("w32(n32({r}))"),
                        DataType::HF => format!("round_hf({r})"),
                        DataType::BF => format!("round_bf({r})"),
                        _ => r,
                    }))
                }
                None => Out::N(Num::I(format!(
                    "{}({}, {})",
                    if max { "max" } else { "min" },
                    a.as_int(),
                    b.as_int()
                ))),
            }
        }
        Frc => Out::N(Num::F64(format!(
            "({x} - floor64({x}))",
            x = a.as_f64()
        ))),
        // On the bits, not WGSL's f64 builtins, which llvmpipe gets wrong (runtime.wgsl).
        Rndd => Out::N(Num::F64(format!("floor64({})", a.as_f64()))),
        Rndu => Out::N(Num::F64(format!("ceil64({})", a.as_f64()))),
        Rndz => Out::N(Num::F64(format!("trunc64({})", a.as_f64()))),
        Rnde => Out::N(Num::F64(format!("round_even64({})", a.as_f64()))),
        Inv => Out::N(fop(
            fexec,
            &v,
            FOp {
                f64: "fdiv64(1.0lf, $x)",
                f32: None,
                df: Some("ddiv(1.0lf, $x)"),
            },
        )?),
        Sqrt => Out::N(fop(
            fexec,
            &v,
            FOp {
                f64: "fsqrt64($x)",
                f32: None,
                df: Some("dsqrt($x)"),
            },
        )?),
        Sqrtm => Out::N(fop(
            fexec,
            &v,
            FOp {
                f64: "fsqrt64($x)",
                f32: None,
                df: Some("dsqrt_rm($x, md)"),
            },
        )?),
        Rsqtm => Out::Eo(match fexec {
            Some(DataType::F) => Num::F32(format!(
                "f64_to_f32_rm(fdiv64(1.0lf, fsqrt64(w32({}))), 0u)",
                operand(&v, 0).as_f32()
            )),
            _ => fop(fexec, &v, RSQRT)?,
        }),
        Rsqrt => Out::N(fop(fexec, &v, RSQRT)?),
        Exp => Out::N(fmath(fexec, &v, "fexp2($x)")?),
        Log => Out::N(fmath(fexec, &v, "flog2($x)")?),
        Sin => Out::N(fmath(fexec, &v, "fsin($x)")?),
        Cos => Out::N(fmath(fexec, &v, "cos($x)")?),
        Pow => Out::N(fmath(fexec, &v, "fpow($x, $y)")?),
        Lrp => Out::N(fop(
            fexec,
            &v,
            FOp {
                f64: "$x * $y + (1.0lf - $x) * $z",
                f32: Some("flrp32"),
                df: None,
            },
        )?),
        Dp4a => {
            let mut acc = a.as_int();
            for k in 0..4 {
                acc = format!(
                    "({acc} + dp4a_byte({}, {k}u, {}) * dp4a_byte({}, {k}u, {}))",
                    raw(1),
                    rty(1).is_signed_int(),
                    raw(2),
                    rty(2).is_signed_int()
                );
            }
            Out::N(Num::I(acc))
        }
        other => {
            return Err(format!(
                "{} is not an ALU instruction the translator knows",
                other.spec_name()
            ))
        }
    };
    Ok(out)
}

/// Emit one ALU instruction.
pub fn emit(em: &mut Emit, inst: &PInst, grf_bytes: u32) -> Result<(), TranslateError> {
    use Opcode::*;
    let unsupported = |what: String| TranslateError::Unsupported {
        index: inst.index,
        op: inst.op.spec_name(),
        what,
    };
    let n = inst.exec.size as u32;
    let moff = inst.exec.mask.channel_offset();
    let (dsts, srcs, ints) = inst.alu_operands();
    let Some(&dst) = dsts.first() else {
        return Err(unsupported("no destination".into()));
    };
    let dty = dst.ty();
    let sat = dst.sat();
    let pred_view = if n == 1 && !matches!(dst, Dst::Pred(_)) {
        None
    } else {
        Some(moff)
    };
    em.line(&format!("let ce = {};", chen_expr(inst, "em")));
    match em.cr0_value {
        Some(v) => em.line(&format!("let cr = {v:#x}u;")),
        None => em.line(&format!("let cr = g32({}u);", em.cr0)),
    }
    em.line("let md = (cr >> 4u) & 3u;");
    // Where the kernel may run in ALT mode: its condition, `true` where %cr0 is known.
    let alt = match em.cr0_value {
        _ if !em.alt_mode => None,
        Some(v) if v & 1 == 0 => None,
        Some(_) => Some("true".to_string()),
        None => Some(super::alt_mode::ALT.to_string()),
    };
    match inst.op {
        Setp => {
            let s = srcs
                .first()
                .ok_or_else(|| unsupported("no source".into()))?;
            let scalar = matches!(s, Src::Imm { .. })
                || matches!(
                    s,
                    Src::Direct {
                        vs: 0,
                        w: 1,
                        hs: 0,
                        ..
                    }
                );
            let e = operand::src_elem_at(em, s, n, pred_view);
            if scalar {
                em.open_elems(n);
                em.line(&format!("let v = (({}) >> i) & 1lu;", e.raw));
            } else {
                em.open_enabled_elems(n, "ce");
                em.line(&format!("let v = ({}) & 1lu;", e.raw));
            }
            let lane = if matches!(dst, Dst::Pred(_)) {
                format!("i + {moff}u")
            } else {
                "i".to_string()
            };
            em.line(&operand::store_at(em, dst, &lane, "v"));
            em.close();
            return Ok(());
        }
        Movs => {
            if let (Dst::State { id }, Some(s)) = (dst, srcs.first()) {
                let v = match s {
                    Src::State { id: sid, .. } => format!("surf_code({sid}u)"),
                    _ => format!("(u32({}) & 0x7fffffffu)", src_elem(s, 1, Some(0)).raw),
                };
                em.line(&format!("let i = 0u; sv[{id}u] = {v};"));
                return Ok(());
            }
        }
        _ => {}
    }
    // Sources, and whether results must be buffered (dst overlaps a source unevenly).
    let elems: Vec<Elem> = srcs
        .iter()
        .map(|s| operand::src_elem_at(em, s, n, pred_view))
        .collect();
    // A per-lane instruction reads its one element's sources before it stores.
    let two_pass = two_pass(inst, grf_bytes) && !em.lane_elems;
    if srcs.is_empty() && inst.op != Movs {
        return Err(unsupported("no source operand".into()));
    }
    if inst.op == Sel {
        em.line(&format!(
            "let en = {};",
            if inst.exec.mask.no_mask {
                format!("{}u", full(n))
            } else {
                format!("(em >> {moff}u) & {}u", full(n))
            }
        ));
        let pb = match inst.pred {
            Some(p) => {
                let b = format!("((pr[{}u] >> {moff}u) & {}u)", p.id.0, full(n));
                if p.inverse {
                    format!("(~{b} & {}u)", full(n))
                } else {
                    b
                }
            }
            None => format!("{}u", full(n)),
        };
        em.line(&format!("let pb = {pb};"));
    }
    let enabled = if inst.op == Sel { "en" } else { "ce" };
    if two_pass {
        em.line("var tv: array<u64, 32>;");
        em.line("var tx: array<u64, 32>;");
    }
    em.open_enabled_elems(n, enabled);
    // Bind each source's raw bits once.
    let mut bound = Vec::new();
    for (k, e) in elems.iter().enumerate() {
        em.line(&format!("let s{k} = {};", e.raw));
        bound.push(Elem {
            raw: format!("s{k}"),
            ty: e.ty,
            m: e.m,
        });
    }
    let (v, extra): (String, Option<String>) = if inst.op == Sel {
        let a = num(&bound[0]);
        let b = num(bound.get(1).unwrap_or(&bound[0]));
        let b_elem = bound.get(1).unwrap_or(&bound[0]);
        let pick = |x: &Num, e: &Elem| keep_moved_nan(to_bits(x, dty, sat), e, dty, sat);
        (
            format!(
                "select({}, {}, (pb & (1u << i)) != 0u)",
                pick(&b, b_elem),
                pick(&a, &bound[0])
            ),
            None,
        )
    } else if inst.op == Movs {
        (bound[0].raw.clone(), None)
    } else if inst.op == Mov
        && bound[0].ty == DataType::UQ
        && bound[0].m == Modifier::None
        && is_float(dty)
        && !sat
    {
        (operand::uq_to_float_bits(&bound[0].raw, dty), None)
    } else {
        let moves = matches!(inst.op, Mov | Fcvt);
        match element(inst.op, dty, &bound, &ints, alt.as_deref()).map_err(unsupported)? {
            Out::N(x) if moves => {
                let bits = keep_moved_nan(to_bits(&x, dty, sat), &bound[0], dty, sat);
                match &alt {
                    // ALT mode: a DF -> F conversion that overflows gives ±fmax.
                    Some(c) if dty == DataType::F && bound[0].ty == DataType::DF => {
                        (format!("alt_fin_df32({bits}, {}, {c})", bound[0].raw), None)
                    }
                    _ => (bits, None),
                }
            }
            Out::N(x) if em.nan_blind => (fenced(to_bits(&x, dty, sat), dty), None),
            Out::N(x) => (canonical_nan(to_bits(&x, dty, sat), dty), None),
            Out::Bits(b) if inst.op == Cmp => (b, None),
            Out::Bits(b) if em.nan_blind => (fenced(b, dty), None),
            Out::Bits(b) => (canonical_nan(b, dty), None),
            Out::Two(a, b) => (a, Some(b)),
            Out::Eo(x) => {
                // INVM and RSQTM do not saturate (their pages), as `ieee_macro`.
                let bits = to_bits(&x, dty, false);
                let bits = if em.nan_blind {
                    fenced(bits, dty)
                } else {
                    canonical_nan(bits, dty)
                };
                let eo = match float_layout(dty) {
                    Some((sign, inf)) => format!(
                        "select(0lu, 1lu, (v & ~{sign:#x}lu) == 0lu || (v & ~{sign:#x}lu) >= {inf:#x}lu)"
                    ),
                    None => return Err(unsupported(format!("{dty:?} destination"))),
                };
                (bits, Some(eo))
            }
        }
    };
    em.line(&format!("let v = {v};"));
    let second = extra.map(|x| {
        em.line(&format!("let x = {x};"));
        "x"
    });
    // Where results go: cmp writes predicate bits at the mask offset, or all ones.
    // A predicate's bit for channel i is i + the mask offset (cmp's, and INVM's and
    // RSQTM's second destination).
    let lane_of = |d: &Dst| {
        if matches!(d, Dst::Pred(_)) {
            format!("i + {moff}u")
        } else {
            "i".to_string()
        }
    };
    let is_pred = matches!(dst, Dst::Pred(_));
    let lane = lane_of(dst);
    let value = if inst.op == Cmp && !is_pred {
        let ones = if dty.size() >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * dty.size())) - 1
        };
        format!("select(0lu, {ones}lu, (v & 1lu) != 0lu)")
    } else if inst.op == Cmp {
        "(v & 1lu)".to_string()
    } else {
        "v".to_string()
    };
    let mut stores = vec![operand::store_at(
        em,
        dst,
        &lane,
        if two_pass { "tv[i]" } else { &value },
    )];
    if let Some(x) = second {
        let xs = if two_pass { "tx[i]" } else { x };
        if let Some(d2) = dsts.get(1) {
            stores.push(operand::store_at(em, d2, &lane_of(d2), xs));
        }
        if inst.op == Madw {
            if let Dst::Direct { off, ty, hs, sat } = dst {
                let lo_bytes = n * ty.size() * hs;
                let hi = Dst::Direct {
                    off: off + lo_bytes.div_ceil(grf_bytes) * grf_bytes,
                    ty: *ty,
                    hs: *hs,
                    sat: *sat,
                };
                stores.push(operand::store_at(em, &hi, "i", xs));
            }
        }
    }
    if two_pass {
        em.line(&format!("tv[i] = {value};"));
        if second.is_some() {
            em.line("tx[i] = x;");
        }
        em.close();
        em.open_enabled_elems(n, enabled);
    }
    for s in stores {
        em.line(&s);
    }
    em.close();
    Ok(())
}

/// A float result that keeps the adapter's NaN, behind the same barrier as
/// `canon_nan`'s (`fence`, runtime.wgsl): no driver rewrites it with its readers.
fn fenced(bits: String, t: DataType) -> String {
    if float_layout(t).is_some() {
        format!("fence({bits})")
    } else {
        bits
    }
}

/// The interpreter's `alu::canonical_nan`: a NaN result of float arithmetic becomes
/// the positive quiet NaN without payload (adapters fill NaNs as they like).
fn canonical_nan(bits: String, t: DataType) -> String {
    match (float_layout(t), default_nan(t)) {
        (Some((sign, inf)), Some(nan)) => {
            format!("canon_nan({bits}, {sign:#x}lu, {inf:#x}lu, {nan:#x}lu)")
        }
        _ => bits,
    }
}

/// The interpreter's `alu::moved_nan`: MOV and SEL of a NaN between equal float types
/// keep its bits, with the sign the source modifier gives.
fn keep_moved_nan(conv: String, e: &Elem, dty: DataType, sat: bool) -> String {
    let Some((sign, inf)) = float_layout(dty) else {
        return conv;
    };
    if sat || e.ty != dty {
        return conv;
    }
    let raw = &e.raw;
    let signed = match e.m {
        Modifier::Neg => format!("({raw} ^ {sign:#x}lu)"),
        Modifier::Abs => format!("({raw} & ~{sign:#x}lu)"),
        Modifier::NegAbs => format!("({raw} | {sign:#x}lu)"),
        _ => raw.clone(),
    };
    format!("select({conv}, {signed}, ({raw} & ~{sign:#x}lu) > {inf:#x}lu)")
}

/// Whether an instruction's results must be buffered before any is stored: its
/// destination overlaps a source other than element for element, or an operand is
/// indirect (it may read what the instruction writes).
pub fn two_pass(inst: &PInst, grf_bytes: u32) -> bool {
    let n = inst.exec.size as u32;
    let (dsts, srcs, _) = inst.alu_operands();
    let Some(&dst) = dsts.first() else {
        return false;
    };
    let indirect_src = srcs.iter().any(|s| matches!(s, Src::Indirect { .. }));
    matches!(dst, Dst::Indirect { .. })
        || (dst_range(dst, n).is_some() && indirect_src)
        || direct_overlap(inst, grf_bytes)
}

/// [`two_pass`] for the direct operands alone: the destination overlaps a direct
/// source other than element for element.
pub fn direct_overlap(inst: &PInst, _grf_bytes: u32) -> bool {
    let n = inst.exec.size as u32;
    let (dsts, srcs, _) = inst.alu_operands();
    let Some(&dst) = dsts.first() else {
        return false;
    };
    let Some((d0, d1)) = dst_range(dst, n) else {
        return false;
    };
    srcs.iter().any(|s| {
        let Src::Direct { ty, .. } = s else {
            return false;
        };
        let (s0, s1) = operand::direct_range(s, n).unwrap_or((0, 0));
        let overlaps = s0 < d1 && d0 < s1;
        // Element for element: element i of the source is element i of the
        // destination, so each is read before it is written.
        let same = if let Dst::Direct {
            off: doff,
            ty: dt,
            hs: dhs,
            ..
        } = dst
        {
            ty.size() == dt.size()
                && (0..n).all(|i| operand::elem_offset(s, i) == Some(doff + i * dhs * ty.size()))
        } else {
            false
        };
        overlaps && !same
    })
}

pub fn full(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}
