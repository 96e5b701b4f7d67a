// GATHER / SCATTER (the original byte/word/dword scattered messages), which IGC no
// longer emits: the case's PATCH (model.py) rewrites IGC's gather_scaled/scatter_scaled
// of 1- and 2-byte elements into them.
kernel void byte_gather(global const uchar* src, global uchar* dst, global ushort* hs, global const ushort* hsrc) {
    int i = get_global_id(0);
    dst[i] = src[(i * 7) % 256] + 1;
    hs[(i * 5) % 256] = hsrc[i] ^ 0x5a5a;
}
