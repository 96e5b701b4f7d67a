"""Per-lane loops before, between and after barriers, and a return after the last
barrier; an exact Python model of the OpenCL C code."""
import random

KERNEL = "barrier_loops_between"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8, 16, 32]
N = 256
L = 64
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [L], "global_offset": [0]}
M = 0xFFFFFFFF

rng = random.Random(20261129)
A = [rng.randrange(1 << 32) for _ in range(N)]
A[:8] = [0, 1, 7, 0xFFFFFFFF, 8, 15, 0x38, 0x3F]
INPUTS = {"a": A, "out": [0] * N, "out2": [0] * N}
ARGS = [{"name": "a", "kind": "buffer", "dtype": "uint32", "is_output": False},
        {"name": "out", "kind": "buffer", "dtype": "uint32", "is_output": True},
        {"name": "out2", "kind": "buffer", "dtype": "uint32", "is_output": True}]


def expected(inputs):
    a = inputs["a"]
    out, out2 = list(inputs["out"]), list(inputs["out2"])
    for g0 in range(0, N, L):
        accs, s = [], [0] * L
        for l in range(L):
            v = a[g0 + l]
            acc = v
            for k in range(v & 7):
                acc = (acc * 3 + k) & M
            accs.append(acc)
            s[l] = acc
        ws = []
        for l in range(L):
            t = s[(l + 1) & 63]
            w = t
            for k in range((t >> 3) & 7):
                w ^= ((w << 5) + k) & M
            ws.append(w)
        s = ws
        for l in range(L):
            g = g0 + l
            u = s[63 - l]
            out[g] = (u + accs[l]) & M
            if u & 1:
                continue
            for k in range(u & 3):
                u = (u * 5 + 1) & M
            out2[g] = u
    return {"out": out, "out2": out2}
