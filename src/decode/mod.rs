//! Decoders into the kernel IR: the binary `.isa` (CISA) reader and the `.visaasm`
//! text parser. [`load_bytes`] picks the format by the `CISA` magic number, so every
//! command accepts either.

pub mod binary;
pub mod text;

use crate::ir::Program;

/// Either decoder's error.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Binary(#[from] binary::BinaryError),
    #[error(transparent)]
    Text(#[from] text::ParseError),
    #[error("input is neither a vISA binary (no 'CISA' magic) nor UTF-8 vISA text: {0}")]
    NotUtf8(std::str::Utf8Error),
}

/// Decode a vISA program from bytes: binary if it starts with the `CISA` magic,
/// text otherwise. `grf_bytes` is the target platform's GRF size (32, or 64 on PVC).
pub fn load_bytes(bytes: &[u8], grf_bytes: u32) -> Result<Program, LoadError> {
    if bytes.starts_with(b"CISA") {
        Ok(binary::decode_isa(bytes, grf_bytes)?)
    } else {
        let text = std::str::from_utf8(bytes).map_err(LoadError::NotUtf8)?;
        Ok(text::parse_visaasm(text, grf_bytes)?)
    }
}
