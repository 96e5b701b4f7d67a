// OpenCL integer builtins over long, short and char: mul_hi, mad_hi, add_sat, sub_sat,
// abs_diff, hadd, rhadd, mad_sat (full-width product), ctz, rotate, popcount, clz,
// upsample; tgllp lowers the 64-bit ones to 32-bit pieces (addc, subb, madw), pvc runs
// native Q operations.
__kernel void int_builtins_sat(__global const long* a, __global const long* b, __global const long* c,
                             __global long* o_mulhi, __global ulong* o_umulhi, __global long* o_madhi,
                             __global long* o_addsat, __global ulong* o_uaddsat, __global long* o_subsat,
                             __global ulong* o_usubsat, __global ulong* o_absdiff, __global long* o_hadd,
                             __global long* o_rhadd, __global long* o_madsat, __global long* o_ctz,
                             __global short* o_s, __global char* o_c) {
  int i = get_global_id(0);
  long x = a[i], y = b[i], z = c[i];
  o_mulhi[i] = mul_hi(x, y);
  o_umulhi[i] = mul_hi((ulong)x, (ulong)y);
  o_madhi[i] = mad_hi(x, y, z);
  o_addsat[i] = add_sat(x, y);
  o_uaddsat[i] = add_sat((ulong)x, (ulong)y);
  o_subsat[i] = sub_sat(x, y);
  o_usubsat[i] = sub_sat((ulong)x, (ulong)y);
  o_absdiff[i] = abs_diff(x, y);
  o_hadd[i] = hadd(x, y);
  o_rhadd[i] = rhadd(x, y);
  o_madsat[i] = mad_sat(x, y, z);
  o_ctz[i] = ctz(x);
  o_s[i] = mad_sat((short)x, (short)y, (short)z) + rotate((short)x, (short)y) + popcount((short)z) + clz((short)y);
  o_c[i] = add_sat((char)x, (char)y) + mul_hi((char)x, (char)z) + upsample((char)x, (uchar)y) + ctz((char)z);
}
