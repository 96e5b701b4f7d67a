//! Which barriers of a straight module whose meetings must vote (`wg_uniform` found a
//! branch that may divide the workgroup) can still meet with a plain barrier: where
//! the workgroup provably arrives together because it left the previous barrier
//! together. dot_product_reduce on llvmpipe (its grid-stride loop divides the lanes
//! before the first barrier; its unrolled reduction's six barriers follow):
//! 3.9-4.1 -> 2.5-2.7 times the hand kernel's GPU time over 8,192 items.
//!
//! A vote releases the waiting invocations when none runs, so every invocation that
//! is not IDLE leaves a barrier in the same pass. Barrier `b` (after barrier `b0`,
//! the one before it in program order) then sees them all arrive in that same pass
//! when
//!
//! - every channel of every thread is dispatched (`full_lanes`: every invocation runs
//!   the rows and so every meeting);
//! - no barrier lies in a loop (each barrier is met once, in order, and an invocation
//!   waits at one barrier at a time: they all wait at `b0` when it releases);
//! - the blocks after `b0` up to `b` only branch forward and no further than `b`
//!   (the rows run in program order, so one pass brings every invocation to `b`;
//!   nothing between stops an invocation: stops come at loop edges); and
//! - no block outside `b0..b` branches into them (an invocation there came from `b0`).
//!
//! Such a meeting releases the invocations waiting at `b` after the barrier: all of
//! them, as the vote would. The first barrier keeps its vote (it also decides, for
//! the whole workgroup, whether the rows' loop goes on: `Rows::meet`).

use std::collections::HashSet;

use super::blocks::Blocks;
use super::simt::Region;
use super::straight_rows::{ends_in_barrier, successors};
use crate::interp::prepare::Prepared;

/// The barrier blocks (block indices) whose meeting may be a plain barrier; `regions`
/// are the kernel's own loops (not the whole-kernel region the rows wrap them in).
pub(super) fn plain_barriers(
    p: &Prepared,
    cfg: &Blocks,
    regions: &[Region],
    full_lanes: bool,
) -> HashSet<usize> {
    let mut plain = HashSet::new();
    if !full_lanes {
        return plain;
    }
    let barriers: Vec<usize> = (0..cfg.ranges.len())
        .filter(|&b| ends_in_barrier(p, cfg, b))
        .collect();
    fn in_a_loop(rs: &[Region], b: usize) -> bool {
        rs.iter()
            .any(|r| (r.start..=r.end).contains(&b) || in_a_loop(&r.inner, b))
    }
    if barriers.iter().any(|&b| in_a_loop(regions, b)) {
        return plain;
    }
    let succ: Vec<Vec<usize>> = (0..cfg.ranges.len())
        .map(|j| successors(p, cfg, j))
        .collect();
    for w in barriers.windows(2) {
        let (b0, b) = (w[0], w[1]);
        let forward = (b0 + 1..b).all(|j| succ[j].iter().all(|&s| s > j && s <= b));
        let closed = (0..cfg.ranges.len())
            .filter(|&k| !(b0..b).contains(&k))
            .all(|k| {
                succ[k]
                    .iter()
                    .all(|&s| s == usize::MAX || !(b0 + 1..=b).contains(&s))
            });
        if forward && closed {
            plain.insert(b);
        }
    }
    plain
}
