// DPAS through IGC's internal sub-group builtins (the ones SYCL's joint_matrix and
// the cl_intel_subgroup_matrix_multiply_accumulate functions lower to). Name order:
// __builtin_IB_sub_group_idpas_<A>_<W>_<SD>_<RC> (A: Src2's precision, W: Src1's),
// which IGC writes as `dpas.W.A.SD.RC`. Every result is stored as 32-bit words in one
// output buffer, one region of 8 words per work-item per variant.
int8 __builtin_IB_sub_group_idpas_s8_s8_8_8(int8 acc, int8 a, int8 b) __attribute__((const));
int8 __builtin_IB_sub_group_idpas_u8_s8_8_8(int8 acc, int8 a, int8 b) __attribute__((const));
int8 __builtin_IB_sub_group_idpas_s4_u4_8_8(int8 acc, int8 a, int8 b) __attribute__((const));
int8 __builtin_IB_sub_group_idpas_u2_s8_8_8(int8 acc, int8 a, int8 b) __attribute__((const));
int8 __builtin_IB_sub_group_idpas_s8_s2_8_8(int8 acc, int8 a, int8 b) __attribute__((const));
int4 __builtin_IB_sub_group_idpas_s8_s8_8_4(int4 acc, int4 a, int8 b) __attribute__((const));
float8 __builtin_IB_sub_group_fdpas_hf_hf_8_8(float8 acc, int8 a, int8 b) __attribute__((const));
float8 __builtin_IB_sub_group_fdpas_bf_bf_8_8(float8 acc, int8 a, int8 b) __attribute__((const));

__attribute__((intel_reqd_sub_group_size(8)))
kernel void dpas_mix(global const int* a, global const int* b, global const int* c,
                     global const float* cf, global const int* ah, global const int* bh,
                     global const int* abf, global const int* bbf, global int* out) {
    int g = get_global_id(0);
    int n = get_global_size(0);
    int8 av = vload8(g, a), bv = vload8(g, b), cv = vload8(g, c);
    vstore8(__builtin_IB_sub_group_idpas_s8_s8_8_8(cv, av, bv), g, out);
    vstore8(__builtin_IB_sub_group_idpas_u8_s8_8_8(cv, av, bv), g + n, out);
    vstore8(__builtin_IB_sub_group_idpas_s4_u4_8_8(cv, av, bv), g + 2 * n, out);
    vstore8(__builtin_IB_sub_group_idpas_u2_s8_8_8(cv, av, bv), g + 3 * n, out);
    vstore8(__builtin_IB_sub_group_idpas_s8_s2_8_8(cv, av, bv), g + 4 * n, out);
    int4 r4 = __builtin_IB_sub_group_idpas_s8_s8_8_4(cv.lo, av.hi, bv);
    vstore8((int8)(r4, cv.hi), g + 5 * n, out);
    float8 f = vload8(g, cf);
    vstore8(as_int8(__builtin_IB_sub_group_fdpas_hf_hf_8_8(f, vload8(g, ah), vload8(g, bh))),
            g + 6 * n, out);
    vstore8(as_int8(__builtin_IB_sub_group_fdpas_bf_bf_8_8(f, vload8(g, abf), vload8(g, bbf))),
            g + 7 * n, out);
}
