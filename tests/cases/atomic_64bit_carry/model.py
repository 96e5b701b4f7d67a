"""64-bit atomic adds under contention, each carrying into the high word."""

KERNEL = "atomic_64bit_carry"
DEVICES = ["tgllp"]
N = 4096
REPS = 16
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}
M64 = (1 << 64) - 1
INPUTS = {"acc": [0x0000000080000000, 0]}
ARGS = [
    {"name": "acc", "kind": "buffer", "dtype": "uint64", "is_output": True},
    {"name": "reps", "kind": "scalar", "dtype": "uint32", "value": REPS},
]


def expected(inp):
    a0, a1 = inp["acc"]
    k = N * REPS
    return {"acc": [(a0 + k * 0xFFFFFFFF) & M64, (a1 + k * 0x100000001) & M64]}
