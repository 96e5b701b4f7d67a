#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// double-precision transcendentals: IGC's software library on fp64 hardware
__kernel void math_double(__global const double* a, __global const double* b,
                          __global double* o_exp, __global double* o_log,
                          __global double* o_pow, __global double* o_sin,
                          __global double* o_cos, __global double* o_atan2,
                          __global double* o_cbrt, __global double* o_tanh) {
  int i = get_global_id(0);
  double x = a[i], y = b[i];
  o_exp[i] = exp(y);
  o_log[i] = log(x);
  o_pow[i] = pow(fabs(x), y);
  o_sin[i] = sin(x);
  o_cos[i] = cos(x);
  o_atan2[i] = atan2(x, y);
  o_cbrt[i] = cbrt(x);
  o_tanh[i] = tanh(y);
}
