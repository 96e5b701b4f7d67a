#pragma OPENCL FP_CONTRACT OFF
// 3x3 weighted blur (1-2-1 by 1-2-1, over 16) with clamp-to-edge borders: the bench's
// stencil workload. Each work-item's nine loads overlap its neighbours'; FP_CONTRACT OFF
// and a fixed summation order keep the result exact against the model.
__kernel void stencil3x3(__global float* out, __global const float* in, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  int xl = max(x - 1, 0), xr = min(x + 1, w - 1);
  const __global float* u = in + max(y - 1, 0) * w;
  const __global float* m = in + y * w;
  const __global float* d = in + min(y + 1, h - 1) * w;
  float corners = (u[xl] + u[xr]) + (d[xl] + d[xr]);
  float edges = (u[x] + d[x]) + (m[xl] + m[xr]);
  out[y * w + x] = 0.25f * m[x] + 0.125f * edges + 0.0625f * corners;
}
