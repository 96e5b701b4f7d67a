//! The driver runs real WGSL on whatever adapter this machine has (lavapipe in CI).
//! These tests fail, never skip, when no adapter is found: CI must run the GPU path.

use visa_emu_host::{ComputeJob, GpuContext, GpuOptions};

const DOUBLE: &str = r#"
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<uniform> chunk_base: vec4<u32>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let i = (wg.x + chunk_base.x) * 64u + li;
    if (i < arrayLength(&data)) { data[i] = data[i] * 2u + 1u; }
}
"#;

fn job(n: u32) -> ComputeJob {
    let data = (0..n).flat_map(|i| i.to_le_bytes()).collect();
    ComputeJob {
        chunk_base_binding: Some(1),
        first_workgroup: [0; 3],
        ..ComputeJob::one_buffer(1, DOUBLE, data, [n.div_ceil(64), 1, 1])
    }
}

fn check(out: &[u8], n: u32) {
    let words: Vec<u32> = out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words.len(), n as usize);
    for (i, w) in words.iter().enumerate() {
        assert_eq!(*w, i as u32 * 2 + 1, "element {i}");
    }
}

#[test]
fn runs_wgsl_and_caches_the_pipeline() {
    let mut gpu = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    let r = gpu.run(&job(1000)).unwrap();
    check(&r.outputs[0], 1000);
    assert!(!r.timings.pipeline_cached);
    let r2 = gpu.run(&job(1000)).unwrap();
    assert!(r2.timings.pipeline_cached);
    assert_eq!(gpu.cached_pipelines(), 1);
}

#[test]
fn splits_dispatches_over_the_workgroup_limit() {
    let mut gpu = GpuContext::new(&GpuOptions::default()).unwrap();
    let lim = gpu.capabilities().max_workgroups_per_dimension;
    // Just over the limit: two chunks, the second one of a single workgroup.
    let n = (lim + 1) * 64;
    let r = gpu.run(&job(n)).unwrap();
    check(&r.outputs[0], n);
}

#[test]
fn rejects_bad_wgsl_with_an_error() {
    let mut gpu = GpuContext::new(&GpuOptions::default()).unwrap();
    let mut j = job(64);
    j.key = 99;
    j.wgsl = "fn main( {".into();
    let e = gpu.run(&j).unwrap_err();
    assert!(e.to_string().contains("rejected"), "{e}");
}

#[test]
fn disabling_features_hides_them() {
    let gpu = GpuContext::new(&GpuOptions {
        disable_subgroups: true,
        disable_f16: true,
        disable_f64: true,
        disable_int64: true,
        ..Default::default()
    })
    .unwrap();
    let c = gpu.capabilities();
    assert!(!c.subgroups && !c.f16 && !c.f64 && !c.int64);
}

/// A buffer whose bytes end mid-word: the whole words go up as they are and the tail
/// is padded with zeros (uploads skip copying whole-word data first).
#[test]
fn uploads_a_ragged_tail_padded_with_zeros() {
    let mut gpu = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    let mut j = job(2);
    // Words 0x03020100 and 0x07060504, then two bytes of a third word.
    j.buffers[0].data = (0u8..10).collect();
    j.buffers[0].size = 10;
    j.workgroups = [1, 1, 1];
    let r = gpu.run(&j).unwrap();
    let words: Vec<u32> = r.outputs[0]
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect();
    let want = |x: u32| x.wrapping_mul(2).wrapping_add(1);
    assert_eq!(words[0], want(0x0302_0100));
    assert_eq!(words[1], want(0x0706_0504));
    // The shader saw 0x00000908 (zero padding) and wrote 0x1211; the readback keeps
    // the buffer's 10 bytes.
    assert_eq!(r.outputs[0].len(), 10);
    assert_eq!(&r.outputs[0][8..10], &want(0x0908).to_le_bytes()[..2]);
}
