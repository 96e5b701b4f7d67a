// Exact 64-bit integers as vec2<u32> (x: low word, y: high word), for adapters
// without SHADER_INT64. `translate::lower64` replaces every i64/u64 operation of a
// module with these functions (bitwise operators and truncation to u32 act on the pair
// in place), with WGSL's semantics: wrapping arithmetic, shift
// counts taken modulo 64, x / 0 == x, x % 0 == 0, MIN / -1 == MIN, MIN % -1 == 0,
// float to integer toward zero and saturating (NaN -> 0).

fn e64_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}
fn e64_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}
fn e64_neg(a: vec2<u32>) -> vec2<u32> { return e64_sub(vec2<u32>(0u, 0u), a); }
// 32 x 32 -> 64 from 16-bit halves.
fn e64_mul32(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = p01 + p10;
    let mid_carry = select(0u, 0x10000u, mid < p01);
    let lo = p00 + (mid << 16u);
    let lo_carry = select(0u, 1u, lo < p00);
    return vec2<u32>(lo, p11 + (mid >> 16u) + mid_carry + lo_carry);
}
fn e64_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let p = e64_mul32(a.x, b.x);
    return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}
fn e64_shl(a: vec2<u32>, n0: u32) -> vec2<u32> {
    let n = n0 & 63u;
    if (n == 0u) { return a; }
    if (n >= 32u) { return vec2<u32>(0u, a.x << (n - 32u)); }
    return vec2<u32>(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}
fn u64_shr(a: vec2<u32>, n0: u32) -> vec2<u32> {
    let n = n0 & 63u;
    if (n == 0u) { return a; }
    if (n >= 32u) { return vec2<u32>(a.y >> (n - 32u), 0u); }
    return vec2<u32>((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}
fn i64_shr(a: vec2<u32>, n0: u32) -> vec2<u32> {
    let n = n0 & 63u;
    let fill = select(0u, 0xffffffffu, (a.y >> 31u) != 0u);
    if (n == 0u) { return a; }
    if (n >= 32u) { return vec2<u32>(u32(i32(a.y) >> (n - 32u)), fill); }
    return vec2<u32>((a.x >> n) | (a.y << (32u - n)), u32(i32(a.y) >> n));
}
fn e64_eq(a: vec2<u32>, b: vec2<u32>) -> bool { return a.x == b.x && a.y == b.y; }
fn e64_ne(a: vec2<u32>, b: vec2<u32>) -> bool { return !e64_eq(a, b); }
fn u64_lt(a: vec2<u32>, b: vec2<u32>) -> bool { return a.y < b.y || (a.y == b.y && a.x < b.x); }
fn u64_le(a: vec2<u32>, b: vec2<u32>) -> bool { return !u64_lt(b, a); }
fn u64_gt(a: vec2<u32>, b: vec2<u32>) -> bool { return u64_lt(b, a); }
fn u64_ge(a: vec2<u32>, b: vec2<u32>) -> bool { return !u64_lt(a, b); }
fn i64_lt(a: vec2<u32>, b: vec2<u32>) -> bool {
    return u64_lt(a ^ vec2<u32>(0u, 0x80000000u), b ^ vec2<u32>(0u, 0x80000000u));
}
fn i64_le(a: vec2<u32>, b: vec2<u32>) -> bool { return !i64_lt(b, a); }
fn i64_gt(a: vec2<u32>, b: vec2<u32>) -> bool { return i64_lt(b, a); }
fn i64_ge(a: vec2<u32>, b: vec2<u32>) -> bool { return !i64_lt(a, b); }
fn u64_min(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(b, a, u64_lt(a, b)); }
fn u64_max(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(b, a, u64_lt(b, a)); }
fn i64_min(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(b, a, i64_lt(a, b)); }
fn i64_max(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(b, a, i64_lt(b, a)); }
fn u64_clamp(x: vec2<u32>, lo: vec2<u32>, hi: vec2<u32>) -> vec2<u32> { return u64_min(u64_max(x, lo), hi); }
fn i64_clamp(x: vec2<u32>, lo: vec2<u32>, hi: vec2<u32>) -> vec2<u32> { return i64_min(i64_max(x, lo), hi); }
fn i64_abs(a: vec2<u32>) -> vec2<u32> { return select(a, e64_neg(a), (a.y >> 31u) != 0u); }
fn u64_abs(a: vec2<u32>) -> vec2<u32> { return a; }

// Quotient and remainder of unsigned long division.
struct E64DivRem { q: vec2<u32>, r: vec2<u32> }
fn e64_divrem(a: vec2<u32>, b: vec2<u32>) -> E64DivRem {
    var q = vec2<u32>(0u, 0u);
    var r = vec2<u32>(0u, 0u);
    if (b.y == 0u && b.x != 0u && a.y == 0u) {
        return E64DivRem(vec2<u32>(a.x / b.x, 0u), vec2<u32>(a.x % b.x, 0u));
    }
    for (var i = 63i; i >= 0i; i--) {
        r = e64_shl(r, 1u);
        let word = select(a.x, a.y, i >= 32);
        r.x = r.x | ((word >> (u32(i) & 31u)) & 1u);
        if (!u64_lt(r, b)) {
            r = e64_sub(r, b);
            if (i >= 32) { q.y = q.y | (1u << (u32(i) - 32u)); } else { q.x = q.x | (1u << u32(i)); }
        }
    }
    return E64DivRem(q, r);
}
fn u64_div(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if ((b.x | b.y) == 0u) { return a; }
    return e64_divrem(a, b).q;
}
fn u64_rem(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if ((b.x | b.y) == 0u) { return vec2<u32>(0u, 0u); }
    return e64_divrem(a, b).r;
}
fn i64_div(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if ((b.x | b.y) == 0u) { return a; }
    if (a.x == 0u && a.y == 0x80000000u && (b.x & b.y) == 0xffffffffu) { return a; }
    let na = (a.y >> 31u) != 0u;
    let nb = (b.y >> 31u) != 0u;
    let q = e64_divrem(i64_abs(a), i64_abs(b)).q;
    return select(q, e64_neg(q), na != nb);
}
fn i64_rem(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if ((b.x | b.y) == 0u) { return vec2<u32>(0u, 0u); }
    if (a.x == 0u && a.y == 0x80000000u && (b.x & b.y) == 0xffffffffu) { return vec2<u32>(0u, 0u); }
    let r = e64_divrem(i64_abs(a), i64_abs(b)).r;
    return select(r, e64_neg(r), (a.y >> 31u) != 0u);
}

// Widening follows the destination's signedness, as naga's SPIR-V output does
// (`u64(i32)` zero-extends, `i64(u32)` sign-extends): the emulated module computes
// what the native one computes on Vulkan.
fn u64_from_u32(a: u32) -> vec2<u32> { return vec2<u32>(a, 0u); }
fn u64_from_i32(a: i32) -> vec2<u32> { return vec2<u32>(bitcast<u32>(a), 0u); }
fn i64_from_i32(a: i32) -> vec2<u32> { return vec2<u32>(bitcast<u32>(a), select(0u, 0xffffffffu, a < 0)); }
fn i64_from_u32(a: u32) -> vec2<u32> { return vec2<u32>(a, select(0u, 0xffffffffu, (a >> 31u) != 0u)); }
fn u64_from_bool(a: bool) -> vec2<u32> { return vec2<u32>(select(0u, 1u, a), 0u); }
fn e64_to_i32(a: vec2<u32>) -> i32 { return bitcast<i32>(a.x); }
fn e64_to_bool(a: vec2<u32>) -> bool { return (a.x | a.y) != 0u; }
fn e64_popcount(a: vec2<u32>) -> vec2<u32> { return vec2<u32>(countOneBits(a.x) + countOneBits(a.y), 0u); }

// Unsigned magnitude to f32, round to nearest even.
fn u64_to_f32(a: vec2<u32>) -> f32 {
    if (a.y == 0u) {
        if (a.x < 0x1000000u) { return f32(a.x); }
    }
    let lz = select(countLeadingZeros(a.x) + 32u, countLeadingZeros(a.y), a.y != 0u);
    let top = 63u - lz;
    // 24 significant bits, then the dropped bits for rounding.
    let sh = top - 23u;
    let m = u64_shr(a, sh).x;
    let dropped = e64_sub(a, e64_shl(vec2<u32>(m, 0u), sh));
    let half = e64_shl(vec2<u32>(1u, 0u), sh - 1u);
    var r = m;
    if (u64_gt(dropped, half) || (e64_eq(dropped, half) && (m & 1u) == 1u)) { r = r + 1u; }
    // r may carry to 2^24: still exact as an f32 scale below.
    return f32(r) * exp2(f32(sh));
}
fn i64_to_f32(a: vec2<u32>) -> f32 {
    if ((a.y >> 31u) != 0u) { return -u64_to_f32(e64_neg(a)); }
    return u64_to_f32(a);
}
fn u64_from_f32(f: f32) -> vec2<u32> {
    if (!(f >= 1.0)) { return vec2<u32>(0u, 0u); }
    if (f >= 18446744073709551616.0) { return vec2<u32>(0xffffffffu, 0xffffffffu); }
    let b = bitcast<u32>(f);
    let e = i32((b >> 23u) & 0xffu) - 150;
    let m = (b & 0x7fffffu) | 0x800000u;
    if (e >= 0) { return e64_shl(vec2<u32>(m, 0u), u32(e)); }
    return vec2<u32>(m >> u32(-e), 0u);
}
fn i64_from_f32(f: f32) -> vec2<u32> {
    // A NaN on the bits (`!=` on floats is ordered in naga's SPIR-V).
    if ((bitcast<u32>(f) & 0x7fffffffu) > 0x7f800000u) { return vec2<u32>(0u, 0u); }
    if (f >= 9223372036854775808.0) { return vec2<u32>(0xffffffffu, 0x7fffffffu); }
    if (f <= -9223372036854775808.0) { return vec2<u32>(0u, 0x80000000u); }
    if (f < 0.0) { return e64_neg(u64_from_f32(-f)); }
    return u64_from_f32(f);
}
