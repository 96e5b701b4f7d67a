// QW_GATHER / QW_SCATTER (PVC's qword scattered reads and writes): tools/make_case.py
// rewrites the two-channel gather/scatter IGC emits for this copy into them (model.py, PATCH).
kernel void qword_gather_scatter(global const ulong *src, global ulong *dst) {
    int g = get_global_id(0);
    dst[g] = src[g ^ 1];
}
