//! Per-element semantics of the EU ALU instructions: pure functions that the
//! interpreter core calls once per enabled channel, after it has fetched the operand
//! elements, and whose returned bits it writes.
//!
//! ```text
//! let v = apply_src_modifier(element, modifier);      // abs / neg / not
//! let v = unpack_immediate(DataType::V, imm, lane);   // packed immediates
//! let op = AluOp::from_opcode(inst.op, &int_fields)?;  // Rel_op, MIN_MAX op, BFN table
//! let out = exec(op, dst_ty, &[a, b], sat, &FpEnv::from_cr0(cr0))?;
//! // out.dst: the destination bits; out.extra: carry, borrow, madw's high half, ...
//! let bits = convert(v, to, sat, &env);               // MOV's conversion alone
//! ```
//!
//! Rules, from 2_datatypes and the instruction pages:
//! - Integers compute in i128 (the "extra precision") and are stored by truncation,
//!   or by the saturation table with `.sat`. Mixed integer types are read by value.
//!   Shift counts use 5 bits, 6 when src0 or dst is 64-bit.
//! - Floats compute exactly and round once to the execution format (the widest float
//!   operand) in the %cr0 rounding mode; mad, lrp and pln are fused. Denormals of F,
//!   DF and HF are kept or flushed (inputs and results) per %cr0 bits 7, 6 and 10.
//!   The common case (F/DF, round to nearest, denormals kept) runs on the host's
//!   f32/f64 operations, which are bit-identical there (tested against the exact path).
//!   Float to integer: NaN -> 0, truncation, clamping. Integer to float and float
//!   narrowing: the %cr0 rounding mode.
//! - The math unit and its precision: see [`math`].
//! - Invalid type combinations are an [`AluError`] naming the operation and the
//!   types; nothing here panics on any input.
//!
//! DPAS is whole-operand, not per element: [`dpas()`] (DPASW, the dual-EU variant,
//! is not modelled). [`AluOp::from_opcode`] maps an instruction to its operation.
//! [`legacy`] keeps the first numeric-value API that `thread.rs` still uses.

mod convert;
mod df_exact;
pub mod dpas;
mod exec;
mod float;
mod float_ops;
mod int_ops;
pub mod legacy;
pub mod math;
mod modifier;
mod types;

pub use convert::convert;
pub use dpas::{check as dpas_check, dpas, DpasShape, Precision};
pub use exec::exec;
pub use legacy::{
    canonical_nan, compare, default_nan, f64_to_f32, float_exec_type, float_layout, flush_source,
    flushes_denormal_sources, fmin_max, is_float, is_nan_bits, modify, moved_nan, num, round_exec,
    to_bits, unpack, val_of, Num,
};
pub use modifier::{apply_src_modifier, unpack_immediate};
pub use types::{AluError, AluOp, AluOut, FpEnv, RelOp, Rounding, TypeList, Val};
