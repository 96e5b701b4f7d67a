//! `visa-emu conformance`: discover case folders (the corpus layout), run every compiled
//! variant on a backend in parallel, print one line per variant and a summary.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Every variant folder (`CASE/DEVICE-simdN` with a kernel) under the given paths. A
/// path may be a variant folder, a case folder (with `case.json`) or a folder of cases.
pub fn discover(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if is_variant(p) {
            out.push(p.clone());
        } else if p.join("case.json").exists() {
            out.extend(variants_of(p)?);
        } else {
            let entries = std::fs::read_dir(p).map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!(
                        "{}: not a variant folder, a case folder or a folder of cases ({e})",
                        p.display()
                    ),
                )
            })?;
            let mut cases: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|c| c.join("case.json").exists())
                .collect();
            cases.sort();
            for c in cases {
                out.extend(variants_of(&c)?);
            }
        }
    }
    Ok(out)
}

fn is_variant(p: &Path) -> bool {
    p.join("kernel.bin").exists()
        && (p.join("kernel.isa").exists() || p.join("kernel.visaasm").exists())
}

fn variants_of(case: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(case)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_variant(p))
        .collect();
    v.sort();
    Ok(v)
}

/// `case/variant` for display.
pub fn variant_name(v: &Path) -> String {
    let case = v
        .parent()
        .and_then(|p| p.file_name())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let var = v
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{case}/{var}")
}

/// A documented disagreement between a variant's expected output and its vISA.
#[derive(Clone, Debug)]
pub struct Known {
    pub variant: String,
    pub mismatch: String,
    pub reason: String,
}

/// Parse a known-disagreements file: `variant | mismatch prefix | reason` per line,
/// `#` comments.
pub fn parse_known(text: &str) -> Result<Vec<Known>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = l.splitn(3, '|').map(str::trim).collect();
        let [variant, mismatch, reason] = parts[..] else {
            return Err(format!(
                "line {}: expected `variant | mismatch | reason`",
                i + 1
            ));
        };
        out.push(Known {
            variant: variant.to_string(),
            mismatch: mismatch.to_string(),
            reason: reason.to_string(),
        });
    }
    Ok(out)
}

/// The known disagreement that explains this failure, if any: same variant and the
/// report starts with the recorded mismatch (so any other failure still fails).
pub fn explained<'a>(known: &'a [Known], o: &Outcome) -> Option<&'a Known> {
    let err = o.result.as_ref().err()?;
    known
        .iter()
        .find(|k| k.variant == o.name && err.starts_with(&k.mismatch))
}

/// The outcome of one variant.
#[derive(Debug)]
pub struct Outcome {
    pub name: String,
    /// `Ok(detail)` on pass (e.g. timing), `Err(first mismatch or error)` on failure.
    pub result: Result<String, String>,
}

/// Run `run` on every variant with `jobs` worker threads, calling `report` as each one
/// finishes (in completion order), and return the outcomes in input order.
pub fn run_parallel<F, R>(variants: &[PathBuf], jobs: usize, run: F, report: R) -> Vec<Outcome>
where
    F: Fn(&Path) -> Result<String, String> + Sync,
    R: Fn(&Outcome) + Sync,
{
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Outcome>>> =
        Mutex::new((0..variants.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1).min(variants.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(v) = variants.get(i) else { break };
                // A panic in one variant is a failure of that variant, not of the run.
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(v)))
                    .unwrap_or_else(|p| {
                        let msg = p
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        Err(format!("internal error (panic): {msg}"))
                    });
                let o = Outcome {
                    name: variant_name(v),
                    result,
                };
                report(&o);
                if let Ok(mut r) = results.lock() {
                    r[i] = Some(o);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// One line per outcome, as printed.
pub fn line(o: &Outcome) -> String {
    match &o.result {
        Ok(d) if d.is_empty() => format!("PASS {}", o.name),
        Ok(d) => format!("PASS {}  {d}", o.name),
        Err(e) => format!("FAIL {}  {e}", o.name),
    }
}

/// The closing line: `N passed, M failed`; known disagreements count in neither.
pub fn summary(outcomes: &[Outcome], known: &[Known]) -> String {
    let passed = outcomes.iter().filter(|o| o.result.is_ok()).count();
    let explained = outcomes
        .iter()
        .filter(|o| explained(known, o).is_some())
        .count();
    format!(
        "{} passed, {} failed",
        passed,
        outcomes.len() - passed - explained
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovers_every_corpus_variant() {
        let root = crate::corpus::paths::default_corpus_dir();
        let v = discover(std::slice::from_ref(&root)).unwrap();
        assert_eq!(v.len(), 148, "the corpus README announces 148 variants");
        let one_case = discover(&[root.join("saxpy")]).unwrap();
        assert_eq!(one_case.len(), 6);
        assert_eq!(variant_name(&one_case[0]), "saxpy/acm-g10-simd16");
    }

    #[test]
    fn parallel_runner_keeps_order_and_catches_panics() {
        let vs: Vec<PathBuf> = (0..7).map(|i| PathBuf::from(format!("c/v{i}"))).collect();
        let out = run_parallel(
            &vs,
            3,
            |p| {
                if p.ends_with("v3") {
                    panic!("boom")
                } else if p.ends_with("v5") {
                    Err("mismatch".into())
                } else {
                    Ok(String::new())
                }
            },
            |_| {},
        );
        assert_eq!(out.len(), 7);
        assert_eq!(out[2].name, "c/v2");
        assert!(out[3].result.as_ref().unwrap_err().contains("boom"));
        assert_eq!(summary(&out, &[]), "5 passed, 2 failed");
        let known = parse_known("# c\nc/v5 | mismatch | why\n").unwrap();
        assert_eq!(summary(&out, &known), "5 passed, 1 failed");
        assert!(explained(&known, &out[3]).is_none());
        assert!(parse_known("only | two").is_err());
    }
}
