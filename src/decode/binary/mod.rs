//! The binary `.isa` (CISA) decoder (being built).

use crate::ir::Program;

#[derive(Debug, thiserror::Error)]
#[error("at byte offset {offset:#x}: {message}")]
pub struct BinaryError {
    pub offset: usize,
    pub message: String,
}

pub fn decode_isa(_bytes: &[u8], _grf_bytes: u32) -> Result<Program, BinaryError> {
    Err(BinaryError {
        offset: 0,
        message: "binary decoder not built yet".into(),
    })
}
