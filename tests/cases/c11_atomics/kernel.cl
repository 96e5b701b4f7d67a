// OpenCL 2.0 C11-style atomics with explicit memory orders and scopes, on global and
// local memory: each work-item sets its bit (fetch_or), adds, raises a maximum by
// compare-exchange loops, and the group's first item publishes local results after a
// work_group_barrier with both fences. Every final value is independent of the order.
__kernel void c11_atomics(__global const int* in, volatile __global atomic_int* acc,
                          __global int* out) {
  __local atomic_int lmax, lsum;
  int l = (int)get_local_id(0), g = (int)get_global_id(0);
  int v = in[g];
  if (l == 0) {
    atomic_init(&lmax, INT_MIN);
    atomic_init(&lsum, 0);
  }
  work_group_barrier(CLK_LOCAL_MEM_FENCE);
  atomic_fetch_or_explicit(&acc[0], 1 << (g & 31), memory_order_relaxed,
                           memory_scope_device);
  atomic_fetch_add_explicit(&acc[1], v, memory_order_acq_rel, memory_scope_device);
  int cur = atomic_load_explicit(&acc[2], memory_order_acquire, memory_scope_device);
  while (cur < v && !atomic_compare_exchange_strong_explicit(
                        &acc[2], &cur, v, memory_order_acq_rel, memory_order_acquire,
                        memory_scope_device)) {
  }
  int lc = atomic_load_explicit(&lmax, memory_order_relaxed, memory_scope_work_group);
  while (lc < v && !atomic_compare_exchange_weak_explicit(
                       &lmax, &lc, v, memory_order_relaxed, memory_order_relaxed,
                       memory_scope_work_group)) {
  }
  atomic_fetch_add_explicit(&lsum, v & 0xff, memory_order_seq_cst, memory_scope_work_group);
  atomic_fetch_min_explicit(&acc[3], v, memory_order_release, memory_scope_device);
  atomic_fetch_xor_explicit(&acc[4], v, memory_order_relaxed, memory_scope_device);
  work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE, memory_scope_work_group);
  if (l == 0) {
    int grp = (int)get_group_id(0);
    out[grp * 2 + 0] = atomic_load(&lmax);
    out[grp * 2 + 1] = atomic_load(&lsum);
  }
}
