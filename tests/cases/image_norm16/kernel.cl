// 16-bit normalized images: reads of CL_UNORM_INT16 and CL_SNORM_INT16 texels (x / 65535,
// max(x / 32767, -1), correctly rounded), writes of floats to them (clamp, scale, round
// to even; NaN -> 0), and a linear sample of the unorm16 image.
__constant sampler_t s_lin = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;

__kernel void image_norm16(__read_only image2d_t un, __read_only image2d_t sn,
                           __global const float4 *vals, __write_only image2d_t out_un,
                           __write_only image2d_t out_sn, __global float4 *out) {
    int x = get_global_id(0), y = get_global_id(1);
    int k = y * (int)get_global_size(0) + x;
    out[3 * k] = read_imagef(un, (int2)(x, y));
    out[3 * k + 1] = read_imagef(sn, (int2)(x, y));
    out[3 * k + 2] = read_imagef(un, s_lin, (float2)(x * 0.75f + 0.25f, y * 0.5f + 0.125f));
    write_imagef(out_un, (int2)(x, y), vals[k]);
    write_imagef(out_sn, (int2)(x, y), vals[k]);
}
