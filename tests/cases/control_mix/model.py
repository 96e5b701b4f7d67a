"""Divergent loops with break/continue at two depths, a goto out of both, a sparse
switch with fall-through, a Collatz do-while and a return from inside a loop; an exact
Python model of the OpenCL C code."""
import random

KERNEL = "control_mix"
DEVICES = ["tgllp", "acm-g10"]
# SIMD32 is left out: IGC splits a SIMD32 subroutine call into two calls, one per half,
# and its callee writes only the first half's result (the defect noinline_calls/*-simd32
# shows, tests/known_disagreements.txt).
FORCED_SIMD = [16]
N = 256
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}
M = 0xFFFFFFFF

rng = random.Random(20261128)
A = [rng.randrange(1 << 32) for _ in range(N)]
A[:8] = [0, 1, 0xFFFFFFFF, 0xAAAAAAAA, 27, 0x55555555, 7, 0x10]
INPUTS = {"a": A, "o_loop": [0] * N, "o_switch": [0] * N, "o_do": [0] * N,
          "o_exit": [0] * N}
ARGS = [{"name": "a", "kind": "buffer", "dtype": "uint32", "is_output": False}]
ARGS += [{"name": o, "kind": "buffer", "dtype": "uint32", "is_output": True}
         for o in ["o_loop", "o_switch", "o_do", "o_exit"]]


def mix_step(v, k):
    for j in range(k & 3):
        v = (v * 3 + 1) & M if (v ^ j) & 1 else v >> 1
    return v


def loop(x):
    acc = 0
    for r in range((x & 7) + 1):
        if ((x >> r) & 3) == 3:
            continue
        for c in range(9):
            if c * r > (x & 31):
                break
            if (c ^ x) & 4:
                acc = (acc + c) & M
                continue
            acc = (acc * 5 + r) & M
            if acc > 100000:
                return acc
        if acc & 0x100:
            acc = mix_step(acc, x >> 3)
    return acc


def switch(x):
    k = (x >> 4) % 23
    sw = 0
    if k in (0, 1):
        sw = (11 if k == 0 else 0) + 13
    elif k in (5, 6):
        sw = ((x * 2) & M if k == 5 else 0) ^ 0xFF
    elif k == 12:
        sw = mix_step(x, 7)
    elif k in (17, 18):
        sw = x >> 9
    elif k == 22:
        sw = 0xDEAD
    else:
        sw = x & 0xFFF
    return sw


def collatz(x):
    v, n = x, 0
    while True:
        v = (v * 3 + 1) & M if v & 1 else v >> 1
        n += 1
        if not (v > 1 and n < 200):
            break
    return (n | (v << 16)) & M


def early(x):
    for k in range(32):
        if ((x >> k) & 0xF) == 0xA:
            return k
    return M


def expected(inputs):
    a = inputs["a"]
    return {"o_loop": [loop(x) for x in a], "o_switch": [switch(x) for x in a],
            "o_do": [collatz(x) for x in a], "o_exit": [early(x) for x in a]}
