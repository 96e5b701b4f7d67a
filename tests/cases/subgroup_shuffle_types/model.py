"""intel_sub_group_shuffle / shuffle_xor on long, ushort and float at SIMD32 (Python model:
lane permutations within each 32-item sub-group)."""
import random, struct

KERNEL = "subgroup_shuffle_types"
DEVICES = ["tgllp", "acm-g10"]
N = 256
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}
rng = random.Random(3)
F = [struct.unpack("<f", struct.pack("<f", rng.uniform(-100, 100)))[0] for _ in range(N)]
INPUTS = {
    "a": [rng.randint(-(1 << 62), 1 << 62) for _ in range(N)],
    "b": [rng.randint(0, 65535) for _ in range(N)],
    "f": F,
    "o_l": [0] * N, "o_s": [0] * N, "o_f": [0.0] * N,
}
ARGS = [
    {"name": "a", "kind": "buffer", "dtype": "int64", "is_output": False},
    {"name": "b", "kind": "buffer", "dtype": "uint16", "is_output": False},
    {"name": "f", "kind": "buffer", "dtype": "float32", "is_output": False},
    {"name": "o_l", "kind": "buffer", "dtype": "int64", "is_output": True},
    {"name": "o_s", "kind": "buffer", "dtype": "uint16", "is_output": True},
    {"name": "o_f", "kind": "buffer", "dtype": "float32", "is_output": True},
]


def s64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def expected(inp):
    a, b, f = inp["a"], inp["b"], inp["f"]
    ol, os_, of = [], [], []
    for i in range(N):
        base, lid = i - i % 32, i % 32
        ol.append(s64(a[base + ((lid * 7 + 3) & 31)] + a[base + (lid ^ 5)]))
        os_.append((b[base + 31 - lid] ^ b[base + (lid ^ 16)]) & 0xFFFF)
        of.append(f[base + ((lid + 11) & 31)])
    return {"o_l": ol, "o_s": os_, "o_f": of}
