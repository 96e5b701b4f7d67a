"""LSC_TYPED on 2D images: quad loads and stores with channel enables (.xzw) and atomics
(iinc, icas, iadd, smax) on bti(N) surfaces. This IGC emits legacy typed messages for
OpenCL images; PATCH rewrites each (and the surface its `movs` sets) into the LSC form.
Unique texels return their old values; contended ones check the final image only."""
import random
import struct

KERNEL = "image_lsc_typed"
DEVICES = ["acm-g10"]
# SIMD8 besides IGC's SIMD32: a quarter of the code, so lavapipe compiles it in CI.
FORCED_SIMD = [8]
N = 64
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [16], "global_offset": [0]}
rng = random.Random(20261126)

MOVS = r"(movs \(M1_NM, 1\) T6\(0\) (0x[0-9a-f]+):ud[^\n]*\n)(\s*)"
LOAD = r"load_lz\.%s \((M\d), (\d+)\)\s+0x0:uw T6 (\S+) (\S+) (\S+)"
STORE = r"scatter4_typed\.RGBA \((M\d), (\d+)\) T6 (\S+) (\S+) (\S+) (\S+) (\S+)"
PATCH_NOTE = ("LSC_TYPED from IGC's typed messages: q_src/q_dst read and write -> "
              "lsc_load_quad/lsc_store_quad .xzw; a_inc read -> lsc_atomic_iinc; a_cas read "
              "-> lsc_atomic_icas (compare U, new V); a_add, a_max writes -> lsc_atomic_iadd, "
              "lsc_atomic_smax (tools/make_case.py PATCH)")


def PATCH(width):
    loads, stores = max(1, width // 16), width // 8
    return [
        (MOVS + LOAD % "RGBA",
         r"\1\3lsc_load_quad.tgm (\4, \5)  \6:d32.xzw  bti(\2)[\7,\8]:a32", loads),
        (MOVS + STORE,
         r"\1\3lsc_store_quad.tgm (\4, \5)  bti(\2)[\6,\7]:a32  \10:d32.xzw", stores),
        (MOVS + LOAD % "R",
         r"\1\3lsc_atomic_iinc.tgm (\4, \5)  \6:d32  bti(\2)[\7,\8]:a32  %null  %null", loads),
        (MOVS + LOAD % "R",
         r"\1\3lsc_atomic_icas.tgm (\4, \5)  \6:d32  bti(\2)[\7,\8]:a32  \7  \8", loads),
        (MOVS + STORE,
         r"\1\3lsc_atomic_iadd.tgm (\4, \5)  %null:d32  bti(\2)[\6,\7]:a32  \10  %null", stores),
        (MOVS + STORE,
         r"\1\3lsc_atomic_smax.tgm (\4, \5)  %null:d32  bti(\2)[\6,\7]:a32  \10  %null", stores),
    ]


def image(name, w, h, order="CL_R"):
    return {"name": name, "kind": "image", "dtype": "uint32", "is_output": True,
            "image": {"type": "2d", "width": w, "height": h, "channel_order": order,
                      "channel_type": "CL_UNSIGNED_INT32"}}


INPUTS = {
    "q_src": [rng.getrandbits(32) for _ in range(16 * 4 * 4)],
    "q_dst": [rng.getrandbits(32) for _ in range(16 * 4 * 4)],
    "a_inc": [rng.choice([0, 1, 0xffffffff, rng.getrandbits(32)]) for _ in range(16 * 4)],
    "a_cas": [rng.randint(0, 15) for _ in range(16 * 4)],
    "a_add": [rng.getrandbits(32) for _ in range(4 * 3)],
    "a_max": [rng.getrandbits(32) for _ in range(5)],
    "v": [rng.getrandbits(32) for _ in range(N)],
    "old_inc": [0] * N,
    "old_cas": [0] * N,
}
ARGS = [
    image("q_src", 16, 4, "CL_RGBA"),
    image("q_dst", 16, 4, "CL_RGBA"),
    image("a_inc", 16, 4),
    image("a_cas", 16, 4),
    image("a_add", 4, 3),
    image("a_max", 5, 1),
    {"name": "v", "kind": "buffer", "dtype": "uint32", "is_output": False},
    {"name": "old_inc", "kind": "buffer", "dtype": "uint32", "is_output": True},
    {"name": "old_cas", "kind": "buffer", "dtype": "uint32", "is_output": True},
]
ARGS[0]["is_output"] = False


def signed(x):
    return struct.unpack("<i", struct.pack("<I", x & 0xffffffff))[0]


def expected(inp):
    q = list(inp["q_dst"])
    inc, cas = list(inp["a_inc"]), list(inp["a_cas"])
    add, mx = list(inp["a_add"]), list(inp["a_max"])
    old_inc, old_cas = [0] * N, [0] * N
    for g in range(N):
        x, y = g % 16, g // 16
        t = y * 16 + x
        for ch in (0, 2, 3):  # .xzw: Y keeps q_dst's value
            q[4 * t + ch] = inp["q_src"][4 * t + ch]
        old_inc[g], inc[t] = inc[t], (inc[t] + 1) & 0xffffffff
        old_cas[g] = cas[t]
        if cas[t] == x:  # lsc icas: compare src1 (U = x), new src2 (V = y)
            cas[t] = y
        v = inp["v"][g]
        t = (g % 3) * 4 + g % 4
        add[t] = (add[t] + v) & 0xffffffff
        m = (v * 7) & 0xffffffff
        if signed(m) > signed(mx[g % 5]):
            mx[g % 5] = m
    return {"q_dst": q, "a_inc": inc, "a_cas": cas, "a_add": add, "a_max": mx,
            "old_inc": old_inc, "old_cas": old_cas}
