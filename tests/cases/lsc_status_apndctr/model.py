"""lsc_load_status and lsc_apndctr_atomic_add (LSC_UNTYPED sub-ops 0x1B, 0x28), which
IGC does not emit for OpenCL: PATCH rewrites its load of src[idx[i]] into a status load
(bit n of the first dword: channel n enabled and its address inside the surface;
element 0 is broadcast and lane n keeps bit n, so status[i] = idx[i] < 40 at any SIMD
width) and its work-group-aggregated atomic_add on
ctr[0] (an SVM atomic on a prefix sum) into an append-counter add of w[i] on ctr's
surface, whose old values index mark. Every w[i] is 1, so the old values are a
permutation of 0..N-1 whatever the order of the threads, every mark[k] is set to 1,
and ctr itself is never written (the counter lives in surface state)."""
import random

KERNEL = "lsc_status_apndctr"
DEVICES = ["acm-g10"]
# SIMD8 besides IGC's SIMD16, so lavapipe compiles it quickly in CI.
FORCED_SIMD = [8]
N = 64
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [32], "global_offset": [0]}
LEN = 40
rng = random.Random(20261125)

LD_SRC = r"lsc_load\.ugm\.ca\.ca \((M\d), (\d+)\)\s+(\S+):d32\s+bti\(0x0\)\[(\w+)\]:a32"
# From the load of w[i] (surface 4) to the add that turns the prefix sum into old
# values: the aggregated atomic.
AGG = (r"(\n\s+lsc_load\.ugm\.ca\.ca \((M\d), (\d+)\)\s+(\w+):d32\s+bti\(0x4\)\[\w+\]:a32[^\n]*)"
       r"[\s\S]*?svm_atomic\.add[\s\S]*?\n\s+add \(M1, \d+\) (\w+)\(0,0\)<1> \w+\(0,0\)<1;1,0> "
       r"\(-\)\4\(0,0\)<1;1,0>[^\n]*")
# The store of status[i] (surface 2) as STORE_UNCOMPRESSED, which LSC_UNTYPED's page
# gives STORE's pseudo-code.
ST_STATUS = r"lsc_store\.ugm\.wb\.wb \((M\d), (\d+)\)\s+bti\(0x2\)"
PATCH_NOTE = ("lsc_load_status of src[idx[i]]; lsc_apndctr_atomic_add of w[i] on ctr's "
              "surface instead of IGC's aggregated atomic_add; status stored by "
              "lsc_store_uncompressed (tools/make_case.py PATCH)")


def PATCH(width):
    return [
        (LD_SRC, r"lsc_load_status.ugm (\1, \2)  \3:d32  bti(0x0)[\4]:a32", 1),
        (AGG, r"\1\n    lsc_apndctr_atomic_add.ugm (\2, \3)  \5:d32  bti(0x3)  \4:d32", 1),
        (ST_STATUS, r"lsc_store_uncompressed.ugm.wb.wb (\1, \2)  bti(0x2)", 1),
    ]


# Some indices past the end of src (40 elements): their lanes' status bits are clear.
IDX = [rng.randrange(LEN + 8) if i % 3 else i % LEN for i in range(N)]
INPUTS = {
    "src": [rng.getrandbits(32) for _ in range(LEN)],
    "idx": IDX,
    "status": [0] * N,
    "ctr": [0x5555],
    "w": [1] * N,
    "mark": [0] * N,
}
ARGS = [
    {"name": "src", "kind": "buffer", "dtype": "uint32", "is_output": False},
    {"name": "idx", "kind": "buffer", "dtype": "uint32", "is_output": False},
    {"name": "status", "kind": "buffer", "dtype": "uint32", "is_output": True},
    {"name": "ctr", "kind": "buffer", "dtype": "uint32", "is_output": True},
    {"name": "w", "kind": "buffer", "dtype": "uint32", "is_output": False},
    {"name": "mark", "kind": "buffer", "dtype": "uint32", "is_output": True},
]


def expected(inp):
    return {
        "status": [int(k < LEN) for k in inp["idx"]],
        "ctr": list(inp["ctr"]),
        "mark": [1] * N,
    }
