// Float atomics (OpenCL 3.0 atomic_float, cl_ext_float_atomics): IGC emits LSC's
// fadd, fsub, fmin and fmax on acm-g10 (tgllp: compare-exchange loops). Contended
// updates whose results are the same in any order of the work-items (sums of
// quarters, exact; minimum and maximum), and per-item ones whose old values and
// results are fixed (special values included). (A float compare-exchange
// does not compile: SPIR-V 1.0 has no float OpAtomicCompareExchange.)
__kernel void float_atomics(__global const float* x, __global const float* y,
                            __global const float* q, volatile __global atomic_float* acc,
                            volatile __global atomic_float* cell, __global float* old) {
  int i = (int)get_global_id(0);
  int n = (int)get_global_size(0);
  atomic_fetch_add_explicit(&acc[0], q[i], memory_order_relaxed);
  atomic_fetch_sub_explicit(&acc[1], q[i], memory_order_relaxed);
  atomic_fetch_min_explicit(&acc[2], x[i], memory_order_relaxed);
  atomic_fetch_max_explicit(&acc[3], x[i], memory_order_relaxed);
  old[2 * i] = atomic_fetch_add_explicit(&cell[2 * i], x[i], memory_order_relaxed);
  old[2 * i + 1] = atomic_fetch_sub_explicit(&cell[2 * i + 1], y[i], memory_order_relaxed);
  old[2 * n + 2 * i] = atomic_fetch_min_explicit(&cell[2 * n + 2 * i], y[i], memory_order_relaxed);
  old[2 * n + 2 * i + 1] = atomic_fetch_max_explicit(&cell[2 * n + 2 * i + 1], y[i], memory_order_relaxed);
}
