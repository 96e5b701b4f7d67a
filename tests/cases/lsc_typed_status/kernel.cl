// LSC_TYPED lsc_load_status, which OpenCL cannot spell: IGC's typed read of
// img(cx[g], cy[g]) becomes a status load (a bitset of the lanes whose texel lies in
// the image), broadcast from element 0, of which each lane keeps its own bit (see
// model.py's PATCH).
kernel void lsc_typed_status(read_only image2d_t img, global const int *cx,
                             global const int *cy, global uint *status) {
    int g = get_global_id(0);
    uint x = read_imageui(img, (int2)(cx[g], cy[g])).x;
    status[g] = (sub_group_broadcast(x, 0) >> get_sub_group_local_id()) & 1;
}
