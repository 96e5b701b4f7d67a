"""Dynamic indexing of char/short/int/long private arrays (data-dependent indices)."""
import random

KERNEL = "private_array_types"
DEVICES = ["tgllp", "acm-g10"]
N = 256
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}
rng = random.Random(7)
INPUTS = {"idx": [rng.randint(0, 1 << 20) for _ in range(N)], "out": [0] * N}
ARGS = [
    {"name": "idx", "kind": "buffer", "dtype": "int32", "is_output": False},
    {"name": "out", "kind": "buffer", "dtype": "int64", "is_output": True},
]


def s8(v):
    v &= 0xff
    return v - 256 if v > 127 else v


def s16(v):
    v &= 0xffff
    return v - 65536 if v > 32767 else v


def s32(v):
    v &= 0xffffffff
    return v - (1 << 32) if v >> 31 else v


def s64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def expected(inp):
    out = []
    for i, j in enumerate(inp["idx"]):
        c = [s8(k * 7 + i) for k in range(19)]
        s = [s16(k * 1009 - i) for k in range(23)]
        n = [s32(k * 100003 + i) for k in range(29)]
        l = [s64(k * 10000000019 - i) for k in range(31)]
        c[j % 19] = s8(c[j % 19] + 3)
        s[(j >> 3) % 23] = s16(s[(j >> 3) % 23] ^ 0x5A5A)
        n[(j >> 5) % 29] = s32(n[(j >> 5) % 29] * 3)
        l[(j >> 7) % 31] = s64(l[(j >> 7) % 31] + 1)
        acc = 0
        for k in range(4):
            q = (j + k * 13) & 0x7FFF
            acc = s64(acc * 31 + c[q % 19] + s[q % 23] + n[q % 29] + l[q % 31])
        out.append(acc)
    return {"out": out}
