#pragma OPENCL EXTENSION cl_khr_fp16 : enable
// half conversions in every rounding mode: int, uint, short and long -> half, float ->
// half through convert_half_rt*, half -> int/uchar saturating in a mode, half -> float.
__kernel void convert_modes_half(__global const int* n, __global const long* l,
                                 __global const float* f, __global const ushort* hb,
                                 __global half* i_rte, __global half* i_rtz,
                                 __global half* i_rtp, __global half* i_rtn,
                                 __global half* u_rtp, __global half* s_rtn,
                                 __global half* l_rtz, __global half* f_rtp,
                                 __global half* f_rtn, __global int* h_int_rtp,
                                 __global uchar* h_uchar_sat_rte, __global int* h_int_sat_rtn,
                                 __global float* h_float) {
  int i = get_global_id(0);
  int x = n[i];
  half h = as_half(hb[i]);
  i_rte[i] = convert_half_rte(x);
  i_rtz[i] = convert_half_rtz(x);
  i_rtp[i] = convert_half_rtp(x);
  i_rtn[i] = convert_half_rtn(x);
  u_rtp[i] = convert_half_rtp((uint)x);
  s_rtn[i] = convert_half_rtn((short)x);
  l_rtz[i] = convert_half_rtz(l[i]);
  f_rtp[i] = convert_half_rtp(f[i]);
  f_rtn[i] = convert_half_rtn(f[i]);
  h_int_rtp[i] = isnan(h) ? 0 : convert_int_rtp(h);
  h_uchar_sat_rte[i] = convert_uchar_sat_rte(h);
  h_int_sat_rtn[i] = convert_int_sat_rtn(h);
  h_float[i] = convert_float(h);
}
