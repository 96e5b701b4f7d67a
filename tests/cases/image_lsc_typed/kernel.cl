// LSC_TYPED (.tgm) messages have no OpenCL spelling that this IGC emits: tools/make_case.py
// rewrites the typed messages IGC emits for these reads and writes into them (model.py, PATCH).
kernel void image_lsc_typed(read_only image2d_t q_src, write_only image2d_t q_dst,
                            read_only image2d_t a_inc, read_only image2d_t a_cas,
                            write_only image2d_t a_add, write_only image2d_t a_max,
                            global const uint *v, global uint *old_inc, global uint *old_cas) {
    int g = get_global_id(0);
    int2 c = (int2)(g % 16, g / 16);
    write_imageui(q_dst, c, read_imageui(q_src, c));
    old_inc[g] = read_imageui(a_inc, c).x;
    old_cas[g] = read_imageui(a_cas, c).x;
    write_imageui(a_add, (int2)(g % 4, g % 3), (uint4)(v[g], 0, 0, 0));
    write_imageui(a_max, (int2)(g % 5, 0), (uint4)(v[g] * 7u, 0, 0, 0));
}
