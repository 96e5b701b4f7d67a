// OpenCL printf as IGC compiles it: records appended to the printf buffer, formatted by
// the runtime after the kernel (src/abi/printf.rs). Integers, floats, strings, chars,
// flags, widths, precisions, 64-bit and vector arguments, and a conditional call.
kernel void printf_formats(global int *dst, float f, int n) {
    int g = get_global_id(0);
    dst[g] = g * 2;
    if (g < n) {
        printf("item %d: f=%f e=%.3e g=%g s=%s c=%c\n", g, f * g, f * g, f + g, "str", 'A' + g);
        printf("x=%#x X=%08X o=%o u=%u w=[%-5d|%5d] l=%ld v=%v2d\n", g * 255, g * 4660, g,
               (uint)(-g), g, -g, (long)g << 40, (int2)(g, -g));
    }
    if (g == 0)
        printf("%s%% done\n", "all");
}
