"""One thread per group of 16: each round's reads all precede its writes (SIMD order)."""
import random

KERNEL = "slm_rounds_overlap"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [16]
L, G = 16, 4
START = 8
NDRANGE = {"work_dim": 1, "global_size": [L * G], "local_size": [L], "global_offset": [0]}
rng = random.Random(20261125)
INPUTS = {
    "a": [rng.randrange(-1000, 1000) for _ in range(L * G)],
    "o": [0] * (L * G),
}
ARGS = [
    {"name": "a", "kind": "buffer", "dtype": "int32", "is_output": False},
    {"name": "o", "kind": "buffer", "dtype": "int32", "is_output": True},
    {"name": "start", "kind": "scalar", "dtype": "int32", "value": START},
]


def wrap(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >> 31 else x


def expected(inp):
    o = []
    for g in range(G):
        s = list(inp["a"][g * L:(g + 1) * L])
        off = START
        while off > 0:
            v = list(s)
            for l in range(L):
                if l + off < L:
                    s[l + off] = wrap(v[l] * 3 + off)
            off >>= 1
        o += s
    return {"o": o}
