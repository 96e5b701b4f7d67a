"""64-bit atomics on SLM under contention: every add carries into the high word, and
a compare-and-swap loop adds too; max and xor do not depend on the order."""

KERNEL = "atomic_64bit_local"
DEVICES = ["tgllp", "pvc"]
GROUPS = 8
LOCAL = 64
N = GROUPS * LOCAL
REPS = 16
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [LOCAL], "global_offset": [0]}
M64 = (1 << 64) - 1
INPUTS = {"out": [0] * (GROUPS * 5)}
ARGS = [
    {"name": "out", "kind": "buffer", "dtype": "uint64", "is_output": True},
    {"name": "reps", "kind": "scalar", "dtype": "uint32", "value": REPS},
]


def expected(inp):
    out = []
    for g in range(GROUPS):
        ids = range(g * LOCAL, (g + 1) * LOCAL)
        x = 0
        for i in ids:
            x ^= (i * 0x9E3779B97F4A7C15) & M64
        out += [
            (0x80000000 + LOCAL * REPS * 0xFFFFFFFF) & M64,
            (LOCAL * REPS * 0x100000001) & M64,
            max((i << 32) | (i - g * LOCAL) for i in ids),
            x,
            (LOCAL * 0xFFFFFFFF) & M64,
        ]
    return {"out": out}
