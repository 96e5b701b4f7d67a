//! DPAS in the thread mapping: one call of the runtime's `dpas_run` (shaders/dpas.wgsl)
//! with the instruction's shape and operand offsets known at translation time. DPAS
//! reads every channel's rows at once, so a kernel with it keeps the thread mapping
//! (`lanes::ineligible`).

use super::{chen_expr, Emit, TranslateError};
use crate::interp::alu::{dpas_check, DpasShape, Precision};
use crate::interp::prepare::{PField, PInst, Src};
use crate::interp::thread::{ffld, fint};
use crate::ir::DataType;

/// The runtime's accumulator type code (shaders/dpas.wgsl).
fn acc_code(t: DataType) -> u32 {
    match t {
        DataType::F => 2,
        DataType::HF => 3,
        DataType::BF => 4,
        _ => 1,
    }
}

pub fn emit(em: &mut Emit, inst: &PInst, grf_bytes: u32) -> Result<(), TranslateError> {
    let bad = |what: String| TranslateError::Unsupported {
        index: inst.index,
        op: inst.op.spec_name(),
        what,
    };
    let n = inst.exec.size as u32;
    let prec = |name: &str| {
        Precision::from_code(fint(inst, name))
            .ok_or_else(|| bad(format!("precision code {} for {name}", fint(inst, name))))
    };
    let shape = DpasShape {
        w: prec("W")?,
        a: prec("A")?,
        depth: fint(inst, "SD") as u32,
        repeat: fint(inst, "RC") as u32,
        exec_size: n,
    };
    if 4 * n != grf_bytes {
        return Err(bad(format!(
            "execution size {n} on a {grf_bytes}-byte GRF (a row is one GRF)"
        )));
    }
    let raw = |name: &str| match ffld(inst, name) {
        Some(PField::Raw(off, ty)) => (*off, *ty),
        _ => (None, DataType::UD),
    };
    let (dst, dty) = raw("Dst");
    let (s0, s0ty) = raw("Src0");
    let (s1, _) = raw("Src1");
    if s1.is_none() {
        return Err(bad("a null Src1".into()));
    }
    let s2 = match ffld(inst, "Src2") {
        Some(PField::Src(Src::Direct { off, .. })) => *off,
        _ => return Err(bad("an indirect or immediate Src2".into())),
    };
    dpas_check(shape, dty, s0.map(|_| s0ty)).map_err(|e| bad(e.to_string()))?;
    let Some(dst) = dst else {
        return Ok(()); // a null destination: nothing to write
    };
    em.line(&format!("let ce = {};", chen_expr(inst, "em")));
    em.line(&format!(
        "dpas_run({dst}u, {}u, {}u, {}u, {}u, {s2}u, {}u, {}u, {}u, {}u, {n}u, ce);",
        s0.unwrap_or(0),
        s0.map_or(0, |_| acc_code(s0ty)),
        acc_code(dty),
        s1.unwrap_or(0),
        shape.w as u32,
        shape.a as u32,
        shape.depth,
        shape.repeat,
    ));
    Ok(())
}
