"""half conversions in every rounding mode against exact models (tools/exact_round.py):
int, uint, short and long -> half (the 65520 overflow edge, 11-bit ties), float ->
half through convert_half_rtp/rtn, half -> int in a mode, saturating half -> uchar and
-> int in a mode (NaN -> 0), half -> float. Unlike vstore_half, these reach IGC's
integer -> HF `mov`s under a %cr0 mode (cl_khr_fp16, tgllp and acm-g10)."""
import math
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tools"))
from exact_round import HALF, f32, half_bits_value, round_to, to_int_sat  # noqa: E402

KERNEL = "convert_modes_half"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = []
N = 512
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}

rng = random.Random(20261203)
EDGE_N = [0, 1, -1, 2047, 2049, 2051, -2049, 4097, 65504, 65519, 65520, 65535, 65536, -65520,
          -65519, 2 ** 31 - 1, -(2 ** 31), 1 << 20, (1 << 20) + 1, 32767, -32768, 1023, 1025]
NS = EDGE_N[:]
while len(NS) < 300:
    NS.append(rng.randrange(-70000, 70000))
while len(NS) < N:
    NS.append(rng.randrange(-(2 ** 31), 2 ** 31))
LS = [0, 65519, 65520, -65520, 2049, 2 ** 63 - 1, -(2 ** 63), 2 ** 40 + 1, 2051]
while len(LS) < N:
    LS.append(rng.choice([rng.randrange(-(2 ** 63), 2 ** 63), rng.randrange(-70000, 70000)]))
FS = [0.0, -0.0, math.inf, -math.inf, math.nan, 65519.0, 65520.0, -65504.5, 2.0 ** -25, 1e-40,
      -1e-40, 2.0 ** -24 * 1.5, 1.0 + 2.0 ** -11, -(1.0 + 2.0 ** -11)]
while len(FS) < N:
    FS.append(f32(rng.choice([-1, 1]) * 2.0 ** rng.uniform(-30, 17)))
HB = [0x0000, 0x8000, 0x0001, 0x8001, 0x3c00, 0xbc00, 0x3800, 0xb800, 0x3e00, 0xbe00, 0x4100,
      0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7c01, 0x7e00, 0xfe00, 0x5bf8, 0x5c00, 0x5c04, 0xdbf8]
while len(HB) < N:
    HB.append(rng.randrange(0, 0x10000))

H_OUTS = ["i_rte", "i_rtz", "i_rtp", "i_rtn", "u_rtp", "s_rtn", "l_rtz", "f_rtp", "f_rtn"]
ARGS = [{"name": "n", "kind": "buffer", "dtype": "int32", "is_output": False},
        {"name": "l", "kind": "buffer", "dtype": "int64", "is_output": False},
        {"name": "f", "kind": "buffer", "dtype": "float32", "is_output": False},
        {"name": "hb", "kind": "buffer", "dtype": "uint16", "is_output": False}]
ARGS += [{"name": o, "kind": "buffer", "dtype": "float16", "is_output": True} for o in H_OUTS]
ARGS += [{"name": "h_int_rtp", "kind": "buffer", "dtype": "int32", "is_output": True},
         {"name": "h_uchar_sat_rte", "kind": "buffer", "dtype": "uint8", "is_output": True},
         {"name": "h_int_sat_rtn", "kind": "buffer", "dtype": "int32", "is_output": True},
         {"name": "h_float", "kind": "buffer", "dtype": "float32", "is_output": True}]
INPUTS = {"n": NS, "l": LS, "f": FS, "hb": HB}
for a in ARGS:
    if a["is_output"]:
        INPUTS[a["name"]] = [0] * N


def expected(inputs):
    n, l, f, hb = inputs["n"], inputs["l"], inputs["f"], inputs["hb"]
    h = [half_bits_value(b) for b in hb]
    out = {}
    for o, m in [("i_rte", "rte"), ("i_rtz", "rtz"), ("i_rtp", "rtp"), ("i_rtn", "rtn")]:
        out[o] = [round_to(x, HALF, m) for x in n]
    out["u_rtp"] = [round_to(x % 2 ** 32, HALF, "rtp") for x in n]
    out["s_rtn"] = [round_to((x + 2 ** 15) % 2 ** 16 - 2 ** 15, HALF, "rtn") for x in n]
    out["l_rtz"] = [round_to(x, HALF, "rtz") for x in l]
    out["f_rtp"] = [math.nan if math.isnan(x) else round_to(x, HALF, "rtp") for x in f]
    out["f_rtn"] = [math.nan if math.isnan(x) else round_to(x, HALF, "rtn") for x in f]
    # convert_int_rtp of an infinite half is undefined without _sat: the model takes
    # the saturating value, which IGC's code gives (checked on the interpreter).
    out["h_int_rtp"] = [0 if math.isnan(x) else to_int_sat(x, "rtp", -(2 ** 31), 2 ** 31 - 1)
                        for x in h]
    out["h_uchar_sat_rte"] = [to_int_sat(x, "rte", 0, 255) for x in h]
    out["h_int_sat_rtn"] = [to_int_sat(x, "rtn", -(2 ** 31), 2 ** 31 - 1) for x in h]
    out["h_float"] = h
    return out
