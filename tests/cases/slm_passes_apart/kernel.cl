// Passes of a loop without a barrier, inside one SIMD thread per group: pass k reads row
// k of s (the channel's own slot) and writes row k + 1 one slot over, which channel
// l + 1 reads in pass k + 1. vISA runs pass k for every channel before pass k + 1, so
// each read sees the previous pass's write; straight invocations would not meet, so the
// translator keeps the thread mapping (the loop scalar's passes need a barrier between
// them to be one pass's values).
__kernel void slm_passes_apart(__global const int* a, __global int* o, int n) {
    __local int s[16 * 10];
    int l = get_local_id(0);
    s[l] = a[get_global_id(0)];
    for (int k = 0; k < n; k++) {
        int v = s[16 * k + l];
        s[16 * (k + 1) + l + 1] = v + k;
    }
    o[get_global_id(0)] = s[16 * n + l];
}
