// NaN through compares, MIN/MAX and saturating conversions: the spec's rules (CMP: NE
// is true for unordered operands, every other relation false; MIN/MAX: a NaN operand
// yields the other; float -> integer: NaN gives 0, out-of-range values clamp).
__kernel void nan_rules(__global const float* a, __global const float* b,
                        __global int* flags, __global float* lo, __global float* hi,
                        __global int* i32, __global long* i64, __global uint* u8) {
  int i = get_global_id(0);
  float x = a[i], y = b[i];
  flags[i] = (x != y) | (x == y) << 1 | (x < y) << 2 | (x >= y) << 3 | isnan(x) << 4 |
             (x > y) << 5 | (x <= y) << 6;
  lo[i] = fmin(x, y);
  hi[i] = fmax(x, y);
  i32[i] = convert_int_sat(x);
  i64[i] = convert_long_sat(x);
  u8[i] = convert_uchar_sat(x);
}
