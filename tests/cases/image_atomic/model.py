"""TYPED_ATOMIC on 2D images (IGC's OpenCL has no image atomics: PATCH turns the typed
messages of the reads and writes into typed atomics). Unique texels return their old
values (inc; cmpxchg with the coordinates as operands); contended texels check only the
final image, which any order gives (add, imax, and a 16-bit add that wraps)."""
import random
import struct

KERNEL = "image_atomic"
DEVICES = ["tgllp", "acm-g10"]
# SIMD8 besides IGC's SIMD32: a quarter of the code, so lavapipe compiles it in CI.
FORCED_SIMD = [8]
N = 64
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [16], "global_offset": [0]}
rng = random.Random(20261125)

# `load_lz.R (Mk, w) 0x0:uw T DST U V` -> typed_atomic ... U V %null %null SRC0 SRC1 DST;
# `scatter4_typed.RGBA (Mk, w) T U V R LOD SRC` -> typed_atomic ... SRC %null %null.
LOAD = r"^(\s*)load_lz\.R \((M\d), (\d+)\)\s+0x0:uw (\S+) (\S+) (\S+) (\S+)"
STORE = r"^(\s*)scatter4_typed\.RGBA \((M\d), (\d+)\) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+)"
PATCH_NOTE = ("TYPED_ATOMIC from IGC's typed messages: read_imageui of a_inc -> inc, of a_cas -> "
              "cmpxchg(src0 = U, src1 = V); write_imageui of a_add -> add, a_max -> imax, "
              "a_add16 -> add.16 (tools/make_case.py PATCH)")


def PATCH(width):
    loads, stores = max(1, width // 16), width // 8
    return [
        (LOAD, r"\1typed_atomic.inc (\2, \3) \4 \6 \7 %null.0 %null.0 %null.0 %null.0 \5", loads),
        (LOAD, r"\1typed_atomic.cmpxchg (\2, \3) \4 \6 \7 %null.0 %null.0 \6 \7 \5", loads),
        (STORE, r"\1typed_atomic.add (\2, \3) \4 \5 \6 \7 \8 \9 %null.0 %null.0", stores),
        (STORE, r"\1typed_atomic.imax (\2, \3) \4 \5 \6 \7 \8 \9 %null.0 %null.0", stores),
        (STORE, r"\1typed_atomic.add.16 (\2, \3) \4 \5 \6 \7 \8 \9 %null.0 %null.0", stores),
    ]


def image(name, w, h, ctype="CL_UNSIGNED_INT32", dtype="uint32"):
    return {"name": name, "kind": "image", "dtype": dtype, "is_output": True,
            "image": {"type": "2d", "width": w, "height": h, "channel_order": "CL_R",
                      "channel_type": ctype}}


INPUTS = {
    "a_inc": [rng.choice([0, 1, 0xffffffff, rng.getrandbits(32)]) for _ in range(16 * 4)],
    "a_cas": [rng.randint(0, 3) for _ in range(16 * 4)],
    "a_add": [rng.getrandbits(32) for _ in range(4 * 3)],
    "a_max": [rng.getrandbits(32) for _ in range(5)],
    "a_add16": [rng.getrandbits(16) for _ in range(3 * 2)],
    "v": [rng.getrandbits(32) for _ in range(N)],
    "old_inc": [0] * N,
    "old_cas": [0] * N,
}
ARGS = [
    image("a_inc", 16, 4),
    image("a_cas", 16, 4),
    image("a_add", 4, 3),
    image("a_max", 5, 1),
    image("a_add16", 3, 2, "CL_UNSIGNED_INT16", "uint16"),
    {"name": "v", "kind": "buffer", "dtype": "uint32", "is_output": False},
    {"name": "old_inc", "kind": "buffer", "dtype": "uint32", "is_output": True},
    {"name": "old_cas", "kind": "buffer", "dtype": "uint32", "is_output": True},
]


def signed(x):
    return struct.unpack("<i", struct.pack("<I", x & 0xffffffff))[0]


def expected(inp):
    inc, cas = list(inp["a_inc"]), list(inp["a_cas"])
    add, mx, add16 = list(inp["a_add"]), list(inp["a_max"]), list(inp["a_add16"])
    old_inc, old_cas = [0] * N, [0] * N
    for g in range(N):
        x, y = g % 16, g // 16
        t = y * 16 + x
        old_inc[g], inc[t] = inc[t], (inc[t] + 1) & 0xffffffff
        old_cas[g] = cas[t]
        if cas[t] == y:
            cas[t] = x
        v = inp["v"][g]
        t = (g % 3) * 4 + g % 4
        add[t] = (add[t] + v) & 0xffffffff
        m = (v * 7) & 0xffffffff
        if signed(m) > signed(mx[g % 5]):
            mx[g % 5] = m
        t = (g % 2) * 3 + g % 3
        add16[t] = (add16[t] + v) & 0xffff
    return {"a_inc": inc, "a_cas": cas, "a_add": add, "a_max": mx, "a_add16": add16,
            "old_inc": old_inc, "old_cas": old_cas}
