// 1D and 3D images: sampler-less reads of a 3D RGBA float image (the R coordinate) and
// of a 1D RG int32 image, a sampled 3D read (clamp to edge on all three axes), written
// to a 1D RGBA float image; width, height, depth queries.
__constant sampler_t s_edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void image_dims(__read_only image3d_t vol, __read_only image1d_t line,
                         __write_only image1d_t out, __global int *info) {
    int i = get_global_id(0);
    int x = i % 8, y = (i / 8) % 4, z = i / 32;
    float4 a = read_imagef(vol, (int4)(x, y, z, 0));
    int4 b = read_imagei(line, i % 40);
    float4 c = read_imagef(vol, s_edge, (float4)(x * 2 - 3.5f, y + 0.25f, z * 3 - 1.5f, 0.0f));
    write_imagef(out, i, a + convert_float4(b) * 0.5f + c * 0.25f);
    if (i == 0) {
        info[0] = get_image_width(vol);
        info[1] = get_image_height(vol);
        info[2] = get_image_depth(vol);
        info[3] = get_image_width(line);
        info[4] = get_image_width(out);
    }
}
