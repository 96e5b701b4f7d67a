//! Floating-point formats and correctly rounded results in every %cr0 rounding mode.
//!
//! Every HF, BF and F value is exactly an f64. An operation produces its exact result
//! as `(s, tail)`: an f64 `s` and the sign of the (unrepresented) rest, with the exact
//! value strictly between `s` and its f64 neighbour on the tail's side. That is enough
//! to round once, correctly, to any narrower format in any mode; for DF results the
//! tail says whether the directed modes step `s` to its neighbour.

use super::types::{FpEnv, Rounding};
use crate::ir::DataType;

/// A float format the ALU computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fmt {
    Bf,
    Hf,
    F,
    Df,
}

impl Fmt {
    #[inline]
    pub fn of(ty: DataType) -> Option<Fmt> {
        match ty {
            DataType::HF => Some(Fmt::Hf),
            DataType::BF => Some(Fmt::Bf),
            DataType::F | DataType::VF => Some(Fmt::F),
            DataType::DF => Some(Fmt::Df),
            _ => None,
        }
    }

    /// Precision in bits, hidden bit included.
    #[inline]
    fn precision(self) -> i32 {
        match self {
            Fmt::Bf => 8,
            Fmt::Hf => 11,
            Fmt::F => 24,
            Fmt::Df => 53,
        }
    }

    /// Exponent of the smallest normal.
    #[inline]
    fn emin(self) -> i32 {
        match self {
            Fmt::Bf | Fmt::F => -126,
            Fmt::Hf => -14,
            Fmt::Df => -1022,
        }
    }

    #[inline]
    fn emax(self) -> i32 {
        match self {
            Fmt::Bf | Fmt::F => 127,
            Fmt::Hf => 15,
            Fmt::Df => 1023,
        }
    }

    #[inline]
    pub fn min_normal(self) -> f64 {
        pow2(self.emin())
    }

    /// The largest finite value.
    #[inline]
    pub fn max_finite(self) -> f64 {
        match self {
            Fmt::Df => f64::MAX,
            _ => (2.0 - pow2(1 - self.precision())) * pow2(self.emax()),
        }
    }

    #[inline]
    pub fn keeps_denorms(self, env: &FpEnv) -> bool {
        match self {
            Fmt::Bf => true,
            Fmt::Hf => env.hf_denorm,
            Fmt::F => env.f_denorm,
            Fmt::Df => env.df_denorm,
        }
    }

    /// The widest of two formats (the execution format of mixed HF/F operations).
    #[inline]
    pub fn wider(self, o: Fmt) -> Fmt {
        self.max(o)
    }
}

/// 2^e for e in the f64 normal and subnormal range.
#[inline]
pub fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074).max(0))
    }
}

/// The value of `bits` in `fmt`, exactly.
#[inline]
pub fn decode(fmt: Fmt, bits: u64) -> f64 {
    match fmt {
        Fmt::Df => f64::from_bits(bits),
        Fmt::F => f32::from_bits(bits as u32) as f64,
        Fmt::Hf => half::f16::from_bits(bits as u16).to_f64(),
        Fmt::Bf => half::bf16::from_bits(bits as u16).to_f64(),
    }
}

/// The bits of a value already representable in `fmt` (NaNs keep their sign and the
/// top of their payload, quieted).
#[inline]
pub fn encode(fmt: Fmt, v: f64) -> u64 {
    match fmt {
        Fmt::Df => v.to_bits(),
        Fmt::F => (v as f32).to_bits() as u64,
        Fmt::Hf => half::f16::from_f64(v).to_bits() as u64,
        Fmt::Bf => half::bf16::from_f64(v).to_bits() as u64,
    }
}

/// Flush a denormal of `fmt` to a zero of the same sign when the environment says so.
#[inline]
pub fn flush(fmt: Fmt, v: f64, env: &FpEnv) -> f64 {
    if v != 0.0 && v.abs() < fmt.min_normal() && !fmt.keeps_denorms(env) {
        0.0f64.copysign(v)
    } else {
        v
    }
}

#[inline]
pub fn next_up(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

#[inline]
pub fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

/// The sign of a tail: -1, 0 or 1.
#[inline]
pub fn sign(x: f64) -> i8 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

/// Round the exact value `s + tail` (see the module docs) to `fmt` in `mode`, then
/// flush a denormal result if the environment says so. Returns the value, which is
/// representable in `fmt`.
pub fn round(fmt: Fmt, s: f64, tail: i8, mode: Rounding, keep_denorm: bool) -> f64 {
    if s.is_nan() || s.is_infinite() {
        return s;
    }
    let r = if fmt == Fmt::Df {
        round_df(s, tail, mode)
    } else if s == 0.0 && tail == 0 {
        s
    } else {
        round_narrow(fmt, s, tail, mode)
    };
    if !keep_denorm && r != 0.0 && r.abs() < fmt.min_normal() {
        0.0f64.copysign(r)
    } else {
        r
    }
}

fn round_df(s: f64, tail: i8, mode: Rounding) -> f64 {
    match (mode, tail) {
        (_, 0) | (Rounding::Rne, _) => s,
        (Rounding::Ru, t) => {
            if t > 0 {
                next_up(s)
            } else {
                s
            }
        }
        (Rounding::Rd, t) => {
            if t < 0 {
                next_down(s)
            } else {
                s
            }
        }
        (Rounding::Rz, t) => {
            // Toward zero: step only when the rest points away from zero.
            if s > 0.0 && t < 0 {
                next_down(s)
            } else if s < 0.0 && t > 0 {
                next_up(s)
            } else if s == 0.0 {
                0.0f64.copysign(t as f64)
            } else {
                s
            }
        }
    }
}

fn round_narrow(fmt: Fmt, s: f64, tail: i8, mode: Rounding) -> f64 {
    let negative = s < 0.0 || (s == 0.0 && tail < 0);
    let mut a = s.abs();
    // The tail relative to the magnitude.
    let mut t = if negative { -tail } else { tail };
    // Magnitude rounding direction: true = away from zero when inexact.
    let up = match mode {
        Rounding::Rne => None,
        Rounding::Ru => Some(!negative),
        Rounding::Rd => Some(negative),
        Rounding::Rz => Some(false),
    };
    // A value just below `a` (negative tail): move to the f64 below so that the tail
    // is positive; no grid point of a narrow format lies between the two.
    if t < 0 {
        a = next_down(a);
        t = 1;
    }
    if a == 0.0 {
        // Only a positive tail remains: a value in (0, min subnormal of f64).
        a = f64::from_bits(1);
    }
    let e = exponent(a).max(fmt.emin());
    let q = pow2(e - (fmt.precision() - 1));
    let m = a / q; // exact: scaling by a power of two into the normal range
    let mi = m.floor();
    let frac = m - mi;
    let inexact = frac != 0.0 || t != 0;
    let r = match up {
        Some(true) if inexact => mi + 1.0,
        Some(_) => mi,
        None => {
            // Nearest, ties (exactly half, no sticky bits) to even.
            let above_half = frac > 0.5 || (frac == 0.5 && t > 0);
            let tie_to_odd = frac == 0.5 && t == 0 && mi % 2.0 != 0.0;
            if above_half || tie_to_odd {
                mi + 1.0
            } else {
                mi
            }
        }
    };
    let mut v = r * q;
    if v > fmt.max_finite() {
        // Overflow: to infinity when rounding away from zero or to nearest, else the
        // largest finite value.
        v = if up == Some(false) {
            fmt.max_finite()
        } else {
            f64::INFINITY
        };
    }
    if negative {
        -v
    } else {
        v
    }
}

/// floor(log2(a)) for a finite a > 0.
#[inline]
fn exponent(a: f64) -> i32 {
    let b = a.to_bits();
    let e = ((b >> 52) & 0x7ff) as i32;
    if e == 0 {
        // f64 subnormal
        let m = b & ((1u64 << 52) - 1);
        -1022 - (m.leading_zeros() as i32 - 11)
    } else {
        e - 1023
    }
}

/// Error-free sum: `a + b == s + e` exactly.
#[inline]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    if s.is_finite() {
        (s, e)
    } else {
        (s, 0.0)
    }
}

/// Error-free product (exact unless the product underflows): `a * b == p + e`.
#[inline]
pub fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    if !p.is_finite() {
        return (p, 0.0);
    }
    (p, a.mul_add(b, -p))
}

/// The exact sum of up to four f64 terms as `(s, tail sign)` (module docs). The sum is
/// kept as a nonoverlapping expansion (Shewchuk's grow-expansion): its largest
/// component is within one ulp of the sum, and the sign of the rest is the sign of
/// the next component.
pub fn exact_sum(terms: &[f64]) -> (f64, i8) {
    let mut comps = [0.0f64; 8];
    let mut n = 0usize;
    let mut special = 0.0f64;
    for &x in terms {
        if !x.is_finite() {
            special += x;
            continue;
        }
        // grow-expansion: add x into the components (increasing magnitude).
        let mut q = x;
        let mut out = [0.0f64; 8];
        let mut k = 0usize;
        for &c in &comps[..n] {
            let (s, e) = two_sum(q, c);
            q = s;
            if e != 0.0 && k < out.len() {
                out[k] = e;
                k += 1;
            }
        }
        if q != 0.0 && k < out.len() {
            out[k] = q;
            k += 1;
        }
        comps = out;
        n = k;
    }
    if special != 0.0 || special.is_nan() {
        return (special, 0);
    }
    match n {
        // All terms zero: IEEE's sign of a zero sum (-0 only if every term is -0).
        // Nonzero terms that cancel exactly: +0 (round to nearest's rule).
        0 if terms.iter().all(|&x| x == 0.0) => (terms.iter().fold(-0.0, |acc, &x| acc + x), 0),
        0 => (0.0, 0),
        1 => (comps[0], 0),
        _ => {
            // A nonoverlapping expansion's largest component can be far from its sum
            // (1 + -2^-1 + ...): compress it first (Shewchuk's COMPRESS), after which
            // the largest component is within an ulp of the sum and the rest has the
            // sign of its own largest component.
            let h = compress(&comps[..n]);
            match h.len() {
                0 => (0.0, 0),
                1 => (h[0], 0),
                k => (h[k - 1], sign(h[k - 2])),
            }
        }
    }
}

/// Shewchuk's COMPRESS of a nonoverlapping expansion (components in increasing
/// magnitude, no zeros): the same sum, nonadjacent, largest component last.
fn compress(e: &[f64]) -> Vec<f64> {
    let m = e.len();
    let mut g = vec![0.0f64; m];
    let mut bottom = m;
    let mut q = e[m - 1];
    for &c in e[..m - 1].iter().rev() {
        let (s, r) = two_sum(q, c);
        if r != 0.0 {
            bottom -= 1;
            g[bottom] = s;
            q = r;
        } else {
            q = s;
        }
    }
    bottom -= 1;
    g[bottom] = q;
    let mut h = Vec::with_capacity(m);
    let mut q = g[bottom];
    for &c in &g[bottom + 1..] {
        let (s, r) = two_sum(c, q);
        if r != 0.0 {
            h.push(r);
        }
        q = s;
    }
    if q != 0.0 || h.is_empty() {
        h.push(q);
    }
    h.retain(|&x| x != 0.0);
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_rounding_matches_hardware_rne_for_f32() {
        for &x in &[
            1.0 + f64::EPSILON,
            1.0 / 3.0,
            -2.5e-40,
            3.4e38,
            1e39,
            5e-324,
        ] {
            let r = round(Fmt::F, x, 0, Rounding::Rne, true);
            assert_eq!(r as f32, x as f32, "{x}");
        }
    }

    #[test]
    fn directed_modes_use_the_tail() {
        // 1 + tiny: RU steps up, RD/RZ stay, RNE stays.
        let up = round(Fmt::F, 1.0, 1, Rounding::Ru, true);
        assert_eq!(up, 1.0 + f32::EPSILON as f64);
        assert_eq!(round(Fmt::F, 1.0, 1, Rounding::Rd, true), 1.0);
        // 1 - tiny: RD and RZ step down to the previous f32.
        let below = 1.0 - (f32::EPSILON as f64) / 2.0;
        assert_eq!(round(Fmt::F, 1.0, -1, Rounding::Rd, true), below);
        assert_eq!(round(Fmt::F, 1.0, -1, Rounding::Rz, true), below);
        assert_eq!(round(Fmt::F, 1.0, -1, Rounding::Ru, true), 1.0);
        assert_eq!(round(Fmt::Df, 1.0, 1, Rounding::Ru, true), next_up(1.0));
        assert_eq!(round(Fmt::Df, -1.0, 1, Rounding::Rz, true), next_up(-1.0));
    }

    #[test]
    fn halfway_ties_go_to_even_unless_the_tail_decides() {
        let half_ulp = (f32::EPSILON as f64) / 2.0;
        assert_eq!(round(Fmt::F, 1.0 + half_ulp, 0, Rounding::Rne, true), 1.0);
        assert_eq!(
            round(Fmt::F, 1.0 + half_ulp, 1, Rounding::Rne, true),
            1.0 + 2.0 * half_ulp
        );
        assert_eq!(
            round(Fmt::F, 1.0 + 3.0 * half_ulp, 0, Rounding::Rne, true),
            1.0 + 4.0 * half_ulp
        );
    }

    #[test]
    fn overflow_and_subnormals() {
        assert_eq!(
            round(Fmt::Hf, 65520.0, 0, Rounding::Rne, true),
            f64::INFINITY
        );
        assert_eq!(round(Fmt::Hf, 65519.0, 0, Rounding::Rne, true), 65504.0);
        assert_eq!(round(Fmt::Hf, 1e6, 0, Rounding::Rz, true), 65504.0);
        assert_eq!(round(Fmt::Hf, -1e6, 0, Rounding::Ru, true), -65504.0);
        assert_eq!(
            round(Fmt::Hf, -1e6, 0, Rounding::Rd, true),
            f64::NEG_INFINITY
        );
        let tiny = pow2(-24); // smallest HF subnormal
        assert_eq!(round(Fmt::Hf, tiny * 0.75, 0, Rounding::Rne, true), tiny);
        assert_eq!(round(Fmt::Hf, tiny * 0.5, 0, Rounding::Rne, true), 0.0);
        assert_eq!(round(Fmt::Hf, tiny, 0, Rounding::Rne, false), 0.0);
        assert!(round(Fmt::Hf, -tiny, 0, Rounding::Rne, false).is_sign_negative());
    }

    #[test]
    fn exact_sum_compresses_before_it_rounds() {
        // grow-expansion leaves [e, s] with s = 1 and e just under -1/2 here; the sum is
        // e + 1, nowhere near s.
        let t = [-0.5 - pow2(-40), 1.0, pow2(-90)];
        let (s, tail) = exact_sum(&t);
        assert_eq!(s, 0.5 - pow2(-40));
        assert_eq!(tail, 1);
        // The DPAS stage that found it: -p0 + p0 + p1 is p1.
        let p0 = 231976960.0f64;
        let p1 = -1.0710209608078003e-4f64;
        assert_eq!(exact_sum(&[p0, p1, -p0]), (p1, 0));
    }

    #[test]
    fn exact_sum_sees_cancelled_tails() {
        let (s, t) = exact_sum(&[1.0, pow2(-80), -1.0]);
        assert_eq!((s, t), (pow2(-80), 0));
        let (s, t) = exact_sum(&[1.0, -pow2(-80)]);
        assert_eq!((s, t), (1.0, -1));
        let (s, _) = exact_sum(&[f64::INFINITY, 1.0]);
        assert_eq!(s, f64::INFINITY);
        assert!(exact_sum(&[f64::INFINITY, f64::NEG_INFINITY]).0.is_nan());
    }
}
