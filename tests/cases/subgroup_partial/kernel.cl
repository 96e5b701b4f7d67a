// cl_khr_subgroups in groups whose last sub-group is partial (a 50-item group) and in a
// non-uniform NDRange (the last group has 20 items): sizes, ids, reductions, scans,
// broadcast, any and all per sub-group.
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
__kernel void subgroup_partial(__global const int* a, __global int* out) {
  int g = (int)get_global_id(0);
  int x = a[g];
  uint sg = get_sub_group_id(), sl = get_sub_group_local_id();
  out[g * 8 + 0] = (int)(get_sub_group_size() | get_max_sub_group_size() << 8 |
                         get_num_sub_groups() << 16 | sg << 24);
  out[g * 8 + 1] = (int)sl;
  out[g * 8 + 2] = sub_group_reduce_add(x);
  out[g * 8 + 3] = sub_group_reduce_max(x);
  out[g * 8 + 4] = sub_group_scan_inclusive_min(x);
  out[g * 8 + 5] = sub_group_scan_exclusive_add(x);
  out[g * 8 + 6] = sub_group_broadcast(x, 1);
  out[g * 8 + 7] = sub_group_any(x > 95) | sub_group_all(x > -95) << 1;
}
