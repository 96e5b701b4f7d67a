//! Runtime pieces of shaders/runtime.wgsl run on their own on the adapter (lavapipe in
//! CI) and compared with Rust's IEEE operations, on inputs chosen to hit their hard
//! cases. Fails, never skips, without an adapter.

use visa_emu::translate::runtime_function;
use visa_emu_host::{BufferUse, ComputeJob, GpuContext, GpuOptions, JobBuffer};

/// Run `expr` (over `a`, `b`, `c`: f64) on every triple and return the f64 results.
fn run_f64(funcs: &[&str], expr: &str, triples: &[[f64; 3]]) -> Vec<f64> {
    run_f64_extra(funcs, "", expr, triples)
}

fn run_f64_extra(funcs: &[&str], extra: &str, expr: &str, triples: &[[f64; 3]]) -> Vec<f64> {
    let mut wgsl = String::from(concat!(
        "@group(0) @binding(0) var<storage, read_write> io: array<u32>;\n",
        "@group(0) @binding(1) var<storage, read> cfg: array<u32>;\n",
        "const CFG_UNIT: u32 = 0u;\n",
    ));
    for f in funcs {
        wgsl += runtime_function(f).unwrap_or_else(|| panic!("runtime has no fn {f}"));
        wgsl += "\n";
    }
    wgsl += extra;
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
    let r = bitcast<u64>({expr});
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
    let mut gpu = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    let r = gpu
        .run(&ComputeJob {
            key: 0x5eed,
            wgsl,
            entry_point: "main".into(),
            buffers: vec![
                JobBuffer {
                    size: data.len() as u64,
                    data,
                    usage: BufferUse::ReadWrite,
                    readback: true,
                },
                JobBuffer {
                    size: 4,
                    data: 1u32.to_le_bytes().to_vec(),
                    usage: BufferUse::ReadOnly,
                    readback: false,
                },
            ],
            workgroups: [(triples.len() as u32).div_ceil(64), 1, 1],
            chunk_base_binding: None,
            repeat: None,
        })
        .unwrap();
    r.outputs[0]
        .chunks_exact(32)
        .map(|c| f64::from_bits(u64::from_le_bytes(c[24..32].try_into().unwrap())))
        .collect()
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
    let got = run_f64(&["fma_rne32"], "f64(fma_rne32(f32(a), f32(b), f32(c)))", &t);
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
