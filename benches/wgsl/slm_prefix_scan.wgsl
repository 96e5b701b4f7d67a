// Hand-written baseline of tests/corpus/slm_prefix_scan/kernel.cl (binding convention
// in src/cli/bench_gpu.rs): Hillis-Steele inclusive scan in one work-group, double
// buffered in workgroup memory. No scalar arguments, so no uniform.

@group(0) @binding(0) var<storage, read_write> a: array<i32>;
@group(0) @binding(1) var<storage, read_write> o: array<i32>;

var<workgroup> buf: array<array<i32, 256>, 2>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    var q = 0u;
    buf[0][l] = a[gid.x];
    workgroupBarrier();
    for (var off = 1u; off < 256u; off <<= 1u) {
        var v = buf[q][l];
        if (l >= off) {
            v += buf[q][l - off];
        }
        buf[1u - q][l] = v;
        q = 1u - q;
        workgroupBarrier();
    }
    o[gid.x] = buf[q][l];
}
