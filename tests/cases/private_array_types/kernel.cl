// Private arrays of several element types, written and read with data-dependent indices.
__kernel void private_array_types(__global const int* idx, __global long* out) {
  int i = get_global_id(0);
  char c[19]; short s[23]; int n[29]; long l[31];
  for (int k = 0; k < 19; ++k) c[k] = (char)(k * 7 + i);
  for (int k = 0; k < 23; ++k) s[k] = (short)(k * 1009 - i);
  for (int k = 0; k < 29; ++k) n[k] = k * 100003 + i;
  for (int k = 0; k < 31; ++k) l[k] = (long)k * 10000000019L - i;
  int j = idx[i];
  c[j % 19] += 3; s[(j >> 3) % 23] ^= 0x5a5a; n[(j >> 5) % 29] *= 3; l[(j >> 7) % 31] += 1;
  long acc = 0;
  for (int k = 0; k < 4; ++k) {
    int q = (j + k * 13) & 0x7fff;
    acc = acc * 31 + c[q % 19] + s[q % 23] + n[q % 29] + l[q % 31];
  }
  out[i] = acc;
}
