//! The OpenCL ABI of IGC: where each kernel argument and implicit value lives in the
//! thread payload, which binding-table slot each buffer uses, and the program-scope
//! data. [`KernelAbi`] is the model; `launch` turns it plus arguments into memory and
//! per-thread payload images.
//!
//! [`patch_tokens::decode_bin`] decodes it from ocloc's `.bin` (what the product uses);
//! [`KernelAbi::load`] reads the corpus' `abi.json`, which the tests use to cross-check
//! the decoder on every variant.

pub mod launch;
pub mod patch_tokens;

use serde::Deserialize;
use std::path::Path;

#[derive(Clone, Debug, Deserialize)]
pub struct Slot {
    pub payload_offset: u32,
    pub size: u32,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Fragment {
    pub source_offset: u32,
    pub payload_offset: u32,
    pub size: u32,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Arg {
    pub index: u32,
    pub name: String,
    pub kind: String,
    #[serde(default)]
    pub payload_offset: Option<u32>,
    #[serde(default)]
    pub size: Option<u32>,
    #[serde(default)]
    pub type_size: Option<u32>,
    #[serde(default)]
    pub bti: Option<u32>,
    #[serde(default)]
    pub stateless_pointer: Option<Slot>,
    #[serde(default)]
    pub buffer_offset: Option<Slot>,
    #[serde(default)]
    pub fragments: Option<Vec<Fragment>>,
    #[serde(default)]
    pub slm_offset_slot: Option<Slot>,
    #[serde(default)]
    pub slm_alignment: Option<u32>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct ImplicitArg {
    pub kind: String,
    #[serde(default)]
    pub dim: Option<u32>,
    pub payload_offset: u32,
    pub size: u32,
    #[serde(default)]
    pub per_thread_private_size: Option<u32>,
    #[serde(default)]
    pub per_simt_lane: Option<bool>,
    #[serde(default)]
    pub bti: Option<u32>,
    #[serde(default)]
    pub buffer_index: Option<u32>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct LocalIds {
    pub dim: String,
    pub payload_offset: u32,
    pub size: u32,
}

#[derive(Clone, Debug, Deserialize)]
pub struct PerThreadPayload {
    pub local_ids: Vec<LocalIds>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct SlmInfo {
    pub inline_bytes: u32,
}

#[derive(Clone, Debug, Deserialize)]
pub struct ProgramToken {
    pub name: String,
    #[serde(default)]
    pub buffer_index: Option<u32>,
    #[serde(default)]
    pub inline_data_file: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct ProgramInfo {
    #[serde(default)]
    pub program_patch_tokens: Vec<ProgramToken>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct ScratchInfo {
    #[serde(default)]
    pub per_thread_scratch_bytes: u32,
}

/// One kernel's ABI.
#[derive(Clone, Debug, Deserialize)]
pub struct KernelAbi {
    pub kernel: String,
    pub simd: u32,
    pub grf_bytes: u32,
    pub per_thread_payload: PerThreadPayload,
    pub args: Vec<Arg>,
    pub implicit_args: Vec<ImplicitArg>,
    pub slm: SlmInfo,
    #[serde(default)]
    pub scratch: Option<ScratchInfo>,
    pub program: ProgramInfo,
    /// Program-scope data carried inline by the `.bin` (name of the token, buffer
    /// index, bytes); empty when the ABI came from `abi.json` (whose data is in files).
    #[serde(skip)]
    pub program_data: Vec<(String, u32, Vec<u8>)>,
}

#[derive(Debug, thiserror::Error)]
pub enum AbiError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: line {line}, column {column}: {msg}")]
    Json {
        path: String,
        line: usize,
        column: usize,
        msg: String,
    },
    #[error("{0}")]
    Launch(String),
}

impl KernelAbi {
    /// Decode the ABI of `kernel` from the `kernel.bin` of a compiled variant folder.
    pub fn from_bin(
        variant_dir: &Path,
        kernel: &str,
        grf_bytes: u32,
    ) -> Result<KernelAbi, AbiError> {
        let path = variant_dir.join("kernel.bin");
        let bytes = std::fs::read(&path).map_err(|source| AbiError::Io {
            path: path.display().to_string(),
            source,
        })?;
        patch_tokens::decode_bin(&bytes, kernel, grf_bytes)
    }

    /// Read the `abi.json` of a compiled variant folder.
    pub fn load(variant_dir: &Path) -> Result<KernelAbi, AbiError> {
        let path = variant_dir.join("abi.json");
        let text = std::fs::read_to_string(&path).map_err(|source| AbiError::Io {
            path: path.display().to_string(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|e| AbiError::Json {
            path: path.display().to_string(),
            line: e.line(),
            column: e.column(),
            msg: e.to_string(),
        })
    }
}
