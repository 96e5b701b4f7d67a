// Hand-written baseline of tests/corpus/dot_product_reduce/kernel.cl (binding
// convention in src/cli/bench_gpu.rs): grid-stride partial sums, then a tree reduction
// in workgroup memory.
struct Params {
    n: i32,
}

@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read_write> partial: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

var<workgroup> s: array<f32, 64>;

@compute @workgroup_size(64)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) l: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    var acc = 0.0;
    let stride = i32(nwg.x * 64u);
    for (var k = i32(gid.x); k < p.n; k += stride) {
        acc += x[k] * y[k];
    }
    s[l] = acc;
    workgroupBarrier();
    for (var off = 32u; off > 0u; off >>= 1u) {
        if (l < off) {
            s[l] += s[l + off];
        }
        workgroupBarrier();
    }
    if (l == 0u) {
        partial[wid.x] = s[0];
    }
}
