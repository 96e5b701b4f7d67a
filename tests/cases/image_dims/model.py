"""1D and 3D images; values are multiples of 1/8 below 64, so every sum is exact."""
import random

KERNEL = "image_dims"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8]
VW, VH, VD = 8, 4, 3
N = 96
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [32], "global_offset": [0]}
rng = random.Random(20261128)

INPUTS = {
    "vol": [rng.randint(-64, 64) / 8 for _ in range(VW * VH * VD * 4)],
    "line": [rng.randint(-100, 100) for _ in range(40 * 2)],
    "out": [0.0] * (N * 4),
    "info": [0] * 8,
}
ARGS = [
    {"name": "vol", "kind": "image", "dtype": "float32", "is_output": False,
     "image": {"type": "3d", "width": VW, "height": VH, "depth": VD,
               "channel_order": "CL_RGBA", "channel_type": "CL_FLOAT"}},
    {"name": "line", "kind": "image", "dtype": "int32", "is_output": False,
     "image": {"type": "1d", "width": 40, "channel_order": "CL_RG",
               "channel_type": "CL_SIGNED_INT32"}},
    {"name": "out", "kind": "image", "dtype": "float32", "is_output": True,
     "image": {"type": "1d", "width": N, "channel_order": "CL_RGBA",
               "channel_type": "CL_FLOAT"}},
    {"name": "info", "kind": "buffer", "dtype": "int32", "is_output": True},
]


def clamp(v, n):
    return min(max(v, 0), n - 1)


def expected(inp):
    vol, line = inp["vol"], inp["line"]
    texel = lambda x, y, z: vol[((z * VH + y) * VW + x) * 4:((z * VH + y) * VW + x) * 4 + 4]
    out = []
    for i in range(N):
        x, y, z = i % 8, (i // 8) % 4, i // 32
        a = texel(x, y, z)
        j = i % 40
        b = [line[2 * j], line[2 * j + 1], 0, 1]
        # floor(2x - 3.5) = 2x - 4, floor(y + 0.25) = y, floor(3z - 1.5) = 3z - 2
        c = texel(clamp(2 * x - 4, VW), clamp(y, VH), clamp(3 * z - 2, VD))
        out += [a[k] + b[k] * 0.5 + c[k] * 0.25 for k in range(4)]
    return {"out": out, "info": [VW, VH, VD, 40, N, 0, 0, 0]}
