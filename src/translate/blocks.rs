//! Basic blocks: the units the shader dispatches. A block starts at instruction 0, at
//! every label or subroutine, at every branch target and after every instruction that
//! moves channel PCs (goto, jmp, call, ret, fret, switchjmp) or parks the thread at a
//! barrier. Channel PCs therefore only ever hold block starts, and the smallest
//! instruction index is the smallest block index: min-PC over blocks is the
//! interpreter's min-PC over instructions.

use crate::interp::prepare::{PField, PInst};
use crate::isa::Opcode;
use std::ops::Range;

pub struct Blocks {
    /// Instruction ranges, in program order.
    pub ranges: Vec<Range<usize>>,
    /// Block index of every instruction that starts a block (`u32::MAX` elsewhere).
    pub block_of: Vec<u32>,
}

impl Blocks {
    /// The block a branch to instruction `t` lands in, as WGSL (`IDLE` for none).
    pub fn block_expr(&self, t: u32) -> String {
        self.block_of
            .get(t as usize)
            .map_or("IDLE".to_string(), |b| format!("{b}u"))
    }
}

/// Every instruction a goto, jmp, call or switchjmp may branch to (a label's own
/// target field names itself: not a branch).
pub fn targets(inst: &PInst) -> Vec<u32> {
    if matches!(inst.op, Opcode::Label | Opcode::Subroutine) {
        return Vec::new();
    }
    inst.fields
        .iter()
        .flat_map(|f| match f {
            PField::Target(t) => vec![*t],
            PField::Targets(ts) => ts.clone(),
            _ => Vec::new(),
        })
        .collect()
}

/// Per instruction (and one past the end): whether some branch may go there.
pub fn branch_targets(insts: &[PInst]) -> Vec<bool> {
    let mut out = vec![false; insts.len() + 1];
    for t in insts.iter().flat_map(targets) {
        out[(t as usize).min(insts.len())] = true;
    }
    out
}

/// The label a goto, jmp or call branches to (`u32::MAX` for none).
pub fn target_of(inst: &PInst) -> u32 {
    inst.fields
        .iter()
        .find_map(|f| match f {
            PField::Target(t) => Some(*t),
            _ => None,
        })
        .unwrap_or(u32::MAX)
}

/// Whether control may reach the instruction after `op` other than from `op` itself, or
/// leave from `op`: where a walk back through straight-line code stops (a label, a
/// subroutine's start, a branch, a call or a return).
pub fn joins_or_leaves(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Label | Subroutine | Goto | Jmp | Call | Fcall | Ifcall | Ret | Fret | Switchjmp
    )
}

pub fn ends_block(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Goto | Jmp | Call | Ret | Fret | Switchjmp | Barrier | Sbarrier | Nbarrier
    )
}

/// Instructions in one block at most.
pub const MAX_BLOCK_INSTS: usize = 64;

pub fn split(insts: &[PInst]) -> Blocks {
    split_at_most(insts, MAX_BLOCK_INSTS)
}

/// [`split`] with blocks of at most `max` instructions (at least 1).
pub fn split_at_most(insts: &[PInst], max: usize) -> Blocks {
    let max = max.max(1);
    let n = insts.len();
    let mut leader = vec![false; n + 1];
    if n > 0 {
        leader[0] = true;
    }
    for (i, inst) in insts.iter().enumerate() {
        if matches!(inst.op, Opcode::Label | Opcode::Subroutine) {
            leader[i] = true;
        }
        if ends_block(inst.op) {
            leader[i + 1] = true;
        }
        for f in &inst.fields {
            match f {
                PField::Target(t) => {
                    if let Some(l) = leader.get_mut(*t as usize) {
                        *l = true;
                    }
                }
                PField::Targets(ts) => {
                    for t in ts {
                        if let Some(l) = leader.get_mut(*t as usize) {
                            *l = true;
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut ranges = Vec::new();
    let mut block_of = vec![u32::MAX; n];
    let mut start = 0;
    for (i, &lead) in leader.iter().enumerate().skip(1) {
        // Long straight-line code is cut too, so that one block's loops fit in a pass
        // of a driver that caps them (see `budget`): the channels that run a block run
        // its continuation next, together, so the cut changes nothing else.
        if i == n || lead || i - start >= max {
            if start < i {
                block_of[start] = ranges.len() as u32;
                ranges.push(start..i);
            }
            start = i;
        }
    }
    Blocks { ranges, block_of }
}

/// True when no block can run twice in a thread: every branch goes forward and there
/// are no subroutine calls (a subroutine called twice runs twice).
pub fn acyclic(insts: &[PInst]) -> bool {
    insts.iter().enumerate().all(|(i, inst)| {
        !matches!(inst.op, Opcode::Call | Opcode::Fcall | Opcode::Ifcall)
            && targets(inst).iter().all(|&t| t as usize > i)
    })
}
