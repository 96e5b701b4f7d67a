"""Indirect stack calls (faddr/ifcall/fret): int32/int64 wrapping and exact float32 steps, modelled in Python."""
import random
import struct

KERNEL = "stack_calls"
DEVICES = ["tgllp", "acm-g10"]
# 4 = every call through a function pointer (faddr + ifcall).
IGC_ENV = {"IGC_FunctionControl": "4"}
N = 256
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}
rng = random.Random(20261124)
INPUTS = {
    "a": [rng.randint(-1000, 1000) for _ in range(N)],
    "f": [rng.randint(-4000, 4000) / 16.0 for _ in range(N)],
    "o_i": [0] * N,
    "o_f": [0.0] * N,
    "o_l": [0] * N,
}
ARGS = [
    {"name": "a", "kind": "buffer", "dtype": "int32", "is_output": False},
    {"name": "f", "kind": "buffer", "dtype": "float32", "is_output": False},
    {"name": "o_i", "kind": "buffer", "dtype": "int32", "is_output": True},
    {"name": "o_f", "kind": "buffer", "dtype": "float32", "is_output": True},
    {"name": "o_l", "kind": "buffer", "dtype": "int64", "is_output": True},
]


def i32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def i64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def poly(a, b):
    r = 0
    for k in range(b & 7):
        r = i32(r * a + k)
    return r


def blend(x, y, sel):
    # x * 0.25 and y * 2 are exact, so the fused and unfused forms agree.
    return f32(x * 0.25 - y) if sel else f32(y * 2.0 + x)


def nested(a, b):
    return poly(a, b) ^ poly(b, i32(a + 1))


def wide(x, v):
    return i64(x * i32(v[0] + v[1]) - (v[2] ^ v[3]))


def expected(inp):
    o_i, o_f, o_l = [], [], []
    for i in range(N):
        x = inp["a"][i]
        r = poly(x, i) if x & 1 else i32(nested(i, x) + 1)
        o_i.append(r)
        o_f.append(blend(inp["f"][i], float(x), x > 0))
        o_l.append(wide(x << 20, (x, i, r, x >> 3)))
    return {"o_i": o_i, "o_f": o_f, "o_l": o_l}
