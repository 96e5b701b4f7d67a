"""Double builtins that OpenCL specifies exactly, against exact models (the float
case's, math_exact_bits, in binary64): remainder and remquo, frexp, ldexp (into the
denormals, overflow), nextafter, copysign, logb, modf, over double denormals, the IEEE
specials (frexp(-0) is +0 in IGC's library, as for float), exact-half quotients and
exponents up to 2^1000 apart, on skl and pvc (IGC's double routines on 64-bit integers)."""
import math
import os
import random
import struct
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tools"))
from exact_round import DOUBLE, exact_builtin_args, exact_builtins_expected  # noqa: E402

KERNEL = "math_exact_double"
DEVICES = ["skl", "pvc"]
FORCED_SIMD = []
N = 512
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}

rng = random.Random(20261201)
DEN = 5e-324
MAX = 1.7976931348623157e308


def bits_d(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


SPECIAL = [(0.0, 1.0), (-0.0, 1.0), (1.0, 0.0), (-1.0, -0.0), (math.inf, 2.0), (-math.inf, 2.0),
           (2.0, math.inf), (-3.0, -math.inf), (math.nan, 1.0), (1.0, math.nan), (0.0, 0.0),
           (DEN, 1.0), (-DEN, -1.0), (DEN, DEN), (3 * DEN, 2 * DEN), (5 * DEN, 2 * DEN),
           (2.0 ** -1022, DEN), (1.0, DEN), (MAX, 1.0), (MAX, DEN), (MAX, -MAX), (5.0, 2.0),
           (7.0, 2.0), (-5.0, 2.0), (9.0, -2.0), (2.5, 1.0), (3.5, 1.0), (-2.5, 1.0), (1e300, 3.0),
           (3.0, 1e300), (1.0, 1.0), (DEN, 0.0), (0.0, DEN), (-0.0, -DEN), (MAX, math.inf),
           (1.5, -0.0), (0.1, 0.01), (100.0, 0.1), (1e-300, 1e-310), (2.0 ** 1000, 2.0 ** -1000)]
A = [x for x, _ in SPECIAL]
B = [y for _, y in SPECIAL]
while len(A) < 140:  # exact half quotients: remainder's ties
    y = rng.choice([-1, 1]) * 2.0 ** rng.uniform(-200, 200)
    k = rng.randrange(0, 1 << 20)
    x = (k + 0.5) * y * rng.choice([-1, 1])
    if abs(Fraction(x) / Fraction(y)) == Fraction(2 * k + 1, 2):
        A.append(x)
        B.append(y)
while len(A) < 260:  # denormals on either side
    A.append(bits_d(rng.randrange(1, 1 << 52) | rng.choice([0, 1 << 63])))
    B.append(rng.choice([-1, 1]) * 2.0 ** rng.uniform(-1074, 10))
while len(A) < 400:  # exponents far apart
    A.append(rng.choice([-1, 1]) * 2.0 ** rng.uniform(-1060, 1023))
    B.append(rng.choice([-1, 1]) * 2.0 ** rng.uniform(-1060, 1023))
while len(A) < N:
    A.append(rng.uniform(-1e6, 1e6))
    B.append(rng.uniform(-10, 10))
NS = [0, 1, -1, 1023, -1022, -1074, -1075, 2000, -2000, 2046, -3000, 2147483647, -2147483647 - 1]
NN = [NS[i] if i < len(NS) else rng.choice([rng.randrange(-2100, 2100), rng.randrange(-30, 30)])
      for i in range(N)]

ARGS = exact_builtin_args("float64")
INPUTS = {"a": A, "b": B, "n": NN}
for a in ARGS:
    if a["is_output"]:
        INPUTS[a["name"]] = [0] * N


def expected(inputs):
    return exact_builtins_expected(inputs, DOUBLE)
