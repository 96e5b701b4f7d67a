"""Conversions in every rounding mode, computed exactly (tools/exact_round.py): float ->
half with vstore_half_rte/rtz/rtp/rtn (ties, the half overflow edge 65520, half
denormals, float denormals: IGC keeps float denormals, %cr0 |= 0x4c0), half bits ->
float (vload_half: every class incl. NaNs and denormals), long and ulong -> float in the
four modes (24-bit ties, 2^63 edges) and float -> long/ulong saturating (NaN -> 0), on
tgllp and acm-g10 (64-bit integers emulated by IGC) and pvc (native Q)."""
import math
import os
import random
import struct
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tools"))
from exact_round import FLOAT, HALF, MODES, f32, half_bits_value, round_to, to_int_sat  # noqa: E402

KERNEL = "convert_modes"
DEVICES = ["tgllp", "acm-g10", "pvc"]
FORCED_SIMD = []
N = 512
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}

rng = random.Random(20261128)
H = 2.0 ** -24  # the smallest half denormal
SPECIAL_F = [0.0, -0.0, math.inf, -math.inf, math.nan, 65504.0, 65519.99, 65520.0, -65520.0,
             65536.0, 2.0 ** -14, H, -H, H / 2, -H / 2, 3 * H / 2, 3 * H / 4, 1e-40, -1e-40,
             1.17549435e-38, 3.4028234663852886e38, -3.4028234663852886e38,
             1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, -(1.0 + 2.0 ** -11), 1.0 + 2.0 ** -12,
             2049.0, 2051.0, -2049.0, 0.1, -0.1, 1.0, -1.0, 922337203.6854775, 922337203.6854776,
             -922337203.6854775, -922337203.6854776, 1844674407.3709551, 1844674407.3709552,
             1e-10, -1e-10, 0.5e-10, 1.5e-10, -2.5e-10]
F = [f32(x) if math.isfinite(x) else x for x in SPECIAL_F]
while len(F) < 200:  # halves and their midpoints, signed
    h = half_bits_value(rng.randrange(0, 0x7c00))
    nxt = half_bits_value(struct.unpack("<H", struct.pack("<e", h))[0] + 1)
    F.append(f32(rng.choice([-1, 1]) * rng.choice([h, (h + nxt) / 2, h + (nxt - h) / 4])))
while len(F) < 330:
    F.append(f32(rng.choice([-1, 1]) * 2.0 ** rng.uniform(-30, 17)))
while len(F) < 430:
    F.append(f32(rng.choice([-1, 1]) * 10 ** rng.uniform(6, 10)))
while len(F) < N:
    F.append(f32(rng.uniform(-70000, 70000)))

SPECIAL_L = [0, 1, -1, 2 ** 24 + 1, 2 ** 24 + 2, 2 ** 24 + 3, -(2 ** 24 + 1), 2 ** 25 + 2,
             2 ** 53 + 1, 2 ** 63 - 1, -(2 ** 63), -(2 ** 63) + 1, 2 ** 62 + 2 ** 38,
             2 ** 62 + 2 ** 38 + 1, 2 ** 62 + 2 ** 38 - 1, -(2 ** 40 + 2 ** 16), 2 ** 39 + 2 ** 15,
             0x7FFFFF8000000000, 0x7FFFFF7FFFFFFFFF, -0x7FFFFF8000000000, 123456789, -987654321]
L = SPECIAL_L[:]
while len(L) < 300:
    L.append(rng.randrange(-(2 ** 63), 2 ** 63))
while len(L) < 420:  # few set bits: exact values and ties
    b = rng.randrange(26, 63)
    v = (1 << b) | (rng.randrange(0, 1 << 23) << (b - 23)) | (rng.choice([0, 1, 2, 3]) << (b - 25))
    L.append(v * rng.choice([-1, 1]) if v < 2 ** 63 else v - 2 ** 64)
while len(L) < N:
    L.append(rng.randrange(-(2 ** 31), 2 ** 31))

HB = list(range(0, 0x10000, 0x10000 // 64))
HB += [0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0x7c00, 0xfc00, 0x7c01, 0x7e00,
       0xfe00, 0x7fff, 0xffff, 0x3c00, 0xbc00, 0x3555]
while len(HB) < N:
    HB.append(rng.randrange(0, 0x10000))

H_OUTS = ["h_rte", "h_rtz", "h_rtp", "h_rtn"]
L_OUTS = ["l_rte", "l_rtz", "l_rtp", "l_rtn"]
ARGS = [{"name": "f", "kind": "buffer", "dtype": "float32", "is_output": False},
        {"name": "l", "kind": "buffer", "dtype": "int64", "is_output": False},
        {"name": "hb", "kind": "buffer", "dtype": "uint16", "is_output": False}]
ARGS += [{"name": o, "kind": "buffer", "dtype": "float16", "is_output": True} for o in H_OUTS]
ARGS += [{"name": o, "kind": "buffer", "dtype": "float32", "is_output": True}
         for o in ["f_of_h"] + L_OUTS + ["u_rtp", "u_rtn"]]
ARGS += [{"name": "fl_sat_rtp", "kind": "buffer", "dtype": "int64", "is_output": True},
         {"name": "fu_sat_rtn", "kind": "buffer", "dtype": "uint64", "is_output": True}]
INPUTS = {"f": F, "l": L, "hb": HB}
for a in ARGS:
    if a["is_output"]:
        INPUTS[a["name"]] = [0] * N


def expected(inputs):
    f, l, hb = inputs["f"], inputs["l"], inputs["hb"]
    out = {}
    for o, m in zip(H_OUTS, MODES):
        out[o] = [math.nan if math.isnan(x) else round_to(x, HALF, m) for x in f]
    out["f_of_h"] = [half_bits_value(b) for b in hb]
    for o, m in zip(L_OUTS, MODES):
        out[o] = [round_to(n, FLOAT, m) for n in l]
    out["u_rtp"] = [round_to(n % 2 ** 64, FLOAT, "rtp") for n in l]
    out["u_rtn"] = [round_to(n % 2 ** 64, FLOAT, "rtn") for n in l]
    # x * 1e10f: the exact product rounded once (a Python float product would round twice).
    scaled = [round_to(Fraction(x) * Fraction(f32(1e10)), FLOAT, "rte") if math.isfinite(x) else x
              for x in f]
    out["fl_sat_rtp"] = [to_int_sat(x, "rtp", -(2 ** 63), 2 ** 63 - 1) for x in scaled]
    out["fu_sat_rtn"] = [to_int_sat(x, "rtn", 0, 2 ** 64 - 1) for x in scaled]
    return out
