// Image reads through inline samplers with nearest filtering (IGC: 3D_SAMPLE sample_lz):
// unnormalized int coordinates clamped to the edge, unnormalized float coordinates with
// a border (an R image: transparent black with alpha 1), normalized coordinates with
// repeat and mirrored repeat.
__constant sampler_t s_edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__constant sampler_t s_border = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
__constant sampler_t s_repeat = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_NEAREST;
__constant sampler_t s_mirror = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_NEAREST;

__kernel void image_sample(__read_only image2d_t img, __read_only image2d_t img_r,
                           __global float4 *out) {
    int x = get_global_id(0), y = get_global_id(1);
    int k = y * (int)get_global_size(0) + x;
    float4 a = read_imagef(img, s_edge, (int2)(x - 4, y - 2));
    float4 b = read_imagef(img_r, s_border, (float2)(x - 3.5f, y - 1.25f));
    float2 nc = (float2)((x - 4) / 16.0f + 0.03125f, (y - 2) / 8.0f + 0.0625f);
    float4 c = read_imagef(img, s_repeat, nc);
    float4 d = read_imagef(img, s_mirror, nc);
    out[4 * k] = a;
    out[4 * k + 1] = b;
    out[4 * k + 2] = c;
    out[4 * k + 3] = d;
}
