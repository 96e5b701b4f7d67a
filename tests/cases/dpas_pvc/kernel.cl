// DPAS on PVC (SIMD16, 64-byte GRF) through IGC's internal sub-group builtins,
// __builtin_IB_sub_group16_[if]dpas_<D>_<C>_<A>_<B>_<SD>_<RC> (D, C: destination and
// accumulator types of float DPAS). Every result goes to one output buffer as 32-bit
// words (16-bit results zero-extended), 8 per work-item per variant. 16-bit inputs
// come in int buffers, two per word.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
int8 __builtin_IB_sub_group16_idpas_s8_s8_8_8(int8 acc, int8 a, int8 b) __attribute__((const));
float8 __builtin_IB_sub_group16_fdpas_f_f_hf_hf_8_8(float8 acc, short8 a, int8 b) __attribute__((const));
float8 __builtin_IB_sub_group16_fdpas_f_f_tf32_tf32_8_8(float8 acc, float4 a, int8 b) __attribute__((const));
half8 __builtin_IB_sub_group16_fdpas_hf_hf_hf_hf_8_8(half8 acc, short8 a, int8 b) __attribute__((const));
short8 __builtin_IB_sub_group16_fdpas_bf_bf_bf_bf_8_8(short8 acc, short8 a, int8 b) __attribute__((const));

__attribute__((intel_reqd_sub_group_size(16)))
kernel void dpas_pvc(global const int* a, global const int* b, global const int* c,
                     global const float* cf, global const int* ah, global const int* bh,
                     global const float* at, global const float* bt, global const int* ch,
                     global const int* abf, global const int* bbf, global const int* cbf,
                     global uint* out) {
    int g = get_global_id(0);
    int n = get_global_size(0);
    vstore8(as_uint8(__builtin_IB_sub_group16_idpas_s8_s8_8_8(vload8(g, c), vload8(g, a),
                                                              vload8(g, b))), g, out);
    float8 f = vload8(g, cf);
    short8 ahv = vload8(g, (global const short*)ah);
    int8 bhv = vload8(g, bh);
    vstore8(as_uint8(__builtin_IB_sub_group16_fdpas_f_f_hf_hf_8_8(f, ahv, bhv)), g + n, out);
    vstore8(as_uint8(__builtin_IB_sub_group16_fdpas_f_f_tf32_tf32_8_8(f, vload4(g, at),
                                                                      as_int8(vload8(g, bt)))),
            g + 2 * n, out);
    half8 h = __builtin_IB_sub_group16_fdpas_hf_hf_hf_hf_8_8(
        vload8(g, (global const half*)ch), ahv, bhv);
    vstore8(convert_uint8(as_ushort8(h)), g + 3 * n, out);
    short8 s = __builtin_IB_sub_group16_fdpas_bf_bf_bf_bf_8_8(
        vload8(g, (global const short*)cbf), vload8(g, (global const short*)abf), vload8(g, bbf));
    vstore8(convert_uint8(as_ushort8(s)), g + 4 * n, out);
}
