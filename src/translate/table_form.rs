//! The table form of the thread mapping: every distinct instruction *shape* is
//! compiled once, and a table in `cfg` says which shape each instruction is and
//! where its numbers are.
//!
//! The plain thread mapping writes every instruction out with its offsets, sizes and
//! immediates as literals. Mesa inlines every function, so a kernel of a few thousand
//! instructions becomes a shader llvmpipe needs minutes to tens of minutes (and
//! gigabytes) to compile. Most of those instructions differ only in their numbers:
//! `private_array_dynamic` has 883 instructions but few shapes. Here an instruction's
//! WGSL has each large `u32` literal replaced by a read of its parameter
//! (`cfg[tbl_pb + k]`); equal texts are one shape, one arm of a `switch` inside an
//! instruction loop. A block's arm of the block switch only sets the instruction
//! range; its control-flow instruction (goto, call, ...) stays in a second switch.
//!
//! What stays literal: loop headers (the pass budget reads their bounds), `case`
//! selectors, array sizes, constant declarations, a known %cr0 value (float code
//! folds its rounding mode), an atomic's operation, and the few literals [`keep`]
//! names (element sizes, bit widths, channel offsets: the code keeps its constant
//! folding). Costs are those of the instructions'
//! own text, so the pass budget is unchanged but for the instruction loop.

use super::{blocks, budget, Emit, TranslateError};
use crate::interp::prepare::Prepared;
use std::collections::HashMap;

/// Literals that stay in the shape: element and operand sizes, bit widths, the
/// channel offsets of the mask controls. Anything else (GRF offsets, predicate and
/// address register numbers, immediates, control-register values) is a parameter.
fn keep(v: u32) -> bool {
    matches!(v, 0 | 1 | 2 | 3 | 4 | 8 | 16 | 24 | 32 | 64)
}

/// Instructions above this count use the table form when the caller leaves the choice
/// to the translator (compile time grows with the text; smaller kernels keep the
/// specialized code, which runs faster).
pub const AUTO_MIN_INSTRUCTIONS: usize = 600;

/// An instruction's WGSL with its numbers taken out.
#[derive(Debug, PartialEq, Eq)]
pub struct Shaped {
    pub text: String,
    pub params: Vec<u32>,
}

/// Arrays an instruction may declare (alu.rs, two-pass results): every instruction
/// writes the elements it reads back, so one declaration serves all of them (each
/// dynamically indexed array is costly for llvmpipe to compile).
const TEMPORARIES: [&str; 2] = ["var tv: array<u64, 32>;", "var tx: array<u64, 32>;"];

/// Whether `line` must keep its literals (see the module comment).
fn keeps_literals(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("case ")
        || t.starts_with("const ")
        // The control register's value where the translator knows it: float code folds
        // its rounding and denormal modes.
        || t.starts_with("let cr = ")
        // An atomic's operation: each folds to its own code (as parameters, every
        // operation's code, the 64-bit compare-and-swap loops too, is compiled).
        || t.contains("atomic")
        || t.contains("array<")
}

/// Where the header of a `for` loop on `line` ends (after its closing parenthesis).
fn loop_header_end(line: &str) -> Option<usize> {
    let start = line.find("for (")?;
    Some(matching_paren(line, start + "for ".len()).map_or(line.len(), |k| k + 1))
}

/// Index of the `)` that closes the `(` at byte `open` of `code`, if it closes.
pub(super) fn matching_paren(code: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, &c) in code.as_bytes().iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

fn ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

/// `text` with each `u32` literal but those [`keep`] names replaced by `cfg[tbl_pb + k]`.
/// `None` when the text leaves its instruction with `break` or `continue` at its own
/// level (the instruction loop would change what they mean).
pub fn shape(text: &str, all: bool) -> Option<Shaped> {
    let mut out = String::with_capacity(text.len());
    let mut params = Vec::new();
    let mut depth = 0i64;
    // Brace depths at which the instruction's own `for` loops close.
    let mut loops: Vec<i64> = Vec::new();
    for line in text.lines() {
        // The two-pass temporaries are declared once, before the instruction loop.
        if TEMPORARIES.contains(&line.trim()) {
            continue;
        }
        let (code, comment) = match line.find("//") {
            Some(k) => line.split_at(k),
            None => (line, ""),
        };
        let t = code.trim_start();
        let opens_loop = t.starts_with("for (") || t.contains(" for (");
        if !opens_loop
            && loops.is_empty()
            && (has_word(code, "break") || has_word(code, "continue"))
        {
            return None;
        }
        if keeps_literals(code) {
            out.push_str(code);
        } else {
            // A loop's header keeps its literals (the pass budget reads its bound); a
            // one-line loop's body does not.
            let body = loop_header_end(code).unwrap_or(0);
            out.push_str(&code[..body]);
            replace_literals(&code[body..], &mut out, &mut params, all);
        }
        out.push_str(comment);
        out.push('\n');
        let before = depth;
        depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
        if opens_loop && depth > before {
            loops.push(before);
        }
        while loops.last().is_some_and(|&d| depth <= d) {
            loops.pop();
        }
    }
    Some(Shaped { text: out, params })
}

/// Whether `code` names `word` (identifier characters only) as a whole identifier:
/// one of its runs of identifier characters. One pass over the bytes: the translator
/// asks this of every instruction's text for one- and two-letter names, whose
/// substring matches a searcher would stop at everywhere.
pub(super) fn has_word(code: &str, word: &str) -> bool {
    identifier_runs(code).any(|run| run == word.as_bytes())
}

/// Add to `counts[j]` how many times `code` names `words[j]` as a whole identifier
/// (the runs of identifier characters [`has_word`] reads), in one pass.
pub(super) fn count_words(code: &str, words: &[&str], counts: &mut [usize]) {
    for run in identifier_runs(code) {
        for (w, c) in words.iter().zip(counts.iter_mut()) {
            if run == w.as_bytes() {
                *c += 1;
            }
        }
    }
}

/// The runs of identifier characters of `code`, in order.
fn identifier_runs(code: &str) -> impl Iterator<Item = &[u8]> {
    let b = code.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() && !ident_char(b[i]) {
            i += 1;
        }
        let start = i;
        while i < b.len() && ident_char(b[i]) {
            i += 1;
        }
        (i > start).then(|| &b[start..i])
    })
}

/// `all`: every `u32` literal is a parameter (block ends: block numbers).
fn replace_literals(code: &str, out: &mut String, params: &mut Vec<u32>, all: bool) {
    let b = code.as_bytes();
    let mut k = 0;
    while k < b.len() {
        let starts = b[k].is_ascii_digit() && (k == 0 || !ident_char(b[k - 1]));
        if starts {
            if let Some((value, len)) = u32_literal(&b[k..]) {
                // Register numbers and immediates are parameters whatever their value.
                let named = ["pr[", "ar[", "pset(", "imm("]
                    .iter()
                    .any(|p| code[..k].ends_with(p))
                    || chen_offset(&code[..k]);
                if all || named || !keep(value) {
                    out.push_str(&format!("cfg[tbl_pb + {}u]", params.len()));
                    params.push(value);
                } else {
                    out.push_str(&code[k..k + len]);
                }
                k += len;
                continue;
            }
            // Some other number (`5i`, `1.5`, `0xffffffffu64`...): copy it whole.
            let end = (k..b.len()).find(|&j| !ident_char(b[j])).unwrap_or(b.len());
            out.push_str(&code[k..end]);
            k = end;
            continue;
        }
        let ch = code[k..].chars().next().unwrap_or(' ');
        out.push(ch);
        k += ch.len_utf8();
    }
}

/// Whether `before` ends where `chen`'s channel offset starts (`chen(em, 16u, `): the
/// M1 and M5 halves of an instruction are then one shape.
fn chen_offset(before: &str) -> bool {
    before
        .strip_suffix("u, ")
        .map(|s| s.trim_end_matches(|c: char| c.is_ascii_digit()))
        .is_some_and(|s| s.ends_with("chen(em, "))
}

/// A `123u` or `0x7bu` literal at the start of `b`: its value and length.
fn u32_literal(b: &[u8]) -> Option<(u32, usize)> {
    let (digits, radix, skip) = if b.starts_with(b"0x") || b.starts_with(b"0X") {
        (&b[2..], 16, 2)
    } else {
        (b, 10, 0)
    };
    let n = digits
        .iter()
        .take_while(|c| c.is_ascii_digit() || (radix == 16 && c.is_ascii_hexdigit()))
        .count();
    if n == 0 || digits.get(n) != Some(&b'u') {
        return None;
    }
    if digits.get(n + 1).is_some_and(|&c| ident_char(c)) {
        return None;
    }
    let s = std::str::from_utf8(&digits[..n]).ok()?;
    let v = u32::from_str_radix(s, radix).ok()?;
    Some((v, skip + n + 1))
}

/// One block of the table form.
struct Block {
    /// Its first instruction's index and its instruction count (for the accounting).
    at: usize,
    len: usize,
    /// Instruction range run from the table (the block's control-flow instruction,
    /// if it ends in one, excluded).
    table: std::ops::Range<usize>,
    /// Loop back-edges of the whole block.
    cost: u64,
    /// The shape that ends the block (its control-flow instruction, or every running
    /// channel on to the next block) and where its parameters start.
    end_shape: u32,
    end_params: u32,
}

/// Words of a block's record: cost, instruction count, first instruction's index,
/// table range (2), end shape and its parameters, one spare.
const BLOCK_WORDS: usize = 8;

/// Interned shape texts.
#[derive(Default)]
struct ShapeSet {
    texts: Vec<String>,
    ids: HashMap<String, u32>,
}

impl ShapeSet {
    fn id(&mut self, text: String) -> u32 {
        if let Some(&id) = self.ids.get(&text) {
            return id;
        }
        self.texts.push(text.clone());
        self.ids.insert(text, self.texts.len() as u32 - 1);
        self.texts.len() as u32 - 1
    }
}

/// The shapes, the per-instruction table and the blocks of a kernel.
pub struct Tables {
    shapes: ShapeSet,
    ends: ShapeSet,
    /// For every instruction (index into `p.insts`): shape id and parameter offset
    /// (relative to the table's start); then a record per block ([`BLOCK_WORDS`]);
    /// then the parameters.
    pub words: Vec<u32>,
    blocks: Vec<Block>,
    /// Upper bound of what one instruction of the table costs (its own loops and the
    /// masked loops of every shape), and of what a block pays besides its
    /// instructions (its head and its end).
    step_cost: u64,
    fixed_cost: u64,
}

/// Loop back-edges one block of the table form may cost at most, where
/// [`Tables::insts_per_block_within`] can get it there: a quarter of the pass budget
/// on llvmpipe (`backend::gpu::pass_budget`, 16383), so that a pass still holds a block
/// when the host halves the budget twice after a driver-stopped pass.
pub const BLOCK_COST_CAP: u64 = 4096;

/// An instruction's WGSL, written by the caller (`emit_inst`) into a fresh `Emit`:
/// its text and whether it ended the block itself.
pub type InstText<'a> = dyn FnMut(usize, &str) -> Result<(String, bool), TranslateError> + 'a;

impl Tables {
    /// Shape every instruction of every block. `None` when some instruction's code
    /// cannot be shaped (then the plain form is used).
    pub fn build(
        p: &Prepared,
        cfg_blocks: &blocks::Blocks,
        costs: &budget::Costs,
        inst_text: &mut InstText,
    ) -> Result<Option<Tables>, TranslateError> {
        let n = p.insts.len();
        let nb = cfg_blocks.ranges.len();
        let mut words = vec![0u32; 2 * n + BLOCK_WORDS * nb];
        let (mut shapes, mut ends) = (ShapeSet::default(), ShapeSet::default());
        let mut blocks_out = Vec::new();
        let head_cost = super::block_head_cost(p);
        let (mut max_inst_cost, mut max_end_cost) = (0u64, 0u64);
        for range in &cfg_blocks.ranges {
            let next = cfg_blocks.block_expr(range.end as u32);
            let mut cost = head_cost;
            let mut end = None;
            for k in range.clone() {
                let (text, ended) = inst_text(k, &next)?;
                let own = costs.block(&text).map_err(TranslateError::Budget)?;
                cost += own;
                if ended {
                    // Only a block's last instruction moves the channel PCs.
                    if k + 1 != range.end {
                        return Ok(None);
                    }
                    end = Some(text);
                    break;
                }
                let Some(s) = shape(&text, false) else {
                    return Ok(None);
                };
                max_inst_cost = max_inst_cost.max(own);
                words[2 * k] = shapes.id(s.text);
                words[2 * k + 1] = words.len() as u32;
                words.extend(s.params);
            }
            let table_end = if end.is_some() {
                range.end - 1
            } else {
                range.end
            };
            let end = end.unwrap_or_else(|| {
                super::each_enabled_channel(None, &format!("pcs[c] = {next};")) + "\n"
            });
            let end_own = costs.block(&end).map_err(TranslateError::Budget)?;
            max_end_cost = max_end_cost.max(end_own);
            cost += end_own;
            let Some(s) = shape(&end, true) else {
                return Ok(None);
            };
            // The instruction loop's back-edges.
            cost += (table_end - range.start) as u64;
            blocks_out.push(Block {
                at: p.insts[range.start].index,
                len: range.len(),
                table: range.start..table_end,
                cost,
                end_shape: ends.id(s.text),
                end_params: words.len() as u32,
            });
            words.extend(s.params);
        }
        // llvmpipe runs every case of a switch, masked, whichever an invocation takes
        // (`budget::Costs::masked`): each instruction of a block pays for the loops of
        // every shape, and each block end for those of every end shape.
        let masked = shapes.texts.iter().map(|t| costs.masked(t)).sum::<u64>();
        let masked_end = ends.texts.iter().map(|t| costs.masked(t)).sum::<u64>();
        for block in &mut blocks_out {
            block.cost += block.table.len() as u64 * masked + masked_end;
        }
        for (b, block) in blocks_out.iter().enumerate() {
            let r = 2 * n + BLOCK_WORDS * b;
            let fit = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
            words[r..r + 7].copy_from_slice(&[
                fit(block.cost),
                block.len as u32,
                block.at as u32,
                block.table.start as u32,
                block.table.end as u32,
                block.end_shape,
                block.end_params,
            ]);
        }
        Ok(Some(Tables {
            shapes,
            ends,
            words,
            blocks: blocks_out,
            step_cost: masked + max_inst_cost,
            fixed_cost: head_cost + masked_end + max_end_cost,
        }))
    }

    /// The most instructions a block may hold for every block to cost at most `cap`,
    /// where the blocks now hold more (`None`: they fit, or cannot be made to).
    pub fn insts_per_block_within(&self, cap: u64) -> Option<usize> {
        if self.costliest_block() <= cap {
            return None;
        }
        // Each instruction: its step, and one back-edge of the instruction loop.
        let n = (cap.saturating_sub(self.fixed_cost) / (self.step_cost + 1)).max(1) as usize;
        let longest = self.blocks.iter().map(|b| b.table.len()).max().unwrap_or(0);
        (n < longest).then_some(n)
    }

    /// Loop back-edges of the costliest block.
    fn costliest_block(&self) -> u64 {
        self.blocks.iter().map(|b| b.cost).max().unwrap_or(0)
    }

    /// Instruction shapes and block-end shapes compiled.
    pub fn shape_count(&self) -> usize {
        self.shapes.texts.len() + self.ends.texts.len()
    }

    /// `run_thread` in the table form: one generic block head reading the block's
    /// record, the instruction loop over the shapes, the block end over the end
    /// shapes. Returns the costliest block's and all blocks' loop back-edges, as
    /// `emit_block_loop` does.
    pub fn emit_run_thread(
        &self,
        em: &mut Emit,
        p: &Prepared,
        save_cost: u64,
    ) -> Result<(u64, u64), TranslateError> {
        let longest = self.blocks.iter().map(|b| b.table.len()).max().unwrap_or(0);
        let max_cost = self.costliest_block();
        let all_cost = self.blocks.iter().map(|b| b.cost).sum();
        em.open("fn run_thread() -> u32");
        em.line("let t0 = cfg[CFG_TABLE];");
        for t in TEMPORARIES {
            em.line(t);
        }
        em.open("loop");
        super::emit_pick_block(em);
        em.line(&format!(
            "if (pc >= {}u) {{ return 0u; }}",
            self.blocks.len()
        ));
        em.line(&format!(
            "let bk = t0 + {}u + {BLOCK_WORDS}u * pc;",
            2 * p.insts.len()
        ));
        let pad = "    ".repeat(em.depth);
        em.out.push_str(&super::pass_check(
            &pad,
            "cfg[bk]",
            save_cost,
            "cfg[bk + 2u]",
        ));
        super::emit_block_accounting(em, "cfg[bk + 1u]", "cfg[bk + 2u]");
        em.line(&format!("// loop-bound: {longest}"));
        em.open("for (var ip = cfg[bk + 3u]; ip < cfg[bk + 4u]; ip++)");
        em.line("let tbl_pb = t0 + cfg[t0 + 2u * ip + 1u];");
        emit_switch(em, "cfg[t0 + 2u * ip]", &self.shapes);
        em.close();
        em.open("");
        em.line("let tbl_pb = t0 + cfg[bk + 6u];");
        emit_switch(em, "cfg[bk + 5u]", &self.ends);
        em.close();
        em.close();
        em.line("return 0u;");
        em.close();
        Ok((max_cost, all_cost))
    }
}

fn emit_switch(em: &mut Emit, selector: &str, shapes: &ShapeSet) {
    em.open(&format!("switch {selector}"));
    for (s, text) in shapes.texts.iter().enumerate() {
        em.open(&format!("case {s}u:"));
        for line in text.lines() {
            em.line(line);
        }
        em.close();
    }
    em.line("default: {}");
    em.close();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_a_whole_identifier() {
        assert!(has_word("f(i) + 1u", "i"));
        assert!(has_word("i", "i") && has_word("x = em;", "em"));
        // Inside longer names, literals and member accesses it is not.
        assert!(!has_word(
            "let li = imm(0u, 1u); if (pi.x) { i2 = v.i; }",
            "i"
        ));
        assert!(!has_word("0u", "u"));
        assert!(!has_word("", "i"));
    }

    fn shape_i(text: &str) -> Option<Shaped> {
        shape(text, false)
    }

    #[test]
    fn large_literals_become_parameters() {
        let s = shape_i("let s0 = gld(1552u, 4u);\ngst(0x7c0u + i * 4u, 4u, v);\n").unwrap();
        assert_eq!(
            s.text,
            "let s0 = gld(cfg[tbl_pb + 0u], 4u);\ngst(cfg[tbl_pb + 1u] + i * 4u, 4u, v);\n"
        );
        assert_eq!(s.params, vec![1552, 0x7c0]);
    }

    #[test]
    fn other_literals_and_protected_lines_stay() {
        let text =
            "for (var i = 0u; i < 128u; i++) {\nlet x = 4294967295lu + 100i + 1.5f + v2000u;\n}\n";
        let s = shape_i(text).unwrap();
        assert_eq!(s.text, text);
        assert!(s.params.is_empty());
    }

    #[test]
    fn register_numbers_and_mask_offsets_are_parameters() {
        let s = shape_i(
            "let ce = chen(em, 16u, 16u, false, pr[2u], true, 0u, false);
",
        )
        .unwrap();
        assert_eq!(
            s.text,
            "let ce = chen(em, 16u, cfg[tbl_pb + 0u], false, pr[cfg[tbl_pb + 1u]], true, 0u, false);\n"
        );
        assert_eq!(s.params, vec![16, 2]);
    }

    #[test]
    fn block_ends_share_a_shape_across_block_numbers() {
        let end = |b: u32| {
            format!("for (var c = 0u; c < K_SIMD; c++) {{ if ((em & (1u << c)) != 0u) {{ pcs[c] = {b}u; }} }}\n")
        };
        let (a, b) = (
            shape(&end(3), true).unwrap(),
            shape(&end(41), true).unwrap(),
        );
        assert_eq!(a.text, b.text);
        assert!(a.text.starts_with("for (var c = 0u; c < K_SIMD; c++) {"));
        assert_eq!((a.params, b.params), (vec![1, 0, 3], vec![1, 0, 41]));
    }

    #[test]
    fn equal_shapes_for_instructions_that_differ_in_numbers() {
        let a = shape_i("let s0 = gld(1760u, 2u);\ngst(1984u, 4u, v);\n").unwrap();
        let b = shape_i("let s0 = gld(1792u, 2u);\ngst(2048u, 4u, v);\n").unwrap();
        assert_eq!(a.text, b.text);
        assert_ne!(a.params, b.params);
    }

    #[test]
    fn a_break_out_of_the_instruction_is_refused() {
        assert!(shape_i("if (x) { break; }\n").is_none());
        assert!(shape_i("for (var i = 0u; i < 8u; i++) {\nif (x) { continue; }\n}\n").is_some());
    }
}
