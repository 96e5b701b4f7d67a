// 64-bit atomic adds that all hit two counters and carry into the high word on every
// add: exact only when the 64-bit update is one atomic operation.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
__kernel void atomic_64bit_carry(__global ulong* acc, uint reps) {
  for (uint r = 0; r < reps; r++) {
    atom_add(&acc[0], 0xFFFFFFFFul);
    atom_add(&acc[1], 0x100000001ul);
  }
}
