//! What an adapter's float arithmetic does where Vulkan leaves it open, measured once
//! when the device opens: whether f32 denormals survive arithmetic (WGSL cannot ask
//! for SPIR-V's DenormPreserve, and NVIDIA's driver flushes them) and whether native
//! f64 division and square root are correctly rounded (Vulkan allows ulps of error;
//! NVIDIA's driver divides by a constant through its reciprocal, one ulp off on some
//! operands). The translator's runtime
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

fn f32_denormals(ctx: &mut GpuContext) -> Option<bool> {
    // The smallest denormal, 1.0, 0.0; 2^-65, whose square 2^-130 is denormal.
    let words: [u32; 8] = [1, 0x3f80_0000, 0, 0, 0, 0, 0, 0x1f00_0000];
    let r = ctx
        .run(&ComputeJob::one_buffer(
            0x7072_6f62_6533_3201,
            F32_PROBE,
            bytemuck::cast_slice(&words).to_vec(),
            [1, 1, 1],
        ))
        .ok()?;
    let out: &[u32] = bytemuck::try_cast_slice(r.outputs.first()?).ok()?;
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
    let r = ctx
        .run(&ComputeJob::one_buffer(
            0x7072_6f62_6536_3401,
            F64_PROBE,
            data,
            [groups, 1, 1],
        ))
        .ok()?;
    let out: Vec<f64> = r
        .outputs
        .first()?
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

/// Measure `ctx`'s float behaviour (a few milliseconds: two tiny dispatches).
pub fn probe(ctx: &mut GpuContext) -> FloatBehaviour {
    let f32_denormals = f32_denormals(ctx).unwrap_or(false);
    let f64_div_sqrt_exact = if ctx.capabilities().f64 {
        f64_div_sqrt_exact(ctx).unwrap_or(false)
    } else {
        true
    };
    // The probes' pipelines are of no further use.
    ctx.pipelines.clear();
    FloatBehaviour {
        f32_denormals,
        f64_div_sqrt_exact,
    }
}
