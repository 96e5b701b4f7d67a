// Exact IEEE-754 binary64 on its bits (u64), for adapters without SHADER_F64.
// `translate::lower64` replaces every f64 operation of a module with these
// functions; they use 64-bit integers only, which the int64 stage can lower in turn.
// Round to nearest even, subnormals kept, NaN results: the first NaN operand
// quieted, else the default NaN (positive, quiet), as the interpreter does.
// The structure follows Berkeley SoftFloat 3 (round-and-pack on a significand with its
// leading one at bit 62 and ten rounding bits).

const SF_SIGN: u64 = 0x8000000000000000lu;
const SF_INF: u64 = 0x7ff0000000000000lu;
const SF_QNAN: u64 = 0x7ff8000000000000lu;
const SF_FRAC: u64 = 0x000ffffffffffffflu;
const SF_HIDDEN: u64 = 0x0010000000000000lu;

struct SfU128 { hi: u64, lo: u64 }
// A finite nonzero value as m * 2^e (m < 2^53 with its leading one at bit 52).
struct SfParts { m: u64, e: i32 }

fn sf_is_nan(a: u64) -> bool { return (a & ~SF_SIGN) > SF_INF; }
fn sf_exp(a: u64) -> i32 { return i32(u32(a >> 52u) & 0x7ffu); }
// Infinite or NaN (all exponent bits set); zero of either sign.
fn sf_inf_nan(a: u64) -> bool { return sf_exp(a) == 0x7ff; }
fn sf_zero(a: u64) -> bool { return (a & ~SF_SIGN) == 0lu; }
fn sf_clz64(a: u64) -> u32 {
    let hi = u32(a >> 32u);
    if (hi != 0u) { return countLeadingZeros(hi); }
    return 32u + countLeadingZeros(u32(a & 0xfffffffflu));
}
fn sf_nan2(a: u64, b: u64) -> u64 {
    if (sf_is_nan(a)) { return a | 0x0008000000000000lu; }
    return b | 0x0008000000000000lu;
}
fn sf_pack(sign: u64, e: i32, sig: u64) -> u64 { return sign + (u64(u32(e)) << 52u) + sig; }
// a >> n, any bit shifted out ORed into bit 0.
fn sf_jam64(a: u64, n: u32) -> u64 {
    if (n == 0u) { return a; }
    if (n >= 64u) { return select(0lu, 1lu, a != 0lu); }
    return (a >> n) | select(0lu, 1lu, (a << (64u - n)) != 0lu);
}
// Normalized parts of a finite nonzero value (subnormals shifted up).
fn sf_parts(a: u64) -> SfParts {
    let e = sf_exp(a);
    let f = a & SF_FRAC;
    if (e == 0) {
        let s = sf_clz64(f) - 11u;
        return SfParts(f << s, -1074 - i32(s));
    }
    return SfParts(f | SF_HIDDEN, e - 1075);
}

// SoftFloat's roundPackToF64: `sig` has its leading one at bit 62 (or is smaller for
// subnormal results), `e` is the biased exponent minus one.
fn sf_round_pack(sign: u64, e0: i32, sig0: u64) -> u64 { return sf_round_pack_rm(sign, e0, sig0, 0u); }
// In the cr0 rounding mode `md` (0 RNE, 1 RU, 2 RD, 3 RZ): SoftFloat's increments, and
// an overflow that does not round away from zero stops at the largest finite value.
fn sf_round_pack_rm(sign: u64, e0: i32, sig0: u64, md: u32) -> u64 {
    var e = e0;
    var sig = sig0;
    var inc = 0x200lu;
    if (md != 0u) {
        let away = (md == 1u && sign == 0lu) || (md == 2u && sign != 0lu);
        inc = select(0lu, 0x3fflu, away);
    }
    var round_bits = u32(sig & 0x3fflu);
    if (e < 0 || e >= 0x7fd) {
        if (e < 0) {
            sig = sf_jam64(sig, u32(-e));
            e = 0;
            round_bits = u32(sig & 0x3fflu);
        } else if (e > 0x7fd || sig + inc >= SF_SIGN) {
            return (sign | SF_INF) - select(0lu, 1lu, inc == 0lu);
        }
    }
    sig = (sig + inc) >> 10u;
    if (round_bits == 0x200u && md == 0u) { sig = sig & ~1lu; }
    if (sig == 0lu) { e = 0; }
    return sf_pack(sign, e, sig);
}
fn sf_norm_round_pack(sign: u64, e: i32, sig: u64) -> u64 {
    let s = sf_clz64(sig) - 1u;
    let e2 = e - i32(s);
    if (s >= 10u && e2 >= 0 && e2 < 0x7fd) {
        return sf_pack(sign, select(0, e2, sig != 0lu), sig << (s - 10u));
    }
    return sf_round_pack(sign, e2, sig << s);
}

// 128-bit helpers.
fn sf_mul128(a: u64, b: u64) -> SfU128 {
    let a0 = a & 0xfffffffflu;
    let a1 = a >> 32u;
    let b0 = b & 0xfffffffflu;
    let b1 = b >> 32u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = p01 + p10;
    let mid_carry = select(0lu, 1lu << 32u, mid < p01);
    let lo = p00 + (mid << 32u);
    let lo_carry = select(0lu, 1lu, lo < p00);
    return SfU128(p11 + (mid >> 32u) + mid_carry + lo_carry, lo);
}
fn sf_clz128(a: SfU128) -> u32 {
    if (a.hi != 0lu) { return sf_clz64(a.hi); }
    return 64u + sf_clz64(a.lo);
}
fn sf_shl128(a: SfU128, n: u32) -> SfU128 {
    if (n == 0u) { return a; }
    if (n >= 128u) { return SfU128(0lu, 0lu); }
    if (n >= 64u) { return SfU128(a.lo << (n - 64u), 0lu); }
    return SfU128((a.hi << n) | (a.lo >> (64u - n)), a.lo << n);
}
// a >> n with every lost bit ORed into bit 0.
fn sf_jam128(a: SfU128, n: u32) -> SfU128 {
    if (n == 0u) { return a; }
    if (n >= 128u) { return SfU128(0lu, select(0lu, 1lu, (a.hi | a.lo) != 0lu)); }
    if (n >= 64u) {
        return SfU128(0lu, sf_jam64(a.hi, n - 64u) | select(0lu, 1lu, a.lo != 0lu));
    }
    let lost = (a.lo << (64u - n)) != 0lu;
    return SfU128(a.hi >> n, ((a.lo >> n) | (a.hi << (64u - n))) | select(0lu, 1lu, lost));
}
fn sf_add128(a: SfU128, b: SfU128) -> SfU128 {
    let lo = a.lo + b.lo;
    return SfU128(a.hi + b.hi + select(0lu, 1lu, lo < a.lo), lo);
}
fn sf_sub128(a: SfU128, b: SfU128) -> SfU128 {
    return SfU128(a.hi - b.hi - select(0lu, 1lu, a.lo < b.lo), a.lo - b.lo);
}
fn sf_lt128(a: SfU128, b: SfU128) -> bool {
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

// Round the exact value (-1)^sign * r * 2^e (r != 0) to binary64.
fn sf_round128(sign: u64, r: SfU128, e: i32) -> u64 { return sf_round128_rm(sign, r, e, 0u); }
fn sf_round128_rm(sign: u64, r: SfU128, e: i32, md: u32) -> u64 {
    let top = 127 - i32(sf_clz128(r));
    var sig: u64;
    if (top > 62) {
        sig = sf_jam128(r, u32(top - 62)).lo;
    } else {
        sig = sf_shl128(r, u32(62 - top)).lo;
    }
    return sf_round_pack_rm(sign, e + top + 1022, sig, md);
}

// (-1)^sx * x * 2^ex + (-1)^sy * y * 2^ey, exact then rounded once in mode `md`; x, y
// nonzero and below 2^106. An exact zero is -0 when rounding down (IEEE 754 6.3).
fn sf_sum(sx: u64, x0: SfU128, ex0: i32, sy: u64, y0: SfU128, ey0: i32, md: u32) -> u64 {
    // Leading ones at bit 125: room for the carry, 20+ bits below the 106-bit operands.
    let nx = sf_clz128(x0) - 2u;
    let ny = sf_clz128(y0) - 2u;
    var x = sf_shl128(x0, nx);
    var y = sf_shl128(y0, ny);
    let ex = ex0 - i32(nx);
    let ey = ey0 - i32(ny);
    var e = ex;
    if (ex >= ey) {
        y = sf_jam128(y, u32(min(ex - ey, 200)));
    } else {
        x = sf_jam128(x, u32(min(ey - ex, 200)));
        e = ey;
    }
    if (sx == sy) { return sf_round128_rm(sx, sf_add128(x, y), e, md); }
    if (sf_lt128(x, y)) { return sf_round128_rm(sy, sf_sub128(y, x), e, md); }
    let d = sf_sub128(x, y);
    if ((d.hi | d.lo) == 0lu) { return select(0lu, SF_SIGN, md == 2u); }
    return sf_round128_rm(sx, d, e, md);
}

fn f64_add(a: u64, b: u64) -> u64 { return f64_add_rm(a, b, 0u); }
fn f64_add_rm(a: u64, b: u64, md: u32) -> u64 {
    if (sf_is_nan(a) || sf_is_nan(b)) { return sf_nan2(a, b); }
    let sa = a & SF_SIGN;
    let sb = b & SF_SIGN;
    let ea = sf_exp(a);
    let eb = sf_exp(b);
    if (ea == 0x7ff || eb == 0x7ff) {
        if (ea == 0x7ff && eb == 0x7ff && sa != sb) { return SF_QNAN; }
        return select(b, a, ea == 0x7ff);
    }
    let za = sf_zero(a);
    let zb = sf_zero(b);
    if (za && zb) { return select(sa & sb, sa | sb, md == 2u); }
    if (za) { return b; }
    if (zb) { return a; }
    let pa = sf_parts(a);
    let pb = sf_parts(b);
    return sf_sum(sa, SfU128(0lu, pa.m), pa.e, sb, SfU128(0lu, pb.m), pb.e, md);
}
fn f64_sub(a: u64, b: u64) -> u64 {
    if (sf_is_nan(a) || sf_is_nan(b)) { return sf_nan2(a, b); }
    return f64_add(a, b ^ SF_SIGN);
}
fn f64_mul(a: u64, b: u64) -> u64 { return f64_mul_rm(a, b, 0u); }
fn f64_mul_rm(a: u64, b: u64, md: u32) -> u64 {
    if (sf_is_nan(a) || sf_is_nan(b)) { return sf_nan2(a, b); }
    let s = (a ^ b) & SF_SIGN;
    let ia = sf_inf_nan(a);
    let ib = sf_inf_nan(b);
    let za = sf_zero(a);
    let zb = sf_zero(b);
    if (ia || ib) {
        if (za || zb) { return SF_QNAN; }
        return s | SF_INF;
    }
    if (za || zb) { return s; }
    let pa = sf_parts(a);
    let pb = sf_parts(b);
    return sf_round128_rm(s, sf_mul128(pa.m, pb.m), pa.e + pb.e, md);
}
fn f64_fma(a: u64, b: u64, c: u64) -> u64 { return f64_fma_rm(a, b, c, 0u); }
fn f64_fma_rm(a: u64, b: u64, c: u64, md: u32) -> u64 {
    if (sf_is_nan(a) || sf_is_nan(b) || sf_is_nan(c)) {
        if (sf_is_nan(a) || sf_is_nan(b)) { return sf_nan2(a, b); }
        return c | 0x0008000000000000lu;
    }
    let sp = (a ^ b) & SF_SIGN;
    let sc = c & SF_SIGN;
    let ia = sf_inf_nan(a);
    let ib = sf_inf_nan(b);
    let ic = sf_inf_nan(c);
    let za = sf_zero(a);
    let zb = sf_zero(b);
    let zc = sf_zero(c);
    if (ia || ib) {
        if (za || zb) { return SF_QNAN; }
        if (ic && sc != sp) { return SF_QNAN; }
        return sp | SF_INF;
    }
    if (ic) { return c; }
    if (za || zb) {
        if (zc) { return select(sp & sc, sp | sc, md == 2u); }
        return c;
    }
    let pa = sf_parts(a);
    let pb = sf_parts(b);
    let p = sf_mul128(pa.m, pb.m);
    if (zc) { return sf_round128_rm(sp, p, pa.e + pb.e, md); }
    let pc = sf_parts(c);
    return sf_sum(sp, p, pa.e + pb.e, sc, SfU128(0lu, pc.m), pc.e, md);
}
fn f64_div(a: u64, b: u64) -> u64 { return f64_div_rm(a, b, 0u); }
fn f64_div_rm(a: u64, b: u64, md: u32) -> u64 {
    if (sf_is_nan(a) || sf_is_nan(b)) { return sf_nan2(a, b); }
    let s = (a ^ b) & SF_SIGN;
    let ia = sf_inf_nan(a);
    let ib = sf_inf_nan(b);
    let za = sf_zero(a);
    let zb = sf_zero(b);
    if (ia) {
        if (ib) { return SF_QNAN; }
        return s | SF_INF;
    }
    if (ib) { return s; }
    if (zb) {
        if (za) { return SF_QNAN; }
        return s | SF_INF;
    }
    if (za) { return s; }
    let pa = sf_parts(a);
    let pb = sf_parts(b);
    var r = pa.m;
    var e = pa.e - pb.e;
    if (r < pb.m) { r = r << 1u; e = e - 1; }
    // 63 quotient bits of r / m_b in [1, 2): the leading one lands on bit 62.
    var q = 0lu;
    for (var i = 0u; i < 63u; i++) {
        q = q << 1u;
        if (r >= pb.m) { r = r - pb.m; q = q | 1lu; }
        r = r << 1u;
    }
    if (r != 0lu) { q = q | 1lu; }
    return sf_round_pack_rm(s, e + 1022, q, md);
}
fn f64_sqrt(a: u64) -> u64 { return f64_sqrt_rm(a, 0u); }
fn f64_sqrt_rm(a: u64, md: u32) -> u64 {
    if (sf_is_nan(a)) { return a | 0x0008000000000000lu; }
    if ((a & ~SF_SIGN) == 0lu) { return a; }
    if ((a & SF_SIGN) != 0lu) { return SF_QNAN; }
    if (sf_exp(a) == 0x7ff) { return a; }
    let p = sf_parts(a);
    // value = m * 2^e with m in [2^52, 2^53); make e + 52 even.
    var m = p.m;
    var e = p.e + 52;
    if ((e & 1) != 0) { m = m << 1u; e = e - 1; }
    // Digit by digit: root = floor(sqrt(m * 2^56)), 55 bits, leading one at bit 54.
    var rem = 0lu;
    var root = 0lu;
    for (var i = 0u; i < 55u; i++) {
        var pair = 0lu;
        if (i < 27u) { pair = (m >> (52u - 2u * i)) & 3lu; }
        rem = (rem << 2u) | pair;
        let trial = (root << 2u) | 1lu;
        root = root << 1u;
        if (rem >= trial) { rem = rem - trial; root = root | 1lu; }
    }
    let sig = (root << 8u) | select(0lu, 1lu, rem != 0lu);
    return sf_round_pack_rm(0lu, (e >> 1u) + 1022, sig, md);
}
fn f64_neg(a: u64) -> u64 { return a ^ SF_SIGN; }
fn f64_abs(a: u64) -> u64 { return a & ~SF_SIGN; }

fn f64_eq(a: u64, b: u64) -> bool {
    if (sf_is_nan(a) || sf_is_nan(b)) { return false; }
    return a == b || ((a | b) & ~SF_SIGN) == 0lu;
}
fn f64_ne(a: u64, b: u64) -> bool { return !f64_eq(a, b); }
fn f64_lt(a: u64, b: u64) -> bool {
    if (sf_is_nan(a) || sf_is_nan(b)) { return false; }
    let sa = (a & SF_SIGN) != 0lu;
    let sb = (b & SF_SIGN) != 0lu;
    if (sa != sb) { return sa && ((a | b) & ~SF_SIGN) != 0lu; }
    if (sa) { return a > b; }
    return a < b;
}
fn f64_le(a: u64, b: u64) -> bool { return f64_lt(a, b) || f64_eq(a, b); }
fn f64_gt(a: u64, b: u64) -> bool { return f64_lt(b, a); }
fn f64_ge(a: u64, b: u64) -> bool { return f64_le(b, a); }
// WGSL leaves min/max of NaN to the implementation; the number wins here.
fn f64_min(a: u64, b: u64) -> u64 {
    if (sf_is_nan(a)) { return b; }
    if (sf_is_nan(b)) { return a; }
    return select(b, a, f64_lt(a, b));
}
fn f64_max(a: u64, b: u64) -> u64 {
    if (sf_is_nan(a)) { return b; }
    if (sf_is_nan(b)) { return a; }
    return select(b, a, f64_lt(b, a));
}
fn f64_clamp(x: u64, lo: u64, hi: u64) -> u64 { return f64_min(f64_max(x, lo), hi); }

fn f64_trunc(a: u64) -> u64 {
    let e = sf_exp(a);
    if (e >= 1075) { return select(a, a | 0x0008000000000000lu, sf_is_nan(a)); }
    if (e < 1023) { return a & SF_SIGN; }
    return a & ~((1lu << u32(1075 - e)) - 1lu);
}
fn f64_floor(a: u64) -> u64 {
    let t = f64_trunc(a);
    if (t != a && (a & SF_SIGN) != 0lu && !sf_is_nan(a)) { return f64_add(t, 0xbff0000000000000lu); }
    return t;
}
fn f64_ceil(a: u64) -> u64 {
    let t = f64_trunc(a);
    if (t != a && (a & SF_SIGN) == 0lu && !sf_is_nan(a)) { return f64_add(t, 0x3ff0000000000000lu); }
    return t;
}
// Round half to even (WGSL's round).
fn f64_round(a: u64) -> u64 {
    let e = sf_exp(a);
    if (e >= 1075) { return select(a, a | 0x0008000000000000lu, sf_is_nan(a)); }
    if (e < 1022) { return a & SF_SIGN; }
    let t = f64_trunc(a);
    let frac = f64_abs(f64_sub(a, t));
    let half = 0x3fe0000000000000lu;
    var up = f64_gt(frac, half);
    if (frac == half) {
        // Ties: away from t when t is odd.
        let te = sf_exp(t);
        var odd = false;
        if (te >= 1023 && te < 1076) {
            odd = ((t >> u32(1075 - te)) & 1lu) == 1lu;
            if (te == 1023) { odd = true; }
        }
        up = odd;
    }
    if (!up) { return t; }
    return f64_add(t, (a & SF_SIGN) | 0x3ff0000000000000lu);
}

fn f64_from_f32(f: f32) -> u64 {
    let b = bitcast<u32>(f);
    let s = u64(b >> 31u) << 63u;
    let e = (b >> 23u) & 0xffu;
    let m = u64(b & 0x7fffffu);
    if (e == 0xffu) {
        if (m != 0lu) { return s | SF_QNAN | (m << 29u); }
        return s | SF_INF;
    }
    if (e == 0u) {
        if (m == 0lu) { return s; }
        let sh = sf_clz64(m) - 40u;
        return s | (u64(897u - sh) << 52u) | ((m << (sh + 29u)) & SF_FRAC);
    }
    return s | (u64(e + 1023u - 127u) << 52u) | (m << 29u);
}
fn f64_to_f32(a: u64) -> f32 {
    let s = u32(a >> 63u) << 31u;
    let e = sf_exp(a);
    let f = a & SF_FRAC;
    if (e == 0x7ff) {
        if (f != 0lu) { return bitcast<f32>(s | 0x7fc00000u | u32(f >> 29u)); }
        return bitcast<f32>(s | 0x7f800000u);
    }
    // 30 significant bits (sticky at bit 0), then SoftFloat's roundPackToF32.
    var sig = u32(sf_jam64(f, 22u));
    if (e == 0 && sig == 0u) { return bitcast<f32>(s); }
    sig = sig | 0x40000000u;
    var ex = e - 0x381;
    var round_bits = sig & 0x7fu;
    if (ex < 0 || ex >= 0xfd) {
        if (ex < 0) {
            let n = u32(-ex);
            if (n >= 32u) { sig = select(0u, 1u, sig != 0u); } else {
                sig = (sig >> n) | select(0u, 1u, (sig << (32u - n)) != 0u);
            }
            ex = 0;
            round_bits = sig & 0x7fu;
        } else if (ex > 0xfd || sig + 0x40u >= 0x80000000u) {
            return bitcast<f32>(s | 0x7f800000u);
        }
    }
    sig = (sig + 0x40u) >> 7u;
    if (round_bits == 0x40u) { sig = sig & ~1u; }
    if (sig == 0u) { ex = 0; }
    return bitcast<f32>(s + (u32(ex) << 23u) + sig);
}
fn f64_from_u64(a: u64) -> u64 {
    if (a == 0lu) { return 0lu; }
    if ((a >> 63u) != 0lu) { return sf_round_pack(0lu, 0x43d, sf_jam64(a, 1u)); }
    return sf_norm_round_pack(0lu, 0x43c, a);
}
fn f64_from_i64(a: i64) -> u64 {
    // The magnitude first, then the special cases: llvmpipe (LLVM 15) miscompiled the
    // SoftFloat order (zero test, then negate) for a sign-extended i32 argument.
    let bits = bitcast<u64>(a);
    let neg = (bits >> 63u) != 0lu;
    var mag = bits;
    if (neg) { mag = 0lu - bits; }
    if (mag == 0lu) { return 0lu; }
    if ((mag >> 63u) != 0lu) { return 0xc3e0000000000000lu; }
    return sf_norm_round_pack(select(0lu, SF_SIGN, neg), 0x43c, mag);
}
fn f64_from_u32(a: u32) -> u64 { return f64_from_u64(u64(a)); }
// From the u32 magnitude: llvmpipe (LLVM 15) miscompiled f64_from_i64(i64(a)) after
// inlining (the sign extension came out as garbage).
fn f64_from_i32(a: i32) -> u64 {
    let neg = a < 0;
    let mag = select(bitcast<u32>(a), 0u - bitcast<u32>(a), neg);
    if (mag == 0u) { return 0lu; }
    return sf_norm_round_pack(select(0lu, SF_SIGN, neg), 0x43c, u64(mag));
}
// Toward zero, saturating; NaN -> 0.
fn sf_to_u64_mag(a: u64) -> u64 {
    let e = sf_exp(a);
    if (e < 1023) { return 0lu; }
    if (e >= 1023 + 64) { return 0xfffffffffffffffflu; }
    let m = (a & SF_FRAC) | SF_HIDDEN;
    if (e >= 1075) { return m << u32(e - 1075); }
    return m >> u32(1075 - e);
}
fn f64_to_u64(a: u64) -> u64 {
    if (sf_is_nan(a) || (a & SF_SIGN) != 0lu) { return 0lu; }
    return sf_to_u64_mag(a);
}
fn f64_to_i64(a: u64) -> i64 {
    if (sf_is_nan(a)) { return 0li; }
    let mag = sf_to_u64_mag(a & ~SF_SIGN);
    if ((a & SF_SIGN) != 0lu) {
        if (mag >= SF_SIGN) { return bitcast<i64>(SF_SIGN); }
        return bitcast<i64>(0lu - mag);
    }
    if (mag >= SF_SIGN) { return 0x7fffffffffffffffli; }
    return bitcast<i64>(mag);
}
fn f64_to_u32(a: u64) -> u32 { return u32(min(f64_to_u64(a), 0xfffffffflu)); }
fn f64_to_i32(a: u64) -> i32 { return i32(clamp(f64_to_i64(a), -2147483648li, 2147483647li)); }

// A fused f64 multiply-add with one rounding for modules with native f64: WGSL's
// fma(f64) may round twice (lavapipe's does). The translator adds this library to
// modules whose code calls it (DF `mad`).
fn dfma(x: f64, y: f64, z: f64) -> f64 {
    return bitcast<f64>(f64_fma(bitcast<u64>(x), bitcast<u64>(y), bitcast<u64>(z)));
}

// DF add, mul and mad in the cr0 rounding mode `md`, one rounding on the bits (IGC runs
// `mad` in RZ, RU and RD for long -> double conversions). In round-to-nearest the
// translator calls their twins (`dadd_rne`, `dmul_rne` in runtime.wgsl, `dfma`), so
// only modules with a directed mode take this library for them.
fn dadd_rm(x: f64, y: f64, md: u32) -> f64 {
    return bitcast<f64>(f64_add_rm(bitcast<u64>(x), bitcast<u64>(y), md));
}
fn dmul_rm(x: f64, y: f64, md: u32) -> f64 {
    return bitcast<f64>(f64_mul_rm(bitcast<u64>(x), bitcast<u64>(y), md));
}
fn dfma_rm(x: f64, y: f64, z: f64, md: u32) -> f64 {
    return bitcast<f64>(f64_fma_rm(bitcast<u64>(x), bitcast<u64>(y), bitcast<u64>(z), md));
}
// DIVM and SQRTM of DF in the cr0 mode (round-to-nearest: `ddiv`, `dsqrt`).
fn ddiv_rm(x: f64, y: f64, md: u32) -> f64 {
    return bitcast<f64>(f64_div_rm(bitcast<u64>(x), bitcast<u64>(y), md));
}
fn dsqrt_rm(x: f64, md: u32) -> f64 {
    return bitcast<f64>(f64_sqrt_rm(bitcast<u64>(x), md));
}

// DF division and square root rounded once on any adapter: Vulkan lets a driver's
// native f64 `/` and `sqrt` be off by ulps (NVIDIA's division is, by one in some
// cases). The host sets this to `true` where its probe finds either inexact
// (`backend::gpu::float_fixes`); they then run on the bits. F, HF and BF go through
// native f64 still: a few ulps of f64 cannot move their once-rounded results.
const F64_SOFT_DIV: bool = false;

fn ddiv(x: f64, y: f64) -> f64 {
    if (F64_SOFT_DIV) { return bitcast<f64>(f64_div(bitcast<u64>(x), bitcast<u64>(y))); }
    return x / y;
}

fn dsqrt(x: f64) -> f64 {
    if (F64_SOFT_DIV) { return bitcast<f64>(f64_sqrt(bitcast<u64>(x))); }
    return sqrt(x);
}
