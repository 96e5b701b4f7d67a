//! What an adapter's float arithmetic does where Vulkan leaves it open, measured once
//! when the device opens: whether f32 denormals survive arithmetic (WGSL cannot ask
//! for SPIR-V's DenormPreserve, and NVIDIA's driver flushes them) and whether native
//! f64 division and square root are correctly rounded (Vulkan allows ulps of error;
//! NVIDIA's driver divides by a constant through its reciprocal, one ulp off on some
//! operands), and whether the compiler fuses a product into the sum it feeds (SPIR-V
//! allows it without `NoContraction`, which WGSL cannot ask for; NVIDIA's compiler fused
//! the hand-written mandelbrot baseline's `a*b + c`, one rounding where the vISA has
//! two). The translator's runtime
//! keeps the GPU path exact either way, given these answers.

use crate::job::ComputeJob;
use crate::GpuContext;

/// The answers of [`probe`]. A probe that cannot run answers the safe way (flushing,
/// inexact): the runtime's exact forms are slower, never wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatBehaviour {
    /// f32 arithmetic keeps denormal operands and results.
    pub f32_denormals: bool,
    /// Native f64 `/` and `sqrt` round correctly (true where the device has no f64:
    /// the emulation is exact).
    pub f64_div_sqrt_exact: bool,
    /// `p = x * y; p + z` rounds twice, in f32 and in f64 (where the device has it).
    pub keeps_products: bool,
    /// WGSL's f32 `fma` rounds once, as IEEE's fusedMultiplyAdd (SPIR-V's `Fma` may
    /// round twice), and keeps denormal results; not probed (false) where f32
    /// arithmetic flushes denormals.
    pub fma_single_rounding: bool,
}

const F32_PROBE: &str = r#"
@group(0) @binding(0) var<storage, read_write> io: array<u32, 8>;
@compute @workgroup_size(1)
fn main() {
    let d = bitcast<f32>(io[0]);
    let one = bitcast<f32>(io[1]);
    let zero = bitcast<f32>(io[2]);
    io[3] = bitcast<u32>(d * one);
    io[4] = bitcast<u32>(d + zero);
    io[5] = select(0u, 1u, d > zero);
    io[6] = bitcast<u32>(bitcast<f32>(io[7]) * bitcast<f32>(io[7]));
}
"#;

/// f32 `fma` on the quadruples of [`FMA_CASES`], each result into the last word.
const FMA_PROBE: &str = r#"
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if (i >= 4u) { return; }
    let x = bitcast<f32>(v[4u * i]);
    let y = bitcast<f32>(v[4u * i + 1u]);
    let z = bitcast<f32>(v[4u * i + 2u]);
    v[4u * i + 3u] = bitcast<u32>(fma(x, y, z));
}
"#;

/// `(x, y, z, x * y + z rounded once)` as bits, each telling one way of getting it wrong:
/// `(1 + 2^-12)^2 - (1 + 2^-11)` is 2^-24 fused and 0 with the product rounded first;
/// `(1 + 2^-12)^2 + 2^-70` is 1 + 2^-11 + 2^-23 rounded once and 1 + 2^-11 rounded
/// through f64 first (a tie there); `2^-100 * 2^-30` is the denormal 2^-130, 0 where
/// `fma` flushes; `1 * -0 + -0` is -0.
const FMA_CASES: [[u32; 4]; 4] = [
    [0x3f80_0800, 0x3f80_0800, 0xbf80_1000, 0x3380_0000],
    [0x3f80_0800, 0x3f80_0800, 0x1c80_0000, 0x3f80_1001],
    [0x0d80_0000, 0x3080_0000, 0, 0x0008_0000],
    [0x3f80_0000, 0x8000_0000, 0x8000_0000, 0x8000_0000],
];

fn fma_single_rounding(ctx: &mut GpuContext) -> Option<bool> {
    let mut words: Vec<u32> = FMA_CASES
        .iter()
        .flat_map(|c| [c[0], c[1], c[2], 0])
        .collect();
    // A result word that starts as the answer could pass without the shader running.
    for (w, c) in words.chunks_exact_mut(4).zip(&FMA_CASES) {
        w[3] = !c[3];
    }
    let out = run_probe_words(ctx, 0x7072_6f62_6566_6d63, FMA_PROBE, &words)?;
    crate::job::stage_log(format_args!(
        "fma probe: {:08x?} (rounded once: {:08x?})",
        out.chunks_exact(4).map(|o| o[3]).collect::<Vec<_>>(),
        FMA_CASES.map(|c| c[3])
    ));
    Some(
        out.len() == 16
            && out
                .chunks_exact(4)
                .zip(&FMA_CASES)
                .all(|(o, c)| o[3] == c[3]),
    )
}

/// Pairs the f64 probe divides (and whose first members it takes the root of).
const F64_PAIRS: usize = 256;

const F64_PROBE: &str = r#"
@group(0) @binding(0) var<storage, read_write> v: array<f64>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if (i >= 256u) { return; }
    let x = v[4u * i];
    let y = v[4u * i + 1u];
    // Constant divisors too: a driver may turn those into multiplications by the
    // reciprocal (the translator writes a divisor it knows as a literal).
    var q = x / y;
    if ((i & 3u) == 1u) { q = x / 3.0lf; }
    if ((i & 3u) == 2u) { q = x / 10.0lf; }
    if ((i & 3u) == 3u) { q = 1.0lf / y; }
    v[4u * i + 2u] = q;
    v[4u * i + 3u] = sqrt(x);
}
"#;

/// Products and the sums they feed, in the shape the translator writes them (the
/// product through a function and a private variable, as a vISA `mul` then `add`).
/// Each `z` is minus the rounded product: two roundings give exactly 0, a fused
/// multiply-add gives the product's rounding error.
const CONTRACT_PROBE: &str = r#"
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
var<private> p32: f32;
fn mul32(x: f32, y: f32) -> f32 { return x * y; }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if (i >= 64u) { return; }
    p32 = mul32(bitcast<f32>(v[4u * i]), bitcast<f32>(v[4u * i + 1u]));
    v[4u * i + 3u] = bitcast<u32>(p32 + bitcast<f32>(v[4u * i + 2u]));
}
"#;

const CONTRACT_PROBE_F64: &str = r#"
@group(0) @binding(0) var<storage, read_write> v: array<f64>;
var<private> p64: f64;
fn mul64(x: f64, y: f64) -> f64 { return x * y; }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if (i >= 64u) { return; }
    p64 = mul64(v[4u * i], v[4u * i + 1u]);
    v[4u * i + 3u] = p64 + v[4u * i + 2u];
}
"#;

/// 64 (x, y, -round(x * y), 0) quadruples of full-mantissa values near 1.
fn contract_operands() -> (Vec<f32>, Vec<f64>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut s = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..64 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let (x, y) = (
            1.0 + (s >> 40) as f32 / 2f32.powi(24),
            1.5 - (s & 0xff_ffff) as f32 / 2f32.powi(25),
        );
        a.extend([x, y, -(x * y), 0.0]);
        let (x, y) = (
            1.0 + (s >> 11) as f64 / 2f64.powi(53),
            1.5 - (s & 0xf_ffff_ffff) as f64 / 2f64.powi(37),
        );
        b.extend([x, y, -(x * y), 0.0]);
    }
    (a, b)
}

/// Run one probe shader over `groups` workgroups on `data` (its only buffer) and
/// return the buffer afterwards; `None` when it cannot run.
fn run_probe(
    ctx: &mut GpuContext,
    key: u64,
    wgsl: &str,
    data: Vec<u8>,
    groups: u32,
) -> Option<Vec<u8>> {
    let r = ctx
        .run(&ComputeJob::one_buffer(key, wgsl, data, [groups, 1, 1]))
        .ok()?;
    r.outputs.into_iter().next()
}

/// [`run_probe`] of one workgroup on a buffer of `u32` words, read back as words.
fn run_probe_words(ctx: &mut GpuContext, key: u64, wgsl: &str, words: &[u32]) -> Option<Vec<u32>> {
    let bytes = run_probe(ctx, key, wgsl, bytemuck::cast_slice(words).to_vec(), 1)?;
    Some(bytemuck::try_cast_slice(&bytes).ok()?.to_vec())
}

fn keeps_products(ctx: &mut GpuContext) -> Option<bool> {
    let (a, b) = contract_operands();
    // Each quadruple's last word (4 bytes in f32, 8 in f64) must be exactly zero.
    let sums_zero = |out: &[u8], width: usize| {
        out.len() == 64 * 4 * width
            && out
                .chunks_exact(4 * width)
                .all(|q| q[3 * width..].iter().all(|&x| x == 0))
    };
    let out = run_probe(
        ctx,
        0x7072_6f62_6566_6d61,
        CONTRACT_PROBE,
        bytemuck::cast_slice(&a).to_vec(),
        1,
    )?;
    if !sums_zero(&out, 4) {
        return Some(false);
    }
    if !ctx.capabilities().f64 {
        return Some(true);
    }
    let out = run_probe(
        ctx,
        0x7072_6f62_6566_6d62,
        CONTRACT_PROBE_F64,
        bytemuck::cast_slice(&b).to_vec(),
        1,
    )?;
    Some(sums_zero(&out, 8))
}

fn f32_denormals(ctx: &mut GpuContext) -> Option<bool> {
    // The smallest denormal, 1.0, 0.0; 2^-65, whose square 2^-130 is denormal.
    let words: [u32; 8] = [1, 0x3f80_0000, 0, 0, 0, 0, 0, 0x1f00_0000];
    let out = run_probe_words(ctx, 0x7072_6f62_6533_3201, F32_PROBE, &words)?;
    Some(out.get(3..7)? == [1, 1, 1, 0x0008_0000])
}

/// Operands spread over 2^-40..2^40 with full mantissas (xorshift, fixed seed).
fn f64_operands() -> Vec<f64> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut v = Vec::with_capacity(4 * F64_PAIRS);
    for _ in 0..F64_PAIRS {
        for _ in 0..2 {
            let r = next();
            let exp = 1023 - 40 + (r >> 56) % 81;
            v.push(f64::from_bits((exp << 52) | (r & ((1 << 52) - 1))));
        }
        v.extend([0.0, 0.0]);
    }
    v
}

fn f64_div_sqrt_exact(ctx: &mut GpuContext) -> Option<bool> {
    let v = f64_operands();
    let data = bytemuck::cast_slice(&v).to_vec();
    let groups = F64_PAIRS.div_ceil(64) as u32;
    let out: Vec<f64> = run_probe(ctx, 0x7072_6f62_6536_3401, F64_PROBE, data, groups)?
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    Some((0..F64_PAIRS).all(|i| {
        let (x, y) = match i & 3 {
            0 => (v[4 * i], v[4 * i + 1]),
            1 => (v[4 * i], 3.0),
            2 => (v[4 * i], 10.0),
            _ => (1.0, v[4 * i + 1]),
        };
        let root = v[4 * i];
        out.get(4 * i + 2).map(|q| q.to_bits()) == Some((x / y).to_bits())
            && out.get(4 * i + 3).map(|q| q.to_bits()) == Some(root.sqrt().to_bits())
    }))
}

/// Measure `ctx`'s float behaviour (a few milliseconds: four tiny dispatches).
pub fn probe(ctx: &mut GpuContext) -> FloatBehaviour {
    let f32_denormals = f32_denormals(ctx).unwrap_or(false);
    let f64_div_sqrt_exact = if ctx.capabilities().f64 {
        f64_div_sqrt_exact(ctx).unwrap_or(false)
    } else {
        true
    };
    let keeps_products = keeps_products(ctx).unwrap_or(false);
    // Only where f32 keeps denormals: a flushing adapter's F mad runs through f64
    // whatever its `fma` does (`backend::gpu::float_fixes`), so it skips the pipeline.
    let fma_single_rounding = f32_denormals && fma_single_rounding(ctx).unwrap_or(false);
    // The probes' pipelines are of no further use.
    ctx.pipelines.clear();
    FloatBehaviour {
        f32_denormals,
        f64_div_sqrt_exact,
        keeps_products,
        fma_single_rounding,
    }
}

#[cfg(test)]
mod tests {
    use super::contract_operands;

    /// Each fma case's answer is IEEE's (Rust's `mul_add` rounds once), and the case
    /// tells it from the wrong ways its comment names.
    #[test]
    fn fma_cases_tell_single_rounding_apart() {
        let f = f32::from_bits;
        for c in super::FMA_CASES {
            let once = f(c[0]).mul_add(f(c[1]), f(c[2]));
            assert_eq!(once.to_bits(), c[3], "{c:x?}");
        }
        let [a, b, d] = [0, 1, 2].map(|i| super::FMA_CASES[i]);
        assert_ne!((f(a[0]) * f(a[1]) + f(a[2])).to_bits(), a[3]);
        let through_f64 = (f64::from(f(b[0])) * f64::from(f(b[1])) + f64::from(f(b[2]))) as f32;
        assert_ne!(through_f64.to_bits(), b[3]);
        assert_ne!(d[3], 0);
    }

    /// Every quadruple tells the two roundings (0) from a fused multiply-add (the
    /// product's rounding error, never 0 here), in both widths.
    #[test]
    fn each_contraction_operand_tells_fused_from_kept() {
        let (a, b) = contract_operands();
        for q in a.chunks_exact(4) {
            assert_eq!((q[0] * q[1] + q[2]).to_bits(), 0, "{q:?}");
            assert_ne!(q[0].mul_add(q[1], q[2]), 0.0, "{q:?}");
        }
        for q in b.chunks_exact(4) {
            assert_eq!((q[0] * q[1] + q[2]).to_bits(), 0, "{q:?}");
            assert_ne!(q[0].mul_add(q[1], q[2]), 0.0, "{q:?}");
        }
    }
}
