//! Every corpus kernel translates to WGSL that naga parses and validates (one variant
//! per case folder, plus the project's own cases).

use visa_emu::translate::{translate, validate_wgsl, Target};

fn variants() -> Vec<std::path::PathBuf> {
    visa_emu::corpus::paths::first_variants()
}

#[test]
fn corpus_kernels_translate_to_valid_wgsl() {
    let vs = variants();
    assert!(vs.len() > 40, "corpus not found ({} variants)", vs.len());
    let mut failures = Vec::new();
    for dir in &vs {
        let case = visa_emu::corpus::case::Case::load(dir.parent().unwrap()).unwrap();
        let device = dir.file_name().unwrap().to_string_lossy().to_string();
        let grf = visa_emu::corpus::paths::grf_bytes_of_device(&device);
        let program = visa_emu::cli::load_file(&dir.join("kernel.visaasm"), grf).unwrap();
        let p = visa_emu::interp::prepare(&program, &case.kernel).unwrap();
        // The thread mapping, the lane mapping where the kernel allows it, and the
        // probe modules of `validate`'s localization.
        for (lanes, probe) in [(false, false), (true, false), (false, true)] {
            let target = Target {
                threads_per_group: if lanes { 1 } else { 2 },
                slm_bytes: 4096,
                lanes,
                probe,
            };
            match translate(&p, &target) {
                Ok(m) => {
                    if lanes && visa_emu::translate::lanes::ineligible(&p, 1, 4096).is_none() {
                        assert!(m.lanes, "{}: lane mode not taken", dir.display());
                    }
                    if let Err(e) = validate_wgsl(&m.wgsl) {
                        failures.push(format!(
                            "{} (lanes: {lanes}, probe: {probe}): {}",
                            dir.display(),
                            e.lines().next().unwrap_or("")
                        ));
                    }
                }
                Err(e) => failures.push(format!(
                    "{} (lanes: {lanes}, probe: {probe}): {e}",
                    dir.display()
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
