//! Straight modules: GRF scalars in registers. A *slot* (1, 2, 4 or 8 bytes, aligned
//! to its size) that every access reads or writes whole at one constant offset (a
//! scalar source, a one-element destination, %cr0, `init`'s copies) lives in a private
//! variable `ugA` instead of the invocation's GRF image `g`. llvmpipe keeps `g` as an
//! array in memory, one element per SIMD lane of its own; once no access is left it
//! drops it (stencil3x3, SIMD32: pipeline creation 640 -> 66 ms).
//!
//! Two checks keep it exact. The footprint (`lanes::Plan`, one range per element
//! access) decides which slots qualify: each instruction's ranges, less the whole-slot
//! accesses this module can name, block their bytes. Then the rewrite of the module
//! text replaces the accessor calls of a slot (`gld(Au, 4u)`, `gst(Au + (i) * 4u, ..)`,
//! `g32(Au)`, `gs32(Au, ..)`); a slot any other call names with a literal offset inside
//! it (a form the rewrite does not know) stays in `g`.

use super::lanes::Plan;
use super::operand;
use crate::interp::prepare::{Dst, PField, Prepared, Src};
use crate::isa::Opcode;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Claim {
    Free,
    Slot(u32, u32),
    Blocked,
}

/// Slots `(offset, bytes)` whose every recorded access is a whole-slot access.
pub fn candidates(p: &Prepared, plan: &Plan) -> Vec<(u32, u32)> {
    let total = p.layout.total as usize;
    let mut claim = vec![Claim::Free; total];
    let mut mark = |a: u32, b: u32, whole: bool| {
        let len = b.saturating_sub(a);
        let slot =
            whole && matches!(len, 1 | 2 | 4 | 8) && a.is_multiple_of(len) && b as usize <= total;
        for x in a..b.min(total as u32) {
            let c = &mut claim[x as usize];
            *c = match *c {
                Claim::Free if slot => Claim::Slot(a, len),
                Claim::Slot(s, e) if slot && (s, e) == (a, len) => Claim::Slot(s, e),
                _ => Claim::Blocked,
            };
        }
    };
    for (k, inst) in p.insts.iter().enumerate() {
        let recorded: Vec<(u32, u32)> = plan.reads[k]
            .0
            .iter()
            .chain(&plan.writes[k].0)
            .copied()
            .collect();
        let whole =
            if super::is_message(inst.op) && super::message::constant_offsets(inst, p.grf_bytes) {
                recorded.clone()
            } else {
                whole_accesses(p, inst)
            };
        // Take the whole-slot accesses out of the footprint (each element of a scalar
        // source is one record): what is left blocks. A whole access the footprint
        // lacks means this module misreads the instruction: all of it blocks.
        let mut left = recorded.clone();
        let explained = whole
            .iter()
            .all(|r| match left.iter().position(|x| x == r) {
                Some(at) => {
                    left.swap_remove(at);
                    true
                }
                None => false,
            });
        if !explained {
            for &(a, b) in recorded.iter().chain(&whole) {
                mark(a, b, false);
            }
            continue;
        }
        for &(a, b) in &whole {
            mark(a, b, true);
        }
        for &(a, b) in &left {
            mark(a, b, false);
        }
    }
    // `init` copies word-aligned inputs word by word (`emit_init`'s `singles`), a 1-
    // or 2-byte input aligned to its size whole, the rest byte by byte.
    for &(goff, poff, size) in &p.inputs {
        let words = if goff.is_multiple_of(4) && poff.is_multiple_of(4) {
            size / 4
        } else {
            0
        };
        mark(goff + 4 * words, goff + size, copied_whole(goff, size));
    }
    let in_registers = |a: u32, e: u32| {
        (a / 4..(a + e).div_ceil(4))
            .any(|w| plan.in_registers.get(w as usize).copied().unwrap_or(false))
    };
    let mut slots: Vec<(u32, u32)> = claim
        .iter()
        .filter_map(|c| match *c {
            Claim::Slot(a, e) => Some((a, e)),
            _ => None,
        })
        .collect();
    slots.dedup();
    slots.retain(|&(a, e)| {
        (a..a + e).all(|x| claim[x as usize] == Claim::Slot(a, e)) && !in_registers(a, e)
    });
    slots
}

/// Whether `init` copies an input of `size` bytes at GRF byte `goff` in one statement
/// (`emit_init`): a 1- or 2-byte input aligned to its size, which may be a slot.
pub(super) fn copied_whole(goff: u32, size: u32) -> bool {
    matches!(size, 1 | 2) && goff.is_multiple_of(size)
}

/// The accesses of `inst` this module reads as whole-slot ones, one per record the
/// footprint (`lanes::foot`) makes of them (a message whose code addresses the GRF
/// at constant offsets only, `message::constant_offsets`, is taken whole instead).
fn whole_accesses(p: &Prepared, inst: &crate::interp::prepare::PInst) -> Vec<(u32, u32)> {
    let mut whole = Vec::new();
    if super::is_message(inst.op) {
        // Scalar sources (surface, global offset): `src_elem(s, 1, ..)`, one record.
        for f in &inst.fields {
            if let PField::Src(s @ Src::Direct { .. }) = f {
                whole.extend(operand::direct_range(s, 1));
            }
        }
        return whole;
    }
    if super::is_nop(inst.op) {
        return whole;
    }
    whole.push((p.pre.cr0, p.pre.cr0 + 4));
    let n = inst.exec.size as u32;
    let (dsts, srcs, _) = inst.alu_operands();
    for s in srcs {
        if let Src::Direct { ty, .. } = s {
            // Every element at one offset: the emitters fold the region to `Au`.
            if let Some((a, b)) = operand::direct_range(s, n).filter(|r| r.1 - r.0 == ty.size()) {
                whole.extend(std::iter::repeat_n((a, b), n as usize));
            }
        }
    }
    // One element: `gst(Au + (i) * S, ..)` with `i` 0.
    if n == 1 && inst.op != Opcode::Madw {
        for d in dsts {
            if matches!(d, Dst::Direct { .. }) {
                whole.extend(operand::dst_range(d, 1));
            }
        }
    }
    whole
}

/// The register of slot `a`.
fn register(a: u32) -> String {
    format!("ug{a}")
}

/// Declarations of the slots' registers.
pub fn declarations(slots: &[(u32, u32)]) -> String {
    slots
        .iter()
        .map(|&(a, e)| {
            let ty = if e == 8 { "u64" } else { "u32" };
            format!("var<private> {}: {ty};\n", register(a))
        })
        .collect()
}

const ACCESSORS: [&str; 6] = ["gld", "gst", "g32", "gs32", "gb", "gsb"];

/// One accessor call in the text: `[start, end)` spans the call (and the `;` of a
/// statement form), `first` is the literal its offset starts with.
struct Call {
    start: usize,
    end: usize,
    name: &'static str,
    args: Vec<String>,
    first: Option<u32>,
    /// A `;` follows the call (a statement: `gst`, `gs32`).
    statement: bool,
}

fn calls(text: &str) -> Vec<Call> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(rel) = text[at..].find('(') {
        let open = at + rel;
        at = open + 1;
        let head = &text[..open];
        let word_start = head
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |x| x + 1);
        let Some(&name) = ACCESSORS.iter().find(|n| **n == &head[word_start..]) else {
            continue;
        };
        let Some(close) = super::table_form::matching_paren(text, open) else {
            break;
        };
        let args = split_args(&text[open + 1..close]);
        let first = args.first().and_then(|a| leading_literal(a));
        let statement =
            matches!(name, "gst" | "gs32" | "gsb") && text[close + 1..].starts_with(';');
        out.push(Call {
            start: word_start,
            end: close + 1 + usize::from(statement),
            name,
            args,
            first,
            statement,
        });
    }
    out
}

pub(super) fn split_args(s: &str) -> Vec<String> {
    let (mut depth, mut cur, mut out) = (0i32, String::new(), Vec::new());
    for c in s.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_string());
    out
}

/// `123u`, `(123u + ..`, `0x7bu`: the literal an offset expression starts with.
fn leading_literal(a: &str) -> Option<u32> {
    let a = a.trim_start_matches('(');
    let end = a
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(a.len());
    super::literal::u32_literal(&a[..end])
}

/// The replacement of `c` for slot `(a, e)`, where it is a form the rewrite knows.
fn rewrite(c: &Call, (a, e): (u32, u32)) -> Option<String> {
    let r = register(a);
    let off = c.first?;
    let lit = |x: u32| format!("{x}u");
    match (c.name, c.args.as_slice()) {
        ("gld", [o, n]) if *o == lit(a) && *n == lit(e) => {
            Some(if e == 8 { r } else { format!("u64({r})") })
        }
        ("g32", [o]) if e == 4 && *o == lit(a) => Some(r),
        ("gb", [o]) if e == 1 && *o == lit(a) => Some(r),
        ("gst", [o, n, v])
            if c.statement
                && (*o == lit(a) || o.starts_with(&format!("{a}u + (i) * ")))
                && *n == lit(e) =>
        {
            // A 1- or 2-byte slot holds its bytes zero-extended, as `gld` reads them.
            Some(match e {
                8 => format!("{r} = {v};"),
                4 => format!("{r} = u32(({v}) & 0xfffffffflu);"),
                _ => format!("{r} = u32(({v}) & {:#x}lu);", (1u64 << (8 * e)) - 1),
            })
        }
        ("gsb", [o, v]) if c.statement && e == 1 && *o == lit(a) => {
            Some(format!("{r} = ({v}) & 0xffu;"))
        }
        ("gs32", [o, v]) if c.statement && *o == lit(off) => match (e, off - a) {
            (4, 0) => Some(format!("{r} = {v};")),
            (8, 0) => Some(format!("{r} = ({r} & 0xffffffff00000000lu) | u64({v});")),
            (8, 4) => Some(format!("{r} = ({r} & 0xfffffffflu) | (u64({v}) << 32u);")),
            _ => None,
        },
        _ => None,
    }
}

/// A module text with slots moved into registers.
pub struct Moved {
    pub text: String,
    /// The slots moved (those every literal access of which the rewrite knows).
    pub kept: Vec<(u32, u32)>,
    /// Whether the text still calls an accessor of the GRF image.
    pub uses_image: bool,
}

/// Rewrite the accesses of `slots` in `text`.
pub fn apply(text: &str, slots: &[(u32, u32)]) -> Moved {
    let slot_of = |o: u32| {
        slots
            .binary_search_by(|&(a, e)| {
                if o < a {
                    std::cmp::Ordering::Greater
                } else if o >= a + e {
                    std::cmp::Ordering::Less
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .ok()
            .map(|k| slots[k])
    };
    let mut found = calls(text);
    let mut bad = Vec::new();
    for c in &found {
        if let Some(s) = c.first.and_then(slot_of) {
            if rewrite(c, s).is_none() {
                bad.push(s);
            }
        }
    }
    let kept: Vec<(u32, u32)> = slots.iter().copied().filter(|s| !bad.contains(s)).collect();
    // A rewritten call keeps the calls inside its arguments as they were: rewrite
    // until nothing changes (each pass reaches one level further in).
    let mut text = text.to_string();
    loop {
        let next = rewrite_pass(&text, &found, &kept, &slot_of);
        if next == text {
            return Moved {
                uses_image: !found.is_empty(),
                text,
                kept,
            };
        }
        text = next;
        found = calls(&text);
    }
}

fn rewrite_pass(
    text: &str,
    found: &[Call],
    kept: &[(u32, u32)],
    slot_of: &dyn Fn(u32) -> Option<(u32, u32)>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for c in found {
        let Some(s) = c.first.and_then(slot_of).filter(|s| kept.contains(s)) else {
            continue;
        };
        if c.start < at {
            continue;
        }
        if let Some(new) = rewrite(c, s) {
            out.push_str(&text[at..c.start]);
            out.push_str(&new);
            at = c.end;
        }
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_known_forms_and_keeps_unknown_ones() {
        let text = "let a = gld(100u, 4u);\ngst(100u + (i) * 4u, 4u, v);\ngst(100u, 4u, w);\n\
                    let c = g32(100u);\ngs32(200u, x);\ngs32(204u, y);\n\
                    let d = gld(200u, 8u);\nlet e = gld(300u, 4u);\n\
                    let f = gld((300u + i * 4u), 4u);\n";
        let Moved {
            text: out,
            kept,
            uses_image,
        } = apply(text, &[(100, 4), (200, 8), (300, 4)]);
        assert!(uses_image, "slot 300 stays in the image");
        assert_eq!(kept, vec![(100, 4), (200, 8)]);
        assert!(out.contains("let a = u64(ug100);"));
        assert!(out.contains("ug100 = u32((v) & 0xfffffffflu);"));
        assert!(out.contains("ug100 = u32((w) & 0xfffffffflu);"));
        assert!(out.contains("let c = ug100;"));
        assert!(out.contains("ug200 = (ug200 & 0xffffffff00000000lu) | u64(x);"));
        assert!(out.contains("ug200 = (ug200 & 0xfffffffflu) | (u64(y) << 32u);"));
        assert!(out.contains("let d = ug200;"));
        // Slot 300 has an element-indexed access: both stay in `g`.
        assert!(out.contains("let e = gld(300u, 4u);"));
        assert!(out.contains("gld((300u + i * 4u), 4u)"));
    }

    #[test]
    fn calls_inside_rewritten_arguments_are_rewritten_too() {
        let text = "gst(100u + (i) * 4u, 4u, gld(200u, 8u) + u64(g32(104u)));\n";
        let Moved {
            text: out,
            uses_image,
            ..
        } = apply(text, &[(100, 4), (104, 4), (200, 8)]);
        assert!(!uses_image);
        assert_eq!(out, "ug100 = u32((ug200 + u64(ug104)) & 0xfffffffflu);\n");
    }

    #[test]
    fn byte_and_half_word_slots_hold_their_bytes_zero_extended() {
        let text = "gst(100u, 2u, u64(pl_byte(8u) | (pl_byte(9u) << 8u)));\n\
                    let a = gld(100u, 2u);\ngst(102u + (i) * 1u, 1u, v);\n\
                    let b = gb(102u);\ngsb(103u, w);\nlet c = gld(103u, 1u);\n";
        let Moved {
            text: out,
            kept,
            uses_image,
        } = apply(text, &[(100, 2), (102, 1), (103, 1)]);
        assert!(!uses_image);
        assert_eq!(kept, vec![(100, 2), (102, 1), (103, 1)]);
        assert_eq!(
            out,
            "ug100 = u32((u64(pl_byte(8u) | (pl_byte(9u) << 8u))) & 0xfffflu);\n\
             let a = u64(ug100);\nug102 = u32((v) & 0xfflu);\n\
             let b = ug102;\nug103 = (w) & 0xffu;\nlet c = u64(ug103);\n"
        );
        // A 2-byte slot read as one of its bytes stays in the image.
        let text = "let a = gld(100u, 2u);\nlet b = gb(101u);\n";
        assert!(apply(text, &[(100, 2)]).kept.is_empty());
    }

    #[test]
    fn a_partial_access_keeps_the_slot_in_the_image() {
        let text = "let a = gld(100u, 4u);\nlet b = gld(102u, 2u);\nlet c = gb(101u);\n";
        let Moved {
            text: out, kept, ..
        } = apply(text, &[(100, 4)]);
        assert!(kept.is_empty());
        assert_eq!(out, text);
    }

    #[test]
    fn literals_parse() {
        assert_eq!(leading_literal("(1552u + i * 4u)"), Some(1552));
        assert_eq!(leading_literal("0x7c0u + (i) * 4u"), Some(0x7c0));
        assert_eq!(leading_literal("cfg[tbl_pb]"), None);
    }
}
