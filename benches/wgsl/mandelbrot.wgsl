// Hand-written baseline of tests/corpus/mandelbrot/kernel.cl (binding convention in
// src/cli/bench_gpu.rs): escape-time iteration counts, every operation rounded apart.
struct Params {
    x0: f32,
    y0: f32,
    dx: f32,
    dy: f32,
    maxit: u32,
}

@group(0) @binding(0) var<storage, read_write> iters: array<u32>;
@group(0) @binding(1) var<uniform> p: Params;

@compute @workgroup_size(16, 4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let px = gid.x;
    let py = gid.y;
    let cr = p.x0 + f32(px) * p.dx;
    let ci = p.y0 + f32(py) * p.dy;
    var zr = 0.0;
    var zi = 0.0;
    var k = 0u;
    while (k < p.maxit) {
        let zr2 = zr * zr;
        let zi2 = zi * zi;
        if (zr2 + zi2 > 4.0) { break; }
        let t = zr2 - zi2 + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        k++;
    }
    iters[py * nwg.x * 16u + px] = k;
}
