"""async_work_group_copy (global to local), async_work_group_strided_copy (local to
global, every other element), wait_group_events and prefetch. PoCL 3.1 (OpenCL C 1.2)
computes the same; the model's float32 sums are IEEE round-to-nearest."""
import random
import struct

KERNEL = "async_copy"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8]
N, L = 192, 64
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [L], "global_offset": [0]}
rng = random.Random(27112026)
IN = [rng.uniform(-100, 100) for _ in range(N)]
OUT0 = [-1.0] * N
INPUTS = {"in": IN, "out": OUT0}
ARGS = [
    {"name": "in", "kind": "buffer", "dtype": "float32", "is_output": False},
    {"name": "out", "kind": "buffer", "dtype": "float32", "is_output": True},
]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def expected(inputs):
    a = [f32(x) for x in inputs["in"]]
    out = list(inputs["out"])
    for grp in range(N // L):
        t = a[grp * L:(grp + 1) * L]
        half = [f32(f32(t[l] + t[63 - l]) * 0.5) for l in range(L)]
        for i in range(24):
            out[grp * 64 + 2 * i] = half[8 + i]
    return {"out": out}
