"""A private array of 256 floats that IGC keeps in memory (tgllp: the %scratch surface;
acm-g10: stateless private memory through the private base pointer), filled in a loop
whose count is an argument, then read and updated at indices the input chooses. The
straight lane form runs it with owner tags on the private words (each channel touches
only its own array); an edited variant whose channels' arrays overlap runs in the thread
mapping (tests/conformance_gpu.rs). The expected values are exact float32 arithmetic in
the kernel's order (each sum and product of two floats rounded once to float32)."""
import random
import struct

KERNEL = "private_pick"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [8]
N, L = 64, 32
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [L], "global_offset": [0]}
rng = random.Random(20261207)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


A = [f32(rng.uniform(-2.0, 2.0)) for _ in range(1024)]
IDX = [rng.randint(-100000, 100000) for _ in range(256)]
INPUTS = {"a": A, "idx": IDX, "o": [0.0] * N}
ARGS = [
    {"name": "a", "kind": "buffer", "dtype": "float32", "is_output": False},
    {"name": "idx", "kind": "buffer", "dtype": "int32", "is_output": False},
    {"name": "o", "kind": "buffer", "dtype": "float32", "is_output": True},
    {"name": "n", "kind": "scalar", "dtype": "int32", "value": 256},
]


def expected(inputs):
    a = inputs["a"]
    out = []
    for i in range(N):
        t = [a[(i * 5 + k) & 1023] for k in range(256)]
        s = 0.0
        for k in range(8):
            j = inputs["idx"][(i + k) & 255] & 255
            t[j] = f32(f32(t[j] * 0.5) + s)
            s = f32(s + t[(j + 3) & 255])
        out.append(s)
    return {"o": out}
