"""OpenCL 2.0 generic pointers and program-scope globals (built with -cl-std=CL2.0): a
function on a generic pointer reads local memory for odd work-items and global memory
for even ones, to_local/to_global classify it, and program-scope global variables are
read (an initialized float table) and written then read back. Expected values follow
from the kernel's definition (PoCL 3.1 here compiles OpenCL C 1.2 only)."""
import random

KERNEL = "generic_pointers"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8]
OCLOC_OPTIONS = "-cl-std=CL2.0"
N, L = 64, 32
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [L], "global_offset": [0]}
rng = random.Random(391127)
IN = [rng.randint(-1000, 1000) for _ in range(N)]
INPUTS = {"in": IN, "out": [0] * (3 * N), "fout": [0.0] * N}
ARGS = [
    {"name": "in", "kind": "buffer", "dtype": "int32", "is_output": False},
    {"name": "out", "kind": "buffer", "dtype": "int32", "is_output": True},
    {"name": "fout", "kind": "buffer", "dtype": "float32", "is_output": True},
]
TABLE = [1.5, -2.0, 0.25, 8.0]


def expected(inputs):
    a = inputs["in"]
    out, fout = [0] * (3 * N), [0.0] * N
    for g in range(N):
        l = g % L
        base = g - l
        if l & 1:
            vals = [a[base + (l & ~3) + i] * 2 for i in range(4)]
        else:
            vals = [a[(g & ~3) + i] for i in range(4)]
        out[g * 3 + 0] = sum(v * (i + 1) for i, v in enumerate(vals))
        out[g * 3 + 1] = 1 if l & 1 else 2
        out[g * 3 + 2] = (a[g] + l) * 3
        fout[g] = TABLE[g & 3] * l
    return {"out": out, "fout": fout}
