//! Fold what the translator knows into one instruction's text before it joins the
//! module.
//!
//! Every instruction is written from one template: its enabled channels (`ce`), the
//! control register (`cr`) and the rounding mode taken from it (`md`), and its float
//! results passed through the denormal flushes that `cr` selects. Where the value of
//! %cr0 is known (straight modules: `simt::cr0_values`) the mode bits are constants;
//! where `ce` is never read it is dead. naga keeps all of it and the driver folds it
//! only after inlining every helper call, so a module with the template's leftovers
//! takes ~30% longer to become a pipeline on lavapipe (matmul_tiled16 in alternating
//! runs: 133 -> 98 ms; docs/design.md, "Pipeline creation"). The rewrite is exact: a flush with its keep
//! flag `true` returns its argument (`flush32`, `flush64`, `flush_h` in
//! shaders/runtime.wgsl), only `let`s nothing reads are dropped, and a rounding
//! helper called in round-to-nearest becomes its round-to-nearest twin, whose body is
//! the helper's `md == 0u` path (`fadd32_rne` and the others in shaders/runtime.wgsl):
//! the driver would fold the directed modes' code away, but only after inlining it at
//! every call (matmul_tiled16, 16 MADs: 91 -> 67 ms).

use super::scalar_slots::split_args;
use super::table_form::{count_words, matching_paren};

/// The flushes that return their first argument when their last one is `true`.
const KEEPING_FLUSHES: [&str; 3] = ["flush32", "flush64", "flush_h"];

/// Helpers with the rounding mode as their last argument, and what each call in
/// round-to-nearest (mode `0u`) becomes: the twin taking the other arguments.
const ROUND_TO_NEAREST_TWINS: [(&str, &str); 14] = [
    ("fadd32", "fadd32_rne"),
    ("fmul32", "fmul32_rne"),
    ("fmad32", "fma_rne32"),
    ("flrp32", "flrp32_rne"),
    ("f64_to_f32_rm", "n32"),
    ("i2f32", "f32"),
    ("i2f64_rm", "f64"),
    ("f64_to_hf_rm", "f64_to_hf"),
    ("round_hf_rm", "round_hf"),
    ("dadd_rm", "dadd_rne"),
    ("dmul_rm", "dmul_rne"),
    ("dfma_rm", "dfma"),
    ("ddiv_rm", "ddiv"),
    ("dsqrt_rm", "dsqrt"),
];

/// Bindings of the template that may go unread.
const TEMPLATE_LETS: [&str; 3] = ["ce", "md", "cr"];

/// `text` (one instruction) with its known mode bits folded, identity flushes
/// removed and unread template `let`s dropped.
pub fn instruction(text: &str) -> String {
    let mut t = match known_cr(text) {
        Some(cr) => fold_mode_bits(text, cr),
        None => text.to_string(),
    };
    // Each rewrite copies the text: only where its function is named (most of this
    // function's time went to copies that changed nothing).
    for f in KEEPING_FLUSHES {
        if t.contains(f) {
            t = strip_kept_flushes(&t, f);
        }
    }
    if t.contains("let md = 0u;") || t.contains(", 0u)") {
        for (f, twin) in ROUND_TO_NEAREST_TWINS {
            if t.contains(f) {
                t = call_twins_in_nearest(&t, f, twin);
            }
        }
    }
    without_unread_lets(&t, &TEMPLATE_LETS)
}

/// The literal of `let cr = 0x...u;`, where the instruction has one.
fn known_cr(text: &str) -> Option<u32> {
    let at = text.find("let cr = 0x")? + "let cr = 0x".len();
    let hex = &text[at..];
    let end = hex.find("u;")?;
    u32::from_str_radix(&hex[..end], 16).ok()
}

/// `((cr & 0xMu) != 0u)` to `true`/`false` and `let md = (cr >> 4u) & 3u;` to its value.
fn fold_mode_bits(text: &str, cr: u32) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    const HEAD: &str = "((cr & 0x";
    while let Some(k) = rest.find(HEAD) {
        let after = &rest[k + HEAD.len()..];
        let folded = after.find("u) != 0u)").and_then(|e| {
            let mask = u32::from_str_radix(&after[..e], 16).ok()?;
            Some((cr & mask != 0, e + "u) != 0u)".len()))
        });
        match folded {
            Some((bit, len)) => {
                out.push_str(&rest[..k]);
                out.push_str(if bit { "true" } else { "false" });
                rest = &after[len..];
            }
            None => {
                out.push_str(&rest[..k + HEAD.len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.replace("(cr >> 4u) & 3u", &format!("{}u", (cr >> 4) & 3))
}

/// Each `f(args, mode)` whose mode is round-to-nearest (`0u`, or `md` where the
/// instruction binds `let md = 0u;`) replaced by `twin(args)`.
fn call_twins_in_nearest(text: &str, f: &str, twin: &str) -> String {
    twins(text, f, twin, text.contains("let md = 0u;"))
}

/// [`call_twins_in_nearest`] with what `md` holds decided once for the instruction
/// (a nested call's argument text does not bind it).
fn twins(text: &str, f: &str, twin: &str, md_nearest: bool) -> String {
    rewrite_calls(text, f, &|args| {
        let (mode, rest) = args.split_last()?;
        if !(mode == "0u" || (md_nearest && mode == "md")) || rest.is_empty() {
            return None;
        }
        let inner: Vec<String> = rest.iter().map(|a| twins(a, f, twin, md_nearest)).collect();
        Some(format!("{twin}({})", inner.join(", ")))
    })
}

/// Each `f(x, true)` replaced by `x` (nested ones too).
fn strip_kept_flushes(text: &str, f: &str) -> String {
    rewrite_calls(text, f, &|args| match args {
        [x, keep] if keep == "true" => Some(strip_kept_flushes(x, f)),
        _ => None,
    })
}

/// `text` with each call of the function `f` (not of a longer name ending in it)
/// replaced by what `replace` makes of its arguments; a call it returns `None` for
/// stays as written.
pub(super) fn rewrite_calls(
    text: &str,
    f: &str,
    replace: &dyn Fn(&[String]) -> Option<String>,
) -> String {
    let head = format!("{f}(");
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut search = 0;
    while let Some(k) = text[search..].find(&head).map(|k| k + search) {
        search = k + head.len();
        if k > 0 && (b[k - 1].is_ascii_alphanumeric() || b[k - 1] == b'_') {
            continue;
        }
        let Some(close) = matching_paren(text, search - 1) else {
            continue;
        };
        let Some(new) = replace(&split_args(&text[search..close])) else {
            continue;
        };
        out.push_str(&text[at..k]);
        out.push_str(&new);
        at = close + 1;
        search = at;
    }
    out.push_str(&text[at..]);
    out
}

/// `text` without the `let`s of `names` that nothing in it reads, in that order.
pub(super) fn without_unread_lets(text: &str, names: &[&str]) -> String {
    // Each name's uses as a word, counted in one pass over the identifiers: a scan of
    // the text per name and side took a tenth of math_exp_log_pow's translation.
    let mut uses = vec![0usize; names.len()];
    count_words(text, names, &mut uses);
    let mut t = text.to_string();
    for (i, name) in names.iter().enumerate() {
        if uses[i] == 0 {
            continue;
        }
        let Some((start, end)) = let_line(&t, name) else {
            continue;
        };
        let mut in_line = vec![0usize; names.len()];
        count_words(&t[start..end], names, &mut in_line);
        // Read outside its own line.
        if uses[i] != in_line[i] {
            continue;
        }
        for (u, l) in uses.iter_mut().zip(&in_line) {
            *u -= l;
        }
        t.replace_range(start..end, "");
    }
    t
}

/// The byte range of `text`'s line `let name = ...;` (its first, holding that one
/// statement), newline included.
fn let_line(text: &str, name: &str) -> Option<(usize, usize)> {
    let decl = format!("let {name} = ");
    let line_start = text
        .match_indices(&decl)
        .map(|(k, _)| text[..k].rfind('\n').map_or(0, |n| n + 1))
        .find(|&s| text[s..].trim_start().starts_with(&decl))?;
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |n| line_start + n + 1);
    let line = &text[line_start..line_end];
    // One statement on the line (the line starts after a newline, so no word spans
    // it and the text around it).
    (line.trim_end().ends_with(';') && line.matches(';').count() == 1)
        .then_some((line_start, line_end))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAD: &str = "// [84] MAD (PerLane)
let em = lem;
let li = lane - 0u;
let ce = chen(em, 16u, 0u, false, 0u, false, 0u, false);
let cr = 0x4c0u;
let md = (cr >> 4u) & 3u;
if (li < 16u) {
    let v = canon_nan(u64(bitcast<u32>(flush32(flush32(fmad32(a, b, c, md), ((cr & 0x80u) != 0u)), ((cr & 0x80u) != 0u)))), 1lu);
    let h = flush_h(w, ((cr & 0x400u) != 0u));
    let g = flush32(u, ((cr & 0x100u) != 0u));
}
";

    #[test]
    fn wrapper_lets_go_where_nothing_reads_them() {
        let t = "{\nlet em = lem;\nlet li = lane - 0u;\n{\nrv1 = rv2;\n}\n}\n";
        assert_eq!(
            without_unread_lets(t, &["li", "em"]),
            "{\n{\nrv1 = rv2;\n}\n}\n"
        );
        // `li` read: both stay (`em` read through a chen); `em` alone goes.
        let t = "{\nlet em = lem;\nlet li = lane - 0u;\nif (li < 16u) {\n}\n}\n";
        assert_eq!(
            without_unread_lets(t, &["li", "em"]),
            "{\nlet li = lane - 0u;\nif (li < 16u) {\n}\n}\n"
        );
        let t = "let em = lem;\nlet ce = chen(em, 16u);\nx = ce;\n";
        assert_eq!(without_unread_lets(t, &["li", "em"]), t);
    }

    #[test]
    fn folds_known_mode_bits_and_drops_what_nothing_reads() {
        let t = instruction(MAD);
        // 0x4c0: F and HF denormals kept (0x80, 0x400), round to nearest; bit 0x100 clear.
        assert!(
            t.contains("canon_nan(u64(bitcast<u32>(fma_rne32(a, b, c))), 1lu)"),
            "{t}"
        );
        assert!(
            t.contains("let h = w;") && t.contains("flush32(u, false)"),
            "{t}"
        );
        assert!(
            !t.contains("let ce") && !t.contains("let cr") && !t.contains("let md"),
            "{t}"
        );
        // `em` and `li` are not the template's to drop.
        assert!(t.contains("let em = lem;") && t.contains("let li = lane - 0u;"));
    }

    #[test]
    fn keeps_what_is_read_or_unknown() {
        // %cr0 read at run time: nothing folds; `ce` guards the channels.
        let text = "let ce = chen(em, 8u, 0u, false, 0u, false, 0u, false);
let cr = g32(1220u);
let md = (cr >> 4u) & 3u;
if ((ce & 1u) != 0u) { x = flush32(f(y, md), ((cr & 0x80u) != 0u)); }
";
        assert_eq!(instruction(text), text);
    }

    #[test]
    fn round_to_nearest_calls_take_the_twins() {
        let text = "let cr = 0x0u;
let md = (cr >> 4u) & 3u;
x = fadd32(fmul32(a, b, c, md), d, e, md);
w = fadd32(fadd32(a, b, c, md), d, e, md);
y = i2f32(k, (cr >> 4u) & 3u) + f64_to_f32_rm(w, (cr >> 4u) & 3u);
z = myfadd32(a, b, c, md) + fadd32(a, b, c, mode);
";
        let t = instruction(text);
        assert!(
            t.contains("x = fadd32_rne(fmul32_rne(a, b, c), d, e);"),
            "{t}"
        );
        assert!(t.contains("y = f32(k) + n32(w);"), "{t}");
        // A call inside a call of the same helper: the mode is the instruction's.
        assert!(
            t.contains("w = fadd32_rne(fadd32_rne(a, b, c), d, e);"),
            "{t}"
        );
        // Another function, and a mode not known to be 0, stay.
        assert!(
            t.contains("z = myfadd32(a, b, c, md) + fadd32(a, b, c, mode);"),
            "{t}"
        );
        assert!(t.contains("let md = 0u;"), "{t}");
        // Round up (cr bits 5:4 = 1): the helpers keep their mode.
        let up = instruction(&text.replace("0x0u", "0x10u"));
        assert!(up.contains("fadd32(fmul32(a, b, c, md), d, e, md)"), "{up}");
        assert!(up.contains("i2f32(k, 1u)"), "{up}");
    }

    #[test]
    fn a_flush_that_may_flush_stays() {
        assert_eq!(
            strip_kept_flushes("flush32(flush32(x, keep), true)", "flush32"),
            "flush32(x, keep)"
        );
        assert_eq!(
            strip_kept_flushes("myflush32(x, true)", "flush32"),
            "myflush32(x, true)"
        );
    }
}
