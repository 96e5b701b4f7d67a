//! The kernel IR: a plain, wgpu-free model of a vISA program. Decoders produce it, the
//! printer and the validator read it, the interpreter and the translator consume it.

pub mod instruction;
pub mod kernel;
pub mod link;
pub mod operand;
pub mod types;

pub use instruction::{Field, Instruction};
pub use kernel::*;
pub use operand::*;
pub use types::*;
