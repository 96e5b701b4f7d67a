//! Where the reference corpus lives.

use std::path::PathBuf;

/// `$VISA_CORPUS` if set, else the copy vendored in `tests/corpus` (a byte-for-byte copy
/// of `../shared/corpus`, so that a clean clone and CI have it).
pub fn default_corpus_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("VISA_CORPUS") {
        return PathBuf::from(p);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// Every compiled variant folder (`CASE/DEVICE-simdN`) under `root`, sorted.
pub fn variant_dirs(root: &std::path::Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for case in std::fs::read_dir(root)? {
        let case = case?.path();
        if !case.is_dir() {
            continue;
        }
        for v in std::fs::read_dir(&case)? {
            let v = v?.path();
            if v.join("kernel.visaasm").exists() || v.join("kernel.isa").exists() {
                out.push(v);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The first variant of every case of the corpus and of the project's own cases
/// (`tests/cases`): one module per kernel, for tests that translate them all.
pub fn first_variants() -> Vec<PathBuf> {
    let own = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut out = Vec::new();
    for root in [default_corpus_dir(), own] {
        let mut last_case: Option<PathBuf> = None;
        for v in variant_dirs(&root).unwrap_or_default() {
            let case = v.parent().map(PathBuf::from);
            if case != last_case {
                out.push(v);
                last_case = case;
            }
        }
    }
    out
}

/// GRF size in bytes of a corpus device name (`pvc` has 64-byte GRFs).
pub fn grf_bytes_of_device(device: &str) -> u32 {
    if device.starts_with("pvc") {
        64
    } else {
        32
    }
}
