//! The command line: `disasm` output reads back through `info` with the same
//! instruction count; errors are clear and exit non-zero.

mod common;

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_visa-emu"))
}

fn count(info: &str) -> usize {
    info.lines()
        .find_map(|l| l.split("instructions ").nth(1))
        .and_then(|n| n.trim().parse().ok())
        .expect("info prints an instruction count")
}

#[test]
fn disasm_reads_back_with_the_same_instruction_count() {
    let dir = std::env::temp_dir().join(format!("visa-emu-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for case in [
        "saxpy/tgllp-simd32",
        "noinline_calls/acm-g10-simd16",
        "slm_reduce/tgllp-simd8",
    ] {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/corpus")
            .join(case)
            .join("kernel.visaasm");
        let info1 = bin().arg("info").arg(&src).output().unwrap();
        assert!(info1.status.success());
        let dis = bin().arg("disasm").arg(&src).output().unwrap();
        assert!(dis.status.success());
        let out = dir.join("k.visaasm");
        std::fs::write(&out, &dis.stdout).unwrap();
        let info2 = bin().arg("info").arg(&out).output().unwrap();
        assert!(
            info2.status.success(),
            "{}",
            String::from_utf8_lossy(&info2.stderr)
        );
        assert_eq!(
            count(&String::from_utf8_lossy(&info1.stdout)),
            count(&String::from_utf8_lossy(&info2.stdout)),
            "{case}"
        );
    }
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("visa-emu-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.visaasm");
    std::fs::write(
        &f,
        ".version 4.1\n.kernel \"k\"\n    frobnicate (M1, 8) V1 V2\n",
    )
    .unwrap();
    let o = bin().arg("info").arg(&f).output().unwrap();
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("line 3") && e.contains("mnemonic"), "{e}");
}

/// `y.bin` under `out` is the bundled saxpy run with `a=1.0`, `n=16`: the first 16
/// elements are x + y, the rest untouched.
fn check_saxpy_a1_n16(root: &std::path::Path, out: &std::path::Path) {
    let f = |b: &[u8], i: usize| f32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    let x = std::fs::read(root.join("examples/saxpy/inputs/x.bin")).unwrap();
    let y0 = std::fs::read(root.join("examples/saxpy/inputs/y.bin")).unwrap();
    let y = std::fs::read(out.join("y.bin")).unwrap();
    for i in 0..16 {
        assert_eq!(f(&y, i), f(&x, i) + f(&y0, i), "element {i}");
    }
    assert_eq!(
        &y[64..],
        &y0[64..],
        "n=16: elements from 16 on are untouched"
    );
}

#[test]
fn run_with_overridden_arguments_writes_outputs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!("visa-emu-run-{}", std::process::id()));
    let o = bin()
        .arg("run")
        .arg(root.join("examples/saxpy/tgllp-simd16"))
        .args(["--set", "a=1.0", "--set", "n=16", "--out-dir"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check_saxpy_a1_n16(root, &out);
    let bad = bin()
        .arg("run")
        .arg(root.join("examples/saxpy/tgllp-simd16"))
        .args(["--set", "nosuch=1"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no argument `nosuch`"));
}

#[test]
fn run_on_the_gpu_path_and_validate_across_adapters() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let variant = root.join("examples/saxpy/tgllp-simd16");
    let out = std::env::temp_dir().join(format!("visa-emu-gpu-run-{}", std::process::id()));
    let wgsl = out.join("saxpy.wgsl");
    std::fs::create_dir_all(&out).unwrap();
    // `run --backend vulkan` (lavapipe in CI) with changed arguments, and its WGSL.
    let o = bin()
        .arg("run")
        .arg(&variant)
        .args([
            "--backend",
            "vulkan",
            "--set",
            "a=1.0",
            "--set",
            "n=16",
            "--out-dir",
        ])
        .arg(&out)
        .arg("--wgsl")
        .arg(&wgsl)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // saxpy runs in the straight lane form by default (`--mapping auto`).
    assert!(String::from_utf8_lossy(&o.stdout).contains("ran on the GPU (straight mapping)"));
    assert!(std::fs::read_to_string(&wgsl)
        .unwrap()
        .contains("fn run_lane"));
    check_saxpy_a1_n16(root, &out);

    // `validate`: the interpreter is the reference, every usable adapter agrees.
    let json = out.join("validate.json");
    let o = bin()
        .arg("validate")
        .arg(&variant)
        .arg("--lanes")
        .arg("--json")
        .arg(&json)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let targets = report[0]["targets"].as_array().unwrap();
    assert_eq!(targets[0]["verdict"], "reference");
    assert_eq!(targets[0]["expected_outputs"], "pass");
    assert!(
        targets.iter().any(|t| t["verdict"] == "agree"),
        "no adapter ran it: {targets:?}"
    );
    // wgpu's GL backend (no 64-bit types: the modules run lowered) agrees too.
    assert!(
        targets.iter().any(|t| t["verdict"] == "agree"
            && t["target"].as_str().is_some_and(|n| n.starts_with("gl "))),
        "the GL backend did not agree: {targets:?}"
    );
    // Each adapter runs the mapping `run` picks (saxpy: straight) and names it.
    assert!(
        targets.iter().any(|t| t["verdict"] == "agree"
            && t["target"]
                .as_str()
                .is_some_and(|n| n.ends_with("[straight]"))),
        "no target ran the straight form: {targets:?}"
    );
    // `--lanes`: the lane mapping of the same adapter agrees too.
    assert!(
        targets.iter().any(|t| t["verdict"] == "agree"
            && t["target"].as_str().is_some_and(|n| n.ends_with("[lanes]"))),
        "no lane-mapping target agreed: {targets:?}"
    );
    let bad = bin()
        .args(["run", "--backend", "cuda"])
        .arg(&variant)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown backend `cuda`"));
    let bad = bin()
        .args(["validate", "--backend", "cuda"])
        .arg(&variant)
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected one of vulkan"));
}

/// `adapters` says per device whether 64-bit atomics are exact: native where the device
/// has 64-bit atomics and native 64-bit types (lavapipe's Vulkan device in CI), split
/// where 64-bit types are emulated (its GL device).
#[test]
fn adapters_tell_where_64_bit_atomics_are_exact() {
    let out = bin().arg("adapters").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let mut exact = 0;
    for (i, l) in lines.iter().enumerate() {
        let Some(caps) = l.trim().strip_prefix("int64 ") else {
            continue;
        };
        let Some(path) = lines.get(i + 1).filter(|p| p.contains("GPU path: usable")) else {
            continue;
        };
        let native = caps.starts_with("yes f64 yes") && caps.contains("int64-atomics yes");
        assert_eq!(path.contains("64-bit atomics exact"), native, "{l}\n{path}");
        exact += usize::from(native);
    }
    assert!(exact >= 1, "no adapter with exact 64-bit atomics:\n{text}");
}

/// `adapters` says where the GPU path keeps large GRFs out of private memory: nowhere on
/// lavapipe, on every usable adapter with `VISA_GPU_EMULATE=grf` (NVIDIA's by itself).
#[test]
fn adapters_tell_where_private_arrays_are_limited() {
    for (forced, expected) in [(false, false), (true, true)] {
        let mut cmd = bin();
        cmd.arg("adapters");
        if forced {
            cmd.env("VISA_GPU_EMULATE", "grf");
        } else {
            cmd.env_remove("VISA_GPU_EMULATE");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        let usable = text.matches("GPU path: usable").count();
        assert!(usable >= 1, "{text}");
        let limited = text.matches("private arrays: limited").count();
        assert_eq!(limited, if expected { usable } else { 0 }, "{text}");
    }
}

/// `visa-emu run --backend B ARGS --out-dir OUT VARIANT`, which must succeed.
fn run_to(backend: &str, args: &[&str], variant: &std::path::Path, out: &std::path::Path) {
    let r = bin()
        .args(["run", "--backend", backend])
        .args(args)
        .arg("--out-dir")
        .arg(out)
        .arg(variant)
        .output()
        .unwrap();
    assert!(
        r.status.success(),
        "{backend} {args:?} {}: {}",
        variant.display(),
        String::from_utf8_lossy(&r.stderr)
    );
}

/// `_aoffimmi` texel offsets (U +1, V -1: `0x1f0`) move samples and loads by whole
/// texels before the address mode, on both paths, given as an immediate and (the
/// samples) in a register: image_sample's nearest samples
/// through unnormalized clamp-to-edge, normalized repeat and mirrored repeat (each a
/// texel per work-item) give at (x, y) what the unpatched kernel gives at
/// (x + 1, y - 1); image_rw's first `load_lz` (copied to `dst_unorm`) reads texel
/// (x + 1, y - 1), zeros past the image's edge. (The border sampler's sample is left
/// out of the comparison: IGC clamps its coordinates to [-1, size] first, so a shifted
/// clamped coordinate is not the shifted original; it runs all the same.)
#[test]
fn texel_offsets_move_samples_and_loads_by_whole_texels() {
    let sample = patched_case("image_sample", "tgllp-simd8", &|t| {
        let out = t.replace(" 0x0:uw S", " 0x1f0:uw S");
        assert_eq!(
            out.matches("0x1f0:uw").count(),
            4,
            "the case's four samples"
        );
        out
    });
    // The same offsets from a register (`_aoffimmi` as a scalar operand: its element
    // 0 read when the sample runs; the register written just before each sample).
    let sample_in_register = patched_case("image_sample", "tgllp-simd8", &|t| {
        let out = t
            .replacen(
                ".decl V0039 ",
                ".decl V0900 v_type=G type=uw num_elts=1 align=word\n.decl V0039 ",
                1,
            )
            .replace(
                "sample_lz.RGBA (M1, 8)  0x0:uw S",
                "mov (M1_NM, 1) V0900(0,0)<1> 0x1f0:uw\n    \
                 sample_lz.RGBA (M1, 8)  V0900(0,0)<0;1,0> S",
            );
        assert_eq!(
            out.matches("V0900(0,0)<0;1,0> S").count(),
            4,
            "the case's four samples"
        );
        out
    });
    let load = patched_case("image_rw", "tgllp-simd8", &|t| {
        let out = t.replacen(
            "load_lz.RGBA (M1, 8)  0x0:uw T6 V0057.0",
            "load_lz.RGBA (M1, 8)  0x1f0:uw T6 V0057.0",
            1,
        );
        assert_ne!(out, t, "the case's first load");
        out
    });
    let floats = |b: &[u8]| -> Vec<u32> {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    for backend in ["cpu", "gpu"] {
        let run = |case: &std::path::Path, tag: &str| -> std::path::PathBuf {
            let dir = case.join(format!("out-{backend}-{tag}"));
            run_to(backend, &[], &case.join("tgllp-simd8"), &dir);
            dir
        };
        // image_sample: out[4k + s] (float4), k = y * 24 + x over 24 x 12 items.
        for (case, tag) in [(&sample, "sample"), (&sample_in_register, "sample-reg")] {
            let got = floats(&std::fs::read(run(case, tag).join("out.bin")).unwrap());
            let want = floats(&std::fs::read(case.join("expected/out.bin")).unwrap());
            let (w, h) = (24usize, 12usize);
            let mut moved = 0;
            for y in 1..h {
                for x in 0..w - 1 {
                    let (k, src) = (y * w + x, (y - 1) * w + x + 1);
                    for s in [0, 2, 3] {
                        let (a, b) = (16 * k + 4 * s, 16 * src + 4 * s);
                        assert_eq!(
                            got[a..a + 4],
                            want[b..b + 4],
                            "{backend}: {tag} {s} at ({x}, {y})"
                        );
                        moved += usize::from(want[a..a + 4] != want[b..b + 4]);
                    }
                }
            }
            assert!(
                moved > 100,
                "{backend}: {tag}: the offsets moved {moved} samples"
            );
        }
        // image_rw: dst_unorm (RGBA unorm8, 24 x 20) texel (x, y) = src_f at (x+1, y-1).
        let got = std::fs::read(run(&load, "load").join("dst_unorm.bin")).unwrap();
        let want = std::fs::read(load.join("expected/dst_unorm.bin")).unwrap();
        let (w, h) = (24usize, 20usize);
        for y in 0..h {
            for x in 0..w {
                let k = 4 * (y * w + x);
                let texel = if x + 1 < w && y >= 1 {
                    let src = 4 * ((y - 1) * w + x + 1);
                    want[src..src + 4].to_vec()
                } else {
                    vec![0; 4]
                };
                assert_eq!(
                    got[k..k + 4],
                    texel[..],
                    "{backend}: image_rw at ({x}, {y})"
                );
            }
        }
    }
    for case in [sample, load] {
        std::fs::remove_dir_all(case.parent().unwrap()).ok();
    }
}

/// Texel offsets (U +1, V -1, R +1: `0x1f1`) on every sample and load of the gather4,
/// linear-filtering, image-array and 1D/3D image cases: the GPU path writes the
/// interpreter's bytes (a layer takes no offset, R moves a 3D image's depth), and the
/// offsets change what the kernels write.
#[test]
fn texel_offsets_agree_across_filters_arrays_and_dimensions() {
    for name in ["image_gather4", "image_linear", "image_array", "image_dims"] {
        let case = patched_case(name, "tgllp-simd8", &|t| {
            let out = t
                .replace(" 0x0:uw S", " 0x1f1:uw S")
                .replace(" 0x0:uw T", " 0x1f1:uw T");
            assert_ne!(out, t, "{name} samples or loads");
            out
        });
        let outputs = |backend: &str| -> Vec<(String, Vec<u8>)> {
            let dir = case.join(format!("out-{backend}"));
            run_to(backend, &[], &case.join("tgllp-simd8"), &dir);
            let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| {
                    let e = e.unwrap();
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        std::fs::read(e.path()).unwrap(),
                    )
                })
                .collect();
            files.sort();
            files
        };
        let cpu = outputs("cpu");
        assert_eq!(cpu, outputs("gpu"), "{name}: GPU path and interpreter");
        let moved = cpu.iter().any(|(f, bytes)| {
            std::fs::read(case.join("expected").join(f)).is_ok_and(|want| want != *bytes)
        });
        assert!(moved, "{name}: the offsets changed no output");
        std::fs::remove_dir_all(case.parent().unwrap()).ok();
    }
}

/// Copy own case `name` with only `variant` into a temporary folder, its kernel text
/// passed through `patch`; returns the case folder.
fn patched_case(name: &str, variant: &str, patch: &dyn Fn(&str) -> String) -> std::path::PathBuf {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cases")
        .join(name);
    // Unique per call: tests running at once may patch the same case.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let root = std::env::temp_dir().join(format!("visa-emu-{name}-{}-{call}", std::process::id()));
    let case = common::copy_case(&src, variant, &root);
    let v = src.join(variant);
    let text = std::fs::read_to_string(v.join("kernel.visaasm")).unwrap();
    std::fs::write(case.join(variant).join("kernel.visaasm"), patch(&text)).unwrap();
    case
}

/// gather4_l and gather4_b (a LOD or a bias before the coordinates) and gather4_i
/// gather the same footprint as gather4 from a one-level image: image_gather4 with
/// its three gathers rewritten into them (the LOD and the bias taken from the V
/// coordinate's register, so that reading the coordinates one parameter early would
/// sample elsewhere) still gives the expected outputs on both paths.
#[test]
fn gather4_lod_bias_and_implicit_forms_run() {
    let case = patched_case("image_gather4", "tgllp-simd8", &|t| {
        let out = t
            .replace(
                "sample4.R (M1, 8) 0x0:uw S0 T6 V0072.0 V0054.0 V0058.0",
                "sample4_l.R (M1, 8) 0x0:uw S0 T6 V0072.0 V0058.0 V0054.0 V0058.0",
            )
            .replace(
                "sample4.A (M1, 8) 0x0:uw S0 T6 V0075.0 V0073.0 V0074.0",
                "sample4_b.A (M1, 8) 0x0:uw S0 T6 V0075.0 V0074.0 V0073.0 V0074.0",
            )
            .replace("sample4.G (M1, 8)", "sample4_i.G (M1, 8)");
        assert_eq!(
            out.matches("sample4_").count(),
            3,
            "the case's three gathers"
        );
        out
    });
    let dis = bin()
        .arg("disasm")
        .arg(case.join("tgllp-simd8/kernel.visaasm"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&dis.stdout);
    for form in ["sample4_l.R", "sample4_b.A", "sample4_i.G"] {
        assert!(text.contains(form), "disasm prints {form}");
    }
    for backend in ["cpu", "gpu"] {
        let out = bin()
            .args(["conformance", "--backend", backend])
            .arg(case.parent().unwrap())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("1 passed, 0 failed"),
            "{backend}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::remove_dir_all(case.parent().unwrap()).ok();
}

#[test]
fn a_reader_that_closes_the_pipe_early_ends_the_command_quietly() {
    use std::io::BufRead;
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut child = bin()
        .args(["conformance", "--backend", "cpu", "--jobs", "1"])
        .arg(&corpus)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is gone (like `| head -1`); the command's next line meets a closed pipe.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(first.starts_with("PASS"), "{first}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(141), "{err}");
}

/// A group's SLM over the adapter's workgroup memory (lavapipe's 32 KiB here) moves
/// into the heap, and the outputs are the interpreter's (before stop 31 NVIDIA took
/// such a pipeline, 48 KiB against 64, and never started it).
#[test]
fn slm_over_the_adapters_workgroup_memory_runs_in_the_heap() {
    let v = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus/local_arg_pointer/tgllp-simd32");
    let tmp = std::env::temp_dir().join(format!("visa-emu-bigslm-{}", std::process::id()));
    for backend in ["vulkan", "cpu"] {
        let out = bin()
            .args([
                "run",
                "--backend",
                backend,
                "--set",
                "tmp=40000",
                "--out-dir",
            ])
            .arg(tmp.join(backend))
            .arg(&v)
            .env("XDG_RUNTIME_DIR", std::env::temp_dir())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{backend}: {err}");
        if backend == "vulkan" {
            assert!(err.contains("SLM ran from the heap (over the "), "{err}");
        }
    }
    for f in ["a.bin", "o.bin"] {
        let gpu = std::fs::read(tmp.join("vulkan").join(f)).unwrap();
        let cpu = std::fs::read(tmp.join("cpu").join(f)).unwrap();
        assert!(gpu == cpu, "{f} differs");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A workload the GPU path cannot run (here a module the driver refuses: invalid WGSL
/// through `VISA_WGSL_OVERRIDE`) is reported in its row (table and JSON) and makes
/// `bench` exit non-zero after the report, instead of ending the run without one.
#[test]
fn bench_reports_a_gpu_failure_in_its_row() {
    let v = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus/local_arg_pointer/tgllp-simd32");
    let json = std::env::temp_dir().join(format!("visa-emu-bench-{}.json", std::process::id()));
    let bad = std::env::temp_dir().join(format!("visa-emu-bad-{}.wgsl", std::process::id()));
    std::fs::write(&bad, "this is not WGSL").unwrap();
    let out = bin()
        .args(["bench", "--backend", "vulkan", "--runs", "1", "--no-pocl"])
        .arg("--json")
        .arg(&json)
        .arg(&v)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .env("VISA_WGSL_OVERRIDE", &bad)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(!out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("(GPU path failed)"), "{stdout}");
    assert!(stderr.contains("failed on 1 workload(s)"), "{stderr}");
    let report = std::fs::read_to_string(&json).expect("the JSON report is written");
    assert!(report.contains("\"gpu_error\""), "{report}");
    let _ = std::fs::remove_file(&json);
    let _ = std::fs::remove_file(&bad);
}

/// `visa-emu asm` writes a `.isa` that runs: variant folders holding the assembled
/// binary and `kernel.bin` only (no text, no function files) pass conformance on the
/// interpreter, for a plain kernel, one with stack functions (one binary holds all
/// five objects) and one with LSC 2D block and strided messages (their own formats);
/// `disasm` of the binary assembles to the same bytes.
#[test]
fn assembled_binaries_run_and_read_back() {
    let cases = [
        ("tests/corpus", "saxpy", "tgllp-simd16"),
        ("tests/cases", "stack_calls", "tgllp-simd8"),
        ("tests/cases", "block2d_lsc", "pvc-simd16"),
        ("tests/cases", "lsc_strided_quad", "acm-g10-simd8"),
    ];
    let root = std::env::temp_dir().join(format!("visa-emu-asm-{}", std::process::id()));
    for (base, name, variant) in cases {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(base)
            .join(name);
        let v = common::copy_case(&src, variant, &root).join(variant);
        let grf = if variant.starts_with("pvc") {
            "64"
        } else {
            "32"
        };
        let out = bin()
            .args(["asm", "--grf-bytes", grf, "-o"])
            .arg(v.join("kernel.isa"))
            .arg(src.join(variant).join("kernel.visaasm"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = bin()
            .args(["disasm", "--grf-bytes", grf])
            .arg(v.join("kernel.isa"))
            .output()
            .unwrap();
        assert!(
            text.status.success(),
            "{}",
            String::from_utf8_lossy(&text.stderr)
        );
        let printed = root.join(format!("{name}.visaasm"));
        std::fs::write(&printed, &text.stdout).unwrap();
        let again = root.join(format!("{name}.isa"));
        let out = bin()
            .args(["asm", "--grf-bytes", grf, "-o"])
            .arg(&again)
            .arg(&printed)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            std::fs::read(&again).unwrap(),
            std::fs::read(v.join("kernel.isa")).unwrap(),
            "{name}: disasm + asm changed the bytes"
        );
    }
    let out = bin()
        .args(["conformance", "--backend", "cpu"])
        .arg(&root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("4 passed, 0 failed"), "{stdout}");
    let _ = std::fs::remove_dir_all(&root);
}

/// A loop of a straight module (no barrier) that the step limit stops is reported in
/// its block, as the interpreter reports it, not left as a run that ended: the stop's
/// bookkeeping follows the loop (`straight_rows::Rows::emit_loop`).
#[test]
fn step_limit_stops_a_straight_loop_in_its_block() {
    let v = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus/mandelbrot/tgllp-simd16");
    for (backend, said) in [
        ("cpu", "instruction 34 (CMP): step limit of 1000"),
        (
            "gpu",
            "step limit of 1000 instructions; it was spinning in the block at instruction 32",
        ),
    ] {
        let err = stopped_by_step_limit(backend, 1000, &v);
        assert!(err.contains(said), "{backend}: {err}");
    }
}

/// `run` of `variant` on `backend` with `--step-limit limit`: it must fail, saying so;
/// returns what it printed on stderr.
fn stopped_by_step_limit(backend: &str, limit: u32, variant: &std::path::Path) -> String {
    let out = bin()
        .args(["run", "--backend", backend, "--step-limit"])
        .arg(limit.to_string())
        .arg(variant)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !out.status.success() && err.contains(&format!("step limit of {limit}")),
        "{backend} at {limit}: {err}"
    );
    err
}

/// The step limit agrees between the backends where a straight module meets with
/// plain barriers (its invocations then stop on a count they keep alike, an upper
/// bound of each one's own): slm_prefix_scan's threads need 307 steps, so at 306 both
/// report the limit and at 320 both finish with the expected output (the straight
/// form stops first on its bound and hands the launch to the thread mapping).
#[test]
fn step_limit_agrees_where_meetings_are_plain_barriers() {
    let v = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus/slm_prefix_scan/acm-g10-simd32");
    let want = std::fs::read(v.parent().unwrap().join("expected/o.bin")).unwrap();
    for backend in ["cpu", "gpu"] {
        stopped_by_step_limit(backend, 306, &v);
        let dir =
            std::env::temp_dir().join(format!("visa-emu-steps-{backend}-{}", std::process::id()));
        run_to(backend, &["--step-limit", "320"], &v, &dir);
        assert_eq!(
            std::fs::read(dir.join("o.bin")).unwrap(),
            want,
            "{backend} at 320"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// A straight channel counts its own path, below its thread's (the union of its
/// channels' paths): barrier_loops_between/tgllp-simd16's threads stop at a limit of
/// 120 in the interpreter while every channel's own count stays under it. The straight
/// form stops a lane at the limit over the SIMD width and hands the launch to the
/// thread mapping, so both backends report the limit there, and both finish at 150
/// with the same outputs.
#[test]
fn straight_step_counts_bound_their_thread() {
    let v = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cases/barrier_loops_between/tgllp-simd16");
    let mut outs = Vec::new();
    for backend in ["cpu", "gpu"] {
        stopped_by_step_limit(backend, 120, &v);
        let dir =
            std::env::temp_dir().join(format!("visa-emu-bound-{backend}-{}", std::process::id()));
        run_to(backend, &["--step-limit", "150"], &v, &dir);
        outs.push(std::fs::read(dir.join("out2.bin")).unwrap());
        std::fs::remove_dir_all(&dir).ok();
    }
    let want = std::fs::read(v.parent().unwrap().join("expected/out2.bin")).unwrap();
    assert_eq!(outs, [want.clone(), want]);
}

/// An IGC dump without a case folder: saxpy's kernel text and its `.bin` (copied under
/// other names, as a dump folder holds them), the arguments named by the `.bin`'s patch
/// tokens and given with `--set` (buffers from files, scalars as literals), run on both
/// paths to the case's expected output; what is missing is named with how to give it;
/// `--save-case` writes it as a case folder the other commands take.
#[test]
fn an_igc_dump_runs_with_its_bin_and_set_arguments() {
    let case = visa_emu::corpus::paths::default_corpus_dir().join("saxpy");
    let v = case.join("tgllp-simd16");
    let tmp = std::env::temp_dir().join(format!("visa-emu-dump-test-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let kernel = tmp.join("OCL_asm0_simd16_entry_0001.visaasm");
    let program = tmp.join("saxpy_Gen12LPlp.bin");
    std::fs::copy(v.join("kernel.visaasm"), &kernel).unwrap();
    std::fs::copy(v.join("kernel.bin"), &program).unwrap();
    let base = |backend: &str| {
        let mut c = bin();
        c.args(["run", "--backend", backend])
            .arg(&kernel)
            .arg("--bin")
            .arg(&program)
            .args(["--global", "4096", "--local", "128"]);
        c
    };
    let r = base("cpu").output().unwrap();
    let e = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success());
    for want in [
        "y (float*): --set y=@FILE",
        "a (float): --set a=VALUE",
        "n (uint)",
    ] {
        assert!(e.contains(want), "{e}");
    }
    let want = std::fs::read(case.join("expected/y.bin")).unwrap();
    for backend in ["cpu", "gpu"] {
        let out = tmp.join(format!("out-{backend}"));
        let r = base(backend)
            .arg("--set")
            .arg(format!("y=@{}", case.join("inputs/y.bin").display()))
            .arg("--set")
            .arg(format!("x=@{}", case.join("inputs/x.bin").display()))
            .args(["--set", "a=2.5", "--set", "n=4000", "--out-dir"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            r.status.success(),
            "{backend}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        assert!(
            std::fs::read(out.join("y.bin")).unwrap() == want,
            "{backend}"
        );
    }
    // --save-case: the dump as a case folder whose expected output is this run's; the
    // conformance runner passes it, and a second save does not overwrite it.
    let saved = tmp.join("saved");
    for second in [false, true] {
        let r = base("cpu")
            .arg("--set")
            .arg(format!("y=@{}", case.join("inputs/y.bin").display()))
            .arg("--set")
            .arg(format!("x=@{}", case.join("inputs/x.bin").display()))
            .args(["--set", "a=2.5", "--set", "n=4000", "--save-case"])
            .arg(&saved)
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.success(), !second, "{e}");
        assert_eq!(e.contains("already holds a case.json"), second, "{e}");
    }
    assert!(std::fs::read(saved.join("expected/y.bin")).unwrap() == want);
    let r = bin()
        .args(["conformance", "--backend", "cpu"])
        .arg(&saved)
        .output()
        .unwrap();
    let o = String::from_utf8_lossy(&r.stdout);
    assert!(
        r.status.success() && o.contains("1 passed, 0 failed"),
        "{o}"
    );
    // Without --bin, a kernel file is named for what it is.
    let r = bin()
        .args(["run", "--backend", "cpu"])
        .arg(&kernel)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&r.stderr).contains("--bin"));
    std::fs::remove_dir_all(&tmp).ok();
}

/// An IGC-dumped `.isa` (its instruction operands left out) that does not decode, with
/// its `.visaasm` beside it: the error names the text file to give instead.
#[test]
fn an_undecodable_dumped_isa_points_at_its_text() {
    let isa = visa_emu::corpus::paths::default_corpus_dir().join("saxpy/tgllp-simd16/kernel.isa");
    let r = bin().arg("disasm").arg(&isa).output().unwrap();
    let e = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success());
    assert!(
        e.contains("byte offset") && e.contains("kernel.visaasm beside it"),
        "{e}"
    );
}

/// `compile` creates a pipeline per WGSL file and names each that the driver or wgpu
/// refused, going on with the next file; it exits non-zero when any failed. With
/// `VISA_GPU_PIPELINE_DIR`, `run` writes the module the driver received, which
/// `compile` then takes as it is.
#[test]
fn compile_reports_each_module_and_takes_what_run_handed_the_driver() {
    let dir = std::env::temp_dir().join(format!("visa-emu-compile-{}", std::process::id()));
    let pipelines = dir.join("pipelines");
    std::fs::create_dir_all(&pipelines).unwrap();
    let variant =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/saxpy/tgllp-simd16");
    let run = bin()
        .args(["run", "--backend", "vulkan"])
        .arg(&variant)
        .env("VISA_GPU_PIPELINE_DIR", &pipelines)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut modules: Vec<_> = std::fs::read_dir(&pipelines)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    modules.sort_by_key(|p| std::fs::metadata(p).unwrap().len());
    let kernel = modules.pop().expect("run wrote the modules it compiled");
    let broken = dir.join("broken.wgsl");
    std::fs::write(
        &broken,
        "@compute @workgroup_size(1) fn main() { let x: u32 = 1.5; }",
    )
    .unwrap();
    let out = bin()
        .args(["compile", "--backend", "vulkan"])
        .arg(&kernel)
        .arg(&broken)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("OK ") && l.contains(&*kernel.to_string_lossy())),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("FAIL ") && l.contains("broken.wgsl")),
        "{text}"
    );
    assert!(text.contains("1 compiled, 1 failed"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}
