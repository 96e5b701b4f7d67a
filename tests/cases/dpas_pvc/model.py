"""DPAS on PVC (SIMD16, 64-byte GRF) through IGC's internal sub-group builtins: s8 x s8,
hf and tf32 into F accumulators, and hf into HF, bf into BF accumulators (16-bit Src0
and Dst). The reference is tools/dpas_ref.py on the registers as a SIMD16 thread holds
them: component `comp` of lane `lane` of a per-lane vector is element
`comp * 16 + lane` of its variable (16-bit vectors packed two elements per dword)."""
import os, random, struct, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tools"))
from dpas_ref import bf_bits, f32_bits, f32_of, fdpas, half_bits, idpas, pairs, s32  # noqa: E402

KERNEL = "dpas_pvc"
DEVICES = ["pvc"]
N = 32
SIMD = 16
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [16], "global_offset": [0]}
rng = random.Random(20261126)


INPUTS = {
    "a": [s32(rng.getrandbits(32)) for _ in range(N * 8)],
    "b": [s32(rng.getrandbits(32)) for _ in range(N * 8)],
    "c": [s32(rng.getrandbits(32)) for _ in range(N * 8)],
    "cf": [rng.uniform(-100, 100) for _ in range(N * 8)],
    "ah": pairs(rng, half_bits, -8, 8, N * 4),
    "bh": pairs(rng, half_bits, -8, 8, N * 8),
    "at": [rng.uniform(-8, 8) for _ in range(N * 4)],
    "bt": [rng.uniform(-8, 8) for _ in range(N * 8)],
    "ch": pairs(rng, half_bits, -100, 100, N * 4),
    "abf": pairs(rng, bf_bits, -8, 8, N * 4),
    "bbf": pairs(rng, bf_bits, -8, 8, N * 8),
    "cbf": pairs(rng, bf_bits, -100, 100, N * 4),
    "out": [0] * (N * 8 * 5),
}
FLOATS = ("cf", "at", "bt")
ARGS = [{"name": k, "kind": "buffer", "dtype": "float32" if k in FLOATS else
         ("uint32" if k == "out" else "int32"), "is_output": k == "out"} for k in INPUTS]


def words(buf):
    return [(f32_bits(v) if isinstance(v, float) else v) & 0xffffffff for v in buf]


def regs(buf, sg, comps):
    """Dwords of the SIMD16 variable holding `vloadN(g, buf)` (32-bit) of sub-group sg."""
    w = words(buf)
    return [w[(sg * SIMD + lane) * comps + comp] for comp in range(comps) for lane in range(SIMD)]


def regs16(buf, sg):
    """The same for `vload8(g, (short*)buf)`: 16-bit elements comp * 16 + lane, packed."""
    w = words(buf)
    h = [(w[(sg * SIMD + lane) * 4 + comp // 2] >> (16 * (comp % 2))) & 0xffff
         for comp in range(8) for lane in range(SIMD)]
    return [h[2 * j] | (h[2 * j + 1] << 16) for j in range(len(h) // 2)], h


def half_of(raw):
    return struct.unpack("<e", struct.pack("<H", raw))[0]


def to_bf(x):
    b = f32_bits(x)
    q, rem = b >> 16, b & 0xffff
    return q + (1 if rem > 0x8000 or (rem == 0x8000 and q & 1) else 0)


def expected(inp):
    out = [0] * (N * 8 * 5)

    def put(v, sg, vals):
        for r in range(8):
            for i in range(SIMD):
                out[(v * N + sg * SIMD + i) * 8 + r] = vals[r * SIMD + i] & 0xffffffff

    for sg in range(N // SIMD):
        put(0, sg, idpas("s8", "s8", 8, 8, regs(inp["c"], sg, 8), regs(inp["b"], sg, 8),
                         regs(inp["a"], sg, 8), SIMD))
        cf = [f32_of(w) for w in regs(inp["cf"], sg, 8)]
        ah, _ = regs16(inp["ah"], sg)
        bh = regs(inp["bh"], sg, 8)
        put(1, sg, [f32_bits(x) for x in fdpas("hf", 8, 8, cf, bh, ah, SIMD)])
        put(2, sg, [f32_bits(x) for x in fdpas("tf32", 8, 8, cf, regs(inp["bt"], sg, 8),
                                                regs(inp["at"], sg, 4), SIMD)])
        _, ch = regs16(inp["ch"], sg)
        res = fdpas("hf", 8, 8, [half_of(x) for x in ch], bh, ah, SIMD)
        put(3, sg, [half_bits(x) for x in res])  # f32 -> half, nearest even
        abf, _ = regs16(inp["abf"], sg)
        _, cbf = regs16(inp["cbf"], sg)
        res = fdpas("bf", 8, 8, [f32_of(x << 16) for x in cbf], regs(inp["bbf"], sg, 8), abf, SIMD)
        put(4, sg, [to_bf(x) for x in res])
    return {"out": out}
