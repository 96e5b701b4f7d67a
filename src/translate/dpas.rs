//! DPAS in the thread mapping: one call of the runtime's `dpas_run` (shaders/dpas.wgsl)
//! with the instruction's shape and operand offsets known at translation time. DPAS
//! reads every channel's rows at once, so a kernel with it keeps the thread mapping
//! (`lanes::ineligible`).

use super::{chen_expr, Emit, TranslateError};
use crate::interp::prepare::PInst;
use crate::interp::thread::dpas_operands;
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
    let ops = dpas_operands(inst, grf_bytes).map_err(|what| TranslateError::Unsupported {
        index: inst.index,
        op: inst.op.spec_name(),
        what,
    })?;
    let (s0, s0ty) = ops.src0;
    let Some(dst) = ops.dst.0 else {
        return Ok(()); // a null destination: nothing to write
    };
    em.line(&format!("let ce = {};", chen_expr(inst, "em")));
    em.line(&format!(
        "dpas_run({dst}u, {}u, {}u, {}u, {}u, {}u, {}u, {}u, {}u, {}u, {}u, ce);",
        s0.unwrap_or(0),
        s0.map_or(0, |_| acc_code(s0ty)),
        acc_code(ops.dst.1),
        ops.src1,
        ops.src2,
        ops.shape.w as u32,
        ops.shape.a as u32,
        ops.shape.depth,
        ops.shape.repeat,
        ops.shape.exec_size,
    ));
    Ok(())
}
