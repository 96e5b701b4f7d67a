"""One SIMD8 thread: every read of a precedes every atomic (vISA's SIMD order)."""
import random

KERNEL = "atomic_flat_alias"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8]
N = 8
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [N], "global_offset": [0]}
rng = random.Random(20261125)
INPUTS = {
    "idx": [rng.randrange(N) for _ in range(N)],
    "a": [rng.randrange(1000) for _ in range(N)],
    "out": [0] * N,
}
ARGS = [
    {"name": "idx", "kind": "buffer", "dtype": "uint32", "is_output": False},
    {"name": "a", "kind": "buffer", "dtype": "uint32", "is_output": True},
    {"name": "out", "kind": "buffer", "dtype": "uint32", "is_output": True},
]


def expected(inp):
    a = list(inp["a"])
    out = list(a)
    for j in inp["idx"]:
        a[j] += 1
    return {"a": a, "out": out}
