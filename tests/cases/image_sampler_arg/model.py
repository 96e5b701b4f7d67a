"""Sampler arguments: CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT |
CLK_FILTER_NEAREST = 0x19 and CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
CLK_FILTER_NEAREST = 0x12; exact coordinates as in image_sample."""
import random

KERNEL = "image_sampler_arg"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8]
W, H = 16, 8
GX, GY = 24, 12
NDRANGE = {"work_dim": 2, "global_size": [GX, GY], "local_size": [8, 4], "global_offset": [0, 0]}
rng = random.Random(20261130)

INPUTS = {
    "img": [rng.randint(-64, 64) / 8 for _ in range(W * H * 4)],
    "out": [0.0] * (GX * GY * 8),
}
ARGS = [
    {"name": "img", "kind": "image", "dtype": "float32", "is_output": False,
     "image": {"type": "2d", "width": W, "height": H, "channel_order": "CL_RGBA",
               "channel_type": "CL_FLOAT"}},
    {"name": "s_mirror", "kind": "sampler", "value": 0x19},
    {"name": "s_edge", "kind": "sampler", "value": 0x12},
    {"name": "out", "kind": "buffer", "dtype": "float32", "is_output": True},
]


def mirror(i, n):
    m = i % (2 * n)
    return 2 * n - 1 - m if m >= n else m


def expected(inp):
    img = inp["img"]
    texel = lambda u, v: img[(v * W + u) * 4:(v * W + u) * 4 + 4]
    out = []
    for y in range(GY):
        for x in range(GX):
            i, j = x - 4, y - 2
            out += texel(mirror(i, W), mirror(j, H))
            out += texel(min(max(i, 0), W - 1), min(max(j, 0), H - 1))
    return {"out": out}
