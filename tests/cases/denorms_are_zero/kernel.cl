// Built with -cl-denorms-are-zero: IGC's prologue then leaves %cr0's single-precision
// denorm bit clear (`or %cr0 %cr0 0x40`), and the hardware flushes F denormals on
// input and output of every float operation (2_datatypes).
kernel void denorms_are_zero(global float* o_mul, global float* o_add, global float* o_sub,
                             global float* o_mad, global const float* a,
                             global const float* b) {
    int i = get_global_id(0);
    float x = a[i], y = b[i];
    o_mul[i] = x * y;
    o_add[i] = x + y;
    o_sub[i] = x - y;
    o_mad[i] = fma(x, y, x);
}
