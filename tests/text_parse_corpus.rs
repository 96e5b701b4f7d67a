//! Every corpus `.visaasm` parses.

use visa_emu::corpus::paths::{default_corpus_dir, grf_bytes_of_device, variant_dirs};
use visa_emu::decode::text::parse_visaasm;

#[test]
fn every_corpus_visaasm_parses() {
    let dirs = variant_dirs(&default_corpus_dir()).unwrap();
    assert_eq!(dirs.len(), 148);
    let mut failures = Vec::new();
    for d in &dirs {
        let device = d.file_name().unwrap().to_string_lossy();
        let grf = grf_bytes_of_device(&device);
        let text = std::fs::read_to_string(d.join("kernel.visaasm")).unwrap();
        if let Err(e) = parse_visaasm(&text, grf) {
            failures.push(format!("{}: {e}", d.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
