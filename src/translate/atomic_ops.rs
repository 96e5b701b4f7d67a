//! Only the atomic operations a kernel uses in its module's runtime.
//!
//! `atomic_apply` (and `atomic_float`, its float half) switch on the operation's code,
//! which the kernel's calls pass as literals. Mesa inlines the whole switch at every
//! call site before it folds the literal, and the float arms pull the f64 min/max and
//! add (soft doubles where 64-bit types are emulated): atomic_64bit_carry emulated took
//! llvmpipe more than 400 s to compile with them, 0.3 s without. So each emitted atomic
//! carries a [`MARK`] comment with its code and the module keeps only those arms.
//! The mark also gives the width: a module whose float atomics are all 32-bit keeps
//! only `atomic_float32` (the bits and native f32), not the f64 form of the other
//! widths, which with 64-bit types emulated is soft doubles at every call site.

use std::collections::BTreeSet;

/// The comment before each atomic call in the kernel's code, followed by its code.
pub const MARK: &str = "// atomic op ";

/// The functions whose `case` arms are filtered (one arm per line in runtime.wgsl).
const SWITCHES: [&str; 3] = [
    "fn atomic_apply(",
    "fn atomic_float32(",
    "fn atomic_float_wide(",
];

/// The runtime's float-atomic dispatch, one line so that it can be swapped.
const FLOAT_BY_WIDTH: &str = "fn atomic_float(op: u32, old: u64, s0: u64, s1: u64, bits: u32) -> AtomicNew { if (bits == 32u) { return atomic_float32(op, u32(old), u32(s0), u32(s1)); } return atomic_float_wide(op, old, s0, s1, bits); }";
/// [`FLOAT_BY_WIDTH`] where every float atomic of the kernel is 32-bit.
const FLOAT_32_ONLY: &str = "fn atomic_float(op: u32, old: u64, s0: u64, s1: u64, bits: u32) -> AtomicNew { return atomic_float32(op, u32(old), u32(s0), u32(s1)); }";

/// The line [`MARK`] writes for the atomic `code` on `bytes`-byte elements.
pub fn mark(code: u32, bytes: u32) -> String {
    format!("{MARK}{code} bytes {bytes}")
}

/// The (code, bytes) of every mark in `kernel`.
fn marks(kernel: &str) -> impl Iterator<Item = (u32, u32)> + '_ {
    kernel.match_indices(MARK).filter_map(|(i, _)| {
        let rest = &kernel[i + MARK.len()..];
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        let (code, bytes) = line.split_once(" bytes ")?;
        Some((code.parse().ok()?, bytes.trim().parse().ok()?))
    })
}

/// Whether `kernel` marks a float atomic (codes 14-18) on other than 4-byte elements.
fn wide_floats(kernel: &str) -> bool {
    marks(kernel).any(|(code, bytes)| (14..=18).contains(&code) && bytes != 4)
}

/// `runtime` for `kernel`: only the atomic operations it marks ([`only_used`]), and
/// the float atomics' f64 form only where it has a float atomic wider or narrower than
/// 32 bits.
pub fn for_kernel(runtime: &str, kernel: &str) -> String {
    let s = only_used(runtime, &used_codes(kernel));
    if wide_floats(kernel) {
        s
    } else {
        s.replacen(FLOAT_BY_WIDTH, FLOAT_32_ONLY, 1)
    }
}

/// The codes `kernel` marks.
pub fn used_codes(kernel: &str) -> BTreeSet<u32> {
    marks(kernel).map(|(code, _)| code).collect()
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
        let kernel = format!("{}\nmem_atomic(0u);\n{}\n", mark(13, 4), mark(0, 8));
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

    #[test]
    fn the_f64_float_form_stays_only_for_other_widths() {
        let runtime = crate::translate::RUNTIME;
        assert!(runtime.contains(FLOAT_BY_WIDTH));
        let f32_only = for_kernel(runtime, &format!("  {}\n  {}\n", mark(17, 4), mark(0, 8)));
        assert!(f32_only.contains(FLOAT_32_ONLY));
        assert!(!f32_only.contains(FLOAT_BY_WIDTH));
        let wide = for_kernel(runtime, &format!("  {}\n  {}\n", mark(17, 4), mark(14, 2)));
        assert!(wide.contains(FLOAT_BY_WIDTH));
        // Integer atomics of any width leave the float form alone.
        assert!(!wide_floats(&mark(0, 8)));
    }
}
