// OpenCL 2.0 non-uniform work-groups: a 21 x 10 NDRange in 8 x 4 groups, whose last
// column (5 wide) and last row (2 high) of groups are smaller. Every item records its
// ids and sizes; each group counts its items and sums their linear ids in local memory
// across barriers, and the whole NDRange counts its items with a global atomic.
__kernel void nonuniform_groups(__global int* ids, __global int* sizes,
                                __global int* counts, __global int* sums,
                                __global int* total) {
  int gx = (int)get_global_id(0), gy = (int)get_global_id(1);
  int lin = gy * (int)get_global_size(0) + gx;
  ids[lin] = (int)(get_group_id(0) | get_group_id(1) << 8 | get_local_id(0) << 16 |
                   get_local_id(1) << 24);
  sizes[lin] = (int)(get_local_size(0) | get_local_size(1) << 8 |
                     get_enqueued_local_size(0) << 16 | get_enqueued_local_size(1) << 24);
  __local int acc[2];
  if (get_local_linear_id() == 0) {
    acc[0] = 0;
    acc[1] = 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_add(&acc[0], 1);
  atomic_add(&acc[1], lin);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_linear_id() == 0) {
    int g = (int)(get_group_id(1) * get_num_groups(0) + get_group_id(0));
    counts[g] = acc[0];
    sums[g] = acc[1];
  }
  atomic_inc(total);
}
