//! Which barriers of a straight module whose meetings must vote (`wg_uniform` found a
//! branch that may divide the workgroup) can still meet with a plain barrier: where
//! the workgroup provably arrives together because it left the previous barrier (or
//! the kernel's start) together. dot_product_reduce on llvmpipe (its grid-stride loop
//! divides the lanes before the first barrier; its unrolled reduction's six barriers
//! follow): 3.9-4.1 -> 2.5-2.7 times the hand kernel's GPU time over 8,192 items.
//!
//! A vote releases the waiting invocations when none runs, so every invocation that
//! is not IDLE leaves a barrier in the same pass. Barrier `b` (after barrier `b0`,
//! the one before it in program order, or the kernel's start, where every invocation
//! begins) then sees them all arrive in that same pass when
//!
//! - every channel of every thread is dispatched (`full_lanes`: every invocation runs
//!   the rows and so every meeting);
//! - no barrier lies in a loop (each barrier is met once, in order, and an invocation
//!   waits at one barrier at a time: they all wait at `b0` when it releases);
//! - each block after `b0` up to `b` branches forward no further than `b`, back
//!   inside a loop of those blocks (a loop without barriers runs its passes in place,
//!   as a WGSL loop, until its invocations leave it), or ends the thread (an ended
//!   invocation is IDLE and takes no part); the rows run in program order, so one
//!   pass brings every invocation to `b` (a loop's step limit stops an invocation
//!   for good, and the host then runs the launch in the thread mapping); and
//! - no block outside `b0..b` branches into them (an invocation there came from `b0`).
//!
//! Such a meeting releases the invocations waiting at `b` after the barrier: all of
//! them, as the vote would. Where every barrier's meeting is plain the kernel runs in
//! one pass ([`Plain::single_pass`]): no invocation waits at the end of a pass, and
//! the rows need no loop around them. Otherwise the first barrier keeps its vote (it
//! also decides, for the whole workgroup, whether the rows' loop goes on:
//! `Rows::meet`).

use std::collections::HashSet;

use super::blocks::Blocks;
use super::simt::Region;
use super::straight_rows::{ends_in_barrier, successors};
use crate::interp::prepare::Prepared;
use crate::isa::Opcode;

/// The barrier blocks whose meeting may be a plain barrier.
#[derive(Debug, Default)]
pub(super) struct Plain {
    /// Block indices; the first barrier's only where every barrier is here.
    pub(super) barriers: HashSet<usize>,
    /// Every barrier is here: the rows run once, with no loop around them.
    pub(super) single_pass: bool,
}

/// Whether block `b` lies in one of `rs` (or a loop inside one).
pub(super) fn in_a_loop(rs: &[Region], b: usize) -> bool {
    rs.iter()
        .any(|r| (r.start..=r.end).contains(&b) || in_a_loop(&r.inner, b))
}

/// Whether one of `rs` (at any depth) holds both blocks.
fn in_one_loop(rs: &[Region], a: usize, b: usize) -> bool {
    rs.iter().any(|r| {
        let holds = |k: usize| (r.start..=r.end).contains(&k);
        (holds(a) && holds(b)) || in_one_loop(&r.inner, a, b)
    })
}

/// Whether an invocation that waits at a barrier is released in the same pass where
/// its workgroup's meetings release every waiting invocation (plain meetings, or
/// meetings where the workgroup agrees): the last block does not end in a barrier (no
/// meeting follows it), and no subroutine is left that the straight form did not
/// write out (its return goes where the rows cannot tell). A loop around a barrier
/// meets inside itself and takes its passes in place.
pub(super) fn released_in_pass(p: &Prepared, cfg: &Blocks) -> bool {
    let n = cfg.ranges.len();
    let calls = p
        .insts
        .iter()
        .any(|i| matches!(i.op, Opcode::Call | Opcode::Fcall | Opcode::Ifcall));
    let last_unmet = n > 0 && ends_in_barrier(p, cfg, n - 1);
    !(calls || last_unmet)
}

/// The plain meetings of a kernel; `regions` are the kernel's own loops (not the
/// whole-kernel region the rows wrap them in).
pub(super) fn plain_barriers(
    p: &Prepared,
    cfg: &Blocks,
    regions: &[Region],
    full_lanes: bool,
) -> Plain {
    let mut plain = Plain::default();
    let n = cfg.ranges.len();
    let barriers: Vec<usize> = (0..n).filter(|&b| ends_in_barrier(p, cfg, b)).collect();
    let looped = barriers.iter().any(|&b| in_a_loop(regions, b));
    if !full_lanes || looped || !released_in_pass(p, cfg) {
        return plain;
    }
    let succ: Vec<Vec<usize>> = (0..n).map(|j| successors(p, cfg, j)).collect();
    let ends = |j: usize| p.insts[cfg.ranges[j].end - 1].op == Opcode::Ret;
    // Blocks `first..=b` (`first` the block after the previous barrier, or 0).
    let arrive = |first: usize, b: usize| {
        let forward = (first..b).all(|j| {
            succ[j].iter().all(|&s| {
                (s > j && s <= b)
                    || (s == usize::MAX && ends(j))
                    || (s <= j && s >= first && in_one_loop(regions, s, j))
            })
        });
        let closed = (0..n).filter(|&k| k + 1 < first || k >= b).all(|k| {
            succ[k]
                .iter()
                .all(|&s| s == usize::MAX || !(first..=b).contains(&s))
        });
        forward && closed
    };
    for w in barriers.windows(2) {
        if arrive(w[0] + 1, w[1]) {
            plain.barriers.insert(w[1]);
        }
    }
    if let Some(&b) = barriers.first() {
        if arrive(0, b) && plain.barriers.len() + 1 == barriers.len() {
            plain.barriers.insert(b);
            plain.single_pass = true;
        }
    }
    plain
}
