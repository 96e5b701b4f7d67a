// Conversions in every rounding mode: float -> half (vstore_half_rt*), half -> float
// (vload_half), 64-bit integers -> float and float -> 64-bit integers (saturating).
__kernel void convert_modes(__global const float* f, __global const long* l,
                            __global const ushort* hb,
                            __global half* h_rte, __global half* h_rtz,
                            __global half* h_rtp, __global half* h_rtn,
                            __global float* f_of_h,
                            __global float* l_rte, __global float* l_rtz,
                            __global float* l_rtp, __global float* l_rtn,
                            __global float* u_rtp, __global float* u_rtn,
                            __global long* fl_sat_rtp, __global ulong* fu_sat_rtn) {
  int i = get_global_id(0);
  float x = f[i];
  long n = l[i];
  vstore_half_rte(x, i, h_rte);
  vstore_half_rtz(x, i, h_rtz);
  vstore_half_rtp(x, i, h_rtp);
  vstore_half_rtn(x, i, h_rtn);
  f_of_h[i] = vload_half(i, (__global const half*)hb);
  l_rte[i] = convert_float_rte(n);
  l_rtz[i] = convert_float_rtz(n);
  l_rtp[i] = convert_float_rtp(n);
  l_rtn[i] = convert_float_rtn(n);
  u_rtp[i] = convert_float_rtp((ulong)n);
  u_rtn[i] = convert_float_rtn((ulong)n);
  fl_sat_rtp[i] = convert_long_sat_rtp(x * 1e10f);
  fu_sat_rtn[i] = convert_ulong_sat_rtn(x * 1e10f);
}
