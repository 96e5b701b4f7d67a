"""16 work-items over a 12-word dst and a 40-byte src read from byte 1 on."""
import random

KERNEL = "word_unaligned_oob"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [16]
N = 16
SRC = 40
DST = 12
OFF = 1
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [N], "global_offset": [0]}
rng = random.Random(20261125)
INPUTS = {
    "src": [rng.randrange(256) for _ in range(SRC)],
    "dst": [0] * DST,
}
ARGS = [
    {"name": "src", "kind": "buffer", "dtype": "uint8", "is_output": False},
    {"name": "dst", "kind": "buffer", "dtype": "uint32", "is_output": True},
    {"name": "off", "kind": "scalar", "dtype": "uint32", "value": OFF},
]


def expected(inp):
    s = inp["src"]
    out = []
    for i in range(DST):
        a = OFF + 4 * i
        # A word reaching past the buffer reads as 0 (the whole access is out of bounds).
        out.append(int.from_bytes(bytes(s[a:a + 4]), "little") if a + 4 <= SRC else 0)
    return {"dst": out}
