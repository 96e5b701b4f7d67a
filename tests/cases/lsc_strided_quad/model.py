"""LSC_UNTYPED lsc_load_quad/lsc_store_quad (.xzw: Y skipped in memory, the enabled
elements packed in the register) and lsc_load_strided/lsc_store_strided (lane i at the
first lane's address plus i times a pitch of 8 bytes) on binding-table surfaces. IGC
emits neither for OpenCL; PATCH rewrites its plain d32x4 and d32 messages into them,
keeping their operands (IGC's own addresses of src[2g] and dst2[2g] are 8 bytes apart
per lane, so the strided forms read and write the same elements whatever the SIMD
width)."""
import random

KERNEL = "lsc_strided_quad"
DEVICES = ["acm-g10"]
# SIMD8 besides IGC's SIMD32: a quarter of the code, so lavapipe compiles it in CI.
FORCED_SIMD = [8]
N = 64
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [32], "global_offset": [0]}
rng = random.Random(20261125)

LD4 = r"lsc_load\.ugm\.ca\.ca \((M\d), (\d+)\)\s+(\S+):d32x4\s+(\S+)"
ST4 = r"lsc_store\.ugm\.wb\.wb \((M\d), (\d+)\)\s+(\S+)\s+(\S+):d32x4"
LD_SRC = r"lsc_load\.ugm\.ca\.ca \((M\d), (\d+)\)\s+(\S+):d32\s+bti\(0x2\)\[(\w+)\]:a32"
ST_DST2 = r"lsc_store\.ugm\.wb\.wb \((M\d), (\d+)\)\s+bti\(0x4\)\[(\w+)\]:a32\s+(\S+):d32"
PATCH_NOTE = ("lsc_load_quad/lsc_store_quad .xzw from IGC's d32x4 copy of src4 to dst4; "
              "lsc_load_strided of src[2g] and lsc_store_strided of dst2[2g] with pitch 8 "
              "(tools/make_case.py PATCH)")


def PATCH(width):
    halves = max(1, width // 16)
    return [
        (LD4, r"lsc_load_quad.ugm.ca.ca (\1, \2)  \3:d32.xzw  \4", halves),
        (ST4, r"lsc_store_quad.ugm.wb.wb (\1, \2)  \3  \4:d32.xzw", halves),
        # The first d32 loads of surface 2 (src) read src[2g]: the kernel's second line.
        (LD_SRC, r"lsc_load_strided.ugm.ca.ca (\1, \2)  \3:d32  bti(0x2)[\4, 0x8]:a32", halves),
        (ST_DST2, r"lsc_store_strided.ugm.wb.wb (\1, \2)  bti(0x4)[\3, 0x8]:a32  \4:d32", halves),
    ]


INPUTS = {
    "src4": [rng.getrandbits(32) for _ in range(4 * N)],
    "dst4": [rng.getrandbits(32) for _ in range(4 * N)],
    "src": [rng.getrandbits(32) for _ in range(2 * N)],
    "dst": [0] * N,
    "dst2": [rng.getrandbits(32) for _ in range(2 * N)],
}
ARGS = [
    {"name": "src4", "kind": "buffer", "dtype": "uint32", "is_output": False},
    {"name": "dst4", "kind": "buffer", "dtype": "uint32", "is_output": True},
    {"name": "src", "kind": "buffer", "dtype": "uint32", "is_output": False},
    {"name": "dst", "kind": "buffer", "dtype": "uint32", "is_output": True},
    {"name": "dst2", "kind": "buffer", "dtype": "uint32", "is_output": True},
]


def expected(inp):
    dst4 = list(inp["dst4"])
    for g in range(N):
        for c in (0, 2, 3):  # x, z, w; y keeps its old value
            dst4[4 * g + c] = inp["src4"][4 * g + c]
    dst = [inp["src"][2 * g] for g in range(N)]
    dst2 = list(inp["dst2"])
    for g in range(N):
        dst2[2 * g] = (inp["src"][g] + 1) & 0xffffffff
    return {"dst4": dst4, "dst": dst, "dst2": dst2}
