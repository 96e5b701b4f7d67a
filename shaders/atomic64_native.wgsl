// 64-bit atomics on a device with SHADER_INT64_ATOMIC_ALL_OPS: the heap buffer bound a
// second time as 64-bit atomic words (binding 7, translate::binding::HEAP64), and a
// compare-and-swap loop on one `atomic<u64>`: exact under any contention, and lock-free,
// so no invocation waits on another of its subgroup (NVIDIA's driver hung a kernel whose
// SLM atomics took the split form's locks: atomic_64bit_local/pvc-simd32, stop 37).
// SLM in workgroup memory, scratch and heap words that are not 8-byte aligned keep the
// split form (a lock per word).
@group(0) @binding(7) var<storage, read_write> heap64: array<atomic<u64>>;

fn atomic64(space: u32, w: u32, op: u32, s0: u64, s1: u64) -> u64 {
    // SLM moved into the heap (the host does so for kernels with 64-bit SLM atomics on
    // such devices): its words are heap words from `slm_base` on.
    let in_heap = space < SP_SLM || (space == SP_SLM && K_SLM_IN_HEAP);
    let hw = select(w, slm_base + w, space == SP_SLM);
    if (!in_heap || (hw & 1u) != 0u) { return atomic64_split(space, w, op, s0, s1); }
    let q = hw >> 1u;
    // loop-bound: 4 (a CAS retries only under contention; see translate/budget.rs)
    for (var tries = 0u; tries < 1000000u; tries++) {
        let old = atomicLoad(&heap64[q]);
        let r = atomic_apply(op, old, s0, s1, 64u);
        if (r.keep) { return old; }
        if (atomicCompareExchangeWeak(&heap64[q], old, r.v).exchanged) { return old; }
    }
    fail(ERR_ATOMIC_CONTENDED, NO_WORD);
    return 0lu;
}
