"""Double-precision transcendentals (IGC's software library: exp, log, pow, sin, cos,
atan2, cbrt, tanh) against mpmath's correctly rounded values, within OpenCL 1.2's
bounds (section 7.4) for double. Arguments run from denormals to 1e300 (sin and cos of
1e300 need IGC's large-argument reduction) and include the IEEE specials; the C99
special-case rules (Annex F) give the expected value where one applies."""
import math
import random

import mpmath

KERNEL = "math_double"
DEVICES = ["skl", "pvc"]
FORCED_SIMD = []
N = 512
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}

rng = random.Random(20261127)
SPECIAL_A = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -1e-310, 2.2250738585072014e-308,
             1.0, -1.0, math.pi, -math.pi / 2, math.pi / 4, 0.5, 2.0, 1e-300, -1e300,
             1.7976931348623157e308, 1e22, -1e15, 0.1, 10.0, 1e-5, 710.0, -3.0, 8.0, -27.0]
A = SPECIAL_A[:]
while len(A) < 260:
    A.append(rng.uniform(-10, 10))
while len(A) < 340:
    A.append(rng.uniform(-1e6, 1e6))
while len(A) < 420:
    A.append(rng.choice([-1, 1]) * 10 ** rng.uniform(-300, 300))
while len(A) < N:
    A.append(rng.uniform(-100, 100))
SPECIAL_B = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5, -0.5, 2.0, 3.0, -2.0,
             709.0, 709.8, 710.0, -708.0, -740.0, -746.0, 20.0, -20.0, 1e-10, 5e-324,
             0.3333333333333333, 1e300]
B = SPECIAL_B[:]
while len(B) < N:
    B.append(rng.uniform(-5, 5))
rng.shuffle(A)
INPUTS = {"a": A, "b": B}
OUTS = ["o_exp", "o_log", "o_pow", "o_sin", "o_cos", "o_atan2", "o_cbrt", "o_tanh"]
ARGS = [{"name": "a", "kind": "buffer", "dtype": "float64", "is_output": False},
        {"name": "b", "kind": "buffer", "dtype": "float64", "is_output": False}]
ARGS += [{"name": o, "kind": "buffer", "dtype": "float64", "is_output": True} for o in OUTS]
for o in OUTS:
    INPUTS[o] = [0.0] * N

BOUND = {"o_exp": 3, "o_log": 3, "o_pow": 16, "o_sin": 4, "o_cos": 4, "o_atan2": 6,
         "o_cbrt": 2, "o_tanh": 5}
TOLERANCE = {o: {"type": "ulp", "ulp": u, "check_ulp": u + 1,
                 "why": "OpenCL 1.2 double bound %d ulp, against the correctly rounded value" % u}
             for o, u in BOUND.items()}

# 1,200 bits: sin/cos of 1e300 reduce exactly, and every other result has ample guard bits.
mpmath.mp.prec = 1200


def rnd(v):
    """An mpmath value rounded once to the nearest double (subnormals included)."""
    v = mpmath.mpf(v)
    if mpmath.isnan(v):
        return math.nan
    if mpmath.isinf(v) or abs(v) >= mpmath.mpf(2) ** 1024 * (1 - mpmath.mpf(2) ** -54):
        return math.copysign(math.inf, float(mpmath.sign(v)))
    if v == 0:
        return 0.0
    # Scale to an integer at the double's last place (2^-1074 below the normals).
    e = max(int(mpmath.floor(mpmath.log(abs(v), 2))) - 52, -1074)
    m = v / mpmath.mpf(2) ** e
    n = int(mpmath.nint(m))  # ties to even
    return math.ldexp(float(n), e)


def fin(*x):
    return all(math.isfinite(t) for t in x)


def exp(y):
    if not fin(y):
        return math.nan if math.isnan(y) else (math.inf if y > 0 else 0.0)
    return rnd(mpmath.exp(y))


def log(x):
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    if math.isinf(x):
        return math.inf
    return rnd(mpmath.log(x))


def pow_(x, y):
    """pow over x >= 0 (the kernel passes fabs(x)), C99 Annex F at the specials."""
    if y == 0 or x == 1:
        return 1.0
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == 0:
        return math.inf if y < 0 else 0.0
    if math.isinf(y):
        return (math.inf if y > 0 else 0.0) if x > 1 else (0.0 if y > 0 else math.inf)
    if math.isinf(x):
        return math.inf if y > 0 else 0.0
    return rnd(mpmath.power(mpmath.mpf(x), mpmath.mpf(y)))


def trig(f):
    return lambda x: math.nan if not fin(x) else (x if x == 0 and f is mpmath.sin else rnd(f(x)))


def atan2(x, y):
    if not fin(x, y) or x == 0:
        return math.atan2(x, y)
    return rnd(mpmath.atan2(x, y))


def cbrt(x):
    if not fin(x) or x == 0:
        return x
    return math.copysign(rnd(mpmath.cbrt(abs(x))), x)


def tanh(y):
    if not fin(y) or y == 0:
        return math.tanh(y)
    return rnd(mpmath.tanh(y))


def expected(inputs):
    a, b = inputs["a"], inputs["b"]
    return {
        "o_exp": [exp(y) for y in b],
        "o_log": [log(x) for x in a],
        "o_pow": [pow_(abs(x), y) for x, y in zip(a, b)],
        "o_sin": [trig(mpmath.sin)(x) for x in a],
        "o_cos": [trig(mpmath.cos)(x) for x in a],
        "o_atan2": [atan2(x, y) for x, y in zip(a, b)],
        "o_cbrt": [cbrt(x) for x in a],
        "o_tanh": [tanh(y) for y in b],
    }
