//! DF add, mul and mad rounded once in a directed %cr0 mode, on integers.
//!
//! The `(s, tail)` results of [`super::float`] come from error-free transformations,
//! which fail exactly where directed modes differ from round-to-nearest: a product
//! in the subnormal range has no representable error term, and a result past the
//! largest double is already infinite in `s`. Here the operands are integer
//! significands and exponents, the sum keeps a sticky bit (as the soft double library
//! of shaders/soft_f64.wgsl does), and rounding happens once, at the end.

use super::types::Rounding;

/// A finite double as `(-1)^neg * m * 2^e`.
#[derive(Clone, Copy)]
struct Parts {
    neg: bool,
    m: u128,
    e: i32,
}

fn parts(x: f64) -> Parts {
    let b = x.to_bits();
    let biased = ((b >> 52) & 0x7ff) as i32;
    let frac = (b & ((1u64 << 52) - 1)) as u128;
    let (m, e) = if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1u128 << 52), biased - 1075)
    };
    Parts {
        neg: b >> 63 != 0,
        m,
        e,
    }
}

/// `a` shifted right by `n`, every lost bit ORed into bit 0.
fn jam(a: u128, n: u32) -> u128 {
    if n == 0 {
        a
    } else if n >= 128 {
        (a != 0) as u128
    } else {
        (a >> n) | ((a & ((1u128 << n) - 1)) != 0) as u128
    }
}

/// `(-1)^neg * m * 2^e` (bit 0 of `m` may be a sticky bit: the value then lies just
/// above `m`, far below the rounding position) rounded to a double in `mode`.
fn round(neg: bool, m: u128, e: i32, mode: Rounding) -> f64 {
    if m == 0 {
        return if neg { -0.0 } else { 0.0 };
    }
    let top = 127 - m.leading_zeros() as i32; // value in [2^(e+top), 2^(e+top+1))
    let q = (e + top - 52).max(-1074); // the result's quantum exponent
    let (mut r, inexact, above_half, half) = if q <= e {
        (m << (e - q), false, false, false)
    } else {
        let n = (q - e) as u32;
        if n > 128 {
            (0, true, false, false)
        } else {
            let r = if n == 128 { 0 } else { m >> n };
            let rem = if n == 128 { m } else { m & ((1u128 << n) - 1) };
            let mid = 1u128 << (n - 1);
            (r, rem != 0, rem > mid, rem == mid)
        }
    };
    let away = match mode {
        Rounding::Rne => above_half || (half && r & 1 == 1),
        Rounding::Ru => inexact && !neg,
        Rounding::Rd => inexact && neg,
        Rounding::Rz => false,
    };
    if away {
        r += 1;
    }
    // r * 2^q, r <= 2^53: overflow when r * 2^q >= 2^1024.
    let bits = 128 - r.leading_zeros() as i32;
    let mag = if r == 0 {
        0.0
    } else if q + bits > 1024 {
        let to_inf = match mode {
            Rounding::Rne => true,
            Rounding::Ru => !neg,
            Rounding::Rd => neg,
            Rounding::Rz => false,
        };
        if to_inf {
            f64::INFINITY
        } else {
            f64::MAX
        }
    } else {
        // r < 2^54 is exact in f64; two exact power-of-two steps reach 2^q.
        let half_q = q / 2;
        (r as f64) * 2f64.powi(half_q) * 2f64.powi(q - half_q)
    };
    if neg {
        -mag
    } else {
        mag
    }
}

/// `x + y` for finite nonzero parts, rounded once in `mode`; an exact zero is -0 when
/// rounding down (IEEE 754, 6.3).
fn sum(x: Parts, y: Parts, mode: Rounding) -> f64 {
    // Leading ones at bit 125: room for the carry and 70+ guard bits below them.
    let norm = |p: Parts| {
        let s = p.m.leading_zeros() as i32 - 2;
        (p.m << s, p.e - s)
    };
    let (mut xm, xe) = norm(x);
    let (mut ym, ye) = norm(y);
    let e = xe.max(ye);
    xm = jam(xm, (e - xe).min(200) as u32);
    ym = jam(ym, (e - ye).min(200) as u32);
    if x.neg == y.neg {
        return round(x.neg, xm + ym, e, mode);
    }
    if xm == ym {
        return if mode == Rounding::Rd { -0.0 } else { 0.0 };
    }
    if xm > ym {
        round(x.neg, xm - ym, e, mode)
    } else {
        round(y.neg, ym - xm, e, mode)
    }
}

/// The IEEE sum of two zeros: -0 only for two -0, or when rounding down.
fn zero_sum(a: f64, b: f64, mode: Rounding) -> f64 {
    if (a.is_sign_negative() && b.is_sign_negative())
        || (mode == Rounding::Rd && (a.is_sign_negative() || b.is_sign_negative()))
    {
        -0.0
    } else {
        0.0
    }
}

/// `a * b + c` (`c = None`: the product alone) of finite doubles, rounded once.
pub fn mad(a: f64, b: f64, c: Option<f64>, mode: Rounding) -> f64 {
    let (pa, pb) = (parts(a), parts(b));
    let neg = pa.neg != pb.neg;
    let product = (a != 0.0 && b != 0.0).then(|| Parts {
        neg,
        m: pa.m * pb.m,
        e: pa.e + pb.e,
    });
    match (product, c) {
        (Some(p), None) => round(p.neg, p.m, p.e, mode),
        (None, None) => {
            if neg {
                -0.0
            } else {
                0.0
            }
        }
        (None, Some(c)) if c == 0.0 => zero_sum(if neg { -0.0 } else { 0.0 }, c, mode),
        (None, Some(c)) => c,
        (Some(p), Some(0.0)) => round(p.neg, p.m, p.e, mode),
        (Some(p), Some(c)) => sum(p, parts(c), mode),
    }
}

/// `a + b` of finite doubles, rounded once.
pub fn add(a: f64, b: f64, mode: Rounding) -> f64 {
    match (a == 0.0, b == 0.0) {
        (true, true) => zero_sum(a, b, mode),
        (true, false) => b,
        (false, true) => a,
        _ => sum(parts(a), parts(b), mode),
    }
}

/// `a / b` of finite nonzero doubles, rounded once: 74 quotient bits or more of the
/// normalized significands and a sticky bit for the remainder (IEEE's DIVM in a
/// directed mode, where the remainder `a - q*b` of the nearest quotient can underflow).
pub fn div(a: f64, b: f64, mode: Rounding) -> f64 {
    let (pa, pb) = (parts(a), parts(b));
    // Leading ones at bit 52 for both (subnormals shifted up).
    let norm = |p: Parts| {
        let s = p.m.leading_zeros() as i32 - 75;
        (p.m << s, p.e - s)
    };
    let ((ma, ea), (mb, eb)) = (norm(pa), norm(pb));
    let num = ma << 74;
    let (q, rem) = (num / mb, num % mb);
    let m = (q << 1) | (rem != 0) as u128;
    round(pa.neg != pb.neg, m, ea - eb - 75, mode)
}

/// The square root of a finite positive double, rounded once: the integer root of the
/// significand scaled to 2^125 or more, and a sticky bit for its remainder.
pub fn sqrt(a: f64, mode: Rounding) -> f64 {
    let p = parts(a);
    let mut s = p.m.leading_zeros() as i32 - 1;
    if (p.e - s) % 2 != 0 {
        s -= 1;
    }
    let (n, e) = (p.m << s, p.e - s);
    let r = isqrt(n);
    let m = (r << 1) | (r * r != n) as u128;
    round(false, m, e / 2 - 1, mode)
}

/// floor(sqrt(n)) for n < 2^127.
fn isqrt(n: u128) -> u128 {
    // Newton from above: the f64 estimate (good to 2^-52 of itself) plus a margin
    // past its error, then down to the floor.
    let est = (n as f64).sqrt() as u128;
    let mut x = est + (est >> 40) + 2;
    loop {
        let y = (x + n / x) / 2;
        if y >= x {
            break;
        }
        x = y;
    }
    while x * x > n {
        x -= 1;
    }
    while (x + 1) * (x + 1) <= n {
        x += 1;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_to_nearest_matches_the_hosts_operations() {
        let xs = [
            1.0,
            0.1,
            -3.5,
            1e-300,
            5e-324,
            1e300,
            -7.25e-310,
            2.0f64.powi(-1022),
        ];
        for &a in &xs {
            for &b in &xs {
                assert_eq!(
                    add(a, b, Rounding::Rne).to_bits(),
                    (a + b).to_bits(),
                    "{a} + {b}"
                );
                let p = mad(a, b, None, Rounding::Rne);
                assert_eq!(p.to_bits(), (a * b).to_bits(), "{a} * {b}");
                for &c in &xs {
                    let r = mad(a, b, Some(c), Rounding::Rne);
                    assert_eq!(r.to_bits(), a.mul_add(b, c).to_bits(), "{a} * {b} + {c}");
                }
            }
        }
    }

    #[test]
    fn directed_modes_round_underflow_and_overflow_as_ieee_says() {
        let tiny = 5e-324;
        // 2^-1075: half the smallest subnormal.
        assert_eq!(mad(tiny, 0.5, None, Rounding::Ru), tiny);
        assert_eq!(mad(tiny, 0.5, None, Rounding::Rd), 0.0);
        assert_eq!(mad(-tiny, 0.5, None, Rounding::Rd), -tiny);
        assert!(mad(-tiny, 0.5, None, Rounding::Rz).is_sign_negative());
        // Past the largest double: infinity only when rounding away from zero.
        assert_eq!(mad(f64::MAX, 2.0, None, Rounding::Rz), f64::MAX);
        assert_eq!(mad(f64::MAX, 2.0, None, Rounding::Ru), f64::INFINITY);
        assert_eq!(mad(-f64::MAX, 2.0, None, Rounding::Ru), -f64::MAX);
        assert_eq!(add(f64::MAX, f64::MAX, Rounding::Rd), f64::MAX);
        // A far smaller addend still moves a directed result by one ulp.
        assert_eq!(add(1.0, 1e-300, Rounding::Ru), 1.0 + f64::EPSILON);
        assert_eq!(add(1.0, -1e-300, Rounding::Rz), 1.0 - f64::EPSILON / 2.0);
        assert_eq!(
            mad(1.0, 1.0, Some(-1e-300), Rounding::Rd),
            1.0 - f64::EPSILON / 2.0
        );
        // Exact cancellation: -0 when rounding down.
        assert!(add(1.0, -1.0, Rounding::Rd).is_sign_negative());
        assert!(add(1.0, -1.0, Rounding::Ru).is_sign_positive());
        // IGC's long -> double: 2^32 * hi + lo in RZ.
        let (hi, lo) = (2147483647.0, 4294967295.0);
        assert_eq!(
            mad(4294967296.0, hi, Some(lo), Rounding::Rz),
            9223372036854774784.0
        );
        assert_eq!(
            mad(4294967296.0, hi, Some(lo), Rounding::Ru),
            9223372036854775808.0
        );
    }

    /// Division and square root against the host's (round to nearest), and each
    /// directed result against the nearest one and the remainder's sign, where the
    /// remainder is exact (no underflow).
    #[test]
    fn division_and_root_round_once_in_every_mode() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let modes = [Rounding::Ru, Rounding::Rd, Rounding::Rz];
        for k in 0..20000 {
            // Exponents spread over the whole range, subnormals included.
            let a = f64::from_bits(next() & !(1 << 63) | if k % 3 == 0 { 1 << 63 } else { 0 });
            let b = f64::from_bits(next() >> (k % 12));
            if !a.is_finite() || !b.is_finite() || a == 0.0 || b == 0.0 {
                continue;
            }
            let q = a / b;
            assert_eq!(
                div(a, b, Rounding::Rne).to_bits(),
                q.to_bits(),
                "{a:e} / {b:e}"
            );
            let r = a.abs().sqrt();
            assert_eq!(
                sqrt(a.abs(), Rounding::Rne).to_bits(),
                r.to_bits(),
                "sqrt {a:e}"
            );
            for mode in modes {
                let d = div(a, b, mode);
                let rem = (-q).mul_add(b, a);
                // The remainder of the nearest quotient is exact unless it underflows,
                // which these bounds rule out.
                let exact_rem = q.is_finite() && q.abs() > 1e-290 && a.abs() > 1e-290;
                if exact_rem && rem != 0.0 {
                    // The exact quotient lies on the remainder's side of q (over b's sign).
                    let above = (rem > 0.0) == (b > 0.0);
                    let want = match (mode, q > 0.0) {
                        (Rounding::Ru, _) if above => next_up(q),
                        (Rounding::Rd, _) if !above => next_down(q),
                        (Rounding::Rz, true) if !above => next_down(q),
                        (Rounding::Rz, false) if above => next_up(q),
                        _ => q,
                    };
                    assert_eq!(d.to_bits(), want.to_bits(), "{a:e} / {b:e} in {mode:?}");
                } else if exact_rem {
                    assert_eq!(d.to_bits(), q.to_bits(), "{a:e} / {b:e} in {mode:?}");
                }
                let s = sqrt(a.abs(), mode);
                let srem = (-r).mul_add(r, a.abs());
                let want = match mode {
                    Rounding::Ru if srem > 0.0 => next_up(r),
                    Rounding::Rd | Rounding::Rz if srem < 0.0 => next_down(r),
                    _ => r,
                };
                if r > 1e-150 {
                    assert_eq!(s.to_bits(), want.to_bits(), "sqrt {a:e} in {mode:?}");
                }
            }
        }
        // Underflow, where the nearest quotient's remainder is not representable:
        // 2^-1074 / 1.5 lies between 0 and 2^-1074 (nearest: 2^-1074).
        let tiny = f64::from_bits(1);
        assert_eq!(div(tiny, 1.5, Rounding::Rd), 0.0);
        assert_eq!(div(tiny, 1.5, Rounding::Ru), tiny);
        assert_eq!(div(tiny, 1.5, Rounding::Rne), tiny);
        assert!(div(-tiny, 1.5, Rounding::Rz).is_sign_negative());
        assert_eq!(div(-tiny, 1.5, Rounding::Rz), 0.0);
        assert_eq!(div(f64::MAX, 0.5, Rounding::Rz), f64::MAX);
        assert_eq!(div(f64::MAX, 0.5, Rounding::Ru), f64::INFINITY);
        assert_eq!(div(1.0, 3.0, Rounding::Ru), next_up(1.0 / 3.0));
        // sqrt(2) = 1.41421356237309504880..., its nearest double lies above it.
        assert_eq!(sqrt(2.0, Rounding::Ru), 2f64.sqrt());
        assert_eq!(sqrt(2.0, Rounding::Rd), next_down(2f64.sqrt()));
        assert_eq!(sqrt(tiny, Rounding::Rne), tiny.sqrt());
        assert_eq!(sqrt(4.0, Rounding::Rd), 2.0);
    }

    fn next_up(x: f64) -> f64 {
        super::super::float::next_up(x)
    }

    fn next_down(x: f64) -> f64 {
        super::super::float::next_down(x)
    }
}
