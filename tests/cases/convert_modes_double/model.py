"""Conversions from and to double in every rounding mode, computed exactly
(tools/make_case.py's models share tools/exact_round.py): double -> float and double ->
half in the four modes (f32 and half ties, overflow edges, double and float denormals:
IGC keeps denormals, %cr0 |= 0x4c0), long and ulong -> double (53-bit ties; IGC
converts with a `mad` in RZ/RU/RD on pvc, a `mov` from Q/UQ on skl), double -> int,
long and ulong saturating in a mode (NaN -> 0)."""
import math
import os
import random
import struct
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tools"))
from exact_round import DOUBLE, FLOAT, HALF, MODES, round_to, to_int_sat  # noqa: E402

KERNEL = "convert_modes_double"
DEVICES = ["skl", "pvc"]
FORCED_SIMD = []
N = 512
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}

rng = random.Random(20261129)
F32_MAX = 3.4028234663852886e38
SPECIAL_D = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 1e-310, -1e-310,
             2.0 ** -149, 1.5 * 2.0 ** -149, 2.0 ** -150, -(2.0 ** -150), 2.0 ** -150 * 1.0000001,
             2.0 ** -126, F32_MAX, -F32_MAX, F32_MAX * (1 + 2.0 ** -25), F32_MAX * (1 + 2.0 ** -24),
             3.5e38, -3.5e38, 1e300, 65504.0, 65519.99, 65520.0, -65520.0, 2.0 ** -24, 2.0 ** -25,
             1 + 2.0 ** -24, 1 + 2.0 ** -24 + 2.0 ** -52, -(1 + 2.0 ** -24), 1 + 2.0 ** -11,
             1 + 2.0 ** -11 + 2.0 ** -40, 0.1, -0.1, 1.0, -1.0, 2147483647.0, 2147483647.5,
             2147483646.5, -2147483648.0, -2147483648.5, -2147483649.0, 3e9, -3e9,
             922337203.6854775, 922337203.6854776, -922337203.6854776, 1844674407.3709551,
             1844674407.3709552, 0.25e-10, 0.5e-10, 1.5e-10, 2.5e-10, -0.5e-10]
D = SPECIAL_D[:]
while len(D) < 170:  # floats and their midpoints, nudged
    f = struct.unpack("<f", struct.pack("<I", rng.randrange(0, 0x7f800000)))[0]
    g = struct.unpack("<f", struct.pack("<I", struct.unpack("<I", struct.pack("<f", f))[0] + 1))[0]
    mid = (f + g) / 2
    D.append(rng.choice([-1, 1]) * rng.choice([mid, mid + abs(mid) * 2.0 ** -52, f]))
while len(D) < 320:
    D.append(rng.choice([-1, 1]) * 2.0 ** rng.uniform(-160, 140))
while len(D) < 400:
    D.append(rng.choice([-1, 1]) * 10 ** rng.uniform(8, 10))
while len(D) < N:
    D.append(rng.uniform(-3e9, 3e9))

SPECIAL_L = [0, 1, -1, 2 ** 53 + 1, 2 ** 53 + 2, 2 ** 53 + 3, -(2 ** 53 + 1), 2 ** 54 + 2,
             2 ** 63 - 1, -(2 ** 63), -(2 ** 63) + 1, 2 ** 62 + 2 ** 9, 2 ** 62 + 2 ** 9 + 1,
             2 ** 62 + 2 ** 9 - 1, -(2 ** 62 + 2 ** 9 + 1), 0x7FFFFFFFFFFFFC00, 0x7FFFFFFFFFFFFBFF,
             123456789, -987654321]
L = SPECIAL_L[:]
while len(L) < 300:
    L.append(rng.randrange(-(2 ** 63), 2 ** 63))
while len(L) < 420:  # few set bits: exact values and ties
    b = rng.randrange(55, 64)
    v = (1 << b) | (rng.randrange(0, 1 << 52) << (b - 52)) | (rng.choice([0, 1, 2, 3]) << (b - 54))
    L.append(v - 2 ** 64 if v >= 2 ** 63 else v * rng.choice([-1, 1]))
while len(L) < N:
    L.append(rng.randrange(-(2 ** 40), 2 ** 40))

F_OUTS = ["f_rte", "f_rtz", "f_rtp", "f_rtn"]
H_OUTS = {"h_rtz": "rtz", "h_rtp": "rtp", "h_rtn": "rtn", "h_rte": "rte"}
ARGS = [{"name": "d", "kind": "buffer", "dtype": "float64", "is_output": False},
        {"name": "l", "kind": "buffer", "dtype": "int64", "is_output": False}]
ARGS += [{"name": o, "kind": "buffer", "dtype": "float32", "is_output": True} for o in F_OUTS]
ARGS += [{"name": o, "kind": "buffer", "dtype": "float16", "is_output": True} for o in H_OUTS]
ARGS += [{"name": o, "kind": "buffer", "dtype": "float64", "is_output": True}
         for o in ["l_rtz", "l_rtp", "l_rtn", "u_rtp"]]
ARGS += [{"name": "i_sat_rtp", "kind": "buffer", "dtype": "int32", "is_output": True},
         {"name": "q_sat_rtn", "kind": "buffer", "dtype": "int64", "is_output": True},
         {"name": "uq_sat_rte", "kind": "buffer", "dtype": "uint64", "is_output": True}]
INPUTS = {"d": D, "l": L}
for a in ARGS:
    if a["is_output"]:
        INPUTS[a["name"]] = [0] * N


def expected(inputs):
    d, l = inputs["d"], inputs["l"]
    out = {}
    for o, m in zip(F_OUTS, MODES):
        out[o] = [round_to(x, FLOAT, m) for x in d]
    for o, m in H_OUTS.items():
        out[o] = [round_to(x, HALF, m) for x in d]
    for o, m in [("l_rtz", "rtz"), ("l_rtp", "rtp"), ("l_rtn", "rtn")]:
        out[o] = [round_to(n, DOUBLE, m) for n in l]
    out["u_rtp"] = [round_to(n % 2 ** 64, DOUBLE, "rtp") for n in l]
    out["i_sat_rtp"] = [to_int_sat(x, "rtp", -(2 ** 31), 2 ** 31 - 1) for x in d]
    # x * 1e10: the exact product rounded once to double.
    scaled = [round_to(Fraction(x) * Fraction(1e10), DOUBLE, "rte") if math.isfinite(x) else x
              for x in d]
    out["q_sat_rtn"] = [to_int_sat(x, "rtn", -(2 ** 63), 2 ** 63 - 1) for x in scaled]
    out["uq_sat_rte"] = [to_int_sat(x, "rte", 0, 2 ** 64 - 1) for x in scaled]
    return out
