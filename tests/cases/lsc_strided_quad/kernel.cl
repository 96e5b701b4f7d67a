// Strided and quad LSC messages have no OpenCL spelling that IGC emits: tools/make_case.py
// rewrites these loads and stores into them (model.py, PATCH).
kernel void lsc_strided_quad(global const uint4 *src4, global uint4 *dst4, global const uint *src,
                             global uint *dst, global uint *dst2) {
    int g = get_global_id(0);
    dst4[g] = src4[g];
    dst[g] = src[2 * g];
    dst2[2 * g] = src[g] + 1u;
}
