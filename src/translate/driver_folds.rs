//! Folds written into a module's text before the driver gets it, where the driver
//! would reach them only after many passes over the whole module.
//!
//! lavapipe's NIR optimization loop (Mesa 22.3, `lvp_pipeline.c`) repeats every pass
//! until none makes progress, and its `nir_opt_copy_prop_vars` compares each access
//! to the private GRF array `g` with every entry it tracks, among them the array's
//! zero initialization, one store per word: with Mesa built with symbols, `perf` put
//! 54% of atomic_global_counters SIMD16's 2.6 s pipeline creation in that pass. What
//! makes the loop go round again and again is code that only folds late: each `chen`
//! call inlined with constant arguments, and channel loops
//! (`for (var i = 0u; i < 16u; i++)`) that NIR unrolls one round after another before
//! their `gld`/`gst` offsets become constants. Here:
//! - `chen(em, N, OFF, nomask, pbits, has_pred, comb, inv)` with literal shape
//!   arguments is written as the expression its body computes for them;
//! - `gld`/`gst` of 2, 4 and 8 bytes at a constant aligned offset inside the GRF are
//!   written as the words of `g` that `g32`/`gs32` reach there (only where the
//!   module's `g32` and `gs32` are the private-array ones: not a GRF in `state`, not
//!   a compact image);
//! - in straight modules, a channel loop (a uniform instruction's elements) is written
//!   out channel by channel, each copy under its channel's test, its offsets folded and
//!   the index bound to the channel's literal where it is still read (2-byte accesses,
//!   literal tables): subgroup_reduce_scan_simd16 tgllp, whose 8-element loops kept
//!   their index, took 24 NIR rounds and 1.15 s of pipeline creation, written out 8
//!   rounds and 0.34 s.
//!
//! - a SETP of a one-value source, a channel loop that sets a predicate bit by bit
//!   (`pset` in an `if`/`else` per channel: NIR's copy propagation of `pr` then took a
//!   round of the loop per channel, 20 rounds for atomic_global_counters SIMD16), is
//!   written as one masked store of the word.
//!
//! Last, a straight module's registers that one function names move into it
//! ([`super::local_registers`]).
//!
//! All four are exact rewrites of what the runtime's functions do, and a function of
//! the text (the pipeline key stays the whole text's hash).

use super::table_form::has_word;
use super::tidy::rewrite_calls;

/// The private-array `g32` and `gs32` (shaders/runtime.wgsl) that the GRF folds
/// stand in for.
const G32_PRIVATE: &str = "fn g32(o: u32) -> u32 {\n    if ((o & 3u) == 0u && o < K_GRF_WORDS * 4u) { return g[o >> 2u]; }";
const GS32_PRIVATE: &str = "fn gs32(o: u32, v: u32) {\n    if ((o & 3u) == 0u && o < K_GRF_WORDS * 4u) { g[o >> 2u] = v; return; }";
const G_PRIVATE: &str = "var<private> g: array<u32, K_GRF_QUADS * 4u>;";

/// The head of a channel loop, before its count.
const LOOP_HEAD: &str = "for (var i = 0u; i < ";
/// A channel loop's first line: the channels `ce` leaves out skip the body.
const CHANNEL_TEST: &str = "if ((ce & (1u << i)) == 0u) { continue; }";
/// The most text a written-out loop may take (copies of its body).
const UNROLLED_BYTES_MAX: usize = 32 * 1024;

/// `wgsl` with the folds of this module's header applied. A straight module whose
/// GRF image is compacted (`grf_rows.rs`) gets them before compaction, which maps
/// the folded literal words to their compact places (its `g32` no longer has the
/// private form these folds look for).
pub fn for_driver(wgsl: &str) -> String {
    super::local_registers::localized(&word_calls(&folded(wgsl)))
}

/// `gld(o, 4u)` and `gst(o, 4u, v)` left after the folds (offsets known only at run
/// time) as the `g32`/`gs32` calls their `4u` cases make: NIR inlines a call's whole
/// switch, byte paths and all, before it folds the size. The 30 straight corpus modules
/// under the slowest eight, compiled alone, best of two: 4.57 → 4.30 s in all, median
/// -6% (atomic_global_counters 96-148 → 83-106 ms, subgroup_block_rw acm-g10 157 →
/// 127 ms), none slower beyond the noise.
fn word_calls(text: &str) -> String {
    let text = rewrite_calls(text, "gld", &|args| match args {
        [o, n] if n == "4u" => Some(format!("u64(g32({o}))")),
        _ => None,
    });
    rewrite_calls(&text, "gst", &|args| match args {
        [o, n, v] if n == "4u" => Some(format!("gs32({o}, u32(({v}) & 0xfffffffflu))")),
        _ => None,
    })
}

/// [`for_driver`]'s folds.
fn folded(wgsl: &str) -> String {
    let text = fold_setp_loops(&fold_chen(wgsl));
    let Some(words) = private_grf_words(&text) else {
        return text;
    };
    let text = if text.contains("\nfn run_lane(") {
        unroll_channel_loops(&text, words)
    } else {
        text
    };
    let text = fold_with_known_index(&text, words);
    fold_grf_span(&text, words, None)
}

/// `K_GRF_WORDS` where `g32`/`gs32` index the private array `g`; `None` elsewhere.
fn private_grf_words(text: &str) -> Option<u32> {
    if !(text.contains(G_PRIVATE) && text.contains(G32_PRIVATE) && text.contains(GS32_PRIVATE)) {
        return None;
    }
    let at = text.find("const K_GRF_WORDS: u32 = ")? + "const K_GRF_WORDS: u32 = ".len();
    let end = at + text[at..].find("u;")?;
    text[at..end].parse().ok()
}

/// Every `chen(..)` whose shape arguments are literals as the expression it returns.
pub fn fold_chen(text: &str) -> String {
    rewrite_calls(text, "chen", &|args| chen_expression(args))
}

fn chen_expression(args: &[String]) -> Option<String> {
    let [em, n, off, nomask, pbits, has, comb, inv] = args else {
        return None;
    };
    // The channel mask and predicate are read once each below, as the call reads
    // them; a call among them (whose effects the fold might skip) keeps the call.
    if em.contains('(') || pbits.contains('(') || em.contains(':') {
        return None;
    }
    let n = literal(n)?;
    let off = literal(off)?;
    if off >= 32 {
        return None;
    }
    let full = if n < 32 { (1u32 << n) - 1 } else { u32::MAX };
    let f = format!("{full}u");
    let mut ch = match nomask.as_str() {
        "true" => f.clone(),
        "false" if off == 0 && full == u32::MAX => format!("({em})"),
        "false" => format!("(({em} >> {off}u) & {f})"),
        _ => return None,
    };
    match has.as_str() {
        "false" => {}
        "true" => {
            let mut pm = format!("(({pbits} >> {off}u) & {f})");
            match comb.as_str() {
                "0u" => {}
                "1u" => pm = format!("select(0u, {f}, {pm} != 0u)"),
                "2u" => pm = format!("select(0u, {f}, {pm} == {f})"),
                _ => return None,
            }
            match inv.as_str() {
                "false" => {}
                "true" => pm = format!("(~{pm} & {f})"),
                _ => return None,
            }
            ch = format!("({ch} & {pm})");
        }
        _ => return None,
    }
    Some(ch)
}

/// `12u` as 12 (decimal only: the folds read the translator's offsets).
fn literal(s: &str) -> Option<u32> {
    super::literal::u32_literal(s).filter(|_| !s.starts_with("0x"))
}

/// The u32 value of an offset made of `Nu` literals, `i` (when known), `+`, `-`, `*`
/// and parentheses, in WGSL's wrapping arithmetic; `None` for anything else.
fn eval_offset(s: &str, i: Option<u32>) -> Option<u32> {
    let tokens = tokens(s)?;
    let mut at = 0;
    let v = eval_sum(&tokens, &mut at, i)?;
    (at == tokens.len()).then_some(v)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tok {
    Num(u32),
    Index,
    Op(u8),
}

fn tokens(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < b.len() {
        match b[k] {
            b' ' => k += 1,
            b'+' | b'-' | b'*' | b'(' | b')' => {
                out.push(Tok::Op(b[k]));
                k += 1;
            }
            c if c.is_ascii_digit() => {
                let start = k;
                while k < b.len() && b[k].is_ascii_digit() {
                    k += 1;
                }
                if b.get(k) != Some(&b'u') {
                    return None;
                }
                out.push(Tok::Num(s[start..k].parse().ok()?));
                k += 1;
                if b.get(k)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    return None;
                }
            }
            b'i' if !b
                .get(k + 1)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') =>
            {
                out.push(Tok::Index);
                k += 1;
            }
            _ => return None,
        }
    }
    Some(out)
}

fn eval_sum(t: &[Tok], at: &mut usize, i: Option<u32>) -> Option<u32> {
    let mut v = eval_product(t, at, i)?;
    while let Some(&Tok::Op(op @ (b'+' | b'-'))) = t.get(*at) {
        *at += 1;
        let r = eval_product(t, at, i)?;
        v = if op == b'+' {
            v.wrapping_add(r)
        } else {
            v.wrapping_sub(r)
        };
    }
    Some(v)
}

fn eval_product(t: &[Tok], at: &mut usize, i: Option<u32>) -> Option<u32> {
    let mut v = eval_atom(t, at, i)?;
    while let Some(Tok::Op(b'*')) = t.get(*at) {
        *at += 1;
        v = v.wrapping_mul(eval_atom(t, at, i)?);
    }
    Some(v)
}

fn eval_atom(t: &[Tok], at: &mut usize, i: Option<u32>) -> Option<u32> {
    let tok = *t.get(*at)?;
    *at += 1;
    match tok {
        Tok::Num(n) => Some(n),
        Tok::Index => i,
        Tok::Op(b'(') => {
            let v = eval_sum(t, at, i)?;
            (t.get(*at) == Some(&Tok::Op(b')'))).then(|| *at += 1)?;
            Some(v)
        }
        Tok::Op(_) => None,
    }
}

/// The word of `g` that a 4-byte access at byte `o` reaches (`g32`/`gs32`'s aligned
/// path), and the next one for an 8-byte access.
fn grf_word(o: u32, n: u32, words: u32) -> Option<u32> {
    let w = o / 4;
    (o.is_multiple_of(4) && w + n / 4 <= words).then_some(w)
}

/// The word of `g` and the shift of a 2-byte access at byte `o`, where `gld`/`gst`
/// take it from that word alone (an even offset inside the GRF).
fn grf_half(o: u32, words: u32) -> Option<(u32, u32)> {
    (o.is_multiple_of(2) && o / 4 < words).then_some((o / 4, (o & 2) * 8))
}

/// `text` with its `gld`/`gst` calls of 2, 4 and 8 bytes at offsets that evaluate with
/// `i` (the channel index, where known) written as the words of `g` they reach.
fn fold_grf_span(text: &str, words: u32, i: Option<u32>) -> String {
    let text = rewrite_calls(text, "gld", &|args| {
        let [o, n] = args else { return None };
        let o = eval_offset(o, i)?;
        match n.as_str() {
            "2u" => {
                let (w, s) = grf_half(o, words)?;
                Some(format!("u64((g[{w}u] >> {s}u) & 0xffffu)"))
            }
            "4u" => Some(format!("u64(g[{}u])", grf_word(o, 4, words)?)),
            "8u" => {
                let w = grf_word(o, 8, words)?;
                Some(format!("(u64(g[{w}u]) | (u64(g[{}u]) << 32u))", w + 1))
            }
            _ => None,
        }
    });
    rewrite_calls(&text, "gst", &|args| {
        let [o, n, v] = args else { return None };
        let o = eval_offset(o, i)?;
        // `v` is read twice for 8 bytes: a plain name, or a buffered result's slot.
        if !(is_name(v) || buffered_slot(v)) {
            return None;
        }
        match n.as_str() {
            "2u" => {
                let (w, s) = grf_half(o, words)?;
                let keep = !(0xffffu32 << s);
                Some(format!(
                    "g[{w}u] = (g[{w}u] & {keep}u) | ((u32({v} & 0xfffffffflu) & 0xffffu) << {s}u)"
                ))
            }
            "4u" => Some(format!(
                "g[{}u] = u32({v} & 0xfffffffflu)",
                grf_word(o, 4, words)?
            )),
            "8u" => {
                let w = grf_word(o, 8, words)?;
                Some(format!(
                    "g[{w}u] = u32({v} & 0xfffffffflu); g[{}u] = u32({v} >> 32u)",
                    w + 1
                ))
            }
            _ => None,
        }
    })
}

fn is_name(v: &str) -> bool {
    !v.is_empty() && v.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// `tv[Nu]` or `tx[Nu]`: a two-pass instruction's result for a known channel.
fn buffered_slot(v: &str) -> bool {
    let slot = v.strip_prefix("tv[").or_else(|| v.strip_prefix("tx["));
    slot.and_then(|r| r.strip_suffix(']'))
        .is_some_and(|n| literal(n).is_some())
}

/// Index of the `}` closing the block whose body starts at `from` (comments
/// skipped), if it closes.
fn block_end(text: &str, from: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut k = from;
    while k < b.len() {
        match b[k] {
            b'/' if b.get(k + 1) == Some(&b'/') => {
                k += text[k..].find('\n').unwrap_or(text.len() - k);
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                if depth == 0 {
                    return Some(k);
                }
                depth -= 1;
            }
            _ => {}
        }
        k += 1;
    }
    None
}

/// Whether `body` rebinds or changes `i`, or leaves its block other than at its end.
fn unsafe_for_index(body: &str) -> bool {
    [
        "continue", "break", "return", "for (", "loop", "while", "let i ", "var i ", "var i:",
        "i++", "i = ", "i += ", "i -= ",
    ]
    .iter()
    .any(|w| body.contains(w))
}

/// The runtime's `pset` (shaders/runtime.wgsl), which the SETP fold stands in for.
const PSET: &str = "fn pset(p: u32, c: u32, b: bool) {\n    if (b) { pr[p] = pr[p] | (1u << c); } else { pr[p] = pr[p] & ~(1u << c); }\n}";

/// Functions a folded SETP source may call: evaluated once instead of once per
/// channel, so they must have no effect but their value (`gld`'s compact form may note
/// a miss, the same one each time).
const PURE_CALLS: [&str; 8] = ["imm", "u64", "u32", "i64", "i32", "gld", "g32", "select"];

/// Every SETP channel loop over a one-value source (`alu::emit`'s scalar form)
/// written as one store of the predicate word:
/// `for (var i = 0u; i < Nu; i++) { let v = ((X) >> i) & 1lu; pset(P, i + Mu, ..); }`
/// sets bits M..M+N of `pr[P]` to bits 0..N of X.
fn fold_setp_loops(text: &str) -> String {
    if !text.contains(PSET) {
        return text.to_string();
    }
    rewrite_channel_loops(text, text.len(), &|k| setp_word(text, k))
}

/// `text` with each channel loop (`for (var i = 0u; i < ..`, at byte `k`) that
/// `rewrite(k)` takes replaced by the text it returns, up to the byte it returns.
fn rewrite_channel_loops(
    text: &str,
    capacity: usize,
    rewrite: &dyn Fn(usize) -> Option<(usize, String)>,
) -> String {
    let mut out = String::with_capacity(capacity);
    let mut at = 0;
    let mut search = 0;
    while let Some(k) = text[search..].find(LOOP_HEAD).map(|k| k + search) {
        search = k + LOOP_HEAD.len();
        let Some((end, new)) = rewrite(k) else {
            continue;
        };
        out.push_str(&text[at..k]);
        out.push_str(&new);
        at = end;
        search = end;
    }
    out.push_str(&text[at..]);
    out
}

/// The channel loop at `k`: its count as written before the `u`, and its body's
/// span, from after the `{` to the closing `}`.
fn channel_loop(text: &str, k: usize) -> Option<(&str, usize, usize)> {
    let rest = &text[k + LOOP_HEAD.len()..];
    let count_end = rest.find("u; i++) {")?;
    let open = k + LOOP_HEAD.len() + count_end + "u; i++) {".len();
    Some((&rest[..count_end], open, block_end(text, open)?))
}

/// The SETP loop at `k` as one store, and the byte after its closing brace.
fn setp_word(text: &str, k: usize) -> Option<(usize, String)> {
    let (count, open, close) = channel_loop(text, k)?;
    let n = literal(&format!("{count}u"))?;
    let mut lines = text[open..close]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty());
    let x = lines
        .next()?
        .strip_prefix("let v = ((")?
        .strip_suffix(") >> i) & 1lu;")?;
    let (p, m) = lines
        .next()?
        .strip_prefix("pset(")?
        .strip_suffix(", (v & 1lu) != 0lu);")?
        .split_once(", i + ")?;
    let m = literal(m)?;
    if lines.next().is_some() || n == 0 || n + m > 32 {
        return None;
    }
    // X and P are the same in every channel and read nothing the loop writes.
    let same =
        |e: &str| !["i", "v", "pr"].iter().any(|w| has_word(e, w)) && balanced(e) && pure_calls(e);
    if !same(x) || !same(p) {
        return None;
    }
    let full = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
    Some((
        close + 1,
        format!(
            "{{ let v = u32(({x}) & {full}lu); pr[{p}] = (pr[{p}] & ~({full}u << {m}u)) | (v << {m}u); }}"
        ),
    ))
}

/// Parentheses and brackets that close in order.
fn balanced(e: &str) -> bool {
    let mut depth = 0i32;
    for c in e.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

/// Whether every call in `e` (an identifier right before `(`) is one of [`PURE_CALLS`].
fn pure_calls(e: &str) -> bool {
    let b = e.as_bytes();
    (0..b.len()).filter(|&j| b[j] == b'(').all(|j| {
        let start = e[..j]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |s| s + 1);
        start == j || PURE_CALLS.contains(&&e[start..j])
    })
}

/// Straight modules' channel loops written out channel by channel (bodies that leave
/// early or rebind the index keep their loop).
fn unroll_channel_loops(text: &str, words: u32) -> String {
    rewrite_channel_loops(text, text.len() * 2, &|k| unrolled(text, k, words))
}

/// The loop at `k` written out, and the byte after its closing brace.
fn unrolled(text: &str, k: usize, words: u32) -> Option<(usize, String)> {
    let (count, open, close) = channel_loop(text, k)?;
    let n: u32 = count.parse().ok()?;
    let body = text[open..close].trim_start_matches(['\n', ' ']);
    let (tested, rest_body) = match body.strip_prefix(CHANNEL_TEST) {
        Some(r) => (true, r),
        None => (false, body),
    };
    if n == 0 || n > 32 || unsafe_for_index(rest_body) {
        return None;
    }
    let mut copies = String::new();
    for c in 0..n {
        // A two-pass instruction's buffered results (`alu.rs`): one slot a channel.
        let body = rest_body
            .replace("tv[i]", &format!("tv[{c}u]"))
            .replace("tx[i]", &format!("tx[{c}u]"));
        let folded = fold_grf_span(&body, words, Some(c));
        // What did not fold (a 2-byte access, a literal table) reads the index, bound
        // to the channel's literal so that NIR folds it at once.
        let folded = if has_word(&folded, "i") {
            format!(" let i = {c}u; {folded}")
        } else {
            folded
        };
        if tested {
            copies.push_str(&format!(
                "{{ if ((ce & (1u << {c}u)) != 0u) {{{folded}}} }}\n"
            ));
        } else {
            copies.push_str(&format!("{{{folded}}}\n"));
        }
        if copies.len() > UNROLLED_BYTES_MAX {
            return None;
        }
    }
    Some((close + 1, copies))
}

/// The GRF folds inside each `let i = Nu;` scope (a single channel's block), with `i`
/// as that literal, up to the block's end or a rebinding of `i`.
fn fold_with_known_index(text: &str, words: u32) -> String {
    const LET: &str = "let i = ";
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut search = 0;
    while let Some(k) = text[search..].find(LET).map(|k| k + search) {
        search = k + LET.len();
        if k > 0 && text.as_bytes()[k - 1].is_ascii_alphanumeric() {
            continue;
        }
        let Some(semi) = text[search..].find(';').map(|s| s + search) else {
            break;
        };
        let Some(value) = literal(text[search..semi].trim()) else {
            continue;
        };
        let start = semi + 1;
        let Some(end) = block_end(text, start) else {
            continue;
        };
        // Up to the next rebinding of `i`, if any, in this block.
        let scope_end = ["let i ", "var i ", "var i:", "for (var i"]
            .iter()
            .filter_map(|w| text[start..end].find(w).map(|p| p + start))
            .min()
            .unwrap_or(end);
        out.push_str(&text[at..start]);
        out.push_str(&fold_grf_span(&text[start..scope_end], words, Some(value)));
        at = scope_end;
        search = scope_end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chen_with_literal_shapes_becomes_its_value() {
        let t = "let a = chen(em, 16u, 0u, true, 0u, false, 0u, false);\n\
                 let b = chen(dm, 8u, 8u, false, pr[2u], true, 2u, true);\n\
                 let c = chen(em, 32u, 0u, false, 0u, false, 0u, false);\n\
                 let d = chen(em, n, 0u, false, 0u, false, 0u, false);\n\
                 fn chen(em: u32, n: u32, off: u32, nomask: bool, pbits: u32, has_pred: bool, comb: u32, inv: bool) -> u32 {";
        let f = fold_chen(t);
        assert!(f.contains("let a = 65535u;"), "{f}");
        assert!(
            f.contains(
                "let b = (((dm >> 8u) & 255u) & (~select(0u, 255u, ((pr[2u] >> 8u) & 255u) == 255u) & 255u));"
            ),
            "{f}"
        );
        assert!(f.contains("let c = (em);"), "{f}");
        // A shape only known at run time, and the definition, stay.
        assert!(f.contains("let d = chen(em, n, 0u,"), "{f}");
        assert!(f.contains("fn chen(em: u32, n: u32"), "{f}");
    }

    #[test]
    fn offsets_evaluate_in_wrapping_u32_arithmetic() {
        assert_eq!(eval_offset("(2208u + i * 4u)", Some(3)), Some(2220));
        assert_eq!(eval_offset("2176u + (i) * 4u", Some(0)), Some(2176));
        assert_eq!(eval_offset("4u - 8u", None), Some(u32::MAX - 3));
        assert_eq!(eval_offset("(2208u + i * 4u)", None), None);
        assert_eq!(eval_offset("o + 4u", Some(1)), None);
        assert_eq!(eval_offset("i64(4u)", Some(1)), None);
        assert_eq!(eval_offset("0x10u", None), None);
    }

    fn module(body: &str) -> String {
        format!(
            "const K_GRF_WORDS: u32 = 1200u;\n{G_PRIVATE}\n{G32_PRIVATE}\n    return 0u;\n}}\n\
             {GS32_PRIVATE}\n}}\nfn run_lane(dm: u32) -> u32 {{\n{body}\n    return 0u;\n}}\n"
        )
    }

    #[test]
    fn setp_of_one_value_stores_the_predicate_word() {
        let lp = |n: u32, x: &str, p: &str, m: u32| {
            format!(
                "    for (var i = 0u; i < {n}u; i++) {{\n        let v = (({x}) >> i) & 1lu;\n        \
                 pset({p}, i + {m}u, (v & 1lu) != 0lu);\n    }}\n"
            )
        };
        let text = format!(
            "{PSET}\n{}{}{}",
            lp(16, "imm(0u, 0u)", "1u", 0),
            lp(16, "gld(2716u, 4u)", "cfg[tbl_pb + 1u]", 16),
            lp(32, "u64(ug8)", "3u", 0)
        );
        let out = fold_setp_loops(&text);
        assert!(!out.contains("for ("), "{out}");
        for word in [
            "{ let v = u32((imm(0u, 0u)) & 65535lu); pr[1u] = (pr[1u] & ~(65535u << 0u)) | (v << 0u); }",
            "{ let v = u32((gld(2716u, 4u)) & 65535lu); pr[cfg[tbl_pb + 1u]] = (pr[cfg[tbl_pb + 1u]] & ~(65535u << 16u)) | (v << 16u); }",
            "{ let v = u32((u64(ug8)) & 4294967295lu); pr[3u] = (pr[3u] & ~(4294967295u << 0u)) | (v << 0u); }",
        ] {
            assert!(out.contains(word), "{word}\n{out}");
        }
        // A source per channel, a call that may do more than read, bits past 32, or
        // another `pset` than the runtime's: the loop stays.
        for kept in [
            lp(16, "gld(2716u + i * 4u, 4u)", "1u", 0),
            lp(16, "atomicLoad(&xq[0u])", "1u", 0),
            lp(16, "u64(pr[1u])", "2u", 0),
            lp(16, "imm(0u, 0u)", "1u", 17),
        ] {
            let text = format!("{PSET}\n{kept}");
            assert_eq!(fold_setp_loops(&text), text);
        }
        let other = lp(16, "imm(0u, 0u)", "1u", 0);
        assert_eq!(fold_setp_loops(&other), other);
    }

    #[test]
    fn channel_loops_unroll_where_the_index_only_offsets_the_grf() {
        let body = "    let ce = 3u;\n    for (var i = 0u; i < 2u; i++) {\n        \
                    if ((ce & (1u << i)) == 0u) { continue; }\n        \
                    let s0 = gld((2208u + i * 4u), 4u);\n        let v = s0 + 1lu;\n        \
                    gst(2240u + (i) * 8u, 8u, v);\n    }\n";
        let f = for_driver(&module(body));
        assert!(!f.contains("for (var i"), "{f}");
        assert!(f.contains("if ((ce & (1u << 1u)) != 0u)"), "{f}");
        assert!(f.contains("let s0 = u64(g[553u]);"), "{f}");
        assert!(
            f.contains("g[562u] = u32(v & 0xfffffffflu); g[563u] = u32(v >> 32u);"),
            "{f}"
        );
        // The index read elsewhere, or an offset past the GRF: written out too, with
        // the index bound to the channel's literal.
        let read = for_driver(&module(&body.replace("s0 + 1lu", "s0 + u64(i)")));
        assert!(!read.contains("for (var i"), "{read}");
        assert!(read.contains("let i = 1u;"), "{read}");
        let past = for_driver(&module(&body.replace("2208u", "6000u")));
        assert!(!past.contains("for (var i"), "{past}");
        assert!(past.contains("let i = 0u;"), "{past}");
        assert!(past.contains("u64(g32((6000u + i * 4u)))"), "{past}");
        // A two-pass instruction's buffered results: one literal slot a channel.
        let buffered = body
            .replace("let v = s0 + 1lu;", "tv[i] = s0 + 1lu;")
            .replace(", 8u, v);", ", 8u, tv[i]);");
        let f = for_driver(&module(&buffered));
        assert!(f.contains("tv[1u] = s0 + 1lu;"), "{f}");
        assert!(f.contains("g[562u] = u32(tv[1u] & 0xfffffffflu);"), "{f}");
        // A body that leaves early or rebinds the index keeps its loop.
        let early = body.replace("let v = s0 + 1lu;", "if (s0 == 0lu) { break; } let v = s0;");
        assert!(for_driver(&module(&early)).contains("for (var i"));
    }

    #[test]
    fn a_known_channel_folds_its_offsets_and_other_modules_keep_theirs() {
        let body = "    {\n        let i = 0u;\n        let s0 = gld(2320u, 4u);\n        \
                    gst(2176u + (i) * 4u, 4u, s0);\n        let h = gld(2320u, 2u);\n        \
                    gst(2178u, 2u, v);\n        let b = gld(2321u, 2u);\n    }\n    \
                    gst(2176u + (i) * 4u, 4u, x);\n";
        let f = for_driver(&module(body));
        assert!(f.contains("let s0 = u64(g[580u]);"), "{f}");
        assert!(f.contains("g[544u] = u32(s0 & 0xfffffffflu);"), "{f}");
        // A rebinding of `i` ends the known channel's scope.
        let rebound = module(&body.replace(
            "        gst(2176u",
            "        var i: u32 = 5u;\n        gst(2176u",
        ));
        assert!(for_driver(&rebound).contains(
            "var i: u32 = 5u;\n        gs32(2176u + (i) * 4u, u32((s0) & 0xfffffffflu));"
        ));
        // Two bytes from their word; an odd offset, and `i` outside its scope, stay
        // calls.
        assert!(f.contains("let h = u64((g[580u] >> 0u) & 0xffffu);"), "{f}");
        assert!(
            f.contains(
                "g[544u] = (g[544u] & 65535u) | ((u32(v & 0xfffffffflu) & 0xffffu) << 16u);"
            ),
            "{f}"
        );
        assert!(f.contains("gld(2321u, 2u)"), "{f}");
        assert!(
            f.contains("    gs32(2176u + (i) * 4u, u32((x) & 0xfffffffflu));"),
            "{f}"
        );
        // A GRF in `state` (or a compact image): no `g32` of the private form, so no
        // words of `g`; a word's call is still its `g32`/`gs32` call.
        let state = module(body).replace(G32_PRIVATE, "fn g32(o: u32) -> u32 {");
        let f = for_driver(&state);
        assert!(f.contains("let s0 = u64(g32(2320u));"), "{f}");
        assert!(
            f.contains("gs32(2176u + (i) * 4u, u32((x) & 0xfffffffflu));"),
            "{f}"
        );
    }
}
