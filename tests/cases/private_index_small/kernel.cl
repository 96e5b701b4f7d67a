// A small private array that IGC keeps in registers and indexes at run time: a store
// at an index the data chooses is one predicated register-indirect move per channel.
__kernel void private_index_small(__global const int* a, __global int* o) {
  int i = get_global_id(0);
  int t[4];
  for (int k = 0; k < 4; ++k) t[k] = a[(i + k) & 255] ^ k;
  int j = t[0] & 3;
  t[j] += i;
  o[i] = t[(j + 1) & 3] * 3 + t[j];
}
