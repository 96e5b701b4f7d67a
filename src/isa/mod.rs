//! Static knowledge of the vISA instruction set: the opcode list and the one
//! declarative table of operand schemas that drives the decoder, the text parser, the
//! printer and the validator.

pub mod opcode;
pub mod syntax;
pub mod table;
pub mod text_form;
mod table_gen;

pub use opcode::{Family, Opcode};
