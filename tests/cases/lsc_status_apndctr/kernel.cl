// LSC lsc_load_status and lsc_apndctr_atomic_add, which OpenCL cannot spell: IGC's
// load of src[idx[i]] becomes a status load (a bitset of the lanes whose address lies
// in the surface), broadcast from element 0, of which each lane keeps its own bit; its work-group-aggregated atomic_add on
// ctr[0] becomes an append-counter add on ctr's surface (see model.py's PATCH).
__kernel void lsc_status_apndctr(__global const uint* src, __global const uint* idx,
                                 __global uint* status, __global uint* ctr,
                                 __global const uint* w, __global uint* mark) {
  int i = get_global_id(0);
  uint x = src[idx[i]];
  status[i] = (sub_group_broadcast(x, 0) >> get_sub_group_local_id()) & 1;
  uint old = atomic_add(&ctr[0], w[i]);
  mark[old] = 1;
}
