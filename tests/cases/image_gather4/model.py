"""gather4 (3D_SAMPLE4 op 0x08, IGC's `sample4`): PATCH turns IGC's three samples into
gathers of channel R (clamp to edge), A (border: an RGBA image's border color is
0.0 in every channel; the sampler filters nearest, which gather4 ignores) and G
(repeat, normalized). Each returns the bilinear footprint's texels (i0 = floor(x - 0.5) on the
1/256 grid, every coordinate here already on it) as the page's R = lower left (i0, j1),
G = lower right (i1, j1), B = upper right (i1, j0), A = upper left (i0, j0)."""
import random, struct

KERNEL = "image_gather4"
DEVICES = ["tgllp"]
FORCED_SIMD = [8]
W, H = 16, 8
GX, GY = 24, 12
NDRANGE = {"work_dim": 2, "global_size": [GX, GY], "local_size": [8, 4], "global_offset": [0, 0]}
rng = random.Random(20261125)

SAMPLE = r"sample_lz\.RGBA (\(M\d, \d+\))\s+(\S+) (S\d+) (T\d+) "
PATCH_NOTE = "sample_lz.RGBA -> sample4.R / sample4.A / sample4.G (tools/make_case.py PATCH)"


def PATCH(width):
    # IGC splits a SIMD32 sample into two halves (M1, M5).
    halves = max(1, width // 16)
    return [
        (SAMPLE, r"sample4.R \1 \2 \3 \4 ", halves),
        (SAMPLE, r"sample4.A \1 \2 \3 \4 ", halves),
        (SAMPLE, r"sample4.G \1 \2 \3 \4 ", halves),
    ]


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def image(name, order, w, h):
    im = {"type": "2d", "width": w, "height": h, "channel_order": order,
          "channel_type": "CL_FLOAT"}
    return {"name": name, "kind": "image", "dtype": "float32", "is_output": False, "image": im}


INPUTS = {
    "img": [rng.randint(-64, 64) / 8 for _ in range(W * H * 4)],
    "out": [0.0] * (GX * GY * 12),
}
ARGS = [
    image("img", "CL_RGBA", W, H),
    {"name": "out", "kind": "buffer", "dtype": "float32", "is_output": True},
]


def address(mode, i, n):
    if mode == "repeat":
        return i % n
    if mode == "edge":
        return min(max(i, 0), n - 1)
    return i if 0 <= i < n else None  # border


def gather(fetch, border, coords, mode, normalized, ch):
    ax = []
    for c, n in zip(coords, (W, H)):
        x = f32(f32(c) * n) if normalized else f32(c)
        t = round((x - 0.5) * 256)
        assert (x - 0.5) * 256 == t, "coordinate off the 1/256 grid"
        ax.append((address(mode, t >> 8, n), address(mode, (t >> 8) + 1, n)))
    (i0, i1), (j0, j1) = ax
    out = []
    for u, v in ((i0, j1), (i1, j1), (i1, j0), (i0, j0)):
        out.append(border[ch] if u is None or v is None else fetch(u, v)[ch])
    return out


def expected(inp):
    img = inp["img"]
    rgba = lambda u, v: img[(v * W + u) * 4:(v * W + u) * 4 + 4]
    out = []
    for y in range(GY):
        for x in range(GX):
            uc = (x * 0.75 - 2.0, y * 0.625 - 1.0)
            nc = (((x - 4) * 0.8125 + 0.375) / 16, ((y - 2) * 0.6875 + 0.125) / 8)
            out += gather(rgba, None, uc, "edge", False, 0)
            # IGC's nearest clamp-to-border samples replace negative coordinates by
            # -1.0 (a `cmp.lt`/`sel` pair before the sample), which moves the footprint.
            bc = tuple(-1.0 if c < 0 else c for c in uc)
            out += gather(rgba, [0.0, 0.0, 0.0, 0.0], bc, "border", False, 3)
            out += gather(rgba, None, nc, "repeat", True, 1)
    return {"out": out}
