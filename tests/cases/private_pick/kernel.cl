// A private array that lives in memory (scratch on tgllp, stateless private memory on
// acm-g10) and that each work-item reads and updates at indices its data chooses.
__kernel void private_pick(__global const float* a, __global const int* idx,
                           __global float* o, int n) {
  int i = get_global_id(0);
  float t[256];
  for (int k = 0; k < n; ++k) t[k] = a[(i * 5 + k) & 1023];
  float s = 0.0f;
  for (int k = 0; k < 8; ++k) {
    int j = idx[(i + k) & 255] & 255;
    t[j] = t[j] * 0.5f + s;
    s += t[(j + 3) & 255];
  }
  o[i] = s;
}
