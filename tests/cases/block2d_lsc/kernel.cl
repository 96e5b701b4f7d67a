// 2D block loads through IGC's internal sub-group builtins (PVC, SIMD16). Debian's IGC
// (1.0.12504) lowers these *_m8k16v1 reads to two-block loads into one-block variables
// and emits nothing for the block write builtins, so tools/make_case.py rewrites the
// loads to one block and adds block2d stores, a VNNI and a transposed load (model.py,
// PATCH).
uint8 __builtin_IB_subgroup_block_read_flat_u32_m8k16v1(long, int, int, int, int2);
ushort8 __builtin_IB_subgroup_block_read_flat_u16_m8k16v1(long, int, int, int, int2);

__attribute__((intel_reqd_sub_group_size(16)))
kernel void block2d_lsc(global const uint *src, global const ushort *src16, global uint *dst,
                        global ushort *dst16, global uint *dst2, global ushort *dst3,
                        global uint *dst4, int width, int height, int pitch) {
    int gx = get_group_id(0) * 16, gy = get_group_id(1) * 8;
    uint8 d = __builtin_IB_subgroup_block_read_flat_u32_m8k16v1(
        (long)src, width * 4 - 1, height - 1, pitch * 4 - 1, (int2)(gx, gy));
    ushort8 h = __builtin_IB_subgroup_block_read_flat_u16_m8k16v1(
        (long)src16, width * 2 - 1, height - 1, pitch * 2 - 1, (int2)(gx, gy));
    int o = (get_group_id(1) * get_num_groups(0) + get_group_id(0)) * 128 + get_sub_group_local_id();
    for (int i = 0; i < 8; i++) {
        dst[o + 16 * i] = d[i];
        dst16[o + 16 * i] = h[i];
    }
    // Kept live for the patched block stores (their bases are these arguments).
    if (width < 0) {
        dst2[0] = 0;
        dst3[0] = 0;
        dst4[0] = 0;
    }
}
