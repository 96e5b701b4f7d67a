"""Images: every value is a multiple of 1/8 below 16, so the float arithmetic is exact
whatever IGC contracts; unorm8 writes of k/8 hit the round-half-to-even ties."""
import random
import struct

KERNEL = "image_rw"
DEVICES = ["tgllp", "acm-g10"]
# SIMD8 besides IGC's SIMD32: a quarter of the code, so lavapipe compiles it in CI.
FORCED_SIMD = [8]
W, H = 24, 20
NDRANGE = {"work_dim": 2, "global_size": [W, H], "local_size": [8, 4], "global_offset": [0, 0]}
rng = random.Random(20261125)


def image(name, order, ctype, dtype, w, h, values, output=False):
    return {"name": name, "kind": "image", "dtype": dtype, "is_output": output,
            "image": {"type": "2d", "width": w, "height": h, "channel_order": order,
                      "channel_type": ctype}}


INPUTS = {
    "src_f": [rng.randint(-8, 20) / 8 for _ in range(W * H * 4)],
    "src_r": [rng.randint(-16, 16) / 8 for _ in range(W * H)],
    "src_u8": [rng.randint(0, 255) for _ in range(W * H * 4)],
    "dst_f": [0.0] * (W * H * 4),
    "dst_unorm": [0] * (W * H * 4),
    "dst_u": [0] * (W * H * 4),
    "info": [0] * 8,
}
ARGS = [
    image("src_f", "CL_RGBA", "CL_FLOAT", "float32", W, H, None),
    image("src_r", "CL_R", "CL_FLOAT", "float32", W, H, None),
    image("src_u8", "CL_RGBA", "CL_UNSIGNED_INT8", "uint8", W, H, None),
    image("dst_f", "CL_RGBA", "CL_FLOAT", "float32", W, H, None, True),
    image("dst_unorm", "CL_RGBA", "CL_UNORM_INT8", "uint8", W, H, None, True),
    image("dst_u", "CL_RGBA", "CL_UNSIGNED_INT32", "uint32", H, W, None, True),
    {"name": "info", "kind": "buffer", "dtype": "int32", "is_output": True},
]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def unorm8(x):
    x = min(max(f32(x), 0.0), 1.0)
    return round(f32(x * 255.0))  # Python rounds half to even


def expected(inp):
    sf, sr, su = inp["src_f"], inp["src_r"], inp["src_u8"]
    df, dn, du = [0.0] * (W * H * 4), [0] * (W * H * 4), [0] * (W * H * 4)
    for y in range(H):
        for x in range(W):
            p = (y * W + x) * 4
            q = ((y * 3) % H * W + (x + 1) % W) * 4
            r = [sr[y * W + x], 0.0, 0.0, 1.0]
            for c in range(4):
                df[p + c] = sf[p + c] * 2 + sf[q + c] + r[c]
                dn[p + c] = unorm8(sf[p + c])
            t = (x * H + y) * 4  # dst_u is H wide, W high; texel (y, x)
            add = [x, y, 0, 1]
            for c in range(4):
                du[t + c] = (su[p + c] * 3 + add[c]) & 0xFFFFFFFF
    return {"dst_f": df, "dst_unorm": dn, "dst_u": du,
            "info": [W, H, H, W, 0x10B0, 0x10DA, 0, 0]}
