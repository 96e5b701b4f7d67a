"""One SIMD thread per group of 16: pass k of every channel precedes pass k + 1."""
import random

KERNEL = "slm_passes_apart"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [16]
L, G, N = 16, 4, 8
NDRANGE = {"work_dim": 1, "global_size": [L * G], "local_size": [L], "global_offset": [0]}
rng = random.Random(20261126)
INPUTS = {
    "a": [rng.randrange(-1000, 1000) for _ in range(L * G)],
    "o": [0] * (L * G),
}
ARGS = [
    {"name": "a", "kind": "buffer", "dtype": "int32", "is_output": False},
    {"name": "o", "kind": "buffer", "dtype": "int32", "is_output": True},
    {"name": "n", "kind": "scalar", "dtype": "int32", "value": N},
]


def expected(inp):
    o = []
    for g in range(G):
        s = [0] * (16 * 10)
        s[:L] = inp["a"][g * L:(g + 1) * L]
        for k in range(N):
            v = [s[16 * k + l] for l in range(L)]
            for l in range(L):
                s[16 * (k + 1) + l + 1] = v[l] + k
        o += [s[16 * N + l] for l in range(L)]
    return {"o": o}
