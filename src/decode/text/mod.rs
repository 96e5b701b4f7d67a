//! The `.visaasm` text parser (being built).

use crate::ir::Program;

#[derive(Debug, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

pub fn parse_visaasm(_text: &str, _grf_bytes: u32) -> Result<Program, ParseError> {
    Err(ParseError {
        line: 1,
        column: 1,
        message: "text parser not built yet".into(),
    })
}
