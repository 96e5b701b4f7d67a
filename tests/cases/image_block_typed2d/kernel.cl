// Sub-group block reads and writes of images whose blocks reach past the image: IGC
// (1.0.12504, older than LSC_TYPED's 2D block messages) writes them as MEDIA_LD and
// MEDIA_ST; model.py's PATCH turns them into lsc_load_block2d.tgm and
// lsc_store_block2d.tgm, the stores 28 bytes wide (register pitch 32).
__kernel void image_block_typed2d(__read_only image2d_t src, __write_only image2d_t dst) {
    int x = (get_group_id(0) * get_num_sub_groups() + get_sub_group_id()) * get_sub_group_size();
    int y = get_global_id(1) * 2;
    // Two texels right of the sub-group's and one row up: the last sub-group's block
    // reaches past the right edge, the first row's above the top.
    uint2 v = intel_sub_group_block_read2(src, (int2)(x * 4 + 8, y - 1));
    intel_sub_group_block_write2(dst, (int2)(x * 4 + 8, y),
                                 v + (uint2)(get_sub_group_local_id() & 7u, 100u));
}
