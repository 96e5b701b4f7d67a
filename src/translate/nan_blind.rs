//! Straight modules: float results whose NaN bits no instruction can observe.
//!
//! The interpreter writes every NaN that float arithmetic produces as the canonical
//! NaN (`interp::alu::canonical_nan`: adapters fill payloads and signs as they like),
//! and the GPU path matches it with `canon_nan`, a compare and a select per element.
//! Those bits only matter where something reads them as bits. When every instruction
//! that reads a result's bytes is float arithmetic or a float compare of the same type
//! (`BLIND_READERS`), a NaN there reaches nothing but another NaN (which that reader
//! canonicalizes, or which is blind in turn) or a compare, which treats every NaN
//! alike; and when every instruction that writes those bytes writes whole elements of
//! that type, no other write leaves half of a NaN's bits beside its own. Such a result
//! keeps the adapter's NaN: 11 of mandelbrot's 12 float adds and muls, 5 of the 6 in
//! its loop (tgllp SIMD16 on lavapipe, alternating processes: 0.39-0.42 -> 0.32-0.36
//! GPU ms).
//!
//! Straight modules only: their GRF is never observed but through the kernel's own
//! instructions (no saved state; `validate`'s register probes run the thread mapping).
//! The analysis is flow-insensitive (every reader anywhere in the kernel counts), and
//! it gives up on kernels with indirect operands, which the straight form refuses
//! anyway.

use super::lanes::Plan;
use crate::interp::prepare::{Dst, PField, PInst, Prepared, Src};
use crate::ir::types::DataType;
use crate::isa::Opcode;

/// Instructions that read their float sources as numbers and turn a NaN into a NaN
/// (or, CMP, into the same flag for every NaN).
const BLIND_READERS: [Opcode; 4] = [Opcode::Add, Opcode::Mul, Opcode::Mad, Opcode::Cmp];

/// Per instruction: whether its float result may keep the adapter's NaN bits.
pub fn blind_results(p: &Prepared, plan: &Plan) -> Vec<bool> {
    let n = p.insts.len();
    let mut blind = vec![false; n];
    if p.insts.iter().any(has_indirect) || plan.reads.len() != n || plan.writes.len() != n {
        return blind;
    }
    // Per float type: the GRF bytes some instruction reads other than as its numbers,
    // or writes other than as whole elements of its size (one pass over the
    // footprints; a test per candidate and reader was quadratic).
    let total = plan
        .reads
        .iter()
        .chain(&plan.writes)
        .flat_map(|t| t.0.iter().map(|&(_, b)| b as usize))
        .max()
        .unwrap_or(0);
    let seen_for = |t: DataType| {
        let mut seen = vec![false; total];
        for (j, inst) in p.insts.iter().enumerate() {
            let mut mark = |ranges: &[(u32, u32)]| {
                for &(a, b) in ranges {
                    seen[a as usize..b as usize].fill(true);
                }
            };
            if !reads_as_numbers(inst, t) {
                mark(&plan.reads[j].0);
            }
            if !writes_whole_elements(inst, t) {
                mark(&plan.writes[j].0);
            }
        }
        seen
    };
    let mut seen: Vec<(DataType, Vec<bool>)> = Vec::new();
    for (k, inst) in p.insts.iter().enumerate() {
        let Some(t) = float_arith_result(inst) else {
            continue;
        };
        let written = &plan.writes[k].0;
        if written.is_empty() {
            continue;
        }
        let at = match seen.iter().position(|(s, _)| *s == t) {
            Some(at) => at,
            None => {
                seen.push((t, seen_for(t)));
                seen.len() - 1
            }
        };
        let bits = &seen[at].1;
        blind[k] = written
            .iter()
            .all(|&(a, b)| !bits[a as usize..b as usize].iter().any(|&x| x));
    }
    blind
}

/// The float type of an arithmetic result that `canon_nan` would pass through (the
/// moves, MOV/SEL/FCVT, keep NaN bits instead; CMP writes flags).
fn float_arith_result(inst: &PInst) -> Option<DataType> {
    if !BLIND_READERS.contains(&inst.op) || inst.op == Opcode::Cmp {
        return None;
    }
    match dst_of(inst)? {
        Dst::Direct { ty, .. } if matches!(ty, DataType::F | DataType::DF) => Some(*ty),
        _ => None,
    }
}

/// Whether `inst` reads every GRF source as type `t` numbers.
fn reads_as_numbers(inst: &PInst, t: DataType) -> bool {
    if !BLIND_READERS.contains(&inst.op) {
        return false;
    }
    inst.fields.iter().all(|f| match f {
        PField::Src(Src::Direct { ty, .. }) => *ty == t,
        PField::Src(Src::Imm { .. } | Src::Pred(_)) => true,
        PField::Src(_) | PField::Raw(..) => false,
        _ => true,
    })
}

/// Whether `inst` writes only whole, aligned elements of `t`'s size (a message or a
/// raw operand, whose bytes this does not follow, does not).
fn writes_whole_elements(inst: &PInst, t: DataType) -> bool {
    if super::is_message(inst.op) {
        return false;
    }
    let size = t.size();
    inst.fields.iter().all(|f| match f {
        PField::Dst(Dst::Direct { off, ty, .. }) => ty.size() == size && off.is_multiple_of(size),
        PField::Dst(Dst::Indirect { .. }) | PField::Raw(..) => false,
        _ => true,
    })
}

fn dst_of(inst: &PInst) -> Option<&Dst> {
    inst.fields.iter().find_map(|f| match f {
        PField::Dst(d) => Some(d),
        _ => None,
    })
}

fn has_indirect(inst: &PInst) -> bool {
    inst.fields.iter().any(|f| {
        matches!(
            f,
            PField::Src(Src::Indirect { .. } | Src::AddrOf { .. })
                | PField::Dst(Dst::Indirect { .. })
        )
    })
}
