// Byte and short vectors: uchar16/char8/short8 loads and stores, shuffle and shuffle2
// with computed masks, saturating conversions between them, hadd/rhadd/abs_diff/mad_sat
// on bytes, vload3/vstore3 at odd offsets, and a bitselect: what becomes byte regions
// with strides of 2 and 4 and packed sub-dword moves in vISA.
__kernel void vector_bytes(__global const uchar* a, __global const char* b,
                           __global const short* s, __global uchar* o_mix,
                           __global char* o_sat, __global short* o_wide,
                           __global uchar* o_odd, __global uint* o_sum) {
  int i = get_global_id(0);
  uchar16 x = vload16(i, a);
  char16 y = vload16(i, b);
  short8 z = vload8(i, s);
  uchar16 mask = (uchar16)(15, 3, 7, 0, 9, 12, 1, 14, 2, 11, 4, 13, 6, 10, 8, 5) + (uchar)i;
  uchar16 sh = shuffle(x, mask);
  uchar16 sh2 = shuffle2(x, as_uchar16(y), mask ^ (uchar16)((uchar)(i * 7)));
  uchar16 avg = hadd(sh, sh2) ^ rhadd(x, as_uchar16(y));
  uchar16 dif = abs_diff(x, as_uchar16(y));
  uchar16 mad = mad_sat(x, (uchar16)((uchar)(i & 7)), dif);
  vstore16(avg + bitselect(mad, dif, sh), i, o_mix);
  short8 lo = convert_short8(y.lo) * z + convert_short8(y.hi);
  char8 c = convert_char8_sat(lo) + convert_char8_sat_rte(convert_float8(z) * 0.01f);
  vstore8(c, i, o_sat);
  short8 w = upsample(y.even, x.odd) >> (short8)((short)(i & 15));
  vstore8(w + rotate(z, (short8)((short)i)), i, o_wide);
  uchar3 t = vload3(i, a + 1);
  uchar3 u = vload3(i, (__global const uchar*)b + 5);
  vstore3(add_sat(t, u) - clz(t) + popcount(u), i, o_odd + 3);
  uint acc = 0;
  for (int k = 0; k < 16; ++k) acc += (uint)x[k] * (uint)(k + 1) + (uint)(int)y[k];
  o_sum[i] = acc ^ as_uint(convert_uchar4_sat(z.s0123));
}
