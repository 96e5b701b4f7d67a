// Sub-group operations at SIMD16 that no other case reaches: shuffle_down/up with two
// sources and per-item deltas, vector shuffles, block reads and writes of ushort and
// uchar vectors, reductions and scans over long/ulong/float, ballots and their bit
// queries, non-uniform reductions and elect inside a divergent branch, clustered
// reductions (cl_intel_subgroups*, cl_khr_subgroup_*).
#pragma OPENCL EXTENSION cl_intel_subgroups_short : enable
#pragma OPENCL EXTENSION cl_intel_subgroups_char : enable
__attribute__((intel_reqd_sub_group_size(16)))
__kernel void subgroup_khr_ext(__global const uint* a, __global const ushort* s,
                               __global const uchar* c, __global const long* l,
                               __global const float* f, __global uint* o_shuf,
                               __global ushort* o_bs, __global uchar* o_bc,
                               __global long* o_red, __global float* o_fred,
                               __global uint* o_bal, __global uint* o_nonuni) {
  uint i = get_global_id(0);
  uint lid = get_sub_group_local_id();
  uint sg = get_global_id(0) / 16;
  uint x = a[i];
  uint y = a[i ^ 0x40];
  uint dn = intel_sub_group_shuffle_down(x, y, (x >> 3) & 15);
  uint up = intel_sub_group_shuffle_up(y, x, (x >> 9) & 15);
  uint2 v2 = intel_sub_group_shuffle((uint2)(x, y), (lid * 5 + 1) & 15);
  uint4 blk = intel_sub_group_block_read4(a + sg * 64);
  o_shuf[i] = dn ^ (up << 1) ^ (v2.x + v2.y * 3u) ^ (blk.x + blk.y * 5u + blk.z * 7u + blk.w * 11u);

  ushort2 bs = intel_sub_group_block_read_us2(s + sg * 32);
  uchar4 bc = intel_sub_group_block_read_uc4(c + sg * 64);
  intel_sub_group_block_write_us2(o_bs + sg * 32, bs * (ushort2)(3, 5) + (ushort2)(bc.x, bc.w));
  intel_sub_group_block_write_uc4(o_bc + sg * 64, bc ^ (uchar4)((uchar)lid));

  long li = l[i];
  o_red[i * 4 + 0] = sub_group_reduce_max(li);
  o_red[i * 4 + 1] = sub_group_reduce_min(li);
  o_red[i * 4 + 2] = (long)sub_group_scan_exclusive_add((ulong)li);
  o_red[i * 4 + 3] = sub_group_scan_inclusive_max(li);
  float fi = f[i];
  o_fred[i * 3 + 0] = sub_group_reduce_min(fi);
  o_fred[i * 3 + 1] = sub_group_scan_inclusive_max(fi);
  o_fred[i * 3 + 2] = sub_group_clustered_reduce_max(fi, 4);

  uint4 bal = sub_group_ballot((x & 3) != 0);
  o_bal[i * 4 + 0] = bal.x;
  o_bal[i * 4 + 1] = sub_group_ballot_bit_count(bal);
  o_bal[i * 4 + 2] = sub_group_ballot_find_lsb(bal) | (sub_group_ballot_find_msb(bal) << 8) |
                     (sub_group_ballot_inclusive_scan(bal) << 16) |
                     ((uint)sub_group_inverse_ballot(bal) << 24);
  o_bal[i * 4 + 3] = sub_group_clustered_reduce_add(x & 0xff, 8);

  uint nu = 0xffffffffu;
  if ((x & 5) != 0) {
    nu = sub_group_non_uniform_reduce_add(x & 0xffff) ^ (sub_group_elect() ? 0x80000000u : 0u);
    nu += sub_group_non_uniform_scan_exclusive_max(x >> 20);
  }
  o_nonuni[i] = nu;
}
