"""Float builtins that no other case reaches, against mpmath's values rounded once to
float32, within OpenCL 1.2's bounds (section 7.4, Table 7.1) plus the reference's half ulp;
the special values as section 7.5.1 defines them. lgamma has no bound in OpenCL 1.2: an
absolute and relative tolerance. ilogb, fdim, maxmag and minmag are exact. Arguments run
from denormals to 1e30 and include the IEEE specials, the poles of the gamma functions and
the integers and half-integers where the *pi forms have exact results."""
import math
import random
import struct

import mpmath

mpmath.mp.prec = 120

KERNEL = "math_special"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = []
N = 512
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}
INT_MIN = -2 ** 31
INT_MAX = 2 ** 31 - 1


def f32(x):
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


rng = random.Random(20261128)
SPECIAL_A = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-40, -1e-40, 1e-30, -1e-30,
             1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, 1.5, -1.5, 2.5, -7.5, 10.0, -10.0,
             f32(-0.99999994), f32(-1.0000001), f32(1.0000001), 35.0, 36.0, -40.5, 171.5,
             1e10, -1e10, f32(3.0e38), f32(-3.0e38), 88.0, 89.0, -88.0, -104.0, 0.25, -0.25,
             f32(8388609.0), f32(8388608.5 * 2), 12345.5, -12345.5, 1e-7, -1e-7]
A = SPECIAL_A[:]
while len(A) < 260:
    A.append(f32(rng.uniform(-10, 10)))
while len(A) < 330:
    A.append(f32(rng.uniform(-40, 40)))
while len(A) < 390:
    A.append(f32(rng.choice([-1, 1]) * 10 ** rng.uniform(-38, 30)))
while len(A) < 430:
    A.append(f32(rng.uniform(-1.2, 1.2)))
while len(A) < N:
    A.append(f32(rng.choice([-1, 1]) * rng.randint(0, 40) / 2 + rng.choice([0, 1e-6, -1e-3])))
SPECIAL_B = [0.0, -0.0, 1.0, -1.0, f32(1.0000001), f32(-1.0000001), math.nan, 1e-40, 0.5,
             -0.5, f32(0.99999994), math.inf, -math.inf, 0.96, -0.98, 0.25]
B = SPECIAL_B[:]
while len(B) < N:
    B.append(f32(rng.uniform(-1, 1)))
rng.shuffle(A)
A = [f32(x) for x in A]
B = [f32(y) for y in B]
INPUTS = {"a": A, "b": B}
FLOAT_OUTS = ["o_erf", "o_erfc", "o_lgamma", "o_tgamma", "o_cbrt", "o_expm1", "o_log1p",
              "o_asinh", "o_acosh", "o_atanh", "o_exp10", "o_rootn", "o_cospi", "o_tanpi",
              "o_asinpi", "o_acospi", "o_atanpi", "o_atan2pi"]
EXACT_FLOAT_OUTS = ["o_fdim", "o_maxmag", "o_minmag"]
ARGS = [{"name": "a", "kind": "buffer", "dtype": "float32", "is_output": False},
        {"name": "b", "kind": "buffer", "dtype": "float32", "is_output": False}]
for o in FLOAT_OUTS:
    ARGS.append({"name": o, "kind": "buffer", "dtype": "float32", "is_output": True})
ARGS.append({"name": "o_ilogb", "kind": "buffer", "dtype": "int32", "is_output": True})
for o in EXACT_FLOAT_OUTS:
    ARGS.append({"name": o, "kind": "buffer", "dtype": "float32", "is_output": True})
for o in FLOAT_OUTS + EXACT_FLOAT_OUTS:
    INPUTS[o] = [0.0] * N
INPUTS["o_ilogb"] = [0] * N

BOUND = {"o_erf": 16, "o_erfc": 16, "o_tgamma": 16, "o_cbrt": 2, "o_expm1": 3,
         "o_log1p": 2, "o_asinh": 4, "o_acosh": 4, "o_atanh": 5, "o_exp10": 3,
         "o_rootn": 16, "o_cospi": 4, "o_tanpi": 6, "o_asinpi": 5, "o_acospi": 5,
         "o_atanpi": 5, "o_atan2pi": 6}
TOLERANCE = {o: {"type": "ulp", "ulp": u, "check_ulp": u + 1,
                 "why": "OpenCL 1.2 bound %d ulp, against the correctly rounded value" % u}
             for o, u in BOUND.items()}
TOLERANCE["o_lgamma"] = {"type": "abs_rel", "abs": 1e-5, "rel": 1e-5,
                         "why": "lgamma: OpenCL 1.2 states no bound"}


def rounded(f, *x):
    """f over exact arguments in mpmath, rounded to float32 (overflow to inf)."""
    return f32(float(f(*[mpmath.mpf(v) for v in x])))


def finite(x):
    return not (math.isinf(x) or math.isnan(x))


def erf(x):
    if math.isnan(x):
        return x
    if math.isinf(x):
        return math.copysign(1.0, x)
    return math.copysign(rounded(mpmath.erf, x), x) if x == 0 else rounded(mpmath.erf, x)


def erfc(x):
    if math.isnan(x):
        return x
    if math.isinf(x):
        return 0.0 if x > 0 else 2.0
    return rounded(mpmath.erfc, x)


def is_int(x):
    return finite(x) and x == math.floor(x)


def lgamma(x):
    if math.isnan(x):
        return x
    if math.isinf(x) or (x <= 0 and is_int(x)):
        return math.inf
    return rounded(lambda v: mpmath.log(abs(mpmath.gamma(v))), x)


def tgamma(x):
    if math.isnan(x) or x == -math.inf or (x < 0 and is_int(x)):
        return math.nan
    if x == 0:
        return math.copysign(math.inf, x)
    if x == math.inf or x > 36:
        return math.inf
    if x < -50:
        # |gamma| underflows below the smallest denormal; the sign alternates.
        return 0.0 if math.floor(x) % 2 == 0 else -0.0
    return rounded(mpmath.gamma, x)


def cbrt(x):
    if not finite(x) or x == 0:
        return x
    return math.copysign(rounded(mpmath.cbrt, abs(x)), x)


def expm1(x):
    if math.isnan(x):
        return x
    if math.isinf(x):
        return math.inf if x > 0 else -1.0
    if x == 0:
        return x
    return rounded(mpmath.expm1, x)


def log1p(x):
    if math.isnan(x) or x < -1:
        return math.nan
    if x == -1:
        return -math.inf
    if math.isinf(x) or x == 0:
        return x
    return rounded(mpmath.log1p, x)


def asinh(x):
    if not finite(x) or x == 0:
        return x
    return rounded(mpmath.asinh, x)


def acosh(x):
    if math.isnan(x) or x < 1:
        return math.nan
    if math.isinf(x):
        return x
    return rounded(mpmath.acosh, x)


def atanh(y):
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    if abs(y) == 1:
        return math.copysign(math.inf, y)
    if y == 0:
        return y
    return rounded(mpmath.atanh, y)


def exp10(y):
    t = f32(y * 40.0)
    if math.isnan(t):
        return t
    if math.isinf(t):
        return math.inf if t > 0 else 0.0
    return rounded(lambda v: mpmath.power(10, v), t)


def rootn(x, n):
    if math.isnan(x) or n == 0:
        return math.nan
    odd = n % 2 != 0
    if x < 0 and not odd:
        return math.nan
    if x == 0:
        if n > 0:
            return x if odd else 0.0
        return math.copysign(math.inf, x) if odd else math.inf
    if math.isinf(x):
        r = 0.0 if n < 0 else math.inf
        return math.copysign(r, x) if odd else r
    r = rounded(lambda v: mpmath.power(abs(v), mpmath.mpf(1) / n), x)
    return -r if x < 0 else r


def pi_reduced(x):
    """x mod 2, exact for a float32 x (it fits a double)."""
    return math.fmod(x, 2.0)


def cospi(x):
    if not finite(x):
        return math.nan
    x = abs(x)
    r = pi_reduced(x)
    if r == 0.5 or r == 1.5:
        return 0.0
    if r == 0.0:
        return 1.0
    if r == 1.0:
        return -1.0
    return rounded(lambda v: mpmath.cospi(v), r)


def tanpi(x):
    if not finite(x):
        return math.nan
    if is_int(x):
        even = math.fmod(x, 2.0) == 0.0
        return math.copysign(0.0, x) if even else math.copysign(0.0, -x)
    r = pi_reduced(x)
    if abs(r) in (0.5, 1.5):
        n = math.floor(x)
        return math.inf if n % 2 == 0 else -math.inf
    return rounded(lambda v: mpmath.tan(mpmath.pi * v), r)


def asinpi(y):
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    if y == 0:
        return y
    return rounded(lambda v: mpmath.asin(v) / mpmath.pi, y)


def acospi(y):
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    return rounded(lambda v: mpmath.acos(v) / mpmath.pi, y)


def atanpi(x):
    if math.isnan(x):
        return x
    if math.isinf(x):
        return math.copysign(0.5, x)
    if x == 0:
        return x
    return rounded(lambda v: mpmath.atan(v) / mpmath.pi, x)


def atan2pi(y, x):
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if math.isinf(x) or math.isinf(y) or x == 0 or y == 0:
        return f32(math.atan2(y, x) / math.pi)
    return rounded(lambda a, b: mpmath.atan2(a, b) / mpmath.pi, y, x)


def ilogb(x):
    if math.isnan(x):
        return INT_MAX
    if x == 0:
        return INT_MIN
    if math.isinf(x):
        return INT_MAX
    return math.frexp(x)[1] - 1


def fdim(x, y):
    if math.isnan(x) or math.isnan(y):
        return math.nan
    return f32(x - y) if x > y else 0.0


def fmax(x, y):
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    if x == y == 0:
        return y if math.copysign(1, x) < 0 else x
    return max(x, y)


def fmin(x, y):
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    if x == y == 0:
        return x if math.copysign(1, x) < 0 else y
    return min(x, y)


def maxmag(x, y):
    if abs(x) > abs(y):
        return x
    if abs(y) > abs(x):
        return y
    return fmax(x, y)


def minmag(x, y):
    if abs(x) < abs(y):
        return x
    if abs(y) < abs(x):
        return y
    return fmin(x, y)


def expected(inputs):
    a, b = inputs["a"], inputs["b"]
    return {
        "o_erf": [erf(x) for x in a],
        "o_erfc": [erfc(x) for x in a],
        "o_lgamma": [lgamma(x) for x in a],
        "o_tgamma": [tgamma(x) for x in a],
        "o_cbrt": [cbrt(x) for x in a],
        "o_expm1": [expm1(x) for x in a],
        "o_log1p": [log1p(x) for x in a],
        "o_asinh": [asinh(x) for x in a],
        "o_acosh": [acosh(x) for x in a],
        "o_atanh": [atanh(y) for y in b],
        "o_exp10": [exp10(y) for y in b],
        "o_rootn": [rootn(x, (i % 9) - 4) for i, x in enumerate(a)],
        "o_cospi": [cospi(x) for x in a],
        "o_tanpi": [tanpi(x) for x in a],
        "o_asinpi": [asinpi(y) for y in b],
        "o_acospi": [acospi(y) for y in b],
        "o_atanpi": [atanpi(x) for x in a],
        "o_atan2pi": [atan2pi(y, x) for x, y in zip(a, b)],
        "o_ilogb": [ilogb(x) for x in a],
        "o_fdim": [fdim(x, y) for x, y in zip(a, b)],
        "o_maxmag": [maxmag(x, y) for x, y in zip(a, b)],
        "o_minmag": [minmag(x, y) for x, y in zip(a, b)],
    }
