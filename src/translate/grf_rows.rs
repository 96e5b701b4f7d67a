//! A straight module's GRF image, compacted to the rows it can reach.
//!
//! Each straight invocation keeps its own copy of the thread's GRF image for what is
//! not in registers. NVIDIA's compiler refuses large private arrays
//! (`PRIVATE_GRF_WORDS_MAX`) and llvmpipe slows down with them, yet most of a large
//! image is lane vectors held in registers or words no instruction touches. The
//! compact image keeps only the rows of 8 words that some instruction's GRF bytes
//! reach through the image (the plan's reads and writes, less the words held in
//! registers and the scalar slots moved out), in order, and every index into it goes
//! through `gw`: a few runs of consecutive rows, each moved down by a constant. A word
//! of any other row would be the translator's slip: `gw` sends it to a spare row and
//! records it (`grf_miss`), the run ends with `ERR_STRAIGHT_GRF`, and the host runs the
//! launch in the thread mapping, so a slip costs speed, never bytes.

use super::lanes::Plan;

/// Straight images over this many words are compacted where [`worth_it`] says so
/// (over `PRIVATE_GRF_WORDS_MAX` always).
pub const COMPACT_FROM_WORDS: u32 = 512;

/// The most image accesses at run-time words (through `gw` or an accessor call) in
/// the kernel's code for which a compact image is worth it under the private-array
/// limit. llvmpipe compiles a large private array that the code indexes only at
/// known words slowly (NIR splits it into that many variables and copy-propagates
/// among them), and a small one indexed at run time slowly too (each access a chain
/// of selects). The 36 straight modules (corpus and own cases) with images of 544 to
/// 1,952 words under the limit, pipeline creation compact / whole, two runs each: the
/// 14 with 2-6 such accesses 0.10-0.41 (atomic_global_counters SIMD16 0.9 -> 0.11 s,
/// image_rw tgllp SIMD8 1.9 -> 0.3 s); the 22 with 11-106 of them 0.60-2.85
/// (subgroup_block_rw tgllp SIMD16 0.19 -> 0.45 s).
const RUN_TIME_ACCESSES_MAX: usize = 8;

/// Whether `compact` (a straight module with its image compacted by [`apply`]) reaches
/// its image at run-time words few enough times for the compact image to pay.
pub fn worth_it(compact: &str) -> bool {
    let kernel = compact
        .find("// ---- kernel ----")
        .map_or(compact, |k| &compact[k..]);
    let accesses: usize = ["gw(", "gld(", "gst(", "g32(", "gs32(", "gb(", "gsb("]
        .iter()
        .map(|f| {
            kernel
                .match_indices(f)
                .filter(|&(i, _)| {
                    // A call, not part of a longer name.
                    !kernel[..i]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                })
                .count()
        })
        .sum();
    accesses <= RUN_TIME_ACCESSES_MAX
}

/// Words of a row of the map.
const ROW: u32 = 8;

/// The most runs `gw` tests (each a compare and a select per access).
const RUNS_MAX: usize = 24;

/// The image's rows in use, as runs `(first row, rows, first compact row)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rows {
    pub runs: Vec<(u32, u32, u32)>,
    /// Words of the compact image (its rows and the spare one).
    pub words: u32,
}

/// The rows of a `grf_words` image that straight code reaches through the image, or
/// `None` where they are too scattered for `gw`'s runs.
pub fn rows(plan: &Plan, moved: &[(u32, u32)], grf_words: u32) -> Option<Rows> {
    let mut word = vec![false; grf_words as usize];
    let mut mark = |a: u32, b: u32| {
        for w in a / 4..b.div_ceil(4) {
            if let Some(x) = word.get_mut(w as usize) {
                *x = true;
            }
        }
    };
    // Scalar slots moved into registers: every access the rewrite knew of went
    // there. A slot of 1 or 2 bytes shares its word with others, which may not.
    let moved_away = |a: u32, b: u32| moved.iter().any(|&(s, e)| s <= a && b <= s + e);
    for (bytes, _) in plan.reads.iter().chain(&plan.writes) {
        for &(a, b) in bytes {
            if !moved_away(a, b) {
                mark(a, b);
            }
        }
    }
    for (w, x) in word.iter_mut().enumerate() {
        *x &= !plan.in_registers.get(w).copied().unwrap_or(false);
    }
    let mut runs: Vec<(u32, u32, u32)> = Vec::new();
    let mut at = 0;
    for (r, chunk) in word.chunks(ROW as usize).enumerate() {
        if !chunk.iter().any(|&x| x) {
            continue;
        }
        let r = r as u32;
        match runs.last_mut() {
            Some(run) if run.0 + run.1 == r => run.1 += 1,
            _ => runs.push((r, 1, at)),
        }
        at += 1;
    }
    (runs.len() <= RUNS_MAX).then_some(Rows {
        runs,
        words: (at + 1) * ROW,
    })
}

/// Where a straight module's `main` reports a slip (`simt::emit_main`); a line that
/// does nothing in a module whose image is whole.
pub const MISS_MARK: &str = "    // (the GRF image is whole)\n";

/// The report that replaces [`MISS_MARK`] in a compacted module.
const MISS_REPORT: &str =
    "    if (grf_miss != 0u) { code = ERR_STRAIGHT_GRF; at = grf_miss - 1u; }\n";

/// The declaration of `g` the runtime makes for the whole image.
const WHOLE_DECL: &str = "var<private> g: array<u32, K_GRF_QUADS * 4u>;";

/// `wgsl` with its GRF image compacted to `rows`: `g` declared at the compact size, and
/// every `g[i]` as `g[gw(i)]`. `None` when the module has no such declaration.
pub fn apply(wgsl: &str, rows: &Rows) -> Option<String> {
    let at = wgsl.find(WHOLE_DECL)?;
    let spare = rows.words - ROW;
    let mut out = String::with_capacity(wgsl.len() + wgsl.len() / 8);
    out.push_str(&wgsl[..at]);
    out.push_str(&format!(
        "var<private> g: array<u32, {}u>;\n\
         // A word the compact image left out (`grf_rows.rs`): the thread mapping runs.\n\
         var<private> grf_miss: u32;\n\
         // The compact place of GRF word `w`.\n\
         fn gw(w: u32) -> u32 {{\n    let r = w / {ROW}u;\n    var c = {spare}u + w % {ROW}u;\n    var hit = false;\n",
        rows.words
    ));
    for &(first, n, to) in &rows.runs {
        out.push_str(&format!(
            "    let in{first} = r - {first}u < {n}u;\n    c = select(c, w - {}u, in{first});\n    hit = hit || in{first};\n",
            (first - to) * ROW
        ));
    }
    out.push_str("    grf_miss = select(grf_miss, w + 1u, !hit);\n    return c;\n}");
    out.push_str(&through_gw(&wgsl[at + WHOLE_DECL.len()..], rows)?);
    out.contains(MISS_MARK)
        .then(|| out.replacen(MISS_MARK, MISS_REPORT, 1))
}

impl Rows {
    /// The compact place of word `w`, where its row is kept.
    fn place(&self, w: u32) -> Option<u32> {
        let r = w / ROW;
        self.runs
            .iter()
            .find(|&&(first, n, _)| r >= first && r - first < n)
            .map(|&(first, _, to)| w - (first - to) * ROW)
    }
}

/// `text` with every `g[i]` written `g[gw(i)]` (indices holding `g[...]` too), and a
/// literal index of a kept row as its compact place (thousands of meeting copies:
/// llvmpipe took minutes over their calls).
fn through_gw(text: &str, rows: &Rows) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let (mut i, mut copied) = (0, 0);
    while let Some(k) = text[i..].find("g[") {
        let s = i + k;
        i = s + 2;
        if s > 0 && (bytes[s - 1].is_ascii_alphanumeric() || bytes[s - 1] == b'_') {
            continue;
        }
        // The matching `]`.
        let mut depth = 1;
        let mut e = i;
        while depth > 0 {
            match bytes.get(e)? {
                b'[' => depth += 1,
                b']' => depth -= 1,
                _ => {}
            }
            e += 1;
        }
        out.push_str(&text[copied..i]);
        let index = &text[i..e - 1];
        let place = super::literal::u32_literal(index).and_then(|w| rows.place(w));
        match place {
            Some(c) => out.push_str(&format!("{c}u]")),
            None => {
                out.push_str("gw(");
                out.push_str(&through_gw(index, rows)?);
                out.push_str(")]");
            }
        }
        copied = e;
        i = e;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run-time accesses are the kernel's calls of `gw` and the accessors, not the
    /// runtime's definitions before the kernel nor longer names (`flat_gld(`).
    #[test]
    fn worth_it_counts_the_kernels_run_time_accesses() {
        let runtime = "fn gld(o: u32, n: u32) -> u64 { return u64(g[gw(o >> 2u)]); }\n";
        let few = format!("{runtime}// ---- kernel ----\nlet a = gld(x, 4u); flat_gld(y);\n");
        assert!(worth_it(&few));
        let calls = "let a = gld(x, 4u);\n".repeat(RUN_TIME_ACCESSES_MAX + 1);
        assert!(!worth_it(&format!("{runtime}// ---- kernel ----\n{calls}")));
    }

    #[test]
    fn indices_go_through_gw_and_runs_move_down() {
        let rows = Rows {
            runs: vec![(2, 3, 0), (10, 1, 3)],
            words: 5 * ROW,
        };
        let w = format!(
            "{WHOLE_DECL}\nfn f(o: u32) {{ g[o >> 2u] = g[g[1u] + 2u]; big[3u] = 1u; }}\n{MISS_MARK}"
        );
        let out = apply(&w, &rows).unwrap();
        assert!(out.contains("var<private> g: array<u32, 40u>;"), "{out}");
        // Word 1's row 0 is not kept: through `gw`, which records the slip; word 17
        // (row 2) is kept at compact word 1.
        assert!(
            out.contains("g[gw(o >> 2u)] = g[gw(g[gw(1u)] + 2u)]"),
            "{out}"
        );
        let w = format!("{WHOLE_DECL}\nfn f() {{ g[17u] = 0u; }}\n{MISS_MARK}");
        assert!(apply(&w, &rows).unwrap().contains("g[1u] = 0u;"));
        assert!(out.contains("big[3u]"), "{out}");
        assert!(out.contains(MISS_REPORT), "{out}");
        // Row 10 (words 80..88) lands at compact row 3 (words 24..32).
        assert!(out.contains("c = select(c, w - 56u, in10);"), "{out}");
        assert!(out.contains("c = select(c, w - 16u, in2);"), "{out}");
    }
}
