// OpenCL 2.0 generic address space and program-scope globals: a function taking a
// generic pointer sums four ints from local or global memory (chosen per work-item),
// to_local/to_global tell the spaces apart, and program-scope global variables are
// read (an initialized table) and written then read back (a per-item slot).
global float g_table[4] = {1.5f, -2.0f, 0.25f, 8.0f};
global int g_slot[64];

int sum4(int* p) {
  int s = 0;
  for (int i = 0; i < 4; i++) s += p[i] * (i + 1);
  return s;
}

__kernel void generic_pointers(__global int* in, __global int* out, __global float* fout) {
  __local int tile[32];
  int l = (int)get_local_id(0), g = (int)get_global_id(0);
  tile[l] = in[g] * 2;
  barrier(CLK_LOCAL_MEM_FENCE);
  int* p = (l & 1) ? (int*)&tile[l & ~3] : (int*)&in[g & ~3];
  out[g * 3 + 0] = sum4(p);
  out[g * 3 + 1] = to_local(p) != 0 ? 1 : (to_global(p) != 0 ? 2 : 0);
  g_slot[g] = in[g] + l;
  out[g * 3 + 2] = g_slot[g] * 3;
  fout[g] = g_table[g & 3] * (float)l;
}
