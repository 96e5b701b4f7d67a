__constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__kernel void smp(__read_only image2d_t src, __global float4 *out) {
    int x = get_global_id(0), y = get_global_id(1);
    out[y * 16 + x] = read_imagef(src, s, (int2)(x - 1, y)) + read_imagef(src, s, (float2)(x + 0.5f, y));
}
