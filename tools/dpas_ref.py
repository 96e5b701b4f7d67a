"""DPAS reference for the own cases' models (tests/cases/dpas*/model.py): the DPAS page's
pseudo-code over flat dword arrays, rows of `simd` dwords (one GRF). Float DPAS is not
specified bit-exactly by the page; like the emulator, each systolic stage's dot product
is exact and is added to the f32 accumulator with one rounding to nearest even, computed
here with fractions, independently of the emulator's code."""
import struct
from fractions import Fraction

PREC = {"u1": (1, False), "s1": (1, True), "u2": (2, False), "s2": (2, True),
        "u4": (4, False), "s4": (4, True), "u8": (8, False), "s8": (8, True)}


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f32_of(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def half_bits(x):
    """A Python float as IEEE half bits (nearest even)."""
    return struct.unpack("<H", struct.pack("<e", x))[0]


def bf_bits(x):
    """A Python float as bf16 bits, truncated (any bf16 is a valid input)."""
    return f32_bits(x) >> 16


def s32(v):
    """A 32-bit word as a signed int (the int32 buffers' values)."""
    v &= 0xffffffff
    return v - (1 << 32) if v >> 31 else v


def pairs(rng, enc, lo, hi, count):
    """`count` words of two 16-bit values (`enc` of uniform floats in [lo, hi)), low first."""
    return [s32(enc(rng.uniform(lo, hi)) | (enc(rng.uniform(lo, hi)) << 16))
            for _ in range(count)]


def elem(dwords, idx, bits, signed):
    bit = idx * bits
    v = (dwords[bit // 32] >> (bit % 32)) & ((1 << bits) - 1)
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def idpas(w, a, sd, rc, c, src1, src2, simd):
    """Integer DPAS: dword lists in, dword list (rc rows) out."""
    (wb, ws), (ab, as_) = PREC[w], PREC[a]
    ops = 4 if 8 in (wb, ab) else 8
    per_chan = 32 // (ops * wb)
    out, k = [], 0
    for r in range(rc):
        temp = [c[r * simd + i] for i in range(simd)]
        for d in range(sd):
            m, first = d // per_chan, (d % per_chan) * ops
            for i in range(simd):
                b_dw = [src1[m * simd + i]]
                temp[i] += sum(elem(b_dw, first + j, wb, ws) * elem(src2, k + j, ab, as_)
                               for j in range(ops))
            k += ops
        out += [t & 0xffffffff for t in temp]
    return out


def decode(prec, raw):
    if prec == "hf":
        return struct.unpack("<e", struct.pack("<H", raw & 0xffff))[0]
    if prec == "bf":
        return f32_of((raw & 0xffff) << 16)
    return f32_of(raw & 0xffffe000)  # tf32: an F without its low 13 mantissa bits


def round_f32(x):
    """Fraction -> nearest f32 (ties to even), as a Python float."""
    d = float(x)  # within an f32 ulp; the candidates around it decide exactly
    cands = set()
    for v in (d, struct.unpack("<f", struct.pack("<f", d))[0]):
        b = f32_bits(v)
        for nb in (b - 1, b, b + 1):
            if 0 <= nb < 0x7f800000 or 0x80000000 <= nb < 0xff800000:
                cands.add(f32_of(nb))
    return min(cands, key=lambda v: (abs(Fraction(v) - x), f32_bits(v) & 1))


def fdpas(prec, sd, rc, c, src1, src2, simd):
    """Float DPAS: accumulator values (rc rows of simd) in, f32 values out."""
    ops = 1 if prec == "tf32" else 2
    bits = 32 // ops
    out, k = [], 0
    for r in range(rc):
        temp = [c[r * simd + i] for i in range(simd)]
        for d in range(sd):
            for i in range(simd):
                s = Fraction(temp[i])
                for j in range(ops):
                    bw = (src1[d * simd + i] >> (bits * j)) & ((1 << bits) - 1) if ops == 2 \
                        else src1[d * simd + i]
                    e = k + j
                    aw = (src2[e * bits // 32] >> (e * bits % 32)) & ((1 << bits) - 1)
                    s += Fraction(decode(prec, bw)) * Fraction(decode(prec, aw))
                temp[i] = round_f32(s)
            k += ops
        out += temp
    return out
