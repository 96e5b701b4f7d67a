"""GATHER / SCATTER (0x39/0x3a): IGC (tgllp) reads and writes uchar/ushort elements with
gather_scaled/scatter_scaled of one and two bytes at byte offsets; PATCH rewrites them
into GATHER/SCATTER, whose offsets count elements of Elt_size bytes from Global_offset
(1-byte: the same offsets; 2-byte: the byte offsets halved by an inserted shr, exact
for the even addresses of a ushort buffer). Num_elts carries the element count and the
mask control (M1: 0x0_, M5: 0x4_)."""
import random

KERNEL = "byte_gather"
DEVICES = ["tgllp"]
FORCED_SIMD = [16, 8]
N = 256
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}
rng = random.Random(20261128)

PATCH_NOTE = ("gather.E.N / scatter.E.N from IGC's gather_scaled.1/.2 and scatter_scaled.1/.2 "
              "(tools/make_case.py PATCH)")


def PATCH(width):
    n = min(width, 16)
    count = {8: 0, 16: 1}[n]
    masks = ["M1"] if width <= 16 else ["M1", "M5"]
    rules = []
    for m in masks:
        ne = "0x%x" % ((0 if m == "M1" else 4) << 4 | count)
        for op in ("gather", "scatter"):
            rules.append((r"%s_scaled\.1 \(%s, %d\) (T\d+) (\S+) (\S+)\.0 (\S+)" % (op, m, n),
                          r"%s.0.%s \1 \2 \3.0 \4" % (op, ne), 1))
            rules.append((r"%s_scaled\.2 \(%s, %d\) (T\d+) (\S+) (\S+)\.0 (\S+)" % (op, m, n),
                          r"shr (%s, %d) \3(0,0)<1> \3(0,0)<1;1,0> 0x1:ud\n    %s.1.%s \1 \2 \3.0 \4"
                          % (m, n, op, ne), 1))
    return rules


INPUTS = {
    "src": [rng.getrandbits(8) for _ in range(N)],
    "dst": [0] * N,
    "hs": [0] * N,
    "hsrc": [rng.getrandbits(16) for _ in range(N)],
}
ARGS = [
    {"name": "src", "kind": "buffer", "dtype": "uint8", "is_output": False},
    {"name": "dst", "kind": "buffer", "dtype": "uint8", "is_output": True},
    {"name": "hs", "kind": "buffer", "dtype": "uint16", "is_output": True},
    {"name": "hsrc", "kind": "buffer", "dtype": "uint16", "is_output": False},
]


def expected(inp):
    dst = [(inp["src"][(i * 7) % 256] + 1) & 0xff for i in range(N)]
    hs = [0] * N
    for i in range(N):
        hs[(i * 5) % 256] = inp["hsrc"][i] ^ 0x5a5a
    return {"dst": dst, "hs": hs}
