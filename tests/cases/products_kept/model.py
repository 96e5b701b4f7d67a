"""A product and the sum it feeds, each rounded on its own (FP_CONTRACT OFF), in
float32 and float64; the even items' addends are minus the rounded product."""
import random
import struct

KERNEL = "products_kept"
DEVICES = ["skl", "pvc"]
N = 256
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


rng = random.Random(20261126)
F, D = [], []
for i in range(N):
    x, y = f32(1 + rng.random()), f32(1.5 - rng.random() / 2)
    F += [x, y, -f32(x * y) if i % 2 == 0 else f32(rng.random() - 0.5)]
    x, y = 1 + rng.random(), 1.5 - rng.random() / 2
    D += [x, y, -(x * y) if i % 2 == 0 else rng.random() - 0.5]
INPUTS = {"of": [0.0] * N, "od": [0.0] * N, "f": F, "d": D}
ARGS = [
    {"name": "of", "kind": "buffer", "dtype": "float32", "is_output": True},
    {"name": "od", "kind": "buffer", "dtype": "float64", "is_output": True},
    {"name": "f", "kind": "buffer", "dtype": "float32", "is_output": False},
    {"name": "d", "kind": "buffer", "dtype": "float64", "is_output": False},
]


def expected(inp):
    f, d = [f32(v) for v in inp["f"]], inp["d"]
    of = [f32(f32(f[3 * i] * f[3 * i + 1]) + f[3 * i + 2]) for i in range(N)]
    od = [d[3 * i] * d[3 * i + 1] + d[3 * i + 2] for i in range(N)]
    return {"of": of, "od": od}
