"""F arithmetic with single-precision denormals flushed (-cl-denorms-are-zero): vISA
flushes F denormals to a zero of the same sign on the input and the output of every
mathematical operation (2_datatypes, IEEE mode), so a denormal times 2^30 is a zero and
two denormals whose exact sum is normal add up to zero."""
import math
import random
import struct
from fractions import Fraction

KERNEL = "denorms_are_zero"
DEVICES = ["tgllp"]
OCLOC_OPTIONS = "-cl-denorms-are-zero"
N = 256
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}
TINY = 2.0 ** -126


def f32(v):
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def ftz(v):
    return math.copysign(0.0, v) if v != 0 and abs(v) < TINY else v


def f32_of_fraction(q):
    """An exact Fraction rounded to float32, nearest even, on the bits (float(q) would
    round to a double first)."""
    s = -1 if q < 0 else 1
    q = abs(q)
    e = math.floor(math.log2(q)) if q else 0
    while Fraction(2) ** e > q:
        e -= 1
    while Fraction(2) ** (e + 1) <= q:
        e += 1
    ulp = Fraction(2) ** (max(e, -126) - 23)
    m = q / ulp
    r = math.floor(m)
    frac = m - r
    if frac > Fraction(1, 2) or (frac == Fraction(1, 2) and r % 2 == 1):
        r += 1
    return f32(s * float(r * ulp))


rng = random.Random(20261128)
d = lambda k: k * 2.0 ** -149  # the k-th denormal
PAIRS = [(d(3), 2.0 ** 30), (-d(5), 2.0 ** 40), (d(2 ** 22), d(2 ** 22)),
         (-d(2 ** 22 + 7), -d(2 ** 22)), (d(100), -d(99)), (TINY, -d(1)),
         (1.5 * TINY, -TINY), (d(2 ** 23 - 1), 1.0), (1.0, d(1)), (2.0 ** -100, 2.0 ** -30),
         (0.0, -0.0), (-0.0, d(4)), (3.0, 5.0), (-TINY, 0.5)]
A, B = [], []
for x, y in PAIRS:
    A.append(f32(x))
    B.append(f32(y))
while len(A) < N:
    kind = rng.randrange(3)
    if kind == 0:
        A.append(d(rng.randrange(1, 2 ** 23)) * rng.choice([-1, 1]))
        B.append(f32(rng.choice([-1, 1]) * 2.0 ** rng.uniform(0, 60)))
    elif kind == 1:
        A.append(d(rng.randrange(1, 2 ** 23)) * rng.choice([-1, 1]))
        B.append(d(rng.randrange(1, 2 ** 23)) * rng.choice([-1, 1]))
    else:
        A.append(f32(rng.choice([-1, 1]) * 2.0 ** rng.uniform(-130, -100)))
        B.append(f32(rng.choice([-1, 1]) * 2.0 ** rng.uniform(-40, 0)))

OUTS = ["o_mul", "o_add", "o_sub", "o_mad"]
INPUTS = {o: [0.0] * N for o in OUTS}
INPUTS["a"] = A
INPUTS["b"] = B
ARGS = [{"name": o, "kind": "buffer", "dtype": "float32", "is_output": True} for o in OUTS]
ARGS += [{"name": "a", "kind": "buffer", "dtype": "float32", "is_output": False},
         {"name": "b", "kind": "buffer", "dtype": "float32", "is_output": False}]


def op(f, *xs):
    """f on the flushed inputs, exactly, rounded once to f32 and flushed."""
    xs = [ftz(x) for x in xs]
    q = f(*[Fraction(x) for x in xs])
    if q == 0:
        # Signed zeros: IEEE's rules for the operation on the flushed inputs.
        return ftz(f32(f(*xs)))
    return ftz(f32_of_fraction(q))


def expected(inp):
    a, b = inp["a"], inp["b"]
    return {
        "o_mul": [op(lambda x, y: x * y, x, y) for x, y in zip(a, b)],
        "o_add": [op(lambda x, y: x + y, x, y) for x, y in zip(a, b)],
        "o_sub": [op(lambda x, y: x - y, x, y) for x, y in zip(a, b)],
        "o_mad": [op(lambda x, y: x * y + x, x, y) for x, y in zip(a, b)],
    }
