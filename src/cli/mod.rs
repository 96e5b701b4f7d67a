//! The pieces of the `visa-emu` command line that are worth testing as a library.

pub mod bench;
#[cfg(feature = "gpu")]
pub mod bench_gpu;
pub mod bench_pocl;
pub mod conformance;
pub mod dump;
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
    /// A binary that does not decode, with the text dump beside it.
    #[error(
        "{path}: {source} (IGC's dumped .isa files leave instruction operands out, see \
         docs/design.md; {text} beside it holds the kernel as text: give that instead)"
    )]
    DecodeWithText {
        path: String,
        source: LoadError,
        text: String,
    },
}

/// Read a `.isa` or `.visaasm` file (the format is detected from its contents), with
/// the stack functions IGC dumps beside it: `NAME_f0.visaasm`, `NAME_f1.visaasm`, ...
/// for `NAME.visaasm` or `NAME.isa` (their objects join the program's functions).
pub fn load_file(path: &Path, grf_bytes: u32) -> Result<Program, FileError> {
    let mut program = load_one(path, grf_bytes)?;
    for f in function_files(path) {
        let p = load_one(&f, grf_bytes)?;
        for o in p.kernels.into_iter().chain(p.functions) {
            // A binary holds its functions already (`visa-emu asm` writes them).
            if !program.functions.iter().any(|g| g.name == o.name) {
                program.functions.push(o);
            }
        }
    }
    Ok(program)
}

/// A variant folder's kernel: `kernel.visaasm` where there is one, else `kernel.isa`
/// (a binary from `visa-emu asm`, or IGC's, whose streams the decoder refuses with the
/// offset where they break).
pub fn variant_kernel(dir: &Path) -> std::path::PathBuf {
    let text = dir.join("kernel.visaasm");
    if text.exists() || !dir.join("kernel.isa").exists() {
        text
    } else {
        dir.join("kernel.isa")
    }
}

/// `visa-emu asm`: read `path` (and its stack functions), write it as a `.isa`.
pub fn assemble(path: &Path, output: &Path, grf_bytes: u32) -> Result<(), String> {
    let p = load_file(path, grf_bytes).map_err(|e| e.to_string())?;
    let bytes = crate::encode::encode_isa(&p).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(output, &bytes).map_err(|e| format!("{}: {e}", output.display()))?;
    eprintln!(
        "visa-emu: wrote {} ({} bytes: {} kernel(s), {} function(s), {} instructions)",
        output.display(),
        bytes.len(),
        p.kernels.len(),
        p.functions.len(),
        p.kernels
            .iter()
            .chain(&p.functions)
            .map(|k| k.body.len())
            .sum::<usize>()
    );
    Ok(())
}

fn load_one(path: &Path, grf_bytes: u32) -> Result<Program, FileError> {
    let bytes = std::fs::read(path).map_err(|source| FileError::Io {
        path: path.display().to_string(),
        source,
    })?;
    load_bytes(&bytes, grf_bytes).map_err(|source| {
        let text = path.with_extension("visaasm");
        if bytes.starts_with(b"CISA") && text.is_file() {
            FileError::DecodeWithText {
                path: path.display().to_string(),
                source,
                text: text.display().to_string(),
            }
        } else {
            FileError::Decode {
                path: path.display().to_string(),
                source,
            }
        }
    })
}

/// `NAME_f0.visaasm`, `NAME_f1.visaasm`, ... beside `NAME.ext`, up to the first gap.
pub fn function_files(path: &Path) -> Vec<std::path::PathBuf> {
    let (Some(dir), Some(stem)) = (path.parent(), path.file_stem()) else {
        return Vec::new();
    };
    let stem = stem.to_string_lossy();
    (0..)
        .map(|n| dir.join(format!("{stem}_f{n}.visaasm")))
        .take_while(|p| p.exists())
        .collect()
}
