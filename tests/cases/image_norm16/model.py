"""16-bit normalized images. Reads: x / 65535 and max(x / 32767, -1) correctly rounded
to f32 (every texel value appears somewhere, the extremes included). Writes: the value
clamped, times 65535 (32767) in f32, rounded to nearest even; NaN stores 0. The linear
sample blends like the emulator (integer weights on the 1/256 grid, f64 sum, one
rounding). Only the SIMD8 variants are kept: IGC's SIMD32 ones are refused by the
straight form (typed writes it cannot tell apart) and the tgllp one has a block longer
than one pass of the thread mapping allows on lavapipe (21847 loop iterations of 16383)."""
import math, random, struct

KERNEL = "image_norm16"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8]
W, H = 16, 8
NDRANGE = {"work_dim": 2, "global_size": [W, H], "local_size": [8, 4], "global_offset": [0, 0]}
rng = random.Random(20261126)


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def image(name, ctype, dtype, output=False):
    return {"name": name, "kind": "image", "dtype": dtype, "is_output": output,
            "image": {"type": "2d", "width": W, "height": H, "channel_order": "CL_RGBA",
                      "channel_type": ctype}}


edge_u = [0, 1, 2, 32767, 32768, 65534, 65535, 257]
edge_s = [-32768, -32767, -32766, -1, 0, 1, 32766, 32767]
vals = []
for i in range(W * H * 4):
    r = rng.random()
    if i < 16:
        vals.append([0.5 / 65535, 1.5 / 65535, -1.0, 1.0, 2.0, -2.0, 0.5, -0.5,
                     32767.5 / 65535, 0.5 / 32767, -0.5 / 32767, 1e-9, -1e-9,
                     float("nan"), float("inf"), float("-inf")][i])
    else:
        vals.append(f32(rng.uniform(-1.25, 1.25)))
INPUTS = {
    "un": edge_u + [rng.randrange(65536) for _ in range(W * H * 4 - 8)],
    "sn": edge_s + [rng.randrange(-32768, 32768) for _ in range(W * H * 4 - 8)],
    "vals": vals,
    "out_un": [0] * (W * H * 4),
    "out_sn": [0] * (W * H * 4),
    "out": [0.0] * (W * H * 12),
}
ARGS = [
    image("un", "CL_UNORM_INT16", "uint16"),
    image("sn", "CL_SNORM_INT16", "int16"),
    {"name": "vals", "kind": "buffer", "dtype": "float32", "is_output": False},
    image("out_un", "CL_UNORM_INT16", "uint16", True),
    image("out_sn", "CL_SNORM_INT16", "int16", True),
    {"name": "out", "kind": "buffer", "dtype": "float32", "is_output": True},
]


def load_u(x):
    return f32(x / 65535)  # Python's division is correctly rounded to f64, then f32


def load_s(x):
    return f32(max(x / 32767, -1.0))


def rne(v):
    return int(math.floor(v + 0.5)) if v - math.floor(v) != 0.5 else (
        int(math.floor(v)) if math.floor(v) % 2 == 0 else int(math.floor(v)) + 1)


def store(v, lo, scale):
    if math.isnan(v):
        return 0
    return rne(f32(min(max(v, lo), 1.0) * scale))


def expected(inp):
    un, sn, vals = inp["un"], inp["sn"], inp["vals"]
    out = []
    texel = lambda u, v: [load_u(c) for c in un[(v * W + u) * 4:(v * W + u) * 4 + 4]]
    for y in range(H):
        for x in range(W):
            k = y * W + x
            out += texel(x, y)
            out += [load_s(c) for c in sn[k * 4:k * 4 + 4]]
            axes = []
            for c, n in ((x * 0.75 + 0.25, W), (y * 0.5 + 0.125, H)):
                t = round((c - 0.5) * 256)
                assert (c - 0.5) * 256 == t
                i0, fr = t >> 8, t & 255
                axes.append((min(max(i0, 0), n - 1), min(max(i0 + 1, 0), n - 1), fr))
            acc = [0.0] * 4
            for tap in range(4):
                w, at = 1, []
                for a, (i0, i1, fr) in enumerate(axes):
                    second = (tap >> a) & 1
                    w *= fr if second else 256 - fr
                    at.append(i1 if second else i0)
                acc = [s + w * v for s, v in zip(acc, texel(*at))]
            out += [f32(s / 65536) for s in acc]
    return {
        "out": out,
        "out_un": [store(v, 0.0, 65535.0) for v in vals],
        "out_sn": [store(v, -1.0, 32767.0) for v in vals],
    }
