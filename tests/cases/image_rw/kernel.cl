// Sampler-less image reads (IGC: 3D_LOAD ld_lz) and writes (SCATTER4_TYPED) across
// formats: RGBA float, R float (missing channels read as 0, alpha 1), RGBA uint8 read as
// uint4, float written to RGBA unorm8 (clamp, round to even) and uint written to RGBA
// uint32 through transposed coordinates; image queries (data parameters).
__kernel void image_rw(__read_only image2d_t src_f, __read_only image2d_t src_r,
                       __read_only image2d_t src_u8, __write_only image2d_t dst_f,
                       __write_only image2d_t dst_unorm, __write_only image2d_t dst_u,
                       __global int *info) {
    int x = get_global_id(0), y = get_global_id(1);
    int w = get_image_width(src_f), h = get_image_height(src_f);
    float4 v = read_imagef(src_f, (int2)(x, y));
    float4 n = read_imagef(src_f, (int2)((x + 1) % w, (y * 3) % h));
    float4 r = read_imagef(src_r, (int2)(x, y));
    write_imagef(dst_f, (int2)(x, y), v * 2.0f + n + r);
    write_imagef(dst_unorm, (int2)(x, y), v);
    uint4 u = read_imageui(src_u8, (int2)(x, y));
    write_imageui(dst_u, (int2)(y, x), u * 3u + (uint4)(x, y, 0, 1));
    if (x == 0 && y == 0) {
        info[0] = w;
        info[1] = h;
        info[2] = get_image_width(dst_u);
        info[3] = get_image_height(dst_u);
        info[4] = get_image_channel_order(src_r);
        info[5] = get_image_channel_data_type(src_u8);
    }
}
