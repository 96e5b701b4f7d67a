"""Sub-group shuffles, block reads/writes, reductions, scans, ballots and non-uniform
operations at SIMD16 (intel_reqd_sub_group_size(16)): an exact Python model of
cl_intel_subgroups, cl_intel_subgroups_short/char and the cl_khr_subgroup_* extensions.
A sub-group is 16 consecutive work-items of a 64-item work-group."""
import random
import struct

KERNEL = "subgroup_khr_ext"
DEVICES = ["tgllp", "acm-g10"]
OCLOC_OPTIONS = "-cl-std=CL3.0"
N = 256
SG = 16
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [64], "global_offset": [0]}
M = 0xFFFFFFFF


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


rng = random.Random(20261128)
A = [rng.randrange(1 << 32) for _ in range(N * 4)]
for k in range(0, N, SG):
    A[k] |= 1  # every sub-group has a ballot bit and an active non-uniform item
S = [rng.randrange(1 << 16) for _ in range(N * 2)]
C = [rng.randrange(256) for _ in range(N * 4)]
L = [rng.randrange(-(1 << 63), 1 << 63) for _ in range(N)]
L[3] = -(1 << 63)
L[20] = (1 << 63) - 1
F = [f32(rng.uniform(-1e6, 1e6)) for _ in range(N)]
F[5] = float("inf")
F[40] = float("-inf")
F[77] = 1e-40
INPUTS = {"a": A, "s": S, "c": C, "l": L, "f": F, "o_shuf": [0] * N, "o_bs": [0] * (N * 2),
          "o_bc": [0] * (N * 4), "o_red": [0] * (N * 4), "o_fred": [0.0] * (N * 3),
          "o_bal": [0] * (N * 4), "o_nonuni": [0] * N}
ARGS = [{"name": "a", "kind": "buffer", "dtype": "uint32", "is_output": False},
        {"name": "s", "kind": "buffer", "dtype": "uint16", "is_output": False},
        {"name": "c", "kind": "buffer", "dtype": "uint8", "is_output": False},
        {"name": "l", "kind": "buffer", "dtype": "int64", "is_output": False},
        {"name": "f", "kind": "buffer", "dtype": "float32", "is_output": False},
        {"name": "o_shuf", "kind": "buffer", "dtype": "uint32", "is_output": True},
        {"name": "o_bs", "kind": "buffer", "dtype": "uint16", "is_output": True},
        {"name": "o_bc", "kind": "buffer", "dtype": "uint8", "is_output": True},
        {"name": "o_red", "kind": "buffer", "dtype": "int64", "is_output": True},
        {"name": "o_fred", "kind": "buffer", "dtype": "float32", "is_output": True},
        {"name": "o_bal", "kind": "buffer", "dtype": "uint32", "is_output": True},
        {"name": "o_nonuni", "kind": "buffer", "dtype": "uint32", "is_output": True}]


def s64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def expected(inputs):
    a, s, c, l, f = inputs["a"], inputs["s"], inputs["c"], inputs["l"], inputs["f"]
    o_shuf = [0] * N
    o_bs = [0] * (N * 2)
    o_bc = [0] * (N * 4)
    o_red = [0] * (N * 4)
    o_fred = [0.0] * (N * 3)
    o_bal = [0] * (N * 4)
    o_nonuni = [0] * N
    for sg in range(N // SG):
        ids = list(range(sg * SG, sg * SG + SG))
        x = [a[i] for i in ids]
        y = [a[i ^ 0x40] for i in ids]
        ballot = sum(1 << j for j in range(SG) if x[j] & 3)
        active = [j for j in range(SG) if x[j] & 5]
        nu_sum = sum(x[j] & 0xFFFF for j in active) & M
        for j, i in enumerate(ids):
            d = (x[j] >> 3) & 15
            dn = x[j + d] if j + d < SG else y[j + d - SG]
            u = (x[j] >> 9) & 15
            up = x[j - u] if j - u >= 0 else y[j - u + SG]
            src = (j * 5 + 1) & 15
            v2 = (x[src] + y[src] * 3) & M
            blk = [a[sg * 64 + k * SG + j] for k in range(4)]
            bsum = (blk[0] + blk[1] * 5 + blk[2] * 7 + blk[3] * 11) & M
            o_shuf[i] = dn ^ ((up << 1) & M) ^ v2 ^ bsum
            bs = [s[sg * 32 + k * SG + j] for k in range(2)]
            bc = [c[sg * 64 + k * SG + j] for k in range(4)]
            o_bs[sg * 32 + 0 * SG + j] = (bs[0] * 3 + bc[0]) & 0xFFFF
            o_bs[sg * 32 + 1 * SG + j] = (bs[1] * 5 + bc[3]) & 0xFFFF
            for k in range(4):
                o_bc[sg * 64 + k * SG + j] = bc[k] ^ j
            li = [l[t] for t in ids]
            o_red[i * 4 + 0] = max(li)
            o_red[i * 4 + 1] = min(li)
            o_red[i * 4 + 2] = s64(sum(v & ((1 << 64) - 1) for v in li[:j]))
            o_red[i * 4 + 3] = max(li[:j + 1])
            fi = [f[t] for t in ids]
            o_fred[i * 3 + 0] = min(fi)
            o_fred[i * 3 + 1] = max(fi[:j + 1])
            cl = j // 4 * 4
            o_fred[i * 3 + 2] = max(fi[cl:cl + 4])
            o_bal[i * 4 + 0] = ballot
            o_bal[i * 4 + 1] = bin(ballot).count("1")
            lsb = (ballot & -ballot).bit_length() - 1
            msb = ballot.bit_length() - 1
            scan = bin(ballot & ((2 << j) - 1)).count("1")
            inv = (ballot >> j) & 1
            o_bal[i * 4 + 2] = (lsb | (msb << 8) | (scan << 16) | (inv << 24)) & M
            c8 = j // 8 * 8
            o_bal[i * 4 + 3] = sum(v & 0xFF for v in x[c8:c8 + 8])
            if j in active:
                elect = 0x80000000 if j == active[0] else 0
                before = [x[t] >> 20 for t in active if t < j]
                o_nonuni[i] = ((nu_sum ^ elect) + (max(before) if before else 0)) & M
            else:
                o_nonuni[i] = M
    return {"o_shuf": o_shuf, "o_bs": o_bs, "o_bc": o_bc, "o_red": o_red, "o_fred": o_fred,
            "o_bal": o_bal, "o_nonuni": o_nonuni}
