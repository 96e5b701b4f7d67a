// Sub-group shuffles of long, ushort and float values at SIMD32.
__attribute__((intel_reqd_sub_group_size(32)))
__kernel void subgroup_shuffle_types(__global const long* a, __global const ushort* b,
                                     __global const float* f, __global long* o_l,
                                     __global ushort* o_s, __global float* o_f) {
  int i = get_global_id(0);
  uint lid = get_sub_group_local_id();
  long x = a[i];
  ushort y = b[i];
  float z = f[i];
  o_l[i] = intel_sub_group_shuffle(x, (lid * 7 + 3) & 31) + intel_sub_group_shuffle_xor(x, 5);
  o_s[i] = (ushort)(intel_sub_group_shuffle(y, 31 - lid) ^ intel_sub_group_shuffle_xor(y, 16));
  o_f[i] = intel_sub_group_shuffle(z, (lid + 11) & 31);
}
