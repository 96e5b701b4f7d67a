//! The pieces of the `visa-emu` command line that are worth testing as a library.

pub mod bench;
#[cfg(feature = "gpu")]
pub mod bench_gpu;
pub mod bench_pocl;
pub mod conformance;
pub mod info;
pub mod run;
#[cfg(feature = "gpu")]
pub mod validate;

use crate::decode::{load_bytes, LoadError};
use crate::ir::Program;
use std::path::Path;

/// Why a file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Decode { path: String, source: LoadError },
}

/// Read a `.isa` or `.visaasm` file (the format is detected from its contents).
pub fn load_file(path: &Path, grf_bytes: u32) -> Result<Program, FileError> {
    let bytes = std::fs::read(path).map_err(|source| FileError::Io {
        path: path.display().to_string(),
        source,
    })?;
    load_bytes(&bytes, grf_bytes).map_err(|source| FileError::Decode {
        path: path.display().to_string(),
        source,
    })
}
