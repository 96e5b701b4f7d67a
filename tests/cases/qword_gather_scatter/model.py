"""QW_GATHER / QW_SCATTER: IGC (tgllp) copies each ulong with gather4_scaled.RG and
scatter4_scaled.RG (the low dwords of every lane, then the high ones); PATCH turns them
into qw_gather.1 / qw_scatter.1 on the same offsets and registers (each lane's qword in
its 8-byte element; IGC's row moves between the two keep the bytes), so the copy, with
neighbours swapped, checks the per-lane byte offsets of both. QW_GATHER is a PVC
instruction; the emulator runs it whatever the platform."""
import random

KERNEL = "qword_gather_scatter"
DEVICES = ["tgllp"]
FORCED_SIMD = [8]
N = 64
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [32], "global_offset": [0]}
rng = random.Random(20261127)

GATHER = r"gather4_scaled\.RG \((M\d), (\d+)\) (T\d+) 0x0:ud (\S+) (\S+)"
SCATTER = r"scatter4_scaled\.RG \((M\d), (\d+)\) (T\d+) 0x0:ud (\S+) (\S+)"
PATCH_NOTE = ("qw_gather.1 / qw_scatter.1 from IGC's gather4_scaled.RG / scatter4_scaled.RG "
              "(tools/make_case.py PATCH)")


def PATCH(width):
    halves = max(1, width // 16)
    return [
        (GATHER, r"qw_gather.1 (\1, \2) \3 \4 \5", halves),
        (SCATTER, r"qw_scatter.1 (\1, \2) \3 \4 \5", halves),
    ]


INPUTS = {"src": [rng.getrandbits(64) for _ in range(N)], "dst": [0] * N}
ARGS = [
    {"name": "src", "kind": "buffer", "dtype": "uint64", "is_output": False},
    {"name": "dst", "kind": "buffer", "dtype": "uint64", "is_output": True},
]


def expected(inp):
    return {"dst": [inp["src"][g ^ 1] for g in range(N)]}
