"""Exact rounding of rationals to IEEE binary formats in the four rounding modes, for the
case models (tools/make_case.py) whose reference must not depend on the host's FPU."""
import math
import struct
from fractions import Fraction

# (significand bits incl. the hidden one, minimum normal exponent, maximum exponent)
HALF, FLOAT, DOUBLE = (11, -14, 15), (24, -126, 127), (53, -1022, 1023)
MODES = ("rte", "rtz", "rtp", "rtn")


def round_to(q, fmt, mode):
    """The value of Fraction (or int/float) q rounded to fmt in mode, as a Python float
    (exact: every half/float/double is a double). Overflow follows IEEE: to infinity
    when rounding towards it, else the largest finite value; a zero keeps q's sign only
    when q is the signed zero itself, so pass -0.0 for a negative zero."""
    if isinstance(q, float):
        if math.isnan(q) or math.isinf(q) or q == 0:
            return q
    q = Fraction(q)
    if q == 0:
        return 0.0
    p, emin, emax = fmt
    neg, a = q < 0, abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    qe = max(e, emin) - (p - 1)
    m = a / Fraction(2) ** qe
    n = m.numerator // m.denominator
    rem = m - n
    if rem:
        if mode == "rte":
            n += rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1)
        elif mode == "rtp":
            n += not neg
        elif mode == "rtn":
            n += neg
        elif mode != "rtz":
            raise ValueError(mode)
    if n * Fraction(2) ** qe >= Fraction(2) ** (emax + 1):
        to_inf = mode == "rte" or (mode == "rtp" and not neg) or (mode == "rtn" and neg)
        big = math.inf if to_inf else math.ldexp(2 ** p - 1, emax - p + 1)
        return -big if neg else big
    if n == 0:
        return -0.0 if neg else 0.0
    v = math.ldexp(n, qe)
    return -v if neg else v


def f32(x):
    """x (a Python float) rounded to float32 to nearest even."""
    return round_to(x, FLOAT, "rte")


def to_int_sat(x, mode, lo, hi):
    """OpenCL's convert_<int>_sat_<mode>: NaN -> 0, rounded in mode, clamped to [lo, hi]."""
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return hi if x > 0 else lo
    q = Fraction(x)
    fl = q.numerator // q.denominator
    r = {"rtz": math.trunc(q), "rtn": fl, "rtp": -((-q.numerator) // q.denominator),
         "rte": round(q)}[mode]
    return min(max(r, lo), hi)


def half_bits_value(bits):
    """The value of an IEEE half given as its 16 bits (NaNs as float NaN)."""
    return struct.unpack("<e", struct.pack("<H", bits))[0]


# Exactly specified builtins (OpenCL 1.2, 0 ulp) in a format `fmt` (FLOAT or DOUBLE).

def _bits(x, fmt):
    return struct.unpack("<I", struct.pack("<f", x))[0] if fmt == FLOAT else \
        struct.unpack("<Q", struct.pack("<d", x))[0]


def _from_bits(b, fmt):
    return struct.unpack("<f", struct.pack("<I", b))[0] if fmt == FLOAT else \
        struct.unpack("<d", struct.pack("<Q", b))[0]


def smallest(fmt):
    """The smallest positive denormal of fmt."""
    p, emin, _ = fmt
    return math.ldexp(1.0, emin - p + 1)


def remquo(x, y):
    """IEEE remainder (exact in x's format) and the quotient's sign and low three bits,
    the part of remquo's quotient OpenCL fixes (0 where the remainder is NaN)."""
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or y == 0:
        return math.nan, 0
    if math.isinf(y):
        return x, 0
    q = Fraction(x) / Fraction(y)
    k = round(q)  # ties to even
    r = float(Fraction(x) - k * Fraction(y))
    if r == 0:
        r = math.copysign(0.0, x)
    low = abs(k) & 7
    return r, (-low if q < 0 else low)


def ldexp(x, n, fmt):
    if not math.isfinite(x) or x == 0:
        return x
    return round_to(Fraction(x) * Fraction(2) ** n, fmt, "rte")


def nextafter(x, y, fmt):
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == y:
        return y
    if x == 0:
        return math.copysign(smallest(fmt), y)
    step = 1 if (y > x) == (x > 0) else -1
    return _from_bits(_bits(x, fmt) + step, fmt)


def logb(x):
    if math.isnan(x):
        return x
    if math.isinf(x):
        return math.inf
    if x == 0:
        return -math.inf
    return float(math.frexp(x)[1] - 1)


def modf(x):
    """(fractional part, integral part), both with x's sign."""
    if math.isnan(x):
        return x, x
    if math.isinf(x):
        return math.copysign(0.0, x), x
    ip = math.copysign(float(math.trunc(x)), x)
    return math.copysign(x - ip, x), ip


def igc_frexp(x):
    """frexp as IGC computes it: +0 for either zero (BiFModule/Implementation/Math/
    frexp.cl: `temp = (x == 0.0f) ? 0.0f : x`, the double routine likewise), where C99
    keeps the sign. The cases check that IGC's code runs exactly, so its answer is the
    expected one."""
    if x == 0:
        return 0.0, 0
    if not math.isfinite(x):
        return x, 0
    return math.frexp(x)


# The math_exact_* kernels' outputs after their inputs a, b (the format's values) and n
# (int exponents); the float ones in the case's format, the rest int32.
EXACT_BUILTIN_OUTS = ["o_rem", "o_remquo", "o_quo", "o_frexp", "o_fexp", "o_ldexp", "o_next",
                      "o_copysign", "o_logb", "o_modf", "o_modf_int"]


def exact_builtin_args(dtype):
    """ARGS of a math_exact_* case whose float type is `dtype` (float32 or float64)."""
    args = [{"name": "a", "kind": "buffer", "dtype": dtype, "is_output": False},
            {"name": "b", "kind": "buffer", "dtype": dtype, "is_output": False},
            {"name": "n", "kind": "buffer", "dtype": "int32", "is_output": False}]
    for name in EXACT_BUILTIN_OUTS:
        ints = name in ("o_quo", "o_fexp")
        args.append({"name": name, "kind": "buffer", "dtype": "int32" if ints else dtype,
                     "is_output": True})
    return args


def exact_builtins_expected(inputs, fmt):
    """The outputs of a math_exact_* kernel in format fmt (FLOAT or DOUBLE)."""
    a, b, n = inputs["a"], inputs["b"], inputs["n"]
    rq = [remquo(x, y) for x, y in zip(a, b)]
    fr = [igc_frexp(x) for x in a]
    md = [modf(x) for x in a]
    return {
        "o_rem": [r for r, _ in rq],
        "o_remquo": [r for r, _ in rq],
        "o_quo": [q for _, q in rq],
        "o_frexp": [m for m, _ in fr],
        "o_fexp": [e for _, e in fr],
        "o_ldexp": [ldexp(x, k, fmt) for x, k in zip(a, n)],
        "o_next": [nextafter(x, y, fmt) for x, y in zip(a, b)],
        "o_copysign": [math.copysign(x, y) if not math.isnan(x) else x for x, y in zip(a, b)],
        "o_logb": [logb(x) for x in a],
        "o_modf": [f for f, _ in md],
        "o_modf_int": [i for _, i in md],
    }
