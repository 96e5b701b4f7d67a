"""Nearest sampling: every coordinate is exact in f32 (power-of-two image sizes, half
and quarter offsets), so the texel each read picks is unambiguous."""
import random

KERNEL = "image_sample"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8]
W, H = 16, 8
GX, GY = 24, 12
NDRANGE = {"work_dim": 2, "global_size": [GX, GY], "local_size": [8, 4], "global_offset": [0, 0]}
rng = random.Random(20261126)


def image(name, order, w, h):
    return {"name": name, "kind": "image", "dtype": "float32", "is_output": False,
            "image": {"type": "2d", "width": w, "height": h, "channel_order": order,
                      "channel_type": "CL_FLOAT"}}


INPUTS = {
    "img": [rng.randint(-64, 64) / 8 for _ in range(W * H * 4)],
    "img_r": [rng.randint(-64, 64) / 8 for _ in range(W * H)],
    "out": [0.0] * (GX * GY * 16),
}
ARGS = [
    image("img", "CL_RGBA", W, H),
    image("img_r", "CL_R", W, H),
    {"name": "out", "kind": "buffer", "dtype": "float32", "is_output": True},
]


def mirror(i, n):
    m = i % (2 * n)
    return 2 * n - 1 - m if m >= n else m


def expected(inp):
    img, img_r = inp["img"], inp["img_r"]
    out = []
    texel = lambda u, v: img[(v * W + u) * 4:(v * W + u) * 4 + 4]
    for y in range(GY):
        for x in range(GX):
            i, j = x - 4, y - 2
            a = texel(min(max(i, 0), W - 1), min(max(j, 0), H - 1))
            b = [img_r[j * W + i], 0.0, 0.0, 1.0] if 0 <= i < W and 0 <= j < H else [0.0, 0.0, 0.0, 1.0]
            c = texel(i % W, j % H)
            d = texel(mirror(i, W), mirror(j, H))
            out += a + b + c + d
    return {"out": out}
