"""OpenCL 2.0 C11-style atomics (built with -cl-std=CL2.0): fetch_or/add/min/xor with
explicit memory orders and scopes on global memory, compare-exchange loops (strong on
global, weak on local) raising maxima, local atomics published after a barrier with
both fences. Every final value is the same in any order of the work-items. Expected
values follow from the definitions (PoCL 3.1 here compiles OpenCL C 1.2 only)."""
import random

KERNEL = "c11_atomics"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8]
OCLOC_OPTIONS = "-cl-std=CL2.0"
N, L = 96, 32
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [L], "global_offset": [0]}
rng = random.Random(20261127)
IN = [rng.randint(-5000, 5000) for _ in range(N)]
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
INPUTS = {"in": IN, "acc": [0, 7, INT_MIN, INT_MAX, 0x5a5a5a5a], "out": [0] * (2 * (N // L))}
ARGS = [
    {"name": "in", "kind": "buffer", "dtype": "int32", "is_output": False},
    {"name": "acc", "kind": "buffer", "dtype": "int32", "is_output": True},
    {"name": "out", "kind": "buffer", "dtype": "int32", "is_output": True},
]


def wrap(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >> 31 else x


def expected(inputs):
    a = inputs["in"]
    acc = list(inputs["acc"])
    bits = 0
    for g in range(N):
        bits |= 1 << (g & 31)
    acc[0] = wrap(acc[0] | bits)
    acc[1] = wrap(acc[1] + sum(a))
    acc[2] = max([acc[2]] + a)
    acc[3] = min([acc[3]] + a)
    x = acc[4]
    for v in a:
        x ^= v
    acc[4] = wrap(x)
    out = []
    for grp in range(N // L):
        vs = a[grp * L:(grp + 1) * L]
        out += [max(vs), sum(v & 0xFF for v in vs)]
    return {"acc": acc, "out": out}
