// Rounds of a loop whose scalar `off` halves each pass, inside one SIMD thread per group:
// each channel reads s[l], then writes s[l + off], another channel's slot, in the same
// round. vISA runs every channel's read before any channel's write (one thread, one
// instruction at a time), so each read sees the slots as the previous round left them.
// The straight lane form would let the channels run apart; the host's check of the loop
// scalars finds the overlap (for every value of `off`) and runs the thread mapping.
__kernel void slm_rounds_overlap(__global const int* a, __global int* o, int start) {
    __local int s[32];
    int l = get_local_id(0);
    s[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int off = start; off > 0; off >>= 1) {
        int v = s[l];
        if (l + off < 16)
            s[l + off] = v * 3 + off;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    o[get_global_id(0)] = s[l];
}
