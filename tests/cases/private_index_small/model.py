"""A four-int private array indexed by data. IGC keeps it in registers (a row of lane
elements per array element) and writes `t[j] += i` as one register-indirect move per
channel, each enabled for its channel alone by a one-hot `setp`: the straight lane
form's indirect destinations (translate/indirect_operands.rs)."""
import random

KERNEL = "private_index_small"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8, 16]
N, L = 64, 32
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [L], "global_offset": [0]}
rng = random.Random(20261207)

A = [rng.randint(-100000, 100000) for _ in range(256)]
INPUTS = {"a": A, "o": [0] * N}
ARGS = [
    {"name": "a", "kind": "buffer", "dtype": "int32", "is_output": False},
    {"name": "o", "kind": "buffer", "dtype": "int32", "is_output": True},
]


def expected(inputs):
    a = inputs["a"]
    out = []
    for i in range(N):
        t = [a[(i + k) & 255] ^ k for k in range(4)]
        j = t[0] & 3
        t[j] += i
        v = t[(j + 1) & 3] * 3 + t[j]
        out.append(((v + 2**31) % 2**32) - 2**31)
    return {"o": out}
