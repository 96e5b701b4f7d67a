// 64-bit global atomics whose results do not depend on execution order.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
__kernel void atomic_64bit(__global const long* a, __global long* acc, __global ulong* bits) {
  int i = get_global_id(0);
  long x = a[i];
  atom_add(&acc[0], x);
  atom_min(&acc[1], x);
  atom_max(&acc[2], x);
  atom_inc(&acc[3]);
  atom_or(&bits[0], 1ul << (x & 63));
  atom_xor(&bits[1], (ulong)x * 0x9E3779B97F4A7C15ul);
}
