"""3x3 stencil (the bench's stencil workload): every sum rounded to float32 in the
kernel's order (FP_CONTRACT OFF), borders clamped to the edge."""
import random
import struct

KERNEL = "stencil3x3"
DEVICES = ["tgllp", "acm-g10"]
W, H = 64, 64
NDRANGE = {"work_dim": 2, "global_size": [W, H], "local_size": [16, 4], "global_offset": [0, 0]}
rng = random.Random(20261126)
INPUTS = {
    "out": [0.0] * (W * H),
    "in": [f * 2.0 ** rng.randint(-6, 6) for f in (rng.random() - 0.5 for _ in range(W * H))],
}
ARGS = [
    {"name": "out", "kind": "buffer", "dtype": "float32", "is_output": True},
    {"name": "in", "kind": "buffer", "dtype": "float32", "is_output": False},
    {"name": "w", "kind": "scalar", "dtype": "int32", "value": W},
    {"name": "h", "kind": "scalar", "dtype": "int32", "value": H},
]


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def expected(inp):
    src = [f32(v) for v in inp["in"]]
    out = []
    for y in range(H):
        u, m, d = max(y - 1, 0) * W, y * W, min(y + 1, H - 1) * W
        for x in range(W):
            xl, xr = max(x - 1, 0), min(x + 1, W - 1)
            corners = f32(f32(src[u + xl] + src[u + xr]) + f32(src[d + xl] + src[d + xr]))
            edges = f32(f32(src[u + x] + src[d + x]) + f32(src[m + xl] + src[m + xr]))
            s = f32(f32(0.25 * src[m + x]) + f32(0.125 * edges))
            out.append(f32(s + f32(0.0625 * corners)))
    return {"out": out}
