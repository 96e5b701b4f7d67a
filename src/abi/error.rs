//! Errors of the ABI decoder and of the launch layout.

/// What went wrong at one byte of a `.bin`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BinProblem {
    #[error("expected {what}, found the end of the data")]
    Truncated { what: &'static str },
    #[error(
        "expected an ELF written by ocloc or a patch-token program (magic 'INTC'), found neither"
    )]
    NotAProgram,
    #[error("ELF class {class}, data encoding {data}: expected 64-bit little-endian (2, 1)")]
    ElfKind { class: u8, data: u8 },
    #[error("the ELF has no device-binary section (type 0xff000005) holding the 'INTC' program")]
    NoDeviceBinary,
    #[error("expected the magic 'INTC' (0x494e5443), found {found:#x}")]
    BadMagic { found: u32 },
    #[error("ICBE version {found}: only 1081 (ocloc 22.43 / IGC 1.0.12504) is understood")]
    Version { found: u32 },
    #[error("patch token {token} claims {size} bytes, {left} are left in its list")]
    TokenSize { token: u32, size: u64, left: usize },
    #[error("patch token {token} ({name}) has {size} bytes, expected at least {expected}")]
    TokenTooShort {
        token: u32,
        name: &'static str,
        size: usize,
        expected: usize,
    },
    #[error("kernel `{kernel}`: {what} runs past the end of the file")]
    KernelPastEnd { kernel: String, what: &'static str },
    #[error("kernel `{kernel}`: execution environment gives SIMD {simd}, expected 8, 16 or 32")]
    BadSimd { kernel: String, simd: u32 },
    #[error("{what} {value} is out of range (at most {max})")]
    OutOfRange {
        what: &'static str,
        value: u64,
        max: u64,
    },
}

/// A problem that is not tied to one byte of the `.bin`: a missing kernel, a launch that
/// cannot be laid out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LaunchProblem {
    #[error("kernel.bin has no kernel named `{name}` (it has: {known})")]
    NoKernel { name: String, known: String },
    #[error("GRF size {grf_bytes}: expected 32 or 64 bytes")]
    BadGrf { grf_bytes: u32 },
    #[error("kernel `{kernel}` has no {token} patch token")]
    MissingToken { kernel: String, token: &'static str },
    #[error("kernel `{kernel}`: the payload has {what}, which the emulator does not lay out")]
    UnsupportedPayload { kernel: String, what: &'static str },
    #[error("implicit argument `DATA_PARAMETER_BUFFER` type {dp_type} is not supported")]
    UnsupportedImplicit { dp_type: u32 },
    #[error(
        "global size {global} is not a multiple of local size {local} in dimension {dim}, \
         and the kernel was not compiled for non-uniform work-groups (it reads the local \
         size but not the enqueued one, as IGC compiles OpenCL 1.2 code; build it with \
         -cl-std=CL2.0 or later, or pick a global size the local size divides)"
    )]
    NotUniform { dim: usize, global: u64, local: u64 },
    #[error("local size {local} in dimension {dim}: expected 1 to 65535")]
    BadLocal { dim: usize, local: u64 },
    #[error(
        "the NDRange has non-uniform work-groups (global size not a multiple of the local \
         size), which run as {pieces} launches of uniform ones; {what} takes uniform \
         NDRanges only"
    )]
    Pieces { pieces: usize, what: &'static str },
    #[error("the case has no argument {index} (`{name}`) that the kernel takes")]
    MissingArg { index: u32, name: String },
    #[error("argument {index} (`{name}`): {kind} is not supported by the emulator")]
    Unsupported {
        index: u32,
        name: String,
        kind: String,
    },
    #[error("{what} needs {bytes} bytes, more than the emulator's limit of {limit}")]
    TooLarge {
        what: String,
        bytes: u64,
        limit: u64,
    },
    #[error(
        "payload slot of {what} at byte {offset} (+{size}) is outside the payload limit {limit}"
    )]
    SlotOutOfRange {
        what: String,
        offset: u32,
        size: u32,
        limit: u32,
    },
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
    /// Decoding `kernel.bin` failed at `offset` (from the start of the file).
    #[error("kernel.bin at byte {offset:#x}: {problem}")]
    Bin { offset: usize, problem: BinProblem },
    #[error("{0}")]
    Launch(LaunchProblem),
    /// A case argument could not be read (input file, scalar bytes, local size).
    #[error(transparent)]
    Case(#[from] crate::corpus::case::CaseError),
}

impl AbiError {
    pub(crate) fn bin(offset: usize, problem: BinProblem) -> AbiError {
        AbiError::Bin { offset, problem }
    }
}
