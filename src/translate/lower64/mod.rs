//! Exact 64-bit emulation for adapters without `SHADER_F64` or `SHADER_INT64`.
//!
//! The translator writes its modules with native `f64`, `i64` and `u64` (they are the
//! interpreter's extended-precision types). For an adapter that lacks them, this pass
//! rewrites the WGSL on naga's IR, in two stages that each remove one family:
//!
//! 1. **f64 → its bits in a `u64`**: every f64 operation becomes a call into
//!    `shaders/soft_f64.wgsl` (SoftFloat-style, round to nearest even, subnormals
//!    kept); bit casts become no-ops.
//! 2. **i64/u64 → `vec2<u32>`** (low, high word): every 64-bit integer operation
//!    becomes a call into `shaders/soft_i64.wgsl`, with WGSL's wrapping, shifting and
//!    division rules. Stage 1's library is lowered by this stage like any other code.
//!
//! Emulating 64-bit integers implies emulating doubles (their bits are integers).
//! The pass knows nothing of vISA: it is WGSL to WGSL, checked by naga's validator
//! after each stage with the capabilities left, so a module that still needs a
//! missing feature is an error here rather than on the device.

mod rewrite;
mod rules;

use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};

use super::{SOFT_F64, SOFT_I64};

/// Which 64-bit families to emulate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Emulate {
    pub f64: bool,
    pub int64: bool,
}

impl Emulate {
    /// What an adapter with these features needs emulated.
    pub fn for_features(has_f64: bool, has_int64: bool) -> Emulate {
        Emulate {
            f64: !has_f64,
            int64: !has_int64,
        }
        .complete()
    }

    /// Emulating 64-bit integers implies emulating doubles (their bits are integers).
    fn complete(self) -> Emulate {
        Emulate {
            f64: self.f64 || self.int64,
            int64: self.int64,
        }
    }

    pub fn any(self) -> bool {
        self.f64 || self.int64
    }

    /// "f64", "f64+int64" or "none", for notes and reports.
    pub fn describe(self) -> &'static str {
        match (self.f64, self.int64) {
            (_, true) => "f64+int64",
            (true, false) => "f64",
            (false, false) => "none",
        }
    }
}

/// Why a module could not be lowered.
#[derive(Debug, thiserror::Error)]
pub enum LowerError {
    #[error("the WGSL to lower does not parse: {0}")]
    Parse(String),
    #[error("after lowering {stage}, naga rejects the module: {message}")]
    Invalid {
        stage: &'static str,
        message: String,
    },
    #[error("cannot lower {stage} in function '{function}': {what} has no emulation")]
    Unsupported {
        stage: &'static str,
        function: String,
        what: String,
    },
    #[error("writing the lowered WGSL failed: {0}")]
    Write(String),
}

/// Rewrite `wgsl` so that it needs none of the features `emu` names.
pub fn lower(wgsl: &str, emu: Emulate) -> Result<String, LowerError> {
    if !emu.any() {
        return Ok(wgsl.to_string());
    }
    let emu = emu.complete();
    // Libraries first: naga lets a function call only functions defined before it.
    // Directives (`enable`, `requires`, `diagnostic`) must stay at the very top.
    let (directives, body) = split_directives(wgsl);
    let mut src = directives;
    if emu.int64 {
        src += SOFT_I64;
    }
    // Modules with an exact DF mad carry the soft-double library already.
    if !body.contains("\nfn f64_fma(") {
        src += SOFT_F64;
    }
    src += body;
    let mut module = naga::front::wgsl::parse_str(&src)
        .map_err(|e| LowerError::Parse(e.emit_to_string(&src)))?;
    let all = Capabilities::SHADER_INT64 | Capabilities::FLOAT64;
    let info = validate(&module, all, "nothing", &src)?;
    rewrite::run(&mut module, &info, &rules::F64)?;
    let mut caps = Capabilities::SHADER_INT64;
    let info = validate(&module, caps, "f64", &src)?;
    if emu.int64 {
        rewrite::run(&mut module, &info, &rules::INT64)?;
        caps = Capabilities::empty();
        validate(&module, caps, "int64", &src)?;
    }
    // Drop the library functions nothing calls.
    naga::compact::compact(&mut module, naga::compact::KeepUnused::No);
    let info = validate(&module, caps, "compaction", &src)?;
    naga::back::wgsl::write_string(&module, &info, naga::back::wgsl::WriterFlags::empty())
        .map_err(|e| LowerError::Write(e.to_string()))
}

fn validate(
    module: &naga::Module,
    caps: Capabilities,
    stage: &'static str,
    src: &str,
) -> Result<ModuleInfo, LowerError> {
    Validator::new(ValidationFlags::all(), caps | Capabilities::SUBGROUP)
        .validate(module)
        .map_err(|e| LowerError::Invalid {
            stage,
            message: e.emit_to_string(src),
        })
}

/// The leading directive lines of a WGSL source and the rest.
fn split_directives(wgsl: &str) -> (String, &str) {
    let mut head = String::new();
    let mut rest = wgsl;
    loop {
        let line_end = rest.find('\n').map_or(rest.len(), |i| i + 1);
        let line = rest[..line_end].trim();
        let directive = ["enable ", "requires ", "diagnostic"]
            .iter()
            .any(|d| line.starts_with(d));
        if !(directive || line.is_empty() || line.starts_with("//")) || rest.is_empty() {
            return (head, rest);
        }
        head += &rest[..line_end];
        rest = &rest[line_end..];
    }
}
