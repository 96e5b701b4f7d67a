// Loops whose trip counts differ per work-item before the first barrier, between two
// barriers and after the last one, with a return after the last barrier: the straight
// GPU form runs such a kernel in one pass with plain barriers (plain_meetings.rs).
__kernel void barrier_loops_between(__global const uint* a, __global uint* out,
                                    __global uint* out2) {
  __local uint s[64];
  uint l = get_local_id(0);
  uint g = get_global_id(0);
  uint v = a[g];
  uint acc = v;
  for (uint k = 0; k < (v & 7); k++) acc = acc * 3u + k;
  s[l] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint t = s[(l + 1) & 63];
  uint w = t;
  for (uint k = 0; k < ((t >> 3) & 7); k++) w ^= (w << 5) + k;
  barrier(CLK_LOCAL_MEM_FENCE);
  s[l] = w;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint u = s[63 - l];
  out[g] = u + acc;
  if (u & 1) return;
  for (uint k = 0; k < (u & 3); k++) u = u * 5u + 1u;
  out2[g] = u;
}
