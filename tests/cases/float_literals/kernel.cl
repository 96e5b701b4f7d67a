#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
// Float arithmetic on literals that a GPU compiler must not rewrite: `x * 0` is -0 for
// a negative x and NaN for an infinity, `x + 0` is +0 for -0, and the round-to-integer
// idiom `(x + 1.5*2^23) - 1.5*2^23 - 0.5` (IGC's cos reduction) rounds each step
// (reassociated as `x + (c1 + c2)` the constant itself rounds, and the result moves).
__kernel void float_literals(__global float* o_mul0, __global float* o_add0,
                             __global float* o_round, __global float* o_chain,
                             __global double* o_dmul0, __global double* o_dround,
                             __global const float* a, __global const double* d) {
  int i = get_global_id(0);
  float x = a[i];
  o_mul0[i] = x * 0.0f;
  o_add0[i] = x + 0.0f;
  o_round[i] = ((x + 12582912.0f) - 12582912.0f) - 0.5f;
  o_chain[i] = ((x * 3.0f) * 0.1f) + 1e-3f;
  double y = d[i];
  o_dmul0[i] = y * 0.0;
  o_dround[i] = ((y + 6755399441055744.0) - 6755399441055744.0) - 0.5;
}
