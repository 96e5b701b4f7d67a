// Divergent control flow in shapes the corpus lacks: nested loops left by break and
// continue at different depths per work-item, a sparse switch with fall-through, a
// do-while whose trip count differs per item, a non-inlined call made only on some
// paths, and an early exit from inside a loop.
__attribute__((noinline)) uint mix_step(uint v, uint k) {
  for (uint j = 0; j < (k & 3); ++j) {
    if ((v ^ j) & 1) v = v * 3u + 1u; else v >>= 1;
  }
  return v;
}

__kernel void control_mix(__global const uint* a, __global uint* o_loop,
                          __global uint* o_switch, __global uint* o_do,
                          __global uint* o_exit) {
  uint i = get_global_id(0);
  uint x = a[i];
  uint acc = 0;
  for (uint r = 0; r < (x & 7) + 1; ++r) {
    if (((x >> r) & 3) == 3) continue;
    for (uint c = 0; c < 9; ++c) {
      if (c * r > (x & 31)) break;
      if ((c ^ x) & 4) { acc += c; continue; }
      acc = acc * 5u + r;
      if (acc > 100000u) goto out;
    }
    if (acc & 0x100) acc = mix_step(acc, x >> 3);
  }
out:
  o_loop[i] = acc;

  uint sw = 0;
  switch ((x >> 4) % 23) {
    case 0: sw += 11;
    case 1: sw += 13; break;
    case 5: sw = x * 2u;
    case 6: sw ^= 0xff; break;
    case 12: sw = mix_step(x, 7); break;
    case 17:
    case 18: sw = x >> 9; break;
    case 22: sw = 0xdead; break;
    default: sw = x & 0xfff;
  }
  o_switch[i] = sw;

  uint v = x, n = 0;
  do {
    v = (v & 1) ? v * 3u + 1u : v >> 1;
    ++n;
  } while (v > 1 && n < 200);
  o_do[i] = n | (v << 16);

  for (uint k = 0; k < 32; ++k) {
    if (((x >> k) & 0xf) == 0xa) {
      o_exit[i] = k;
      return;
    }
  }
  o_exit[i] = 0xffffffffu;
}
