//! `case.json`: kernel, arguments (buffers with their input files, scalars with their
//! exact bytes, `__local` sizes), NDRange, outputs with tolerances, compiled variants.

use crate::abi::image::{ChannelOrder, ChannelType, ImageDesc};
use serde::Deserialize;
use std::path::{Path, PathBuf};

pub use super::compare::{compare, Dtype, Mismatch, Tolerance, ToleranceKind};

/// One field of a by-value struct argument.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct StructField {
    pub name: String,
    pub dtype: String,
    pub offset: u32,
    #[serde(default = "one")]
    pub count: u32,
}

fn one() -> u32 {
    1
}

#[derive(Clone, Debug, Deserialize)]
pub struct CaseArg {
    pub index: u32,
    pub name: String,
    /// `buffer`, `scalar` or `local`.
    pub kind: String,
    /// OpenCL type (`float*`, `uint`, `Params`).
    #[serde(default)]
    pub cl_type: Option<String>,
    #[serde(default)]
    pub dtype: Option<String>,
    /// Elements of a buffer.
    #[serde(default)]
    pub count: Option<u64>,
    /// Bytes of a buffer, or of a `__local` buffer.
    #[serde(default)]
    pub bytes: Option<u64>,
    #[serde(default)]
    pub input_file: Option<String>,
    /// The exact little-endian bytes of a scalar (as passed to `clSetKernelArg`).
    #[serde(default)]
    pub bytes_hex: Option<String>,
    /// The scalar's value as the generator wrote it (informative; `bytes_hex` rules).
    #[serde(default)]
    pub value: Option<serde_json::Value>,
    #[serde(default)]
    pub struct_fields: Option<Vec<StructField>>,
    /// Bytes of a struct argument.
    #[serde(default)]
    pub size: Option<u64>,
    #[serde(default)]
    pub is_output: bool,
    /// Images: shape and format (the input file holds the packed texels).
    #[serde(default)]
    pub image: Option<ImageSpec>,
}

/// An image argument's shape and format, in OpenCL's names.
#[derive(Clone, Debug, Deserialize)]
pub struct ImageSpec {
    /// `1d`, `2d`, `3d`, `1d_array` (layers in `height`) or `2d_array` (layers in
    /// `depth`).
    #[serde(rename = "type")]
    pub image_type: String,
    pub width: u32,
    #[serde(default = "one")]
    pub height: u32,
    #[serde(default = "one")]
    pub depth: u32,
    /// `CL_RGBA`, `CL_R`, ...
    pub channel_order: String,
    /// `CL_FLOAT`, `CL_UNORM_INT8`, ...
    pub channel_type: String,
}

#[derive(Clone, Debug, Deserialize)]
pub struct NdRange {
    pub work_dim: u32,
    pub global_size: Vec<u64>,
    pub local_size: Vec<u64>,
    #[serde(default)]
    pub global_offset: Vec<u64>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Output {
    pub arg: String,
    pub file: String,
    pub dtype: Dtype,
    pub count: u64,
    pub tolerance: Tolerance,
}

/// One compiled variant folder of the case.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Variant {
    pub dir: String,
    pub device: String,
    pub simd: u32,
    /// IGC's default width for this kernel.
    #[serde(default)]
    pub default: bool,
    /// Compiled with the width forced (`IGC_ForceOCLSIMDWidth`).
    #[serde(default)]
    pub forced: bool,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Case {
    #[serde(default)]
    pub name: Option<String>,
    pub kernel: String,
    pub args: Vec<CaseArg>,
    pub ndrange: NdRange,
    pub outputs: Vec<Output>,
    #[serde(default)]
    pub variants: Vec<Variant>,
    #[serde(default)]
    pub reference: Option<String>,
    #[serde(default)]
    pub seed: Option<u64>,
    /// Build options PoCL needs for `kernel.cl` (the reference run's).
    #[serde(default)]
    pub pocl_build_options: Option<String>,
    /// Build options ocloc compiled `kernel.cl` with (`-cl-std=CL2.0` for non-uniform
    /// work-groups).
    #[serde(default)]
    pub ocloc_options: Option<String>,
    #[serde(skip)]
    pub dir: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("{path}: {msg}")]
    Read { path: String, msg: String },
    #[error("{path}: line {line}, column {column}: {msg}")]
    Json {
        path: String,
        line: usize,
        column: usize,
        msg: String,
    },
    #[error(
        "argument `{arg}`: bytes_hex: expected hex digit pairs, found {found:?} at character {at}"
    )]
    BadHex {
        arg: String,
        at: usize,
        found: String,
    },
    #[error("argument `{arg}`: {what}: expected {expected} bytes, found {found}")]
    Size {
        arg: String,
        what: &'static str,
        expected: u64,
        found: u64,
    },
    #[error("argument `{arg}` has no {what}")]
    Missing { arg: String, what: &'static str },
    #[error("argument `{arg}`: {msg}")]
    BadImage { arg: String, msg: String },
    #[error("output `{arg}`: no buffer or image argument of that name")]
    NoOutputArg { arg: String },
}

fn read(path: &Path) -> Result<Vec<u8>, CaseError> {
    std::fs::read(path).map_err(|e| CaseError::Read {
        path: path.display().to_string(),
        msg: e.to_string(),
    })
}

impl Case {
    /// The output `arg` where the case compares it with a tolerance (the results of
    /// transcendental math), not exactly.
    pub fn loose_output(&self, arg: &str) -> Option<&Output> {
        self.outputs
            .iter()
            .find(|o| o.arg == arg && o.tolerance.kind != ToleranceKind::Exact)
    }

    /// Load `case_dir/case.json`.
    pub fn load(case_dir: &Path) -> Result<Case, CaseError> {
        let p = case_dir.join("case.json");
        let text = read(&p)?;
        let text = python_json(&String::from_utf8_lossy(&text));
        let mut c: Case = serde_json::from_str(&text).map_err(|e| CaseError::Json {
            path: p.display().to_string(),
            line: e.line(),
            column: e.column(),
            msg: e.to_string(),
        })?;
        c.dir = case_dir.to_path_buf();
        Ok(c)
    }

    /// The argument named `name`.
    pub fn arg(&self, name: &str) -> Option<&CaseArg> {
        self.args.iter().find(|a| a.name == name)
    }

    /// Variant folders of this case (those `variants` lists), as paths.
    pub fn variant_dirs(&self) -> Vec<PathBuf> {
        self.variants
            .iter()
            .map(|v| self.dir.join(&v.dir))
            .collect()
    }

    /// Initial bytes of a buffer argument: its input file (outputs too: some start
    /// non-zero), or zeros if it has none. The size must match `bytes` when given.
    pub fn input_bytes(&self, a: &CaseArg) -> Result<Vec<u8>, CaseError> {
        let data = match &a.input_file {
            Some(f) => read(&self.dir.join(f))?,
            None => vec![0; a.bytes.unwrap_or(0).min(1 << 30) as usize],
        };
        if let Some(want) = a.bytes {
            if want != data.len() as u64 {
                return Err(CaseError::Size {
                    arg: a.name.clone(),
                    what: "input file",
                    expected: want,
                    found: data.len() as u64,
                });
            }
        }
        Ok(data)
    }

    /// The descriptor of an image argument, checked: a known order and type, a size
    /// that fits (at most 16384 texels a side, 1 GiB in all).
    pub fn image_desc(&self, a: &CaseArg) -> Result<ImageDesc, CaseError> {
        let bad = |msg: String| CaseError::BadImage {
            arg: a.name.clone(),
            msg,
        };
        let spec = a.image.as_ref().ok_or_else(|| CaseError::Missing {
            arg: a.name.clone(),
            what: "image description",
        })?;
        let (dims, array) = match spec.image_type.as_str() {
            "1d" => (1, false),
            "2d" => (2, false),
            "3d" => (3, false),
            "1d_array" => (2, true),
            "2d_array" => (3, true),
            t => {
                return Err(bad(format!(
                    "image type: expected 1d, 2d, 3d, 1d_array or 2d_array, found {t:?}"
                )))
            }
        };
        let order = ChannelOrder::from_name(&spec.channel_order).ok_or_else(|| {
            bad(format!(
                "channel order: expected CL_R, CL_RG, CL_RGBA or CL_BGRA, found {:?}",
                spec.channel_order
            ))
        })?;
        let ty = ChannelType::from_name(&spec.channel_type).ok_or_else(|| {
            bad(format!(
                "channel type: expected one of CL_FLOAT, CL_HALF_FLOAT, CL_UNORM_INT8, \
                 CL_SNORM_INT8, CL_(UN)SIGNED_INT8/16/32, found {:?}",
                spec.channel_type
            ))
        })?;
        let desc = ImageDesc {
            dims,
            array,
            width: spec.width,
            height: if dims >= 2 { spec.height } else { 1 },
            depth: if dims >= 3 { spec.depth } else { 1 },
            order,
            ty,
        };
        let sides = [desc.width, desc.height, desc.depth];
        if sides.iter().any(|&n| n == 0 || n > 16384) || desc.bytes() > 1 << 30 {
            return Err(bad(format!(
                "size {}x{}x{}: expected 1 to 16384 texels a side and at most 1 GiB",
                desc.width, desc.height, desc.depth
            )));
        }
        Ok(desc)
    }

    /// The exact bytes of a scalar (or struct) argument, checked against its struct size.
    pub fn scalar_bytes(&self, a: &CaseArg) -> Result<Vec<u8>, CaseError> {
        let hex = a.bytes_hex.as_deref().ok_or_else(|| CaseError::Missing {
            arg: a.name.clone(),
            what: "bytes_hex",
        })?;
        let bytes = parse_hex(hex).map_err(|at| CaseError::BadHex {
            arg: a.name.clone(),
            at,
            found: hex.chars().skip(at).take(2).collect(),
        })?;
        if let Some(size) = a.size {
            if size != bytes.len() as u64 {
                return Err(CaseError::Size {
                    arg: a.name.clone(),
                    what: "bytes_hex of the struct",
                    expected: size,
                    found: bytes.len() as u64,
                });
            }
        }
        Ok(bytes)
    }

    /// The bytes one struct field occupies in a scalar argument's bytes (`None` if the
    /// argument has no such field or the bytes are too short).
    pub fn struct_field<'b>(&self, a: &CaseArg, field: &str, bytes: &'b [u8]) -> Option<&'b [u8]> {
        let f = a.struct_fields.as_ref()?.iter().find(|f| f.name == field)?;
        let size = Dtype::parse(&f.dtype)?.size() * f.count as usize;
        bytes.get(f.offset as usize..f.offset as usize + size)
    }

    /// Bytes of a `__local` argument's buffer.
    pub fn local_bytes(&self, a: &CaseArg) -> Result<u64, CaseError> {
        a.bytes.ok_or_else(|| CaseError::Missing {
            arg: a.name.clone(),
            what: "bytes (size of the __local buffer)",
        })
    }

    /// The expected final bytes of an output, checked against `count` elements.
    pub fn expected(&self, o: &Output) -> Result<Vec<u8>, CaseError> {
        let data = read(&self.dir.join(&o.file))?;
        let want = o.count.saturating_mul(o.dtype.size() as u64);
        if want != data.len() as u64 {
            return Err(CaseError::Size {
                arg: o.arg.clone(),
                what: "expected file",
                expected: want,
                found: data.len() as u64,
            });
        }
        Ok(data)
    }

    /// The buffer argument an output is read from.
    pub fn output_arg(&self, o: &Output) -> Result<&CaseArg, CaseError> {
        self.args
            .iter()
            .find(|a| a.name == o.arg && (a.kind == "buffer" || a.kind == "image"))
            .ok_or_else(|| CaseError::NoOutputArg { arg: o.arg.clone() })
    }
}

/// The corpus' case.json comes from Python's json module, which writes the bare
/// tokens `NaN`, `Infinity` and `-Infinity`; they only occur in generator notes, so they
/// become `null` (outside strings) before parsing.
pub fn python_json(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_str = false;
    let mut escaped = false;
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == '"' {
            in_str = true;
        }
        let token = ["-Infinity", "Infinity", "NaN"]
            .into_iter()
            .find(|t| rest.starts_with(t));
        match token {
            Some(t) => {
                out.push_str("null");
                rest = &rest[t.len()..];
            }
            None => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// Hex digit pairs to bytes; `Err(character index)` of the first bad pair.
fn parse_hex(s: &str) -> Result<Vec<u8>, usize> {
    let b = s.as_bytes();
    (0..b.len())
        .step_by(2)
        .map(|i| {
            let pair = b.get(i..i + 2).ok_or(i)?;
            // from_str_radix alone would accept a sign ("+1").
            if !pair.iter().all(u8::is_ascii_hexdigit) {
                return Err(i);
            }
            let digit = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            Ok(digit(pair[0]) << 4 | digit(pair[1]))
        })
        .collect()
}

/// Decode one hex string (`bytes_hex`); `None` if it is not hex digit pairs.
pub fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    parse_hex(s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex() {
        assert_eq!(hex_bytes("a00f0000"), Some(vec![0xa0, 0x0f, 0, 0]));
        assert_eq!(hex_bytes("abc"), None);
        assert_eq!(hex_bytes("+1"), None);
        assert_eq!(parse_hex("00zz"), Err(2));
        assert_eq!(parse_hex("é0"), Err(0));
    }

    #[test]
    fn python_tokens_outside_strings_only() {
        let s = python_json(r#"{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN \"x\" Infinity"}"#);
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert!(v["a"].is_null() && v["b"][1].is_null());
        assert_eq!(v["c"], "NaN \"x\" Infinity");
    }
}
