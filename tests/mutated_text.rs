//! A few thousand mutated corpus `.visaasm` files: the parser returns a result (an
//! error with a line and column, or a program) and never panics.

use visa_emu::corpus::paths::{default_corpus_dir, variant_dirs};
use visa_emu::decode::text::parse_visaasm;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut b: Vec<u8> = text.as_bytes().to_vec();
    const TOKENS: &[&[u8]] = &[
        b"(",
        b")",
        b"<",
        b">",
        b"[",
        b"]",
        b":",
        b",",
        b";",
        b".",
        b"0x",
        b"-",
        b"%",
        b"V9999",
        b"\n",
        b"\"",
        b"999999999999999999999",
    ];
    for _ in 0..1 + rng.below(8) {
        if b.is_empty() {
            break;
        }
        let at = rng.below(b.len());
        match rng.below(4) {
            0 => {
                b.remove(at);
            }
            1 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                b.splice(at..at, t.iter().copied());
            }
            2 => b.truncate(at),
            _ => {
                let len = rng.below(40).min(b.len() - at);
                b.drain(at..at + len);
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

#[test]
fn mutated_corpus_text_never_panics() {
    let dirs = variant_dirs(&default_corpus_dir()).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut errors = 0;
    let mut runs = 0;
    for round in 0..25 {
        for d in dirs.iter().skip(round % 3).step_by(3) {
            let text = std::fs::read_to_string(d.join("kernel.visaasm")).unwrap();
            let m = mutate(&text, &mut rng);
            runs += 1;
            match parse_visaasm(&m, 32) {
                Err(e) => {
                    errors += 1;
                    assert!(e.line <= m.lines().count() + 1, "{e}");
                    assert!(!e.expected.is_empty());
                }
                // What parses prints back to text that parses to the same program
                // (the fuzz target's property; it found `<hs>` printed as `<,hs>`).
                Ok(p) => {
                    let printed = visa_emu::print::print_program(&p);
                    let q = parse_visaasm(&printed, 32)
                        .unwrap_or_else(|e| panic!("printed text does not parse: {e}"));
                    assert_eq!(p, q);
                }
            }
        }
    }
    assert!(runs > 1000, "{runs}");
    // The fuzzer's find: a source region in the `<hs>` form.
    let text = std::fs::read_to_string(dirs[0].join("kernel.visaasm")).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("<1;1,0>") && !l.trim_start().starts_with("//"))
        .expect("a source region");
    let m = text.replacen(line, &line.replacen("<1;1,0>", "<1>", 1), 1);
    let p = parse_visaasm(&m, 32).expect("`<hs>` source regions parse");
    let printed = visa_emu::print::print_program(&p);
    assert_eq!(
        parse_visaasm(&printed, 32).expect("printed `<hs>` parses"),
        p
    );
    // A destination written with a full region keeps its horizontal stride only, as
    // the printer writes it (`<8;8,1>` is `<1>`).
    let dst_line = text
        .lines()
        .find(|l| l.trim_start().starts_with("mov (") && l.contains(")<1> "))
        .expect("a mov with a `<1>` destination");
    let m = text.replacen(dst_line, &dst_line.replacen(")<1> ", ")<8;8,1> ", 1), 1);
    assert_eq!(
        parse_visaasm(&m, 32).expect("a full destination region parses"),
        parse_visaasm(&text, 32).unwrap()
    );
    // Lines the printer could not write back, refused with their line: a string
    // attribute (name or value) with a stray quote, quoted names with a quote inside,
    // a subroutine name that is no label, a declared name no operand can spell.
    for bad in [
        ".kernel_attr Target=\"3d",
        ".kernel_attr Target=\"a\"b\"",
        ".kernel_attr Target=a\"b",
        ".kernel_attr Tar\"get=1",
        ".kernel_attr A\"B",
        ".funcdecl \"a\"b\"",
        ".function \"f \"g\"",
        ".function \"f g\"",
        ".decl T[6 v_type=T num_elts=1",
    ] {
        let m = format!("{text}\n{bad}\n");
        let e = parse_visaasm(&m, 32).expect_err(bad);
        assert_eq!(e.line, m.lines().count(), "{bad}: {e}");
    }
    assert!(
        errors > runs / 4,
        "most mutations should be rejected ({errors}/{runs})"
    );
}

/// The fuzzer's find (2026-11-25): a `.decl` whose key=value list holds a multi-byte
/// Unicode space (U+1680) once panicked, slicing inside the character. Every Unicode
/// space between the pairs now separates them like an ASCII one.
#[test]
fn unicode_spaces_in_declarations_never_panic() {
    for space in ['\u{1680}', '\u{2003}', '\u{3000}', '\u{a0}'] {
        let text = format!(
            ".version 4.1\n.kernel \"k\"\n\
             .decl V0032 v_type=G{space}type=ud num_elts=8 align=hword\n\
             .decl V0033{space}v_type=G type=ud{space}{space}num_elts=8 align=hword\n\
             .kernel_attr SimdSize=8\nmov (M1, 8) V0032(0,0)<1> V0033(0,0)<1;1,0>\nret (M1, 1)\n"
        );
        match parse_visaasm(&text, 32) {
            Ok(p) => {
                let printed = visa_emu::print::print_program(&p);
                assert_eq!(parse_visaasm(&printed, 32).expect("printed text parses"), p);
            }
            Err(e) => assert!(e.line >= 3, "{e}"),
        }
    }
}

/// The image instruction forms (`load_lz`, `sample_lz`/`sample_l`, `media_ld`/`media_st`,
/// `scatter4_typed`, LSC_TYPED's 2D blocks) mutated line by line in the own image cases
/// and tests/data: the parser never panics, and a program that still parses prepares
/// without a panic and prints to text that parses back to the same instructions.
#[test]
fn mutated_image_instructions_never_panic() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files: Vec<std::path::PathBuf> = [
        "image_rw",
        "image_sample",
        "image_block",
        "image_block_typed2d",
    ]
    .iter()
    .flat_map(|c| std::fs::read_dir(root.join("cases").join(c)).unwrap())
    .map(|e| e.unwrap().path().join("kernel.visaasm"))
    .filter(|p| p.exists())
    .collect();
    assert_eq!(files.len(), 14);
    files.push(root.join("data/sampler_read_tgllp.visaasm"));
    let forms = [
        "load_lz",
        "sample_l",
        "media_ld",
        "media_st",
        "scatter4_typed",
        "lsc_load_block2d.tgm",
        "lsc_store_block2d.tgm",
    ];
    let mut rng = Rng(0x51ed_270b_2f3c_44a1);
    let (mut runs, mut errors) = (0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let targets: Vec<usize> = (0..lines.len())
            .filter(|&i| forms.iter().any(|m| lines[i].trim_start().starts_with(m)))
            .collect();
        assert!(!targets.is_empty(), "{}", f.display());
        for _ in 0..150 {
            let at = targets[rng.below(targets.len())];
            let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
            l[at] = mutate(&l[at], &mut rng);
            let m = l.join("\n");
            runs += 1;
            match parse_visaasm(&m, 32) {
                Err(e) => {
                    errors += 1;
                    assert!(e.line <= m.lines().count() + 1, "{e}");
                }
                Ok(p) => {
                    if let Some(k) = p.kernels.first() {
                        let _ = visa_emu::interp::prepare(&p, &k.name);
                    }
                    // What parses prints and parses back to the same program.
                    let back = parse_visaasm(&visa_emu::print::print_program(&p), 32)
                        .unwrap_or_else(|e| panic!("{}: {e}\n{}", f.display(), l[at]));
                    assert_eq!(
                        back.kernels[0].body,
                        p.kernels[0].body,
                        "{}: {}",
                        f.display(),
                        l[at]
                    );
                }
            }
        }
    }
    assert!(runs >= 1000 && errors > runs / 4, "{errors}/{runs}");
}
