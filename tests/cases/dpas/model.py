"""DPAS (acm-g10, SIMD8) through IGC's internal sub-group builtins: integer s8/u8/s4/u4/
u2/s2 mixes at RC 8 and 4, and hf/bf float DPAS. The reference is tools/dpas_ref.py on
the registers as a SIMD8 thread holds them: a per-lane `int8` value v is the variable
whose dword `comp * 8 + lane` is v[comp] of that lane."""
import os, random, struct, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tools"))
from dpas_ref import bf_bits, f32_bits, f32_of, fdpas, half_bits, idpas, pairs, s32  # noqa: E402

KERNEL = "dpas_mix"
DEVICES = ["acm-g10"]
N = 32
SIMD = 8
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [16], "global_offset": [0]}
rng = random.Random(20261125)


INPUTS = {
    "a": [s32(rng.getrandbits(32)) for _ in range(N * 8)],
    "b": [s32(rng.getrandbits(32)) for _ in range(N * 8)],
    "c": [s32(rng.getrandbits(32)) for _ in range(N * 8)],
    "cf": [rng.uniform(-100, 100) for _ in range(N * 8)],
    "ah": pairs(rng, half_bits, -8, 8, N * 8),
    "bh": pairs(rng, half_bits, -8, 8, N * 8),
    "abf": pairs(rng, bf_bits, -8, 8, N * 8),
    "bbf": pairs(rng, bf_bits, -8, 8, N * 8),
    "out": [0] * (N * 8 * 8),
}
ARGS = [{"name": k, "kind": "buffer", "dtype": "float32" if k == "cf" else "int32",
         "is_output": k == "out"} for k in INPUTS]


def regs(buf, sg, comps):
    """Dwords of the SIMD8 variable holding `vloadN(g, buf)` of sub-group `sg`."""
    return [buf[(sg * SIMD + lane) * 8 + comp] & 0xffffffff
            for comp in range(comps) for lane in range(SIMD)]


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
        put(0, sg, idpas("s8", "s8", 8, 8, C, B, A, SIMD))
        put(1, sg, idpas("s8", "u8", 8, 8, C, B, A, SIMD))
        put(2, sg, idpas("u4", "s4", 8, 8, C, B, A, SIMD))
        put(3, sg, idpas("s8", "u2", 8, 8, C, B, A, SIMD))
        put(4, sg, idpas("s2", "s8", 8, 8, C, B, A, SIMD))
        # RC 4 on cv.lo and av.hi; the upper four rows are cv.hi.
        put(5, sg, idpas("s8", "s8", 8, 4, C[:32], B, A[32:], SIMD) + C[32:])
        CF = [f32_of(w) for w in regs(cf_bits, sg, 8)]
        for v, prec, bx, ax in ((6, "hf", "bh", "ah"), (7, "bf", "bbf", "abf")):
            res = fdpas(prec, 8, 8, CF, regs(inp[bx], sg, 8), regs(inp[ax], sg, 8), SIMD)
            put(v, sg, [f32_bits(x) for x in res])
    return {"out": out}
