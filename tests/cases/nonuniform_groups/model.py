"""Non-uniform work-groups (OpenCL 2.0, built with -cl-std=CL2.0): a 21 x 10 NDRange in
8 x 4 groups has a last column of 5-wide groups and a last row of 2-high ones. IGC reads
get_global_id through the enqueued local size and get_local_size from the payload, which
Intel's runtime fills per walker: the emulator runs the four kinds of groups as four
pieces over one memory. Expected values follow from the OpenCL 2.0 definitions."""

KERNEL = "nonuniform_groups"
DEVICES = ["tgllp", "acm-g10"]
FORCED_SIMD = [16]
OCLOC_OPTIONS = "-cl-std=CL2.0"
GW, GH, LW, LH = 21, 10, 8, 4
NDRANGE = {"work_dim": 2, "global_size": [GW, GH], "local_size": [LW, LH],
           "global_offset": [0, 0]}
NGX, NGY = -(-GW // LW), -(-GH // LH)
N, G = GW * GH, NGX * NGY
INPUTS = {"ids": [0] * N, "sizes": [0] * N, "counts": [-1] * G, "sums": [-1] * G,
          "total": [0]}
ARGS = [
    {"name": "ids", "kind": "buffer", "dtype": "int32", "is_output": True},
    {"name": "sizes", "kind": "buffer", "dtype": "int32", "is_output": True},
    {"name": "counts", "kind": "buffer", "dtype": "int32", "is_output": True},
    {"name": "sums", "kind": "buffer", "dtype": "int32", "is_output": True},
    {"name": "total", "kind": "buffer", "dtype": "int32", "is_output": True},
]


def expected(inputs):
    ids, sizes = [0] * N, [0] * N
    counts, sums = [0] * G, [0] * G
    for gy in range(GH):
        for gx in range(GW):
            lin = gy * GW + gx
            grx, gry = gx // LW, gy // LH
            lsx = min(LW, GW - grx * LW)
            lsy = min(LH, GH - gry * LH)
            ids[lin] = grx | gry << 8 | (gx % LW) << 16 | (gy % LH) << 24
            sizes[lin] = lsx | lsy << 8 | LW << 16 | LH << 24
            g = gry * NGX + grx
            counts[g] += 1
            sums[g] += lin
    return {"ids": ids, "sizes": sizes, "counts": counts, "sums": sums, "total": [N]}
