// Hand-written baseline of tests/corpus/atomic_histogram/kernel.cl (binding convention
// in src/cli/bench_gpu.rs): 256-bin histogram of bytes with a global atomic add.
struct Params {
    n: i32,
}

@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = i32(gid.x);
    if (i < p.n) {
        let byte = (data[gid.x >> 2u] >> ((gid.x & 3u) * 8u)) & 0xffu;
        atomicAdd(&hist[byte], 1u);
    }
}
