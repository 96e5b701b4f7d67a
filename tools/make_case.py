#!/usr/bin/env python3
"""Build a case folder in the corpus layout from an OpenCL kernel and a Python model.

    python3 tools/make_case.py CASE_DIR

CASE_DIR holds kernel.cl and model.py; model.py defines KERNEL, ARGS (list of dicts:
name, kind buffer|scalar, dtype, count or value, is_output), NDRANGE, INPUTS (name -> list
of values, for buffers and images) and expected(inputs) -> {name: list}; a kernel that
calls printf adds expected_printf(inputs) -> text (expected/printf.txt). An image
argument also carries "image": {type 1d|2d|3d, width, height, depth, channel_order,
channel_type} (OpenCL names); its values are the packed texels in dtype. The script compiles the kernel
with Debian's ocloc for each device in DEVICES, keeps the dumped .visaasm/.isa whose SIMD
width matches the binary, and writes case.json, inputs/ and expected/. The reference is the
Python model (no PoCL run), stated in case.json.

An instruction that OpenCL cannot spell (TYPED_ATOMIC) is tested through PATCH in
model.py: a list of (regex, replacement, count) applied in order to IGC's .visaasm, each
to the first `count` matches left. A patched variant keeps no kernel.isa (it would be
the unpatched kernel), and case.json records the patch. OCLOC_OPTIONS in model.py are
the build options (`ocloc -options`, e.g. -cl-std=CL2.0), recorded as ocloc_options.
TOLERANCE in model.py maps an output to its tolerance (the corpus format: exact, ulp with
ulp/check_ulp, abs_rel); outputs it does not name are exact.
"""
import glob, json, os, re, shutil, struct, subprocess, sys, tempfile

FMT = {"int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "int32": "i", "uint32": "I",
       "int64": "q", "uint64": "Q", "float16": "e", "float32": "f", "float64": "d"}


def pack(dtype, values):
    return struct.pack("<%d%s" % (len(values), FMT[dtype]), *values)


def binary_simd(path):
    """LargestCompiledSIMDSize from the EXECUTION_ENVIRONMENT token (23) of the .bin."""
    b = open(path, "rb").read()
    i = b.find(struct.pack("<I", 0x494E5443))
    o = i + 28 + struct.unpack_from("<I", b, i + 24)[0]
    _, _, ns, pl, kh, g, d, ss, _ = struct.unpack_from("<IQ7I", b, o)
    p, lst = 0, o + 40 + ns + kh + g + d + ss
    while p < pl:
        t, size = struct.unpack_from("<II", b, lst + p)
        if t == 23:
            return struct.unpack_from("<I", b, lst + p + 8 + 12)[0]
        p += size
    raise SystemExit("no execution environment in " + path)


def function_dumps(dump, asm, width):
    """The .global_function objects the kernel reaches (.funcdecl, fcall, faddr), in
    IGC's NAME_fN.visaasm files: beside the kernel's dump, or (indirect calls) beside
    the program's symbol-table dump."""
    def wants(path):
        t = open(path).read()
        return re.findall(r'^\.funcdecl "([^"]+)"', t, re.M) + \
            re.findall(r'^\s*(?:\([^)]*\)\s*)?(?:fcall \([^)]*\)|faddr) (\S+)', t, re.M)
    have = {}
    for f in sorted(glob.glob(os.path.join(dump, "*_simd%d_*_f*.visaasm" % width))):
        m = re.search(r'^\.global_function "([^"]+)"', open(f).read(), re.M)
        if m:
            have.setdefault(m.group(1), f)
    order, work = [], wants(asm)
    while work:
        w = work.pop(0)
        if w in order:
            continue
        if w not in have:
            raise SystemExit("no dumped function for " + w)
        order.append(w)
        work += wants(have[w])
    return [have[w] for w in order]


def apply_patch(path, patch):
    text = open(path).read()
    for pattern, repl, count in patch:
        text, done = re.subn(pattern, repl, text, count=count, flags=re.M)
        if done != count:
            raise SystemExit("%s: PATCH %r matched %d times, not %d" % (path, pattern, done, count))
    open(path, "w").write(text)


def compile_variant(case, device, simd=None, extra_env=None, patch=None, options=None):
    with tempfile.TemporaryDirectory() as tmp:
        dump, out = os.path.join(tmp, "dump"), os.path.join(tmp, "out")
        os.makedirs(dump); os.makedirs(out)
        env = dict(os.environ, IGC_ShaderDumpEnable="1", IGC_DumpToCustomDir=dump, **(extra_env or {}))
        if simd:
            env["IGC_ForceOCLSIMDWidth"] = str(simd)
        subprocess.run(["ocloc", "compile", "-file", os.path.join(case, "kernel.cl"), "-device", device,
                        "-output", "kernel", "-out_dir", out]
                       + (["-options", options] if options else []),
                       env=env, check=True, capture_output=True)
        bins = glob.glob(os.path.join(out, "*.bin"))
        asms = sorted(glob.glob(os.path.join(dump, "*_simd*_entry_*.visaasm")))
        widths = [int(re.search(r"_simd(\d+)_", a).group(1)) for a in asms]
        # Keep the dump whose width is the one the binary was built for (the corpus rule).
        width = simd or binary_simd(bins[0])
        asm = [a for a, w in zip(asms, widths) if w == width][0]
        vdir = os.path.join(case, "%s-simd%d" % (device, width))
        os.makedirs(vdir, exist_ok=True)
        shutil.copy(asm, os.path.join(vdir, "kernel.visaasm"))
        if patch:
            apply_patch(os.path.join(vdir, "kernel.visaasm"), patch(width))
        else:
            shutil.copy(asm[: -len(".visaasm")] + ".isa", os.path.join(vdir, "kernel.isa"))
        shutil.copy(bins[0], os.path.join(vdir, "kernel.bin"))
        for n, f in enumerate(function_dumps(dump, asm, width)):
            shutil.copy(f, os.path.join(vdir, "kernel_f%d.visaasm" % n))
        return {"dir": os.path.basename(vdir), "device": device, "simd": width,
                "default": simd is None, "forced": simd is not None}


def main():
    case = sys.argv[1]
    sys.path.insert(0, case)
    import model
    os.makedirs(os.path.join(case, "inputs"), exist_ok=True)
    os.makedirs(os.path.join(case, "expected"), exist_ok=True)
    args = []
    for i, a in enumerate(model.ARGS):
        e = dict(a, index=i)
        if a["kind"] in ("buffer", "image"):
            vals = model.INPUTS[a["name"]]
            e["count"] = len(vals)
            e["bytes"] = len(pack(a["dtype"], vals))
            e["input_file"] = "inputs/%s.bin" % a["name"]
            with open(os.path.join(case, e["input_file"]), "wb") as f:
                f.write(pack(a["dtype"], vals))
        elif a["kind"] == "sampler":
            pass  # "value": the CLK_* bits the host passes (clSetKernelArg of a sampler)
        else:
            e["bytes_hex"] = pack(a["dtype"], [a["value"]]).hex()
        args.append(e)
    outputs = []
    for name, vals in model.expected(model.INPUTS).items():
        dtype = next(a["dtype"] for a in model.ARGS if a["name"] == name)
        with open(os.path.join(case, "expected", name + ".bin"), "wb") as f:
            f.write(pack(dtype, vals))
        tolerance = getattr(model, "TOLERANCE", {}).get(name, {"type": "exact"})
        outputs.append({"arg": name, "file": "expected/%s.bin" % name, "dtype": dtype,
                        "count": len(vals), "tolerance": tolerance})
    # printf output: expected_printf(inputs) -> text, compared as sorted lines.
    if hasattr(model, "expected_printf"):
        with open(os.path.join(case, "expected", "printf.txt"), "w") as f:
            f.write(model.expected_printf(model.INPUTS))
    extra_env = getattr(model, "IGC_ENV", None)
    patch = getattr(model, "PATCH", None)
    options = getattr(model, "OCLOC_OPTIONS", None)
    variants = [compile_variant(case, d, extra_env=extra_env, patch=patch, options=options)
                for d in model.DEVICES]
    # Widths forced with IGC_ForceOCLSIMDWidth besides the default (model.FORCED_SIMD).
    # (a width equal to IGC's default for the device is not compiled twice).
    have = {(v["device"], v["simd"]) for v in variants}
    variants += [compile_variant(case, d, simd=w, extra_env=extra_env, patch=patch, options=options)
                 for w in getattr(model, "FORCED_SIMD", []) for d in model.DEVICES
                 if (d, w) not in have]
    doc = {"name": os.path.basename(case.rstrip("/")), "kernel": model.KERNEL, "args": args,
           "ndrange": model.NDRANGE, "outputs": outputs, "variants": variants,
           **({"igc_env": extra_env} if extra_env else {}),
           **({"ocloc_options": options} if options else {}),
           **({"visaasm_patch": getattr(model, "PATCH_NOTE", "model.py PATCH")} if patch else {}),
           "reference": "Python model (tools/make_case.py + model.py); compiled by Debian ocloc "
                        + subprocess.run(["dpkg-query", "-W", "-f=${Version}", "intel-opencl-icd"],
                                         capture_output=True, text=True).stdout}
    with open(os.path.join(case, "case.json"), "w") as f:
        json.dump(doc, f, indent=1)


main()
