// Hand-written baseline of tests/cases/stencil3x3/kernel.cl (see src/cli/bench_gpu.rs
// for the binding convention): a 3x3 1-2-1 blur with clamp-to-edge borders, summed in
// the kernel's order.
struct Params {
    w: i32,
    h: i32,
}

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read_write> src: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(16, 4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = i32(gid.x);
    let y = i32(gid.y);
    if (x >= p.w || y >= p.h) {
        return;
    }
    let xl = max(x - 1, 0);
    let xr = min(x + 1, p.w - 1);
    let u = max(y - 1, 0) * p.w;
    let m = y * p.w;
    let d = min(y + 1, p.h - 1) * p.w;
    let corners = (src[u + xl] + src[u + xr]) + (src[d + xl] + src[d + xr]);
    let edges = (src[u + x] + src[d + x]) + (src[m + xl] + src[m + xr]);
    out[m + x] = 0.25 * src[m + x] + 0.125 * edges + 0.0625 * corners;
}
