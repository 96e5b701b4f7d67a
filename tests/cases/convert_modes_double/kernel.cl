#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// Conversions from and to double in every rounding mode: double -> float
// (convert_float_rt*), double -> half (vstore_half_rt*), long/ulong -> double
// (convert_double_rt*), double -> int/long/ulong saturating in a mode.
__kernel void convert_modes_double(__global const double* d, __global const long* l,
                                   __global float* f_rte, __global float* f_rtz,
                                   __global float* f_rtp, __global float* f_rtn,
                                   __global half* h_rtz, __global half* h_rtp,
                                   __global half* h_rtn, __global half* h_rte,
                                   __global double* l_rtz, __global double* l_rtp,
                                   __global double* l_rtn, __global double* u_rtp,
                                   __global int* i_sat_rtp, __global long* q_sat_rtn,
                                   __global ulong* uq_sat_rte) {
  int i = get_global_id(0);
  double x = d[i];
  long n = l[i];
  f_rte[i] = convert_float_rte(x);
  f_rtz[i] = convert_float_rtz(x);
  f_rtp[i] = convert_float_rtp(x);
  f_rtn[i] = convert_float_rtn(x);
  vstore_half_rtz(x, i, h_rtz);
  vstore_half_rtp(x, i, h_rtp);
  vstore_half_rtn(x, i, h_rtn);
  vstore_half_rte(x, i, h_rte);
  l_rtz[i] = convert_double_rtz(n);
  l_rtp[i] = convert_double_rtp(n);
  l_rtn[i] = convert_double_rtn(n);
  u_rtp[i] = convert_double_rtp((ulong)n);
  i_sat_rtp[i] = convert_int_sat_rtp(x);
  q_sat_rtn[i] = convert_long_sat_rtn(x * 1e10);
  uq_sat_rte[i] = convert_ulong_sat_rte(x * 1e10);
}
