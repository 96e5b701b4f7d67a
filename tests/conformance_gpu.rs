//! The corpus on the GPU path (lavapipe in CI): every variant is translated, run
//! through wgpu and compared with the case's expected outputs. Fails, never skips,
//! when no adapter is found. Variants listed in `tests/known_gpu_failures.txt` are
//! reported and must still fail (so the list shrinks as the path improves).

use visa_emu::backend::gpu::check_variant;
use visa_emu_host::{GpuContext, GpuOptions};

#[test]
fn corpus_on_the_gpu_path() {
    let root = visa_emu::corpus::paths::default_corpus_dir();
    let mut dirs = visa_emu::corpus::paths::variant_dirs(&root).expect("corpus");
    dirs.sort();
    let only = std::env::var("VISA_GPU_ONLY").ok();
    let known = std::fs::read_to_string("tests/known_gpu_failures.txt").unwrap_or_default();
    let mut gpu = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    let (mut pass, mut fail) = (0, Vec::new());
    for d in &dirs {
        let name = format!(
            "{}/{}",
            d.parent().unwrap().file_name().unwrap().to_string_lossy(),
            d.file_name().unwrap().to_string_lossy()
        );
        if let Some(o) = &only {
            if !name.contains(o.as_str()) {
                continue;
            }
        }
        match check_variant(&mut gpu, d) {
            Ok(s) => {
                eprintln!("PASS {name}: {s}");
                pass += 1;
            }
            Err(e) => {
                eprintln!("FAIL {name}: {e}");
                fail.push(name);
            }
        }
    }
    eprintln!("{pass} passed, {} failed", fail.len());
    let unexpected: Vec<_> = fail
        .iter()
        .filter(|n| !known.lines().any(|l| l.split_whitespace().next() == Some(n.as_str())))
        .collect();
    assert!(unexpected.is_empty(), "unexpected GPU failures: {unexpected:?}");
    assert!(pass > 0);
}
