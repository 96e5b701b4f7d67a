#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
// A product and the sum it feeds, rounded twice (FP_CONTRACT OFF): IGC emits a mul and
// an add for each, which a GPU compiler that fuses them would round once. Half the
// sums cancel the rounded product exactly (0 when kept, its rounding error when fused).
__kernel void products_kept(__global float* of, __global double* od,
                            __global const float* f, __global const double* d) {
  int i = get_global_id(0);
  float p = f[3 * i] * f[3 * i + 1];
  of[i] = p + f[3 * i + 2];
  double q = d[3 * i] * d[3 * i + 1];
  od[i] = q + d[3 * i + 2];
}
