// Image arrays: a 2D array read with integer coordinates and through a sampler (the layer
// coordinate rounds to nearest even and clamps; x and y clamp to the edge), a 1D array
// read, a 2D array written; array size queries.
__constant sampler_t s_edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void image_array(__read_only image2d_array_t a, __read_only image1d_array_t b,
                          __write_only image2d_array_t out, __global int *info) {
    int x = get_global_id(0), y = get_global_id(1), l = get_global_id(2);
    float4 p = read_imagef(a, (int4)(x, y, l, 0));
    float4 q = read_imagef(a, s_edge, (float4)(x + 1.5f, y - 0.5f, l * 1.5f - 0.5f, 0.0f));
    float4 r = read_imagef(b, (int2)(x, l));
    write_imagef(out, (int4)(x, y, l, 0), p + q * 0.5f + r * 0.25f);
    if (x == 0 && y == 0 && l == 0) {
        info[0] = get_image_array_size(a);
        info[1] = get_image_array_size(b);
        info[2] = get_image_width(a);
        info[3] = get_image_height(a);
    }
}
