// async_work_group_copy into local memory and async_work_group_strided_copy back out
// (every other element), with wait_group_events, and prefetch.
__kernel void async_copy(__global const float* in, __global float* out) {
  __local float tile[64];
  int grp = (int)get_group_id(0), l = (int)get_local_id(0);
  prefetch(in + grp * 64, 64);
  event_t e = async_work_group_copy(tile, in + grp * 64, 64, 0);
  wait_group_events(1, &e);
  float s = tile[l] + tile[63 - l];
  barrier(CLK_LOCAL_MEM_FENCE);
  tile[l] = s * 0.5f;
  barrier(CLK_LOCAL_MEM_FENCE);
  event_t e2 = async_work_group_strided_copy(out + grp * 64, tile + 8, 24, 2, 0);
  wait_group_events(1, &e2);
}
