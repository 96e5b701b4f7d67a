#!/usr/bin/env python3
"""Time an OpenCL kernel on PoCL for `visa-emu bench` (the PoCL column).

Usage: pocl_bench.py --probe            print {"platform", "device"} of PoCL's CPU device
       pocl_bench.py REQUEST.json       build and run as the request says, print timings

The request (written by src/cli/bench_pocl.rs): source, kernel, options, global, local,
offset, runs, and args in kernel order, each {"kind": "buffer", "file": ...},
{"kind": "scalar", "hex": ...} or {"kind": "local", "bytes": N}. Output (one JSON line):
platform, device, build_ms, run_ms (kernel time of each run from profiling events),
wall_ms (each run's enqueue-to-finish wall time, uploads excluded).
Exit status 2 and a message on stderr when pyopencl or a PoCL platform is missing.
"""
import json
import sys
import time

try:
    import numpy as np
    import pyopencl as cl
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"pyopencl/numpy not available: {e}", file=sys.stderr)
    sys.exit(2)


def pocl_device():
    for p in cl.get_platforms():
        if "Portable Computing Language" in p.name or "pocl" in p.name.lower():
            devs = p.get_devices()
            if devs:
                return p, devs[0]
    return None, None


def main():
    platform, device = pocl_device()
    if device is None:
        print("no PoCL platform (install pocl-opencl-icd)", file=sys.stderr)
        sys.exit(2)
    if sys.argv[1:] == ["--probe"]:
        print(json.dumps({"platform": platform.name, "device": device.name}))
        return
    req = json.load(open(sys.argv[1]))
    ctx = cl.Context([device])
    q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    src = open(req["source"]).read()
    t = time.perf_counter()
    prg = cl.Program(ctx, src).build(options=req.get("options", ""))
    kernel = getattr(prg, req["kernel"])
    build_ms = (time.perf_counter() - t) * 1e3
    mf = cl.mem_flags
    buffers = []
    for i, a in enumerate(req["args"]):
        if a["kind"] == "buffer":
            data = np.fromfile(a["file"], dtype=np.uint8)
            buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=data) if data.size \
                else cl.Buffer(ctx, mf.READ_WRITE, 4)
            buffers.append((buf, data))
            kernel.set_arg(i, buf)
        elif a["kind"] == "scalar":
            kernel.set_arg(i, np.frombuffer(bytes.fromhex(a["hex"]), dtype=np.uint8))
        elif a["kind"] == "local":
            kernel.set_arg(i, cl.LocalMemory(max(1, int(a["bytes"]))))
        else:
            print(f"argument {i}: unknown kind {a['kind']}", file=sys.stderr)
            sys.exit(1)
    glob = tuple(req["global"])
    local = tuple(req["local"]) if req.get("local") else None
    offset = tuple(req["offset"]) if req.get("offset") and any(req["offset"]) else None
    run_ms, wall_ms = [], []
    for r in range(int(req["runs"]) + 1):
        # Every run starts from the inputs (in-place kernels).
        for buf, data in buffers:
            if data.size:
                cl.enqueue_copy(q, buf, data)
        q.finish()
        t = time.perf_counter()
        ev = cl.enqueue_nd_range_kernel(q, kernel, glob, local, global_work_offset=offset)
        ev.wait()
        w = (time.perf_counter() - t) * 1e3
        if r > 0:  # the first run warms up
            run_ms.append((ev.profile.end - ev.profile.start) * 1e-6)
            wall_ms.append(w)
    print(json.dumps({
        "platform": platform.name,
        "device": device.name,
        "build_ms": build_ms,
        "run_ms": run_ms,
        "wall_ms": wall_ms,
    }))


if __name__ == "__main__":
    main()
