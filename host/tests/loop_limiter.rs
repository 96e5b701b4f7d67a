//! What llvmpipe's loop limiter charges, as `visa_emu::translate::budget` models it:
//! Mesa's llvmpipe gives each shader invocation 65535 loop back-edges in all and runs
//! every branch as a mask over a vector of invocations, so a loop in a branch that no
//! invocation takes still costs a back-edge, and invocations of one vector that take
//! different branches pay for each other's loops. On other adapters the probe finds
//! no limiter. Fails, never skips, when no adapter is found.

use visa_emu_host::{ComputeJob, GpuContext, GpuOptions};

/// `cases` switch cases, each a loop of `data[33]` (+0/1) iterations, run `data[32]`
/// times with the case `data[li]`; then a probe loop counts the back-edges left.
fn shader(cases: usize, wg: u32) -> String {
    let mut s = String::from(
        "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\nvar<private> acc: u32;\n",
    );
    s += &format!(
        "@compute @workgroup_size({wg})\nfn main(@builtin(local_invocation_index) li: u32) {{\n"
    );
    s += "  let sel = data[li];\n  let reps = data[32];\n  let n = data[33];\n";
    s += "  for (var r = 0u; r < reps; r++) {\n    switch sel {\n";
    for c in 0..cases {
        s += &format!(
            "      case {c}u: {{ for (var i = 0u; i < n + {}u; i++) {{ acc = acc * {}u + i; }} }}\n",
            c % 2,
            c * 2 + 3
        );
    }
    s += "      default: {}\n    }\n  }\n";
    s += "  var left = 0u;\n  for (var k = 0u; k < 200000u; k++) { left = left + 1u; acc = acc ^ left; }\n";
    s += "  data[64u + li] = left;\n  data[128u + li] = acc;\n}\n";
    s
}

/// Back-edges the probe found left in invocation 0.
fn left(gpu: &mut GpuContext, cases: usize, sels: &[u32], reps: u32) -> u32 {
    let mut d = vec![0u32; 192];
    d[..sels.len()].copy_from_slice(sels);
    d[32] = reps;
    d[33] = 32;
    let bytes = d.iter().flat_map(|w| w.to_le_bytes()).collect();
    let wg = sels.len() as u32;
    let key = 0x006c_696d_0000 + (cases as u64) * 16 + u64::from(wg);
    let job = ComputeJob::one_buffer(key, &shader(cases, wg), bytes, [1, 1, 1]);
    let out = gpu.run(&job).expect("the probe runs");
    u32::from_le_bytes(out.outputs[0][256..260].try_into().unwrap())
}

#[test]
fn masked_loops_and_divergent_invocations_cost_back_edges() {
    let mut gpu = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    let idle = left(&mut gpu, 20, &[0], 0);
    if !gpu.adapter().name.to_lowercase().contains("llvmpipe") {
        assert_eq!(idle, 200_000, "{}: a loop limiter", gpu.adapter().name);
        return;
    }
    assert!(
        idle > 65_000 && idle <= 65_535,
        "llvmpipe's cap moved: {idle} left"
    );
    let used = |l: u32| idle - l;
    // One case taken, ten times: its 32 back-edges and one of each of the 19 others.
    let one = used(left(&mut gpu, 20, &[0], 10));
    assert!(one >= 10 * (32 + 19), "{one}");
    // No case taken: every loop still costs its masked back-edge.
    let none = used(left(&mut gpu, 20, &[99], 10));
    assert!(none >= 10 * 20, "{none}");
    // Two invocations of one vector in different cases pay for both loops.
    let two = used(left(&mut gpu, 20, &[0, 1], 10));
    assert!(two >= one + 10 * 32, "{two} vs {one}");
}
