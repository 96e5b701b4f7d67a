// Linear (bilinear/trilinear) filtering through inline samplers (IGC: 3D_SAMPLE sample_lz
// with a linear SAMPLER_STATE): clamp to edge, border, repeat and mirrored repeat on a
// float RGBA image, an unorm8 RGBA image and a 3D float image.
__constant sampler_t s_edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;
__constant sampler_t s_border = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_LINEAR;
__constant sampler_t s_repeat = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
__constant sampler_t s_mirror = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_LINEAR;

__kernel void image_linear(__read_only image2d_t img, __read_only image2d_t img_r,
                           __read_only image2d_t img_u8, __read_only image3d_t vol,
                           __global float4 *out) {
    int x = get_global_id(0), y = get_global_id(1);
    int k = y * (int)get_global_size(0) + x;
    float2 uc = (float2)(x * 0.75f - 2.0f, y * 0.625f - 1.0f);
    float2 nc = (float2)(((x - 4) * 0.8125f + 0.375f) / 16.0f, ((y - 2) * 0.6875f + 0.125f) / 8.0f);
    out[6 * k] = read_imagef(img, s_edge, uc);
    out[6 * k + 1] = read_imagef(img_r, s_border, uc);
    out[6 * k + 2] = read_imagef(img, s_repeat, nc);
    out[6 * k + 3] = read_imagef(img, s_mirror, nc);
    out[6 * k + 4] = read_imagef(img_u8, s_edge, uc);
    out[6 * k + 5] = read_imagef(vol, s_edge, (float4)(x * 0.25f - 0.5f, y * 0.375f - 0.25f, (x + y) * 0.125f, 0.0f));
}
