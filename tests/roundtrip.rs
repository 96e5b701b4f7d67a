//! Round trips over every corpus kernel and the project's own cases (images' `load_lz`
//! among them): `parse(print(parse(t))) == parse(t)`.

mod common;

use visa_emu::corpus::paths::{default_corpus_dir, grf_bytes_of_device, variant_dirs};
use visa_emu::decode::text::parse_visaasm;
use visa_emu::print::print_program;

#[test]
fn print_then_parse_gives_the_same_kernel() {
    let own = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut dirs = variant_dirs(&default_corpus_dir()).unwrap();
    dirs.extend(variant_dirs(&own).unwrap());
    let mut failures = Vec::new();
    for d in &dirs {
        let grf = grf_bytes_of_device(&d.file_name().unwrap().to_string_lossy());
        let text = std::fs::read_to_string(d.join("kernel.visaasm")).unwrap();
        let p = parse_visaasm(&text, grf).unwrap();
        let printed = print_program(&p);
        match parse_visaasm(&printed, grf) {
            Ok(q) if q == p => {}
            Ok(q) => {
                let (a, b) = (&p.kernels[0], &q.kernels[0]);
                let first = a
                    .body
                    .iter()
                    .zip(&b.body)
                    .position(|(x, y)| x != y)
                    .map(|i| format!("instruction {i}: {:?} vs {:?}", a.body[i], b.body[i]))
                    .unwrap_or_else(|| "declarations differ".into());
                failures.push(format!("{}: {first}", d.display()));
            }
            Err(e) => failures.push(format!("{}: reparse failed: {e}", d.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A kernel reading an image through a sampler (IGC's `sample_lz`, tests/data: ocloc
/// for tgllp from sampler_read.cl) parses, prints and parses back the same, and
/// translates to the runtime's nearest sample.
#[test]
fn sampler_reads_round_trip_and_translate() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let text = std::fs::read_to_string(dir.join("sampler_read_tgllp.visaasm")).unwrap();
    let p = parse_visaasm(&text, 32).unwrap();
    let printed = print_program(&p);
    assert!(printed.contains("sample_lz.RGBA (M1, 16) 0x0:uw S0 T6 V0065.0 V0061.0 V0063.0"));
    assert_eq!(parse_visaasm(&printed, 32).unwrap(), p);
    let prepared = visa_emu::interp::prepare(&p, "smp").unwrap();
    let target = common::target(1, 0, false, false);
    let m = visa_emu::translate::translate(&prepared, &target).unwrap();
    assert!(m.wgsl.contains("img_sample(bt, 0u,"));
}
