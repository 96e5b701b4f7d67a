// Sub-group block reads and writes of images (cl_intel_subgroups; IGC: MEDIA_LD and
// MEDIA_ST of two rows): each sub-group moves a block of SIMD-width texels by two rows.
__kernel void image_block(__read_only image2d_t src, __write_only image2d_t dst) {
    int x = (get_group_id(0) * get_num_sub_groups() + get_sub_group_id()) * get_sub_group_size();
    int y = get_global_id(1) * 2;
    uint2 v = intel_sub_group_block_read2(src, (int2)(x * 4, y));
    intel_sub_group_block_write2(dst, (int2)(x * 4, y),
                                 v * 3u + (uint2)(get_sub_group_local_id() & 7u, 7u));
}
