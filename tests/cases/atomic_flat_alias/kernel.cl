// Atomics at data-dependent addresses inside a buffer the kernel also reads: one SIMD8
// thread reads a[i], then increments a[idx[i]]. vISA orders every channel's read before
// every channel's atomic; the straight lane form cannot prove the atomics miss the read
// bytes, so its shader checks each address and hands the launch to the thread mapping.
__kernel void atomic_flat_alias(__global const uint* idx, __global uint* a, __global uint* out) {
    int i = get_global_id(0);
    out[i] = a[i];
    atomic_inc(&a[idx[i]]);
}
