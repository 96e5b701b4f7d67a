#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// Double builtins that OpenCL specifies exactly (0 ulp) and IGC implements on the bits:
// remainder, remquo, frexp, ldexp, nextafter, copysign, logb, modf, over denormals and
// the IEEE specials.
__kernel void math_exact_double(__global const double* a, __global const double* b,
                              __global const int* n, __global double* o_rem,
                              __global double* o_remquo, __global int* o_quo,
                              __global double* o_frexp, __global int* o_fexp,
                              __global double* o_ldexp, __global double* o_next,
                              __global double* o_copysign, __global double* o_logb,
                              __global double* o_modf, __global double* o_modf_int) {
  int i = get_global_id(0);
  double x = a[i], y = b[i];
  o_rem[i] = remainder(x, y);
  int q;
  double r = remquo(x, y, &q);
  o_remquo[i] = r;
  // OpenCL fixes the sign and the low three bits of the quotient only.
  o_quo[i] = isnan(r) ? 0 : (q < 0 ? -(abs(q) & 7) : (q & 7));
  int e;
  o_frexp[i] = frexp(x, &e);
  o_fexp[i] = isfinite(x) ? e : 0;
  o_ldexp[i] = ldexp(x, n[i]);
  o_next[i] = nextafter(x, y);
  o_copysign[i] = copysign(x, y);
  o_logb[i] = logb(x);
  double ip;
  o_modf[i] = modf(x, &ip);
  o_modf_int[i] = ip;
}
