// Hand-written baseline of tests/corpus/saxpy/kernel.cl (see src/cli/bench_gpu.rs for
// the binding convention): y[i] = a * x[i] + y[i] for i < n, fused as IGC emits it
// (OpenCL contracts by default: the vISA has one `mad`).
struct Params {
    a: f32,
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(128)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < p.n) {
        y[i] = fma(p.a, x[i], y[i]);
    }
}
