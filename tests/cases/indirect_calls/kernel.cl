// Stack functions (vISA fcall/fret; with IGC_FunctionControl=4, faddr/ifcall): called
// under divergence, from a loop, from another function, with 64-bit and vector arguments.
__attribute__((noinline)) int poly(int a, int b) {
  int r = 0;
  for (int k = 0; k < (b & 7); ++k) r = r * a + k;
  return r;
}
__attribute__((noinline)) float blend(float x, float y, int sel) {
  return sel ? x * 0.25f - y : y * 2.0f + x;
}
__attribute__((noinline)) int nested(int a, int b) {
  return poly(a, b) ^ poly(b, a + 1);
}
__attribute__((noinline)) long wide(long x, int4 v) {
  return x * (long)(v.x + v.y) - (long)(v.z ^ v.w);
}
__kernel void stack_calls(__global const int* a, __global const float* f,
                          __global int* o_i, __global float* o_f, __global long* o_l) {
  int i = get_global_id(0);
  int x = a[i];
  int r;
  if (x & 1) r = poly(x, i);
  else r = nested(i, x) + 1;
  o_i[i] = r;
  o_f[i] = blend(f[i], (float)x, x > 0);
  o_l[i] = wide((long)x << 20, (int4)(x, i, r, x >> 3));
}
