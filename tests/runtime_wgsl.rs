//! Runtime pieces of shaders/runtime.wgsl run on their own on the adapter (lavapipe in
//! CI) and compared with Rust's IEEE operations, on inputs chosen to hit their hard
//! cases. Fails, never skips, without an adapter.

mod common;

use visa_emu::translate::runtime_function;
use visa_emu_host::{BufferUse, ComputeJob, GpuContext, GpuOptions, JobBuffer};

/// Appends the runtime functions `names` (shaders/runtime.wgsl) to a test module.
fn push_runtime(wgsl: &mut String, names: &[&str]) {
    for f in names {
        *wgsl += runtime_function(f).unwrap_or_else(|| panic!("runtime has no fn {f}"));
        *wgsl += "\n";
    }
}

/// Run `expr` (over `a`, `b`, `c`: f64) on every triple and return the f64 results.
fn run_f64(funcs: &[&str], expr: &str, triples: &[[f64; 3]]) -> Vec<f64> {
    run_f64_extra(funcs, "", expr, triples)
}

/// What `run_f64_extra` returns where a speculative form reported a miss (a NaN no
/// expression computes).
const MISSED: u64 = 0x7ff4_0000_dead_beef;

fn run_f64_extra(funcs: &[&str], extra: &str, expr: &str, triples: &[[f64; 3]]) -> Vec<f64> {
    let mut wgsl = String::from(concat!(
        "@group(0) @binding(0) var<storage, read_write> io: array<u32>;\n",
        "@group(0) @binding(1) var<storage, read> cfg: array<u32>;\n",
        "const CFG_UNIT: u32 = 0u;\n",
    ));
    push_runtime(&mut wgsl, funcs);
    float_switches(&mut wgsl, funcs);
    for c in ["F32_FTZ", "F_KEEP_PRODUCTS", "F32_FTZ_SIM", "F32_SPECULATE"] {
        if extra.contains(&format!("const {c}:")) {
            wgsl = wgsl.replace(&format!("const {c}: bool = false;\n"), "");
        }
    }
    wgsl += extra;
    let missed = if wgsl.contains("var<private> ftz_miss") {
        "ftz_miss"
    } else {
        "false"
    };
    wgsl += &format!(
        r#"
fn ld(k: u32) -> f64 {{ return bitcast<f64>(u64(io[2u * k]) | (u64(io[2u * k + 1u]) << 32u)); }}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let n = arrayLength(&io) / 8u;
    let i = gid.x;
    if (i >= n) {{ return; }}
    let a = ld(4u * i);
    let b = ld(4u * i + 1u);
    let c = ld(4u * i + 2u);
    var r = bitcast<u64>({expr});
    // A speculative form's report replaces the value (`F32_SPECULATE`).
    if ({missed}) {{ r = {MISSED:#x}lu; }}
    // Keep the `cfg` binding alive for expressions that do not launder.
    if (cfg[CFG_UNIT] != 1u) {{ io[8u * i + 6u] = 0xdeadu; return; }}
    io[8u * i + 6u] = u32(r & 0xfffffffflu);
    io[8u * i + 7u] = u32(r >> 32u);
}}
"#
    );
    let data: Vec<u8> = triples
        .iter()
        .flat_map(|t| [t[0], t[1], t[2], 0.0])
        .flat_map(|x| x.to_bits().to_le_bytes())
        .collect();
    // cfg: CFG_UNIT's 1, and zeros up to and past CFG_ZERO (`keep32`/`keep64`).
    let mut cfg = vec![0u32; 288];
    cfg[0] = 1;
    let out = run_io_cfg(0x5eed, wgsl, data, &cfg, triples.len() as u32);
    out.chunks_exact(32)
        .map(|c| f64::from_bits(u64::from_le_bytes(c[24..32].try_into().unwrap())))
        .collect()
}

/// The runtime's `F32_FTZ` switch (false: native f32, as on lavapipe) and its `w32`
/// and `n32` when the pulled functions call them and `funcs` does not name them.
fn float_switches(wgsl: &mut String, funcs: &[&str]) {
    // The helpers the float switches call (in the order that pulls what each calls).
    for f in [
        "w32",
        "n32",
        "round_even64",
        "floor64",
        "trunc64",
        "keep32",
        "keep64",
        "sim32",
        "tiny32",
        "normal32",
        "zero_exp32",
        "flush32",
    ] {
        if wgsl.contains(&format!("{f}(")) && !funcs.contains(&f) {
            *wgsl += runtime_function(f).unwrap();
            *wgsl += "\n";
        }
    }
    // The speculative forms' report: a private flag here (`stat` in the modules).
    if wgsl.contains("ftz_missed(") && !wgsl.contains("fn ftz_missed(") {
        *wgsl += "var<private> ftz_miss: bool;\nfn ftz_missed() { ftz_miss = true; }\n";
    }
    for c in [
        "F32_FTZ",
        "F_KEEP_PRODUCTS",
        "CFG_ZERO",
        "F32_FTZ_SIM",
        "F32_SPECULATE",
    ] {
        if wgsl.contains(c) && !wgsl.contains(&format!("const {c}:")) {
            *wgsl += &runtime_const(c);
        }
    }
}

/// The runtime reads cfg's head through `cfh` (a uniform copy in the generated modules);
/// these modules give it the `cfg` storage binding itself, which holds the same words.
/// The runtime's hidden zero (`zero_word`, which the modules' entry points read from
/// `CFG_ZERO`) likewise: declared where a pulled function reads it, set first in `main`.
fn cfh_from_storage(wgsl: String) -> String {
    let mut wgsl = wgsl;
    if wgsl.contains("zero_word") && !wgsl.contains("var<private> zero_word") {
        let open = wgsl.find("fn main(").expect("the harness module's main");
        let body = open + wgsl[open..].find('{').expect("main's body") + 1;
        let zero = runtime_const("CFG_ZERO");
        let index = zero.split('=').nth(1).expect("CFG_ZERO's value").trim();
        let index = index.trim_end_matches(';');
        wgsl.insert_str(body, &format!("\n    zero_word = cfg[{index}];"));
        wgsl += "var<private> zero_word: u32;\n";
    }
    if wgsl.contains("cfh(") && !wgsl.contains("fn cfh(") {
        wgsl + "fn cfh(i: u32) -> u32 { return cfg[i]; }\n"
    } else {
        wgsl
    }
}

/// Run `wgsl`'s `main` (@workgroup_size(64)) over `invocations` with `io` (binding 0,
/// read-write, read back) and `cfg` words (binding 1, read-only); `io` after the run.
fn run_io_cfg(key: u64, wgsl: String, io: Vec<u8>, cfg: &[u32], invocations: u32) -> Vec<u8> {
    let wgsl = cfh_from_storage(wgsl);
    let mut gpu = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    let r = gpu
        .run(&ComputeJob {
            key,
            wgsl,
            entry_point: "main".into(),
            buffers: vec![
                JobBuffer {
                    size: io.len() as u64,
                    data: io,
                    usage: BufferUse::ReadWrite,
                    readback: true,
                },
                JobBuffer {
                    size: (cfg.len() * 4) as u64,
                    data: cfg.iter().flat_map(|w| w.to_le_bytes()).collect(),
                    usage: BufferUse::ReadOnly,
                    readback: false,
                },
            ],
            workgroups: [invocations.div_ceil(64), 1, 1],
            chunk_base_binding: None,
            first_workgroup: [0; 3],
            repeat: None,
            aliases: Vec::new(),
        })
        .unwrap();
    r.outputs.into_iter().next().unwrap()
}

/// A module for shaders/image.wgsl's pieces: the `io`/`cfg` bindings, the image
/// runtime's constants, the functions `funcs` and `main`.
fn image_module(funcs: &[&str], main: &str) -> String {
    let mut wgsl = String::from(concat!(
        "@group(0) @binding(0) var<storage, read_write> io: array<u32>;\n",
        "@group(0) @binding(1) var<storage, read> cfg: array<u32>;\n",
    ));
    for l in visa_emu::translate::IMAGE_RUNTIME.lines() {
        if l.starts_with("const ") {
            wgsl += l;
            wgsl += "\n";
        }
    }
    push_runtime(&mut wgsl, funcs);
    float_switches(&mut wgsl, funcs);
    wgsl + main
}

/// Little-endian words.
fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A read-write job buffer.
fn rw(data: Vec<u8>, readback: bool) -> JobBuffer {
    JobBuffer {
        size: data.len() as u64,
        data,
        usage: BufferUse::ReadWrite,
        readback,
    }
}

/// The binding-table tests' memory: two allocations of the same 36 bytes at heap bytes
/// 0 (BTI 3) and 40 (BTI 4), each followed by guard bytes (0xee) no store may touch,
/// in a `heap_len`-byte heap; BTI 5 unbound. Returns the 36 bytes, the heap and `cfg`.
fn two_allocations(heap_len: usize) -> (Vec<u8>, Vec<u8>, Vec<u32>) {
    let init: Vec<u8> = (0..36u32).map(|i| (i * 7 + 1) as u8).collect();
    let mut heap = vec![0xeeu8; heap_len];
    heap[..36].copy_from_slice(&init);
    heap[40..76].copy_from_slice(&init);
    let mut cfg = vec![0u32; 280 + 512];
    cfg[7] = 2;
    cfg[16 + 3] = 1;
    cfg[16 + 4] = 2;
    cfg[272..280].copy_from_slice(&[0, 0x10, 36, 0, 0, 0x11, 36, 40]);
    // The entries' spans (size, heap byte offset) at CFG_BTI_SPAN = 280.
    cfg[280 + 2 * 3..280 + 2 * 5].copy_from_slice(&[36, 0, 36, 40]);
    (init, heap, cfg)
}

/// Run one invocation of `wgsl` with `cfg` (binding 0, read-only) before `rest`; the
/// buffers read back.
fn run_with_cfg(key: u64, wgsl: String, cfg: &[u32], rest: Vec<JobBuffer>) -> Vec<Vec<u8>> {
    let wgsl = cfh_from_storage(wgsl);
    let bytes: Vec<u8> = cfg.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut buffers = vec![JobBuffer {
        usage: BufferUse::ReadOnly,
        ..rw(bytes, false)
    }];
    buffers.extend(rest);
    let mut gpu = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    gpu.run(&ComputeJob {
        key,
        wgsl,
        entry_point: "main".into(),
        buffers,
        workgroups: [1, 1, 1],
        chunk_base_binding: None,
        first_workgroup: [0; 3],
        repeat: None,
        aliases: Vec::new(),
    })
    .unwrap()
    .outputs
}

/// A deterministic spread of doubles: many exponents, and sums that cancel.
fn triples() -> Vec<[f64; 3]> {
    let mut s = 0x9e3779b97f4a7c15u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut v = vec![
        // double_arith's o_fma element 1 (fma(x, y, -x)), where a split fma is off by one.
        [-714240.5726244557, 2.0000000000000004, 714240.5726244557],
        [1.0 + f64::EPSILON, 1.0 - f64::EPSILON, -1.0],
        [0.1, 10.0, -1.0],
        [3.0, 1.0 / 3.0, -1.0],
    ];
    for _ in 0..2000 {
        let e = |r: u64, span: i64| f64::from_bits(((1023 + (r as i64 % span)) as u64) << 52);
        let m = |r: u64| 1.0 + (r >> 12) as f64 / (1u64 << 52) as f64;
        let a = m(next()) * e(next(), 60) * if next() & 1 == 0 { 1.0 } else { -1.0 };
        let b = m(next()) * e(next(), 60);
        let c = if next() % 3 == 0 {
            -(a * b) * (1.0 + (next() % 5) as f64 * f64::EPSILON)
        } else {
            m(next()) * e(next(), 120) * if next() & 1 == 0 { 1.0 } else { -1.0 }
        };
        v.push([a, b, c]);
    }
    v
}

#[test]
fn f32_mad_is_one_rounding_like_mul_add() {
    let t: Vec<[f64; 3]> = triples()
        .iter()
        .map(|x| x.map(|v| v as f32 as f64))
        .collect();
    let got = run_f64(
        &[
            "fma_rne32",
            "add_odd",
            "two_sum_err",
            "to_odd",
            "opaque_f64",
            "nan64",
        ],
        "f64(fma_rne32(f32(a), f32(b), f32(c)))",
        &t,
    );
    let bad: Vec<String> = t
        .iter()
        .zip(&got)
        .filter(|(x, g)| {
            let want = (x[0] as f32).mul_add(x[1] as f32, x[2] as f32);
            want.to_bits() != (**g as f32).to_bits() && !(want.is_nan() && g.is_nan())
        })
        .map(|(x, g)| {
            format!(
                "fma({:e}, {:e}, {:e}) = {:e}, got {g:e}",
                x[0],
                x[1],
                x[2],
                (x[0] as f32).mul_add(x[1] as f32, x[2] as f32)
            )
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} of {} differ, e.g. {:#?}",
        bad.len(),
        t.len(),
        &bad[..bad.len().min(5)]
    );
}

/// `fma32_bits`, the F mad on 64-bit integers that modules with f64 emulated call, gives
/// the interpreter's bits in all four rounding modes on `common::f32_mad_triples`.
#[test]
fn f32_mad_on_integers_rounds_once_in_every_mode() {
    let t = common::f32_mad_triples(0x51f1_5eed_2026_1128);
    let wide: Vec<[f64; 3]> = t.iter().map(|x| x.map(f64::from)).collect();
    let mut bad = Vec::new();
    for md in 0u8..4 {
        let got = run_f64_extra(
            &common::FMA32_FUNCTIONS,
            "",
            &format!("f64(fma32_bits(f32(a), f32(b), f32(c), {md}u))"),
            &wide,
        );
        for (x, g) in t.iter().zip(&got) {
            let want = common::interpreter_mad_f32(x, md);
            let g = *g as f32;
            let same = g.to_bits() == want || (g.is_nan() && f32::from_bits(want).is_nan());
            if !same && bad.len() < 12 {
                bad.push(format!(
                    "mode {md}: fma({:e}, {:e}, {:e}) = {g:e} [{:#x}], interpreter {:e} [{want:#x}]",
                    x[0],
                    x[1],
                    x[2],
                    g.to_bits(),
                    f32::from_bits(want)
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// `rel_f32` answers as `rel_f` on the widened values (and IEEE) for every relation:
/// signed zeros, denormals, infinities and NaN included.
#[test]
fn f32_compares_match_the_widened_ones() {
    let vals = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.0 + f32::EPSILON,
    ];
    let t: Vec<[f64; 3]> = vals
        .iter()
        .flat_map(|&a| vals.iter().map(move |&b| [a as f64, b as f64, 0.0]))
        .collect();
    let rels: Vec<String> = (0..6)
        .map(|r| {
            format!(
                "select(0u, {}u, rel_f32({r}u, f32(a), f32(b))) | select(0u, {}u, rel_f({r}u, a, b))",
                1 << r,
                1 << (r + 8)
            )
        })
        .collect();
    let got = run_f64(
        &["rel_f32", "rel_f"],
        &format!("f64({})", rels.join(" | ")),
        &t,
    );
    for (x, g) in t.iter().zip(got) {
        let (a, b) = (x[0] as f32, x[1] as f32);
        let want = [a == b, a != b, a > b, a >= b, a < b, a <= b];
        let bits = want
            .iter()
            .enumerate()
            .fold(0u32, |m, (r, &w)| m | ((w as u32) * (0x101 << r)));
        assert_eq!(
            g as u32, bits,
            "relations of {a:e} and {b:e}: got {:#x}",
            g as u32
        );
    }
}

/// The runtime's NaN rules hold on the adapter: float -> integer gives 0, saturation
/// 0, MIN/MAX the other operand, a directed rounding keeps the NaN. (naga writes `!=`
/// on floats as an ordered compare, so `x != x` tests found no NaN on lavapipe: f2i of
/// a NaN gave i64::MIN.)
#[test]
fn nan_rules_hold_on_the_adapter() {
    let funcs = [
        "nan32",
        "nan64",
        "f2i",
        "f2int",
        "sat32",
        "sat64",
        "fminmax32",
        "fminmax64",
        "f64_to_f32_rm",
        "opaque_f64",
        "next_up",
        "next_down",
    ];
    let cases: [(&str, f64); 8] = [
        ("f64(f2i(a))", 0.0),
        ("f64(f2int(a, -5li, 5li, 5.0lf, -5.0lf))", 0.0),
        ("f64(sat32(f32(a)))", 0.0),
        ("sat64(a)", 0.0),
        ("f64(fminmax32(f32(a), f32(b), true))", 2.5),
        ("f64(fminmax32(f32(b), f32(a), false))", 2.5),
        ("fminmax64(a, b, false)", 2.5),
        ("fminmax64(b, a, true)", 2.5),
    ];
    for (expr, want) in cases {
        let got = run_f64(&funcs, expr, &[[f64::NAN, 2.5, 0.0], [-f64::NAN, 2.5, 0.0]]);
        assert!(
            got.iter().all(|g| g.to_bits() == want.to_bits()),
            "{expr}: {got:?}, want {want}"
        );
    }
    let got = run_f64(&funcs, "f64(f64_to_f32_rm(a, 1u))", &[[f64::NAN, 0.0, 0.0]]);
    assert!(got[0].is_nan(), "f64_to_f32_rm(NaN, RU) = {}", got[0]);
}

/// `flush_h` (HF denormals as f64, flushed where %cr0's HF denorm bit is clear): half
/// denormals become zeros of their sign; the smallest normal half, the specials and a
/// NaN stay (before stop 50 every comparison with a NaN fell through to the flush).
#[test]
fn half_flush_keeps_nans_and_normals() {
    let denormal = 2f64.powi(-24);
    let inputs = [
        [denormal, 0.0, 0.0],
        [-1023.0 * denormal, 0.0, 0.0],
        [2f64.powi(-14), 0.0, 0.0],
        [-0.0, 0.0, 0.0],
        [f64::NAN, 0.0, 0.0],
        [f64::NEG_INFINITY, 0.0, 0.0],
        [65504.0, 0.0, 0.0],
    ];
    let want: [f64; 7] = [
        0.0,
        -0.0,
        2f64.powi(-14),
        -0.0,
        f64::NAN,
        f64::NEG_INFINITY,
        65504.0,
    ];
    let got = run_f64(&["flush_h"], "flush_h(a, false)", &inputs);
    for ((g, w), i) in got.iter().zip(want).zip(inputs) {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "flush_h({}) = {g}, want {w}",
            i[0]
        );
    }
    // With the bit set nothing changes.
    let kept = run_f64(&["flush_h"], "flush_h(a, true)", &inputs);
    assert_eq!(kept[0], denormal);
}

/// ALT mode's helpers (translate/alt_mode.rs): where the mode is on, infinities become
/// the largest finite values of their sign (a DF -> F conversion's only where its
/// source was finite) and the roots' sources lose their sign; NaNs and finite values
/// stay, and with the mode off nothing changes.
#[test]
fn alt_helpers_touch_only_what_alt_mode_changes() {
    let (inf, max) = (f64::INFINITY, f64::from(f32::MAX));
    let xs = [inf, -inf, f64::NAN, max, -1.5, -0.0];
    let inputs = xs.map(|x| [x, 0.0, 0.0]);
    let same = |got: &[f64], want: &[f64], what: &str| {
        for (k, (g, w)) in got.iter().zip(want).enumerate() {
            assert!(
                g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                "{what} of {}: {g}, want {w}",
                xs[k]
            );
        }
    };
    let fin = |on: bool| {
        run_f64(
            &["alt_fin32"],
            &format!("f64(alt_fin32(f32(a), {on}))"),
            &inputs,
        )
    };
    same(
        &fin(true),
        &[max, -max, f64::NAN, max, -1.5, -0.0],
        "alt_fin32 on",
    );
    same(&fin(false), &xs, "alt_fin32 off");
    let abs = |on: bool| {
        run_f64(
            &["alt_abs32"],
            &format!("f64(alt_abs32(f32(a), {on}))"),
            &inputs,
        )
    };
    same(
        &abs(true),
        &[inf, inf, f64::NAN, max, 1.5, 0.0],
        "alt_abs32 on",
    );
    same(&abs(false), &xs, "alt_abs32 off");
    // F bits `a` converted from the DF source `b`.
    let conv = [
        [inf, 1e300, 0.0],
        [-inf, -1e300, 0.0],
        [inf, inf, 0.0],
        [2.5, 2.5, 0.0],
    ];
    let df = |on: bool| {
        run_f64(
            &["alt_fin_df32"],
            &format!(
                "f64(bitcast<f32>(u32(alt_fin_df32(u64(bitcast<u32>(f32(a))), bitcast<u64>(b), {on}))))"
            ),
            &conv,
        )
    };
    same(&df(true), &[max, -max, inf, 2.5], "alt_fin_df32 on");
    same(&df(false), &[inf, -inf, inf, 2.5], "alt_fin_df32 off");
}

/// Float atomics (`atomic_apply`'s FMAX, FMIN, FADD, FSUB on 16, 32 and 64 bits) give
/// the interpreter's new memory value on special operands, NaN results included (the
/// canonical NaN on both sides).
#[test]
fn float_atomics_match_the_interpreter_on_special_values() {
    use visa_emu::interp::memory::AtomicOp;
    let vals32 = common::SPECIAL_F32.map(u64::from);
    let vals64 = common::SPECIAL_F64;
    let vals16 = common::SPECIAL_F16.map(u64::from);
    let ops = [
        (14u32, AtomicOp::FMax),
        (15, AtomicOp::FMin),
        (17, AtomicOp::FAdd),
        (18, AtomicOp::FSub),
    ];
    // 32 bits twice: natively and in the forms of an adapter that flushes denormals.
    for (bits, vals, ftz) in [
        (32u32, &vals32[..], false),
        (32, &vals32[..], true),
        (64, &vals64[..], false),
        (16, &vals16[..], false),
    ] {
        let pairs: Vec<[f64; 3]> = vals
            .iter()
            .flat_map(|&a| {
                vals.iter()
                    .map(move |&b| [f64::from_bits(a), f64::from_bits(b), 0.0])
            })
            .collect();
        for (code, op) in ops {
            let got = run_f64_extra(
                &[
                    "atomic_apply", "atomic_float", "atomic_float32",
                    "atomic_float_wide", "f32_key", "fadd32_rne", "nan32", "w32", "n32",
                    "opaque_f64", "add_odd", "two_sum_err", "to_odd", "afl", "atf",
                    "fminmax64", "hf2f", "f2hf", "f64_to_hf", "f32_odd", "nan64", "sext",
                    "mask_bits",
                ],
                &format!(
                    "struct AtomicNew {{ v: u64, keep: bool }}\nconst F32_FTZ: bool = {ftz};\n"
                ),
                &format!("bitcast<f64>(atomic_apply({code}u, bitcast<u64>(a), bitcast<u64>(b), 0lu, {bits}u).v)"),
                &pairs,
            );
            for (p, g) in pairs.iter().zip(got) {
                let (old, s0) = (p[0].to_bits(), p[1].to_bits());
                let want = op.apply(old, s0, 0, bits).unwrap();
                assert_eq!(
                    g.to_bits(),
                    want,
                    "{op:?} on {bits} bits of {old:#x}, {s0:#x} (ftz forms: {ftz})"
                );
            }
        }
    }
}

/// The lane mapping's mirrored stores (`gstm`): eight invocations store into their own
/// private GRF copies and merge the bytes they wrote into the shared mirror; after a
/// barrier the mirror holds every lane's bytes and nothing else changed. Sub-word
/// elements share words between lanes and 8-byte stores straddle words at every byte
/// alignment.
#[test]
fn mirrored_stores_merge_every_lanes_bytes() {
    let mut wgsl = String::from(concat!(
        "@group(0) @binding(0) var<storage, read_write> io: array<u32>;\n",
        "const K_GRF_WORDS: u32 = 64u;\n",
        "const K_GRF_QUADS: u32 = 16u;\n",
        "const K_XG_WORDS: u32 = 64u;\n",
        "var<private> g: array<u32, K_GRF_QUADS * 4u>;\n",
        "var<private> lane: u32;\n",
        "var<workgroup> xg: array<atomic<u32>, K_XG_WORDS>;\n",
    ));
    push_runtime(&mut wgsl, &["gsb", "gs32", "gst", "xmerge", "gstm"]);
    wgsl += r#"
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) l: u32) {
    lane = l;
    if (l == 0u) { for (var w = 0u; w < K_XG_WORDS; w++) { atomicStore(&xg[w], 0x5a5a5a5au); } }
    workgroupBarrier();
    // Two-byte elements: lanes 2k and 2k+1 share a word.
    gstm(2u * l, 2u, u64(0xa100u + l));
    // One-byte elements at odd offsets.
    gstm(33u + l, 1u, u64(0xc0u + l));
    // Eight-byte elements at 9-byte steps: every alignment, straddling words.
    gstm(64u + 9u * l, 8u, (u64(0x1111u * (l + 1u)) << 32u) | u64(0x01020304u * (l + 1u)));
    workgroupBarrier();
    if (l == 0u) { for (var w = 0u; w < K_XG_WORDS; w++) { io[w] = atomicLoad(&xg[w]); } }
}
"#;
    let mut gpu = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    let r = gpu
        .run(&ComputeJob {
            key: 0x61a7e,
            wgsl,
            entry_point: "main".into(),
            buffers: vec![JobBuffer {
                size: 256,
                data: vec![0; 256],
                usage: BufferUse::ReadWrite,
                readback: true,
            }],
            workgroups: [1, 1, 1],
            chunk_base_binding: None,
            first_workgroup: [0; 3],
            repeat: None,
            aliases: Vec::new(),
        })
        .unwrap();
    let mut want = [0x5au8; 256];
    for l in 0..8u32 {
        want[2 * l as usize..2 * l as usize + 2]
            .copy_from_slice(&((0xa100 + l) as u16).to_le_bytes());
        want[33 + l as usize] = (0xc0 + l) as u8;
        let v = ((0x1111u64 * (l as u64 + 1)) << 32) | (0x01020304u64 * (l as u64 + 1));
        let o = 64 + 9 * l as usize;
        want[o..o + 8].copy_from_slice(&v.to_le_bytes());
    }
    assert_eq!(&r.outputs[0][..], &want[..]);
}

/// F add and mad in the directed rounding modes (cr0 RU, RD, RZ) give the interpreter's
/// bits: one rounding of the exact result, also when the exponents are so far apart
/// that the f64 sum is not exact (1 + 1e-30 rounds up to the next float in RU).
#[test]
fn f32_add_and_mad_round_once_in_every_mode() {
    use visa_emu::interp::alu::{exec, AluOp, FpEnv, Val};
    use visa_emu::ir::DataType;
    let mut t: Vec<[f64; 3]> = triples()
        .iter()
        .map(|x| x.map(|v| v as f32 as f64))
        .collect();
    for (a, b) in [
        (1.0, 1e-30),
        (-1.0, 1e-30),
        (1.0, -1e-30),
        (3.0e38, 1e-38),
        (1e-38, -1e-45),
    ] {
        t.push([a, b, b]);
    }
    let f = |x: f64| Val::new(DataType::F, (x as f32).to_bits() as u64);
    let mut bad = Vec::new();
    for md in 1u32..4 {
        let env = FpEnv {
            rounding: md as u8,
            ..FpEnv::IEEE_DENORMS
        };
        let funcs = [
            "fadd32",
            "fadd32_rne",
            "fmad32",
            "fma_rne32",
            "add_odd",
            "two_sum_err",
            "to_odd",
            "nan32",
            "nan64",
            "opaque_f64",
            "sum_in_mode",
            "f64_to_f32_rm",
            "next_up",
            "next_down",
        ];
        let add = run_f64(
            &funcs,
            &format!("f64(fadd32(f32(a), f32(b), 0.0, {md}u))"),
            &t,
        );
        let mad = run_f64(
            &funcs,
            &format!("f64(fmad32(f32(a), f32(b), f32(c), {md}u))"),
            &t,
        );
        for (k, x) in t.iter().enumerate() {
            let want_add = exec(AluOp::Add, DataType::F, &[f(x[0]), f(x[1])], false, &env)
                .unwrap()
                .dst as u32;
            let want_mad = exec(
                AluOp::Mad,
                DataType::F,
                &[f(x[0]), f(x[1]), f(x[2])],
                false,
                &env,
            )
            .unwrap()
            .dst as u32;
            for (what, want, got) in [("add", want_add, add[k]), ("mad", want_mad, mad[k])] {
                let got = (got as f32).to_bits();
                let nan = f32::from_bits(want).is_nan() && f32::from_bits(got).is_nan();
                if want != got && !nan && bad.len() < 8 {
                    bad.push(format!(
                        "mode {md} {what}({:e}, {:e}, {:e}): interpreter {want:#x}, runtime {got:#x}",
                        x[0], x[1], x[2]
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Run a [`general_memory_module`] kernel on `cfg`, `heap`, the statistics words,
/// scratch and `io_words` words of `io`; every buffer but scratch is read back.
fn run_memory_module(
    key: u64,
    wgsl: String,
    cfg: &[u32],
    heap: Vec<u8>,
    io_words: usize,
) -> Vec<Vec<u8>> {
    run_with_cfg(
        key,
        wgsl,
        cfg,
        vec![
            rw(heap, true),
            rw(vec![0; 64], true),
            rw(vec![0; 16], false),
            rw(vec![0; 4 * io_words], true),
        ],
    )
}

/// A module with the general memory helpers (`mem_ld`/`mem_st` over every space, with
/// `bti_at` and `flush_oob`), bindings cfg, heap, stat, scratch and io (0-4), `cfg`
/// laid out as `two_allocations` has it, and the `extra` declarations.
fn general_memory_module(extra: &[&str]) -> String {
    let mut wgsl = String::from(concat!(
        "@group(0) @binding(0) var<storage, read> cfg: array<u32>;\n",
        "@group(0) @binding(1) var<storage, read_write> heap: array<atomic<u32>>;\n",
        "@group(0) @binding(2) var<storage, read_write> stat: array<atomic<u32>>;\n",
        "@group(0) @binding(3) var<storage, read_write> scratch: array<atomic<u32>>;\n",
        "@group(0) @binding(4) var<storage, read_write> io: array<u32>;\n",
        "const CFG_SCRATCH_WORDS: u32 = 6u;\nconst CFG_NALLOC: u32 = 7u;\n",
        "const CFG_BTI: u32 = 16u;\nconst CFG_ALLOC: u32 = 272u;\nconst CFG_BTI_SPAN: u32 = 280u;\n",
        "const STAT_OOB_READS: u32 = 2u;\nconst STAT_OOB_WRITES: u32 = 3u;\n",
        "const SP_FLAT: u32 = 0u;\nconst SP_BTI: u32 = 1u;\nconst SP_SLM: u32 = 2u;\n",
        "const NO_WORD: u32 = 0xffffffffu;\nconst K_SLM_WORDS: u32 = 4u;\n",
        "var<workgroup> slm: array<atomic<u32>, K_SLM_WORDS>;\n",
        "var<private> scratch_base: u32;\n",
        "var<private> oob_reads: u32;\nvar<private> oob_writes: u32;\n",
    ));
    for e in extra {
        wgsl += e;
    }
    push_runtime(
        &mut wgsl,
        &[
            "locate",
            "bti_at",
            "wld",
            "wstore",
            "wmerge",
            "byte_ld",
            "mem_ld",
            "mem_st",
            "flush_oob",
        ],
    );
    wgsl
}

/// The short binding-table accesses (`bti_ld`, `bti_st`: straight modules and LSC
/// messages) give exactly what the general `mem_ld` / `mem_st` give: every size, every
/// byte alignment, accesses that straddle words, end at the last byte, cross the end
/// (out of bounds: zero, dropped, counted) or name an unbound entry.
#[test]
fn short_binding_table_accesses_match_the_general_ones() {
    let mut wgsl = general_memory_module(&[]);
    push_runtime(&mut wgsl, &["bti_ld", "heap_ld", "bti_st", "heap_st"]);
    // Allocation 1 (BTI 3) is read both ways; stores go to allocation 1 through
    // `mem_st` and to allocation 2 (BTI 4, the same bytes) through `bti_st`. BTI 5 is
    // unbound.
    wgsl += r#"
@compute @workgroup_size(1)
fn main() {
    var k = 0u;
    for (var n = 1u; n <= 4u; n = n * 2u) {
        for (var a = 0u; a < 40u; a++) {
            io[k] = u32(mem_ld(SP_BTI, 3u, u64(a), n));
            io[k + 1u] = u32(bti_ld(3u, u64(a), n));
            k = k + 2u;
        }
    }
    io[k] = u32(mem_ld(SP_BTI, 5u, 0lu, 4u));
    io[k + 1u] = u32(bti_ld(5u, 0lu, 4u));
    io[k + 2u] = u32(bti_ld(3u, 0x100000000lu, 4u));
    flush_oob();
    let reads = atomicLoad(&stat[STAT_OOB_READS]);
    io[k + 3u] = reads;
    var s = 0u;
    for (var n = 1u; n <= 4u; n = n * 2u) {
        for (var a = 0u; a < 36u; a = a + 3u) {
            s = s + 1u;
            let v = u64(0x9e3779b9u * s);
            mem_st(SP_BTI, 3u, u64(a), n, v);
            bti_st(4u, u64(a), n, v);
        }
    }
    bti_st(5u, 0lu, 4u, 1lu);
    flush_oob();
    io[k + 4u] = atomicLoad(&stat[STAT_OOB_WRITES]);
}
"#;
    let (init, heap, cfg) = two_allocations(80);
    let out = run_memory_module(0xb71, wgsl, &cfg, heap, 256);
    let io = words(&out[4]);
    let k = 3 * 40 * 2;
    for (i, pair) in io[..k + 2].chunks(2).enumerate() {
        assert_eq!(
            pair[0], pair[1],
            "load {i}: general {:#x}, short {:#x}",
            pair[0], pair[1]
        );
    }
    // The model: in bounds reads give the little-endian bytes, the rest zero.
    let mut i = 0;
    for n in [1usize, 2, 4] {
        for a in 0..40usize {
            let want = if a + n <= 36 {
                let mut v = [0u8; 4];
                v[..n].copy_from_slice(&init[a..a + n]);
                u32::from_le_bytes(v)
            } else {
                0
            };
            assert_eq!(io[2 * i], want, "n {n} at {a}");
            i += 1;
        }
    }
    assert_eq!(io[k + 2], 0, "a 64-bit address past 4 GiB is out of bounds");
    // Out-of-bounds reads, each counted once by either form: (40 - 36 + n - 1) per
    // size and form, the unbound entry twice, the 4 GiB address once.
    let per_form: u32 = [1u32, 2, 4].iter().map(|n| 4 + n - 1).sum();
    assert_eq!(io[k + 3], 2 * per_form + 2 + 1);
    // Stores: both allocations end alike, the guard bytes untouched.
    let h = &out[1];
    assert_eq!(&h[..36], &h[40..76], "general vs short stores");
    assert!(
        h[36..40].iter().chain(&h[76..80]).all(|&b| b == 0xee),
        "{:?}",
        &h[36..]
    );
    // Writes past the end: none at sizes 1 and 2 up to 33; the 4-byte ones at 33 and
    // the unbound entry.
    assert_eq!(io[k + 4], 2 + 1);
}

/// The short SLM forms (`slm_ld`/`slm_st`, for LSC messages on the SLM port) give the
/// general helpers' results on SP_SLM: every size and byte alignment, words
/// straddled, IGC's bit-28 tag, out of bounds (zero, dropped, counted).
#[test]
fn short_slm_accesses_match_the_general_ones() {
    let mut wgsl = general_memory_module(&[]);
    push_runtime(&mut wgsl, &["slm_at", "slm_ld", "slm_st"]);
    wgsl += r#"
fn fill() {
    for (var w = 0u; w < 4u; w++) { atomicStore(&slm[w], 0x03020100u + w * 0x04040404u); }
}

@compute @workgroup_size(1)
fn main() {
    fill();
    var k = 0u;
    for (var n = 1u; n <= 4u; n = n * 2u) {
        for (var a = 0u; a < 20u; a++) {
            // Every other address carries IGC's SLM tag (bit 28).
            let addr = u64(a) | select(0lu, 0x10000000lu, (a & 1u) == 1u);
            io[k] = u32(mem_ld(SP_SLM, 0u, addr, n));
            io[k + 1u] = u32(slm_ld(addr, n));
            k = k + 2u;
        }
    }
    // The same stores both ways, the words after each run side by side.
    for (var form = 0u; form < 2u; form++) {
        fill();
        var s = 0u;
        for (var n = 1u; n <= 4u; n = n * 2u) {
            for (var a = 0u; a < 18u; a = a + 3u) {
                s = s + 1u;
                let v = u64(0x9e3779b9u * s);
                if (form == 0u) { mem_st(SP_SLM, 0u, u64(a), n, v); } else { slm_st(u64(a), n, v); }
            }
        }
        for (var w = 0u; w < 4u; w++) { io[k + w * 2u + form] = atomicLoad(&slm[w]); }
    }
    flush_oob();
    io[k + 8u] = atomicLoad(&stat[STAT_OOB_READS]);
    io[k + 9u] = atomicLoad(&stat[STAT_OOB_WRITES]);
}
"#;
    let out = run_memory_module(0xb72, wgsl, &[0; 280], vec![0; 16], 256);
    let io = words(&out[4]);
    let k = 3 * 20 * 2;
    let mut i = 0;
    for n in [1usize, 2, 4] {
        for a in 0..20usize {
            let pair = &io[2 * i..2 * i + 2];
            assert_eq!(pair[0], pair[1], "load of {n} at {a}");
            // The model: byte b of SLM is b (as `fill` writes), zero out of bounds.
            let want = if a + n <= 16 {
                (0..n).fold(0u32, |v, j| v | (((a + j) as u32) << (8 * j)))
            } else {
                0
            };
            assert_eq!(pair[0], want, "load of {n} at {a}");
            i += 1;
        }
    }
    for w in 0..4 {
        assert_eq!(
            io[k + 2 * w],
            io[k + 2 * w + 1],
            "word {w} after the stores"
        );
    }
    // Reads past 16 bytes: (20 - 16 + n - 1) per size, by each form.
    let per_form: u32 = [1u32, 2, 4].iter().map(|n| 4 + n - 1).sum();
    assert_eq!(io[k + 8], 2 * per_form, "out-of-bounds reads");
    // The stores of 2 and 4 bytes at 15 leave the 16 bytes, in each form.
    assert_eq!(io[k + 9], 2 * 2, "out-of-bounds writes");
}

/// The straight modules' branch-free SLM words (`slm_ld4`/`slm_st4`) give what
/// `slm_ld`/`slm_st` give wherever they take the access: aligned words with or without
/// IGC's bit-28 tag, out of bounds (zero; the store dropped; both counted). An
/// unaligned word inside SLM is theirs to refuse: `slow_at` records the instruction
/// and the store goes to the trash word after SLM.
#[test]
fn branch_free_slm_words_match_the_short_forms_or_refuse() {
    let mut wgsl = general_memory_module(&["var<private> slow_at: u32;\n"]).replace(
        "var<workgroup> slm: array<atomic<u32>, K_SLM_WORDS>;",
        "var<workgroup> slm: array<atomic<u32>, K_SLM_WORDS + 1u>;",
    );
    push_runtime(
        &mut wgsl,
        &["slm_at", "slm_ld", "slm_word", "slm_ld4", "slm_st4"],
    );
    wgsl += r#"
fn fill() {
    for (var w = 0u; w < 4u; w++) { atomicStore(&slm[w], 0x03020100u + w * 0x04040404u); }
}

@compute @workgroup_size(1)
fn main() {
    fill();
    var k = 0u;
    for (var a = 0u; a < 24u; a++) {
        let addr = u64(a) | select(0lu, 0x10000000lu, (a & 1u) == 1u);
        slow_at = 0u;
        io[k] = u32(slm_ld(addr, 4u));
        io[k + 1u] = slm_ld4(addr, 7u);
        io[k + 2u] = slow_at;
        k = k + 3u;
    }
    slow_at = 0u;
    slm_st4(4lu | 0x10000000lu, 0xaabbccddu, 9u);
    slm_st4(16lu, 0x11111111u, 9u);
    io[k] = slow_at;
    slm_st4(6lu, 0x22222222u, 5u);
    io[k + 1u] = slow_at;
    for (var w = 0u; w < 4u; w++) { io[k + 2u + w] = atomicLoad(&slm[w]); }
    flush_oob();
    io[k + 6u] = atomicLoad(&stat[STAT_OOB_READS]);
    io[k + 7u] = atomicLoad(&stat[STAT_OOB_WRITES]);
    // Every binding the runner passes is used (the layout comes from the module).
    io[k + 8u] = cfg[0] + atomicLoad(&heap[0]) + atomicLoad(&scratch[0]);
}
"#;
    let out = run_memory_module(0xb76, wgsl, &[0; 280], vec![0; 16], 96);
    let io = words(&out[4]);
    for a in 0..24usize {
        let (short, word, slow) = (io[3 * a], io[3 * a + 1], io[3 * a + 2]);
        if a % 4 != 0 && a + 4 <= 16 {
            assert_eq!((word, slow), (0, 8), "unaligned word at {a} refused");
        } else {
            assert_eq!((word, slow), (short, 0), "word at {a}");
        }
        if a + 4 > 16 {
            assert_eq!(word, 0, "out of bounds at {a}");
        }
    }
    let k = 3 * 24;
    // The out-of-bounds store is no refusal; the unaligned one is (instruction 5).
    assert_eq!((io[k], io[k + 1]), (0, 6));
    let fill = |w: u32| 0x03020100u32.wrapping_add(w.wrapping_mul(0x04040404));
    assert_eq!(&io[k + 2..k + 6], &[fill(0), 0xaabbccdd, fill(2), fill(3)]);
    // Reads past 16 bytes (at 13-23) by each form; the one store past them.
    assert_eq!((io[k + 6], io[k + 7]), (2 * 11, 1));
}

/// shaders/image.wgsl's channel conversions (`img_load`, `img_store`) agree with the
/// interpreter's `ChannelType::load`/`store` for every channel type, on every byte,
/// 16-bit patterns and floats around the clamps, the rounding ties and NaN.
#[test]
fn image_channel_conversions_match_the_interpreter() {
    use visa_emu::abi::image::ChannelType;
    let wgsl = image_module(
        &["hf2f", "f2hf", "img_norm16", "img_load", "img_store"],
        r#"
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (4u * i >= arrayLength(&io)) { return; }
    let ty = io[4u * i];
    let v = io[4u * i + 1u];
    io[4u * i + 2u] = img_load(ty, v);
    io[4u * i + 3u] = img_store(ty, v);
}
"#,
    );
    let names = [
        "SNORM_INT8",
        "UNORM_INT8",
        "SIGNED_INT8",
        "SIGNED_INT16",
        "SIGNED_INT32",
        "UNSIGNED_INT8",
        "UNSIGNED_INT16",
        "UNSIGNED_INT32",
        "HALF_FLOAT",
        "FLOAT",
        "UNORM_INT16",
        "SNORM_INT16",
    ];
    let types: Vec<ChannelType> = names
        .iter()
        .map(|n| ChannelType::from_name(n).unwrap())
        .collect();
    let mut values: Vec<u32> = (0..=0xffffu32).step_by(7).chain(0..256).collect();
    for k in -600i32..=600 {
        values.push((k as f32 / 256.0).to_bits());
        values.push((k as f32 * 0.5 / 255.0).to_bits()); // unorm8 ties and near-ties
        values.push(k as u32);
    }
    values.extend([
        f32::NAN.to_bits(),
        0xffc0_0000,
        f32::INFINITY.to_bits(),
        0xff80_0000,
    ]);
    values.extend([65504.0f32, 65520.0, 1e-7, -3e-5, 70000.0].map(f32::to_bits));
    values.extend([u32::MAX, 0x8000_0000, 0x7fff_ffff, 70000, 0xffff_8000]);
    let mut cases = Vec::new();
    for (t, _) in types.iter().enumerate() {
        for &v in &values {
            cases.push([t as u32, v, 0, 0]);
        }
    }
    // cfg: the tables at word 16 (cfg[CFG_IMAGES]), as the host lays them out.
    let mut cfg = vec![0u32; 16];
    cfg[13] = 16;
    cfg.extend((0..256).map(|x| ChannelType::UnormInt8.load(x)));
    cfg.extend((0..256).map(|x| ChannelType::SnormInt8.load(x)));
    let data: Vec<u8> = cases
        .iter()
        .flatten()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let out = words(&run_io_cfg(0x1a6e, wgsl, data, &cfg, cases.len() as u32));
    for (k, c) in cases.iter().enumerate() {
        let ty = types[c[0] as usize];
        // The loads take stored channels (the low bytes); the interpreter masks the same.
        let raw = c[1]
            & if ty.bytes() == 4 {
                u32::MAX
            } else {
                (1 << (8 * ty.bytes())) - 1
            };
        let hf_nan = ty == ChannelType::HalfFloat && (raw & 0x7c00) == 0x7c00 && raw & 0x3ff != 0;
        if !hf_nan {
            assert_eq!(out[4 * k + 2], ty.load(raw), "{ty:?} load {raw:#x}");
        }
        assert_eq!(out[4 * k + 3], ty.store(c[1]), "{ty:?} store {:#x}", c[1]);
    }
}

/// shaders/image.wgsl's `img_axis` (the texel a nearest sample reads along an axis)
/// agrees with the interpreter's `SamplerState::texel_index` for every address mode,
/// normalized or not, over coordinates around the edges, far outside, infinite and NaN,
/// with `_aoffimmi` texel offsets -8..7 (saturating at i32's ends on both sides).
#[test]
fn sampler_texel_indices_match_the_interpreter() {
    use visa_emu::abi::image::SamplerState;
    let wgsl = image_module(
        &["img_axis", "img_wrap", "img_off"],
        r#"
const NO_WORD: u32 = 0xffffffffu;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (4u * i >= arrayLength(&io) || cfg[0] != 0u) { return; }
    let o = i32(io[4u * i + 2u] >> 16u) - 8;
    io[4u * i + 3u] = img_axis(io[4u * i], 0u, io[4u * i + 1u], io[4u * i + 2u] & 0xffffu, o);
}
"#,
    );
    let mut coords: Vec<f32> = (-80..=80).map(|k| k as f32 * 0.25).collect();
    coords.extend((-40..=40).map(|k| k as f32 / 32.0 + 1.0 / 64.0));
    coords.extend([
        1e9,
        -1e9,
        3e38,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -0.0,
    ]);
    let mut cases = Vec::new();
    let mut samplers = Vec::new();
    for mode in [0u32, 1, 2, 4] {
        for normalized in [false, true] {
            let s = SamplerState::from_words([0, mode << 6 | (!normalized as u32) << 10]);
            for n in [1u32, 5, 16] {
                for (j, c) in coords.iter().enumerate() {
                    // Offsets 0 and one of -8..7 in turn (in the size word's high half).
                    for o in [0, (j % 16) as u32] {
                        cases.push([s.code(), c.to_bits(), n | (o + 8) << 16, 0]);
                        samplers.push(s);
                    }
                }
            }
        }
    }
    let data: Vec<u8> = cases
        .iter()
        .flatten()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let out = words(&run_io_cfg(0x5a3d, wgsl, data, &[0], cases.len() as u32));
    for (k, (c, s)) in cases.iter().zip(&samplers).enumerate() {
        let (n, o) = (c[2] & 0xffff, (c[2] >> 16) as i32 - 8);
        let want = s.texel_index(0, c[1], n, o).unwrap_or(u32::MAX);
        assert_eq!(
            out[4 * k + 3],
            want,
            "{s:?} coordinate {} size {n} offset {o}",
            f32::from_bits(c[1]),
        );
    }
}

/// shaders/image.wgsl's linear-sample position (`img_snap`: i0 and the 1/256 fraction)
/// and tap addressing (`img_wrap`) agree with the interpreter's `snap_position` and
/// `SamplerState::linear_taps` over positions on and off the 1/256 grid, ties, far
/// outside, infinite and NaN, in every address mode.
#[test]
fn linear_sample_positions_match_the_interpreter() {
    use visa_emu::abi::image::{snap_position, SamplerState};
    let wgsl = image_module(
        &["img_snap", "img_wrap", "img_taps", "img_off"],
        r#"
const NO_WORD: u32 = 0xffffffffu;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (6u * i >= arrayLength(&io) || cfg[0] != 0u) { return; }
    let s = img_snap(bitcast<f32>(io[6u * i + 1u]));
    io[6u * i + 3u] = s.x;
    io[6u * i + 4u] = s.y;
    let o = i32(io[6u * i + 2u] >> 16u) - 8;
    io[6u * i + 5u] = img_taps(io[6u * i], 0u, io[6u * i + 1u], io[6u * i + 2u] & 0xffffu, o).y;
}
"#,
    );
    let mut coords: Vec<f32> = (-300..=300).map(|k| k as f32 / 37.0).collect();
    coords.extend((-64..=64).map(|k| k as f32 / 512.0 + 0.5)); // ties between grid steps
    coords.extend([
        1e9,
        -1e9,
        3e38,
        -3e38,
        2147483520.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ]);
    coords.extend([f32::NAN, -0.0, 1e-30, 0.99999994, 16.0 - 1.0 / 1024.0]);
    let mut cases = Vec::new();
    let mut samplers = Vec::new();
    for mode in [0u32, 1, 2, 4] {
        let s = SamplerState::from_words([0, mode << 6 | 1 << 10]);
        for n in [1u32, 7, 16] {
            for (j, c) in coords.iter().enumerate() {
                for o in [0, (j % 16) as u32] {
                    cases.push([s.code(), c.to_bits(), n | (o + 8) << 16, 0, 0, 0]);
                    samplers.push(s);
                }
            }
        }
    }
    let data: Vec<u8> = cases
        .iter()
        .flatten()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let out = words(&run_io_cfg(0x5a3e, wgsl, data, &[0], cases.len() as u32));
    for (k, (c, s)) in cases.iter().zip(&samplers).enumerate() {
        let x = f32::from_bits(c[1]);
        let (i0, frac) = snap_position(x);
        assert_eq!(
            (out[6 * k + 3] as i32 as i64, out[6 * k + 4]),
            (i0, frac),
            "position {x}"
        );
        // The second tap's index along a 1D image of n texels, offset by o.
        let (n, o) = (c[2] & 0xffff, (c[2] >> 16) as i32 - 8);
        let d = visa_emu::abi::image::ImageDesc {
            dims: 1,
            array: false,
            width: n,
            height: 1,
            depth: 1,
            order: visa_emu::abi::image::ChannelOrder::R,
            ty: visa_emu::abi::image::ChannelType::Float,
        };
        let taps = s.linear_taps(&d, [c[1], 0, 0], [o, 0, 0]);
        let want = taps.taps[1].0.map_or(u32::MAX, |t| t[0]);
        assert_eq!(
            out[6 * k + 5],
            want,
            "{s:?} position {x} size {n} offset {o}"
        );
    }
}

/// The bindings, `cfg` offsets and counters the binding-table accessors of
/// runtime.wgsl read, as `two_allocations` lays them out.
fn binding_table_module() -> String {
    String::from(concat!(
        "@group(0) @binding(0) var<storage, read> cfg: array<u32>;\n",
        "@group(0) @binding(1) var<storage, read_write> heap: array<atomic<u32>>;\n",
        "@group(0) @binding(2) var<storage, read_write> stat: array<atomic<u32>>;\n",
        "@group(0) @binding(3) var<storage, read_write> io: array<u32>;\n",
        "const CFG_BTI: u32 = 16u;\nconst CFG_TRASH: u32 = 12u;\nconst CFG_ALLOC: u32 = 272u;\n",
        "const CFG_BTI_SPAN: u32 = 280u;\n",
        "const STAT_OOB_READS: u32 = 2u;\nconst STAT_OOB_WRITES: u32 = 3u;\n",
        "const NO_WORD: u32 = 0xffffffffu;\n",
        "var<private> oob_reads: u32;\nvar<private> oob_writes: u32;\n",
    ))
}

/// The straight modules' branch-free word accesses (`bti_ld4`/`bti_st4`) give what
/// `bti_ld`/`bti_st` give wherever they take the access: aligned words, out of bounds
/// (zero; the store lands in the trash word; both counted), unbound entries, addresses
/// past 4 GiB. An unaligned word inside the buffer is theirs to refuse: it records the
/// instruction in `slow_at` (the host then runs the thread mapping) and stores nothing.
#[test]
fn branch_free_words_match_the_short_forms_or_refuse() {
    let mut wgsl = binding_table_module();
    wgsl += "var<private> slow_at: u32;\nvar<private> bti_spans: array<u32, 8>;\n";
    push_runtime(
        &mut wgsl,
        &[
            "bti_at",
            "bti_ld",
            "heap_ld",
            "bti_st",
            "heap_st",
            "load_bti_spans",
            "bti_word",
            "bti_ld4",
            "bti_st4",
            "flush_oob",
        ],
    );
    wgsl += r#"
@compute @workgroup_size(1)
fn main() {
    // Entry 3 is read from the privates, 4 and 5 from `cfg`.
    load_bti_spans();
    var k = 0u;
    for (var a = 0u; a < 40u; a++) {
        slow_at = 0u;
        io[k] = u32(bti_ld(3u, u64(a), 4u));
        io[k + 1u] = bti_ld4(3u, u64(a), 7u);
        io[k + 2u] = slow_at;
        k = k + 3u;
    }
    slow_at = 0u;
    io[k] = bti_ld4(5u, 0lu, 1u);
    io[k + 1u] = bti_ld4(3u, 0x100000000lu, 1u);
    io[k + 2u] = slow_at;
    flush_oob();
    io[k + 3u] = atomicLoad(&stat[STAT_OOB_READS]);
    var s = 0u;
    for (var a = 0u; a <= 40u; a = a + 4u) {
        s = s + 1u;
        let v = 0x9e3779b9u * s;
        bti_st(3u, u64(a), 4u, u64(v));
        bti_st4(4u, u64(a), v, 9u);
    }
    bti_st4(5u, 0lu, 1u, 9u);
    slow_at = 0u;
    bti_st4(4u, 2lu, 0x5555u, 9u);
    io[k + 4u] = slow_at;
    flush_oob();
    io[k + 5u] = atomicLoad(&stat[STAT_OOB_WRITES]);
}
"#;
    // `two_allocations`, and the trash word: heap word 20.
    let (_, heap, mut cfg) = two_allocations(84);
    cfg[12] = 20;
    let out = run_with_cfg(
        0xb74,
        wgsl,
        &cfg,
        vec![
            rw(heap, true),
            rw(vec![0; 64], true),
            rw(vec![0; 4 * 160], true),
        ],
    );
    let io = words(&out[3]);
    for a in 0..40usize {
        let (short, fast, slow) = (io[3 * a], io[3 * a + 1], io[3 * a + 2]);
        if a % 4 != 0 && a + 4 <= 36 {
            assert_eq!((fast, slow), (0, 8), "unaligned word at {a} refused");
        } else {
            assert_eq!((fast, slow), (short, 0), "word at {a}");
        }
    }
    let k = 3 * 40;
    assert_eq!(
        &io[k..k + 3],
        &[0, 0, 0],
        "unbound, past 4 GiB: zero, not refused"
    );
    // Reads past the end (a = 33..39) by each form, the unbound entry, 4 GiB.
    assert_eq!(io[k + 3], 7 + 7 + 2);
    assert_eq!(io[k + 4], 10, "the unaligned store is refused");
    // Stores at 36 and 40 by each form, the unbound entry (the refused one is not
    // out of bounds).
    assert_eq!(io[k + 5], 2 + 2 + 1);
    let h = &out[1];
    assert_eq!(&h[..36], &h[40..76], "short vs branch-free stores");
    assert!(
        h[36..40].iter().chain(&h[76..80]).all(|&b| b == 0xee),
        "{:?}",
        &h[36..]
    );
}

/// Straight modules' short atomic (`rmw_word`, then the one WGSL atomic the translator
/// names, `wrmw`'s table: `message::wgsl_rmw` is checked against it in its unit test):
/// WGSL's own 32-bit operations on heap words located through the binding table
/// (`bti_at`) give the old word and leave the result of the operation (checked against
/// the page's arithmetic here); an access outside the buffer reads 0 and is counted; a
/// misaligned word is refused: the instruction is recorded in `slow_at` and nothing
/// changes.
#[test]
fn short_atomics_apply_or_refuse() {
    let mut wgsl = String::from(concat!(
        "@group(0) @binding(0) var<storage, read> cfg: array<u32>;\n",
        "@group(0) @binding(1) var<storage, read_write> heap: array<atomic<u32>>;\n",
        "@group(0) @binding(2) var<storage, read_write> stat: array<atomic<u32>>;\n",
        "@group(0) @binding(3) var<storage, read_write> scratch: array<atomic<u32>>;\n",
        "@group(0) @binding(4) var<storage, read_write> io: array<u32>;\n",
        "const CFG_BTI_SPAN: u32 = 280u;\n",
        "const STAT_OOB_READS: u32 = 2u;\nconst STAT_OOB_WRITES: u32 = 3u;\n",
        "const SP_BTI: u32 = 1u;\nconst NO_WORD: u32 = 0xffffffffu;\n",
        "var<workgroup> slm: array<atomic<u32>, 4>;\n",
        "var<private> slow_at: u32;\n",
        "var<private> oob_reads: u32;\nvar<private> oob_writes: u32;\n",
    ));
    push_runtime(&mut wgsl, &["wrmw", "bti_at", "rmw_word", "flush_oob"]);
    wgsl += r#"
fn rmw4(space: u32, o: u32, op: u32, v: u32, at: u32) -> u32 {
    let w = rmw_word(o, at);
    if (w != NO_WORD) { return wrmw(space, w, op, v); }
    return 0u;
}

@compute @workgroup_size(1)
fn main() {
    // Entry 4: heap bytes 40..76 (`two_allocations`); operation k on its word k % 9.
    let ops = array<u32, 10>(0u, 1u, 2u, 3u, 4u, 5u, 6u, 8u, 9u, 10u);
    for (var k = 0u; k < 10u; k++) {
        io[k] = rmw4(SP_BTI, bti_at(4u, u64(4u * (k % 9u)), 4u), ops[k], 0x9e3779b9u * (k + 1u), 7u);
    }
    io[10u] = slow_at;
    io[11u] = rmw4(SP_BTI, bti_at(4u, 36lu, 4u), 0u, 5u, 7u);
    io[12u] = rmw4(SP_BTI, bti_at(4u, 2lu, 4u), 0u, 5u, 9u);
    io[13u] = slow_at;
    flush_oob();
    io[14u] = atomicLoad(&stat[STAT_OOB_READS]);
}
"#;
    let (_, heap, cfg) = two_allocations(80);
    let mut want = words(&heap);
    let out = run_with_cfg(
        0x7a4d,
        wgsl,
        &cfg,
        vec![
            rw(heap, true),
            rw(vec![0; 64], true),
            rw(vec![0; 64], false),
            rw(vec![0; 4 * 15], true),
        ],
    );
    let io = words(&out[4]);
    for (k, op) in [0u32, 1, 2, 3, 4, 5, 6, 8, 9, 10].into_iter().enumerate() {
        let w = &mut want[10 + k % 9];
        let v = 0x9e37_79b9u32.wrapping_mul(k as u32 + 1);
        assert_eq!(io[k], *w, "old word of operation {op}");
        *w = match op {
            0 => w.wrapping_add(v),
            1 => w.wrapping_sub(v),
            2 => w.wrapping_add(1),
            3 => w.wrapping_sub(1),
            4 => (*w).min(v),
            5 => (*w).max(v),
            6 => v,
            8 => *w & v,
            9 => *w | v,
            _ => *w ^ v,
        };
    }
    assert_eq!(io[10], 0, "aligned words are not refused");
    assert_eq!(
        (io[11], io[12], io[13]),
        (0, 0, 10),
        "outside: 0; misaligned: refused"
    );
    assert_eq!(io[14], 1, "the access outside the buffer is counted");
    assert_eq!(words(&out[1]), want, "final words");
}

/// DPAS's float stage (shaders/dpas.wgsl `dpas_acc`): t + a0*b0 + a1*b1 rounded once
/// to f32, against the interpreter's `alu::dpas` on the same bf16 elements, where the
/// products span 2^-120..2^120 and often cancel each other or the accumulator.
#[test]
fn dpas_float_stage_is_one_rounding_like_the_interpreter() {
    use visa_emu::interp::alu::{dpas, DpasShape, Precision};
    use visa_emu::ir::DataType;
    let mut s = 0x2545f4914f6cdd1du64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let bf = |r: u64| -> u16 {
        // sign, exponent 127 +- 60, 7 mantissa bits
        let e = (67 + r % 121) as u16;
        (((r >> 8) & 1) as u16) << 15 | e << 7 | ((r >> 16) & 0x7f) as u16
    };
    let val = |h: u16| f32::from_bits((h as u32) << 16) as f64;
    let shape = DpasShape {
        w: Precision::Bf,
        a: Precision::Bf,
        depth: 1,
        repeat: 1,
        exec_size: 8,
    };
    let (mut triples, mut want) = (Vec::new(), Vec::new());
    for k in 0..3000 {
        let (a0, b0, a1) = (bf(next()), bf(next()), bf(next()));
        // Every third: the second product cancels most of the first.
        let b1 = if k % 3 == 0 {
            b0 ^ 0x8000 ^ (next() & 3) as u16
        } else {
            bf(next())
        };
        let a1 = if k % 3 == 0 { a0 } else { a1 };
        let p0 = val(a0) * val(b0);
        let t = match k % 4 {
            0 => -(p0 as f32),
            1 => f32::from_bits(next() as u32 & 0x7f7f_ffff),
            _ => (p0 * (1.0 + (next() % 7) as f64 * 1e-9)) as f32,
        };
        let mut src0 = vec![0u8; 32];
        src0[..4].copy_from_slice(&t.to_le_bytes());
        let mut src1 = vec![0u8; 32];
        src1[..4].copy_from_slice(&((b0 as u32) | (b1 as u32) << 16).to_le_bytes());
        let src2 = ((a0 as u32) | (a1 as u32) << 16).to_le_bytes();
        let out = dpas(shape, DataType::F, Some((DataType::F, &src0)), &src1, &src2).unwrap();
        want.push(f32::from_le_bytes(out[..4].try_into().unwrap()));
        triples.push([t as f64, p0, val(a1) * val(b1)]);
    }
    let got = run_f64(
        &[
            "dpas_acc",
            "sum3_32",
            "two_sum_err",
            "f64_to_f32_rm",
            "next_up",
            "next_down",
            "add_odd",
            "to_odd",
            "nan32",
            "nan64",
            "opaque_f64",
        ],
        "f64(dpas_acc(f32(a), b, c))",
        &triples,
    );
    let bad: Vec<String> = triples
        .iter()
        .zip(got.iter().zip(&want))
        .filter(|(_, (g, w))| (**g as f32).to_bits() != w.to_bits())
        .map(|(t, (g, w))| format!("{:e} + {:e} + {:e} = {w:e}, got {g:e}", t[0], t[1], t[2]))
        .collect();
    assert!(
        bad.is_empty(),
        "{} of {} differ, e.g. {:#?}",
        bad.len(),
        triples.len(),
        &bad[..bad.len().min(5)]
    );
}

/// The runtime's `const NAME ...;` line (the value the shaders use).
fn runtime_const(name: &str) -> String {
    let text = visa_emu::translate::RUNTIME;
    let start = text
        .find(&format!("\nconst {name}:"))
        .unwrap_or_else(|| panic!("runtime has no const {name}"))
        + 1;
    let end = text[start..].find(';').unwrap() + start + 1;
    format!("{}\n", &text[start..end])
}

/// The bindings the 64-bit atomic tests dispatch (heap, stat, scratch, io), a group
/// SLM of 4 words with its locks, `head`, the runtime's constants `consts` and
/// functions `funcs` with the ones `atomic_apply` needs, and the float switches: the
/// module up to the test's entry point.
fn atomic64_module(head: &str, consts: &[&str], funcs: &[&str]) -> String {
    let mut wgsl = String::from(concat!(
        "@group(0) @binding(0) var<storage, read_write> heap: array<atomic<u32>>;\n",
        "@group(0) @binding(1) var<storage, read_write> stat: array<atomic<u32>>;\n",
        "@group(0) @binding(2) var<storage, read_write> scratch: array<atomic<u32>>;\n",
        "@group(0) @binding(3) var<storage, read_write> io: array<u32>;\n",
        "const K_SLM_WORDS: u32 = 4u;\n",
        "var<workgroup> slm: array<atomic<u32>, K_SLM_WORDS + 1u + K_SLM_LOCKS>;\n",
        "struct AtomicNew { v: u64, keep: bool }\n",
    ));
    wgsl += head;
    for c in [
        "K_SLM_LOCKS",
        "NO_WORD",
        "STAT_ERROR",
        "STAT_ERROR_AT",
        "ERR_ATOMIC_CONTENDED",
    ]
    .iter()
    .chain(consts)
    {
        wgsl += &runtime_const(c);
    }
    let apply = [
        "fail",
        "mask_bits",
        "sext",
        "hf2f",
        "f2hf",
        "f64_to_hf",
        "f32_odd",
        "nan64",
        "afl",
        "atf",
        "fminmax64",
        "atomic_apply",
        "atomic_float",
        "atomic_float32",
        "atomic_float_wide",
        "f32_key",
    ];
    // The 32-bit float atomics' add (these modules run no float atomic; its
    // flushing-adapter form would need cfg).
    wgsl += "fn fadd32_rne(x: f32, y: f32, z: f32) -> f32 { return x + y; }\n";
    let mut seen = std::collections::HashSet::new();
    let names: Vec<&str> = apply
        .iter()
        .chain(funcs)
        .copied()
        .filter(|f| seen.insert(*f))
        .collect();
    push_runtime(&mut wgsl, &names);
    float_switches(&mut wgsl, &[]);
    wgsl
}

/// 64-bit atomics without native 64-bit atomics (`atomic64_split`: 64-bit types
/// emulated, SLM, unaligned heap words) are exact under contention: 8 work-groups of 64
/// invocations add 16 times to an SLM counter and a heap counter, every add carrying
/// into the high word, while the invocations of one subgroup race for the same lock
/// (the split form without the lock lost hundreds of carries on lavapipe).
#[test]
fn split_64_bit_atomics_are_exact_under_contention() {
    let mut wgsl = atomic64_module(
        "",
        &[
            "SP_BTI",
            "SP_SLM",
            "STAT_LOCKS",
            "N_LOCKS",
            "AOP_ADD",
            "AOP_CMPXCHG",
        ],
        &[
            "wld",
            "wcas",
            "wstore",
            "lock_of",
            "lock_try",
            "lock_release",
            "atomic64_split",
        ],
    );
    wgsl += r#"
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    if (l == 0u) {
        atomicStore(&slm[0], 0x80000000u);
        atomicStore(&slm[1], 0u);
        atomicStore(&slm[2], 0u);
        atomicStore(&slm[3], 0u);
    }
    workgroupBarrier();
    for (var r = 0u; r < 16u; r++) {
        atomic64_split(SP_SLM, 0u, AOP_ADD, 0xfffffffflu, 0lu);
        atomic64_split(SP_SLM, 2u, AOP_ADD, 0x100000001lu, 0lu);
        atomic64_split(SP_BTI, 0u, AOP_ADD, 0xfffffffflu, 0lu);
        atomic64_split(SP_BTI, 3u, AOP_ADD, 0x100000001lu, 0lu);
    }
    // A compare-and-swap that only the first of the 512 invocations can win.
    let old = atomic64_split(SP_BTI, 5u, AOP_CMPXCHG, 0x1234567800000000lu, 0x1lu + u64(wg.x * 64u + l));
    if (old == 0x1234567800000000lu) { io[256u] = io[256u] + 1u; }
    workgroupBarrier();
    if (l == 0u) {
        for (var w = 0u; w < 4u; w++) { io[wg.x * 4u + w] = atomicLoad(&slm[w]); }
    }
}
"#;
    let groups = 64u64;
    let mut heap = vec![0u8; 32];
    heap[..8].copy_from_slice(&0x8000_0000u64.to_le_bytes());
    heap[20..28].copy_from_slice(&0x1234_5678_0000_0000u64.to_le_bytes());
    let stat_bytes = visa_emu::translate::STAT_BYTES as usize;
    let mut gpu = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    let out = gpu
        .run(&ComputeJob {
            key: 0xa64,
            wgsl,
            entry_point: "main".into(),
            buffers: vec![
                rw(heap, true),
                rw(vec![0; stat_bytes], true),
                rw(vec![0; 4], false),
                rw(vec![0; 4 * 4 * 64 + 4], true),
            ],
            workgroups: [groups as u32, 1, 1],
            chunk_base_binding: None,
            first_workgroup: [0; 3],
            repeat: None,
            aliases: Vec::new(),
        })
        .unwrap()
        .outputs;
    let stat = words(&out[1]);
    assert_eq!(
        stat[0],
        0,
        "runtime error {} raised {:?}",
        stat[0],
        &stat[..4]
    );
    assert!(stat[16..].iter().all(|&w| w == 0), "a lock was left taken");
    let q = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let adds = 64 * 16u64;
    let io = words(&out[3]);
    for g in 0..groups as usize {
        let slm: Vec<u8> = io[g * 4..g * 4 + 4]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        assert_eq!(
            q(&slm, 0),
            0x8000_0000 + adds * 0xffff_ffff,
            "group {g} SLM"
        );
        assert_eq!(q(&slm, 8), adds * 0x1_0000_0001, "group {g} SLM");
    }
    let heap = &out[0];
    let all = groups * adds;
    assert_eq!(q(heap, 0), 0x8000_0000 + all * 0xffff_ffff, "heap, aligned");
    assert_eq!(q(heap, 12), all * 0x1_0000_0001, "heap, word-aligned");
    assert!(
        (1..=groups * 64).contains(&q(heap, 20)),
        "cmpxchg: {:#x}",
        q(heap, 20)
    );
    assert_eq!(io[256], 1, "invocations that won the compare-and-swap");
}

/// Where the device has native 64-bit atomics, SLM moved into the heap
/// (`workgroup_memory::slm_in_heap`, which the host applies to kernels with 64-bit SLM
/// atomics) takes them lock-free on `atomic<u64>` heap words: 64 groups of 64
/// invocations carry-add 16 times into two SLM counters each, with an SLM size whose
/// unrounded group stride (4 + 1 + 16 words) would misalign every other group. The split form is
/// replaced by a stub that raises error 99, so the sums prove the native path; the same
/// module with its SLM left in workgroup memory must take the split form (and raise it).
#[test]
fn native_64_bit_atomics_take_slm_in_the_heap_lock_free() {
    use visa_emu::translate::workgroup_memory::{group_slm_stride, slm_in_heap};
    let mut wgsl = atomic64_module(
        concat!(
            "var<private> slm_base: u32;\n",
            "const K_SLM_IN_HEAP: bool = false;\n",
            "fn cfh(i: u32) -> u32 { return select(select(1u, 64u, i == CFG_GROUPS), 2u, i == CFG_GSLM); }\n",
            "fn atomic64_split(space: u32, w: u32, op: u32, s0: u64, s1: u64) -> u64 { fail(99u, w); return 0lu; }\n",
        ),
        &["SP_SLM", "CFG_GROUPS", "CFG_GSLM", "AOP_ADD"],
        &[],
    );
    wgsl += visa_emu::translate::ATOMIC64_NATIVE;
    wgsl += r#"
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) grp: vec3<u32>) {
    let group = (grp.z * cfh(CFG_GROUPS + 1u) + grp.y) * cfh(CFG_GROUPS) + grp.x;
    // Every binding in the layout (the job binds them all), SLM moved or not.
    atomicAdd(&scratch[0], 0u);
    atomicAdd(&heap[0], 0u);
    if (l == 0u) {
        atomicStore(&slm[0], 0x80000000u);
        atomicStore(&slm[1], 0u);
        atomicStore(&slm[2], 0u);
        atomicStore(&slm[3], 0u);
    }
    workgroupBarrier();
    for (var r = 0u; r < 16u; r++) {
        atomic64(SP_SLM, 0u, AOP_ADD, 0xfffffffflu, 0lu);
        atomic64(SP_SLM, 2u, AOP_ADD, 0x100000001lu, 0lu);
    }
    storageBarrier();
    workgroupBarrier();
    if (l == 0u) {
        for (var w = 0u; w < 4u; w++) { io[group * 4u + w] = atomicLoad(&slm[w]); }
    }
}
"#;
    let groups = 64usize;
    let stride = group_slm_stride(4, 16) as usize;
    let stat_bytes = visa_emu::translate::STAT_BYTES as usize;
    let mut gpu = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    assert!(
        gpu.capabilities().int64_atomics,
        "the CI adapter (lavapipe) has 64-bit atomics"
    );
    let mut run = |wgsl: String, key: u64| {
        gpu.run(&ComputeJob {
            key,
            wgsl,
            entry_point: "main".into(),
            buffers: vec![
                rw(vec![0; 4 * (2 + groups * stride)], false),
                rw(vec![0; stat_bytes], true),
                rw(vec![0; 4], false),
                rw(vec![0; 4 * 4 * groups], true),
            ],
            workgroups: [groups as u32, 1, 1],
            chunk_base_binding: None,
            first_workgroup: [0; 3],
            repeat: None,
            aliases: vec![(7, 0)],
        })
        .unwrap()
        .outputs
    };
    let moved = slm_in_heap(&wgsl).expect("the module has SLM");
    let out = run(moved, 0xa64b);
    let stat = words(&out[1]);
    assert_eq!(
        stat[0],
        0,
        "runtime error {} raised {:?}",
        stat[0],
        &stat[..4]
    );
    let adds = 64 * 16u64;
    let io = words(&out[3]);
    for g in 0..groups {
        let q = |w: usize| u64::from(io[g * 4 + w]) | u64::from(io[g * 4 + w + 1]) << 32;
        assert_eq!(q(0), 0x8000_0000 + adds * 0xffff_ffff, "group {g}");
        assert_eq!(q(2), adds * 0x1_0000_0001, "group {g}");
    }
    let stat = words(&run(wgsl, 0xa64c)[1]);
    assert_eq!(stat[0], 99, "SLM in workgroup memory takes the split form");
}

/// f32 values dense in denormals and their neighbours: the smallest and largest
/// denormals, the smallest normals, powers whose products and sums fall below 2^-126.
fn denormal_rich_f32() -> Vec<f32> {
    let bits = [
        0x0000_0001u32,
        0x0000_0002,
        0x0000_0003,
        0x0040_0000,
        0x0060_0001,
        0x007f_ffff,
        0x0080_0000,
        0x0080_0001,
        0x0100_0000,
        0x0d80_0000, // 2^-100
        0x3080_0000, // 2^-30
        0x3380_0000, // 2^-24
        0x3f00_0000,
        0x3f80_0000,
        0x3fc0_0000,
        0x4040_0000,
        0x0000_0000,
    ];
    bits.iter()
        .flat_map(|&b| [f32::from_bits(b), f32::from_bits(b | 0x8000_0000)])
        .collect()
}

/// The forms an adapter that flushes f32 denormals runs (`F32_FTZ` set: NVIDIA's
/// driver flushes, lavapipe keeps them): F add, mul, fused mad, compares, saturation
/// and narrowing in every rounding mode give Rust's IEEE answers on denormal operands
/// and results, and `w32`/`n32` carry denormals both ways exactly. (The same calls
/// with `F32_FTZ` false are the native operations, which an FTZ adapter flushes.)
#[test]
fn ftz_forms_keep_f32_denormals() {
    let funcs = [
        "nan32",
        "nan64",
        "w32",
        "n32",
        "f64_to_f32_rm",
        "next_up",
        "next_down",
        "to_odd",
        "opaque_f64",
        "add_odd",
        "two_sum_err",
        "sum_in_mode",
        "fadd32",
        "fadd32_rne",
        "fmul32",
        "fmul32_rne",
        "fma_rne32",
        "fmad32",
        "rel_f",
        "rel_f32",
        "sat64",
        "sat32",
    ];
    let extra = "const F32_FTZ: bool = true;\n";
    let vals = denormal_rich_f32();
    let triples: Vec<[f64; 3]> = vals
        .iter()
        .enumerate()
        .flat_map(|(i, &a)| {
            let vals = &vals;
            vals.iter().map(move |&b| {
                let c = vals[(i * 7 + 3) % vals.len()];
                [f64::from(a), f64::from(b), f64::from(c)]
            })
        })
        .collect();
    let f = |t: &[f64; 3], k: usize| t[k] as f32;
    type Want = fn(f32, f32, f32) -> f64;
    let cases: [(&str, Want); 7] = [
        ("w32(n32(a))", |a, _, _| f64::from(a)),
        ("w32(fadd32(n32(a), n32(b), 0.0, 0u))", |a, b, _| {
            f64::from(a + b)
        }),
        ("w32(fmul32(n32(a), n32(b), 0.0, 0u))", |a, b, _| {
            f64::from(a * b)
        }),
        ("w32(fmad32(n32(a), n32(b), n32(c), 0u))", |a, b, c| {
            f64::from(a.mul_add(b, c))
        }),
        (
            "select(0.0lf, 1.0lf, rel_f32(4u, n32(a), n32(b)))",
            |a, b, _| f64::from(u8::from(a < b)),
        ),
        (
            "select(0.0lf, 1.0lf, rel_f32(0u, n32(a), n32(b)))",
            |a, b, _| f64::from(u8::from(a == b)),
        ),
        ("w32(sat32(n32(a)))", |a, _, _| f64::from(a.clamp(0.0, 1.0))),
    ];
    // The exact forms alone; with the native fast paths' results flushed as a
    // flushing adapter's (`F32_FTZ_SIM`: their guards must send every such case to the
    // exact path); and with products laundered (`F_KEEP_PRODUCTS`) too.
    let sim = "const F32_FTZ: bool = true;\nconst F32_FTZ_SIM: bool = true;\n";
    let kept = "const F32_FTZ: bool = true;\nconst F32_FTZ_SIM: bool = true;\nconst F_KEEP_PRODUCTS: bool = true;\n";
    for (expr, want) in cases {
        for switches in [extra, sim, kept] {
            let got = run_f64_extra(&funcs, switches, expr, &triples);
            let bad: Vec<String> = triples
                .iter()
                .zip(&got)
                .filter_map(|(t, g)| {
                    let w = want(f(t, 0), f(t, 1), f(t, 2));
                    (g.to_bits() != w.to_bits()).then(|| format!("{t:?}: got {g:e} want {w:e}"))
                })
                .collect();
            assert!(
                bad.is_empty(),
                "{expr} ({}): {} wrong, e.g. {:?}",
                switches.replace('\n', " "),
                bad.len(),
                &bad[..bad.len().min(4)]
            );
        }
        // Speculation (`F32_SPECULATE`, results flushed as a flushing adapter's): each
        // result is exact or reported, and reported only where an operand is a
        // denormal or the exact result is below 2^-126 (a denormal or a zero), or is
        // 2^-126 rounded up from below (`n32` reports what it would narrow on the bits).
        let spec = "const F32_FTZ: bool = true;\nconst F32_FTZ_SIM: bool = true;\nconst F_KEEP_PRODUCTS: bool = true;\nconst F32_SPECULATE: bool = true;\n";
        let got = run_f64_extra(&funcs, spec, expr, &triples);
        let tiny = |x: f32| x != 0.0 && x.abs() < f32::MIN_POSITIVE;
        let (mut native, mut reported) = (0, 0);
        for (t, g) in triples.iter().zip(&got) {
            let w = want(f(t, 0), f(t, 1), f(t, 2));
            if g.to_bits() == MISSED {
                reported += 1;
                let low = w.abs() <= f64::from(f32::MIN_POSITIVE);
                assert!(
                    (0..3).any(|k| tiny(f(t, k))) || low,
                    "{expr} (speculative): {t:?} reported, want {w:e}"
                );
            } else {
                native += 1;
                assert_eq!(
                    g.to_bits(),
                    w.to_bits(),
                    "{expr} (speculative): {t:?} got {g:e}, not reported"
                );
            }
        }
        assert!(
            native > 0 && reported > 0,
            "{expr}: {native} native, {reported} reported"
        );
    }
    // Narrowing of f64 values between the denormals, in the four rounding modes.
    let mut next = common::xorshift(0xde_0a11);
    let wide: Vec<[f64; 3]> = (0..512)
        .map(|_| {
            let r = next();
            let exp = 1023 - 152 + (r >> 58) % 30;
            let sign = (r >> 57) & 1;
            [
                f64::from_bits((sign << 63) | (exp << 52) | (r & ((1 << 52) - 1))),
                0.0,
                0.0,
            ]
        })
        .collect();
    for mode in 0u32..4 {
        let got = run_f64_extra(
            &funcs,
            extra,
            &format!("w32(f64_to_f32_rm(a, {mode}u))"),
            &wide,
        );
        for (t, g) in wide.iter().zip(&got) {
            let x = t[0];
            let rne = x as f32;
            let (lo, hi) = if f64::from(rne) <= x {
                (
                    rne,
                    if f64::from(rne) == x {
                        rne
                    } else {
                        rne.next_up()
                    },
                )
            } else {
                (rne.next_down(), rne)
            };
            let want = match mode {
                0 => rne,
                1 => hi,
                2 => lo,
                _ => {
                    if x > 0.0 {
                        lo
                    } else {
                        hi
                    }
                }
            };
            assert_eq!(
                g.to_bits(),
                f64::from(want).to_bits(),
                "f64_to_f32_rm({x:e}, {mode}): got {g:e}, want {want:e}"
            );
        }
    }
}

/// DF division and square root on the bits (`ddiv`, `dsqrt` with `F64_SOFT_DIV` set,
/// the forms adapters with inexact native f64 division run: NVIDIA's is off by one
/// ulp on some operands) are correctly rounded, denormal, zero, infinite operands too.
#[test]
fn soft_f64_division_and_root_are_correctly_rounded() {
    let extra = visa_emu::translate::SOFT_F64.replace(
        "const F64_SOFT_DIV: bool = false;",
        "const F64_SOFT_DIV: bool = true;",
    );
    let mut next = common::xorshift(0xd1_u64);
    let mut triples: Vec<[f64; 3]> = (0..1024)
        .map(|_| {
            let mut one = || {
                let r = next();
                let exp = match r >> 60 {
                    0 => 0,
                    1 => 1 + (r >> 50) % 60,
                    2 => 2047 - 1 - (r >> 50) % 60,
                    _ => 1023 - 200 + (r >> 52) % 400,
                };
                f64::from_bits(((r >> 59 & 1) << 63) | (exp << 52) | (r & ((1 << 52) - 1)))
            };
            [one(), one(), 0.0]
        })
        .collect();
    triples.extend([
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [f64::INFINITY, 2.0, 0.0],
        [3.0, f64::INFINITY, 0.0],
        [-0.0, 5.0, 0.0],
    ]);
    type Want = fn(f64, f64) -> f64;
    let cases: [(&str, Want); 2] = [("ddiv(a, b)", |a, b| a / b), ("dsqrt(a)", |a, _| a.sqrt())];
    for (expr, want) in cases {
        let got = run_f64_extra(&[], &extra, expr, &triples);
        for (t, g) in triples.iter().zip(&got) {
            let w = want(t[0], t[1]);
            assert!(
                g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                "{expr} on {:e}, {:e}: got {g:e} want {w:e}",
                t[0],
                t[1]
            );
        }
    }
}

/// F transcendentals in the exact forms of a flushing adapter (`F32_FTZ` set): denormal
/// arguments and results in the denormal range come out as Rust's f64 functions rounded
/// to f32 give them, within the corpus's bound of 3 ulp (measured in the results' bits,
/// denormal results included), where a flushing builtin gives 0 or -inf.
#[test]
fn ftz_transcendentals_keep_denormals() {
    let funcs = [
        "w32",
        "n32",
        "tiny32",
        "fexp2",
        "flog2",
        "hidden_f32",
        "fsin",
        "log2_wide",
        "exp2_wide",
        "fpow",
        "nan32",
        "nan64",
    ];
    let extra = "const F32_FTZ: bool = true;\n";
    let tiny = [1u32, 3, 0x0000_1234, 0x0040_0000, 0x007f_ffff];
    let mut triples: Vec<[f64; 3]> = tiny
        .iter()
        .map(|&b| [f64::from(f32::from_bits(b)), 0.5, 0.0])
        .collect();
    for x in [-126.5f32, -130.0, -140.25, -148.9, -149.5, -151.0, -127.0] {
        triples.push([f64::from(x), 0.0, 0.0]);
    }
    // Bases and exponents whose power is denormal: 0.5^130, 0.25^70.3, 2^-100 squared.
    triples.extend([
        [0.5, 130.0, 0.0],
        [0.25, 70.3, 0.0],
        [7.888609e-31, 2.0, 0.0],
    ]);
    let ulps = |g: f32, w: f32| (g.to_bits() as i64 - w.to_bits() as i64).abs();
    type Want = fn(f64, f64) -> f64;
    type Applies = fn(f64) -> bool;
    let cases: [(&str, Want, Applies); 4] = [
        ("w32(fexp2(n32(a)))", |a, _| a.exp2(), |_| true),
        (
            "w32(flog2(n32(a)))",
            |a, _| a.log2(),
            |a| a > 0.0 && a < 1e-37,
        ),
        ("w32(fsin(n32(a)))", |a, _| a.sin(), |a| a.abs() < 1e-37),
        ("w32(fpow(n32(a), n32(b)))", |a, b| a.powf(b), |a| a > 0.0),
    ];
    for (expr, want, applies) in cases {
        let got = run_f64_extra(&funcs, extra, expr, &triples);
        for (t, g) in triples.iter().zip(&got) {
            if !applies(t[0]) || (expr.contains("fpow") && t[1] == 0.0) {
                continue;
            }
            let (a, b) = (t[0] as f32, t[1] as f32);
            let w = want(f64::from(a), f64::from(b)) as f32;
            assert!(
                ulps(*g as f32, w) <= 3,
                "{expr} on {a:e}, {b:e}: got {g:e} want {w:e}"
            );
        }
    }
}

/// The F path's division and square root with `F_DIV_SPECIALS` on (adapters whose
/// native f64 division is not IEEE's: NVIDIA's): zeros, infinities and NaNs of either
/// operand take IEEE's results on the bits, everything else the native operation;
/// every pair of specials and normals against Rust's f64.
#[test]
fn f_division_specials_follow_ieee_on_the_bits() {
    let vals = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0,
        -3.5,
        1e-300,
        7.25e10,
    ];
    let pairs: Vec<[f64; 3]> = vals
        .iter()
        .flat_map(|&x| vals.iter().map(move |&y| [x, y, 0.0]))
        .collect();
    let mut extra = String::from("const F_DIV_SPECIALS: bool = true;\n");
    for c in ["F64_SIGN", "F64_INF", "F64_QUIET", "F64_INVALID"] {
        extra += &runtime_const(c);
    }
    let funcs = ["special64", "hidden_f64", "fdiv64", "fsqrt64"];
    let div = run_f64_extra(&funcs, &extra, "fdiv64(a, b)", &pairs);
    let root = run_f64_extra(&funcs, &extra, "fsqrt64(a)", &pairs);
    let same = |g: f64, w: f64| (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits();
    for (i, p) in pairs.iter().enumerate() {
        assert!(same(div[i], p[0] / p[1]), "{} / {}: {}", p[0], p[1], div[i]);
        assert!(same(root[i], p[0].sqrt()), "sqrt({}): {}", p[0], root[i]);
    }
}

/// What the interpreter gives for one triple of operands (as bits).
type Want3<'a> = Box<dyn Fn(&[f64; 3]) -> u64 + 'a>;

/// The cr0 rounding modes beyond F (convert_modes and convert_modes_double pin them on
/// whole kernels): DF DIVM and SQRTM (`ddiv_rm`, `dsqrt_rm`), DF add, mul and mad on the bits (`dadd_rm`, `dmul_rm`, `dfma_rm`: IGC
/// converts long to double with a `mad` in RZ, RU or RD), DF -> HF (`f64_to_hf_rm`), Q
/// and UQ -> DF and F (`i2f64_rm`, `i2f32`, `u2f64_rm`, `u2f32_rm`: one rounding from the
/// 64-bit value, past 2^53 and 2^63 too) give the interpreter's bits in every mode.
#[test]
fn df_arithmetic_and_conversions_round_once_in_every_mode() {
    use visa_emu::interp::alu::{exec, to_bits, AluOp, FpEnv, Num, Val};
    use visa_emu::ir::DataType;
    let mut t = triples();
    t.extend([
        [1.0, -1.0, 0.0],
        [-0.0, 0.0, -0.0],
        [f64::MAX, 2.0, f64::MAX],
        [-1e308, 10.0, 1e300],
        [5e-324, 0.5, -5e-324],
        // Subnormal quotients and roots, where the nearest result's remainder underflows.
        [5e-324, 1.5, 4e-320],
        [-1.3e-310, 3.0, 2.5e-318],
        [1e-300, 3e10, 1e-310],
        [1.0, 1e-300, -1.0],
        [65519.99, 65520.0, -65504.0],
        [
            2.0f64.powi(-25),
            3.0 * 2.0f64.powi(-26),
            1.0 + 2.0f64.powi(-11),
        ],
        [
            f64::from_bits(0x7fff_ffff_ffff_fc00),
            f64::from_bits(0x4340_0000_0000_0001),
            0.0,
        ],
    ]);
    let funcs = [
        "i2f64_rm",
        "u2f64_rm",
        "u2f32_rm",
        "i2f32",
        "int_round_bits",
        "int_round_signed",
        "neg64",
        "f64_to_hf_rm",
        "f2hf_dir",
        "f2hf",
        "f32_odd",
        "f64_to_hf",
        "f64_to_f32_rm",
        "opaque_f64",
        "next_up",
        "next_down",
        "n32",
        "w32",
        "nan32",
        "nan64",
    ];
    let df = |x: f64| Val::new(DataType::DF, x.to_bits());
    let mut bad = Vec::new();
    for md in 1u32..4 {
        let env = FpEnv {
            rounding: md as u8,
            ..FpEnv::IEEE_DENORMS
        };
        let ops: [(String, Want3); 10] = [
            (
                format!("ddiv_rm(a, b, {md}u)"),
                Box::new(|x| {
                    exec(
                        AluOp::Divm,
                        DataType::DF,
                        &[df(x[0]), df(x[1])],
                        false,
                        &env,
                    )
                    .unwrap()
                    .dst
                }),
            ),
            (
                format!("dsqrt_rm(c, {md}u)"),
                Box::new(|x| {
                    exec(AluOp::Sqrtm, DataType::DF, &[df(x[2])], false, &env)
                        .unwrap()
                        .dst
                }),
            ),
            (
                format!("dadd_rm(a, b, {md}u)"),
                Box::new(|x| {
                    exec(AluOp::Add, DataType::DF, &[df(x[0]), df(x[1])], false, &env)
                        .unwrap()
                        .dst
                }),
            ),
            (
                format!("dmul_rm(a, b, {md}u)"),
                Box::new(|x| {
                    exec(AluOp::Mul, DataType::DF, &[df(x[0]), df(x[1])], false, &env)
                        .unwrap()
                        .dst
                }),
            ),
            (
                format!("dfma_rm(a, b, c, {md}u)"),
                Box::new(|x| {
                    let s = [df(x[0]), df(x[1]), df(x[2])];
                    exec(AluOp::Mad, DataType::DF, &s, false, &env).unwrap().dst
                }),
            ),
            (
                format!("f64(f64_to_hf_rm(b, {md}u))"),
                Box::new(|x| {
                    (to_bits(Num::Float(x[1]), DataType::HF, false, &env) as f64).to_bits()
                }),
            ),
            (
                format!("i2f64_rm(bitcast<i64>(a), {md}u)"),
                Box::new(|x| {
                    to_bits(
                        Num::Int(x[0].to_bits() as i64 as i128),
                        DataType::DF,
                        false,
                        &env,
                    )
                }),
            ),
            (
                format!("u2f64_rm(bitcast<u64>(a), {md}u)"),
                Box::new(|x| to_bits(Num::Int(x[0].to_bits() as i128), DataType::DF, false, &env)),
            ),
            (
                format!("f64(i2f32(bitcast<i64>(a), {md}u))"),
                Box::new(|x| {
                    let n = Num::Int(x[0].to_bits() as i64 as i128);
                    let b = to_bits(n, DataType::F, false, &env);
                    f64::from(f32::from_bits(b as u32)).to_bits()
                }),
            ),
            (
                format!("f64(u2f32_rm(bitcast<u64>(c), {md}u))"),
                Box::new(|x| {
                    let b = to_bits(Num::Int(x[2].to_bits() as i128), DataType::F, false, &env);
                    f64::from(f32::from_bits(b as u32)).to_bits()
                }),
            ),
        ];
        for (expr, want) in &ops {
            let got = run_f64_extra(&funcs, visa_emu::translate::SOFT_F64, expr, &t);
            for (x, g) in t.iter().zip(&got) {
                let w = want(x);
                let nan = f64::from_bits(w).is_nan() && g.is_nan();
                if g.to_bits() != w && !nan && bad.len() < 12 {
                    bad.push(format!(
                        "{expr} on {:e}, {:e}, {:e}: runtime {:#x}, interpreter {w:#x}",
                        x[0],
                        x[1],
                        x[2],
                        g.to_bits()
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The runtime's f64 roundings to an integer (`trunc64`, `floor64`, `ceil64`,
/// `round_even64`: vISA `rndz`, `rndd`, `rndu`, `rnde`, `frc` and the exact f32 narrowing
/// `n32`) are IEEE's on every adapter: llvmpipe on an AVX2 AMD EPYC computes WGSL's f64
/// `round` with ties toward zero (1.5 -> 1) and `trunc(-0.3)` as +0.
#[test]
fn f64_round_to_even_is_exact_without_the_drivers_round() {
    let mut xs = vec![
        0.5,
        1.5,
        2.5,
        3.5,
        4194303.5,
        0.49999999999999994,
        -0.3,
        -0.5,
        1.25,
        -2.7,
        4503599627370495.5,
        2f64.powi(51) - 0.25,
        0.9999999999999999,
        4503599627370497.0,
        9007199254740993.0,
        1e300,
        f64::MIN_POSITIVE,
        f64::INFINITY,
        f64::NAN,
        0.0,
    ];
    let negated: Vec<f64> = xs.iter().map(|x| -x).collect();
    xs.extend(negated);
    let t: Vec<[f64; 3]> = xs.iter().map(|&x| [x, x, x]).collect();
    type Model = fn(f64) -> f64;
    let cases: [(&str, Model); 4] = [
        ("round_even64(a)", f64::round_ties_even),
        ("trunc64(a)", f64::trunc),
        ("floor64(a)", f64::floor),
        ("ceil64(a)", f64::ceil),
    ];
    for (expr, model) in cases {
        let got = run_f64_extra(
            &["trunc64", "floor64", "ceil64", "round_even64"],
            "",
            expr,
            &t,
        );
        for (x, g) in xs.iter().zip(&got) {
            let want = model(*x);
            assert!(
                g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()),
                "{expr} on {x:e} = {g:e}, want {want:e}"
            );
        }
    }
}

/// D -> F and D -> DF in the directed modes, the Q the kernel converts sign-extended from
/// 32 bits in the same expression (as the translator writes a D source): lavapipe once
/// answered the sign test of such a Q wrong, and NVIDIA's compiler refused the f64
/// stepping that came before `int_round_bits`.
#[test]
fn sign_extended_dwords_convert_in_every_directed_mode() {
    use visa_emu::interp::alu::{to_bits, FpEnv, Num};
    use visa_emu::ir::DataType;
    let funcs = [
        "int_round_bits",
        "int_round_signed",
        "neg64",
        "i2f32",
        "i2f64_rm",
    ];
    let dwords = [
        -324009792i32,
        324009792,
        -1,
        1,
        -16777217,
        16777217,
        i32::MIN,
        i32::MAX,
        -5,
        0,
        -0x7fff_ff81,
        0x7fff_ff81,
        -33554435,
        33554435,
    ];
    let t: Vec<[f64; 3]> = dwords
        .iter()
        .map(|&d| [f64::from_bits(d as u32 as u64); 3])
        .collect();
    let mut bad = Vec::new();
    for md in 1u32..4 {
        let env = FpEnv {
            rounding: md as u8,
            ..FpEnv::IEEE_DENORMS
        };
        let d = "i64(bitcast<i32>(u32(bitcast<u64>(a))))";
        for (ty, expr) in [
            (DataType::F, format!("f64(i2f32({d}, {md}u))")),
            (DataType::DF, format!("i2f64_rm({d}, {md}u)")),
        ] {
            let got = run_f64_extra(&funcs, visa_emu::translate::SOFT_F64, &expr, &t);
            for (&x, g) in dwords.iter().zip(&got) {
                let b = to_bits(Num::Int(x as i128), ty, false, &env);
                let want = if ty == DataType::F {
                    f64::from(f32::from_bits(b as u32))
                } else {
                    f64::from_bits(b)
                };
                if g.to_bits() != want.to_bits() {
                    bad.push(format!("{expr} on {x}: runtime {g}, interpreter {want}"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Straight modules' placed flat accesses (`flat_at` and its loads and stores, on a
/// base whose allocation the host wrote into `CFG_FLAT_SPAN`) give what the general
/// `mem_ld`/`mem_st` give on flat addresses inside that allocation, every size and
/// alignment the forms take. Anywhere else (before the base, past the end, a base in
/// no allocation) they record the instruction in `alias_at`, which stops the straight
/// run; an unaligned word records `slow_at` instead. Neither stores anything.
#[test]
fn placed_flat_accesses_match_the_search_or_stop_the_run() {
    let mut wgsl = general_memory_module(&[
        "const CFG_TRASH: u32 = 12u;\nconst CFG_FLAT_SPAN: u32 = 792u;\n",
        "var<private> slow_at: u32;\nvar<private> alias_at: u32;\n",
    ]);
    push_runtime(
        &mut wgsl,
        &[
            "heap_ld",
            "heap_st",
            "flat_at",
            "flat_word",
            "flat_ld4",
            "flat_ld8",
            "flat_ld",
            "flat_st4",
            "flat_st8",
            "flat_st",
        ],
    );
    // Base 0 lies in allocation 2 (0x11_0000_0000, 36 bytes at heap byte 40); base 1
    // in none. Addresses from 4 bytes before the allocation to 4 past its end.
    wgsl += r#"
@compute @workgroup_size(1)
fn main() {
    var k = 0u;
    let b = 0x1100000000lu;
    for (var n = 1u; n <= 8u; n = n * 2u) {
        for (var d = 0u; d < 44u; d++) {
            let a = b + u64(d) - 4lu;
            alias_at = 0u;
            slow_at = 0u;
            var v = 0lu;
            switch n {
                case 4u: { v = u64(flat_ld4(0u, a, 6u)); }
                case 8u: { v = flat_ld8(0u, a, 6u); }
                default: { v = flat_ld(0u, a, n, 6u); }
            }
            let g = mem_ld(SP_FLAT, 0u, a, n);
            io[k] = u32(g & 0xfffffffflu);
            io[k + 1u] = u32(g >> 32u);
            io[k + 2u] = u32(v & 0xfffffffflu);
            io[k + 3u] = u32(v >> 32u);
            io[k + 4u] = alias_at;
            io[k + 5u] = slow_at;
            k = k + 6u;
        }
    }
    alias_at = 0u;
    io[k] = flat_ld4(1u, b, 3u);
    io[k + 1u] = alias_at;
    // Stores: allocation 1 through the search, allocation 2 through base 0.
    var s = 0u;
    for (var n = 1u; n <= 8u; n = n * 2u) {
        for (var d = 0u; d < 36u; d = d + n) {
            s = s + 1u;
            let v = u64(0x9e3779b9u * s) | (u64(s) << 40u);
            mem_st(SP_FLAT, 0u, 0x1000000000lu + u64(d), n, v);
            switch n {
                case 4u: { flat_st4(0u, b + u64(d), u32(v & 0xfffffffflu), 6u); }
                case 8u: { flat_st8(0u, b + u64(d), v, 6u); }
                default: { flat_st(0u, b + u64(d), n, v, 6u); }
            }
        }
    }
    alias_at = 0u;
    slow_at = 0u;
    flat_st4(0u, b + 36lu, 1u, 6u);
    flat_st8(0u, b - 8lu, 1lu, 6u);
    flat_st(0u, b + 35lu, 2u, 1lu, 6u);
    io[k + 2u] = alias_at;
    flat_st4(0u, b + 2lu, 1u, 9u);
    io[k + 3u] = slow_at;
    flush_oob();
}
"#;
    let (init, heap, mut cfg) = two_allocations(96);
    cfg[12] = 22; // the trash word, past both allocations
    cfg.resize(792 + 8, 0);
    cfg[792..796].copy_from_slice(&[0, 0x11, 36, 40]);
    let out = run_memory_module(0xb75, wgsl, &cfg, heap, 1100);
    let io = words(&out[4]);
    let mut k = 0;
    for n in [1usize, 2, 4, 8] {
        for d in 0..44usize {
            let r = &io[k..k + 6];
            k += 6;
            let inside = d >= 4 && d - 4 + n <= 36;
            let what = format!("{n} bytes at base {:+}", d as i64 - 4);
            if !inside {
                assert_eq!((r[2], r[3], r[4]), (0, 0, 7), "{what}: stops the run");
            } else if n >= 4 && (d - 4) % 4 != 0 {
                assert_eq!(
                    (r[2], r[3], r[4], r[5]),
                    (0, 0, 0, 7),
                    "{what}: unaligned word"
                );
            } else {
                assert_eq!((r[2], r[3], r[4], r[5]), (r[0], r[1], 0, 0), "{what}");
                let mut want = [0u8; 8];
                want[..n].copy_from_slice(&init[d - 4..d - 4 + n]);
                let got = u64::from(r[0]) | (u64::from(r[1]) << 32);
                assert_eq!(got, u64::from_le_bytes(want), "{what}: the bytes");
            }
        }
    }
    assert_eq!(
        &io[k..k + 2],
        &[0, 4],
        "a base in no allocation stops the run"
    );
    assert_eq!(io[k + 2], 7, "stores outside stop the run");
    assert_eq!(io[k + 3], 10, "an unaligned word store is refused");
    let h = &out[1];
    assert_eq!(&h[..36], &h[40..76], "searched vs placed stores");
    assert!(
        h[36..40].iter().chain(&h[76..88]).all(|&b| b == 0xee),
        "stores outside touched nothing: {:?}",
        &h[36..]
    );
}

/// The straight modules' byte loads (`heap_ld1` at `bti_at`'s offset) give what
/// `bti_ld` gives for one byte at every offset, in bounds and out (zero, counted alike),
/// and for the unbound entry.
#[test]
fn byte_loads_match_the_general_form() {
    let mut wgsl = binding_table_module();
    push_runtime(&mut wgsl, &["bti_at", "bti_ld", "heap_ld", "heap_ld1"]);
    wgsl += r#"
@compute @workgroup_size(1)
fn main() {
    for (var a = 0u; a < 40u; a++) {
        io[2u * a] = u32(bti_ld(3u, u64(a), 1u));
        io[2u * a + 1u] = heap_ld1(bti_at(3u, u64(a), 1u));
    }
    io[80u] = oob_reads;
    oob_reads = 0u;
    for (var a = 0u; a < 40u; a++) {
        _ = bti_ld(3u, u64(a), 1u);
    }
    io[81u] = oob_reads;
    io[82u] = heap_ld1(bti_at(5u, 0lu, 1u));
    _ = atomicLoad(&stat[0]);
}
"#;
    let (_, heap, cfg) = two_allocations(84);
    let out = run_with_cfg(
        0xb75,
        wgsl,
        &cfg,
        vec![
            rw(heap, false),
            rw(vec![0; 64], false),
            rw(vec![0; 4 * 96], true),
        ],
    );
    let io = words(&out[3]);
    for a in 0..40usize {
        assert_eq!(io[2 * a + 1], io[2 * a], "byte {a}");
    }
    assert!(io[..72].iter().any(|&b| b != 0), "the bytes were read");
    // Both forms count the bytes past the 36-byte entry alike.
    assert_eq!((io[80], io[81]), (8, 4));
    assert_eq!(io[82], 0, "the unbound entry reads zero");
}

/// `driver_folds::fold_chen` writes each `chen` call with literal shape arguments as
/// an expression: on the adapter, every shape (widths, offsets, NoMask, predicates
/// with each combine and inversion) gives the call's channels for varied masks.
#[test]
fn folded_chen_gives_the_calls_channels() {
    let mut calls = String::new();
    let mut c = 0u32;
    for n in [1u32, 8, 16, 32] {
        for off in [0u32, 8, 16] {
            for nomask in [false, true] {
                for (has, comb, inv) in [
                    (false, 0u32, false),
                    (true, 0, false),
                    (true, 1, false),
                    (true, 2, true),
                    (true, 2, false),
                    (true, 0, true),
                ] {
                    calls += &format!(
                        "    io[l * NC + {c}u] = chen(em, {n}u, {off}u, {nomask}, pb, {has}, {comb}u, {inv});\n"
                    );
                    c += 1;
                }
            }
        }
    }
    let folded = visa_emu::translate::driver_folds::fold_chen(&calls);
    assert!(!folded.contains("chen("), "{folded}");
    let body = |lines: &str| {
        let mut wgsl = String::from(concat!(
            "@group(0) @binding(0) var<storage, read_write> io: array<u32>;\n",
            "@group(0) @binding(1) var<storage, read> cfg: array<u32>;\n",
        ));
        push_runtime(&mut wgsl, &["chen"]);
        wgsl += &format!(
            "const NC: u32 = {c}u;\n@compute @workgroup_size(64)\n\
             fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{\n\
             let l = gid.x;\n\
             // Masks of every density: all, none, and mixed bits.\n\
             var em = (l * 2654435761u) ^ (l << 7u) ^ cfg[0];\n\
             var pb = (l * 40503u) ^ 0xffff00ffu;\n\
             if (l == 1u) {{ em = 0xffffffffu; pb = 0xffffffffu; }}\n\
             if (l == 2u) {{ em = 0u; pb = 0u; }}\n\
             if (l == 3u) {{ pb = 0xffffu; }}\n{lines}}}\n"
        );
        wgsl
    };
    let io = vec![0u8; 64 * c as usize * 4];
    let want = run_io_cfg(0xc4e1, body(&calls), io.clone(), &[0], 64);
    let got = run_io_cfg(0xc4e2, body(&folded), io, &[0], 64);
    assert_eq!(words(&got), words(&want));
    // The masks reach every kind of answer: none, some and all channels.
    let w = words(&want);
    assert!(w.contains(&0) && w.contains(&0xffff) && w.iter().any(|&x| x != 0 && x != 0xffff));
}
