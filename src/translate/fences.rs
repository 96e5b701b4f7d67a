//! Barriers that order two channels' memory accesses in the straight form.
//!
//! A vISA thread runs an instruction for all its channels before the next; straight
//! invocations run apart. Where two memory instructions may touch the same bytes from
//! different channels (`lane_memory` cannot show otherwise: `tile[l]` stored, then
//! `tile[63 - l]` loaded), a barrier between them orders them as the thread does. The
//! straight form inserts one there (a meeting that passes no registers,
//! `exchange::prepare`'s fences) and checks again, until the accesses are ordered, or
//! one instruction conflicts with itself, or the barriers would not be reached alike
//! (a fence where channels part: the kernel then keeps the thread mapping, as before).
//! The rounds that order barriers' accesses (`simt::Rounds`) decide as for the
//! kernel's own barriers, loops included (a loop whose passes read what the pass
//! before wrote one channel over gets a fence before each side).

use super::blocks::{self, Blocks};
use super::exchange::{self, Exchanges};
use super::lane_memory::Conditions;
use super::lanes::{self, Plan};
use super::simt;
use crate::interp::prepare::Prepared;

/// The most barriers the straight form inserts to order memory accesses.
const FENCES_MAX: usize = 16;

/// The kernel as the straight form runs it: with its meetings and fences inserted
/// (`None`: the kernel as it is), its plan, the meetings that pass registers, and
/// the launch's conditions.
pub(super) struct Fitted {
    pub p: Option<Prepared>,
    pub plan: Plan,
    pub exchanges: Option<Exchanges>,
    pub launch: Conditions,
}

/// Fit kernel `sp` (blocks `cfg`, plain straight plan `plain`) to the straight form:
/// meetings where channels read each other's registers (`exchange.rs`), fences where
/// their memory accesses need an order. `bytes_max`: the workgroup memory the
/// meetings' buffers may take beside the group's `slm_bytes`. `Err`: why not.
pub(super) fn fit(
    sp: &Prepared,
    cfg: &Blocks,
    plain: Plan,
    tpg: u32,
    slm_bytes: u32,
    bytes_max: u32,
    private_base: Option<u32>,
) -> Result<Fitted, String> {
    let first = simt::check(sp, &plain, cfg, tpg, private_base);
    // Channels that read each other's registers outside loops meet to pass them
    // (`exchange.rs`); so may a NoMask store, which then runs whole in every
    // invocation that reaches it; accesses of two channels may be ordered.
    let retry = plain.first_cross_read.is_some()
        || first
            .as_ref()
            .is_err_and(|r| r.why.starts_with(simt::NOMASK_STORE) || r.unordered.is_some());
    let first = match first {
        Ok(launch) if !retry => {
            return Ok(Fitted {
                p: None,
                plan: plain,
                exchanges: None,
                launch,
            })
        }
        Ok(_) => None,
        Err(r) if !retry => return Err(r.why),
        Err(r) => Some(r.why),
    };
    // The first check's reason, with why the meetings could not pass the registers.
    let refused = |why: String| match &first {
        Some(f) if *f != why => format!("{f}; {why}"),
        _ => why,
    };
    let mut fences: Vec<usize> = Vec::new();
    loop {
        let exchange::WithMeetings {
            p: xp,
            forced: uniform,
            meetings: xs,
            plan: same_plan,
        } = exchange::prepare(sp, cfg, &fences, &plain).map_err(&refused)?;
        // With the group's SLM, within what every WebGPU adapter offers.
        if xs.count > 0 && xs.workgroup_bytes(tpg) + slm_bytes > bytes_max {
            return Err(refused(format!(
                "the lanes' meetings need {} bytes of workgroup memory beside {slm_bytes} \
                 of SLM, over {bytes_max}",
                xs.workgroup_bytes(tpg),
            )));
        }
        let xb = blocks::split(&xp.insts);
        let forced_plan = same_plan.unwrap_or_else(|| lanes::plan_forced(&xp, &xb, true, &uniform));
        let plan = exchange::finish(forced_plan, &xp, &xs);
        let r = match simt::check(&xp, &plan, &xb, tpg, private_base) {
            Ok(launch) => {
                // Fences order accesses only where every channel reaches them in
                // step (in-order meetings release some channels at a time).
                if let Some(at) = (!fences.is_empty())
                    .then(|| simt::misaligned(&xp, &plan, &xb))
                    .flatten()
                {
                    return Err(format!(
                        "the barriers that order the channels' memory accesses would be \
                         reached apart (channels part at instruction {at})"
                    ));
                }
                return Ok(Fitted {
                    p: Some(xp),
                    plan,
                    exchanges: (xs.count > 0).then_some(xs),
                    launch,
                });
            }
            Err(r) => r,
        };
        // The meetings passed: their check's reason is the one that stands.
        let Some((x, y)) = r.unordered else {
            return Err(r.why);
        };
        // The pair's positions in `sp`: the inserted barriers before them taken out.
        let original = |j: usize| {
            j - xp.insts[..j]
                .iter()
                .filter(|i| exchange::synthetic(i))
                .count()
        };
        let (a, b) = (original(x.min(y)), original(x.max(y)));
        // Before the later one, or before the run of memory instructions of its kind
        // it ends (IGC's SIMD8 quarters of one atomic), back to the earlier one: one
        // fence then orders the whole run, where a fence before the later one of each
        // pair took one a quarter (atomic_64bit SIMD32: 7 barriers, 4 with this). If
        // that is not enough (a loop brings the earlier one after it), before the
        // earlier one too.
        let mut run_start = b;
        while let Some(k) = (a + 1..run_start)
            .rev()
            .find(|&k| super::is_message(sp.insts[k].op))
        {
            if kind(&sp.insts[k]) != kind(&sp.insts[b]) {
                break;
            }
            run_start = k;
        }
        let at = [run_start, b, a].into_iter().find(|k| !fences.contains(k));
        match at {
            Some(k) if fences.len() < FENCES_MAX => fences.push(k),
            _ => return Err(r.why),
        }
    }
}

/// What makes two memory instructions alike for [`fit`]'s fences: the opcode and its
/// operation fields (an atomic's operation, an LSC message's sub-operation).
fn kind(inst: &crate::interp::prepare::PInst) -> (crate::isa::Opcode, u64, u64) {
    use crate::interp::thread::fint;
    (inst.op, fint(inst, "Op"), fint(inst, "LscSubOp"))
}
