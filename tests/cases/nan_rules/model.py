"""NaN rules: compares (NE true, the rest false on NaN), fmin/fmax (a NaN yields the
other operand) and saturating float -> int conversions (NaN 0, clamped), on NaNs of
both signs and several payloads among ordinary values, infinities and out-of-range
magnitudes. `b` is never NaN or zero, so no result depends on the signed-zero or
two-NaN choices OpenCL leaves open. PoCL 3.1 (pyopencl) computes these outputs bit for
bit."""
import math
import random
import struct

KERNEL = "nan_rules"
DEVICES = ["tgllp", "acm-g10"]
N = 64
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [N], "global_offset": [0]}


def bits(u):
    return struct.unpack("<f", struct.pack("<I", u))[0]


SPECIAL = [bits(0x7FC00000), bits(0xFFC00000), bits(0x7F800001), bits(0xFFBADBAD),
           bits(0x7FFFFFFF), 0.0, -0.0, math.inf, -math.inf, 1.5, -2.5, 3.0e9, -3.0e9,
           1.0e20, -1.0e20, 255.5, 300.0, -0.75, bits(1), 2147483520.0]
rng = random.Random(20261126)
A = [SPECIAL[i % len(SPECIAL)] if i < 2 * len(SPECIAL) else
     (bits(0x7FC00000 | rng.getrandbits(22)) if i % 3 == 0 else rng.uniform(-400, 400))
     for i in range(N)]
B = [rng.choice([1.5, -2.5, 0.5, 300.0, math.inf, -math.inf, 1.0e-3, -7.0]) for _ in range(N)]
INPUTS = {"a": A, "b": B, "flags": [0] * N, "lo": [0.0] * N, "hi": [0.0] * N,
          "i32": [0] * N, "i64": [0] * N, "u8": [0] * N}
ARGS = [
    {"name": "a", "kind": "buffer", "dtype": "float32", "is_output": False},
    {"name": "b", "kind": "buffer", "dtype": "float32", "is_output": False},
    {"name": "flags", "kind": "buffer", "dtype": "int32", "is_output": True},
    {"name": "lo", "kind": "buffer", "dtype": "float32", "is_output": True},
    {"name": "hi", "kind": "buffer", "dtype": "float32", "is_output": True},
    {"name": "i32", "kind": "buffer", "dtype": "int32", "is_output": True},
    {"name": "i64", "kind": "buffer", "dtype": "int64", "is_output": True},
    {"name": "u8", "kind": "buffer", "dtype": "uint32", "is_output": True},
]


def sat(x, lo, hi):
    if math.isnan(x):
        return 0
    if x <= lo:
        return lo
    if x >= hi:
        return hi
    return int(x)


def expected(inp):
    out = {k: [] for k in ("flags", "lo", "hi", "i32", "i64", "u8")}
    for x, y in zip(inp["a"], inp["b"]):
        n = math.isnan(x)
        f = [x != y, x == y, x < y, x >= y, n, x > y, x <= y]
        out["flags"].append(sum(int(v) << k for k, v in enumerate(f)))
        out["lo"].append(y if n else min(x, y))
        out["hi"].append(y if n else max(x, y))
        out["i32"].append(sat(x, -2 ** 31, 2 ** 31 - 1))
        out["i64"].append(sat(x, -2 ** 63, 2 ** 63 - 1))
        out["u8"].append(sat(x, 0, 255))
    return out
