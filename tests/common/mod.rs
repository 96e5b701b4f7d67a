//! Shared by the tests: a variant folder's prepared kernel; the interpreter and a GPU
//! run must agree byte for byte and in executed instructions and channel operations.
#![allow(dead_code)]

use visa_emu::backend::{cpu::VariantRun, gpu::GpuRun};

/// Panics with the first disagreement between the interpreter's run and the GPU's.
pub fn assert_same_run(name: &str, cpu: &VariantRun, g: &GpuRun) {
    same_run(name, cpu, g, &|_| true);
}

/// [`assert_same_run`] over the buffers `compared` names.
fn same_run(name: &str, cpu: &VariantRun, g: &GpuRun, compared: &dyn Fn(&str) -> bool) {
    assert_eq!(cpu.buffers.len(), g.buffers.len(), "{name}: buffer count");
    for ((n, a), (_, b)) in cpu.buffers.iter().zip(&g.buffers) {
        if !compared(n) || a == b {
            continue;
        }
        // The differing words, and the first few of them with both sides' values.
        let hex = |w: &[u8]| {
            w.iter()
                .rev()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        };
        let differing: Vec<_> = a
            .chunks(4)
            .zip(b.chunks(4))
            .enumerate()
            .filter(|(_, (x, y))| x != y)
            .collect();
        let shown: Vec<String> = differing
            .iter()
            .take(6)
            .map(|(k, (x, y))| format!("word {k}: interpreter 0x{} GPU 0x{}", hex(x), hex(y)))
            .collect();
        panic!(
            "{name}: buffer {n} differs at byte {:?} ({} words differ; {})",
            a.iter().zip(b).position(|(x, y)| x != y),
            differing.len(),
            shown.join(", ")
        );
    }
    // A straight run with loops counts its channels only.
    match g.instructions {
        Some(n) => assert_eq!(cpu.stats.instructions, n, "{name}: instructions"),
        None => assert_eq!(g.mapping, "straight", "{name}: no instruction count"),
    }
    assert_eq!(cpu.stats.channel_ops, g.channel_ops, "{name}: channel-ops");
}

/// [`assert_same_run`], except that an output the case compares with a tolerance (the
/// results of vISA's transcendental math, within their documented ULP bounds on the
/// GPU) may differ from the interpreter's bytes within that tolerance.
pub fn assert_same_run_within(
    name: &str,
    case: &visa_emu::corpus::case::Case,
    cpu: &VariantRun,
    g: &GpuRun,
) {
    use visa_emu::corpus::compare::compare;
    same_run(name, cpu, g, &|n| case.loose_output(n).is_none());
    for ((n, a), (_, b)) in cpu.buffers.iter().zip(&g.buffers) {
        if let Some(o) = case.loose_output(n) {
            compare(&o.dtype, &o.tolerance, b, a).unwrap_or_else(|m| {
                panic!(
                    "{name}: output {n} element {}: GPU {} interpreter {} ({} tolerance)",
                    m.index, m.got, m.expected, o.tolerance.kind
                )
            });
        }
    }
}

/// The variant folder's kernel, parsed and pre-resolved as both paths consume it.
pub fn prepared(dir: &std::path::Path) -> visa_emu::interp::prepare::Prepared {
    let case = visa_emu::corpus::case::Case::load(dir.parent().unwrap()).unwrap();
    let device = dir.file_name().unwrap().to_string_lossy().to_string();
    let grf = visa_emu::corpus::paths::grf_bytes_of_device(&device);
    let program = visa_emu::cli::load_file(&dir.join("kernel.visaasm"), grf).unwrap();
    visa_emu::interp::prepare(&program, &case.kernel)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// Special f32 bits: NaNs of both signs, quiet and signaling, with payloads;
/// infinities; signed zeros; denormals; the largest finite values; values at the
/// integer limits.
pub const SPECIAL_F32: [u32; 20] = [
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0001,
    0x7fba_dbad,
    0xff80_0000,
    0x7f80_0000,
    0,
    0x8000_0000,
    1,
    0x8000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x3f80_0000,
    0x4f00_0000,
    0xcf00_0000,
    0x5f00_0000,
    0x437f_8000,
    0xc020_0000,
];

/// [`SPECIAL_F32`]'s kinds in f64 bits.
pub const SPECIAL_F64: [u64; 12] = [
    0x7ff8_0000_0000_0000,
    0xfff8_0000_0000_0000,
    0x7ff0_0000_0000_0001,
    0xfff0_0000_0000_0000,
    0,
    0x8000_0000_0000_0000,
    1,
    0x800f_ffff_ffff_ffff,
    0x7fef_ffff_ffff_ffff,
    0x3ff0_0000_0000_0000,
    0x43e0_0000_0000_0000,
    0xc3e0_0000_0000_0000,
];

/// [`SPECIAL_F32`]'s kinds in half bits.
pub const SPECIAL_F16: [u16; 12] = [
    0x7e00, 0xfe00, 0x7c01, 0xfd55, 0xfc00, 0x7c00, 0, 0x8000, 1, 0x83ff, 0x7bff, 0x3c00,
];

/// A deterministic xorshift64 stream from `seed` (not 0).
pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// Copy case folder `src` into `root` with only `variant`'s `kernel.bin` (case.json,
/// inputs and expected outputs too); returns the copy's case folder. The caller puts
/// the kernel (patched text, an assembled binary) beside the `.bin`.
pub fn copy_case(
    src: &std::path::Path,
    variant: &str,
    root: &std::path::Path,
) -> std::path::PathBuf {
    let case = root.join(src.file_name().unwrap());
    std::fs::create_dir_all(case.join(variant)).unwrap();
    std::fs::copy(src.join("case.json"), case.join("case.json")).unwrap();
    for sub in ["inputs", "expected"] {
        std::fs::create_dir_all(case.join(sub)).unwrap();
        for e in std::fs::read_dir(src.join(sub)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), case.join(sub).join(e.file_name())).unwrap();
        }
    }
    let bin = src.join(variant).join("kernel.bin");
    std::fs::copy(bin, case.join(variant).join("kernel.bin")).unwrap();
    case
}

/// The corpus's ndrange_3d_ids over 11 x 5 x 3 items in its 4 x 3 x 2 groups (an
/// NDRange with non-uniform work-groups in every dimension: 8 pieces), and the number
/// of its items whose words are not OpenCL 2.0's: local id, group id, global offset,
/// and `get_num_groups(2) * 100 + get_local_size(2) * 10 + get_work_dim()`.
pub fn uneven_3d_case() -> (std::path::PathBuf, visa_emu::corpus::case::Case) {
    let dir = visa_emu::corpus::paths::default_corpus_dir().join("ndrange_3d_ids/tgllp-simd32");
    let mut case = visa_emu::corpus::case::Case::load(dir.parent().unwrap()).unwrap();
    assert_eq!(case.ndrange.local_size, [4, 3, 2]);
    case.ndrange.global_size = vec![11, 5, 3];
    (dir, case)
}

/// Items of [`uneven_3d_case`]'s output `o` that break OpenCL 2.0's definitions.
pub fn uneven_3d_mismatches(case: &visa_emu::corpus::case::Case, o: &[u8]) -> usize {
    let w: Vec<i32> = o
        .chunks_exact(4)
        .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let (g, l, off) = (
        &case.ndrange.global_size,
        &case.ndrange.local_size,
        &case.ndrange.global_offset,
    );
    let mut bad = 0;
    for z in 0..g[2] {
        for y in 0..g[1] {
            for x in 0..g[0] {
                let idx = (((z * g[1] + y) * g[0] + x) * 4) as usize;
                let lid = (x % l[0]) | ((y % l[1]) << 8) | ((z % l[2]) << 16);
                let gid = (x / l[0]) | ((y / l[1]) << 8) | ((z / l[2]) << 16);
                let offs = off[0] | (off[1] << 8) | (off[2] << 16);
                let local_z = l[2].min(g[2] - z / l[2] * l[2]);
                let last = g[2].div_ceil(l[2]) * 100 + local_z * 10 + 3;
                let want = [lid, gid, offs, last].map(|v| v as i32);
                if w.get(idx..idx + 4) != Some(&want[..]) {
                    bad += 1;
                }
            }
        }
    }
    bad
}

/// A translation target as the tests build them: `threads_per_group` threads, `slm_bytes`
/// of SLM, the lane mapping where `lanes`, the straight form where `straight`; no probe,
/// no forced table form, no shared payload or computed local ids, the GRF not in the
/// state buffer, lanes not full, the scheduled lane form written where the straight one
/// is refused. Tests set other fields with `..common::target(..)`.
pub fn target(
    threads_per_group: u32,
    slm_bytes: u32,
    lanes: bool,
    straight: bool,
) -> visa_emu::translate::Target {
    visa_emu::translate::Target {
        threads_per_group,
        slm_bytes,
        lanes,
        straight,
        probe: false,
        table: None,
        shared_payload_from: None,
        local_ids: None,
        grf_in_state: false,
        full_lanes: false,
        prove_bounds: true,
        split_atomics: true,
        scheduled_fallback: true,
        private_base: None,
    }
}

/// F32 triples for an F mad: products and addends with exponents spread over f32's
/// range, denormals, near-cancellations (`c = -a*b` within a few ulps), overflow, and
/// every special value.
pub fn f32_mad_triples(seed: u64) -> Vec<[f32; 3]> {
    let mut next = xorshift(seed);
    let mut rand32 = move |span: u32| {
        let r = next();
        let exp = (127 + (r >> 40) as u32 % span).wrapping_sub(span / 2) & 0xff;
        f32::from_bits(((r as u32) & 0x807f_ffff) | (exp.min(254) << 23))
    };
    let mut t: Vec<[f32; 3]> = Vec::new();
    for k in 0..3000 {
        let (a, b) = (rand32(60), rand32(60));
        let c = match k % 4 {
            0 => -(a * b),
            1 => f32::from_bits((-(a * b)).to_bits().wrapping_add(k % 5)),
            2 => rand32(120),
            _ => rand32(250),
        };
        t.push([a, b, c]);
    }
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.5,
        f32::from_bits(1),
        -f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        f32::MAX,
        -f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.0e-20,
        3.0e19,
    ];
    for &a in &specials {
        for &b in &specials {
            for &c in &[
                0.0f32,
                -0.0,
                1.0,
                -f32::MAX,
                f32::INFINITY,
                f32::from_bits(3),
            ] {
                t.push([a, b, c]);
            }
        }
    }
    t
}

/// `fma32_bits` (shaders/runtime.wgsl) and the functions it calls.
pub const FMA32_FUNCTIONS: [&str; 5] = [
    "fma32_bits",
    "fma32_sig",
    "fma32_exp",
    "fma32_clz64",
    "fma32_jam",
];

/// The interpreter's F `mad` of `x` in rounding mode `md` (denormals kept), as bits.
pub fn interpreter_mad_f32(x: &[f32; 3], md: u8) -> u32 {
    use visa_emu::interp::alu::{exec, AluOp, FpEnv, Val};
    use visa_emu::ir::DataType;
    let env = FpEnv {
        rounding: md,
        ..FpEnv::IEEE_DENORMS
    };
    let f = |x: f32| Val::new(DataType::F, u64::from(x.to_bits()));
    exec(
        AluOp::Mad,
        DataType::F,
        &[f(x[0]), f(x[1]), f(x[2])],
        false,
        &env,
    )
    .unwrap()
    .dst as u32
}
