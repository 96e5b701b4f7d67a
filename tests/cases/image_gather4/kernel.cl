// gather4 (3D_SAMPLE4 `sample4`), which OpenCL cannot spell: IGC's linear samples
// (3D_SAMPLE sample_lz) are rewritten by model.py's PATCH into gathers of one channel,
// so each float4 read returns the four texels of the bilinear footprint.
__constant sampler_t s_edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;
__constant sampler_t s_border = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
__constant sampler_t s_repeat = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;

__kernel void image_gather4(__read_only image2d_t img, __global float4 *out) {
    int x = get_global_id(0), y = get_global_id(1);
    int k = y * (int)get_global_size(0) + x;
    float2 uc = (float2)(x * 0.75f - 2.0f, y * 0.625f - 1.0f);
    float2 nc = (float2)(((x - 4) * 0.8125f + 0.375f) / 16.0f, ((y - 2) * 0.6875f + 0.125f) / 8.0f);
    out[3 * k] = read_imagef(img, s_edge, uc);
    out[3 * k + 1] = read_imagef(img, s_border, uc);
    out[3 * k + 2] = read_imagef(img, s_repeat, nc);
}
