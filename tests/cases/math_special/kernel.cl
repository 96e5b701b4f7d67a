// The float builtins no other case reaches: error and gamma functions, cbrt, expm1, log1p,
// the inverse hyperbolics, exp10, rootn, the *pi forms, ilogb, fdim and maxmag/minmag
// (IGC's software library: range reductions, polynomials, special-case selects).
__kernel void math_special(__global const float* a, __global const float* b,
                           __global float* o_erf, __global float* o_erfc,
                           __global float* o_lgamma, __global float* o_tgamma,
                           __global float* o_cbrt, __global float* o_expm1,
                           __global float* o_log1p, __global float* o_asinh,
                           __global float* o_acosh, __global float* o_atanh,
                           __global float* o_exp10, __global float* o_rootn,
                           __global float* o_cospi, __global float* o_tanpi,
                           __global float* o_asinpi, __global float* o_acospi,
                           __global float* o_atanpi, __global float* o_atan2pi,
                           __global int* o_ilogb, __global float* o_fdim,
                           __global float* o_maxmag, __global float* o_minmag) {
  int i = get_global_id(0);
  float x = a[i], y = b[i];
  o_erf[i] = erf(x);
  o_erfc[i] = erfc(x);
  o_lgamma[i] = lgamma(x);
  o_tgamma[i] = tgamma(x);
  o_cbrt[i] = cbrt(x);
  o_expm1[i] = expm1(x);
  o_log1p[i] = log1p(x);
  o_asinh[i] = asinh(x);
  o_acosh[i] = acosh(x);
  o_atanh[i] = atanh(y);
  o_exp10[i] = exp10(y * 40.0f);
  o_rootn[i] = rootn(x, (i % 9) - 4);
  o_cospi[i] = cospi(x);
  o_tanpi[i] = tanpi(x);
  o_asinpi[i] = asinpi(y);
  o_acospi[i] = acospi(y);
  o_atanpi[i] = atanpi(x);
  o_atan2pi[i] = atan2pi(y, x);
  o_ilogb[i] = ilogb(x);
  o_fdim[i] = fdim(x, y);
  o_maxmag[i] = maxmag(x, y);
  o_minmag[i] = minmag(x, y);
}
