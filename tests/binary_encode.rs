//! The binary encoder and decoder against each other and against IGC: every kernel of
//! the corpus and the own cases (their stack functions included), encoded, decodes to
//! the program its text parses to; the bytes IGC wrote where its `.isa` is complete
//! (symbol tables, the first instruction's opcode, execution size, predicate and
//! destination) are the bytes the encoder writes; mutated encodings never panic.

mod common;

use std::path::{Path, PathBuf};
use visa_emu::cli::load_file;
use visa_emu::corpus::paths::{default_corpus_dir, grf_bytes_of_device, variant_dirs};
use visa_emu::decode::binary::{decode_isa, decode_isa_symbols};
use visa_emu::encode::{callee_table, encode_isa};
use visa_emu::ir::*;

fn all_variants() -> Vec<PathBuf> {
    let own = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut v = variant_dirs(&default_corpus_dir()).unwrap();
    v.extend(variant_dirs(&own).unwrap());
    assert!(v.len() > 200, "{} variants", v.len());
    v
}

fn grf_of(d: &Path) -> u32 {
    grf_bytes_of_device(&d.file_name().unwrap().to_string_lossy())
}

/// What decoding gives back: each object declares every function it names (the binary
/// keeps one function table per object).
fn expected(mut p: Program) -> Program {
    for o in p.kernels.iter_mut().chain(p.functions.iter_mut()) {
        o.func_decls = callee_table(o);
    }
    p
}

#[test]
fn every_kernel_encodes_and_decodes_back() {
    let mut failures = Vec::new();
    let mut instructions = 0;
    let mut functions = 0;
    for d in all_variants() {
        let grf = grf_of(&d);
        let p = load_file(&d.join("kernel.visaasm"), grf).unwrap();
        let bytes = match encode_isa(&p) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{}: {e}", d.display()));
                continue;
            }
        };
        let back = match decode_isa(&bytes, grf) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{}: {e}", d.display()));
                continue;
            }
        };
        let want = expected(p);
        if back != want {
            let pairs = want
                .kernels
                .iter()
                .chain(&want.functions)
                .zip(back.kernels.iter().chain(&back.functions));
            let mut why = format!(
                "{} kernels / {} functions back, {} / {} expected",
                back.kernels.len(),
                back.functions.len(),
                want.kernels.len(),
                want.functions.len()
            );
            for (w, b) in pairs {
                if let Some(i) = (0..w.body.len()).find(|&i| w.body.get(i) != b.body.get(i)) {
                    why = format!(
                        "{}: instruction {i}: {:?} decoded as {:?}",
                        w.name,
                        w.body[i],
                        b.body.get(i)
                    );
                    break;
                }
                if w != b {
                    why = format!("{}: symbol tables, attributes or sizes differ", w.name);
                    break;
                }
            }
            failures.push(format!("{}: {why}", d.display()));
            continue;
        }
        instructions += want
            .kernels
            .iter()
            .chain(&want.functions)
            .map(|k| k.body.len())
            .sum::<usize>();
        functions += want.functions.len();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        instructions > 20_000 && functions >= 16,
        "{instructions} {functions}"
    );
}

/// IGC's `.isa` files hold complete headers and symbol tables: the encoder writes the
/// same symbol tables (decoded side by side: the string pools' order may differ) and
/// the same header shape (kernel count, function names in the same order).
#[test]
fn encoded_symbol_tables_match_igcs() {
    // Patched own cases have text only.
    for d in all_variants()
        .into_iter()
        .filter(|d| d.join("kernel.isa").exists())
    {
        let grf = grf_of(&d);
        let p = load_file(&d.join("kernel.visaasm"), grf).unwrap();
        let igc = decode_isa_symbols(&std::fs::read(d.join("kernel.isa")).unwrap(), grf)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        let ours = decode_isa_symbols(&encode_isa(&p).unwrap(), grf).unwrap();
        assert_eq!(igc.kernels.len(), ours.kernels.len(), "{}", d.display());
        let names = |p: &Program| {
            p.functions
                .iter()
                .map(|f| f.name.clone())
                .collect::<Vec<_>>()
        };
        // IGC lists stack functions (`stack_calls`), not indirectly called ones
        // (`indirect_calls`: its functions come from their own dumps).
        if !igc.functions.is_empty() {
            assert_eq!(names(&igc), names(&ours), "{}", d.display());
        }
        for (a, b) in igc
            .kernels
            .iter()
            .chain(&igc.functions)
            .zip(ours.kernels.iter().chain(&ours.functions))
        {
            let what = format!("{} `{}`", d.display(), a.name);
            let shape = |k: &Kernel| {
                (
                    k.vars
                        .iter()
                        .map(|v| (v.ty, v.align, v.num_elements, v.alias))
                        .collect::<Vec<_>>(),
                    k.addrs.iter().map(|v| v.num_elements).collect::<Vec<_>>(),
                    k.preds.len(),
                    k.labels.len(),
                    k.samplers.len(),
                    k.surfaces.len(),
                    k.inputs.clone(),
                    (k.arg_size, k.ret_size),
                )
            };
            assert_eq!(shape(a), shape(b), "{what}");
            assert_eq!(a.simd_size(), b.simd_size(), "{what}");
        }
    }
}

/// Where IGC's stream starts, its first two instructions are whole up to the second's
/// destination (saxpy at 0x45e: `_main_0:`, then `or (M1_NM, 1) %cr0(0,0)<1> ...`):
/// the encoder writes those 16 bytes identically, so the label instruction, opcode,
/// execution size, predicate and the general operand's layout (tag, 4-byte id, row,
/// column, region word) are IGC's.
#[test]
fn first_instructions_match_igcs_bytes() {
    let d = default_corpus_dir().join("saxpy/tgllp-simd16");
    let igc = std::fs::read(d.join("kernel.isa")).unwrap();
    let p = load_file(&d.join("kernel.visaasm"), 32).unwrap();
    assert_eq!(p.kernels[0].body[1].op, visa_emu::isa::Opcode::Or);
    let ours = encode_isa(&p).unwrap();
    let prefix = &igc[0x45e..0x45e + 16];
    assert_eq!(
        &prefix[..4],
        &[0x30, 0, 0, 0x21],
        "IGC's SUBROUTINE _main_0, OR"
    );
    let at = ours.windows(4).position(|w| w == &prefix[..4]);
    assert!(
        ours.windows(16).any(|w| w == prefix),
        "IGC's {prefix:02x?} not in the encoding: {:02x?}",
        at.map(|a| &ours[a..a + 16])
    );
}

/// Thousands of mutated and truncated encodings (complete instruction streams, unlike
/// the corpus' files): the decoder returns an error inside the input or a program, and
/// never panics.
#[test]
fn mutated_encodings_never_panic() {
    let mut next = common::xorshift(0x9e37_79b9_7f4a_7c15);
    let dirs = all_variants();
    let encoded: Vec<(Vec<u8>, u32)> = dirs
        .iter()
        .step_by(5)
        .map(|d| {
            let grf = grf_of(d);
            (
                encode_isa(&load_file(&d.join("kernel.visaasm"), grf).unwrap()).unwrap(),
                grf,
            )
        })
        .collect();
    let mut runs = 0;
    let mut decoded = 0;
    for round in 0..90 {
        for (orig, grf) in encoded.iter().skip(round % 3).step_by(3) {
            let mut b = orig.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % b.len();
                match next() % 4 {
                    0 => b[at] = next() as u8,
                    1 => b.truncate(at.max(1)),
                    2 => b[at] ^= 1 << (next() % 8),
                    _ => b[at] = 0xff,
                }
            }
            runs += 1;
            match decode_isa(&b, *grf) {
                Ok(_) => decoded += 1,
                Err(e) => {
                    assert!(e.offset <= b.len(), "{e}");
                    assert!(!e.message.is_empty());
                }
            }
        }
    }
    assert!(runs > 1000, "{runs}");
    // Some mutations land in names or values and still decode; most must not.
    assert!(decoded < runs, "{decoded} of {runs}");
}

/// What the binary cannot hold is an error naming the object, the instruction and the
/// field; a lone function encodes (no kernel) and decodes back.
#[test]
fn what_the_binary_cannot_hold_is_an_error_naming_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let f2 = root.join("tests/cases/stack_calls/tgllp-simd8/kernel_f2.visaasm");
    let lone = load_file(&f2, 32).unwrap();
    let back = decode_isa(&encode_isa(&lone).unwrap(), 32).unwrap();
    assert_eq!((back.kernels.len(), back.functions.len()), (0, 1));
    assert_eq!(back.functions[0].body, lone.functions[0].body);

    let saxpy = || {
        load_file(
            &default_corpus_dir().join("saxpy/tgllp-simd16/kernel.visaasm"),
            32,
        )
        .unwrap()
    };
    let mut p = saxpy();
    p.kernels[0].attributes.push(Attribute {
        name: "Flavor".into(),
        value: AttrValue::Str("abc".into()),
    });
    let e = encode_isa(&p).unwrap_err();
    assert!(
        e.object.contains("saxpy") && e.message.contains("Flavor"),
        "{e}"
    );

    let mut p = saxpy();
    p.version = (3, 6);
    assert!(encode_isa(&p).unwrap_err().message.contains("3.6"));

    let mut p = saxpy();
    let mut f = p.kernels[0].clone();
    f.kind = ObjectKind::Function;
    f.inputs.clear();
    p.functions = vec![f.clone(), f];
    let e = encode_isa(&p).unwrap_err();
    assert!(e.message.contains("second function"), "{e}");

    // LSC_TYPED coordinate offsets (`[U+1,V,R]` in text) have no field in the binary.
    let typed = root.join("tests/cases/image_lsc_typed/acm-g10-simd8/kernel.visaasm");
    let mut p = load_file(&typed, 32).unwrap();
    let (n, inst) = p.kernels[0]
        .body
        .iter_mut()
        .enumerate()
        .find(|(_, i)| i.op == visa_emu::isa::Opcode::LscTyped)
        .expect("an LSC_TYPED message");
    let r_offset = visa_emu::isa::table::info(visa_emu::isa::Opcode::LscTyped)
        .index_of("Src0AddrsROffset")
        .unwrap();
    inst.fields[r_offset] = Field::Int(1);
    let e = encode_isa(&p).unwrap_err();
    assert!(
        e.object.contains(&format!("instruction {n} (LSC_TYPED)"))
            && e.message.contains("Src0AddrsROffset"),
        "{e}"
    );
}
