//! The case model reads every corpus case (and the project's own cases) completely and
//! consistently, and the comparison finds a planted mismatch at its element.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use visa_emu::corpus::case::{compare, Case, Dtype, ToleranceKind};
use visa_emu::corpus::paths::{default_corpus_dir, variant_dirs};

fn case_dirs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let own = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    for root in [default_corpus_dir(), own] {
        for e in std::fs::read_dir(&root).unwrap() {
            let p = e.unwrap().path();
            if p.join("case.json").exists() {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_case_loads_with_consistent_arguments_files_and_variants() {
    let dirs = case_dirs();
    assert!(dirs.len() >= 47, "{} cases", dirs.len());
    let mut kinds = BTreeSet::new();
    for d in &dirs {
        let c = Case::load(d).unwrap_or_else(|e| panic!("{e}"));
        let at = d.display();
        assert!(!c.kernel.is_empty(), "{at}");
        // Arguments are numbered 0.. in order.
        let idx: Vec<u32> = c.args.iter().map(|a| a.index).collect();
        assert_eq!(idx, (0..c.args.len() as u32).collect::<Vec<_>>(), "{at}");
        for a in &c.args {
            kinds.insert(a.kind.clone());
            match a.kind.as_str() {
                "buffer" => {
                    let dtype = Dtype::parse(a.dtype.as_deref().unwrap()).unwrap();
                    let bytes = c.input_bytes(a).unwrap_or_else(|e| panic!("{at}: {e}"));
                    assert_eq!(
                        bytes.len() as u64,
                        a.count.unwrap() * dtype.size() as u64,
                        "{at} {}",
                        a.name
                    );
                }
                "scalar" => {
                    let b = c.scalar_bytes(a).unwrap_or_else(|e| panic!("{at}: {e}"));
                    match a.dtype.as_deref().and_then(Dtype::parse) {
                        Some(dt) => assert_eq!(b.len(), dt.size(), "{at} {}", a.name),
                        None => assert_eq!(Some(b.len() as u64), a.size, "{at} {}", a.name),
                    }
                }
                "local" => assert!(c.local_bytes(a).unwrap() > 0, "{at}"),
                // An image's texels fill its file exactly (shape and format from `image`).
                "image" => {
                    let d = c.image_desc(a).unwrap_or_else(|e| panic!("{at}: {e}"));
                    let bytes = c.input_bytes(a).unwrap_or_else(|e| panic!("{at}: {e}"));
                    assert_eq!(bytes.len() as u64, d.bytes(), "{at} {}", a.name);
                }
                // A sampler: the CLK_* bits a host passes, a state the driver can build.
                "sampler" => {
                    let clk = a.value.as_ref().and_then(|v| v.as_u64()).unwrap();
                    visa_emu::abi::image::SamplerState::from_clk(clk)
                        .unwrap_or_else(|e| panic!("{at}: {e}"));
                }
                other => panic!("{at}: argument kind {other}"),
            }
        }
        // NDRange: one size per dimension; uniform unless built for OpenCL 2.0 or later
        // (non-uniform work-groups).
        let nd = &c.ndrange;
        assert!((1..=3).contains(&nd.work_dim), "{at}");
        assert_eq!(nd.global_size.len(), nd.work_dim as usize, "{at}");
        assert_eq!(nd.local_size.len(), nd.work_dim as usize, "{at}");
        let opts = c.ocloc_options.as_deref().unwrap_or("");
        let cl2 = opts.contains("-cl-std=CL2") || opts.contains("-cl-std=CL3");
        for (g, l) in nd.global_size.iter().zip(&nd.local_size) {
            assert!(*l > 0 && (cl2 || g % l == 0), "{at}: {g} / {l}");
        }
        // Outputs: a buffer or image argument marked as output, expected file of `count` elements.
        assert!(!c.outputs.is_empty(), "{at}");
        for o in &c.outputs {
            let a = c.output_arg(o).unwrap();
            assert!(a.is_output, "{at} {}", o.arg);
            let want = c.expected(o).unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(want.len() as u64, o.count * o.dtype.size() as u64);
            if o.tolerance.kind == ToleranceKind::Ulp {
                assert!(o.tolerance.check_ulp.or(o.tolerance.ulp).is_some(), "{at}");
            }
        }
        // Every variant the case lists exists, and every compiled folder is listed.
        let listed: BTreeSet<PathBuf> = c.variant_dirs().into_iter().collect();
        assert!(!listed.is_empty(), "{at}");
        for v in &c.variants {
            assert!(
                v.dir.ends_with(&format!("simd{}", v.simd)),
                "{at} {}",
                v.dir
            );
            assert!(v.dir.starts_with(&v.device), "{at} {}", v.dir);
        }
        for v in &listed {
            assert!(v.join("kernel.visaasm").exists(), "{}", v.display());
        }
        let on_disk: BTreeSet<PathBuf> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("kernel.visaasm").exists())
            .collect();
        assert_eq!(listed, on_disk, "{at}");
    }
    assert_eq!(
        kinds,
        BTreeSet::from([
            "buffer".into(),
            "image".into(),
            "local".into(),
            "sampler".into(),
            "scalar".into()
        ])
    );
    assert_eq!(variant_dirs(&default_corpus_dir()).unwrap().len(), 148);
}

#[test]
fn struct_argument_fields_decode_from_bytes_hex() {
    let c = Case::load(&default_corpus_dir().join("struct_arg_by_value")).unwrap();
    let p = c.arg("p").unwrap();
    let b = c.scalar_bytes(p).unwrap();
    assert_eq!(b.len(), 48);
    let f32_of = |x: &[u8]| f32::from_le_bytes(x.try_into().unwrap());
    assert_eq!(f32_of(c.struct_field(p, "scale", &b).unwrap()), 1.5);
    assert_eq!(c.struct_field(p, "c", &b).unwrap(), &[(-5i8) as u8]);
    let v = c.struct_field(p, "v", &b).unwrap();
    assert_eq!(v.len(), 16);
    assert_eq!(f32_of(&v[4..8]), 2.0);
    let n = c.struct_field(p, "n", &b).unwrap();
    assert_eq!(u32::from_le_bytes(n.try_into().unwrap()), 1000);
    assert!(c.struct_field(p, "nope", &b).is_none());
}

#[test]
fn expected_outputs_match_themselves_and_a_planted_error_is_found() {
    let mut checked = 0;
    for d in case_dirs() {
        let c = Case::load(&d).unwrap();
        for o in &c.outputs {
            let want = c.expected(o).unwrap();
            compare(&o.dtype, &o.tolerance, &want, &want)
                .unwrap_or_else(|m| panic!("{} {}: {m:?}", d.display(), o.arg));
            let size = o.dtype.size();
            let n = want.len() / size;
            if n == 0 {
                continue;
            }
            // Flip the top bit of the exponent/magnitude (the high byte's bit 6) of a
            // middle element: far outside any tolerance unless it makes a NaN-for-NaN.
            let k = n / 2;
            let mut got = want.clone();
            got[k * size + size - 1] ^= 0x40;
            let elem = &want[k * size..(k + 1) * size];
            let is_nan = match o.dtype {
                Dtype::Float32 => f32::from_le_bytes(elem.try_into().unwrap()).is_nan(),
                Dtype::Float64 => f64::from_le_bytes(elem.try_into().unwrap()).is_nan(),
                Dtype::Float16 => half::f16::from_le_bytes(elem.try_into().unwrap()).is_nan(),
                _ => false,
            };
            let r = compare(&o.dtype, &o.tolerance, &got, &want);
            if !is_nan {
                let m = r.expect_err(&format!("{} {}", d.display(), o.arg));
                assert_eq!(m.index, k, "{} {}", d.display(), o.arg);
                assert_ne!(m.got, m.expected);
            }
            // A short result is reported where it ends.
            let m = compare(&o.dtype, &o.tolerance, &want[..k * size], &want).unwrap_err();
            assert_eq!(m.index, k);
            checked += 1;
        }
    }
    assert!(checked >= 170, "{checked}");
}

#[test]
fn missing_or_broken_case_files_are_clear_errors() {
    let e = Case::load(Path::new("/nonexistent/case")).unwrap_err();
    assert!(e.to_string().contains("case.json"), "{e}");
    let dir = std::env::temp_dir().join(format!("visa-emu-case-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("case.json"), "{\"kernel\": \"k\",\n \"args\": 3}").unwrap();
    let e = Case::load(&dir).unwrap_err();
    assert!(e.to_string().contains("line 2"), "{e}");
    std::fs::write(
        dir.join("case.json"),
        r#"{"kernel": "k", "args": [{"index": 0, "name": "s", "kind": "scalar", "bytes_hex": "0g"}],
            "ndrange": {"work_dim": 1, "global_size": [1], "local_size": [1]},
            "outputs": [{"arg": "s", "file": "x", "dtype": "float128", "count": 1,
                         "tolerance": {"type": "exact"}}]}"#,
    )
    .unwrap();
    let e = Case::load(&dir).unwrap_err();
    assert!(e.to_string().contains("float128"), "{e}");
    std::fs::write(
        dir.join("case.json"),
        r#"{"kernel": "k", "args": [{"index": 0, "name": "s", "kind": "scalar", "bytes_hex": "0g"}],
            "ndrange": {"work_dim": 1, "global_size": [1], "local_size": [1]}, "outputs": []}"#,
    )
    .unwrap();
    let c = Case::load(&dir).unwrap();
    let e = c.scalar_bytes(&c.args[0]).unwrap_err();
    assert!(e.to_string().contains("character 0"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
