//! Element types of the corpus' buffers and the comparison of a produced buffer with the
//! expected one under an output's tolerance, exactly as the corpus README defines it.

use serde::Deserialize;
use std::fmt;

/// A buffer element type (numpy names).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    Int8,
    Uint8,
    Int16,
    Uint16,
    Int32,
    Uint32,
    Int64,
    Uint64,
    Float16,
    Float32,
    Float64,
}

impl Dtype {
    pub fn size(self) -> usize {
        match self {
            Dtype::Int8 | Dtype::Uint8 => 1,
            Dtype::Int16 | Dtype::Uint16 | Dtype::Float16 => 2,
            Dtype::Int32 | Dtype::Uint32 | Dtype::Float32 => 4,
            Dtype::Int64 | Dtype::Uint64 | Dtype::Float64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Dtype::Float16 | Dtype::Float32 | Dtype::Float64)
    }

    pub fn parse(name: &str) -> Option<Dtype> {
        serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
    }

    /// (explicit mantissa bits, exponent of the smallest normal).
    fn float_format(self) -> (i32, i32) {
        match self {
            Dtype::Float16 => (10, -14),
            Dtype::Float32 => (23, -126),
            _ => (52, -1022),
        }
    }

    /// One element as f64 (exact for every float type), or `None` for integers.
    fn float(self, b: &[u8]) -> Option<f64> {
        Some(match self {
            Dtype::Float16 => half::f16::from_le_bytes(b.try_into().ok()?).to_f64(),
            Dtype::Float32 => f32::from_le_bytes(b.try_into().ok()?) as f64,
            Dtype::Float64 => f64::from_le_bytes(b.try_into().ok()?),
            _ => return None,
        })
    }

    /// One element for messages: floats in scientific notation, integers as hex of their
    /// width (tests/known_disagreements.txt records mismatches in this form).
    fn show(self, b: &[u8]) -> String {
        match self.float(b) {
            Some(f) => format!("{f:e}"),
            None => format!(
                "0x{}",
                b.iter()
                    .rev()
                    .map(|x| format!("{x:02x}"))
                    .collect::<String>()
            ),
        }
    }

    /// The gap between the two floats of this type around |x|: 2^(e - mantissa bits)
    /// with e the exponent of |x|, and for 0 (and subnormals) the smallest normal's ulp.
    pub fn ulp(self, x: f64) -> f64 {
        let (mant, min_exp) = self.float_format();
        let bits = x.abs().to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        // Exact: read the exponent from the bits (log2 would round near powers of 2).
        let e = if biased == 0 { min_exp } else { biased - 1023 };
        2f64.powi(e.max(min_exp) - mant)
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = format!("{self:?}").to_lowercase();
        f.write_str(&s)
    }
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ToleranceKind {
    /// Bitwise equality; for floats any NaN matches any NaN.
    Exact,
    /// `|got - ref| <= check_ulp * ulp(ref)`.
    Ulp,
    /// `|got - ref| <= abs + rel * |ref|`.
    AbsRel,
}

impl fmt::Display for ToleranceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ToleranceKind::Exact => "exact",
            ToleranceKind::Ulp => "ulp",
            ToleranceKind::AbsRel => "abs_rel",
        })
    }
}

#[derive(Clone, Debug, Deserialize)]
pub struct Tolerance {
    #[serde(rename = "type")]
    pub kind: ToleranceKind,
    /// The bound to check with: twice the OpenCL bound (the reference may be off too).
    #[serde(default)]
    pub check_ulp: Option<f64>,
    /// The OpenCL bound of the builtin.
    #[serde(default)]
    pub ulp: Option<f64>,
    #[serde(default)]
    pub abs: Option<f64>,
    #[serde(default)]
    pub rel: Option<f64>,
    /// Why this tolerance (for people).
    #[serde(default)]
    pub why: Option<String>,
}

impl Tolerance {
    pub fn exact() -> Tolerance {
        Tolerance {
            kind: ToleranceKind::Exact,
            check_ulp: None,
            ulp: None,
            abs: None,
            rel: None,
            why: None,
        }
    }

    /// Whether the float `got` is acceptable for the reference `want`.
    fn accepts(
        &self,
        dtype: Dtype,
        got: f64,
        want: f64,
        got_bits: &[u8],
        want_bits: &[u8],
    ) -> bool {
        if got.is_nan() || want.is_nan() {
            return got.is_nan() && want.is_nan();
        }
        if got.is_infinite() || want.is_infinite() {
            return got == want;
        }
        match self.kind {
            ToleranceKind::Exact => got_bits == want_bits,
            ToleranceKind::Ulp => {
                let k = self.check_ulp.or(self.ulp.map(|u| 2.0 * u)).unwrap_or(0.0);
                (got - want).abs() <= k * dtype.ulp(want)
            }
            ToleranceKind::AbsRel => {
                (got - want).abs() <= self.abs.unwrap_or(0.0) + self.rel.unwrap_or(0.0) * want.abs()
            }
        }
    }
}

/// The first element that breaks the tolerance (or a size problem, at the element
/// where the shorter buffer ends).
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub index: usize,
    pub got: String,
    pub expected: String,
}

/// Compare `got` with `want` element by element under `tol`. Integers (and `uint8`
/// raw structs) must be equal whatever the tolerance says; floats follow the README's
/// rules (NaN matches NaN, ±Inf must match exactly). `got` may be longer than `want`
/// (only `want`'s elements are checked).
pub fn compare(dtype: &Dtype, tol: &Tolerance, got: &[u8], want: &[u8]) -> Result<(), Mismatch> {
    let dtype = *dtype;
    let size = dtype.size();
    if got.len() < want.len() || !want.len().is_multiple_of(size) {
        return Err(Mismatch {
            index: got.len().min(want.len()) / size,
            got: format!("{} bytes", got.len()),
            expected: format!(
                "{} bytes ({} of {size} bytes)",
                want.len(),
                want.len() / size
            ),
        });
    }
    for (i, (g, w)) in got
        .chunks_exact(size)
        .zip(want.chunks_exact(size))
        .enumerate()
    {
        let ok = match (dtype.float(g), dtype.float(w)) {
            (Some(gf), Some(wf)) => tol.accepts(dtype, gf, wf, g, w),
            _ => g == w,
        };
        if !ok {
            return Err(Mismatch {
                index: i,
                got: dtype.show(g),
                expected: dtype.show(w),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tol(kind: ToleranceKind) -> Tolerance {
        Tolerance {
            kind,
            check_ulp: Some(2.0),
            abs: Some(1e-3),
            rel: Some(0.0),
            ..Tolerance::exact()
        }
    }

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn f16s(v: &[f32]) -> Vec<u8> {
        v.iter()
            .flat_map(|x| half::f16::from_f32(*x).to_le_bytes())
            .collect()
    }

    fn f64s(v: &[f64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    const F32: &Dtype = &Dtype::Float32;

    #[test]
    fn exact_is_bitwise_but_any_nan_matches_any_nan() {
        let t = tol(ToleranceKind::Exact);
        let quiet_neg = f32::from_bits(0xffc0_0001);
        assert!(compare(F32, &t, &f32s(&[1.0, f32::NAN]), &f32s(&[1.0, quiet_neg])).is_ok());
        let e = compare(F32, &t, &f32s(&[1.0, 2.0]), &f32s(&[1.0, 2.5])).unwrap_err();
        assert_eq!(e.index, 1);
        assert!(
            e.got.starts_with("2e0") && e.expected.starts_with("2.5e0"),
            "{e:?}"
        );
        // -0 and +0 differ bitwise.
        assert!(compare(F32, &t, &f32s(&[-0.0]), &f32s(&[0.0])).is_err());
        // A NaN never matches a number.
        assert!(compare(F32, &t, &f32s(&[f32::NAN]), &f32s(&[0.0])).is_err());
        assert!(compare(F32, &t, &f32s(&[0.0]), &f32s(&[f32::NAN])).is_err());
    }

    #[test]
    fn integers_are_exact_under_any_tolerance() {
        for kind in [
            ToleranceKind::Exact,
            ToleranceKind::Ulp,
            ToleranceKind::AbsRel,
        ] {
            let t = tol(kind);
            assert!(compare(&Dtype::Int32, &t, &[1, 0, 0, 0], &[2, 0, 0, 0]).is_err());
            assert!(compare(&Dtype::Uint8, &t, &[7, 9], &[7, 9]).is_ok());
        }
        let e = compare(
            &Dtype::Int16,
            &Tolerance::exact(),
            &[0, 0, 0xff, 0xff],
            &[0, 0, 1, 0],
        )
        .unwrap_err();
        assert_eq!(
            (e.index, e.got.as_str(), e.expected.as_str()),
            (1, "0xffff", "0x0001")
        );
        let e = compare(&Dtype::Uint64, &Tolerance::exact(), &[0xff; 8], &[0; 8]).unwrap_err();
        assert_eq!(e.got, format!("0x{}", "ff".repeat(8)));
    }

    #[test]
    fn ulp_bound_uses_check_ulp_and_the_exponent_of_the_reference() {
        let t = tol(ToleranceKind::Ulp);
        let eps = f32::EPSILON;
        assert!(compare(F32, &t, &f32s(&[1.0 + 2.0 * eps]), &f32s(&[1.0])).is_ok());
        assert!(compare(F32, &t, &f32s(&[1.0 + 3.0 * eps]), &f32s(&[1.0])).is_err());
        // Just below 2 the ulp is eps (not 2 eps): 3 ulps below 2.0's predecessor fail.
        let below2 = 2.0 - eps;
        assert!(compare(F32, &t, &f32s(&[below2 - 2.0 * eps]), &f32s(&[below2])).is_ok());
        assert!(compare(F32, &t, &f32s(&[below2 - 3.0 * eps]), &f32s(&[below2])).is_err());
        // ulp(0) is the smallest normal's ulp: 2^-149 for float32.
        let tiny = f32::from_bits(2); // 2 * 2^-149
        let tiny3 = f32::from_bits(3);
        assert!(compare(F32, &t, &f32s(&[tiny]), &f32s(&[0.0])).is_ok());
        assert!(compare(F32, &t, &f32s(&[tiny3]), &f32s(&[0.0])).is_err());
        assert_eq!(Dtype::Float32.ulp(0.0), 2f64.powi(-149));
        assert_eq!(Dtype::Float16.ulp(0.0), 2f64.powi(-24));
        assert_eq!(Dtype::Float64.ulp(1.0), f64::EPSILON);
        assert_eq!(Dtype::Float16.ulp(1000.0), 0.5);
        // check_ulp missing: twice `ulp`.
        let t2 = Tolerance {
            check_ulp: None,
            ulp: Some(1.0),
            ..tol(ToleranceKind::Ulp)
        };
        assert!(compare(F32, &t2, &f32s(&[1.0 + 2.0 * eps]), &f32s(&[1.0])).is_ok());
        // ±Inf must match exactly, whatever the bound.
        assert!(compare(F32, &t, &f32s(&[f32::INFINITY]), &f32s(&[f32::MAX])).is_err());
        assert!(compare(
            F32,
            &t,
            &f32s(&[f32::NEG_INFINITY]),
            &f32s(&[f32::NEG_INFINITY])
        )
        .is_ok());
        assert!(compare(
            F32,
            &t,
            &f32s(&[f32::INFINITY]),
            &f32s(&[f32::NEG_INFINITY])
        )
        .is_err());
    }

    #[test]
    fn half_and_double_elements() {
        let t = tol(ToleranceKind::Ulp);
        // float16 around 1: ulp 2^-10; 2 ulps pass, 3 fail.
        let h = |x: f32| f16s(&[x]);
        assert!(compare(&Dtype::Float16, &t, &h(1.0 + 2.0 / 1024.0), &h(1.0)).is_ok());
        assert!(compare(&Dtype::Float16, &t, &h(1.0 + 3.0 / 1024.0), &h(1.0)).is_err());
        assert!(compare(
            &Dtype::Float16,
            &Tolerance::exact(),
            &h(f32::NAN),
            &h(f32::NAN)
        )
        .is_ok());
        let e = compare(
            &Dtype::Float64,
            &Tolerance::exact(),
            &f64s(&[1.0, 3.0]),
            &f64s(&[1.0, 3.5]),
        )
        .unwrap_err();
        assert_eq!(e.index, 1);
    }

    #[test]
    fn abs_rel_bound() {
        let a = Tolerance {
            abs: Some(1e-3),
            rel: Some(1e-2),
            ..tol(ToleranceKind::AbsRel)
        };
        // bound at 10: 1e-3 + 0.1
        assert!(compare(F32, &a, &f32s(&[10.1]), &f32s(&[10.0])).is_ok());
        assert!(compare(F32, &a, &f32s(&[10.2]), &f32s(&[10.0])).is_err());
        assert!(compare(F32, &a, &f32s(&[-10.1]), &f32s(&[-10.0])).is_ok());
        assert!(compare(F32, &a, &f32s(&[f32::NAN]), &f32s(&[f32::NAN])).is_ok());
        assert!(compare(F32, &a, &f32s(&[f32::INFINITY]), &f32s(&[f32::MAX])).is_err());
    }

    #[test]
    fn sizes_are_checked() {
        let t = Tolerance::exact();
        let e = compare(F32, &t, &f32s(&[1.0]), &f32s(&[1.0, 2.0])).unwrap_err();
        assert_eq!(e.index, 1);
        assert!(compare(F32, &t, &[0; 4], &[0; 6]).is_err());
        // Extra produced bytes past the expected ones are not compared.
        assert!(compare(F32, &t, &f32s(&[1.0, 9.0]), &f32s(&[1.0])).is_ok());
    }

    #[test]
    fn dtype_names() {
        assert_eq!(Dtype::parse("float16"), Some(Dtype::Float16));
        assert_eq!(Dtype::parse("uint64").map(Dtype::size), Some(8));
        assert_eq!(Dtype::parse("float128"), None);
        assert_eq!(Dtype::Int8.to_string(), "int8");
    }
}
