"""Float arithmetic on literals, each operation rounded on its own (float32 and
float64): multiplications by zero keep the sign and give NaN for infinities, adding
+0 turns -0 into +0, and the round-to-integer idiom rounds at every step."""
import math
import random
import struct

KERNEL = "float_literals"
DEVICES = ["skl", "pvc"]
N = 256
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}


def f32(v):
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


rng = random.Random(20261128)
SPECIAL = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 0.5, -0.5, 1.5, -2.5,
           -1076.0, 3.0e38, -3.0e38]
A = SPECIAL[:]
while len(A) < N:
    A.append(f32(rng.choice([-1, 1]) * rng.uniform(0, 10 ** rng.uniform(-3, 6))))
D = SPECIAL[:]
while len(D) < N:
    D.append(rng.choice([-1, 1]) * rng.uniform(0, 10 ** rng.uniform(-3, 12)))
A = [f32(v) for v in A]
OUTS = [("o_mul0", "float32"), ("o_add0", "float32"), ("o_round", "float32"),
        ("o_chain", "float32"), ("o_dmul0", "float64"), ("o_dround", "float64")]
INPUTS = {o: [0.0] * N for o, _ in OUTS}
INPUTS["a"] = A
INPUTS["d"] = D
ARGS = [{"name": o, "kind": "buffer", "dtype": t, "is_output": True} for o, t in OUTS]
ARGS += [{"name": "a", "kind": "buffer", "dtype": "float32", "is_output": False},
         {"name": "d", "kind": "buffer", "dtype": "float64", "is_output": False}]


def mul(x, y):
    """IEEE multiplication (Python raises nothing, but inf * 0 must be NaN)."""
    if (math.isinf(x) and y == 0) or (math.isinf(y) and x == 0):
        return math.nan
    return x * y


def expected(inp):
    a, d = inp["a"], inp["d"]
    c1, c2 = 12582912.0, 6755399441055744.0
    return {
        "o_mul0": [f32(mul(x, 0.0)) for x in a],
        "o_add0": [f32(x + 0.0) for x in a],
        "o_round": [f32(f32(f32(x + c1) - c1) - 0.5) for x in a],
        "o_chain": [f32(f32(f32(x * 3.0) * f32(0.1)) + f32(1e-3)) for x in a],
        "o_dmul0": [mul(y, 0.0) for y in d],
        "o_dround": [((y + c2) - c2) - 0.5 for y in d],
    }
