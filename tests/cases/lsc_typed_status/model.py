"""lsc_load_status on a typed surface (LSC_TYPED sub-op 0x1B), which IGC does not emit
for OpenCL: PATCH rewrites its typed read of img(cx[g], cy[g]) (legacy load_lz.R after
the `movs` that sets its surface) into a status load (bit n of the first dword: channel
n enabled and its texel inside the image at LOD 0). Element 0 is broadcast and lane n
keeps bit n, so status[g] = (cx[g], cy[g]) inside the 13 x 5 image at any SIMD width;
coordinates reach past every edge, negative ones included."""
import random

KERNEL = "lsc_typed_status"
DEVICES = ["acm-g10"]
# SIMD8 besides IGC's SIMD16, so lavapipe compiles it quickly in CI.
FORCED_SIMD = [8]
N = 64
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [16], "global_offset": [0]}
W, H = 13, 5
rng = random.Random(20261125)

MOVS = r"(movs \(M1_NM, 1\) T6\(0\) (0x[0-9a-f]+):ud[^\n]*\n)(\s*)"
LOAD = r"load_lz\.R \((M\d), (\d+)\)\s+0x0:uw T6 (\S+) (\S+) (\S+)"
PATCH_NOTE = ("lsc_load_status.tgm of img instead of IGC's typed read "
              "(tools/make_case.py PATCH)")


def PATCH(width):
    return [
        (MOVS + LOAD, r"\1\3lsc_load_status.tgm (\4, \5)  \6:d32  bti(\2)[\7,\8]:a32", 1),
    ]


CX = [rng.randrange(-3, W + 3) for _ in range(N)]
CY = [rng.randrange(-2, H + 2) for _ in range(N)]
INPUTS = {
    "img": [rng.getrandbits(32) for _ in range(W * H)],
    "cx": CX,
    "cy": CY,
    "status": [0x5555] * N,
}
ARGS = [
    {"name": "img", "kind": "image", "dtype": "uint32", "is_output": False,
     "image": {"type": "2d", "width": W, "height": H, "channel_order": "CL_R",
               "channel_type": "CL_UNSIGNED_INT32"}},
    {"name": "cx", "kind": "buffer", "dtype": "int32", "is_output": False},
    {"name": "cy", "kind": "buffer", "dtype": "int32", "is_output": False},
    {"name": "status", "kind": "buffer", "dtype": "uint32", "is_output": True},
]


def expected(inp):
    return {"status": [int(0 <= x < W and 0 <= y < H) for x, y in zip(inp["cx"], inp["cy"])]}
