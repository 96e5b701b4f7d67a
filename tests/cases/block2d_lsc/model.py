"""LSC_UNTYPED 2D block messages on PVC (SIMD16, 64-byte GRF): lsc_load_block2d of
16x8 blocks of dwords and words (plain, VNNI-transformed and transposed) and
lsc_store_block2d of 16x8 blocks, on a surface 60 elements wide and 21 rows high with a
72-element pitch, so the last column and row of tiles clip (loads read zero, stores
drop). IGC's two-block loads become one block and PATCH adds the rest (kernel.cl).

The reference follows the LOAD_BLOCK2D loops of the LSC_UNTYPED page: GRF rows of
round_up_pow2(row length) elements, VNNI interleaving two 16-bit rows per dword,
transposing putting columns in GRF rows. Stores write the GRF row-major (the page's
STORE_BLOCK2D indexes it column-major; docs/design.md says why this follows the load).
Surface width, height and pitch are passed minus one, as IGC's builtins take them."""
import random

KERNEL = "block2d_lsc"
DEVICES = ["pvc"]
GX, GY = 4, 3  # groups: tiles of 16 columns x 8 rows
W, H, P = 60, 21, 72  # surface width and height in elements and rows, pitch in elements
ROWS = 24
NDRANGE = {"work_dim": 2, "global_size": [16 * GX, GY], "local_size": [16, 1],
           "global_offset": [0, 0]}
rng = random.Random(20261127)

LD32 = r"(lsc_load_block2d\.ugm \(M1, 16\)\s+V0063):d32\.2x16x8nn(\s+flat\[V0057, (V0059, V0060, V0062, V0055, V0056)\])"
LD16 = r"(lsc_load_block2d\.ugm \(M1, 16\)\s+V0069):d16\.2x16x8nn(\s+flat\[V0064, (V0066, V0060, V0068, V0055, V0056)\])"
PATCH_NOTE = ("IGC's d32/d16 2x16x8 block loads (of one-block variables) made 1x16x8; "
              "added: the dword block stored to dst2, a VNNI (16x8nt) load of src16 stored "
              "to dst3, a transposed (8x16tn) load of src stored to dst4, all at the tile's "
              "origin (tools/make_case.py PATCH)")


def PATCH(width):
    return [
        (r"^(\.decl V0069 .*)$", r"\1\n.decl V0900 v_type=G type=w num_elts=128 align=wordx32"
         r"\n.decl V0901 v_type=G type=d num_elts=128 align=wordx32", 1),
        (LD32, r"\1:d32.1x16x8nn\2\n"
         r"    lsc_store_block2d.ugm (M1, 16)  flat[V0038, \3]  V0063:d32.16x8nn\n"
         r"    lsc_load_block2d.ugm (M1, 16)  V0901:d32.1x8x16tn  flat[V0057, \3]\n"
         r"    lsc_store_block2d.ugm (M1, 16)  flat[V0040, \3]  V0901:d32.16x8nn", 1),
        (LD16, r"\1:d16.1x16x8nn\2\n"
         r"    lsc_load_block2d.ugm (M1, 16)  V0900:d16.1x16x8nt  flat[V0064, \3]\n"
         r"    lsc_store_block2d.ugm (M1, 16)  flat[V0039, \3]  V0900:d16.16x8nn", 1),
    ]


INPUTS = {
    "src": [rng.getrandbits(32) for _ in range(P * ROWS)],
    "src16": [rng.getrandbits(16) for _ in range(P * ROWS)],
    "dst": [0] * (GX * GY * 128),
    "dst16": [0] * (GX * GY * 128),
    "dst2": [rng.getrandbits(32) for _ in range(P * ROWS)],
    "dst3": [rng.getrandbits(16) for _ in range(P * ROWS)],
    "dst4": [rng.getrandbits(32) for _ in range(P * ROWS)],
}
U32 = ("src", "dst", "dst2", "dst4")
ARGS = [{"name": k, "kind": "buffer", "dtype": "uint32" if k in U32 else "uint16",
         "is_output": k.startswith("dst")} for k in INPUTS] + [
    {"name": "width", "kind": "scalar", "dtype": "int32", "value": W},
    {"name": "height", "kind": "scalar", "dtype": "int32", "value": H},
    {"name": "pitch", "kind": "scalar", "dtype": "int32", "value": P},
]


def inside(x, y):
    return 0 <= x < W and 0 <= y < H


def load(mem, x0, y0, bw, bh, transpose=False, pack=1):
    """The page's LOAD_BLOCK2D for one block (GRF elements, 64-byte GRFs)."""
    at = lambda y, x: mem[y * P + x] if inside(x, y) else 0  # noqa: E731
    rp = 1 << ((bh if transpose else bw) - 1).bit_length()
    grf = [0] * (rp * (bw if transpose else bh))
    if not transpose:
        for y in range(0, bh, pack):
            for x in range(bw):
                for i in range(pack):
                    grf[y * rp + x * pack + i] = at(y0 + y + i, x0 + x)
    else:
        for x in range(0, bw, pack):
            for y in range(bh):
                for i in range(pack):
                    grf[x * rp + y * pack + i] = at(y0 + y, x0 + x + i)
    return grf


def store(mem, grf, x0, y0):
    """A 16x8 block from the GRF's rows, clipped to the surface."""
    for y in range(8):
        for x in range(16):
            if inside(x0 + x, y0 + y):
                mem[(y0 + y) * P + x0 + x] = grf[y * 16 + x]


def expected(inp):
    out = {k: list(inp[k]) for k in INPUTS if k.startswith("dst")}
    for gy in range(GY):
        for gx in range(GX):
            x0, y0, o = 16 * gx, 8 * gy, (gy * GX + gx) * 128
            d = load(inp["src"], x0, y0, 16, 8)
            h = load(inp["src16"], x0, y0, 16, 8)
            out["dst"][o:o + 128] = d
            out["dst16"][o:o + 128] = h
            store(out["dst2"], d, x0, y0)
            store(out["dst3"], load(inp["src16"], x0, y0, 16, 8, pack=2), x0, y0)
            store(out["dst4"], load(inp["src"], x0, y0, 8, 16, transpose=True), x0, y0)
    return out
