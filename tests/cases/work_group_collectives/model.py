"""OpenCL 2.0 work-group collectives (built with -cl-std=CL2.0): reduce add/min/max,
inclusive and exclusive scans, broadcast, any and all, over int and float, in groups of
32 of a 100-item NDRange whose last group holds 4 items (non-uniform work-groups). The
floats are small integers, so every order of their additions gives the same bits.
Expected values follow from the OpenCL 2.0 definitions."""
import random

KERNEL = "work_group_collectives"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8, 32]
OCLOC_OPTIONS = "-cl-std=CL2.0"
N, L = 100, 32
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [L], "global_offset": [0]}
rng = random.Random(20261127)
A = [rng.randint(-100, 100) for _ in range(N)]
F = [float(rng.randint(-1000, 1000)) for _ in range(N)]
INPUTS = {"a": A, "f": F, "out_i": [0] * (6 * N), "out_f": [0.0] * (2 * N)}
ARGS = [
    {"name": "a", "kind": "buffer", "dtype": "int32", "is_output": False},
    {"name": "f", "kind": "buffer", "dtype": "float32", "is_output": False},
    {"name": "out_i", "kind": "buffer", "dtype": "int32", "is_output": True},
    {"name": "out_f", "kind": "buffer", "dtype": "float32", "is_output": True},
]
INT_MIN = -(1 << 31)


def expected(inputs):
    a, f = inputs["a"], inputs["f"]
    oi, of = [0] * (6 * N), [0.0] * (2 * N)
    for start in range(0, N, L):
        items = list(range(start, min(start + L, N)))
        xs = [a[i] for i in items]
        any_ = int(any(x > 90 for x in xs))
        all_ = int(all(x > -95 for x in xs))
        for k, i in enumerate(items):
            oi[i * 6 + 0] = sum(xs)
            oi[i * 6 + 1] = min(xs)
            oi[i * 6 + 2] = max(xs)
            oi[i * 6 + 3] = sum(xs[: k + 1])
            oi[i * 6 + 4] = max(xs[:k]) if k else INT_MIN
            oi[i * 6 + 5] = xs[3] + (any_ << 20) + (all_ << 21)
            of[i * 2 + 0] = sum(f[j] for j in items)
            of[i * 2 + 1] = max(f[j] for j in items[: k + 1])
    return {"out_i": oi, "out_f": of}
