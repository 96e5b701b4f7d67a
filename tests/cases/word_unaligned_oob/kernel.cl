// Word accesses the straight lane form's branch-free path hands to the thread mapping:
// a uint read at a byte offset known only at run time (unaligned when off % 4 != 0),
// and reads and writes past the end of their buffers (reads give 0, writes are dropped,
// both counted). OpenCL leaves the unaligned read undefined; IGC still emits a dword
// gather, and the emulator reads the four bytes at the address exactly.
__kernel void word_unaligned_oob(__global const uchar* src, __global uint* dst, uint off) {
    uint i = get_global_id(0);
    dst[i] = *(__global const uint*)(src + off + 4 * i);
}
