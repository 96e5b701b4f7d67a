// DPAS, the systolic matrix multiply-add D = C + A x B, over a thread's GRF image
// (the interpreter's `alu::dpas`, DPAS page pseudo-code). A row is `n` dwords (one
// GRF); Dst and Src0 hold `rc` rows, Src1 (B) holds in dword i of row m the elements
// of column i for the depths sharing row m, Src2 (A) is a flat array of elements,
// `sd * ops` per repeat. Channels are independent, so each runs its depths in turn.
// Precision codes: 1 u1, 2 s1, 3 u2, 4 s2, 5 u4, 6 s4, 7 u8, 8 s8, 9 bf, 10 hf, 11 tf32.
// Accumulator type codes: 0 none (a null Src0: zero), 1 D/UD, 2 F, 3 HF, 4 BF.

fn dpas_bits(p: u32) -> u32 {
    if (p >= 11u) { return 32u; }
    if (p >= 9u) { return 16u; }
    return 1u << ((p - 1u) >> 1u);
}

// Element `j` of a dword holding elements of `bits` bits from element `first` on, as
// an integer of precision `p` (signed precisions have even codes).
fn dpas_int(w: u32, first: u32, j: u32, bits: u32, p: u32) -> i32 {
    let sh = (first + j) * bits;
    let raw = (w >> (sh & 31u)) & ((1u << bits) - 1u);
    if ((p & 1u) == 0u) {
        return (bitcast<i32>(raw << (32u - bits))) >> (32u - bits);
    }
    return i32(raw);
}

// dot4 or dot8 of B's elements from `first` in `bw` and A's from `fa` in `aw` (the
// elements of one depth share a dword: ops * bits <= 32). Unrolled: llvmpipe caps the
// loop back-edges an invocation may take.
fn dpas_dot(bw: u32, first: u32, wb: u32, w: u32, aw: u32, fa: u32, ab: u32, a: u32, ops: u32) -> i32 {
    var dot = dpas_int(bw, first, 0u, wb, w) * dpas_int(aw, fa, 0u, ab, a)
        + dpas_int(bw, first, 1u, wb, w) * dpas_int(aw, fa, 1u, ab, a)
        + dpas_int(bw, first, 2u, wb, w) * dpas_int(aw, fa, 2u, ab, a)
        + dpas_int(bw, first, 3u, wb, w) * dpas_int(aw, fa, 3u, ab, a);
    if (ops == 8u) {
        dot += dpas_int(bw, first, 4u, wb, w) * dpas_int(aw, fa, 4u, ab, a)
            + dpas_int(bw, first, 5u, wb, w) * dpas_int(aw, fa, 5u, ab, a)
            + dpas_int(bw, first, 6u, wb, w) * dpas_int(aw, fa, 6u, ab, a)
            + dpas_int(bw, first, 7u, wb, w) * dpas_int(aw, fa, 7u, ab, a);
    }
    return dot;
}

// A float element's value (exact in f64).
fn dpas_float(raw: u32, p: u32) -> f64 {
    if (p == 10u) { return f64(hf2f(raw & 0xffffu)); }
    if (p == 9u) { return w32(bf2f(raw & 0xffffu)); }
    return w32(bitcast<f32>(raw & 0xffffe000u));
}

// t + p0 + p1 rounded once to f32 (products exact in f64; `sum3_32`).
fn dpas_acc(t: f32, p0: f64, p1: f64) -> f32 {
    return sum3_32(w32(t), p0, p1, 0u);
}

fn dpas_run(dst: u32, s0: u32, s0_ty: u32, d_ty: u32, s1: u32, s2: u32, w: u32, a: u32,
            sd: u32, rc: u32, n: u32, ce: u32) {
    let fl = w >= 9u;
    let wb = dpas_bits(w);
    let ab = dpas_bits(a);
    var ops = 8u;
    if (fl) { ops = 32u / wb; } else if (wb == 8u || ab == 8u) { ops = 4u; }
    let per_chan = max(32u / (ops * wb), 1u);
    let s0_size = select(4u, 2u, s0_ty >= 3u);
    let d_size = select(4u, 2u, d_ty >= 3u);
    // loop-bound: 8
    for (var r = 0u; r < rc; r++) {
        // loop-bound: 16
        for (var i = 0u; i < n; i++) {
            let e = r * n + i;
            var c = 0u;
            if (s0_ty != 0u) { c = u32(gld(s0 + e * s0_size, s0_size)); }
            var ti = c;
            var tf = bitcast<f32>(c);
            if (s0_ty == 3u) { tf = hf2f(c); }
            if (s0_ty == 4u) { tf = bf2f(c); }
            // loop-bound: 8
            for (var d = 0u; d < sd; d++) {
                let m = d / per_chan;
                let first = (d % per_chan) * ops;
                let bw = u32(gld(s1 + (m * n + i) * 4u, 4u));
                let k = (r * sd + d) * ops;
                let aw = u32(gld(s2 + ((k * ab) >> 5u) * 4u, 4u));
                let af = (k * ab) & 31u;
                if (fl) {
                    let p0 = dpas_float(bw >> (first * wb), w) * dpas_float(aw >> af, a);
                    var p1 = 0.0lf;
                    if (ops == 2u) {
                        p1 = dpas_float(bw >> ((first + 1u) * wb), w) * dpas_float(aw >> (af + 16u), a);
                    }
                    tf = dpas_acc(tf, p0, p1);
                } else {
                    ti = ti + bitcast<u32>(dpas_dot(bw, first, wb, w, aw, af / ab, ab, a, ops));
                }
            }
            if ((ce & (1u << i)) != 0u) {
                var v = ti;
                if (fl) {
                    v = bitcast<u32>(tf);
                    if (d_ty == 3u) { v = f2hf(tf); }
                    if (d_ty == 4u) { v = f64_to_bf(w32(tf)); }
                    // A NaN result is the canonical NaN (`canon_nan`).
                    if (nan32(tf)) { v = select(select(0x7fc00000u, 0x7e00u, d_ty == 3u), 0x7fc0u, d_ty == 4u); }
                }
                gst(dst + e * d_size, d_size, u64(v));
            }
        }
    }
}
