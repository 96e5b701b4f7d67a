"""Trigonometric and hyperbolic builtins against float64 math rounded once to float32
(the correctly rounded result), within OpenCL 1.2's bounds (section 7.4) plus the
reference's half ulp; the native forms within an absolute error (implementation-defined
precision). Arguments range from denormals to 1e30 (IGC's large-argument reduction)
and include the IEEE specials."""
import math
import random
import struct

KERNEL = "math_trig"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [16]
N = 512
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}


def f32(x):
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


rng = random.Random(20261127)
SPECIAL_A = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-40, -1e-40, 1e-30, -1e-30,
             f32(math.pi), f32(math.pi / 2), f32(-math.pi / 2), f32(math.pi / 4), 1.0, -1.0,
             0.5, 100.0, f32(1e6), f32(-1e6), f32(3.0e38), 0.25, 1.5, 2.0]
A = SPECIAL_A[:]
while len(A) < 240:
    A.append(f32(rng.uniform(-10, 10)))
while len(A) < 340:
    A.append(f32(rng.uniform(-1e4, 1e4)))
while len(A) < 400:
    A.append(f32(rng.choice([-1, 1]) * 10 ** rng.uniform(4, 30)))
while len(A) < N:
    A.append(f32(rng.uniform(-100, 100)))
SPECIAL_B = [0.0, -0.0, 1.0, -1.0, f32(1.0000001), f32(-1.0000001), math.nan, 1e-40, 0.5,
             -0.5, f32(0.99999994), math.inf, -math.inf]
B = SPECIAL_B[:]
while len(B) < N:
    B.append(f32(rng.uniform(-1, 1)))
rng.shuffle(A)
A = [f32(x) for x in A]
B = [f32(y) for y in B]
INPUTS = {"a": A, "b": B}
OUTS = ["o_sin", "o_cos", "o_tan", "o_asin", "o_acos", "o_atan", "o_atan2", "o_sinh",
        "o_cosh", "o_tanh", "o_sincos_s", "o_sincos_c", "o_sinpi", "o_hypot",
        "o_native_sin", "o_native_cos"]
ARGS = [{"name": "a", "kind": "buffer", "dtype": "float32", "is_output": False},
        {"name": "b", "kind": "buffer", "dtype": "float32", "is_output": False}]
ARGS += [{"name": o, "kind": "buffer", "dtype": "float32", "is_output": True} for o in OUTS]
for o in OUTS:
    INPUTS[o] = [0.0] * N

BOUND = {"o_sin": 4, "o_cos": 4, "o_tan": 5, "o_asin": 4, "o_acos": 4, "o_atan": 5,
         "o_atan2": 6, "o_sinh": 4, "o_cosh": 4, "o_tanh": 5, "o_sincos_s": 4,
         "o_sincos_c": 4, "o_sinpi": 4, "o_hypot": 4}
TOLERANCE = {o: {"type": "ulp", "ulp": u, "check_ulp": u + 1,
                 "why": "OpenCL 1.2 bound %d ulp, against the correctly rounded value" % u}
             for o, u in BOUND.items()}
for o in ["o_native_sin", "o_native_cos"]:
    TOLERANCE[o] = {"type": "abs_rel", "abs": 1e-3, "rel": 0.0,
                    "why": "native_*: implementation-defined precision (|x| <= 3)"}


def safe(f, *x):
    """f over float64 arguments as C99 defines it at the specials, rounded to float32."""
    try:
        r = f(*x)
    except ValueError:
        r = math.nan
    except OverflowError:
        r = math.inf
    return f32(r)


def sinpi(x):
    if math.isinf(x) or math.isnan(x):
        return math.nan
    # Exact reduction: x mod 2 is exact in float64 for float32 x.
    r = math.fmod(x, 2.0)
    if r == 0.0 or abs(r) == 1.0:
        return math.copysign(0.0, x)
    return math.sin(math.pi * r) if abs(r) != 0.5 else math.copysign(1.0, r)


def cosh(x):
    return math.inf if abs(x) > 710 else math.cosh(x)


def sinh(x):
    return math.copysign(math.inf, x) if abs(x) > 710 else math.sinh(x)


def expected(inputs):
    a, b = inputs["a"], inputs["b"]
    h = [f32(y * 20.0) for y in b]
    t = [f32(y * 3.0) for y in b]
    trig = lambda f: [safe(f, x) if not math.isinf(x) else math.nan for x in a]
    return {
        "o_sin": trig(math.sin),
        "o_cos": trig(math.cos),
        "o_tan": trig(math.tan),
        "o_asin": [safe(math.asin, y) for y in b],
        "o_acos": [safe(math.acos, y) for y in b],
        "o_atan": [safe(math.atan, x) for x in a],
        "o_atan2": [safe(math.atan2, y, x) for x, y in zip(a, b)],
        "o_sinh": [safe(sinh, x) for x in h],
        "o_cosh": [safe(cosh, x) for x in h],
        "o_tanh": [safe(math.tanh, x) for x in h],
        "o_sincos_s": trig(math.sin),
        "o_sincos_c": trig(math.cos),
        "o_sinpi": [safe(sinpi, x) for x in a],
        "o_hypot": [safe(math.hypot, x, y) for x, y in zip(a, b)],
        "o_native_sin": [safe(math.sin, x) for x in t],
        "o_native_cos": [safe(math.cos, x) for x in t],
    }
