//! A shader that runs past `VISA_GPU_TIMEOUT` is an error naming the limit, not a
//! hang of the caller (a barrier deadlock on a real GPU never ends; here a long loop
//! stands in for it). Its own test binary: the variable is process-wide.

use visa_emu_host::{ComputeJob, GpuContext, GpuOptions, HostError};

const SPIN: &str = r#"
@group(0) @binding(0) var<storage, read_write> data: array<atomic<u32>>;
@compute @workgroup_size(64)
fn main() {
    let n = atomicLoad(&data[0]);
    // An atomic per step: no compiler can fold the loop away (llvmpipe ends a loop
    // after 65535 iterations: the length comes from many work-groups).
    for (var i = 0u; i < n; i++) { atomicAdd(&data[1], i); }
}
"#;

fn spin(iterations: u32, groups: u32) -> ComputeJob {
    let data = [iterations, 1]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    ComputeJob::one_buffer(7, SPIN, data, [groups, 1, 1])
}

#[test]
fn a_gpu_wait_past_the_limit_is_an_error_and_the_device_counts_as_lost() {
    std::env::set_var("VISA_GPU_TIMEOUT", "1");
    let mut gpu = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    // A short spin finishes within the limit.
    gpu.run(&spin(30, 1)).expect("a short loop ends in time");
    let t = std::time::Instant::now();
    let err = gpu
        .run(&spin(16_000, 65_535))
        .expect_err("6.7e10 atomic adds outlast 1 s");
    assert!(
        matches!(&err, HostError::DeviceLost(m) if m.contains("within 1 s")),
        "{err}"
    );
    assert!(t.elapsed().as_secs() < 60, "the wait was not bounded");
    let again = gpu.run(&spin(1, 1)).expect_err("the device stays marked");
    assert!(matches!(again, HostError::DeviceLost(_)), "{again}");
    assert!(
        gpu.lost().is_some_and(|m| m.contains("VISA_GPU_TIMEOUT")),
        "lost() names the cause"
    );
    // A fresh device goes on (conformance drops a lost one and opens another).
    let mut fresh = GpuContext::new(&GpuOptions::default()).expect("a second device");
    fresh.run(&spin(30, 1)).expect("a fresh device runs");
    assert_eq!(fresh.lost(), None);
    // Dropping the device would wait for the spin: leave it to the process's end.
    std::mem::forget(gpu);
}
