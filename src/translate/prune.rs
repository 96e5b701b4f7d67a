//! Drop the functions a module's entry point never reaches.
//!
//! A module carries the whole runtime (`shaders/*.wgsl`, ~100 KB) whatever the kernel
//! uses: mandelbrot reaches 42 of its 131 functions. Every byte is parsed and
//! validated by naga, written out as SPIR-V and read again by the driver before its
//! dead-code elimination, so a pipeline is created ~10% faster from the pruned text
//! (docs/design.md, "Pipeline creation"). The scan is lexical: WGSL has no string
//! literals, so braces outside comments delimit bodies, and an identifier equal to a
//! function's name is taken as a use (an over-approximation: a local of that name keeps
//! the function, never the other way round).

use std::collections::{HashMap, HashSet};

/// What an entry point's identifiers hold: [`unreachable_functions`] keeps them all.
const ENTRY: &str = "@entry";

/// A top-level `fn`: its name, its byte span (from `fn` to the closing brace and the
/// line end) and the identifiers its text holds.
pub(super) struct Function<'a> {
    pub(super) name: &'a str,
    pub(super) span: (usize, usize),
    idents: HashSet<&'a str>,
}

/// `wgsl` without the top-level functions that `entry` does not reach through calls;
/// the text as it is when it does not scan as expected (unbalanced braces, no `entry`).
pub fn unreachable_functions(wgsl: &str, entry: &str) -> String {
    let Some((fns, live)) = live_functions(wgsl, entry) else {
        return wgsl.to_string();
    };
    let mut out = String::with_capacity(wgsl.len());
    let mut at = 0;
    for (f, keep) in fns.iter().zip(&live) {
        if !keep {
            out.push_str(&wgsl[at..f.span.0]);
            at = f.span.1;
        }
    }
    out.push_str(&wgsl[at..]);
    out
}

/// Runtime wrappers that only pass their argument on (converted) while their switch
/// (`const NAME: bool = false;`, shaders/runtime.wgsl) is off: `(switch, wrapper, what
/// a call becomes)`. Each wrapper's first line is `if (!SWITCH ...) { return ...; }`.
const IDLE_WRAPPERS: [(&str, &str, &str); 8] = [
    ("F_DIV_SPECIALS", "fsqrt64", "sqrt"),
    ("F32_FTZ", "w32", "f64"),
    ("F32_FTZ", "n32", "f32"),
    ("F32_FTZ", "fexp2", "exp2"),
    ("F32_FTZ", "flog2", "log2"),
    ("F_KEEP_PRODUCTS", "keep32", ""),
    ("F_KEEP_PRODUCTS", "keep64", ""),
    ("F32_FTZ_SIM", "sim32", ""),
];

/// `wgsl` with the calls of [`IDLE_WRAPPERS`] whose switch is off written as what they
/// return: the conversion, or the argument in parentheses; with `F32_FTZ` off, the F
/// add and multiply of [`IDLE_OPERATIONS`] as the operation and `rel_f32` as the
/// comparison. Exact (each function's first line returns just that), and the driver
/// no longer inlines each call's dead paths: matmul_tiled16's 16 exact MADs (three
/// `w32`, one `n32` each) took ~15 ms of its ~55 ms pipeline creation on lavapipe.
/// Only for modules whose f64 is native: a lowered module has no `f64(`.
pub fn without_idle_wrappers(wgsl: &str) -> String {
    let mut out = wgsl.to_string();
    if out.contains("const F32_FTZ: bool = false;") {
        for (f, op, wrap) in IDLE_OPERATIONS {
            out = inline_operation(&out, f, op, wrap);
        }
        out = inline_relation(&out);
    }
    for (switch, wrapper, becomes) in IDLE_WRAPPERS {
        if out.contains(&format!("const {switch}: bool = false;")) {
            out = rename_calls(&out, wrapper, becomes);
        }
    }
    if out.contains("const F_DIV_SPECIALS: bool = false;") {
        out = inline_division(&out);
    }
    out
}

/// `text` with each `fdiv64(x, y)` written `((x) / (y))` (nested calls too): with
/// `F_DIV_SPECIALS` off that is what it returns.
fn inline_division(text: &str) -> String {
    super::tidy::rewrite_calls(text, "fdiv64", &|args| match args {
        // Not the definition's parameters (`x: f64`).
        [x, y] if !x.contains(':') && !y.contains(':') => Some(format!(
            "(({}) / ({}))",
            inline_division(x),
            inline_division(y)
        )),
        _ => None,
    })
}

/// F arithmetic whose first line, with `F32_FTZ` off, is `return WRAP(x OP y);` and
/// whose third argument is unused: `(function, OP, WRAP)`.
const IDLE_OPERATIONS: [(&str, &str, &str); 2] =
    [("fadd32_rne", "+", ""), ("fmul32_rne", "*", "keep32")];

/// `text` with each call `f(x, y, z)` whose `z` is a literal written `WRAP((x) OP (y))`
/// (nested calls too).
fn inline_operation(text: &str, f: &str, op: &str, wrap: &str) -> String {
    super::tidy::rewrite_calls(text, f, &|args| match args {
        [x, y, z] if z.bytes().all(|c| c.is_ascii_digit() || c == b'.') => {
            let x = inline_operation(x, f, op, wrap);
            let y = inline_operation(y, f, op, wrap);
            Some(format!("{wrap}(({x}) {op} ({y}))"))
        }
        _ => None,
    })
}

/// `text` with each `rel_f32(R, x, y)` whose relation `R` is a literal written as the
/// comparison its `switch` picks (with `F32_FTZ` off nothing runs before it).
fn inline_relation(text: &str) -> String {
    super::tidy::rewrite_calls(text, "rel_f32", &|args| match args {
        [rel, x, y] => {
            let form = match rel.as_str() {
                "0u" => "({x}) == ({y})",
                "1u" => "!(({x}) == ({y}))",
                "2u" => "({x}) > ({y})",
                "3u" => "({x}) >= ({y})",
                "4u" => "({x}) < ({y})",
                "5u" => "({x}) <= ({y})",
                _ => return None,
            };
            let (x, y) = (inline_relation(x), inline_relation(y));
            Some(format!("({})", form.replace("{x}", &x).replace("{y}", &y)))
        }
        _ => None,
    })
}

/// `text` with each call `f(` (a whole identifier, not a definition `fn f(`) written
/// `to(`.
fn rename_calls(text: &str, f: &str, to: &str) -> String {
    let head = format!("{f}(");
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (k, _) in text.match_indices(&head) {
        let ident_before = k > 0 && (b[k - 1].is_ascii_alphanumeric() || b[k - 1] == b'_');
        if ident_before || text[..k].ends_with("fn ") {
            continue;
        }
        out.push_str(&text[at..k]);
        out.push_str(to);
        out.push('(');
        at = k + head.len();
    }
    out.push_str(&text[at..]);
    out
}

/// Whether a function that `entry` reaches names `ident` (a global it reads or
/// writes, say); `true` where the text does not scan as expected (the safe answer).
pub fn reaches_identifier(wgsl: &str, entry: &str, ident: &str) -> bool {
    match live_functions(wgsl, entry) {
        Some((fns, live)) => fns
            .iter()
            .zip(&live)
            .any(|(f, &l)| l && f.idents.contains(ident)),
        None => true,
    }
}

/// `wgsl`'s top-level functions and which of them `entry` reaches through calls.
fn live_functions<'a>(wgsl: &'a str, entry: &str) -> Option<(Vec<Function<'a>>, Vec<bool>)> {
    let fns = functions(wgsl)?;
    let by_name: HashMap<&str, usize> = fns.iter().enumerate().map(|(i, f)| (f.name, i)).collect();
    let &root = by_name.get(entry)?;
    let mut live = vec![false; fns.len()];
    let mut todo = vec![root];
    todo.extend((0..fns.len()).filter(|&i| fns[i].idents.contains(ENTRY)));
    while let Some(i) = todo.pop() {
        if std::mem::replace(&mut live[i], true) {
            continue;
        }
        todo.extend(
            fns[i]
                .idents
                .iter()
                .filter_map(|id| by_name.get(id).copied())
                .filter(|&j| !live[j]),
        );
    }
    Some((fns, live))
}

/// The top-level functions of `wgsl`, or `None` where braces do not balance.
pub(super) fn functions(wgsl: &str) -> Option<Vec<Function<'_>>> {
    let b = wgsl.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    // The function being read: its name, start and identifiers.
    let mut open: Option<(&str, usize, HashSet<&str>)> = None;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = wgsl[i..].find('\n').map_or(b.len(), |n| i + n);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                // Block comments nest in WGSL.
                let mut level = 0usize;
                while i < b.len() {
                    if b[i..].starts_with(b"/*") {
                        level += 1;
                        i += 2;
                    } else if b[i..].starts_with(b"*/") {
                        level -= 1;
                        i += 2;
                        if level == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'{' => {
                depth += 1;
                i += 1;
            }
            b'}' => {
                depth = depth.checked_sub(1)?;
                i += 1;
                if depth == 0 {
                    if let Some((name, start, idents)) = open.take() {
                        let end = if b.get(i) == Some(&b'\n') { i + 1 } else { i };
                        out.push(Function {
                            name,
                            span: (start, end),
                            idents,
                        });
                    }
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let s = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let word = &wgsl[s..i];
                if depth == 0 && word == "fn" && open.is_none() {
                    // An entry point (an attribute line above it) always stays.
                    let line = wgsl[..s].trim_end().rsplit('\n').next().unwrap_or("");
                    let entry_like = line.trim_start().starts_with('@');
                    let rest = &wgsl[i..];
                    let name_at = i + rest.len() - rest.trim_start().len();
                    let len = wgsl[name_at..]
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(0);
                    let mut idents = HashSet::new();
                    if entry_like {
                        idents.insert(ENTRY);
                    }
                    open = Some((&wgsl[name_at..name_at + len], s, idents));
                    i = name_at + len;
                } else if let Some((_, _, idents)) = open.as_mut() {
                    idents.insert(word);
                }
            }
            _ => i += 1,
        }
    }
    (depth == 0 && open.is_none()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "const K: u32 = 1u;
// fn commented_out() { }
fn used(x: u32) -> u32 { return helper(x) + K; }
fn helper(x: u32) -> u32 { /* { nested /* } */ } */ return x; }
fn unused() -> u32 { return helper(2u); }
fn also_unused() { let y = unused(); }
@compute @workgroup_size(1)
fn other_entry() { let z = helper(1u); }
@compute @workgroup_size(1)
fn main() {
    // unused() in a comment is no use
    let v = used(3u);
}
";

    #[test]
    fn idle_wrappers_become_what_they_return() {
        let text = "const F32_FTZ: bool = false;
const F_KEEP_PRODUCTS: bool = true;
fn w32(x: f32) -> f64 { if (!F32_FTZ) { return f64(x); } return 0.0lf; }
fn n32(f: f64) -> f32 { if (!F32_FTZ) { return f32(f); } return 0.0; }
fn keep32(x: f32) -> f32 { if (!F_KEEP_PRODUCTS) { return x; } return -x; }
fn xw32(x: f32) -> f32 { return x; }
fn fadd32_rne(x: f32, y: f32, z: f32) -> f32 { if (!F32_FTZ) { return x + y; } return 0.0; }
fn fmul32_rne(x: f32, y: f32, z: f32) -> f32 { if (!F32_FTZ) { return keep32(x * y); } return 0.0; }
fn f(a: f32, b: f32) -> f32 { return n32(w32(a) * w32(keep32(b))) + xw32(a); }
fn g(a: f32, b: f32) -> f32 { return fadd32_rne(fmul32_rne(a, b, 0.0), -b, 0.0) + fadd32_rne(a, b, a); }
fn rel_f32(rel: u32, x: f32, y: f32) -> bool { if (F32_FTZ) { return false; } switch rel { case 1u: { return !(x == y); } default: { return x <= y; } } }
fn h(a: f32, b: f32, r: u32) -> bool { return rel_f32(1u, a, b) && rel_f32(5u, a, -b) && rel_f32(r, a, b); }
";
        let t = without_idle_wrappers(text);
        assert!(
            t.contains("return f32(f64(a) * f64(keep32(b))) + xw32(a);"),
            "{t}"
        );
        // A third argument that is not a literal keeps the call.
        assert!(
            t.contains("return ((keep32((a) * (b))) + (-b)) + fadd32_rne(a, b, a);"),
            "{t}"
        );
        assert!(
            t.contains("return (!((a) == (b))) && ((a) <= (-b)) && rel_f32(r, a, b);"),
            "{t}"
        );
        // Definitions stay (pruning drops them), and the switched-on wrapper stays.
        assert!(t.contains("fn w32(x: f32)") && t.contains("fn n32(f: f64)"));
        crate::translate::validate_wgsl(&t).unwrap();
        let on = text.replace("F32_FTZ: bool = false", "F32_FTZ: bool = true");
        assert_eq!(without_idle_wrappers(&on), on);
    }

    #[test]
    fn idle_division_helpers_become_the_operations() {
        let text = "const F_DIV_SPECIALS: bool = false;
fn fdiv64(x: f64, y: f64) -> f64 { if (F_DIV_SPECIALS) { return 0.0lf; } return x / y; }
fn fsqrt64(x: f64) -> f64 { if (F_DIV_SPECIALS) { return 0.0lf; } return sqrt(x); }
fn f(a: f64, b: f64) -> f64 { return fdiv64(1.0lf, fsqrt64(fdiv64(a, b + 1.0lf))); }
";
        let t = without_idle_wrappers(text);
        assert!(
            t.contains("return ((1.0lf) / (sqrt(((a) / (b + 1.0lf)))));"),
            "{t}"
        );
        crate::translate::validate_wgsl(&t).unwrap();
        let on = text.replace(
            "F_DIV_SPECIALS: bool = false",
            "F_DIV_SPECIALS: bool = true",
        );
        assert_eq!(without_idle_wrappers(&on), on);
    }

    #[test]
    fn keeps_what_the_entry_reaches_and_drops_the_rest() {
        let p = unreachable_functions(TEXT, "main");
        assert!(p.contains("fn used(") && p.contains("fn helper(") && p.contains("fn main("));
        assert!(
            !p.contains("fn unused(") && !p.contains("fn also_unused("),
            "{p}"
        );
        assert!(p.contains("const K: u32 = 1u;") && p.contains("fn other_entry("));
        // The pruned text is a valid module.
        crate::translate::validate_wgsl(&p).unwrap();
    }

    #[test]
    fn leaves_text_it_cannot_scan_alone() {
        assert_eq!(unreachable_functions("fn a() {", "a"), "fn a() {");
        assert_eq!(unreachable_functions(TEXT, "nothing"), TEXT);
    }

    #[test]
    fn finds_the_identifiers_of_reached_functions_only() {
        // `K` is named by `used` (reached from main); `y` only by `also_unused`.
        assert!(reaches_identifier(TEXT, "main", "K"));
        assert!(!reaches_identifier(TEXT, "main", "y"));
        assert!(reaches_identifier(TEXT, "also_unused", "y"));
        // Text it cannot scan: the safe answer.
        assert!(reaches_identifier("fn a() {", "a", "nothing"));
    }
}
