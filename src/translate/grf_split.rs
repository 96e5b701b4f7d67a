//! A straight module's GRF image split into the words it reaches at run time and
//! the words it names only by literal index.
//!
//! WGSL zero-initializes private variables; Mesa (22.3) writes a private array's
//! initializer out as one store per element, and lavapipe's `nir_opt_copy_prop_vars`
//! compares every access with each of them in every round of its optimization loop
//! (docs/design.md, "Private arrays' zero initializers"). The subgroup kernels keep
//! 700-2,000 words of image `g`, of which the lanes' meetings and the runtime's byte
//! accessors reach a few dozen at run time. Here, where every run-time index into `g`
//! has a range the text shows, the words those ranges cover stay in a small array `g`
//! (moved down by the span's first word) and every other word a literal names becomes
//! a private of its own (`g_N`). The forms read:
//! - `g[Cu + qK * Su]`: a meeting's loop over lanes (`qK` a lane number, under 32);
//! - `g[o >> 2u]` inside the accessors (`gb`, `gsb`, `g32`, `gs32`, `gld`, `gst`), whose
//!   calls elsewhere pass `Cu`, `Cu + i * Su`, `Cu + (i) * Su` or `Cu + Su * i` (`i`
//!   an element number, under 32), each reaching at most 8 bytes from its offset, or
//!   an indirect operand's address that the shader checks against a range first.
//!
//! Any other index into `g`, or call of an accessor, leaves the module as it is. The
//! rewrite is the last before the driver (`backend::gpu`'s `prune_for_pipeline`), so
//! the translator's own text passes all see the word-form image.

use super::literal::u32_literal;
use std::collections::BTreeSet;

/// The word-form image this rewrite splits.
const WORD_DECL: &str = "var<private> g: array<u32, K_GRF_QUADS * 4u>;";
/// The header of a straight module's `run_lane` (`local_registers::RUN_LANE`).
const STRAIGHT_MARK: &str = "\nfn run_lane(dm: u32) -> u32 {\n";
/// The runtime functions that index `g` with their offset argument `o`.
const ACCESSORS: [&str; 6] = ["gb", "gsb", "g32", "gs32", "gld", "gst"];
/// The widest run-time span kept as an array (words): any narrower than the image
/// makes fewer initializer stores; this bounds what a slip in the ranges could cost.
const SPAN_MAX: u32 = 4096;
/// Lanes and elements are numbered below this.
const LANES: u32 = 32;
/// The most bytes an accessor reaches from its offset (`gld`/`gst` of 8 bytes).
const REACH: u32 = 8;

/// An index into `g`: where it is in the text and what it reads.
struct Access {
    /// Byte range of `g[...]` in the text.
    span: (usize, usize),
    kind: Index,
}

enum Index {
    /// `g[Nu]`, or `g32(Cu)` with `C = 4 N`.
    Word(u32),
    /// `gld(Cu, nu)` within one word `N`: its bits from `shift`, `mask` wide, as u64.
    Part(u32, u32, &'static str),
    /// `gs32(Cu, V)` with `C = 4 N`: the word `N` set to `V`.
    Store(u32, String),
    /// Anything else, kept with its text (moved down by the span's first word).
    RunTime(String),
}

/// `wgsl` with its image split, where it is a straight module whose every run-time
/// index into `g` has a range the text shows; otherwise the text as it is.
pub fn split_image(wgsl: &str) -> String {
    if !wgsl.contains(STRAIGHT_MARK) || wgsl.matches(WORD_DECL).count() != 1 {
        return wgsl.to_string();
    }
    split(wgsl).unwrap_or_else(|| wgsl.to_string())
}

fn split(wgsl: &str) -> Option<String> {
    let indexed = indices(wgsl, "g")?;
    // A module that never names `g` is left as it is (naga drops the array).
    if indexed.is_empty() {
        return None;
    }
    let functions = super::prune::functions(wgsl)?;
    let in_accessor = |at: usize| {
        (functions.iter())
            .any(|f| (f.span.0..f.span.1).contains(&at) && ACCESSORS.contains(&f.name))
    };
    let decl_at = wgsl.find(WORD_DECL)?;
    // Words reached at run time, as half-open word ranges.
    let mut reached: Vec<(u32, u32)> = Vec::new();
    let mut accesses = Vec::new();
    for (s, e) in indexed {
        let inner = &wgsl[s + 2..e - 1];
        let kind = match u32_literal(inner) {
            Some(w) => Index::Word(w),
            None if inner == "o >> 2u" && in_accessor(s) => Index::RunTime(inner.to_string()),
            None => {
                let (c, stride) = lane_loop(inner)?;
                reached.push((c, c + (LANES - 1) * stride + 1));
                Index::RunTime(inner.to_string())
            }
        };
        accesses.push(Access { span: (s, e), kind });
    }
    // The accessors' calls from outside them.
    let checked = checked_ranges(wgsl);
    let image_words = grf_words(wgsl)?;
    // A whole word at a literal offset: the accessor's first path (offset a multiple
    // of 4, inside the image) is `g[o >> 2u]`, written here as that word (an accessor
    // call at word 16 made subgroup_reduce_scan_simd16 acm-g10's span most of its
    // image).
    let word = |o: &str| u32_literal(strip_parens(o)).filter(|c| c % 4 == 0 && c / 4 < image_words);
    // `gld`'s 1-, 2- and 4-byte paths within one word likewise (`gb`: the byte at
    // `o & 3`; the 2-byte path: the half at `o & 2`, `o` even).
    let part = |o: &str, n: &str| {
        let c = u32_literal(strip_parens(o)).filter(|c| c / 4 < image_words)?;
        let (mask, aligned) = match u32_literal(n)? {
            1 => ("0xffu", true),
            2 => ("0xffffu", c % 2 == 0),
            4 => ("0xffffffffu", c % 4 == 0),
            _ => return None,
        };
        aligned.then_some(Index::Part(c / 4, 8 * (c % 4), mask))
    };
    for f in ACCESSORS {
        for (s, e, args) in calls(wgsl, f) {
            if in_accessor(s) {
                continue;
            }
            let whole = match (f, args.as_slice()) {
                ("g32", [o]) => word(o).map(|c| Index::Word(c / 4)),
                ("gs32", [o, v]) => word(o).map(|c| Index::Store(c / 4, v.clone())),
                ("gld", [o, n]) => part(o, n),
                _ => None,
            };
            if let Some(kind) = whole {
                accesses.push(Access { span: (s, e), kind });
                continue;
            }
            let (lo, hi) = offset_range(args.first()?, &checked)?;
            reached.push((lo / 4, hi.div_ceil(4)));
        }
    }
    accesses.sort_by_key(|a| a.span.0);
    let span = match (
        reached.iter().map(|r| r.0).min(),
        reached.iter().map(|r| r.1).max(),
    ) {
        (Some(a), Some(b)) => (a, b),
        _ => (0, 0),
    };
    if span.1 - span.0 > SPAN_MAX {
        return None;
    }
    let inside = |w: u32| span.0 <= w && w < span.1;
    let own: BTreeSet<u32> = (accesses.iter())
        .filter_map(|a| match a.kind {
            Index::Word(w) | Index::Store(w, _) | Index::Part(w, ..) if !inside(w) => Some(w),
            _ => None,
        })
        .collect();
    let mut decl = String::new();
    if span.1 > span.0 {
        decl.push_str(&format!(
            "var<private> g: array<u32, {}u>; // GRF words {}-{} (grf_split.rs)\n",
            span.1 - span.0,
            span.0,
            span.1 - 1
        ));
    }
    for w in &own {
        decl.push_str(&format!("var<private> g_{w}: u32;\n"));
    }
    let edits: Vec<((usize, usize), String)> = (accesses.iter())
        .map(|a| {
            let word = |w: u32| match inside(w) {
                true => format!("g[{}u]", w - span.0),
                false => format!("g_{w}"),
            };
            let text = match &a.kind {
                Index::Word(w) => word(*w),
                Index::Store(w, v) => format!("{} = {v}", word(*w)),
                Index::Part(w, shift, mask) => format!("u64(({} >> {shift}u) & {mask})", word(*w)),
                Index::RunTime(inner) => format!("g[({inner}) - {}u]", span.0),
            };
            (a.span, text)
        })
        .collect();
    // A call whose arguments name the image again is left whole (edits overlap).
    let decl_span = (decl_at, decl_at + WORD_DECL.len() + 1);
    redeclared(wgsl, decl_span, &decl, &edits)
}

/// `text` with its declaration at `decl` (a line's byte span) replaced by `declared`
/// and each edit's span (in text order, all after the declaration, none overlapping
/// the next) by its text; `None` where they are not so.
pub(super) fn redeclared(
    text: &str,
    decl: (usize, usize),
    declared: &str,
    edits: &[((usize, usize), String)],
) -> Option<String> {
    let mut out = String::with_capacity(text.len() + declared.len());
    out.push_str(&text[..decl.0]);
    out.push_str(declared);
    let mut at = decl.1;
    for ((s, e), new) in edits {
        if *s < at {
            return None;
        }
        out.push_str(&text[at..*s]);
        out.push_str(new);
        at = *e;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// `Cu + qK * Su` (a meeting's loop over lanes) as `(C, S)`.
fn lane_loop(s: &str) -> Option<(u32, u32)> {
    let (c, rest) = s.split_once(" + q")?;
    let (k, stride) = rest.split_once(" * ")?;
    (!k.is_empty() && k.bytes().all(|c| c.is_ascii_digit()))
        .then(|| Some((u32_literal(c)?, u32_literal(stride)?)))
        .flatten()
}

/// The bytes an accessor call reaches from its offset argument: `Cu`, `Cu + i * Su`,
/// `Cu + (i) * Su` or `Cu + Su * i` (in parentheses or not), or an indirect operand's
/// address `u32(max(0, A))` whose every use the shader checks to lie in `[lo, hi)`
/// (`checked`: an address outside stops the straight run, `slow_at`, and the thread
/// mapping runs the launch; the access it still makes stays in the array's bounds,
/// as WGSL keeps every index).
fn offset_range(
    arg: &str,
    checked: &std::collections::HashMap<&str, (u32, u32)>,
) -> Option<(u32, u32)> {
    if let Some(a) = arg
        .trim()
        .strip_prefix("u32(max(0, ")
        .and_then(|x| x.strip_suffix("))"))
    {
        return checked.get(a).map(|&(lo, hi)| (lo, hi + REACH));
    }
    let (c, stride) = offset_form(arg)?;
    Some((c, c + (LANES - 1) * stride + REACH))
}

/// The checks of indirect addresses (`indirect_operands`' `{ let a = A; if (a < LO
/// || a + S > HI ...) { slow_at = .. } }`): per address text `A`, the widest
/// `[LO, HI)` any check of it holds it to.
fn checked_ranges(text: &str) -> std::collections::HashMap<&str, (u32, u32)> {
    const HEAD: &str = "{ let a = ";
    let mut out: std::collections::HashMap<&str, (u32, u32)> = Default::default();
    let mut from = 0;
    while let Some(f) = text[from..].find(HEAD) {
        let s = from + f + HEAD.len();
        from = s;
        let Some(end) = text[s..].find("; if (a < ").map(|n| s + n) else {
            continue;
        };
        let expr = &text[s..end];
        let rest = &text[end + "; if (a < ".len()..];
        let digits = |t: &str| t.bytes().take_while(u8::is_ascii_digit).count();
        let nlo = digits(rest);
        let Some(after) = rest[nlo..].strip_prefix(" || a + ") else {
            continue;
        };
        let nsize = digits(after);
        let Some(after) = after[nsize..].strip_prefix(" > ") else {
            continue;
        };
        let nhi = digits(after);
        let (Ok(lo), Ok(hi)) = (rest[..nlo].parse::<u32>(), after[..nhi].parse::<u32>()) else {
            continue;
        };
        let r = out.entry(expr).or_insert((lo, hi));
        *r = (r.0.min(lo), r.1.max(hi));
    }
    out
}

/// `s` without its spaces and enclosing parentheses.
fn strip_parens(s: &str) -> &str {
    let mut a = s.trim();
    while let Some(inner) = a.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
        a = inner.trim();
    }
    a
}

/// The module's `K_GRF_WORDS`.
fn grf_words(text: &str) -> Option<u32> {
    const HEAD: &str = "const K_GRF_WORDS: u32 = ";
    let at = text.find(HEAD)? + HEAD.len();
    u32_literal(&text[at..at + text[at..].find(';')?])
}

/// An element offset as `(C, S)`: `Cu` (stride 0), `Cu + i * Su`, `Cu + (i) * Su` or
/// `Cu + Su * i`, in parentheses or not.
fn offset_form(arg: &str) -> Option<(u32, u32)> {
    let a = strip_parens(arg);
    if let Some(c) = u32_literal(a) {
        return Some((c, 0));
    }
    let (c, rest) = a.split_once(" + ")?;
    let stride = (rest.strip_prefix("i * "))
        .or_else(|| rest.strip_prefix("(i) * "))
        .or_else(|| rest.strip_suffix(" * i"))?;
    Some((u32_literal(c)?, u32_literal(stride)?))
}

/// The spans of `name[...]` (a whole identifier), in text order; `None` where a
/// bracket does not close on its line.
pub(super) fn indices(text: &str, name: &str) -> Option<Vec<(usize, usize)>> {
    let head = format!("{name}[");
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(f) = text[from..].find(&head) {
        let s = from + f;
        from = s + head.len();
        if s > 0 && ident(b[s - 1]) {
            continue;
        }
        let mut depth = 1;
        let mut e = from;
        while e < b.len() && depth > 0 && b[e] != b'\n' {
            match b[e] {
                b'[' => depth += 1,
                b']' => depth -= 1,
                _ => {}
            }
            e += 1;
        }
        if depth > 0 {
            return None;
        }
        out.push((s, e));
    }
    Some(out)
}

/// The calls of `f` (not its definition): where each starts and ends and its
/// top-level arguments.
fn calls(text: &str, f: &str) -> Vec<(usize, usize, Vec<String>)> {
    let head = format!("{f}(");
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = text[from..].find(&head) {
        let s = from + k;
        from = s + head.len();
        if (s > 0 && ident(b[s - 1])) || text[..s].ends_with("fn ") {
            continue;
        }
        let Some(close) = super::table_form::matching_paren(text, from - 1) else {
            continue;
        };
        out.push((
            s,
            close + 1,
            super::scalar_slots::split_args(&text[from..close]),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(body: &str) -> String {
        format!(
            "const K_GRF_WORDS: u32 = 848u;\n{WORD_DECL}\nvar<private> lane: u32;\n\n\
             fn g32(o: u32) -> u32 {{\n    return g[o >> 2u];\n}}\n\n\
             fn gs32(o: u32, v: u32) {{\n    g[o >> 2u] = v;\n}}\n\
             {STRAIGHT_MARK}{body}    return 0u;\n}}\n"
        )
    }

    #[test]
    fn whole_words_at_literal_offsets_are_words() {
        let t = split_image(&module(
            "    gs32(64u, pl_word(16u));\n    let x = g32((400u + i * 4u)) + g32(68u);\n    gs32(402u, 1u);\n",
        ));
        // Bytes 400-531 (the element call) and 402-409 (unaligned): words 100-132.
        assert!(t.contains("var<private> g: array<u32, 33u>;"), "{t}");
        assert!(t.contains("    g_16 = pl_word(16u);\n"), "{t}");
        assert!(t.contains(" + g_17;\n"), "{t}");
        assert!(t.contains("    gs32(402u, 1u);\n"), "{t}");
        // Parts of word 17 within it; an odd 2-byte load stays a call, its bytes
        // (17-19) the array's.
        let t = split_image(&module(
            "    let a = gld(71u, 1u) + gld(70u, 2u) + gld(68u, 4u) + gld(69u, 2u);\n    g[300u] = 0u;\n",
        ));
        assert!(
            t.contains("let a = u64((g[0u] >> 24u) & 0xffu) + u64((g[0u] >> 16u) & 0xffffu) + u64((g[0u] >> 0u) & 0xffffffffu) + gld(69u, 2u);"),
            "{t}"
        );
        // Its value names the image: left whole.
        let m = module("    gs32(64u, g32(68u));\n    g[1u] = 0u;\n");
        assert_eq!(split_image(&m), m);
    }

    #[test]
    fn literal_words_outside_the_run_time_span_become_privates() {
        let t = split_image(&module(
            "    g[7u] = 1u;\n    let q0 = lane - 0u;\n    if (q0 < 16u) { g[100u + q0 * 1u] = g[101u]; }\n    let x = g32((400u + i * 4u));\n",
        ));
        // Words 100-131 (the lane loop) and 100-108 (the call: 400-531 bytes) in one
        // array from word 100.
        assert!(t.contains("var<private> g: array<u32, 33u>;"), "{t}");
        assert!(t.contains("var<private> g_7: u32;"), "{t}");
        assert!(t.contains("    g_7 = 1u;\n"), "{t}");
        assert!(t.contains("g[(100u + q0 * 1u) - 100u] = g[1u];"), "{t}");
        assert!(t.contains("return g[(o >> 2u) - 100u];"), "{t}");
        assert!(!t.contains(WORD_DECL), "{t}");
    }

    #[test]
    fn a_checked_indirect_address_reaches_its_range() {
        let t = split_image(&module(
            "    { let a = i32(al_32) + 0; if (a < 2080 || a + 4 > 2144) { slow_at = 17u; } }\n    let x = g32(u32(max(0, i32(al_32) + 0)));\n    g[7u] = 1u;\n",
        ));
        // Bytes 2080-2151: words 520-537.
        assert!(t.contains("var<private> g: array<u32, 18u>;"), "{t}");
        assert!(t.contains("return g[(o >> 2u) - 520u];"), "{t}");
        assert!(t.contains("    g_7 = 1u;\n"), "{t}");
    }

    #[test]
    fn an_index_without_a_known_range_keeps_the_image() {
        let m = module("    let x = g32(u32(max(0, i32(al_32) + 0)));\n    g[7u] = 1u;\n");
        assert_eq!(split_image(&m), m);
        let m = module("    g[k] = 1u;\n");
        assert_eq!(split_image(&m), m);
    }

    #[test]
    fn only_literal_words_need_no_array() {
        let t = split_image(&module("    g[7u] = g[9u];\n"));
        assert!(!t.contains("array<u32"), "{t}");
        assert!(t.contains("    g_7 = g_9;\n"), "{t}");
    }
}
