// visa-emu WGSL runtime: the kernel-independent half of every generated module.
// The translator (src/translate) appends one kernel's constants and blocks to this
// text. Names starting with `K_` are constants the kernel part defines:
//   K_GRF_WORDS  u32  words of one thread's GRF image (the interpreter's layout.total / 4)
//   K_GRF_QUADS  u32  K_GRF_WORDS / 4, rounded up
//   K_SLM_WORDS  u32  words of shared local memory of a work-group (at least 1)
//   K_NADDR, K_NPRED, K_NSURF  sizes of the address, predicate and surface-variable files
//   K_DEPTH      u32  call frames; K_SIMD the kernel's SIMD width; K_TPG threads per group
//   K_SLM_PER_THREAD  u32  SLM quads (4 words) each thread saves/restores between passes
//
// Bindings (group 0):
//   0 cfg      read   u32 words: launch shape, step budget, allocation table, binding table
//   1 payload  read   the payload image all threads share (cfh(CFG_PAYLOAD_WORDS) words), then
//                     what each invocation computes its thread's words from (`pl_word`)
//   2 heap     rw     every allocation of the launch, word-aligned, back to back
//   3 scratch  rw     per-thread %scratch space (stride cfh(CFG_SCRATCH_WORDS))
//   4 stat     rw     counters and the first runtime error (see STAT_*)
//   5 state    rw     sliced runs: every thread's saved state, then every group's SLM
//   6 head     uniform  cfg's words before CFG_ALLOC again (`cfh`): the words every
//                       invocation reads (launch shape, budgets, binding table)
//   8 chunk    uniform  first work-group of this dispatch chunk (7: `heap64`, where bound)

@group(0) @binding(0) var<storage, read> cfg: array<u32>;
@group(0) @binding(1) var<storage, read> payload: array<u32>;
@group(0) @binding(2) var<storage, read_write> heap: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> scratch: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> stat: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> state: array<u32>;
@group(0) @binding(6) var<uniform> head: array<vec4<u32>, K_HEAD_QUADS>;
@group(0) @binding(8) var<uniform> chunk: vec4<u32>;

const CFG_THREADS: u32 = 0u;        // SIMD threads per group
const CFG_GROUPS: u32 = 1u;         // 1..3: group counts x, y, z
const CFG_PAYLOAD_WORDS: u32 = 4u;  // words of the shared payload image
const CFG_STEP_LIMIT: u32 = 5u;     // instructions one thread may run
const CFG_SCRATCH_WORDS: u32 = 6u;
const CFG_NALLOC: u32 = 7u;
const CFG_EDGE_BUDGET: u32 = 8u;    // sliced runs: loop back-edges one pass may take
const CFG_PROBE: u32 = 9u;          // 2: probe the driver's loop limiter; 0: do not
const CFG_SLICED: u32 = 10u;        // 1: threads save their state and passes resume them
const CFG_STOP_STEPS: u32 = 11u;    // probe modules: stop threads after this many instructions
const CFG_COUNT: u32 = 12u;         // straight modules: 1 = record the blocks each invocation ran
const CFG_BTI: u32 = 16u;           // 256 entries: allocation index + 1, 0 = unbound
const CFG_TABLE: u32 = 272u;       // the table form: where its table starts (translate/table_form.rs)
const CFG_TRASH: u32 = 273u;       // straight modules: a heap word no allocation holds (`bti_st4`)
const CFG_ZERO: u32 = 274u;        // always 0, a value no compiler can fold (`zero_word`)
const CFG_GSLM: u32 = 275u;        // SLM in the heap (over the adapter's workgroup memory): its first word
const CFG_BTI_SPAN: u32 = 276u;    // 256 entries of 2 words: bound bytes (0 = unbound), heap byte offset
const CFG_FLAT_SPAN: u32 = 788u;   // straight modules: 32 placed flat bases, 4 words each as CFG_ALLOC's (size 0: none)
const CFG_OWNED: u32 = 916u;       // straight modules: owner tags' first `scratch` word, for scratch then 32 flat bases
const CFG_ALLOC: u32 = 949u;        // 4 words per allocation: base lo, base hi, size, heap byte offset
const K_HEAD_QUADS: u32 = 229u;     // CFG_ALLOC / 4

// cfg word `i` (below CFG_ALLOC) from the uniform copy. Every invocation reads these
// words, and a uniform read is cheaper than a storage read on llvmpipe (mandelbrot over
// 196,608 items: 4.0 -> 3.4 times the hand-written kernel's GPU time).
fn cfh(i: u32) -> u32 {
    return head[i / 4u][i % 4u];
}

const STAT_ERROR: u32 = 0u;         // 0 = none, else an ERR_* code (first one wins)
const STAT_ERROR_AT: u32 = 1u;      // instruction index of the error
const STAT_OOB_READS: u32 = 2u;
const STAT_OOB_WRITES: u32 = 3u;
const STAT_INSTS_LO: u32 = 4u;      // instructions executed (all threads), 64-bit
const STAT_INSTS_HI: u32 = 5u;
const STAT_CHAN_LO: u32 = 6u;       // channel-instructions executed, 64-bit
const STAT_CHAN_HI: u32 = 7u;
const STAT_YIELDED: u32 = 8u;       // work-groups that saved their state in this pass
const STAT_HANDOVER: u32 = 9u;      // straight lanes' reports: (ERR_* << 24) | instruction, the highest wins
const STAT_FTZ_MISS: u32 = 10u;     // 1: a speculative F32 operation met a denormal (`ftz_missed`)

const ERR_STEP_LIMIT: u32 = 1u;
const ERR_SWITCH_RANGE: u32 = 2u;
const ERR_CALL_DEPTH: u32 = 3u;
const ERR_DRIVER_LOOPS: u32 = 4u;   // the driver's loop limiter ran out mid-block
const ERR_NO_PROGRESS: u32 = 5u;    // one block needs more than a whole pass's budget
const ERR_STRAIGHT_STOPPED: u32 = 6u; // a straight lane ran past its loop budget or step limit
const ERR_STRAIGHT_ALIAS: u32 = 10u;  // a straight lane's unplaced atomic reached another instruction's allocation
const ERR_STRAIGHT_SLOW: u32 = 11u;   // a straight lane's access needs a case its branch-free form leaves out
const ERR_ATOMIC_CONTENDED: u32 = 13u; // an atomic's compare-and-swap or lock retried past its bound
const ERR_STRAIGHT_GRF: u32 = 15u;    // a straight lane reached a GRF word its compact image left out
const ERR_STRAIGHT_SHARED: u32 = 16u; // two straight lanes met in a word of private memory (owner tags)

const IDLE: u32 = 0xffffffffu;

// ---- thread state -------------------------------------------------------------------

// Padded to whole quads (`save_state`); the accessors bound accesses by K_GRF_WORDS.
var<private> g: array<u32, K_GRF_QUADS * 4u>;
var<private> ar: array<u32, K_NADDR>;
var<private> pr: array<u32, K_NPRED>;
var<private> sv: array<u32, K_NSURF>;
var<private> scratch_base: u32;
var<private> pcs: array<u32, 32>;
var<private> frames: array<array<u32, 32>, K_DEPTH>;
var<private> depth: u32;
var<private> steps: u32;
var<private> chans: u32;
var<private> chans_hi: u32;
// Sliced runs: loop back-edges taken in this pass (an upper bound), blocks run.
var<private> edges: u32;
var<private> ran: u32;

// Channel `c` of predicate `p`.
fn pset(p: u32, c: u32, b: bool) {
    if (b) { pr[p] = pr[p] | (1u << c); } else { pr[p] = pr[p] & ~(1u << c); }
}

// Channel `c` of predicate `p` in a straight module's invocation, where channel `c`
// is the invocation's own and no other bit is read (`lanes::Plan::own_preds`): every
// bit alike, so reads need not shift out one bit (llvmpipe: mandelbrot's loop ~10%).
fn pown(p: u32, c: u32, b: bool) {
    pr[p] = select(0u, 0xffffffffu, b);
}

// The first error wins; the weak exchange may fail spuriously, so retry.
fn fail(code: u32, at: u32) {
    for (var k = 0u; k < 4u; k++) {
        let r = atomicCompareExchangeWeak(&stat[STAT_ERROR], 0u, code);
        if (r.exchanged) {
            atomicStore(&stat[STAT_ERROR_AT], at);
            return;
        }
        if (r.old_value != 0u) { return; }
    }
}

// A straight lane's report (`simt.rs`, the end of `main`): one atomic and no retry
// loop, where `fail` needs a compare-and-swap loop to keep the first report. The
// host reads it as a `fail` when nothing else failed (`backend::gpu::with_handover`).
fn hand_over(code: u32, at: u32) {
    atomicMax(&stat[STAT_HANDOVER], (code << 24u) | min(at, 0xffffffu));
}

// ---- sliced runs (drivers that cap loop iterations; see translate/budget.rs) --------

// True when the driver's loop limiter is spent: a loop whose trip count the compiler
// cannot know (cfh(CFG_PROBE) = 2) then stops after its first iteration.
fn loops_exhausted() -> bool {
    var k = 0u;
    // loop-bound: 2
    loop {
        k = k + 1u;
        if (k >= cfh(CFG_PROBE)) { break; }
    }
    return k < cfh(CFG_PROBE);
}

const ST_FRESH: u32 = 0u;
const ST_RUNNING: u32 = 1u;
const ST_BARRIER: u32 = 2u;
const ST_DONE: u32 = 3u;
const ST_STOPPED: u32 = 4u;   // probes: stopped after cfh(CFG_STOP_STEPS) instructions
const K_STATE_PRED: u32 = 5u + 32u + 32u * K_DEPTH;
const K_STATE_GRF: u32 = K_STATE_PRED + K_NPRED + K_NADDR + K_NSURF;
const K_STATE_WORDS: u32 = K_STATE_GRF + 4u * K_GRF_QUADS;

fn save_state(tid: u32, status: u32) {
    save_state_at(tid * K_STATE_WORDS, status);
}

// A thread's record at word `o0` of the state buffer.
fn save_state_at(o0: u32, status: u32) {
    var o = o0;
    state[o] = status;
    state[o + 1u] = steps;
    state[o + 2u] = chans;
    state[o + 3u] = chans_hi;
    state[o + 4u] = depth;
    o = o + 5u;
    // Four a step: naga guards every loop with a counter, and Mesa's NIR peels one
    // iteration of such a loop per round of its optimization loop; 32 steps here took
    // private_array_large's thread mapping to 68 rounds (25 with 8; docs/design.md).
    for (var c = 0u; c < 32u; c += 4u) {
        state[o + c] = pcs[c]; state[o + c + 1u] = pcs[c + 1u];
        state[o + c + 2u] = pcs[c + 2u]; state[o + c + 3u] = pcs[c + 3u];
    }
    o = o + 32u;
    for (var d = 0u; d < K_DEPTH; d++) {
        for (var c = 0u; c < 32u; c += 4u) {
            state[o + c] = frames[d][c]; state[o + c + 1u] = frames[d][c + 1u];
            state[o + c + 2u] = frames[d][c + 2u]; state[o + c + 3u] = frames[d][c + 3u];
        }
        o = o + 32u;
    }
    save_flags(o);
    o = o + K_NPRED + K_NADDR;
    for (var i = 0u; i < K_NSURF; i++) { state[o + i] = sv[i]; }
    o = o + K_NSURF;
    save_grf(o);
}

// Predicates and address registers (emptied with `save_grf` when they live in `state`).
fn save_flags(o: u32) {
    for (var i = 0u; i < K_NPRED; i++) { state[o + i] = pr[i]; }
    for (var i = 0u; i < K_NADDR; i++) { state[o + K_NPRED + i] = ar[i]; }
}

fn restore_flags(o: u32) {
    for (var i = 0u; i < K_NPRED; i++) { pr[i] = state[o + i]; }
    for (var i = 0u; i < K_NADDR; i++) { ar[i] = state[o + K_NPRED + i]; }
}

// Four words an iteration: the GRF is most of the state, and loop iterations are
// what a capped driver counts. (A module whose GRF lives in `state` has nothing to
// copy: translate/mod.rs empties this and `restore_grf`.)
fn save_grf(o: u32) {
    for (var q = 0u; q < K_GRF_QUADS; q++) {
        let k = 4u * q;
        state[o + k] = g[k];
        state[o + k + 1u] = g[k + 1u];
        state[o + k + 2u] = g[k + 2u];
        state[o + k + 3u] = g[k + 3u];
    }
}

// Returns the saved status (ST_FRESH: nothing saved yet).
fn restore_state(tid: u32) -> u32 {
    return restore_state_at(tid * K_STATE_WORDS);
}

fn restore_state_at(o0: u32) -> u32 {
    var o = o0;
    let status = state[o];
    if (status == ST_FRESH || status == ST_DONE || status == ST_STOPPED) { return status; }
    steps = state[o + 1u];
    chans = state[o + 2u];
    chans_hi = state[o + 3u];
    depth = state[o + 4u];
    o = o + 5u;
    // Four a step, as in `save_state_at`.
    for (var c = 0u; c < 32u; c += 4u) {
        pcs[c] = state[o + c]; pcs[c + 1u] = state[o + c + 1u];
        pcs[c + 2u] = state[o + c + 2u]; pcs[c + 3u] = state[o + c + 3u];
    }
    o = o + 32u;
    for (var d = 0u; d < K_DEPTH; d++) {
        for (var c = 0u; c < 32u; c += 4u) {
            frames[d][c] = state[o + c]; frames[d][c + 1u] = state[o + c + 1u];
            frames[d][c + 2u] = state[o + c + 2u]; frames[d][c + 3u] = state[o + c + 3u];
        }
        o = o + 32u;
    }
    restore_flags(o);
    o = o + K_NPRED + K_NADDR;
    for (var i = 0u; i < K_NSURF; i++) { sv[i] = state[o + i]; }
    o = o + K_NSURF;
    restore_grf(o);
    return status;
}

fn restore_grf(o: u32) {
    for (var q = 0u; q < K_GRF_QUADS; q++) {
        let k = 4u * q;
        g[k] = state[o + k];
        g[k + 1u] = state[o + k + 1u];
        g[k + 2u] = state[o + k + 2u];
        g[k + 3u] = state[o + k + 3u];
    }
}

// A group's SLM lives after every thread's state; each thread moves its share.
fn slm_save_base(group: u32) -> u32 {
    let threads = cfh(CFG_GROUPS) * cfh(CFG_GROUPS + 1u) * cfh(CFG_GROUPS + 2u) * cfh(CFG_THREADS);
    return threads * K_STATE_WORDS + group * K_SLM_WORDS;
}

// Four words an iteration (loop iterations are what a capped driver counts).
fn save_slm(group: u32, t: u32) {
    let base = slm_save_base(group);
    for (var k = 0u; k < K_SLM_PER_THREAD; k++) {
        let i = 4u * (t + k * K_TPG);
        if (i < K_SLM_WORDS) { state[base + i] = atomicLoad(&slm[i]); }
        if (i + 1u < K_SLM_WORDS) { state[base + i + 1u] = atomicLoad(&slm[i + 1u]); }
        if (i + 2u < K_SLM_WORDS) { state[base + i + 2u] = atomicLoad(&slm[i + 2u]); }
        if (i + 3u < K_SLM_WORDS) { state[base + i + 3u] = atomicLoad(&slm[i + 3u]); }
    }
}

fn restore_slm(group: u32, t: u32) {
    let base = slm_save_base(group);
    for (var k = 0u; k < K_SLM_PER_THREAD; k++) {
        let i = 4u * (t + k * K_TPG);
        if (i < K_SLM_WORDS) { atomicStore(&slm[i], state[base + i]); }
        if (i + 1u < K_SLM_WORDS) { atomicStore(&slm[i + 1u], state[base + i + 1u]); }
        if (i + 2u < K_SLM_WORDS) { atomicStore(&slm[i + 2u], state[base + i + 2u]); }
        if (i + 3u < K_SLM_WORDS) { atomicStore(&slm[i + 3u], state[base + i + 3u]); }
    }
}

fn count64(lo: u32, v: u32) {
    let old = atomicAdd(&stat[lo], v);
    if (old + v < old) {
        atomicAdd(&stat[lo + 1u], 1u);
    }
}

// GRF bytes, little-endian. Accesses past the image read 0 and are dropped, as the
// interpreter's.
fn gb(o: u32) -> u32 {
    if (o >= K_GRF_WORDS * 4u) { return 0u; }
    return (g[o >> 2u] >> ((o & 3u) * 8u)) & 0xffu;
}

fn gsb(o: u32, v: u32) {
    if (o >= K_GRF_WORDS * 4u) { return; }
    let s = (o & 3u) * 8u;
    g[o >> 2u] = (g[o >> 2u] & ~(0xffu << s)) | ((v & 0xffu) << s);
}

fn g32(o: u32) -> u32 {
    if ((o & 3u) == 0u && o < K_GRF_WORDS * 4u) { return g[o >> 2u]; }
    return gb(o) | (gb(o + 1u) << 8u) | (gb(o + 2u) << 16u) | (gb(o + 3u) << 24u);
}

fn gld(o: u32, n: u32) -> u64 {
    switch n {
        case 1u: { return u64(gb(o)); }
        case 2u: {
            if ((o & 1u) == 0u && o < K_GRF_WORDS * 4u) {
                return u64((g[o >> 2u] >> ((o & 2u) * 8u)) & 0xffffu);
            }
            return u64(gb(o) | (gb(o + 1u) << 8u));
        }
        case 4u: { return u64(g32(o)); }
        default: { return u64(g32(o)) | (u64(g32(o + 4u)) << 32u); }
    }
}

fn gs32(o: u32, v: u32) {
    if ((o & 3u) == 0u && o < K_GRF_WORDS * 4u) { g[o >> 2u] = v; return; }
    gsb(o, v); gsb(o + 1u, v >> 8u); gsb(o + 2u, v >> 16u); gsb(o + 3u, v >> 24u);
}

fn gst(o: u32, n: u32, v: u64) {
    let lo = u32(v & 0xfffffffflu);
    switch n {
        case 1u: { gsb(o, lo); }
        case 2u: {
            if ((o & 1u) == 0u && o < K_GRF_WORDS * 4u) {
                let s = (o & 2u) * 8u;
                g[o >> 2u] = (g[o >> 2u] & ~(0xffffu << s)) | ((lo & 0xffffu) << s);
            } else {
                gsb(o, lo); gsb(o + 1u, lo >> 8u);
            }
        }
        case 4u: { gs32(o, lo); }
        default: { gs32(o, lo); gs32(o + 4u, u32(v >> 32u)); }
    }
}

// ---- numbers ------------------------------------------------------------------------

// Sign-extend the low `bits` bits.
fn sext(v: u64, bits: u32) -> i64 {
    if (bits >= 64u) { return i64(v); }
    let s = 64u - bits;
    return i64(v << s) >> s;
}

fn mask_bits(bits: u32) -> u64 {
    if (bits >= 64u) { return 0xfffffffffffffffflu; }
    return (1lu << bits) - 1lu;
}

// NaN tests on the bits. naga writes `!=` on floats as SPIR-V's FOrdNotEqual, false
// when an operand is NaN, so `x != x` finds none (and `rel_f`/`rel_f32` write NE as
// `!(x == y)`: CMP's NE is true for unordered operands).
fn nan32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

fn nan64(x: f64) -> bool {
    return (bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu;
}

// Adapters that flush f32 denormals (NVIDIA's Vulkan driver; WGSL cannot ask for
// SPIR-V's DenormPreserve) get `true` here from the host (`backend::gpu`, after its
// probe): f32 values then cross to f64 and back on their bits (`w32`, `n32`) and F
// arithmetic runs in f64, rounded once to f32 (a product of f32 values is exact in
// f64; a sum, quotient or root rounded in f64 first is still rounded correctly, as
// 53 >= 2 * 24 + 2). Elsewhere both are plain conversions.
const F32_FTZ: bool = false;

// Adapters whose compiler fuses a product into the sum it feeds (SPIR-V allows it
// unless `NoContraction`, which WGSL cannot ask for; the host's probe finds out) get
// `true` here: each native F and DF product is then XORed with `zero_word` (`CFG_ZERO`), a
// word that is always 0 but that no compiler can know, so the product is rounded on
// its own as the vISA `mul` rounds it. Elsewhere `keep32`/`keep64` fold away.
const F_KEEP_PRODUCTS: bool = false;

// Flushing adapters, first run (`backend::gpu::finish`): F add, mul and compares run
// natively with no exact fallback, and `ftz_missed` records any operand or result
// where flushing could make them differ from IEEE's; the host then discards the run
// and runs the exact module (`false` here) from the same inputs. The fallbacks'
// f64 code cost mandelbrot's loop 6x its time on an H200 even where no invocation
// took them (a loop around them did not help): absent, the loop runs native.
const F32_SPECULATE: bool = false;

fn ftz_missed() {
    atomicStore(&stat[STAT_FTZ_MISS], 1u);
}

// Testing only (`VISA_GPU_EMULATE=ftzsim`): the native f32 operations of the F32_FTZ
// fast paths flush denormal results as a flushing adapter does, so that an adapter
// that keeps them (lavapipe) proves those paths' guards.
const F32_FTZ_SIM: bool = false;

fn sim32(x: f32) -> f32 {
    if (!F32_FTZ_SIM) { return x; }
    return flush32(x, false);
}

// A denormal (one unsigned compare: the magnitude's bits in 1..=0x7fffff). A flushing
// adapter reads any other operand (zeros, normals, infinities, NaNs) as it is.
fn tiny32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) - 1u < 0x7fffffu;
}

// A native result of plain operands that is a finite normal is IEEE's: a flushing
// adapter rounds to 24 bits first and flushes only what lands below 2^-126, and a
// result of 2^-126 or more is rounded the same with gradual underflow. Zeros,
// denormals (flushed or not), infinities and NaNs take the exact path.
fn normal32(r: f32) -> bool {
    let e = bitcast<u32>(r) & 0x7f800000u;
    return e != 0u && e != 0x7f800000u;
}

// A zero or a denormal (flushed or not). Infinities and NaNs of plain operands are
// IEEE's on a flushing adapter too.
fn zero_exp32(r: f32) -> bool {
    return (bitcast<u32>(r) & 0x7f800000u) == 0u;
}

fn keep32(x: f32) -> f32 {
    if (!F_KEEP_PRODUCTS) { return x; }
    return bitcast<f32>(bitcast<u32>(x) ^ zero_word);
}

fn keep64(x: f64) -> f64 {
    if (!F_KEEP_PRODUCTS) { return x; }
    return bitcast<f64>(bitcast<u64>(x) ^ u64(zero_word));
}

// f32 -> f64, exact for denormals on any adapter.
fn w32(x: f32) -> f64 {
    if (!F32_FTZ) { return f64(x); }
    let b = bitcast<u32>(x);
    if ((b & 0x7f800000u) != 0u) { return f64(x); }
    if (F32_SPECULATE) {
        if ((b & 0x7fffffffu) != 0u) { ftz_missed(); }
        return f64(x);
    }
    let m = f64(b & 0x7fffffu) * 1.401298464324817e-45lf;
    if ((b >> 31u) != 0u) { return -m; }
    return m;
}

// f64 -> f32 rounded to nearest even, denormal results too on any adapter. The range
// test is on the bits: a compiler may take `abs(1 / sqrt(x))` for `1 / sqrt(x)`, which
// is -inf at -0 (Mesa's NIR does).
fn n32(f: f64) -> f32 {
    if (!F32_FTZ) { return f32(f); }
    let b = bitcast<u64>(f);
    let mag = b & 0x7ffffffffffffffflu;
    // Zeros, normal results (2^-126 and up), infinities and NaNs: native.
    if (mag == 0lu || mag >= 0x3810000000000000lu) { return f32(f); }
    if (F32_SPECULATE) { ftz_missed(); return f32(f); }
    let m = u32(round_even64(bitcast<f64>(mag) * 7.1362384635298e44lf));
    return bitcast<f32>(m | (u32(b >> 32u) & 0x80000000u));
}

// f64 roundings to an integer on the bits, not through the driver's builtins: llvmpipe
// (Mesa 22.3.6, LLVM 15, on an AVX2 AMD EPYC) computes WGSL's f64 `round` with ties
// toward zero (1.5 -> 1), `trunc(-0.3)` as +0 and `trunc(2^52 - 0.5)` as itself.
fn trunc64(x: f64) -> f64 {
    let b = bitcast<u64>(x);
    let e = i32((b >> 52u) & 0x7fflu) - 1023;
    // Integral already, or an infinity or a NaN.
    if (e >= 52) { return x; }
    if (e < 0) { return bitcast<f64>(b & 0x8000000000000000lu); }
    return bitcast<f64>(b & ~(0xffffffffffffflu >> u32(e)));
}

// floor and ceil from `trunc64` (t - 1 and t + 1 are exact below 2^52, and a zero
// result is trunc64's, with x's sign).
fn floor64(x: f64) -> f64 {
    let t = trunc64(x);
    return select(t, t - 1.0lf, x < t);
}

fn ceil64(x: f64) -> f64 {
    let t = trunc64(x);
    return select(t, t + 1.0lf, x > t);
}

// f64 rounded to the nearest integer, ties to even; a zero keeps x's sign (-0.3 -> -0).
fn round_even64(x: f64) -> f64 {
    let f = floor64(x);
    let d = x - f;
    let odd = f - 2.0lf * floor64(f * 0.5lf) != 0.0lf;
    // Infinities and NaNs come back as they are (d is NaN).
    let r = select(f, f + 1.0lf, d > 0.5lf || (d == 0.5lf && odd));
    return select(r, bitcast<f64>(bitcast<u64>(x) & 0x8000000000000000lu), r == 0.0lf);
}

// A float result's bits behind a barrier: the XOR with `CFG_ZERO` (always 0, unknown
// to compilers) keeps a driver from rewriting one vISA instruction's arithmetic
// together with the next one's (lavapipe reassociated `(x + c1) + c2` across two
// `add`s of math_trig's cos reduction where the first result was visible to it).
// Every float arithmetic result passes here, through `canon_nan` or on its own.
fn fence(b: u64) -> u64 { return b ^ u64(zero_word); }

// `cfh(CFG_ZERO)`, read once by each entry point: the one zero that `fence`,
// `imm_opaque`, `keep32`/`keep64` and `hidden_f32`/`hidden_f64` hide values behind (a
// uniform load at every fence cost mandelbrot's loop 20-30% of lavapipe's GPU time).
var<private> zero_word: u32;

// A NaN result of float arithmetic as the canonical NaN `nan` of its type (sign bit
// `sign`, infinity `inf`): `alu::canonical_nan` of the interpreter.
fn canon_nan(b: u64, sign: u64, inf: u64, nan: u64) -> u64 {
    let x = fence(b);
    return select(x, nan, (x & ~sign) > inf);
}

// f64 -> i64 as Rust's `as` (NaN 0, saturating, toward zero): the integer view of a
// float source in integer arithmetic.
fn f2i(f: f64) -> i64 {
    if (nan64(f)) { return 0li; }
    if (f >= 9223372036854775807.0lf) { return 9223372036854775807li; }
    if (f <= -9223372036854775808.0lf) { return i64(-9223372036854775807li - 1li); }
    return i64(f);
}

// Float -> integer destination of 2_datatypes: NaN 0, clamped to [lo, hi], truncated.
fn f2int(f: f64, lo: i64, hi: i64, hi_f: f64, lo_f: f64) -> i64 {
    if (nan64(f)) { return 0li; }
    if (f >= hi_f) { return hi; }
    if (f <= lo_f) { return lo; }
    return f2i(trunc(f));
}

// f64 -> u64 for UQ destinations (hi_f = 2^64).
fn f2uq(f: f64) -> u64 {
    if (nan64(f) || f <= 0.0lf) { return 0lu; }
    if (f >= 18446744073709551616.0lf) { return 0xfffffffffffffffflu; }
    if (f >= 9223372036854775808.0lf) { return u64(f - 9223372036854775808.0lf) | 0x8000000000000000lu; }
    return u64(f);
}

// f64 -> f32 in the cr0 rounding mode (0 RNE, 1 RU, 2 RD, 3 RZ).
fn f64_to_f32_rm(f0: f64, mode: u32) -> f32 {
    if (mode == 0u) { return n32(f0); }
    // Opaque: NIR folds the rounding test (narrowed, widened, compared) where it sees
    // where `f` came from (an i32 sign-extended and converted: convert_sat_rounding's
    // RTZ case read as round-to-nearest).
    let f = opaque_f64(f0);
    let r = n32(f);
    if (nan64(f) || w32(r) == f) { return r; }
    var lo = r;
    var hi = r;
    if (w32(r) < f) { hi = next_up(r); } else { lo = next_down(r); }
    switch mode {
        case 1u: { return hi; }
        case 2u: { return lo; }
        default: { if (f > 0.0lf) { return lo; } return hi; }
    }
}

// On the bits: an adapter that flushes denormals would take one for zero.
fn next_up(x: f32) -> f32 {
    let b = bitcast<u32>(x);
    if (nan32(x) || b == 0x7f800000u) { return x; }
    if ((b & 0x7fffffffu) == 0u) { return bitcast<f32>(1u); }
    if ((b >> 31u) == 0u) { return bitcast<f32>(b + 1u); }
    return bitcast<f32>(b - 1u);
}

fn next_down(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(next_up(bitcast<f32>(bitcast<u32>(x) ^ 0x80000000u))) ^ 0x80000000u);
}

// Integer -> F and DF in the rounding mode: RNE native, the directed modes on the bits
// (the magnitude normalized, cut to 24 or 53 bits, one up where the mode rounds away
// from zero and a bit was cut). No f64 is stepped: NVIDIA's compiler (driver 580) lost
// the device on modules that stepped `f64(i)` by its bits towards i, and on the f64 ->
// i64 conversion that measured the step before that.
fn int_round_bits(u: u64, neg: bool, mode: u32, frac: u32, bias: u32) -> u64 {
    if (u == 0lu) { return 0lu; }
    let hi = u32(u >> 32u);
    let lz = select(32u + countLeadingZeros(u32(u)), countLeadingZeros(hi), hi != 0u);
    let n = u << lz;
    let m = n >> (63u - frac);
    let cut = (n << (frac + 1u)) != 0lu;
    let away = cut && ((mode == 1u && !neg) || (mode == 2u && neg));
    // m carries the leading one into the exponent field; a carry out of the
    // fraction raises the exponent.
    let mag = (u64(63u - lz + bias - 1u) << frac) + m + select(0lu, 1lu, away);
    return select(mag, mag | (1lu << select(63u, 31u, frac == 23u)), neg);
}

// The sign of a Q read from its high word: lavapipe (Mesa 22.3) answers `i < 0li` (and
// `(u >> 63u) != 0lu`) false where i was sign-extended from 32 bits in the same module.
fn neg64(i: i64) -> bool {
    return bitcast<i32>(u32(bitcast<u64>(i) >> 32u)) < 0;
}

// `int_round_bits` of a signed i: its magnitude and sign.
fn int_round_signed(i: i64, mode: u32, frac: u32, bias: u32) -> u64 {
    let u = bitcast<u64>(i);
    let neg = neg64(i);
    return int_round_bits(select(u, 0lu - u, neg), neg, mode, frac, bias);
}

fn i2f32(i: i64, mode: u32) -> f32 {
    if (mode == 0u) { return f32(i); }
    return bitcast<f32>(u32(int_round_signed(i, mode, 23u, 127u)));
}

fn i2f64_rm(i: i64, mode: u32) -> f64 {
    if (mode == 0u) { return f64(i); }
    return bitcast<f64>(int_round_signed(i, mode, 52u, 1023u));
}

// UQ -> DF and F: RNE native below 2^63; from 2^63 halved with its last bit kept as a
// sticky bit (the 53- and 24-bit roundings see the same value), then doubled.
fn u2f64_rm(u: u64, mode: u32) -> f64 {
    if (mode != 0u) { return bitcast<f64>(int_round_bits(u, false, mode, 52u, 1023u)); }
    if ((u >> 63u) == 0lu) { return f64(i64(u)); }
    return 2.0lf * f64(i64((u >> 1u) | (u & 1lu)));
}

fn u2f32_rm(u: u64, mode: u32) -> f32 {
    if (mode != 0u) { return bitcast<f32>(u32(int_round_bits(u, false, mode, 23u, 127u))); }
    if ((u >> 63u) == 0lu) { return f32(i64(u)); }
    return 2.0 * f32(i64((u >> 1u) | (u & 1lu)));
}

// DF add and mul in round-to-nearest: the twins of `dadd_rm` and `dmul_rm`
// (soft_f64.wgsl) where the mode is known.
fn dadd_rne(x: f64, y: f64) -> f64 { return x + y; }
fn dmul_rne(x: f64, y: f64) -> f64 { return keep64(x * y); }

// Flush a denormal to a signed zero when the mode does not keep denormals.
fn flush32(x: f32, keep: bool) -> f32 {
    if (keep) { return x; }
    let b = bitcast<u32>(x);
    if ((b & 0x7f800000u) == 0u) { return bitcast<f32>(b & 0x80000000u); }
    return x;
}

fn flush64(x: f64, keep: bool) -> f64 {
    if (keep) { return x; }
    let b = bitcast<u64>(x);
    if ((b & 0x7ff0000000000000lu) == 0lu) { return bitcast<f64>(b & 0x8000000000000000lu); }
    return x;
}

// ALT mode (%cr0 bit 0, translate/alt_mode.rs): where `on`, an infinite F result is
// the largest finite value of its sign, LOG, RSQ and SQRT take |x|, and a DF -> F
// conversion that overflows (`v`, the F bits of DF source `src`) gives ±fmax.
fn alt_fin32(x: f32, on: bool) -> f32 {
    let b = bitcast<u32>(x);
    if (on && (b & 0x7fffffffu) == 0x7f800000u) { return bitcast<f32>((b & 0x80000000u) | 0x7f7fffffu); }
    return x;
}

fn alt_abs32(x: f32, on: bool) -> f32 {
    if (on) { return bitcast<f32>(bitcast<u32>(x) & 0x7fffffffu); }
    return x;
}

fn alt_fin_df32(v: u64, src: u64, on: bool) -> u64 {
    let finite = ((src >> 52u) & 0x7fflu) != 0x7fflu;
    if (on && finite && (v & 0x7ffffffflu) == 0x7f800000lu) { return (v & 0x80000000lu) | 0x7f7ffffflu; }
    return v;
}

// Saturation as Rust's `clamp(0.0, 1.0)` (interp `sat_float`): -0.0 stays -0.0, where
// WGSL's clamp may give either zero.
fn sat64(x: f64) -> f64 {
    if (nan64(x) || x < 0.0lf) { return 0.0lf; }
    if (x > 1.0lf) { return 1.0lf; }
    return x;
}

fn sat32(x: f32) -> f32 {
    if (F32_FTZ && tiny32(x)) { return n32(sat64(w32(x))); }
    if (nan32(x) || x < 0.0) { return 0.0; }
    if (x > 1.0) { return 1.0; }
    return x;
}

// HF bits -> f32 (exact).
fn hf2f(h: u32) -> f32 {
    let s = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if (e == 0u) {
        // zero or subnormal: m * 2^-24, exact in f32
        let v = f32(m) * 5.9604644775390625e-8;
        return bitcast<f32>(bitcast<u32>(v) | s);
    }
    // A NaN comes out quiet with its payload (the interpreter's `half` conversion).
    if (e == 31u) { return bitcast<f32>(s | 0x7f800000u | (m << 13u) | select(0u, 0x400000u, m != 0u)); }
    return bitcast<f32>(s | ((e + 112u) << 23u) | (m << 13u));
}

// f32 -> HF bits, round to nearest even, overflow to infinity, NaN kept quiet.
fn f2hf(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    let s = (b >> 16u) & 0x8000u;
    let e = i32((b >> 23u) & 0xffu);
    var m = b & 0x7fffffu;
    if (e == 255) {
        if (m != 0u) { return s | 0x7e00u | (m >> 13u); }
        return s | 0x7c00u;
    }
    let he = e - 112;
    if (he >= 31) { return s | 0x7c00u; }
    if (he <= 0) {
        // subnormal half (or zero): shift the full mantissa
        if (he < -10) { return s; }
        m = m | 0x800000u;
        let shift = u32(14 - he);
        let q = m >> shift;
        let rem = m & ((1u << shift) - 1u);
        let halfway = 1u << (shift - 1u);
        var r = q;
        if (rem > halfway || (rem == halfway && (q & 1u) == 1u)) { r = r + 1u; }
        return s | r;
    }
    var r = (u32(he) << 10u) | (m >> 13u);
    let rem = m & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u) == 1u)) { r = r + 1u; }
    return s | r;
}

// f64 -> f32 rounded to odd: one more rounding to HF or BF (24 >= 11 + 2, 8 + 2 bits)
// is then the one rounding of f, in any mode.
fn f32_odd(f: f64) -> f32 {
    var r = n32(f);
    if (w32(r) != f && abs(f) < 3.0e38lf) {
        if (abs(w32(r)) > abs(f)) { r = bitcast<f32>(bitcast<u32>(r) - 1u); }
        r = bitcast<f32>(bitcast<u32>(r) | 1u);
    }
    return r;
}

// f64 -> HF bits with one rounding.
fn f64_to_hf(f: f64) -> u32 {
    if (nan64(f)) { return f2hf(f32(f)); }
    return f2hf(f32_odd(f));
}

// f64 -> HF bits in the cr0 mode (2_datatypes: DF -> HF and F -> HF use it).
fn f64_to_hf_rm(f: f64, mode: u32) -> u32 {
    if (mode == 0u || nan64(f)) { return f64_to_hf(f); }
    return f2hf_dir(f32_odd(f), mode);
}

// f32 -> HF bits rounded up (1), down (2) or toward zero (3): an overflow that does not
// round away from zero stops at 65504; infinities and NaNs as `f2hf`.
fn f2hf_dir(x: f32, mode: u32) -> u32 {
    let b = bitcast<u32>(x);
    let s = (b >> 16u) & 0x8000u;
    let away = (mode == 1u && s == 0u) || (mode == 2u && s != 0u);
    let e = i32((b >> 23u) & 0xffu);
    let m = b & 0x7fffffu;
    if (e == 255) { return f2hf(x); }
    let he = e - 112;
    if (he >= 31) { return s | select(0x7bffu, 0x7c00u, away); }
    var q = 0u;
    var inexact = (b & 0x7fffffffu) != 0u;
    if (he > 0) {
        q = (u32(he) << 10u) | (m >> 13u);
        inexact = (m & 0x1fffu) != 0u;
    } else if (he >= -10) {
        let shift = u32(14 - he);
        let mm = m | 0x800000u;
        q = mm >> shift;
        inexact = (mm & ((1u << shift) - 1u)) != 0u;
    }
    // A carry out of the significand steps the exponent, up to infinity: exact.
    return s | (q + select(0u, 1u, inexact && away));
}

// f64 -> BF bits, round to nearest even (through round-to-odd f32).
fn f64_to_bf(f: f64) -> u32 {
    if (nan64(f)) { return (bitcast<u32>(f32(f)) >> 16u) | 0x40u; }
    let r = f32_odd(f);
    let b = bitcast<u32>(r);
    let rem = b & 0xffffu;
    var q = b >> 16u;
    if (rem > 0x8000u || (rem == 0x8000u && (q & 1u) == 1u)) { q = q + 1u; }
    return q;
}

fn bf2f(h: u32) -> f32 { return bitcast<f32>(h << 16u); }

// HF/BF exec type: round an f64 result to the type's precision (the value stays f64).
fn round_hf(f: f64) -> f64 { return f64(hf2f(f64_to_hf(f))); }
fn round_hf_rm(f: f64, mode: u32) -> f64 { return f64(hf2f(f64_to_hf_rm(f, mode))); }
fn round_bf(f: f64) -> f64 { return w32(bf2f(f64_to_bf(f))); }

// MIN/MAX: a NaN operand yields the other; -0 < +0.
fn fminmax64(a: f64, b: f64, is_max: bool) -> f64 {
    if (nan64(a)) { return b; }
    if (nan64(b)) { return a; }
    if (a == b && a == 0.0lf) {
        let a_neg = (bitcast<u64>(a) >> 63u) == 1lu;
        if (is_max == a_neg) { return b; }
        return a;
    }
    if (is_max) { return max(a, b); }
    return min(a, b);
}

fn fminmax32(a: f32, b: f32, is_max: bool) -> f32 {
    if (nan32(a)) { return b; }
    if (nan32(b)) { return a; }
    if (a == b && a == 0.0) {
        let a_neg = (bitcast<u32>(a) >> 31u) == 1u;
        if (is_max == a_neg) { return b; }
        return a;
    }
    if (is_max) { return max(a, b); }
    return min(a, b);
}

fn rel_i(rel: u32, x: i64, y: i64) -> bool {
    switch rel {
        case 0u: { return x == y; }
        case 1u: { return x != y; }
        case 2u: { return x > y; }
        case 3u: { return x >= y; }
        case 4u: { return x < y; }
        default: { return x <= y; }
    }
}

fn rel_f(rel: u32, x: f64, y: f64) -> bool {
    switch rel {
        case 0u: { return x == y; }
        case 1u: { return !(x == y); }
        case 2u: { return x > y; }
        case 3u: { return x >= y; }
        case 4u: { return x < y; }
        default: { return x <= y; }
    }
}

// `rel_f` on two f32 values (widening is exact, so the answer is the same; llvmpipe
// and the f64 emulation pay for the widening).
fn rel_f32(rel: u32, x: f32, y: f32) -> bool {
    if (F32_FTZ && (tiny32(x) || tiny32(y))) {
        if (!F32_SPECULATE) { return rel_f(rel, w32(x), w32(y)); }
        ftz_missed();
    }
    switch rel {
        case 0u: { return x == y; }
        case 1u: { return !(x == y); }
        case 2u: { return x > y; }
        case 3u: { return x >= y; }
        case 4u: { return x < y; }
        default: { return x <= y; }
    }
}

fn rol(x: u64, n0: u32, bits: u32, left: bool) -> u64 {
    let m = mask_bits(bits);
    let v = x & m;
    let n = n0 % bits;
    if (n == 0u) { return v; }
    if (left) { return ((v << n) | (v >> (bits - n))) & m; }
    return ((v >> n) | (v << (bits - n))) & m;
}

fn fbh(x: u32, signed: bool) -> u32 {
    if (x == 0u) { return 0xffffffffu; }
    if (signed) {
        if (x == 0xffffffffu) { return 0xffffffffu; }
        var y = x;
        if ((x >> 31u) == 1u) { y = ~x; }
        return countLeadingZeros(y);
    }
    return countLeadingZeros(x);
}

fn bfe(w0: u32, off0: u32, x: u32) -> u32 {
    let w = w0 & 0x1fu;
    let off = off0 & 0x1fu;
    var m = 0u;
    if (w != 0u) { m = (1u << w) - 1u; }
    return (x >> off) & m;
}

fn bfi(w0: u32, off0: u32, ins: u32, base: u32) -> u32 {
    let w = w0 & 0x1fu;
    let off = off0 & 0x1fu;
    var m = 0u;
    if (w != 0u) { m = ((1u << w) - 1u) << off; }
    return ((ins << off) & m) | (base & ~m);
}

fn dp4a_byte(v: u64, k: u32, signed: bool) -> i64 {
    let b = (v >> (8u * k)) & 0xfflu;
    if (signed) { return sext(b, 8u); }
    return i64(b);
}

// ---- memory -------------------------------------------------------------------------

const SP_FLAT: u32 = 0u;
const SP_BTI: u32 = 1u;
const SP_SLM: u32 = 2u;
const SP_SCRATCH: u32 = 3u;
const NO_WORD: u32 = 0xffffffffu;

// One word past the group's SLM: where `slm_st4` sends stores out of bounds; then
// the locks of its 64-bit atomics (`lock_try`).
const K_SLM_LOCKS: u32 = 16u;
var<workgroup> slm: array<atomic<u32>, K_SLM_WORDS + 1u + K_SLM_LOCKS>;
// Where this group's SLM starts in the heap when the host moved it there
// (`translate::workgroup_memory::slm_in_heap`, which also sets K_SLM_IN_HEAP and keeps
// `slm_base` even, so that 8-byte aligned SLM words are 8-byte aligned heap words).
var<private> slm_base: u32;
const K_SLM_IN_HEAP: bool = false;
// Work-group coordination of the barrier rounds (see `main`): round r counts into word
// r % 3 of each and clears word (r + 1) % 3 before its barrier, and everyone reads word
// r % 3 after it (the next writes to it come two rounds later, past a barrier that all
// reach after their read).
var<workgroup> wg_live: array<atomic<u32>, 3>;
var<workgroup> wg_yield: array<atomic<u32>, 3>;
var<private> wg_round: u32;

// Whether `n` bytes at flat address `addr` lie in the allocation bound at binding-table
// index `bti` (straight modules check their unplaced atomics with it).
fn flat_hits_bti(addr: u64, n: u32, bti: u32) -> bool {
    return bti_holds(locate(0u, 0u, addr, n), bti);
}

// Straight modules: an unplaced flat load's address `addr` (`n` bytes), recording
// instruction `at` (its index + 1) in `alias_at` where it falls in the allocation bound
// at `bti`, which another instruction stores to.
fn flat_avoid(addr: u64, n: u32, bti: u32, at: u32) -> u64 {
    if (flat_hits_bti(addr, n, bti)) { alias_at = at; }
    return addr;
}

// Whether heap byte offset `o` (NO_WORD: none) lies in the allocation bound at `bti`.
fn bti_holds(o: u32, bti: u32) -> bool {
    if (o == NO_WORD || bti >= 256u) { return false; }
    let e = CFG_BTI_SPAN + 2u * bti;
    return o >= cfh(e + 1u) && o - cfh(e + 1u) < cfh(e);
}

// Straight modules: the word index of a 32-bit atomic that is one of WGSL's own at
// byte offset `o` (located once, by the caller, who may check it against the binding
// table too), NO_WORD where it must not run: outside every allocation (counted), or
// misaligned, which records `slow_at` instead of `mem_atomic`'s misaligned path (the
// host then runs the launch in the thread mapping; a misaligned atomic is not atomic
// on hardware either). The caller applies WGSL's atomic itself (`message.rs`), so the
// module names the one operation on the one array it needs instead of `wrmw`'s switch
// on both (atomic_histogram's straight module on lavapipe: 1.9 -> 1.0 GPU ms and
// pipeline creation 1.0 -> 0.5 s came with the short form; without the switch,
// no change measured at 262,144 items: 3.0-3.2x its hand WGSL's GPU time either way).
fn rmw_word(o: u32, at: u32) -> u32 {
    let found = o != NO_WORD;
    slow_at = select(slow_at, at + 1u, found && (o & 3u) != 0u);
    oob_reads += select(1u, 0u, found);
    return select(NO_WORD, o >> 2u, found && (o & 3u) == 0u);
}

// Byte offset of an access of `n` bytes inside its space's word array, or NO_WORD when
// it hits no allocation (or straddles the end of one).
fn locate(space: u32, bti: u32, addr: u64, n: u32) -> u32 {
    switch space {
        case 0u: {
            let na = cfh(CFG_NALLOC);
            // loop-bound: 16 (kernels with more buffer arguments may exceed it: the probe reports that; see translate/budget.rs)
            for (var i = 0u; i < na; i++) {
                let k = CFG_ALLOC + 4u * i;
                let base = u64(cfg[k]) | (u64(cfg[k + 1u]) << 32u);
                let size = u64(cfg[k + 2u]);
                if (addr >= base && addr - base < size) {
                    let off = addr - base;
                    if (off + u64(n) > size) { return NO_WORD; }
                    return cfg[k + 3u] + u32(off);
                }
            }
            return NO_WORD;
        }
        case 1u: { return bti_at(bti, addr, n); }
        case 2u: {
            // IGC tags SLM addresses with bit 28; the data port decodes the bits below.
            let a = addr & 0x0ffffffflu;
            if (a + u64(n) > u64(K_SLM_WORDS * 4u)) { return NO_WORD; }
            return u32(a);
        }
        default: {
            let lim = cfh(CFG_SCRATCH_WORDS) * 4u;
            if (addr + u64(n) > u64(lim)) { return NO_WORD; }
            return scratch_base * 4u + u32(addr);
        }
    }
}

// Word primitives of each space (pointers to storage/workgroup arrays cannot be passed).
fn wld(space: u32, w: u32) -> u32 {
    switch space {
        case 2u: { return atomicLoad(&slm[w]); }
        case 3u: { return atomicLoad(&scratch[w]); }
        default: { return atomicLoad(&heap[w]); }
    }
}

fn wcas(space: u32, w: u32, old: u32, nv: u32) -> bool {
    switch space {
        case 2u: { return atomicCompareExchangeWeak(&slm[w], old, nv).exchanged; }
        case 3u: { return atomicCompareExchangeWeak(&scratch[w], old, nv).exchanged; }
        default: { return atomicCompareExchangeWeak(&heap[w], old, nv).exchanged; }
    }
}

// A native 32-bit read-modify-write of word `w` (ops as `atomic_apply`: 0 add, 1 sub,
// 2 inc, 3/13 dec, 4 umin, 5 umax, 6 xchg, 8 and, 9 or, 10 xor); the old word.
fn wrmw(space: u32, w: u32, op: u32, v: u32) -> u32 {
    let x = select(v, 1u, op == 2u || op == 3u || op == 13u);
    switch space {
        case 2u: {
            switch op {
                case 0u, 2u: { return atomicAdd(&slm[w], x); }
                case 1u, 3u, 13u: { return atomicSub(&slm[w], x); }
                case 4u: { return atomicMin(&slm[w], x); }
                case 5u: { return atomicMax(&slm[w], x); }
                case 6u: { return atomicExchange(&slm[w], x); }
                case 8u: { return atomicAnd(&slm[w], x); }
                case 9u: { return atomicOr(&slm[w], x); }
                default: { return atomicXor(&slm[w], x); }
            }
        }
        case 3u: {
            switch op {
                case 0u, 2u: { return atomicAdd(&scratch[w], x); }
                case 1u, 3u, 13u: { return atomicSub(&scratch[w], x); }
                case 4u: { return atomicMin(&scratch[w], x); }
                case 5u: { return atomicMax(&scratch[w], x); }
                case 6u: { return atomicExchange(&scratch[w], x); }
                case 8u: { return atomicAnd(&scratch[w], x); }
                case 9u: { return atomicOr(&scratch[w], x); }
                default: { return atomicXor(&scratch[w], x); }
            }
        }
        default: {
            switch op {
                case 0u, 2u: { return atomicAdd(&heap[w], x); }
                case 1u, 3u, 13u: { return atomicSub(&heap[w], x); }
                case 4u: { return atomicMin(&heap[w], x); }
                case 5u: { return atomicMax(&heap[w], x); }
                case 6u: { return atomicExchange(&heap[w], x); }
                case 8u: { return atomicAnd(&heap[w], x); }
                case 9u: { return atomicOr(&heap[w], x); }
                default: { return atomicXor(&heap[w], x); }
            }
        }
    }
}

fn wstore(space: u32, w: u32, v: u32) {
    switch space {
        case 2u: { atomicStore(&slm[w], v); }
        case 3u: { atomicStore(&scratch[w], v); }
        default: { atomicStore(&heap[w], v); }
    }
}

// Replace the bits `m` of word `w` with `v` (a byte or half-word store that leaves its
// neighbours, which other threads may be writing, intact).
fn wmerge(space: u32, w: u32, m: u32, v: u32) {
    if (m == 0xffffffffu) { wstore(space, w, v); return; }
    switch space {
        case 2u: { atomicAnd(&slm[w], ~m); atomicOr(&slm[w], v & m); }
        case 3u: { atomicAnd(&scratch[w], ~m); atomicOr(&scratch[w], v & m); }
        default: { atomicAnd(&heap[w], ~m); atomicOr(&heap[w], v & m); }
    }
}

fn byte_ld(space: u32, o: u32) -> u32 {
    return (wld(space, o >> 2u) >> ((o & 3u) * 8u)) & 0xffu;
}

// Binding-table accesses of at most 4 bytes whose space is known at translation time:
// the same results as `mem_ld`/`mem_st` on SP_BTI, without the other spaces' code.
// llvmpipe runs every side of a divergent branch, so the common case must not carry
// the rare ones: the word index is selected, not branched to.
// `bti_at`: the heap byte offset of `n` bytes at `addr` of entry `bti`, or NO_WORD
// (outside it, unbound), from the entry's span at a constant index (the entry, then its
// allocation, were two dependent reads: saxpy over 1M items 14 -> 11 GPU ms).
fn bti_at(bti: u32, addr: u64, n: u32) -> u32 {
    let e = CFG_BTI_SPAN + 2u * min(bti, 255u);
    let size = select(0u, cfh(e), bti < 256u);
    let lo = u32(addr & 0xfffffffflu);
    // addr + n <= size in 32 bits: bound buffers are under 4 GiB.
    let ok = (u32(addr >> 32u) == 0u) & (size >= n) & (lo <= size - n);
    return select(NO_WORD, cfh(e + 1u) + lo, ok);
}

fn bti_ld(bti: u32, addr: u64, n: u32) -> u64 {
    return heap_ld(bti_at(bti, addr, n), n);
}

// `n` (at most 4) bytes at heap byte offset `o` (NO_WORD: out of bounds, reads 0).
fn heap_ld(o: u32, n: u32) -> u64 {
    let ok = o != NO_WORD;
    let w = select(0u, o >> 2u, ok);
    let sh = (o & 3u) * 8u;
    let lo = atomicLoad(&heap[w]);
    // The next word only when the bytes cross into it (it may be past the heap else),
    // in a branch: llvmpipe skips it when no invocation takes it (aligned words; saxpy
    // over 1M items 14.2 -> 13.2 GPU ms).
    var hi = lo;
    if (ok && sh + 8u * n > 32u) { hi = atomicLoad(&heap[w + 1u]); }
    let v = select(lo, (lo >> sh) | (hi << ((32u - sh) & 31u)), sh != 0u);
    let m = select((1u << ((8u * n) & 31u)) - 1u, 0xffffffffu, n >= 4u);
    oob_reads += select(0u, 1u, !ok);
    return u64(select(0u, v & m, ok));
}

fn bti_st(bti: u32, addr: u64, n: u32, v: u64) {
    heap_st(bti_at(bti, addr, n), n, v);
}

// The store matching `heap_ld`.
fn heap_st(o: u32, n: u32, v: u64) {
    if (o == NO_WORD) { oob_writes += 1u; return; }
    let x = u32(v & 0xfffffffflu);
    let w = o >> 2u;
    let sh = (o & 3u) * 8u;
    if (sh == 0u && n == 4u) { atomicStore(&heap[w], x); return; }
    // Sub-word or unaligned: merge the bytes into one or two words.
    let m = select((1u << ((8u * n) & 31u)) - 1u, 0xffffffffu, n >= 4u);
    let m0 = m << sh;
    atomicAnd(&heap[w], ~m0);
    atomicOr(&heap[w], (x << sh) & m0);
    if (sh + 8u * n > 32u) {
        let r = (32u - sh) & 31u;
        let m1 = m >> r;
        atomicAnd(&heap[w + 1u], ~m1);
        atomicOr(&heap[w + 1u], (x >> r) & m1);
    }
}

// Straight modules: 4-byte binding-table accesses without a branch. llvmpipe runs the
// code of a divergent branch even when no invocation takes it, so `bti_ld`/`bti_st`'s
// unaligned merges cost every access (saxpy over 1M items: 7.2 -> 4.6 GPU ms). Out of
// bounds stays exact (reads 0, a store goes to the trash word, both counted); an
// aligned-looking fast path cannot do an unaligned access, so it records the first
// one in `slow_at` and the host runs the launch again in the thread mapping, which
// handles it (nothing of a straight run that failed is kept).
var<private> slow_at: u32;
// Straight modules: 1 + the block where a lane ran past its loop budget.
var<private> stop_at: u32;
// Straight modules: 1 + the unplaced atomic that reached another instruction's allocation.
var<private> alias_at: u32;

// Straight modules: private memory whose channels the translator cannot keep apart
// (a private array indexed by data: `lane_memory::Conditions::owned_scratch`,
// `owned_flat`) carries an owner tag per word in `scratch`, from `CFG_OWNED`'s words on.
// The first channel to touch a word tags it with `owner_id` (1 + its channel's index in
// the grid); a word another channel tagged records the access in `shared_at` and the
// host runs the launch in the thread mapping. Within a straight run that ends clean no
// two channels met in a word, so each saw its own accesses in program order, which is
// what the thread's order gives. `atomicMax` tags: of two channels the second to come
// finds the first's tag or a larger one, never its own.
var<private> shared_at: u32;
var<private> owner_id: u32;

fn claim_word(t: u32, at: u32) {
    let old = atomicMax(&scratch[t], owner_id);
    shared_at = select(shared_at, at + 1u, (old != 0u) & (old != owner_id));
}

// The words holding bytes `[o, o + n)` (`n` 1-8) of a space whose tags start at word `t0`.
fn claim_bytes(t0: u32, o: u32, n: u32, at: u32) {
    let a = o >> 2u;
    let b = (o + n - 1u) >> 2u;
    claim_word(t0 + a, at);
    if (b != a) { claim_word(t0 + b, at); }
    if (b > a + 1u) { claim_word(t0 + a + 1u, at); }
}

// Straight modules: `n` bytes at scratch offset `addr`, claimed; the address unchanged
// (out of the thread's scratch: nothing is touched, nothing claimed).
fn claim_scratch(addr: u64, n: u32, at: u32) -> u64 {
    let lim = cfh(CFG_SCRATCH_WORDS) * 4u;
    if (addr + u64(n) <= u64(lim)) {
        claim_bytes(cfh(CFG_OWNED) + scratch_base, u32(addr), n, at);
    }
    return addr;
}

// `claim_scratch` of a 4-byte access whose branch-free form (`scratch_word`) hands a
// misaligned address to the thread mapping anyway: its one word, without
// `claim_bytes`'s straddle tests (llvmpipe compiles every site's copy of them).
fn claim_scratch4(addr: u64, at: u32) -> u64 {
    let lim = cfh(CFG_SCRATCH_WORDS) * 4u;
    if (addr + 4lu <= u64(lim)) {
        claim_word(cfh(CFG_OWNED) + scratch_base + (u32(addr) >> 2u), at);
    }
    return addr;
}

// The byte offset of `n` bytes at flat address `addr` in placed base `j`'s allocation,
// NO_WORD where they do not lie in it (`flat_at`'s test).
fn owned_offset(j: u32, addr: u64, n: u32) -> u32 {
    let e = CFG_FLAT_SPAN + 4u * j;
    let base = u64(cfh(e)) | (u64(cfh(e + 1u)) << 32u);
    let size = cfh(e + 2u);
    let off = addr - base;
    let inb = (addr >= base) & ((off >> 32u) == 0lu) & (size >= n) & (u32(off) <= size - n);
    return select(NO_WORD, u32(off), inb);
}

// `claim_flat` of a 4- or 8-byte access that `flat_word` hands over when misaligned:
// its words from the first on (private_array_large acm-g10 SIMD16's first dispatch on
// llvmpipe, Mesa's cache off: 10.3-10.7 s with `claim_flat` at its 150 loads and
// stores, 4.1-4.5 s so).
fn claim_flat_words(j: u32, addr: u64, n: u32, at: u32) -> u64 {
    let o = owned_offset(j, addr, n);
    if (o != NO_WORD) {
        let w = cfh(CFG_OWNED + 1u + j) + (o >> 2u);
        claim_word(w, at);
        if (n == 8u) { claim_word(w + 1u, at); }
    }
    return addr;
}

// Straight modules: `n` bytes at flat address `addr` through placed base `j`, claimed
// where they lie in the base's allocation (elsewhere `flat_at` hands the launch over).
fn claim_flat(j: u32, addr: u64, n: u32, at: u32) -> u64 {
    let o = owned_offset(j, addr, n);
    if (o != NO_WORD) { claim_bytes(cfh(CFG_OWNED + 1u + j), o, n, at); }
    return addr;
}

// `bti_at`'s test for a word, with the alignment the branch-free form needs: the word's
// index in `heap`, 1 where the access takes it (in bounds and aligned), 1 where it is
// out of bounds. Flags, not a NO_WORD index its callers test again: llvmpipe's LLVM
// took ~5% longer to compile matmul_tiled16 (22 such loads) with that round trip.
fn bti_word(bti: u32, addr: u64, at: u32) -> vec3<u32> {
    let e = CFG_BTI_SPAN + 2u * min(bti, 255u);
    // Entries 0-3 from the privates `load_bti_spans` filled (every call passes a
    // constant entry, so the selects fold), others from `cfg`.
    let held = bti < 4u;
    let size = select(select(0u, cfh(e), bti < 256u), bti_spans[min(2u * bti, 6u)], held);
    let base = select(cfh(e + 1u), bti_spans[min(2u * bti + 1u, 7u)], held);
    let lo = u32(addr);
    let inb = (u32(addr >> 32u) == 0u) & (size >= 4u) & (lo <= size - 4u);
    let ok = inb & ((lo & 3u) == 0u);
    slow_at = select(slow_at, at + 1u, inb != ok);
    return vec3<u32>((base + lo) >> 2u, select(0u, 1u, ok), select(1u, 0u, inb));
}

// Straight modules with checked word accesses: the spans (size, heap offset) of
// binding-table entries 0-3, read from `cfg` once when the invocation starts instead
// of at every access (llvmpipe reloads them after each atomic): matmul_tiled16's
// compile -68 million instructions of ~1,740 (callgrind, a cold first run).
var<private> bti_spans: array<u32, 8>;

fn load_bti_spans() {
    bti_spans[0] = cfh(CFG_BTI_SPAN);
    bti_spans[1] = cfh(CFG_BTI_SPAN + 1u);
    bti_spans[2] = cfh(CFG_BTI_SPAN + 2u);
    bti_spans[3] = cfh(CFG_BTI_SPAN + 3u);
    bti_spans[4] = cfh(CFG_BTI_SPAN + 4u);
    bti_spans[5] = cfh(CFG_BTI_SPAN + 5u);
    bti_spans[6] = cfh(CFG_BTI_SPAN + 6u);
    bti_spans[7] = cfh(CFG_BTI_SPAN + 7u);
}

fn bti_ld4(bti: u32, addr: u64, at: u32) -> u32 {
    let f = bti_word(bti, addr, at);
    oob_reads += f.z;
    let ok = f.y != 0u;
    return select(0u, atomicLoad(&heap[select(0u, f.x, ok)]), ok);
}

// Straight modules: the byte at heap byte offset `o` (`bti_at`, `flat_at`; NO_WORD: out
// of bounds, reads 0) from the one word that holds it, without `heap_ld`'s branch to a
// second word and its variable mask (fewer instructions; no time change measured on
// llvmpipe, which folds them for a constant size).
fn heap_ld1(o: u32) -> u32 {
    let ok = o != NO_WORD;
    oob_reads += select(1u, 0u, ok);
    let w = atomicLoad(&heap[select(0u, o >> 2u, ok)]);
    return select(0u, (w >> ((o & 3u) * 8u)) & 0xffu, ok);
}

fn bti_st4(bti: u32, addr: u64, v: u32, at: u32) {
    let f = bti_word(bti, addr, at);
    oob_writes += f.z;
    atomicStore(&heap[select(cfh(CFG_TRASH), f.x, f.y != 0u)], v);
}

// Straight modules: the heap byte offset of `n` bytes at flat address `addr` that an
// access placed on base `j` makes (`lane_memory::flat_base`). The host checked that
// the base's allocation (CFG_FLAT_SPAN) is not another placed base's or a
// binding-table entry's that a write meets, so bytes inside it are this access's
// alone; bytes elsewhere give NO_WORD and `alias_at`: the host then runs the launch
// in the thread mapping, which finds whatever the address holds.
fn flat_at(j: u32, addr: u64, n: u32, at: u32) -> u32 {
    let e = CFG_FLAT_SPAN + 4u * j;
    let base = u64(cfh(e)) | (u64(cfh(e + 1u)) << 32u);
    let size = cfh(e + 2u);
    let off = addr - base;
    let inb = (addr >= base) & ((off >> 32u) == 0lu) & (size >= n) & (u32(off) <= size - n);
    alias_at = select(alias_at, at + 1u, !inb);
    return select(NO_WORD, cfh(e + 3u) + u32(off), inb);
}

// Straight modules: the heap byte offset of an access through binding-table entry
// `bti` whose every channel's address the host found inside the entry before the run
// (`lane_memory::BtiBound`): `bti_at` without the check.
fn bti_in(bti: u32, addr: u64) -> u32 {
    return cfh(CFG_BTI_SPAN + 2u * bti + 1u) + u32(addr & 0xfffffffflu);
}

// The byte at heap byte offset `o`, which is inside an allocation (`bti_in`): no
// bounds, nothing counted.
fn heap_byte(o: u32) -> u32 {
    return (atomicLoad(&heap[o >> 2u]) >> ((o & 3u) * 8u)) & 0xffu;
}

// Straight modules: `flat_at` of an atomic whose bytes provably lie in its base's
// allocation on a word (`lane_memory::flat_spans`: the host checked the pointer is
// word-aligned and the allocation holds the span from it on; allocations lie on 4 GiB
// boundaries, so the low half is the offset): the offset without the check, whose
// word the atomic then applies to without `rmw_word` (atomic_histogram at 262,144
// items on llvmpipe: 3.0x -> 2.0-2.2x its hand WGSL's GPU time, both together).
fn flat_in(j: u32, addr: u64) -> u32 {
    let e = CFG_FLAT_SPAN + 4u * j;
    return cfh(e + 3u) + (u32(addr & 0xfffffffflu) - cfh(e));
}

// `flat_at` as a word index, for 4- and 8-byte accesses without a branch; an unaligned
// one hands the launch to the thread mapping (`slow_at`), as `bti_word` does.
fn flat_word(j: u32, addr: u64, n: u32, at: u32) -> u32 {
    let o = flat_at(j, addr, n, at);
    let ok = (o != NO_WORD) & ((o & 3u) == 0u);
    slow_at = select(slow_at, at + 1u, (o != NO_WORD) & !ok);
    return select(NO_WORD, o >> 2u, ok);
}

fn flat_ld4(j: u32, addr: u64, at: u32) -> u32 {
    let w = flat_word(j, addr, 4u, at);
    return select(0u, atomicLoad(&heap[select(0u, w, w != NO_WORD)]), w != NO_WORD);
}

fn flat_ld8(j: u32, addr: u64, at: u32) -> u64 {
    let w = flat_word(j, addr, 8u, at);
    let ok = w != NO_WORD;
    let x = select(0u, w, ok);
    let v = u64(atomicLoad(&heap[x])) | (u64(atomicLoad(&heap[x + 1u])) << 32u);
    return select(0lu, v, ok);
}

fn flat_ld(j: u32, addr: u64, n: u32, at: u32) -> u64 {
    return heap_ld(flat_at(j, addr, n, at), n);
}

fn flat_st4(j: u32, addr: u64, v: u32, at: u32) {
    let w = flat_word(j, addr, 4u, at);
    atomicStore(&heap[select(cfh(CFG_TRASH), w, w != NO_WORD)], v);
}

fn flat_st8(j: u32, addr: u64, v: u64, at: u32) {
    let w = flat_word(j, addr, 8u, at);
    let ok = w != NO_WORD;
    atomicStore(&heap[select(cfh(CFG_TRASH), w, ok)], u32(v & 0xfffffffflu));
    atomicStore(&heap[select(cfh(CFG_TRASH), w + 1u, ok)], u32(v >> 32u));
}

fn flat_st(j: u32, addr: u64, n: u32, v: u64, at: u32) {
    heap_st(flat_at(j, addr, n, at), n, v);
}

// Straight modules: the SLM twins of `bti_word`, `bti_ld4`, `bti_st4` (matmul_tiled16,
// SIMD16: 3.2 -> 1.8 GPU ms on llvmpipe).
fn slm_word(addr: u64, at: u32) -> vec3<u32> {
    // Below 2^28: the sum does not wrap in 32 bits.
    let lo = u32(addr) & 0x0fffffffu;
    let inb = lo + 4u <= K_SLM_WORDS * 4u;
    let ok = inb & ((lo & 3u) == 0u);
    slow_at = select(slow_at, at + 1u, inb != ok);
    return vec3<u32>(lo >> 2u, select(0u, 1u, ok), select(1u, 0u, inb));
}

fn slm_ld4(addr: u64, at: u32) -> u32 {
    let f = slm_word(addr, at);
    oob_reads += f.z;
    let ok = f.y != 0u;
    return select(0u, atomicLoad(&slm[select(0u, f.x, ok)]), ok);
}

// Straight modules: the scratch space's twins of `slm_word`, `slm_ld4`, `slm_st4` (the
// thread's own words from `scratch_base` on; `mem_ld`'s switch over the spaces at each
// of private_array_large's 160 scratch accesses cost llvmpipe seconds of compiling).
fn scratch_word(addr: u64, at: u32) -> vec3<u32> {
    let lim = cfh(CFG_SCRATCH_WORDS) * 4u;
    let lo = u32(addr);
    let inb = ((addr >> 32u) == 0lu) & (lim >= 4u) & (lo <= lim - 4u);
    let ok = inb & ((lo & 3u) == 0u);
    slow_at = select(slow_at, at + 1u, inb != ok);
    return vec3<u32>(scratch_base + (lo >> 2u), select(0u, 1u, ok), select(1u, 0u, inb));
}

fn scratch_ld4(addr: u64, at: u32) -> u32 {
    let f = scratch_word(addr, at);
    oob_reads += f.z;
    let ok = f.y != 0u;
    return select(0u, atomicLoad(&scratch[select(0u, f.x, ok)]), ok);
}

fn scratch_st4(addr: u64, v: u32, at: u32) {
    let f = scratch_word(addr, at);
    oob_writes += f.z;
    if (f.y != 0u) { atomicStore(&scratch[f.x], v); }
}

// `heap_ld1`'s SLM twin (`slm_at`'s offset).
fn slm_ld1(o: u32) -> u32 {
    let ok = o != NO_WORD;
    oob_reads += select(1u, 0u, ok);
    let w = atomicLoad(&slm[select(0u, o >> 2u, ok)]);
    return select(0u, (w >> ((o & 3u) * 8u)) & 0xffu, ok);
}

fn slm_st4(addr: u64, v: u32, at: u32) {
    let f = slm_word(addr, at);
    oob_writes += f.z;
    atomicStore(&slm[select(K_SLM_WORDS, f.x, f.y != 0u)], v);
}

// SLM accesses of at most 4 bytes from messages known to address SLM (LSC on the SLM
// port): `mem_ld`/`mem_st` on SP_SLM without the other spaces' code.
fn slm_at(addr: u64, n: u32) -> u32 {
    let a = addr & 0x0ffffffflu;
    return select(NO_WORD, u32(a), a + u64(n) <= u64(K_SLM_WORDS * 4u));
}

fn slm_ld(addr: u64, n: u32) -> u64 {
    let o = slm_at(addr, n);
    let ok = o != NO_WORD;
    let w = select(0u, o >> 2u, ok);
    let sh = (o & 3u) * 8u;
    let lo = atomicLoad(&slm[w]);
    var hi = lo;
    if (ok && sh + 8u * n > 32u) { hi = atomicLoad(&slm[w + 1u]); }
    let v = select(lo, (lo >> sh) | (hi << ((32u - sh) & 31u)), sh != 0u);
    let m = select((1u << ((8u * n) & 31u)) - 1u, 0xffffffffu, n >= 4u);
    oob_reads += select(0u, 1u, !ok);
    return u64(select(0u, v & m, ok));
}

fn slm_st(addr: u64, n: u32, v: u64) {
    let o = slm_at(addr, n);
    if (o == NO_WORD) { oob_writes += 1u; return; }
    let x = u32(v & 0xfffffffflu);
    let w = o >> 2u;
    let sh = (o & 3u) * 8u;
    if (sh == 0u && n == 4u) { atomicStore(&slm[w], x); return; }
    let m = select((1u << ((8u * n) & 31u)) - 1u, 0xffffffffu, n >= 4u);
    let m0 = m << sh;
    atomicAnd(&slm[w], ~m0);
    atomicOr(&slm[w], (x << sh) & m0);
    if (sh + 8u * n > 32u) {
        let r = (32u - sh) & 31u;
        let m1 = m >> r;
        atomicAnd(&slm[w + 1u], ~m1);
        atomicOr(&slm[w + 1u], (x >> r) & m1);
    }
}

// Every binding stays part of the pipeline's layout (the host binds them all), whether
// the kernel's code reaches it or not (a kernel whose accesses all take `bti_ld` never
// names `scratch`): naming a binding in `arrayLength` is a use that costs nothing at
// run time. (Atomics in a never-taken branch did the same until stop 27, but llvmpipe
// runs masked code as if taken, an atomic as a loop over the vector's lanes: 3-4 of
// saxpy's ~10 GPU ms over 1M items.)
// Out-of-bounds accesses this invocation made, added to `stat` once at its end
// (`flush_oob`, called by every `main` before it returns): an atomic in every access's
// (untaken) error branch cost saxpy over 1M items 10% of its time on llvmpipe.
var<private> oob_reads: u32;
var<private> oob_writes: u32;

fn flush_oob() {
    if (oob_reads != 0u) { atomicAdd(&stat[STAT_OOB_READS], oob_reads); }
    if (oob_writes != 0u) { atomicAdd(&stat[STAT_OOB_WRITES], oob_writes); }
    oob_reads = 0u;
    oob_writes = 0u;
}

fn keep_bindings() {
    _ = arrayLength(&stat);
    _ = arrayLength(&heap);
    _ = arrayLength(&scratch);
    _ = arrayLength(&state);
    _ = arrayLength(&payload);
    _ = arrayLength(&cfg);
    _ = head[0u];
}

fn mem_ld(space: u32, bti: u32, addr: u64, n: u32) -> u64 {
    let o = locate(space, bti, addr, n);
    if (o == NO_WORD) { oob_reads += 1u; return 0lu; }
    if ((o & 3u) == 0u && n >= 4u) {
        var v = u64(wld(space, o >> 2u));
        if (n == 8u) { v = v | (u64(wld(space, (o >> 2u) + 1u)) << 32u); }
        return v;
    }
    var v = 0lu;
    // loop-bound: 8 (at most 8 bytes; see translate/budget.rs)
    for (var i = 0u; i < n; i++) { v = v | (u64(byte_ld(space, o + i)) << (8u * i)); }
    return v;
}

fn mem_st(space: u32, bti: u32, addr: u64, n: u32, v: u64) {
    let o = locate(space, bti, addr, n);
    if (o == NO_WORD) { oob_writes += 1u; return; }
    if ((o & 3u) == 0u && n >= 4u) {
        wstore(space, o >> 2u, u32(v & 0xfffffffflu));
        if (n == 8u) { wstore(space, (o >> 2u) + 1u, u32(v >> 32u)); }
        return;
    }
    // Sub-word: merge byte runs word by word.
    var i = 0u;
    // loop-bound: 8 (at most 8 bytes; see translate/budget.rs)
    loop {
        if (i >= n) { break; }
        let b = o + i;
        let sh = (b & 3u) * 8u;
        let take = min(4u - (b & 3u), n - i);
        var m = 0xffffffffu;
        if (take < 4u) { m = ((1u << (take * 8u)) - 1u) << sh; }
        let part = u32((v >> (8u * i)) & 0xfffffffflu) << sh;
        wmerge(space, b >> 2u, m, part);
        i = i + take;
    }
}

// ---- atomics ------------------------------------------------------------------------

// Operation codes (the interpreter's AtomicOp order).
const AOP_ADD: u32 = 0u;
const AOP_SUB: u32 = 1u;
const AOP_INC: u32 = 2u;
const AOP_DEC: u32 = 3u;
const AOP_UMIN: u32 = 4u;
const AOP_UMAX: u32 = 5u;
const AOP_XCHG: u32 = 6u;
const AOP_CMPXCHG: u32 = 7u;
const AOP_AND: u32 = 8u;
const AOP_OR: u32 = 9u;
const AOP_XOR: u32 = 10u;
const AOP_IMIN: u32 = 11u;
const AOP_IMAX: u32 = 12u;
const AOP_PREDEC: u32 = 13u;
const AOP_FMAX: u32 = 14u;
const AOP_FMIN: u32 = 15u;
const AOP_FCMPWR: u32 = 16u;
const AOP_FADD: u32 = 17u;
const AOP_FSUB: u32 = 18u;
const AOP_LOAD: u32 = 19u;
const AOP_STORE: u32 = 20u;

fn afl(v: u64, bits: u32) -> f64 {
    if (bits == 64u) { return bitcast<f64>(v); }
    if (bits == 16u) { return f64(hf2f(u32(v))); }
    return w32(bitcast<f32>(u32(v)));
}

// A NaN result is the canonical NaN (`canon_nan`; interp `AtomicOp::apply`).
fn atf(f: f64, bits: u32) -> u64 {
    if (nan64(f)) { return select(select(0x7fc00000lu, 0x7e00lu, bits == 16u), 0x7ff8000000000000lu, bits == 64u); }
    if (bits == 64u) { return bitcast<u64>(f); }
    if (bits == 16u) { return u64(f64_to_hf(f)); }
    return u64(bitcast<u32>(n32(f)));
}

// The new memory value, or `keep` = true to leave memory unchanged (interp AtomicOp::apply).
struct AtomicNew { v: u64, keep: bool }

// FMAX, FMIN, FCMPWR, FADD, FSUB of `atomic_apply`. A module keeps only the arms of
// these switches and atomic_apply's whose codes its kernel uses, and the f64 form of
// the 16- and 64-bit ones only where its kernel has one (translate::atomic_ops; the
// dispatch is one line so that it can be swapped).
fn atomic_float(op: u32, old: u64, s0: u64, s1: u64, bits: u32) -> AtomicNew { if (bits == 32u) { return atomic_float32(op, u32(old), u32(s0), u32(s1)); } return atomic_float_wide(op, old, s0, s1, bits); }

// The order of non-NaN f32 bits as unsigned keys (-0 below +0, as min/max take it).
fn f32_key(b: u32) -> u32 { return select(b | 0x80000000u, ~b, (b >> 31u) != 0u); }

// 32-bit float atomics on the bits, and the add in native f32 (`fadd32_rne`, exact on
// flushing adapters too): no f64, which is soft doubles where 64-bit types are emulated.
// The interpreter's `AtomicOp::apply`: minNum/maxNum, an IEEE compare, a NaN result
// the default NaN.
fn atomic_float32(op: u32, old: u32, s0: u32, s1: u32) -> AtomicNew {
    var r = AtomicNew(0lu, false);
    var v = 0u;
    let old_nan = (old & 0x7fffffffu) > 0x7f800000u;
    let s0_nan = (s0 & 0x7fffffffu) > 0x7f800000u;
    switch op {
        case 14u, 15u: { if (old_nan) { v = s0; } else if (s0_nan) { v = old; } else { v = select(s0, old, (f32_key(old) > f32_key(s0)) == (op == 14u)); } }
        case 16u: { if (!old_nan && !s0_nan && (old == s0 || ((old | s0) & 0x7fffffffu) == 0u)) { v = s1; } else { r.keep = true; } }
        case 17u: { v = bitcast<u32>(fadd32_rne(bitcast<f32>(old), bitcast<f32>(s0), 0.0)); }
        case 18u: { v = bitcast<u32>(fadd32_rne(bitcast<f32>(old), -bitcast<f32>(s0), 0.0)); }
        default: { r.keep = true; }
    }
    // FCMPWR writes s1 as it is.
    if (op != 16u && (v & 0x7fffffffu) > 0x7f800000u) { v = 0x7fc00000u; }
    r.v = u64(v);
    return r;
}

// 16- and 64-bit float atomics through f64.
fn atomic_float_wide(op: u32, old: u64, s0: u64, s1: u64, bits: u32) -> AtomicNew {
    var r = AtomicNew(0lu, false);
    switch op {
        case 14u: { r.v = atf(fminmax64(afl(old, bits), afl(s0, bits), true), bits); }
        case 15u: { r.v = atf(fminmax64(afl(old, bits), afl(s0, bits), false), bits); }
        case 16u: { if (afl(old, bits) == afl(s0, bits)) { r.v = s1; } else { r.keep = true; } }
        case 17u: { r.v = atf(afl(old, bits) + afl(s0, bits), bits); }
        case 18u: { r.v = atf(afl(old, bits) - afl(s0, bits), bits); }
        default: { r.keep = true; }
    }
    return r;
}

fn atomic_apply(op: u32, old0: u64, s00: u64, s10: u64, bits: u32) -> AtomicNew {
    let m = mask_bits(bits);
    let old = old0 & m;
    let s0 = s00 & m;
    let s1 = s10 & m;
    var r = AtomicNew(0lu, false);
    switch op {
        case 0u: { r.v = old + s0; }
        case 1u: { r.v = old - s0; }
        case 2u: { r.v = old + 1lu; }
        case 3u, 13u: { r.v = old - 1lu; }
        case 4u: { r.v = min(old, s0); }
        case 5u: { r.v = max(old, s0); }
        case 6u, 20u: { r.v = s0; }
        case 7u: { if (old == s0) { r.v = s1; } else { r.keep = true; } }
        case 8u: { r.v = old & s0; }
        case 9u: { r.v = old | s0; }
        case 10u: { r.v = old ^ s0; }
        case 11u: { r.v = u64(min(sext(old, bits), sext(s0, bits))); }
        case 12u: { r.v = u64(max(sext(old, bits), sext(s0, bits))); }
        case 14u, 15u, 16u, 17u, 18u: { r = atomic_float(op, old, s0, s1, bits); }
        default: { r.keep = true; }
    }
    r.v = r.v & m;
    return r;
}

// One atomic read-modify-write of `n` bytes (2, 4 or 8); returns the old value. 16- and
// 32-bit operations are a compare-and-swap loop on their word (or WGSL's own atomic),
// so they are atomic against every other access. WGSL has no 64-bit atomics without
// SHADER_INT64_ATOMIC_ALL_OPS, so a 64-bit operation holds a lock while it reads and
// writes its two words (`atomic64_split`).

// Locks of the 64-bit atomics' split form, hashed by word: SLM's are the group's own
// (K_SLM_LOCKS words past its SLM, so groups never contend), the other spaces' are
// words STAT_LOCKS.. of `stat`. Collisions only serialize; a thread holds one lock at
// a time, so none can deadlock.
const STAT_LOCKS: u32 = 16u;
const N_LOCKS: u32 = 1024u;

fn lock_of(space: u32, w: u32) -> u32 {
    return ((w >> 1u) ^ (space * 0x9e3779b9u)) * 0x85ebca6bu >> 22u;
}

fn lock_try(space: u32, k: u32) -> bool {
    if (space == SP_SLM) {
        return atomicCompareExchangeWeak(&slm[K_SLM_WORDS + 1u + k % K_SLM_LOCKS], 0u, 1u).exchanged;
    }
    return atomicCompareExchangeWeak(&stat[STAT_LOCKS + k], 0u, 1u).exchanged;
}

fn lock_release(space: u32, k: u32) {
    if (space == SP_SLM) {
        atomicStore(&slm[K_SLM_WORDS + 1u + k % K_SLM_LOCKS], 0u);
    } else {
        atomicStore(&stat[STAT_LOCKS + k], 0u);
    }
}

// Append counters (`lsc_apndctr_atomic_*`): one word per binding-table entry after
// the locks in `stat`, zero at launch (the hidden counter of the surface state).
const STAT_APPEND: u32 = STAT_LOCKS + N_LOCKS;

// Add (`op` 0) or subtract (1) `v` on surface `bti`'s append counter; the old value.
fn append_rmw(bti: u32, op: u32, v: u32) -> u32 {
    let k = STAT_APPEND + min(bti, 255u);
    if (op == 1u) { return atomicSub(&stat[k], v); }
    return atomicAdd(&stat[k], v);
}

// A 64-bit atomic on words `w`, `w + 1` of `space` under a lock: exact under any
// contention. The lock is taken, used and released in one iteration, so the
// invocations of one subgroup that lose the race retry while the winner finishes
// (lock-step SIMT cannot make the winner wait on the losers). NVIDIA's driver still
// hung on it (atomic_64bit_local/pvc-simd32, SLM): where the device has 64-bit atomics
// the driver swaps `atomic64` for shaders/atomic64_native.wgsl
// (translate::native_atomic64) on 8-byte aligned heap words, and SLM with 64-bit
// atomics moves into the heap to take that form too.
fn atomic64_split(space: u32, w: u32, op: u32, s0: u64, s1: u64) -> u64 {
    let lk = lock_of(space, w);
    // loop-bound: 8 (a lock is held for one iteration; retries only under contention; see translate/budget.rs)
    for (var tries = 0u; tries < 1000000u; tries++) {
        // Sixteen tries per loop iteration: llvmpipe caps an invocation's loop
        // iterations (translate/budget.rs), and waiting out a lock holder the OS has
        // descheduled must not spend that cap in a few milliseconds.
        var got = lock_try(space, lk);
        got = got || lock_try(space, lk);
        got = got || lock_try(space, lk);
        got = got || lock_try(space, lk);
        got = got || lock_try(space, lk);
        got = got || lock_try(space, lk);
        got = got || lock_try(space, lk);
        got = got || lock_try(space, lk);
        got = got || lock_try(space, lk);
        got = got || lock_try(space, lk);
        got = got || lock_try(space, lk);
        got = got || lock_try(space, lk);
        got = got || lock_try(space, lk);
        got = got || lock_try(space, lk);
        got = got || lock_try(space, lk);
        got = got || lock_try(space, lk);
        if (got) {
            let old = u64(wld(space, w)) | (u64(wld(space, w + 1u)) << 32u);
            let r = atomic_apply(op, old, s0, s1, 64u);
            if (!r.keep) {
                wstore(space, w, u32(r.v & 0xfffffffflu));
                wstore(space, w + 1u, u32(r.v >> 32u));
            }
            lock_release(space, lk);
            return old;
        }
    }
    // Contended past the bound (or the driver's loop limiter stopped the loop): the
    // operation did not happen, so the run must not return results.
    fail(ERR_ATOMIC_CONTENDED, NO_WORD);
    return 0lu;
}

fn atomic64(space: u32, w: u32, op: u32, s0: u64, s1: u64) -> u64 { return atomic64_split(space, w, op, s0, s1); }

fn mem_atomic(space: u32, bti: u32, addr: u64, n: u32, op: u32, s0: u64, s1: u64) -> u64 {
    let o = locate(space, bti, addr, n);
    if (o == NO_WORD) { oob_reads += 1u; return 0lu; }
    if ((o & (min(n, 4u) - 1u)) != 0u) {
        // Misaligned: not atomic on hardware either; a plain read-modify-write.
        let old = mem_ld(space, bti, addr, n);
        let r = atomic_apply(op, old, s0, s1, n * 8u);
        if (!r.keep) { mem_st(space, bti, addr, n, r.v); }
        return old;
    }
    let w = o >> 2u;
    if (n == 8u) { return atomic64(space, w, op, s0, s1); }
    // 32-bit add, sub, inc, dec, umin, umax, xchg, and, or, xor: WGSL's own atomics
    // (the old value and the new word the CAS loop gives, without its retries under
    // contention).
    if (n == 4u && (op <= 6u || (op >= 8u && op <= 10u) || op == 13u)) {
        return u64(wrmw(space, w, op, u32(s0 & 0xfffffffflu)));
    }
    let sh = (o & 3u) * 8u;
    var m = 0xffffffffu;
    if (n == 2u) { m = 0xffffu << sh; }
    // loop-bound: 4 (a CAS retries only under contention; see translate/budget.rs)
    for (var tries = 0u; tries < 1000000u; tries++) {
        let word = wld(space, w);
        let old = u64((word & m) >> sh);
        let r = atomic_apply(op, old, s0, s1, n * 8u);
        if (r.keep) { return old; }
        let nw = (word & ~m) | ((u32(r.v) << sh) & m);
        if (wcas(space, w, word, nw)) { return old; }
    }
    fail(ERR_ATOMIC_CONTENDED, NO_WORD);
    return 0lu;
}

// The interpreter's flush() of an f64 value against F's and HF's smallest normals.
fn flush_f(x: f64, keep: bool) -> f64 {
    if (keep || x == 0.0lf || abs(x) >= 1.1754943508222875e-38lf) { return x; }
    if ((bitcast<u64>(x) >> 63u) == 1lu) { return -0.0lf; }
    return 0.0lf;
}

fn flush_h(x: f64, keep: bool) -> f64 {
    if (keep) { return x; }
    // On the bits: below 2^-14 (an f64 exponent field under 1009) is an HF denormal
    // or a zero; a NaN (which every comparison called small) stays.
    let b = bitcast<u64>(x);
    if (((b >> 52u) & 0x7fflu) < 1009lu) { return bitcast<f64>(b & 0x8000000000000000lu); }
    return x;
}

// EvaluateChEn of 5_operands: mask control offset, NoMask, predicate any/all/inverse.
fn chen(em: u32, n: u32, off: u32, nomask: bool, pbits: u32, has_pred: bool, comb: u32, inv: bool) -> u32 {
    var full = 0xffffffffu;
    if (n < 32u) { full = (1u << n) - 1u; }
    var ch = full;
    if (!nomask) { ch = (em >> off) & full; }
    if (has_pred) {
        var pm = (pbits >> off) & full;
        if (comb == 1u) { pm = select(0u, full, pm != 0u); }
        if (comb == 2u) { pm = select(0u, full, pm == full); }
        if (inv) { pm = ~pm & full; }
        ch = ch & pm;
    }
    return ch;
}

// A surface variable: 0xffffffff unset (the surface of the same index), bit 31 set for
// the special surfaces, else a binding-table index.
const SV_SLM: u32 = 0x80000000u;
const SV_FLAT: u32 = 0x80000001u;
const SV_SCRATCH: u32 = 0x80000002u;

fn surf_code(id: u32) -> u32 {
    if (id == 0u) { return SV_SLM; }
    if (id == 5u) { return SV_SCRATCH; }
    if (id >= 1u && id <= 4u) { return SV_FLAT; }
    if (id >= K_NSURF) { return id; }
    let v = sv[id];
    if (v == 0xffffffffu) { return id; }
    return v;
}

// (space, bti) of a surface operand.
fn surf_space(id: u32) -> vec2<u32> {
    let c = surf_code(id);
    if (c == SV_SLM) { return vec2<u32>(SP_SLM, 0u); }
    if (c == SV_FLAT) { return vec2<u32>(SP_FLAT, 0u); }
    if (c == SV_SCRATCH) { return vec2<u32>(SP_SCRATCH, 0u); }
    return vec2<u32>(SP_BTI, c);
}

// A surface variable read as a source: its binding-table index, 0 for the others.
fn surf_value(id: u32) -> u32 {
    if (id >= K_NSURF) { return 0u; }
    let v = sv[id];
    if ((v & 0x80000000u) != 0u) { return 0u; }
    return v;
}

// A 64-bit immediate (naga cannot constant-fold conversions of 64-bit literals).
fn imm(lo: u32, hi: u32) -> u64 { return u64(lo) | (u64(hi) << 32u); }

// A float immediate, or an integer one with an infinity's or a NaN's bits
// (`translate::operand::immediate`), read through `CFG_ZERO` so that no compiler
// knows it. Vulkan drivers rewrite float operations on literals algebraically where a
// shader cannot forbid it (naga has no `NoContraction`): lavapipe made `x * 0.0` a +0
// and `(x + c1) + c2` an `x + (c1 + c2)`; NVIDIA's compiler (driver 580) assumed
// infinities away: in math_trig, `mul x, 0x7f800000:f` took the H200's invocations
// off the rest of the kernel (the block records of lanes with h = inf end there).
fn imm_opaque(lo: u32, hi: u32) -> u64 { return imm(lo ^ zero_word, hi); }

// The runtime's own infinities and NaNs, hidden the same way.
fn hidden_f32(bits: u32) -> f32 { return bitcast<f32>(bits ^ zero_word); }
fn hidden_f64(bits: u64) -> f64 { return bitcast<f64>(bits ^ u64(zero_word)); }

// F, HF and BF division, reciprocal and square root run on native f64: a few ulps of
// f64 cannot move their once-rounded results, but a native sequence that is not
// IEEE's may get the specials wrong (Vulkan asks IEEE's zeros, infinities and NaNs only
// of drivers that preserve them; NVIDIA's f64 division is a refined reciprocal, and
// a refinement step of 1/inf is inf * 0). Where the host's probe found native f64
// division or sqrt inexact (`F64_SOFT_DIV`), it sets this too and the specials take
// IEEE's results on the bits; elsewhere the calls are written as the plain operations
// (`prune::without_idle_wrappers`).
const F_DIV_SPECIALS: bool = false;
const F64_SIGN: u64 = 0x8000000000000000lu;
const F64_INF: u64 = 0x7ff0000000000000lu;
// The quiet bit of a NaN, and the NaN an invalid operation gives (x86's, as lavapipe's
// native operations do).
const F64_QUIET: u64 = 0x0008000000000000lu;
const F64_INVALID: u64 = 0xfff8000000000000lu;

// A zero, an infinity or a NaN (bits).
fn special64(b: u64) -> bool {
    let m = b & ~F64_SIGN;
    return m == 0lu || m >= F64_INF;
}

fn fdiv64(x: f64, y: f64) -> f64 {
    if (F_DIV_SPECIALS) {
        let a = bitcast<u64>(x);
        let b = bitcast<u64>(y);
        if (special64(a) || special64(b)) {
            let ma = a & ~F64_SIGN;
            let mb = b & ~F64_SIGN;
            let s = (a ^ b) & F64_SIGN;
            if (ma > F64_INF) { return bitcast<f64>(a | F64_QUIET); }
            if (mb > F64_INF) { return bitcast<f64>(b | F64_QUIET); }
            if ((ma == F64_INF && mb == F64_INF) || (ma == 0lu && mb == 0lu)) {
                return hidden_f64(F64_INVALID);
            }
            if (ma == F64_INF || mb == 0lu) { return hidden_f64(s | F64_INF); }
            return bitcast<f64>(s);
        }
    }
    return x / y;
}

fn fsqrt64(x: f64) -> f64 {
    if (F_DIV_SPECIALS) {
        let a = bitcast<u64>(x);
        if (special64(a) || (a & F64_SIGN) != 0lu) {
            let m = a & ~F64_SIGN;
            if (m == 0lu || a == F64_INF) { return x; }
            if (m > F64_INF) { return bitcast<f64>(a | F64_QUIET); }
            return hidden_f64(F64_INVALID);
        }
    }
    return sqrt(x);
}

// `s` (an f64 sum) moved to odd when `err`, the exact sum's remainder, is not zero:
// rounded to odd with 29 spare bits, one more rounding to f32 in any mode is exact.
fn to_odd(s: f64, err: f64) -> f64 {
    if (err == 0.0lf || nan64(s) || abs(s) > 1.0e300lf) { return s; }
    var b = bitcast<u64>(s);
    if ((err > 0.0lf) != (s > 0.0lf)) { b = b - 1lu; }
    return bitcast<f64>(b | 1lu);
}

// `x`, hidden from the shader compiler's algebra: without SPIR-V's NoContraction
// (naga emits none), Mesa's NIR rewrites TwoSum's (a + b) - b to a and its error term
// to 0.
fn opaque_f64(x: f64) -> f64 {
    return bitcast<f64>(bitcast<u64>(x) ^ u64(zero_word));
}

// The error of s = a + b (TwoSum; `opaque_f64` keeps the driver from folding it).
fn two_sum_err(a: f64, b0: f64, s: f64) -> f64 {
    let b = opaque_f64(b0);
    let bp = s - b;
    let bc = s - bp;
    return (a - bp) + (b - bc);
}

// a + b rounded to odd (TwoSum gives the exact remainder).
fn add_odd(a: f64, b: f64) -> f64 {
    let s = a + b;
    return to_odd(s, two_sum_err(a, b, s));
}

// F transcendentals (WGSL's f32 builtins, within the pages' ULP bounds). With
// denormals flushed (`F32_FTZ`), the arguments and results a flushing builtin would
// take for zero go through exact power-of-two scalings in f64 and `n32`.
fn fexp2(x: f32) -> f32 {
    if (!F32_FTZ || !(x < -126.0)) { return exp2(x); }
    // 2^x = 2^(x + 64) * 2^-64: x + 64 is exact here, the scaling too.
    return n32(w32(exp2(x + 64.0)) * 5.421010862427522e-20lf);
}

fn flog2(x: f32) -> f32 {
    if (!F32_FTZ || !tiny32(x)) { return log2(x); }
    if ((bitcast<u32>(x) >> 31u) != 0u) { return hidden_f32(0x7fc00000u); }
    // log2(x) = log2(x * 2^64) - 64, the scaling exact.
    return log2(n32(w32(x) * 1.8446744073709552e19lf)) - 64.0;
}

// sin(x) rounds to x for |x| < 2^-12; a flushing sin would give 0 for a denormal.
fn fsin(x: f32) -> f32 {
    if (F32_FTZ && tiny32(x)) { return x; }
    return sin(x);
}

// log2 of a positive finite f32, denormal or not, in f64: the exponent from the bits,
// plus log2 of the mantissa in [1, 2) (WGSL's f32 log2, off by ulps of a value < 1).
fn log2_wide(x: f32) -> f64 {
    let b = bitcast<u32>(x) & 0x7fffffffu;
    var e = i32(b >> 23u) - 127;
    var m = b & 0x7fffffu;
    if ((b >> 23u) == 0u) {
        let top = firstLeadingBit(m);
        e = i32(top) - 149;
        m = (m << (23u - top)) & 0x7fffffu;
    }
    return f64(e) + w32(log2(bitcast<f32>(m | 0x3f800000u)));
}

// 2^t for t in f64, rounded to f32 on the bits: 2^frac(t) from WGSL's exp2, times an
// exact power of two.
fn exp2_wide(t: f64) -> f32 {
    if (!(t < 128.0lf)) { return exp2(n32(t)); }
    if (t < -152.0lf) { return 0.0; }
    let k = floor64(t);
    let p = bitcast<f64>(u64(i64(k) + 1023li) << 52u);
    return n32(w32(exp2(n32(t - k))) * p);
}

// A denormal base, or a result a flushing pow took for zero: 2^(y * log2 x) in f64.
fn fpow(x: f32, y: f32) -> f32 {
    let r = pow(x, y);
    if (!F32_FTZ || (bitcast<u32>(x) >> 31u) != 0u) { return r; }
    if (!tiny32(x) && !(r == 0.0 && x > 0.0 && x != 1.0)) { return r; }
    return exp2_wide(w32(y) * log2_wide(x));
}

// F arithmetic in the cr0 rounding mode: native in round-to-nearest; otherwise the f64
// result rounded to odd (a product of f32 values is exact in f64; a sum is not when
// the exponents are far apart), then rounded once in the mode.
// Each `*_rne` twin is its helper in round-to-nearest (`md == 0u`); translate/tidy.rs
// calls the twin where the mode is known to be that, so the driver never inlines the
// directed modes' code there.
fn fadd32(x: f32, y: f32, z: f32, md: u32) -> f32 {
    if (md == 0u) { return fadd32_rne(x, y, z); }
    return f64_to_f32_rm(sum_in_mode(w32(x), w32(y), md), md);
}

fn fadd32_rne(x: f32, y: f32, z: f32) -> f32 {
    if (!F32_FTZ) { return x + y; }
    if (F32_SPECULATE) {
        // A zero or denormal result is IEEE's only as the exact zero of x + -x.
        let r = sim32(x + y);
        if (tiny32(x) || tiny32(y) || (zero_exp32(r) && x != -y)) { ftz_missed(); }
        return r;
    }
    // Flushing adapters: natively where that is exact (`normal32`).
    if (!tiny32(x) && !tiny32(y)) {
        let r = sim32(x + y);
        if (normal32(r)) { return r; }
    }
    return n32(add_odd(w32(x), w32(y)));
}

// a + b rounded to odd, with IEEE's sign of an exact zero sum: -0 when rounding down
// (x + -x, +0 + -0), unless both terms are +0.
fn sum_in_mode(a: f64, b: f64, md: u32) -> f64 {
    let s = add_odd(a, b);
    if (md == 2u && s == 0.0lf && (bitcast<u64>(a) | bitcast<u64>(b)) != 0lu) { return -0.0lf; }
    return s;
}

fn fmul32(x: f32, y: f32, z: f32, md: u32) -> f32 {
    if (md == 0u) { return fmul32_rne(x, y, z); }
    return f64_to_f32_rm(w32(x) * w32(y), md);
}

fn fmul32_rne(x: f32, y: f32, z: f32) -> f32 {
    if (!F32_FTZ) { return keep32(x * y); }
    if (F32_SPECULATE) {
        // A product of nonzero normals is never an exact zero.
        let r = sim32(keep32(x * y));
        if (tiny32(x) || tiny32(y) || (zero_exp32(r) && x != 0.0 && y != 0.0)) { ftz_missed(); }
        return r;
    }
    if (!tiny32(x) && !tiny32(y)) {
        let r = sim32(keep32(x * y));
        if (normal32(r)) { return r; }
    }
    return n32(w32(x) * w32(y));
}

// A fused f32 multiply-add with one rounding on any adapter (SPIR-V's Fma may round
// twice): the product is exact in f64, the sum is rounded to odd, then to f32.
fn fma_rne32(x: f32, y: f32, z: f32) -> f32 {
    return n32(add_odd(w32(x) * w32(y), w32(z)));
}

// x * y + z rounded once in mode `md` on the bits, with 64-bit integers and no f64
// (denormals kept; a NaN result is the default NaN, which `canon_nan` makes of any).
// Where f64 is emulated `backend::gpu::lowered` calls it for `fma_rne32` and `fmad32`:
// their f64 forms lowered to the soft fma (128-bit products) and inlined at every F mad
// made modules llvmpipe could not compile (`vector_float4_geom`: 45 mads, over 15 GB).
fn fma32_bits(x: f32, y: f32, z: f32, md: u32) -> f32 {
    let a = bitcast<u32>(x);
    let b = bitcast<u32>(y);
    let c = bitcast<u32>(z);
    let sp = (a ^ b) & 0x80000000u;
    let sz = c & 0x80000000u;
    let ma = a & 0x7fffffffu;
    let mb = b & 0x7fffffffu;
    let mc = c & 0x7fffffffu;
    if (ma > 0x7f800000u || mb > 0x7f800000u || mc > 0x7f800000u) {
        return bitcast<f32>(0x7fc00000u);
    }
    if (ma == 0x7f800000u || mb == 0x7f800000u) {
        if (ma == 0u || mb == 0u || (mc == 0x7f800000u && sz != sp)) {
            return bitcast<f32>(0x7fc00000u);
        }
        return bitcast<f32>(sp | 0x7f800000u);
    }
    if (mc == 0x7f800000u) { return z; }
    if (ma == 0u || mb == 0u) {
        if (mc != 0u) { return z; }
        // A sum of zeros: -0 for two -0, or one -0 when rounding down.
        if (sp == sz) { return bitcast<f32>(sp); }
        return bitcast<f32>(select(0u, 0x80000000u, md == 2u));
    }
    // Significands and exponents: value = m * 2^e; the product's leading one moved to
    // bit 62, the addend's too, the smaller shifted right with a sticky bit.
    var p = u64(fma32_sig(ma)) * u64(fma32_sig(mb));
    var e = fma32_exp(ma) + fma32_exp(mb);
    let lp = fma32_clz64(p) - 1u;
    p = p << lp;
    e = e - i32(lp);
    var sign = sp;
    if (mc != 0u) {
        var q = u64(fma32_sig(mc));
        let lq = fma32_clz64(q) - 1u;
        q = q << lq;
        let eq = fma32_exp(mc) - i32(lq);
        if (e >= eq) {
            q = fma32_jam(q, u32(min(e - eq, 64)));
        } else {
            p = fma32_jam(p, u32(min(eq - e, 64)));
            e = eq;
        }
        if (sp == sz) {
            p = p + q;
        } else if (p > q) {
            p = p - q;
        } else if (q > p) {
            p = q - p;
            sign = sz;
        } else {
            return bitcast<f32>(select(0u, 0x80000000u, md == 2u));
        }
    }
    // Round p * 2^e (p != 0) to the f32 quantum 2^qe.
    let top = 63 - i32(fma32_clz64(p));
    let qe = max(e + top - 23, -149);
    let ni = qe - e;
    let n = u32(max(ni, 0));
    var r = 0lu;
    var inexact = true;
    var above = false;
    var tie = false;
    if (ni <= 0) {
        // A difference that cancelled to 24 bits or fewer: exact.
        r = p << u32(-ni);
        inexact = false;
    } else if (n >= 64u) {
        above = n == 64u && p > 0x8000000000000000lu;
        tie = n == 64u && p == 0x8000000000000000lu;
    } else {
        r = p >> n;
        let rest = p & ((1lu << n) - 1lu);
        let half = 1lu << (n - 1u);
        inexact = rest != 0lu;
        above = rest > half;
        tie = rest == half;
    }
    var away = false;
    switch md {
        case 0u: { away = above || (tie && (r & 1lu) == 1lu); }
        case 1u: { away = inexact && sign == 0u; }
        case 2u: { away = inexact && sign != 0u; }
        default: { away = false; }
    }
    if (away) { r = r + 1lu; }
    var q2 = qe;
    if (r == 0x1000000lu) {
        r = 0x800000lu;
        q2 = q2 + 1;
    }
    if (r == 0lu) { return bitcast<f32>(sign); }
    if (r < 0x800000lu) { return bitcast<f32>(sign | u32(r)); }
    let biased = q2 + 150;
    if (biased >= 255) {
        let to_inf = md == 0u || (md == 1u && sign == 0u) || (md == 2u && sign != 0u);
        return bitcast<f32>(sign | select(0x7f7fffffu, 0x7f800000u, to_inf));
    }
    return bitcast<f32>(sign | (u32(biased) << 23u) | (u32(r) & 0x7fffffu));
}

// `fma32_bits`' pieces: the significand and exponent of a finite nonzero magnitude
// (value = sig * 2^exp), the leading zeros of a u64, a right shift with a sticky bit.
fn fma32_sig(m: u32) -> u32 {
    if (m < 0x800000u) { return m; }
    return (m & 0x7fffffu) | 0x800000u;
}
fn fma32_exp(m: u32) -> i32 {
    return max(i32(m >> 23u), 1) - 150;
}
fn fma32_clz64(v: u64) -> u32 {
    let hi = u32(v >> 32u);
    if (hi != 0u) { return countLeadingZeros(hi); }
    return 32u + countLeadingZeros(u32(v & 0xfffffffflu));
}
fn fma32_jam(v: u64, n: u32) -> u64 {
    if (n == 0u) { return v; }
    if (n >= 64u) { return select(0lu, 1lu, v != 0lu); }
    return (v >> n) | select(0lu, 1lu, (v & ((1lu << n) - 1lu)) != 0lu);
}

fn fmad32(x: f32, y: f32, z: f32, md: u32) -> f32 {
    if (md == 0u) { return fma_rne32(x, y, z); }
    return f64_to_f32_rm(sum_in_mode(w32(x) * w32(y), w32(z), md), md);
}

// a + b + c rounded once to f32 in mode `md` (terms exact in f64, such as products of
// f32 values): Boldo and Melquiond's correctly rounded sum of three, the low parts
// combined with rounding to odd. An infinite or NaN sum is the plain one.
fn sum3_32(a: f64, b: f64, c: f64, md: u32) -> f32 {
    let uh = b + c;
    let ul = two_sum_err(b, c, uh);
    let th = a + uh;
    if (nan64(th) || abs(th) > 1.0e300lf) { return f64_to_f32_rm(th, md); }
    let tl = two_sum_err(a, uh, th);
    return f64_to_f32_rm(add_odd(th, add_odd(tl, ul)), md);
}

// LRP as its page's C formula, src1*src0 + src2*(1.0 - src0), in f32: four roundings
// (the interpreter's); with denormals flushed, each in f64 and rounded to f32 on its
// bits. Directed modes: the f64 formula rounded once in the mode (the interpreter's).
fn flrp32(x: f32, y: f32, z: f32, md: u32) -> f32 {
    if (md == 0u) { return flrp32_rne(x, y, z); }
    return f64_to_f32_rm(keep64(w32(x) * w32(y)) + keep64((1.0lf - w32(x)) * w32(z)), md);
}

fn flrp32_rne(x: f32, y: f32, z: f32) -> f32 {
    if (!F32_FTZ) { return keep32(x * y) + keep32((1.0 - x) * z); }
    let p = n32(w32(x) * w32(y));
    let q = n32(w32(n32(1.0lf - w32(x))) * w32(z));
    return n32(w32(p) + w32(q));
}
