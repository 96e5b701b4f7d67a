"""Image arrays; values are multiples of 1/8 below 16, so the sums are exact. The
sampled layer is rint(1.5 l - 0.5): l = 0 -> -0.5 -> -0 -> 0, 1 -> 1.0, 2 -> 2.5 -> 2
(ties to even), clamped to the 3 layers."""
import random

KERNEL = "image_array"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8]
W, H, L = 8, 4, 3
NDRANGE = {"work_dim": 3, "global_size": [W, H, L], "local_size": [8, 2, 1],
           "global_offset": [0, 0, 0]}
rng = random.Random(20261129)

INPUTS = {
    "a": [rng.randint(-64, 64) / 8 for _ in range(W * H * L * 4)],
    "b": [rng.randint(-64, 64) / 8 for _ in range(W * L * 4)],
    "out": [0.0] * (W * H * L * 4),
    "info": [0] * 4,
}


def img(name, t, out, **shape):
    return {"name": name, "kind": "image", "dtype": "float32", "is_output": out,
            "image": dict(type=t, channel_order="CL_RGBA", channel_type="CL_FLOAT", **shape)}


ARGS = [
    img("a", "2d_array", False, width=W, height=H, depth=L),
    img("b", "1d_array", False, width=W, height=L),
    img("out", "2d_array", True, width=W, height=H, depth=L),
    {"name": "info", "kind": "buffer", "dtype": "int32", "is_output": True},
]


def clamp(v, n):
    return min(max(v, 0), n - 1)


def expected(inp):
    a, b = inp["a"], inp["b"]
    ta = lambda x, y, l: a[((l * H + y) * W + x) * 4:((l * H + y) * W + x) * 4 + 4]
    out = []
    for l in range(L):
        for y in range(H):
            for x in range(W):
                p = ta(x, y, l)
                layer = clamp(round(l * 1.5 - 0.5), L)  # Python rounds half to even
                q = ta(clamp(x + 1, W), clamp(y - 1, H), layer)
                r = b[(l * W + x) * 4:(l * W + x) * 4 + 4]
                out += [p[k] + q[k] * 0.5 + r[k] * 0.25 for k in range(4)]
    return {"out": out, "info": [L, L, W, H]}
