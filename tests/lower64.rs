//! The 64-bit emulation (`translate::lower64`): a kernel written with native f64, i64
//! and u64 operations, lowered to soft doubles and then to u32 pairs, runs on the
//! adapter (lavapipe in CI) and must give Rust's IEEE and wrapping results bit for bit
//! (NaNs compared as NaNs). Every corpus module lowers to WGSL naga accepts without
//! the missing capabilities. Fails, never skips, without an adapter.

mod common;

use visa_emu::translate::lower64::{lower, Emulate};
use visa_emu_host::{BufferUse, ComputeJob, GpuContext, GpuOptions, JobBuffer};

/// Outputs per input triple, in the order of `KERNEL`'s stores and `expected`.
const N_OUT: usize = 30;

const KERNEL: &str = r#"
@group(0) @binding(0) var<storage, read_write> io: array<u32>;
const N_OUT: u32 = 30u;
fn ld(k: u32) -> u64 { return u64(io[2u * k]) | (u64(io[2u * k + 1u]) << 32u); }
fn st(k: u32, v: u64) { io[2u * k] = u32(v & 0xfffffffflu); io[2u * k + 1u] = u32(v >> 32u); }
fn stf(k: u32, v: f64) { st(k, bitcast<u64>(v)); }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&io) / (2u * (3u + N_OUT));
    let i = gid.x;
    if (i >= n) { return; }
    let base = i * (3u + N_OUT);
    let ai = ld(base);
    let bi = ld(base + 1u);
    let ci = ld(base + 2u);
    let a = bitcast<f64>(ai);
    let b = bitcast<f64>(bi);
    let c = bitcast<f64>(ci);
    let o = base + 3u;
    stf(o + 0u, a + b);
    stf(o + 1u, a - c);
    stf(o + 2u, a * b);
    stf(o + 3u, a / b);
    stf(o + 4u, sqrt(abs(a)));
    stf(o + 5u, fma(a, b, c));
    stf(o + 6u, f64(f32(a)));
    stf(o + 7u, floor(a));
    stf(o + 8u, ceil(a));
    stf(o + 9u, round(a));
    stf(o + 10u, trunc(a));
    st(o + 11u, select(0lu, 1lu, a < b) | select(0lu, 2lu, a == c) | select(0lu, 4lu, a <= b)
        | select(0lu, 8lu, a > c) | select(0lu, 16lu, a >= b) | select(0lu, 32lu, a != b));
    st(o + 12u, bitcast<u64>(i64(a)));
    stf(o + 13u, f64(bitcast<i64>(ai)));
    stf(o + 14u, f64(bi));
    stf(o + 15u, -max(a, b));
    st(o + 16u, u64(u32(b)));
    st(o + 17u, ai * bi);
    st(o + 18u, ai / (bi >> 40u));
    st(o + 19u, bitcast<u64>(bitcast<i64>(ai) % (bitcast<i64>(bi >> 50u) - 7li)));
    st(o + 20u, bitcast<u64>(bitcast<i64>(ai) >> u32(bi & 63lu)));
    st(o + 21u, ai << u32(bi % 64lu));
    st(o + 22u, select(0lu, 1lu, bitcast<i64>(ai) < bitcast<i64>(bi)) | select(0lu, 2lu, ai < bi));
    st(o + 23u, u64(bitcast<u32>(f32(ai))));
    st(o + 24u, u64(bitcast<u32>(f32(bitcast<i64>(bi)))));
    st(o + 25u, bitcast<u64>(select(0li, i64(clamp(f32(a), -1e18f, 1e18f)), f32(a) == f32(a))));
    st(o + 26u, ai + bi - (ci ^ (~ai)) + bitcast<u64>(-bitcast<i64>(ci)));
    st(o + 27u, bitcast<u64>(bitcast<i64>(ai) / bitcast<i64>(ci >> 58u)));
    st(o + 28u, u64(i32(ai)) + bitcast<u64>(i64(u32(ci))) + u64(countOneBits(u32(ci))) + (ci >> u32(ai & 63lu)));
    stf(o + 29u, f64(i32(bi)) + f64(u32(ci)) * 0.5lf);
}
"#;

fn expected(a: f64, b: f64, c: f64) -> [u64; N_OUT] {
    let (ai, bi, ci) = (a.to_bits(), b.to_bits(), c.to_bits());
    let f = |x: f64| x.to_bits();
    let flags = (a < b) as u64
        | ((a == c) as u64) << 1
        | ((a <= b) as u64) << 2
        | ((a > c) as u64) << 3
        | ((a >= b) as u64) << 4
        | ((a != b) as u64) << 5;
    let div = |x: u64, y: u64| x.checked_div(y).unwrap_or(x);
    let sdiv = |x: i64, y: i64| if y == 0 { x } else { x.wrapping_div(y) };
    let srem = |x: i64, y: i64| if y == 0 { 0 } else { x.wrapping_rem(y) };
    let max = if a.is_nan() {
        b
    } else if b.is_nan() || a > b {
        a
    } else {
        b
    };
    [
        f(a + b),
        f(a - c),
        f(a * b),
        f(a / b),
        f(a.abs().sqrt()),
        f(a.mul_add(b, c)),
        f(a as f32 as f64),
        f(a.floor()),
        f(a.ceil()),
        f(a.round_ties_even()),
        f(a.trunc()),
        flags,
        (a as i64) as u64,
        f(ai as i64 as f64),
        f(bi as f64),
        f(-max),
        (b as u32) as u64,
        ai.wrapping_mul(bi),
        div(ai, bi >> 40),
        srem(ai as i64, (bi >> 50) as i64 - 7) as u64,
        ((ai as i64) >> (bi & 63)) as u64,
        ai << (bi % 64),
        ((ai as i64) < (bi as i64)) as u64 | ((ai < bi) as u64) << 1,
        (ai as f32).to_bits() as u64,
        (bi as i64 as f32).to_bits() as u64,
        (if (a as f32).is_nan() {
            0
        } else {
            (a as f32).clamp(-1e18, 1e18) as i64
        }) as u64,
        ai.wrapping_add(bi)
            .wrapping_sub(ci ^ !ai)
            .wrapping_add((ci as i64).wrapping_neg() as u64),
        sdiv(ai as i64, (ci >> 58) as i64) as u64,
        // Widening by the destination's signedness (naga's SPIR-V): u64(i32) zero-
        // extends, i64(u32) sign-extends.
        (ai as u32 as u64)
            .wrapping_add(ci as u32 as i32 as i64 as u64)
            .wrapping_add((ci as u32).count_ones() as u64)
            .wrapping_add(ci >> (ai & 63)),
        f(((bi as i32) as f64) + (ci as u32) as f64 * 0.5),
    ]
}

/// Outputs whose value is a double (compared NaN to NaN).
const FLOAT_OUT: &[usize] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14, 15, 29];

fn inputs() -> Vec<[f64; 3]> {
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        3.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::MIN_POSITIVE * 0.75,
        5e-324,
        -5e-324,
        9007199254740993.0,
        4503599627370495.5,
        9.223372036854776e18,
        -9.223372036854776e18,
        1.8446744073709552e19,
        1e300,
        1e-300,
        3.4028235677973366e38,
        3.4028234663852886e38,
        1.401298464324817e-45,
        7.006492321624085e-46,
        1.1754942106924411e-38,
        0.1,
        1.0 / 3.0,
        2147483648.5,
        -2147483649.0,
        4294967296.0,
    ];
    let mut v = Vec::new();
    for (i, &x) in specials.iter().enumerate() {
        for (j, &y) in specials.iter().enumerate() {
            v.push([x, y, specials[(i * 7 + j * 3) % specials.len()]]);
        }
    }
    let mut s = 0x2545f4914f6cdd1du64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for k in 0..3000 {
        let a = f64::from_bits(next());
        let b = f64::from_bits(next());
        // Every third addend nearly cancels the product (fma's hard cases), every
        // fifth pair shares an exponent range (subtraction's).
        let c = if k % 3 == 0 {
            -(a * b) * (1.0 + (next() % 5) as f64 * f64::EPSILON)
        } else {
            f64::from_bits(next())
        };
        let b = if k % 5 == 0 {
            a * (1.0 + (next() % 1000) as f64 * 1e-16)
        } else {
            b
        };
        v.push([a, b, c]);
    }
    v
}

fn run(gpu: &mut GpuContext, wgsl: String, data: &[[f64; 3]]) -> Vec<u64> {
    let stride = 3 + N_OUT;
    let mut words = vec![0u64; data.len() * stride];
    for (i, t) in data.iter().enumerate() {
        for k in 0..3 {
            words[i * stride + k] = t[k].to_bits();
        }
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let r = gpu
        .run(&ComputeJob {
            key: visa_emu::backend::gpu::hash(&wgsl),
            wgsl,
            entry_point: "main".into(),
            buffers: vec![JobBuffer {
                size: bytes.len() as u64,
                data: bytes,
                usage: BufferUse::ReadWrite,
                readback: true,
            }],
            workgroups: [(data.len() as u32).div_ceil(64), 1, 1],
            chunk_base_binding: None,
            first_workgroup: [0; 3],
            repeat: None,
            aliases: Vec::new(),
        })
        .unwrap();
    r.outputs[0]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Whether `word` occurs as a whole identifier (a type name, not part of `f64_add`).
fn mentions(wgsl: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    wgsl.match_indices(word)
        .any(|(i, _)| !wgsl[..i].ends_with(ident) && !wgsl[i + word.len()..].starts_with(ident))
}

fn check(emu: Emulate) {
    let wgsl = lower(KERNEL, emu).unwrap_or_else(|e| panic!("{e}"));
    assert!(!mentions(&wgsl, "f64"), "f64 left in the lowered module");
    if emu.int64 {
        assert!(
            !mentions(&wgsl, "u64") && !mentions(&wgsl, "i64"),
            "64-bit integers left"
        );
    }
    let mut gpu = GpuContext::new(&GpuOptions {
        disable_f64: emu.f64,
        disable_int64: emu.int64,
        ..Default::default()
    })
    .expect("a GPU adapter (lavapipe in CI)");
    assert!(!gpu.capabilities().f64 || !emu.f64);
    let data = inputs();
    let out = run(&mut gpu, wgsl, &data);
    let stride = 3 + N_OUT;
    let mut bad = Vec::new();
    for (i, t) in data.iter().enumerate() {
        let want = expected(t[0], t[1], t[2]);
        for k in 0..N_OUT {
            let got = out[i * stride + 3 + k];
            let same = got == want[k]
                || (FLOAT_OUT.contains(&k)
                    && f64::from_bits(got).is_nan()
                    && f64::from_bits(want[k]).is_nan());
            if !same && bad.len() < 12 {
                bad.push(format!(
                    "out {k} of ({:e} [{:#x}], {:e} [{:#x}], {:e} [{:#x}]): got {got:#018x} ({:e}), want {:#018x} ({:e})",
                    t[0],
                    t[0].to_bits(),
                    t[1],
                    t[1].to_bits(),
                    t[2],
                    t[2].to_bits(),
                    f64::from_bits(got),
                    want[k],
                    f64::from_bits(want[k])
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} ({}):\n{}",
        emu.describe(),
        data.len(),
        bad.join("\n")
    );
}

#[test]
fn soft_doubles_equal_ieee() {
    check(Emulate {
        f64: true,
        int64: false,
    });
}

#[test]
fn soft_doubles_on_u32_pairs_equal_ieee() {
    check(Emulate {
        f64: true,
        int64: true,
    });
}

#[test]
fn corpus_modules_lower_without_64_bit_features() {
    let mut failures = Vec::new();
    let mut n = 0;
    for dir in visa_emu::corpus::paths::first_variants() {
        let p = common::prepared(&dir);
        for lanes in [false, true] {
            let target = common::target(if lanes { 1 } else { 2 }, 4096, lanes, true);
            let m = visa_emu::translate::translate(&p, &target).unwrap();
            for int64 in [false, true] {
                n += 1;
                if let Err(e) = lower(&m.wgsl, Emulate { f64: true, int64 }) {
                    failures.push(format!(
                        "{} (lanes {lanes}, int64 {int64}): {e}",
                        dir.display()
                    ));
                }
            }
        }
    }
    assert!(n > 80, "corpus not found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A lowered module keeps none of the F helpers' dead paths, and its F mad runs on
/// integers (`fma32_bits`, not the soft f64 fma): `float_atomics`' float
/// adds (`fadd32_rne(x, y, 0.0)` in the runtime's atomic arms) are written as the plain
/// add before lowering, so no soft-f64 `add_odd` remains for the driver to inline at
/// each atomic (llvmpipe did not finish compiling the acm-g10 SIMD16 module in 9
/// minutes with them, 22 s without). Lowering the text as it was keeps them: the test
/// can fail.
#[test]
fn lowered_modules_leave_out_idle_float_paths() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cases/float_atomics/acm-g10-simd16");
    let p = common::prepared(&dir);
    let target = common::target(2, 4096, false, false);
    let m = visa_emu::translate::translate(&p, &target).unwrap();
    assert!(m.wgsl.contains("fadd32_rne("), "the float atomics moved");
    let emu = Emulate {
        f64: true,
        int64: true,
    };
    let reached = |w: &str| visa_emu::translate::prune::unreachable_functions(w, "main");
    let plain = reached(&lower(&m.wgsl, emu).unwrap());
    assert!(mentions(&plain, "add_odd"), "the runtime's F add moved");
    let fixed = reached(&visa_emu::backend::gpu::lowered(&m.wgsl, emu).unwrap());
    assert!(
        !mentions(&fixed, "add_odd"),
        "add_odd reached in the lowered module"
    );
    assert!(!mentions(&fixed, "fadd32_rne"), "fadd32_rne reached");
    // The F mad: `vector_float4_geom`'s 45 went through the soft f64 product and
    // `add_odd` (over 15 GB of llvmpipe compile), now `fma32_bits` on integers.
    let dir =
        visa_emu::corpus::paths::default_corpus_dir().join("vector_float4_geom/acm-g10-simd32");
    let m = visa_emu::translate::translate(&common::prepared(&dir), &target).unwrap();
    for f64_only in [true, false] {
        let emu = Emulate {
            f64: true,
            int64: !f64_only,
        };
        let plain = reached(&lower(&m.wgsl, emu).unwrap());
        assert!(mentions(&plain, "add_odd"), "the F mad moved");
        let fixed = reached(&visa_emu::backend::gpu::lowered(&m.wgsl, emu).unwrap());
        assert!(mentions(&fixed, "fma32_bits"), "fma32_bits not called");
        assert!(
            !mentions(&fixed, "add_odd"),
            "the f64 form of the F mad reached"
        );
    }
}

/// An operation without an emulation is a clear error naming it and its function,
/// never a module that fails later on the device.
#[test]
fn unsupported_operations_are_named() {
    let wgsl = r#"
@group(0) @binding(0) var<storage, read_write> io: array<u32>;
fn frac_of(x: f64) -> f64 { return x % 1.0lf; }
@compute @workgroup_size(1)
fn main() { io[0] = u32(frac_of(f64(io[1]))); }
"#;
    let e = lower(
        wgsl,
        Emulate {
            f64: true,
            int64: false,
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("frac_of") && e.contains("Modulo"), "{e}");
    let e = lower(
        "fn broken(",
        Emulate {
            f64: true,
            int64: true,
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("does not parse"), "{e}");
    // Nothing to emulate: the text comes back as it was.
    assert_eq!(lower(wgsl, Emulate::default()).unwrap(), wgsl);
    assert_eq!(
        Emulate::for_features(true, false),
        Emulate {
            f64: true,
            int64: true
        },
        "no 64-bit integers: doubles are emulated too"
    );
}

/// `fma32_bits` (the F mad of modules with f64 emulated) lowered to u32 pairs gives the
/// interpreter's bits in all four rounding modes, as it does with native u64
/// (`runtime_wgsl.rs`).
#[test]
fn f32_mad_on_integers_is_exact_on_u32_pairs() {
    let mut wgsl = String::from(
        r#"
@group(0) @binding(0) var<storage, read_write> io: array<u32>;
const N_OUT: u32 = 30u;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&io) / (2u * (3u + N_OUT));
    let i = gid.x;
    if (i >= n) { return; }
    let base = 2u * i * (3u + N_OUT);
    let x = bitcast<f32>(io[base]);
    let y = bitcast<f32>(io[base + 2u]);
    let z = bitcast<f32>(io[base + 4u]);
    for (var md = 0u; md < 4u; md++) {
        io[base + 6u + 2u * md] = bitcast<u32>(fma32_bits(x, y, z, md));
    }
}
"#,
    );
    for f in common::FMA32_FUNCTIONS {
        wgsl += visa_emu::translate::runtime_function(f).unwrap();
        wgsl += "\n";
    }
    let lowered = lower(
        &wgsl,
        Emulate {
            f64: true,
            int64: true,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(!mentions(&lowered, "u64"), "64-bit integers left");
    let t = common::f32_mad_triples(0x0f32_fa11_2026_1128);
    let data: Vec<[f64; 3]> = t
        .iter()
        .map(|x| x.map(|v| f64::from_bits(u64::from(v.to_bits()))))
        .collect();
    let mut gpu = GpuContext::new(&GpuOptions {
        disable_f64: true,
        disable_int64: true,
        ..Default::default()
    })
    .expect("a GPU adapter (lavapipe in CI)");
    let out = run(&mut gpu, lowered, &data);
    let mut bad = Vec::new();
    for (i, x) in t.iter().enumerate() {
        for md in 0..4u8 {
            let want = common::interpreter_mad_f32(x, md);
            let got = out[i * (3 + N_OUT) + 3 + md as usize] as u32;
            let nan = f32::from_bits(got).is_nan() && f32::from_bits(want).is_nan();
            if got != want && !nan && bad.len() < 12 {
                bad.push(format!(
                    "mode {md}: fma({:e}, {:e}, {:e}) = {:#x}, interpreter {want:#x}",
                    x[0], x[1], x[2], got
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
