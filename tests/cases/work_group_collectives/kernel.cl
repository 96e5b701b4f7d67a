// OpenCL 2.0 work-group collectives (reduce, scans, broadcast, any/all) over a
// 100-item NDRange in groups of 32: the last group has 4 items (non-uniform).
__kernel void work_group_collectives(__global const int* a, __global const float* f,
                                     __global int* out_i, __global float* out_f) {
  int g = (int)get_global_id(0);
  int x = a[g];
  out_i[g * 6 + 0] = work_group_reduce_add(x);
  out_i[g * 6 + 1] = work_group_reduce_min(x);
  out_i[g * 6 + 2] = work_group_reduce_max(x);
  out_i[g * 6 + 3] = work_group_scan_inclusive_add(x);
  out_i[g * 6 + 4] = work_group_scan_exclusive_max(x);
  out_i[g * 6 + 5] = work_group_broadcast(x, 3) + (work_group_any(x > 90) << 20) +
                     (work_group_all(x > -95) << 21);
  out_f[g * 2 + 0] = work_group_reduce_add(f[g]);
  out_f[g * 2 + 1] = work_group_scan_inclusive_max(f[g]);
}
