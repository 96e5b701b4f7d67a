"""DPAS (acm-g10, SIMD8) through IGC's internal sub-group builtins: integer s8/u8/s4/u4/
u2/s2 mixes at RC 8 and 4, and hf/bf float DPAS. The model follows the DPAS page's
pseudo-code on the registers as a SIMD8 thread holds them: a per-lane `int8` value v is
the variable whose dword `comp * 8 + lane` is v[comp] of that lane. Float DPAS is not
specified bit-exactly by the page; like the emulator, each systolic stage's dot product
is exact and is added to the f32 accumulator with one rounding to nearest even (the
stage sums are computed here with fractions, independently of the emulator's code)."""
import random, struct
from fractions import Fraction

KERNEL = "dpas_mix"
DEVICES = ["acm-g10"]
N = 32
SIMD = 8
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [16], "global_offset": [0]}
rng = random.Random(20261125)


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def half_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def rand_pairs(enc):
    return [enc(rng.uniform(-8, 8)) | (enc(rng.uniform(-8, 8)) << 16) for _ in range(N * 8)]


def bf_bits(x):
    return f32_bits(x) >> 16  # truncation: any bf16 is a valid input


def s32(v):
    v &= 0xffffffff
    return v - (1 << 32) if v >> 31 else v


INPUTS = {
    "a": [s32(rng.getrandbits(32)) for _ in range(N * 8)],
    "b": [s32(rng.getrandbits(32)) for _ in range(N * 8)],
    "c": [s32(rng.getrandbits(32)) for _ in range(N * 8)],
    "cf": [rng.uniform(-100, 100) for _ in range(N * 8)],
    "ah": [s32(v) for v in rand_pairs(half_bits)],
    "bh": [s32(v) for v in rand_pairs(half_bits)],
    "abf": [s32(v) for v in rand_pairs(bf_bits)],
    "bbf": [s32(v) for v in rand_pairs(bf_bits)],
    "out": [0] * (N * 8 * 8),
}
ARGS = [{"name": k, "kind": "buffer", "dtype": "float32" if k == "cf" else "int32",
         "is_output": k == "out"} for k in INPUTS]

PREC = {"u1": (1, False), "s1": (1, True), "u2": (2, False), "s2": (2, True),
        "u4": (4, False), "s4": (4, True), "u8": (8, False), "s8": (8, True)}


def regs(buf, sg, comps):
    """Dwords of the SIMD8 variable holding `vloadN(g, buf)` of sub-group `sg`."""
    return [buf[(sg * SIMD + lane) * 8 + comp] & 0xffffffff
            for comp in range(comps) for lane in range(SIMD)]


def elem(dwords, idx, bits, signed):
    bit = idx * bits
    v = (dwords[bit // 32] >> (bit % 32)) & ((1 << bits) - 1)
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def idpas(w, a, sd, rc, c, src1, src2):
    (wb, ws), (ab, as_) = PREC[w], PREC[a]
    ops = 4 if 8 in (wb, ab) else 8
    per_chan = 32 // (ops * wb)
    out, k = [], 0
    for r in range(rc):
        temp = [c[r * SIMD + i] for i in range(SIMD)]
        for d in range(sd):
            m, first = d // per_chan, (d % per_chan) * ops
            for i in range(SIMD):
                b_dw = [src1[m * SIMD + i]]
                temp[i] += sum(elem(b_dw, first + j, wb, ws) * elem(src2, k + j, ab, as_)
                               for j in range(ops))
            k += ops
        out += [t & 0xffffffff for t in temp]
    return out


def decode_half(h):
    return struct.unpack("<e", struct.pack("<H", h))[0]


def decode_bf(h):
    return struct.unpack("<f", struct.pack("<I", h << 16))[0]


def round_f32(x):
    """Fraction -> nearest f32 (ties to even), as a Python float."""
    d = float(x)  # within an f32 ulp; the candidates around it decide exactly
    cands = set()
    for v in (d, struct.unpack("<f", struct.pack("<f", d))[0]):
        b = f32_bits(v)
        for nb in (b - 1, b, b + 1):
            if 0 <= nb < 0x7f800000 or 0x80000000 <= nb < 0xff800000:
                cands.add(struct.unpack("<f", struct.pack("<I", nb))[0])
    best = min(cands, key=lambda v: (abs(Fraction(v) - x), f32_bits(v) & 1))
    return best


def fdpas(dec, c, src1, src2):
    out, k = [], 0
    for r in range(8):
        temp = [struct.unpack("<f", struct.pack("<I", c[r * SIMD + i]))[0] for i in range(SIMD)]
        for d in range(8):
            for i in range(SIMD):
                bw = src1[d * SIMD + i]
                s = Fraction(temp[i])
                for j in range(2):
                    aw = (src2[(k + j) // 2] >> (16 * ((k + j) % 2))) & 0xffff
                    s += Fraction(dec((bw >> (16 * j)) & 0xffff)) * Fraction(dec(aw))
                temp[i] = round_f32(s)
            k += 2
        out += [f32_bits(t) for t in temp]
    return out


def expected(inp):
    out = [0] * (N * 8 * 8)
    cf_bits = [f32_bits(v) for v in inp["cf"]]

    def put(v, sg, dwords):
        # Row r, channel i of the destination is component r of lane i.
        for r in range(8):
            for i in range(SIMD):
                out[(v * N + sg * SIMD + i) * 8 + r] = s32(dwords[r * SIMD + i])

    for sg in range(N // SIMD):
        A, B, C = (regs(inp[x], sg, 8) for x in "abc")
        put(0, sg, idpas("s8", "s8", 8, 8, C, B, A))
        put(1, sg, idpas("s8", "u8", 8, 8, C, B, A))
        put(2, sg, idpas("u4", "s4", 8, 8, C, B, A))
        put(3, sg, idpas("s8", "u2", 8, 8, C, B, A))
        put(4, sg, idpas("s2", "s8", 8, 8, C, B, A))
        # RC 4 on cv.lo and av.hi; the upper four rows are cv.hi.
        put(5, sg, idpas("s8", "s8", 8, 4, C[:32], B, A[32:]) + C[32:])
        CF = regs(cf_bits, sg, 8)
        put(6, sg, fdpas(decode_half, CF, regs(inp["bh"], sg, 8), regs(inp["ah"], sg, 8)))
        put(7, sg, fdpas(decode_bf, CF, regs(inp["bbf"], sg, 8), regs(inp["abf"], sg, 8)))
    return {"out": out}
