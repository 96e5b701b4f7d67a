//! Only the atomic operations a kernel uses in its module's runtime.
//!
//! `atomic_apply` (and `atomic_float`, its float half) switch on the operation's code,
//! which the kernel's calls pass as literals. Mesa inlines the whole switch at every
//! call site before it folds the literal, and the float arms pull the f64 min/max and
//! add (soft doubles where 64-bit types are emulated): atomic_64bit_carry emulated took
//! llvmpipe more than 400 s to compile with them, 0.3 s without. So each emitted atomic
//! carries a [`MARK`] comment with its code and the module keeps only those arms.

use std::collections::BTreeSet;

/// The comment before each atomic call in the kernel's code, followed by its code.
pub const MARK: &str = "// atomic op ";

/// The functions whose `case` arms are filtered (one arm per line in runtime.wgsl).
const SWITCHES: [&str; 2] = ["fn atomic_apply(", "fn atomic_float("];

/// The line [`MARK`] writes for `code`.
pub fn mark(code: u32) -> String {
    format!("{MARK}{code}")
}

/// The codes `kernel` marks.
pub fn used_codes(kernel: &str) -> BTreeSet<u32> {
    kernel
        .match_indices(MARK)
        .filter_map(|(i, _)| {
            let rest = &kernel[i + MARK.len()..];
            let end = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            rest[..end].parse().ok()
        })
        .collect()
}

/// `runtime` with the `case` arms of [`SWITCHES`] whose codes are all outside `used`
/// dropped (their `default` arm stays; it leaves memory unchanged).
pub fn only_used(runtime: &str, used: &BTreeSet<u32>) -> String {
    let mut out = String::with_capacity(runtime.len());
    let mut inside = false;
    for line in runtime.split_inclusive('\n') {
        if SWITCHES.iter().any(|f| line.starts_with(f)) {
            inside = true;
        } else if inside && line.starts_with('}') {
            inside = false;
        }
        if inside && !arm_is_used(line, used) {
            continue;
        }
        out.push_str(line);
    }
    out
}

/// Whether `line` is not a one-line `case` arm, or one with a code in `used`.
fn arm_is_used(line: &str, used: &BTreeSet<u32>) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("case ") else {
        return true;
    };
    let Some(colon) = rest.find(':') else {
        return true;
    };
    rest[..colon]
        .split(',')
        .filter_map(|c| c.trim().trim_end_matches('u').parse::<u32>().ok())
        .any(|c| used.contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arms_of_unused_codes_are_dropped() {
        let runtime = "fn other() {\n    switch x {\n        case 7u: { a(); }\n    }\n}\n\
fn atomic_apply(op: u32) -> u32 {\n    switch op {\n        case 0u: { r = 1u; }\n\
        case 3u, 13u: { r = 2u; }\n        case 14u, 15u: { r = f(); }\n\
        default: { r = 9u; }\n    }\n}\nfn after() {\n        case 5u: { b(); }\n}\n";
        let kernel = format!("{}\nmem_atomic(0u);\n{}\n", mark(13), mark(0));
        let used = used_codes(&kernel);
        assert_eq!(used.iter().copied().collect::<Vec<_>>(), [0, 13]);
        let out = only_used(runtime, &used);
        assert!(out.contains("case 0u: { r = 1u; }"));
        assert!(out.contains("case 3u, 13u: { r = 2u; }"));
        assert!(!out.contains("case 14u, 15u"));
        assert!(out.contains("default: { r = 9u; }"));
        // Other functions keep every arm.
        assert!(out.contains("case 7u: { a(); }"));
        assert!(out.contains("case 5u: { b(); }"));
    }
}
