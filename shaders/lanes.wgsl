// ---- lane mode (translate/lanes.rs): one invocation per SIMD channel ------------------
//
// Every invocation holds its own copy of the thread's state (the `g`, `pr`... of the
// thread mapping). Words that one channel writes and another reads are mirrored here:
// every write to them also lands in `xg` (`xp` for predicates), and after a per-lane
// instruction the invocations meet and copy the mirrored words back.

var<private> lane: u32;
var<workgroup> xg: array<atomic<u32>, K_XG_WORDS>;
var<workgroup> xp: array<atomic<u32>, K_NPRED>;

// Bits `m` of mirror word `w` become `v` (other lanes may own the other bits).
fn xmerge(w: u32, m: u32, v: u32) {
    if (m == 0u || w >= K_XG_WORDS) { return; }
    atomicAnd(&xg[w], ~m);
    atomicOr(&xg[w], v & m);
}

// `gst` that also mirrors the bytes it stores.
fn gstm(o: u32, n: u32, v: u64) {
    gst(o, n, v);
    var m = 0xfffffffffffffffflu;
    if (n < 8u) { m = (1lu << (8u * n)) - 1lu; }
    let vlo = u32(v & 0xfffffffflu);
    let vhi = u32(v >> 32u);
    let mlo = u32(m & 0xfffffffflu);
    let mhi = u32(m >> 32u);
    let w = o >> 2u;
    let s = (o & 3u) * 8u;
    if (s == 0u) {
        xmerge(w, mlo, vlo);
        xmerge(w + 1u, mhi, vhi);
    } else {
        let r = 32u - s;
        xmerge(w, mlo << s, vlo << s);
        xmerge(w + 1u, (mlo >> r) | (mhi << s), (vlo >> r) | (vhi << s));
        xmerge(w + 2u, mhi >> r, vhi >> r);
    }
}

// `pset` that also mirrors the bit.
fn psetm(p: u32, c: u32, b: bool) {
    pset(p, c, b);
    if (b) { atomicOr(&xp[p], 1u << c); } else { atomicAnd(&xp[p], ~(1u << c)); }
}

// Sliced lane runs (drivers that cap loops): every invocation saves its own copy of the
// thread's state (`save_state_at`, then its registers), and the lanes share the
// group's SLM. Records of K_LANE_STATE_WORDS per invocation, then each group's SLM.
fn lane_slm_base(group: u32) -> u32 {
    let threads = cfh(CFG_GROUPS) * cfh(CFG_GROUPS + 1u) * cfh(CFG_GROUPS + 2u) * cfh(CFG_THREADS);
    return threads * K_SIMD * K_LANE_STATE_WORDS + group * K_SLM_WORDS;
}

fn lane_save_slm(group: u32) {
    let base = lane_slm_base(group);
    for (var k = 0u; k < K_SLM_PER_LANE; k++) {
        let i = lane + k * K_SIMD;
        if (i < K_SLM_WORDS) { state[base + i] = atomicLoad(&slm[i]); }
    }
}

fn lane_restore_slm(group: u32) {
    let base = lane_slm_base(group);
    for (var k = 0u; k < K_SLM_PER_LANE; k++) {
        let i = lane + k * K_SIMD;
        if (i < K_SLM_WORDS) { atomicStore(&slm[i], state[base + i]); }
    }
}
