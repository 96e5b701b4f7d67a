"""LSC_TYPED's 2D block messages on a 2D image (acm-g10, SIMD8 and SIMD16): IGC's media
block reads and writes of kernel.cl made lsc_load_block2d.tgm (32 bytes x 2 rows) and
lsc_store_block2d.tgm (28 bytes x 2 rows: each 8-lane part stores its first 7 lanes, the last part's seventh past the right edge).

The reference follows the LSC_TYPED page's LOAD_BLOCK2D/STORE_BLOCK2D loops (row i of
the block at i * register pitch bytes of the data, the pitch 4 or the width rounded up
to a power of two) with MEDIA_LD's and MEDIA_ST's edges, which the page leaves to the
surface: a byte outside the image reads the nearest texel's byte of the same position
(x and y clamped), writes outside are dropped (docs/design.md, "Images")."""
import random
import struct

KERNEL = "image_block_typed2d"
DEVICES = ["acm-g10"]
FORCED_SIMD = [8]
W, H = 32, 8
NDRANGE = {"work_dim": 2, "global_size": [W, H // 2], "local_size": [16, 1],
           "global_offset": [0, 0]}
rng = random.Random(20261128)

PATCH_NOTE = ("MEDIA_LD (32,2) -> lsc_load_block2d.tgm 32x2 and MEDIA_ST (32,2) -> "
              "lsc_store_block2d.tgm 28x2 on the binding-table entry IGC moves into the "
              "surface variable (tools/make_case.py PATCH)")

MOVS = r"movs \(M1_NM, 1\) T6\(0\) (0x[0-9a-fA-F]+):ud(\s+/// \$\d+)?\n(\s+)"


def PATCH(width):
    n = 2 if width == 16 else 1
    return [
        (MOVS + r"media_ld\.nomod \(32,2\) T6 0 (\S+) (\S+) (\S+)",
         r"movs (M1_NM, 1) T6(0) \1:ud\2\n\3lsc_load_block2d.tgm  \6:32x2  bti(\1)[\4,\5]", n),
        (MOVS + r"media_st\.nomod \(32,2\) T6 0 (\S+) (\S+) (\S+)",
         r"movs (M1_NM, 1) T6(0) \1:ud\2\n\3lsc_store_block2d.tgm  bti(\1)[\4,\5]  \6:28x2", n),
    ]


def image(name, out):
    return {"name": name, "kind": "image", "dtype": "uint8", "is_output": out,
            "image": {"type": "2d", "width": W, "height": H, "channel_order": "CL_RGBA",
                      "channel_type": "CL_UNSIGNED_INT8"}}


INPUTS = {"src": [rng.randint(0, 255) for _ in range(W * H * 4)],
          "dst": [rng.randint(0, 255) for _ in range(W * H * 4)]}
ARGS = [image("src", False), image("dst", True)]


def expected(inp):
    src = bytes(inp["src"])
    dst = bytearray(inp["dst"])
    row = 4 * W

    def src_byte(bx, by):
        t = min(max(bx // 4, 0), W - 1)
        y = min(max(by, 0), H - 1)
        return src[y * row + 4 * t + bx % 4]

    for gy in range(H // 2):
        y = 2 * gy
        for x in range(0, W, 8):  # every 8-lane part, whatever the SIMD width
            for l in range(8):
                lane = x + l
                bx = 4 * lane + 8
                for k, add in ((0, l), (1, 100)):
                    word = int.from_bytes(bytes(src_byte(bx + j, y - 1 + k) for j in range(4)),
                                          "little")
                    word = (word + add) & 0xFFFFFFFF
                    if l >= 7 or bx >= row:
                        continue  # past the 28-byte store, or outside the image
                    dst[(y + k) * row + bx:(y + k) * row + bx + 4] = word.to_bytes(4, "little")
    return {"dst": list(dst)}
