// Trigonometric and hyperbolic builtins (IGC's software routines: range reduction,
// polynomials, special cases) and the native forms (vISA sin/cos).
__kernel void math_trig(__global const float* a, __global const float* b,
                        __global float* o_sin, __global float* o_cos, __global float* o_tan,
                        __global float* o_asin, __global float* o_acos, __global float* o_atan,
                        __global float* o_atan2, __global float* o_sinh, __global float* o_cosh,
                        __global float* o_tanh, __global float* o_sincos_s,
                        __global float* o_sincos_c, __global float* o_sinpi,
                        __global float* o_hypot, __global float* o_native_sin,
                        __global float* o_native_cos) {
  int i = get_global_id(0);
  float x = a[i], y = b[i];
  float h = y * 20.0f;
  o_sin[i] = sin(x);
  o_cos[i] = cos(x);
  o_tan[i] = tan(x);
  o_asin[i] = asin(y);
  o_acos[i] = acos(y);
  o_atan[i] = atan(x);
  o_atan2[i] = atan2(y, x);
  o_sinh[i] = sinh(h);
  o_cosh[i] = cosh(h);
  o_tanh[i] = tanh(h);
  float c;
  o_sincos_s[i] = sincos(x, &c);
  o_sincos_c[i] = c;
  o_sinpi[i] = sinpi(x);
  o_hypot[i] = hypot(x, y);
  o_native_sin[i] = native_sin(y * 3.0f);
  o_native_cos[i] = native_cos(y * 3.0f);
}
