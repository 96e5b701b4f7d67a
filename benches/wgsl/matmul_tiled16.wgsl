// Hand-written baseline of tests/corpus/matmul_tiled16/kernel.cl (binding convention
// in src/cli/bench_gpu.rs): C = A * B with 16x16 tiles staged in workgroup memory.
struct Params {
    m: i32,
    n: i32,
    k: i32,
}

@group(0) @binding(0) var<storage, read_write> A: array<f32>;
@group(0) @binding(1) var<storage, read_write> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

var<workgroup> As: array<array<f32, 16>, 16>;
var<workgroup> Bs: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let lx = i32(lid.x);
    let ly = i32(lid.y);
    let col = i32(wid.x) * 16 + lx;
    let row = i32(wid.y) * 16 + ly;
    var acc = 0.0;
    for (var t = 0; t < p.k; t += 16) {
        var av = 0.0;
        if (row < p.m && t + lx < p.k) { av = A[row * p.k + t + lx]; }
        As[ly][lx] = av;
        var bv = 0.0;
        if (col < p.n && t + ly < p.k) { bv = B[(t + ly) * p.n + col]; }
        Bs[ly][lx] = bv;
        workgroupBarrier();
        for (var k = 0; k < 16; k++) {
            acc += As[ly][k] * Bs[k][lx];
        }
        workgroupBarrier();
    }
    if (row < p.m && col < p.n) {
        C[row * p.n + col] = acc;
    }
}
