// 64-bit atomics on local memory (SLM) whose final values do not depend on the
// order of the work-items: carrying adds, max, xor and a compare-and-swap loop.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
__kernel void atomic_64bit_local(__global ulong* out, uint reps) {
  __local ulong c[5];
  int l = get_local_id(0);
  if (l < 5) c[l] = (l == 0) ? 0x80000000ul : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint r = 0; r < reps; r++) {
    atom_add(&c[0], 0xFFFFFFFFul);
    atom_add(&c[1], 0x100000001ul);
  }
  atom_max(&c[2], ((ulong)get_global_id(0) << 32) | (ulong)l);
  atom_xor(&c[3], (ulong)get_global_id(0) * 0x9E3779B97F4A7C15ul);
  ulong old = c[4], seen;
  while ((seen = atom_cmpxchg(&c[4], old, old + 0xFFFFFFFFul)) != old) old = seen;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 5) out[get_group_id(0) * 5 + l] = c[l];
}
