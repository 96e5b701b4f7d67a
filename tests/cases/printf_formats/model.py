"""printf through IGC's printf buffer: each work-item below n prints two lines, item 0 a
third; the expected text is C's formatting (Python's % follows C for these
conversions; OpenCL's %v2d prints the elements joined by commas)."""
KERNEL = "printf_formats"
DEVICES = ["tgllp"]
# SIMD8 besides IGC's SIMD32: a quarter of the code, so lavapipe compiles it in CI.
FORCED_SIMD = [8]
N = 32
F = 1.5
NP = 5
NDRANGE = {"work_dim": 1, "global_size": [N], "local_size": [16], "global_offset": [0]}
INPUTS = {"dst": [0] * N}
ARGS = [{"name": "dst", "kind": "buffer", "dtype": "int32", "is_output": True},
        {"name": "f", "kind": "scalar", "dtype": "float32", "value": F},
        {"name": "n", "kind": "scalar", "dtype": "int32", "value": NP}]


def expected(inp):
    return {"dst": [2 * g for g in range(N)]}


def cx(v):
    """C's %#x: no 0x prefix for zero (Python's %#x writes 0x0)."""
    return "%#x" % v if v else "0"


def expected_printf(inp):
    out = []
    for g in range(NP):
        out.append("item %d: f=%f e=%.3e g=%g s=%s c=%c\n" % (g, F * g, F * g, F + g, "str", 65 + g))
        out.append("x=%s X=%08X o=%o u=%u w=[%-5d|%5d] l=%d v=%d,%d\n" % (
            cx(g * 255), g * 4660, g, (-g) & 0xffffffff, g, -g, g << 40, g, -g))
    out.append("all% done\n")
    return "".join(out)
