//! `case.json`: arguments, NDRange, outputs with tolerances; and the comparison of a
//! produced buffer against the expected one under the README's rules.

use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Deserialize)]
pub struct CaseArg {
    pub index: u32,
    pub name: String,
    pub kind: String,
    #[serde(default)]
    pub dtype: Option<String>,
    #[serde(default)]
    pub count: Option<u64>,
    #[serde(default)]
    pub bytes: Option<u64>,
    #[serde(default)]
    pub input_file: Option<String>,
    #[serde(default)]
    pub bytes_hex: Option<String>,
    #[serde(default)]
    pub is_output: bool,
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
pub struct Tolerance {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub check_ulp: Option<f64>,
    #[serde(default)]
    pub ulp: Option<f64>,
    #[serde(default)]
    pub abs: Option<f64>,
    #[serde(default)]
    pub rel: Option<f64>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Output {
    pub arg: String,
    pub file: String,
    pub dtype: String,
    pub count: u64,
    pub tolerance: Tolerance,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Case {
    pub kernel: String,
    pub args: Vec<CaseArg>,
    pub ndrange: NdRange,
    pub outputs: Vec<Output>,
    #[serde(skip)]
    pub dir: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("{path}: {msg}")]
    Read { path: String, msg: String },
}

fn read(path: &Path) -> Result<Vec<u8>, CaseError> {
    std::fs::read(path).map_err(|e| CaseError::Read {
        path: path.display().to_string(),
        msg: e.to_string(),
    })
}

impl Case {
    pub fn load(case_dir: &Path) -> Result<Case, CaseError> {
        let p = case_dir.join("case.json");
        let text = read(&p)?;
        let text = python_json(&String::from_utf8_lossy(&text));
        let mut c: Case = serde_json::from_str(&text).map_err(|e| CaseError::Read {
            path: p.display().to_string(),
            msg: e.to_string(),
        })?;
        c.dir = case_dir.to_path_buf();
        Ok(c)
    }

    /// Initial bytes of a buffer argument (zeros if it has no input file).
    pub fn input_bytes(&self, a: &CaseArg) -> Result<Vec<u8>, CaseError> {
        match &a.input_file {
            Some(f) => read(&self.dir.join(f)),
            None => Ok(vec![0; a.bytes.unwrap_or(0) as usize]),
        }
    }

    pub fn expected(&self, o: &Output) -> Result<Vec<u8>, CaseError> {
        read(&self.dir.join(&o.file))
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

/// Decode one hex string (`bytes_hex`).
pub fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The first element that breaks the tolerance.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub index: usize,
    pub got: String,
    pub expected: String,
}

fn dtype_size(d: &str) -> Option<usize> {
    Some(match d {
        "int8" | "uint8" => 1,
        "int16" | "uint16" | "float16" => 2,
        "int32" | "uint32" | "float32" => 4,
        "int64" | "uint64" | "float64" => 8,
        _ => return None,
    })
}

fn as_float(d: &str, b: &[u8]) -> Option<f64> {
    Some(match d {
        "float16" => half::f16::from_le_bytes([b[0], b[1]]).to_f64(),
        "float32" => f32::from_le_bytes(b.try_into().ok()?) as f64,
        "float64" => f64::from_le_bytes(b.try_into().ok()?),
        _ => return None,
    })
}

/// The gap between the two floats of `dtype` around |x| (for 0: the smallest normal's ulp).
fn ulp(d: &str, x: f64) -> f64 {
    let (mant, min_exp) = match d {
        "float16" => (10, -14),
        "float32" => (23, -126),
        _ => (52, -1022),
    };
    let x = x.abs();
    let e = if x == 0.0 || !x.is_finite() {
        min_exp
    } else {
        (x.log2().floor() as i32).max(min_exp)
    };
    2f64.powi(e - mant)
}

/// Compare `got` with `want` element by element under `tol`.
pub fn compare(dtype: &str, tol: &Tolerance, got: &[u8], want: &[u8]) -> Result<(), Mismatch> {
    let size = dtype_size(dtype).unwrap_or(1);
    if got.len() < want.len() {
        return Err(Mismatch {
            index: got.len() / size,
            got: format!("{} bytes", got.len()),
            expected: format!("{} bytes", want.len()),
        });
    }
    for (i, (g, w)) in got.chunks(size).zip(want.chunks(size)).enumerate() {
        if w.len() < size {
            break;
        }
        let ok = match as_float(dtype, g).zip(as_float(dtype, w)) {
            None => g == w,
            Some((gf, wf)) => {
                if gf.is_nan() || wf.is_nan() {
                    gf.is_nan() && wf.is_nan()
                } else if gf.is_infinite() || wf.is_infinite() {
                    gf == wf
                } else {
                    match tol.kind.as_str() {
                        "exact" => g == w,
                        "ulp" => {
                            let k = tol.check_ulp.or(tol.ulp.map(|u| 2.0 * u)).unwrap_or(0.0);
                            (gf - wf).abs() <= k * ulp(dtype, wf)
                        }
                        _ => {
                            (gf - wf).abs()
                                <= tol.abs.unwrap_or(0.0) + tol.rel.unwrap_or(0.0) * wf.abs()
                        }
                    }
                }
            }
        };
        if !ok {
            let show = |b: &[u8]| match as_float(dtype, b) {
                Some(f) => format!("{f:e}"),
                None => format!(
                    "0x{}",
                    b.iter()
                        .rev()
                        .map(|x| format!("{x:02x}"))
                        .collect::<String>()
                ),
            };
            return Err(Mismatch {
                index: i,
                got: show(g),
                expected: show(w),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tol(kind: &str) -> Tolerance {
        Tolerance {
            kind: kind.into(),
            check_ulp: Some(2.0),
            ulp: None,
            abs: Some(1e-3),
            rel: Some(0.0),
        }
    }

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn exact_with_nan_matching_nan() {
        let t = tol("exact");
        assert!(compare(
            "float32",
            &t,
            &f32s(&[1.0, f32::NAN]),
            &f32s(&[1.0, -f32::NAN])
        )
        .is_ok());
        let e = compare("float32", &t, &f32s(&[1.0, 2.0]), &f32s(&[1.0, 2.5])).unwrap_err();
        assert_eq!(e.index, 1);
        assert!(compare("int32", &t, &[1, 0, 0, 0], &[2, 0, 0, 0]).is_err());
    }

    #[test]
    fn ulp_and_abs_rel_bounds() {
        let t = tol("ulp");
        let one_ulp = 1.0 + f32::EPSILON;
        assert!(compare("float32", &t, &f32s(&[one_ulp]), &f32s(&[1.0])).is_ok());
        assert!(compare(
            "float32",
            &t,
            &f32s(&[1.0 + 3.0 * f32::EPSILON]),
            &f32s(&[1.0])
        )
        .is_err());
        assert!(compare("float32", &t, &f32s(&[f32::INFINITY]), &f32s(&[f32::MAX])).is_err());
        let a = tol("abs_rel");
        assert!(compare("float32", &a, &f32s(&[1.0005]), &f32s(&[1.0])).is_ok());
        assert!(compare("float32", &a, &f32s(&[1.002]), &f32s(&[1.0])).is_err());
    }

    #[test]
    fn hex() {
        assert_eq!(hex_bytes("a00f0000"), Some(vec![0xa0, 0x0f, 0, 0]));
        assert_eq!(hex_bytes("abc"), None);
    }
}
