"""Byte and short vectors through shuffles, saturating conversions and packed stores;
an exact Python model of the OpenCL C semantics (section 6.2 conversions, 6.12.3 integer
functions, 6.12.12 shuffles)."""
import random

KERNEL = "vector_bytes"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8]
N = 128
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [32], "global_offset": [0]}

rng = random.Random(20261128)
A = [rng.randrange(256) for _ in range(N * 16)]
B = [rng.randrange(-128, 128) for _ in range(N * 16)]
S = [rng.randrange(-32768, 32768) for _ in range(N * 8)]
for k in range(0, 64):
    A[k] = [0, 255, 1, 128, 127][k % 5]
    B[k] = [-128, 127, 0, -1, 1][k % 5]
    S[k] = [-32768, 32767, 0, -1, 300, -300, 12800, -12800][k % 8]
INPUTS = {"a": A, "b": B, "s": S, "o_mix": [0] * (N * 16), "o_sat": [0] * (N * 8),
          "o_wide": [0] * (N * 8), "o_odd": [0] * (N * 3 + 3), "o_sum": [0] * N}
ARGS = [{"name": "a", "kind": "buffer", "dtype": "uint8", "is_output": False},
        {"name": "b", "kind": "buffer", "dtype": "int8", "is_output": False},
        {"name": "s", "kind": "buffer", "dtype": "int16", "is_output": False},
        {"name": "o_mix", "kind": "buffer", "dtype": "uint8", "is_output": True},
        {"name": "o_sat", "kind": "buffer", "dtype": "int8", "is_output": True},
        {"name": "o_wide", "kind": "buffer", "dtype": "int16", "is_output": True},
        {"name": "o_odd", "kind": "buffer", "dtype": "uint8", "is_output": True},
        {"name": "o_sum", "kind": "buffer", "dtype": "uint32", "is_output": True}]


def u8(v):
    return v & 0xFF


def s8(v):
    v &= 0xFF
    return v - 256 if v >= 128 else v


def s16(v):
    v &= 0xFFFF
    return v - 65536 if v >= 32768 else v


def sat(v, lo, hi):
    return max(lo, min(hi, v))


def f32(x):
    import struct
    return struct.unpack("<f", struct.pack("<f", x))[0]


def rte(x):
    """Round half to even (Python's round)."""
    return round(x)


def clz8(v):
    return 8 - v.bit_length()


def expected(inputs):
    a, b, s = inputs["a"], inputs["b"], inputs["s"]
    o_mix, o_sat, o_wide = [], [], []
    o_odd = [0] * (N * 3 + 3)
    o_sum = []
    base_mask = [15, 3, 7, 0, 9, 12, 1, 14, 2, 11, 4, 13, 6, 10, 8, 5]
    for i in range(N):
        x = a[16 * i:16 * i + 16]
        y = b[16 * i:16 * i + 16]
        yu = [u8(v) for v in y]
        z = s[8 * i:8 * i + 8]
        mask = [u8(m + i) for m in base_mask]
        sh = [x[m % 16] for m in mask]
        m2 = [u8(m ^ u8(i * 7)) for m in mask]
        both = x + yu
        sh2 = [both[m % 32] for m in m2]
        avg = [((p + q) >> 1) ^ ((r + t + 1) >> 1) for p, q, r, t in zip(sh, sh2, x, yu)]
        dif = [abs(p - q) for p, q in zip(x, yu)]
        mad = [sat(p * (i & 7) + d, 0, 255) for p, d in zip(x, dif)]
        sel = [(d & m) | (md & ~m & 0xFF) for md, d, m in zip(mad, dif, sh)]
        o_mix += [u8(p + q) for p, q in zip(avg, sel)]
        lo = [s16(y[k] * z[k] + y[k + 8]) for k in range(8)]
        c = []
        for k in range(8):
            p = sat(lo[k], -128, 127)
            fz = f32(f32(float(z[k])) * f32(0.01))
            q = sat(rte(fz), -128, 127)
            c.append(s8(p + q))
        o_sat += c
        cnt = i & 15
        w = []
        for k in range(8):
            up = s16((y[2 * k] << 8) | x[2 * k + 1])
            sh_r = up >> cnt
            r = i & 15
            zz = z[k] & 0xFFFF
            rot = ((zz << r) | (zz >> (16 - r))) & 0xFFFF if r else zz
            w.append(s16(sh_r + rot))
        o_wide += w
        t = a[1 + 3 * i:1 + 3 * i + 3]
        u = [u8(v) for v in b[5 + 3 * i:5 + 3 * i + 3]]
        for k in range(3):
            v = sat(t[k] + u[k], 0, 255) - clz8(t[k]) + bin(u[k]).count("1")
            o_odd[3 + 3 * i + k] = u8(v)
        acc = 0
        for k in range(16):
            acc += x[k] * (k + 1) + (y[k] & 0xFFFFFFFF)
        packed = 0
        for k in range(4):
            packed |= sat(z[k], 0, 255) << (8 * k)
        o_sum.append((acc & 0xFFFFFFFF) ^ packed)
    return {"o_mix": o_mix, "o_sat": o_sat, "o_wide": o_wide, "o_odd": o_odd, "o_sum": o_sum}
