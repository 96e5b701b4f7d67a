"""Float builtins that OpenCL specifies exactly, against exact models: remainder and
remquo (IEEE remainder, the quotient's sign and low three bits), frexp, ldexp (results
rounded into the denormals, overflow), nextafter, copysign, logb, modf. Arguments run
over float denormals (IGC keeps them), the IEEE specials (frexp(-0) is +0 in IGC's
library, which the model follows), pairs whose quotient is an
exact half (remainder's ties to even) and exponents far apart."""
import math
import os
import random
import struct
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tools"))
from exact_round import FLOAT, exact_builtin_args, exact_builtins_expected, f32  # noqa: E402

KERNEL = "math_exact_bits"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = []
N = 512
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}

rng = random.Random(20261130)
DEN = 2.0 ** -149
F32_MAX = 3.4028234663852886e38


def bits_f(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


SPECIAL = [(0.0, 1.0), (-0.0, 1.0), (1.0, 0.0), (-1.0, -0.0), (math.inf, 2.0), (-math.inf, 2.0),
           (2.0, math.inf), (-3.0, -math.inf), (math.nan, 1.0), (1.0, math.nan), (0.0, 0.0),
           (DEN, 1.0), (-DEN, -1.0), (DEN, DEN), (3 * DEN, 2 * DEN), (5 * DEN, 2 * DEN),
           (2.0 ** -126, DEN), (1.0, DEN), (F32_MAX, 1.0), (F32_MAX, DEN), (F32_MAX, -F32_MAX),
           (5.0, 2.0), (7.0, 2.0), (-5.0, 2.0), (9.0, -2.0), (2.5, 1.0), (3.5, 1.0), (-2.5, 1.0),
           (1e30, 3.0), (3.0, 1e30), (1.0, 1.0), (1.0, 2.0), (2.0, 1.0), (DEN, 0.0), (0.0, DEN),
           (-0.0, -DEN), (F32_MAX, math.inf), (1.5, -0.0), (0.1, 0.01), (100.0, 0.1)]
A = [f32(x) if math.isfinite(x) else x for x, _ in SPECIAL]
B = [f32(y) if math.isfinite(y) else y for _, y in SPECIAL]
while len(A) < 140:  # exact half quotients: remainder's ties
    y = f32(rng.choice([-1, 1]) * 2.0 ** rng.uniform(-20, 20))
    k = rng.randrange(0, 64)
    x = f32((k + 0.5) * y * rng.choice([-1, 1]))
    if Fraction(x) / Fraction(y) == Fraction(2 * k + 1, 2) * (1 if x / y > 0 else -1):
        A.append(x)
        B.append(y)
while len(A) < 260:  # denormals on either side
    A.append(bits_f(rng.randrange(1, 0x800000) | rng.choice([0, 0x80000000])))
    B.append(f32(rng.choice([-1, 1]) * 2.0 ** rng.uniform(-149, 10)))
while len(A) < 400:  # exponents far apart
    A.append(f32(rng.choice([-1, 1]) * 2.0 ** rng.uniform(-140, 127)))
    B.append(f32(rng.choice([-1, 1]) * 2.0 ** rng.uniform(-140, 127)))
while len(A) < N:
    A.append(f32(rng.uniform(-1000, 1000)))
    B.append(f32(rng.uniform(-10, 10)))
NS = [0, 1, -1, 127, -126, -149, -150, 200, -200, 254, -300, 2147483647, -2147483647 - 1]
NN = [NS[i] if i < len(NS) else rng.choice([rng.randrange(-300, 300), rng.randrange(-30, 30)])
      for i in range(N)]

ARGS = exact_builtin_args("float32")
INPUTS = {"a": A, "b": B, "n": NN}
for a in ARGS:
    if a["is_output"]:
        INPUTS[a["name"]] = [0] * N


def expected(inputs):
    return exact_builtins_expected(inputs, FLOAT)
