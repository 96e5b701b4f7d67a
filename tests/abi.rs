//! The `.bin` patch-token decoder agrees with the corpus' `abi.json` on every variant,
//! for everything a run depends on.

use visa_emu::abi::KernelAbi;
use visa_emu::corpus::case::Case;
use visa_emu::corpus::paths::{default_corpus_dir, grf_bytes_of_device, variant_dirs};

fn implicit_key(
    i: &visa_emu::abi::ImplicitArg,
) -> (String, Option<u32>, u32, u32, Option<u32>, Option<u32>) {
    (
        i.kind.clone(),
        i.dim,
        i.payload_offset,
        i.size,
        i.bti,
        i.per_thread_private_size,
    )
}

#[test]
fn bin_decoding_matches_abi_json_on_every_variant() {
    let mut failures = Vec::new();
    let dirs = variant_dirs(&default_corpus_dir()).unwrap();
    for d in &dirs {
        let case = Case::load(d.parent().unwrap()).unwrap();
        let grf = grf_bytes_of_device(&d.file_name().unwrap().to_string_lossy());
        let json = KernelAbi::load(d).unwrap();
        let bin = match KernelAbi::from_bin(d, &case.kernel, grf) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{}: {e}", d.display()));
                continue;
            }
        };
        let mut why = Vec::new();
        if (bin.simd, bin.grf_bytes, bin.slm.inline_bytes)
            != (json.simd, json.grf_bytes, json.slm.inline_bytes)
        {
            why.push("simd/grf/slm".to_string());
        }
        let scratch = |a: &KernelAbi| a.scratch.as_ref().map_or(0, |s| s.per_thread_scratch_bytes);
        if scratch(&bin) != scratch(&json) {
            why.push(format!("scratch {} vs {}", scratch(&bin), scratch(&json)));
        }
        for ja in json.args.iter().filter(|a| a.kind != "unused") {
            let Some(ba) = bin.args.iter().find(|b| b.index == ja.index) else {
                why.push(format!("arg {} missing", ja.index));
                continue;
            };
            let same = ba.kind == ja.kind
                && (ja.kind != "buffer" || ba.bti == ja.bti)
                && ba.stateless_pointer.as_ref().map(|s| s.payload_offset)
                    == ja.stateless_pointer.as_ref().map(|s| s.payload_offset)
                && ba.slm_offset_slot.as_ref().map(|s| s.payload_offset)
                    == ja.slm_offset_slot.as_ref().map(|s| s.payload_offset)
                && ba.fragments.as_ref().map(|f| {
                    f.iter()
                        .map(|x| (x.source_offset, x.payload_offset, x.size))
                        .collect::<Vec<_>>()
                }) == ja.fragments.as_ref().map(|f| {
                    f.iter()
                        .map(|x| (x.source_offset, x.payload_offset, x.size))
                        .collect::<Vec<_>>()
                });
            if !same {
                why.push(format!("arg {} ({}) differs", ja.index, ja.name));
            }
        }
        let mut bi: Vec<_> = bin.implicit_args.iter().map(implicit_key).collect();
        let mut ji: Vec<_> = json.implicit_args.iter().map(implicit_key).collect();
        bi.sort();
        ji.sort();
        ji.dedup();
        bi.dedup();
        if bi != ji {
            why.push(format!("implicit args: bin {bi:?} json {ji:?}"));
        }
        if !why.is_empty() {
            failures.push(format!("{}: {}", d.display(), why.join("; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n")
    );
}

#[test]
fn garbage_bin_is_a_clear_error() {
    let e = visa_emu::abi::patch_tokens::decode_bin(b"\x7fELF not a program", "k", 32).unwrap_err();
    assert!(e.to_string().contains("INTC"), "{e}");
    let d = default_corpus_dir().join("saxpy/tgllp-simd16");
    let mut b = std::fs::read(d.join("kernel.bin")).unwrap();
    let e = visa_emu::abi::patch_tokens::decode_bin(&b, "nope", 32).unwrap_err();
    assert!(e.to_string().contains("no kernel named `nope`"), "{e}");
    // Truncations anywhere: an error, never a panic.
    for cut in (0..b.len()).step_by(7) {
        let _ = visa_emu::abi::patch_tokens::decode_bin(&b[..cut], "saxpy", 32);
    }
    let len = b.len();
    for i in (0..len).step_by(5) {
        b[i] ^= 0xff;
        let _ = visa_emu::abi::patch_tokens::decode_bin(&b, "saxpy", 32);
        b[i] ^= 0xff;
    }
}
