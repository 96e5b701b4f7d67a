//! Static knowledge of the vISA instruction set: the opcode list and the one
//! declarative table of operand schemas that drives the decoder, the text parser, the
//! printer and the validator.

pub mod opcode;
pub mod syntax;
pub mod table;
mod table_gen;
pub mod text_form;

pub use opcode::{Family, Opcode};
