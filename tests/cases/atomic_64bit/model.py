"""64-bit global atomics: the final values do not depend on the order of the atomics."""
import random

KERNEL = "atomic_64bit"
DEVICES = ["tgllp", "acm-g10"]
N = 512
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}
rng = random.Random(20261122)
M64 = (1 << 64) - 1
INPUTS = {
    "a": [rng.randint(-(1 << 40), 1 << 40) for _ in range(N)],
    "acc": [0, (1 << 63) - 1, -(1 << 63), 0],
    "bits": [0, 0],
}
ARGS = [
    {"name": "a", "kind": "buffer", "dtype": "int64", "is_output": False},
    {"name": "acc", "kind": "buffer", "dtype": "int64", "is_output": True},
    {"name": "bits", "kind": "buffer", "dtype": "uint64", "is_output": True},
]


def wrap(v):
    v &= M64
    return v - (1 << 64) if v >> 63 else v


def expected(inp):
    a = inp["a"]
    orv, xorv = 0, 0
    for x in a:
        orv |= 1 << (x & 63)
        xorv ^= ((x & M64) * 0x9E3779B97F4A7C15) & M64
    return {"acc": [wrap(sum(a)), min(a), max(a), len(a)], "bits": [orv, xorv]}
