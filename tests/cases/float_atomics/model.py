"""Float atomics (OpenCL 3.0 `atomic_float` with cl_ext_float_atomics, -cl-std=CL3.0):
contended sums of quarters (exact in any order) and the minimum and maximum of x (a NaN
among them) on four counters, and per-item fadd, fsub, fmin and fmax whose old values
and results are fixed, special values included. Buffers are uint32 so that every bit of
a result is compared (a NaN is 0x7fc00000 exactly). The expected values follow the
definitions (PoCL 3.1 here compiles OpenCL C 1.2 only, without float atomics): IEEE add
and subtract rounded to nearest, a NaN result the default NaN, minNum/maxNum (a NaN
operand gives the other one; -0 is below +0). Inputs avoid what the pages leave open:
denormals (a flushing atomic unit), NaN operands with a sign or payload in add and
subtract, and two NaN operands of min and max."""
import math
import random
import struct

KERNEL = "float_atomics"
DEVICES = ["acm-g10", "tgllp"]
OCLOC_OPTIONS = "-cl-std=CL3.0"
# acm-g10 SIMD16 as well: its GRF fits the lane mapping (SIMD32 keeps 3,048 words).
FORCED_SIMD = [16]
N, L = 64, 32
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [L], "global_offset": [0]}
rng = random.Random(20261128)


def bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def val(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


INF, NINF, NAN, NNAN = 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000
MAX, NMAX, PZ, NZ = 0x7F7FFFFF, 0xFF7FFFFF, 0, 0x80000000
MIN_N = 0x00800000  # 2^-126, the smallest normal
ONE = bits(1.0)


def normal():
    """A random normal float, exponents 2^-20..2^20, either sign."""
    return (rng.getrandbits(1) << 31) | (rng.randint(107, 147) << 23) | rng.getrandbits(23)


def fill(specials):
    pairs = list(specials)
    while len(pairs) < N:
        pairs.append((normal(), normal()))
    return [p[0] for p in pairs], [p[1] for p in pairs]


# (cell, operand) pairs: fadd (c0, x), fsub (c1, y); min and max (c2/c3, y).
C0, X = fill([
    (INF, NINF), (MAX, MAX), (ONE, bits(2.0**-24)), (ONE, bits(3 * 2.0**-24)),
    (NZ, NZ), (NZ, PZ), (NAN, ONE), (ONE, NAN), (NMAX, NMAX), (MIN_N, MIN_N | 0x80000000),
    (bits(2.0**-125), MIN_N | 0x80000000), (INF, ONE), (bits(1e30), bits(-1e30)),
    (bits(16777216.0), ONE), (bits(16777216.0), bits(3.0)),
])
C1, Y = fill([
    (INF, INF), (ONE, ONE), (NZ, PZ), (NZ, NZ), (PZ, PZ), (MAX, NMAX), (NAN, NINF),
    (ONE, bits(2.0**-24)), (bits(-16777216.0), ONE), (NINF, NINF), (ONE, NAN),
])
# min/max cells against Y's specials first: a NaN cell takes y; y NaN keeps the cell.
C2 = [ONE, PZ, NZ, PZ, NZ, NAN, NNAN, NAN, ONE, NINF, ONE] + [normal() for _ in range(N - 11)]
C3 = [NNAN, NZ, PZ, NZ, PZ, INF, ONE, ONE, NAN, INF, NZ] + [normal() for _ in range(N - 11)]
Q = [bits(rng.randint(-400, 400) * 0.25) for _ in range(N)]
INPUTS = {
    "x": X,
    "y": Y,
    "q": Q,
    "acc": [bits(1000.0), bits(-3.5), bits(1e30), bits(-1e30)],
    "cell": [v for i in range(N) for v in (C0[i], C1[i])]
    + [v for i in range(N) for v in (C2[i], C3[i])],
    "old": [0] * (4 * N),
}
ARGS = [
    {"name": "x", "kind": "buffer", "dtype": "uint32", "is_output": False},
    {"name": "y", "kind": "buffer", "dtype": "uint32", "is_output": False},
    {"name": "q", "kind": "buffer", "dtype": "uint32", "is_output": False},
    {"name": "acc", "kind": "buffer", "dtype": "uint32", "is_output": True},
    {"name": "cell", "kind": "buffer", "dtype": "uint32", "is_output": True},
    {"name": "old", "kind": "buffer", "dtype": "uint32", "is_output": True},
]


def is_nan(b):
    return (b & 0x7FFFFFFF) > INF


def round32(v):
    """IEEE single rounding (to nearest even) of a double; NaN -> the default NaN."""
    if math.isnan(v):
        return NAN
    try:
        return bits(v)
    except OverflowError:
        return INF if v > 0 else NINF


def add(a, b):
    # The sum of two singles in double is exact or rounds harmlessly (53 >= 2*24 + 2).
    return round32(val(a) + val(b))


def sub(a, b):
    return round32(val(a) - val(b))


def minmax(a, b, is_max):
    if is_nan(a):
        return b
    if is_nan(b):
        return a
    va, vb = val(a), val(b)
    if va == vb == 0.0:
        # -0 < +0: min takes the negative zero, max the positive one.
        neg = a if a >> 31 else b
        pos = b if a >> 31 else a
        return pos if is_max else neg
    return (max if is_max else min)((va, a), (vb, b))[1]


def expected(inp):
    x, y, q = inp["x"], inp["y"], inp["q"]
    acc = list(inp["acc"])
    for v in q:
        acc[0] = add(acc[0], v)
        acc[1] = sub(acc[1], v)
    for v in x:
        acc[2] = minmax(acc[2], v, False)
        acc[3] = minmax(acc[3], v, True)
    cell, old = list(inp["cell"]), list(inp["old"])
    for i in range(N):
        for k, f in ((2 * i, lambda c: add(c, x[i])), (2 * i + 1, lambda c: sub(c, y[i])),
                     (2 * N + 2 * i, lambda c: minmax(c, y[i], False)),
                     (2 * N + 2 * i + 1, lambda c: minmax(c, y[i], True))):
            old[k] = cell[k]
            cell[k] = f(cell[k])
    return {"acc": acc, "cell": cell, "old": old}
