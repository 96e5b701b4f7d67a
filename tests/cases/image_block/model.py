"""Media blocks: lane l of a sub-group reads texel x + l of rows y and y + 1 as one uint
(RGBA uint8, little-endian), writes it times 3 plus (l, 7) to the same place."""
import random
import struct

KERNEL = "image_block"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8]
W, H = 32, 8
NDRANGE = {"work_dim": 2, "global_size": [W, H // 2], "local_size": [16, 1],
           "global_offset": [0, 0]}
rng = random.Random(20261127)


def image(name, out):
    return {"name": name, "kind": "image", "dtype": "uint8", "is_output": out,
            "image": {"type": "2d", "width": W, "height": H, "channel_order": "CL_RGBA",
                      "channel_type": "CL_UNSIGNED_INT8"}}


INPUTS = {"src": [rng.randint(0, 255) for _ in range(W * H * 4)], "dst": [0] * (W * H * 4)}
ARGS = [image("src", False), image("dst", True)]


def expected(inp):
    words = struct.unpack("<%dI" % (W * H), bytes(inp["src"]))
    out = [0] * (W * H)
    # Lane l covers texel x + l, x a multiple of the SIMD width (8, 16 or 32): l & 7 is
    # t % 8 whatever the width.
    for y in range(H):
        for t in range(W):
            add = (t % 8) if y % 2 == 0 else 7
            out[y * W + t] = (words[y * W + t] * 3 + add) & 0xFFFFFFFF
    return {"dst": list(struct.pack("<%dI" % (W * H), *out))}

