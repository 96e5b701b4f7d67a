"""cl_khr_subgroups (built with -cl-std=CL2.0) where sub-groups are partial: 50-item
groups (the last sub-group of each holds 50 mod the SIMD width items) in a 120-item
NDRange (the last group holds 20: non-uniform work-groups). Sub-groups are the SIMD
threads of a group (IGC's), so the model fixes the width at 16, the one IGC picks for
this kernel on both devices; expected values follow from the definitions (PoCL 3.1 here
compiles OpenCL C 1.2 only)."""
import random

KERNEL = "subgroup_partial"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [16]
OCLOC_OPTIONS = "-cl-std=CL2.0"
N, L = 120, 50
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [L], "global_offset": [0]}
rng = random.Random(127)
A = [rng.randint(-100, 100) for _ in range(N)]
INPUTS = {"a": A, "out": [0] * (8 * N)}
ARGS = [
    {"name": "a", "kind": "buffer", "dtype": "int32", "is_output": False},
    {"name": "out", "kind": "buffer", "dtype": "int32", "is_output": True},
]
SIMD = 16
INT_MAX = (1 << 31) - 1


def expected(inputs):
    a = inputs["a"]
    out = [0] * (8 * N)
    for start in range(0, N, L):
        items = list(range(start, min(start + L, N)))
        nsg = -(-len(items) // SIMD)
        for s in range(nsg):
            sgi = items[s * SIMD:(s + 1) * SIMD]
            xs = [a[i] for i in sgi]
            flags = int(any(x > 95 for x in xs)) | int(all(x > -95 for x in xs)) << 1
            for k, i in enumerate(sgi):
                out[i * 8 + 0] = len(sgi) | SIMD << 8 | nsg << 16 | s << 24
                out[i * 8 + 1] = k
                out[i * 8 + 2] = sum(xs)
                out[i * 8 + 3] = max(xs)
                out[i * 8 + 4] = min(xs[: k + 1])
                out[i * 8 + 5] = sum(xs[:k])
                out[i * 8 + 6] = xs[1]
                out[i * 8 + 7] = flags
    return {"out": out}
