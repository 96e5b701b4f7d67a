"""Linear filtering, modelled after OpenCL's formula (i0 = floor(u - 0.5), a =
frac(u - 0.5)) with the position on the 1/256 grid of the emulator's sampler (every
coordinate here already is), each tap through the address mode, the border color outside.
Float texels are multiples of 1/8, so the blends are exact; unorm8 texels are k/255 as
f32, blended like the emulator (integer weights, f64 sum in tap order, one rounding)."""
import random, struct

KERNEL = "image_linear"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8]
W, H = 16, 8
VW, VH, VD = 4, 4, 4
GX, GY = 24, 12
NDRANGE = {"work_dim": 2, "global_size": [GX, GY], "local_size": [8, 4], "global_offset": [0, 0]}
rng = random.Random(20261125)


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def image(name, order, ctype, dtype, w, h, d=None):
    im = {"type": "3d" if d else "2d", "width": w, "height": h,
          "channel_order": order, "channel_type": ctype}
    if d:
        im["depth"] = d
    return {"name": name, "kind": "image", "dtype": dtype, "is_output": False, "image": im}


INPUTS = {
    "img": [rng.randint(-64, 64) / 8 for _ in range(W * H * 4)],
    "img_r": [rng.randint(-64, 64) / 8 for _ in range(W * H)],
    "img_u8": [rng.randint(0, 255) for _ in range(W * H * 4)],
    "vol": [rng.randint(-64, 64) / 8 for _ in range(VW * VH * VD)],
    "out": [0.0] * (GX * GY * 24),
}
ARGS = [
    image("img", "CL_RGBA", "CL_FLOAT", "float32", W, H),
    image("img_r", "CL_R", "CL_FLOAT", "float32", W, H),
    image("img_u8", "CL_RGBA", "CL_UNORM_INT8", "uint8", W, H),
    image("vol", "CL_R", "CL_FLOAT", "float32", VW, VH, VD),
    {"name": "out", "kind": "buffer", "dtype": "float32", "is_output": True},
]


def address(mode, i, n):
    if mode == "repeat":
        return i % n
    if mode == "mirror":
        m = i % (2 * n)
        return 2 * n - 1 - m if m >= n else m
    if mode == "edge":
        return min(max(i, 0), n - 1)
    return i if 0 <= i < n else None  # border


def sample(fetch, border, sizes, coords, mode, normalized):
    """Taps (index tuple or None, integer weight) in the emulator's order: the first
    axis' second texel is bit 0 of the tap number."""
    axes = []
    for c, n in zip(coords, sizes):
        x = f32(f32(c) * n) if normalized else f32(c)
        t = round((x - 0.5) * 256)
        assert (x - 0.5) * 256 == t, "coordinate off the 1/256 grid"
        i0, fr = t >> 8, t & 255
        axes.append((address(mode, i0, n), address(mode, i0 + 1, n), fr))
    acc = [0.0] * 4
    for k in range(1 << len(axes)):
        w, at = 1, []
        for a, (i0, i1, fr) in enumerate(axes):
            second = (k >> a) & 1
            w *= fr if second else 256 - fr
            at.append(i1 if second else i0)
        texel = border if None in at else fetch(*at)
        acc = [s + w * v for s, v in zip(acc, texel)]
    return [f32(s / (1 << (8 * len(axes)))) for s in acc]


def expected(inp):
    img, img_r, img_u8, vol = inp["img"], inp["img_r"], inp["img_u8"], inp["vol"]
    rgba = lambda u, v: img[(v * W + u) * 4:(v * W + u) * 4 + 4]
    red = lambda u, v: [img_r[v * W + u], 0.0, 0.0, 1.0]
    unorm = lambda u, v: [f32(b / 255) for b in img_u8[(v * W + u) * 4:(v * W + u) * 4 + 4]]
    vox = lambda u, v, r: [vol[(r * VH + v) * VW + u], 0.0, 0.0, 1.0]
    out = []
    for y in range(GY):
        for x in range(GX):
            uc = (x * 0.75 - 2.0, y * 0.625 - 1.0)
            nc = (((x - 4) * 0.8125 + 0.375) / 16, ((y - 2) * 0.6875 + 0.125) / 8)
            vc = (x * 0.25 - 0.5, y * 0.375 - 0.25, (x + y) * 0.125)
            out += sample(rgba, None, (W, H), uc, "edge", False)
            out += sample(red, [0.0, 0.0, 0.0, 1.0], (W, H), uc, "border", False)
            out += sample(rgba, None, (W, H), nc, "repeat", True)
            out += sample(rgba, None, (W, H), nc, "mirror", True)
            out += sample(unorm, None, (W, H), uc, "edge", False)
            out += sample(vox, None, (VW, VH, VD), vc, "edge", False)
    return {"out": out}
