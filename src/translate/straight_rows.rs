//! The rows of a straight module (`run_lane`): each vISA block an `if (pc == B)` row,
//! each loop a WGSL `loop` around its blocks' rows, meetings of the workgroup where
//! barriers are, and one instruction where IGC's SIMD parts compute the same per-lane
//! code. llvmpipe runs every row on every pass, masked, taken or not, so each
//! instruction left out of the rows is time saved on every pass.

use super::blocks;
use super::lanes::{Plan, Run};
use super::simt::Region;
use super::table_form::has_word;
use super::{chen_expr, emit_inst, is_nop, Emit, TranslateError};
use crate::interp::prepare::{Dst, PField, PInst, Prepared, Src};
use crate::ir::{ExecSize, PredCombine};
use crate::isa::Opcode;

/// Emits the rows of a straight kernel, loops as WGSL loops around their blocks'
/// rows: each pass runs the rows in program order (forward branches go on in the
/// same pass), and a branch back into the loop takes another pass.
pub(super) struct Rows<'a> {
    /// Every invocation of the workgroup is at the same place at every meeting
    /// (`wg_uniform::meetings_agree`): each one's own vote is the workgroup's.
    pub(super) agreed: bool,
    /// Otherwise, the barrier blocks whose meeting is still a plain barrier
    /// (`plain_meetings::plain_barriers`).
    pub(super) plain: std::collections::HashSet<usize>,
    pub(super) p: &'a Prepared,
    pub(super) plan: &'a Plan,
    pub(super) cfg: &'a blocks::Blocks,
    pub(super) prefix: usize,
    pub(super) cr0_at: &'a [Option<u32>],
    /// `nan_blind::blind_results`, per instruction.
    pub(super) nan_blind: &'a [bool],
    /// `Conditions::flat_unplaced`: allocations each unplaced atomic must stay out of.
    pub(super) flat_unplaced: &'a [(usize, u32)],
    /// `Conditions::flat_placed`: the placed base of each placed flat access.
    pub(super) flat_placed: &'a [(usize, u32)],
    /// `Conditions::flat_proven`: placed atomics the shader need not check.
    pub(super) flat_proven: &'a [usize],
    /// `Conditions::owned_at`: accesses that claim the words they touch.
    pub(super) owned_at: &'a [(usize, super::lane_memory::Owned)],
    /// `Conditions::bti_proven`: binding-table accesses the shader need not check.
    pub(super) bti_proven: &'a [usize],
    pub(super) cyclic: bool,
    /// Each loop's name (`first_last` block) and the text of its rows (for its pass
    /// cost).
    pub(super) passes: Vec<(String, String)>,
    /// The guards of the rows of the loop being written, by block (`guards_of_loop`;
    /// a row not listed keeps its `if (pc == B)`).
    pub(super) guards: Vec<(usize, Guard)>,
    /// Loops around the row being written.
    pub(super) depth: usize,
    /// Registers the lanes pass at meetings (`exchange.rs`).
    pub(super) exchanges: Option<&'a super::exchange::Exchanges>,
    /// Meetings release only the invocations waiting at the earliest block
    /// (`exchange::in_order`): channels that parted meet at different places.
    pub(super) in_order: bool,
    /// Rows written as functions of their own (`row_function`), for after `run_lane`.
    pub(super) functions: Vec<String>,
}

/// Rows whose code is longer than this become functions of their own. Each call
/// costs lavapipe's NIR passes a little (matmul_tiled16's pipeline creation, callgrind
/// of `visa-emu compile`: 252 million instructions with none, 236 with 14 rows as
/// functions (256 bytes), 235 with 10 (1,024 bytes) or 3 (3,000 bytes)).
const ROW_FUNCTION_BYTES: usize = 1024;

/// Row `b`'s code `body` as a function of its own, and the call that replaces it,
/// where the code reaches nothing of `run_lane` but `pc`, `dm` and `lem` (no `break`,
/// `continue` or `return`, no barrier). naga types each expression of a function
/// by walking the function's expressions from the first (`Typifier::grow`), which is
/// quadratic in the function's length: half of naga's parse of matmul_tiled16's
/// straight module went there with every row in `run_lane` (78 -> 50 million
/// instructions of `create_shader_module`; lavapipe's part +11, its LLVM code the
/// same once it inlines the calls again).
fn row_function(b: usize, body: &str) -> Option<(String, String)> {
    let nonlocal = ["break", "continue", "return"]
        .iter()
        .any(|w| has_word(body, w));
    if body.len() < ROW_FUNCTION_BYTES || nonlocal || body.contains("Barrier(") {
        return None;
    }
    let name = format!("row{b}");
    let function = format!(
        "fn {name}(pc_in: u32, dm: u32) -> u32 {{\n    var pc = pc_in;\n    let lem = 1u << lane;\n{body}    return pc;\n}}\n"
    );
    Some((function, format!("pc = {name}(pc, dm);")))
}

/// How a row of a loop without barriers or inner loops is entered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Guard {
    /// `if (pc == B)`: invocations at other blocks of the loop pass the row by.
    Keep,
    /// Every invocation in the loop is at the row (none branched back for the next
    /// pass); `left`: some may have left the loop, and `break` first.
    Elide { left: bool },
}

/// Whether block `b` ends in a vISA barrier.
pub(super) fn ends_in_barrier(p: &Prepared, cfg: &blocks::Blocks, b: usize) -> bool {
    let r = &cfg.ranges[b];
    r.end > r.start && p.insts[r.end - 1].op == Opcode::Barrier
}

/// A block's successors (block indices; `usize::MAX` for any place outside the
/// kernel's blocks, IDLE included), a superset: a branch may also fall through.
pub(super) fn successors(p: &Prepared, cfg: &blocks::Blocks, b: usize) -> Vec<usize> {
    let r = &cfg.ranges[b];
    let last = &p.insts[r.end - 1];
    let next = if b + 1 < cfg.ranges.len() {
        b + 1
    } else {
        usize::MAX
    };
    if !blocks::ends_block(last.op) {
        return vec![next];
    }
    let mut out = vec![next];
    if !matches!(last.op, Opcode::Goto | Opcode::Jmp) {
        out.push(usize::MAX);
    }
    for t in blocks::targets(last) {
        out.push(
            cfg.block_of
                .get(t as usize)
                .filter(|&&k| k != u32::MAX)
                .map_or(usize::MAX, |&k| k as usize),
        );
    }
    out
}

/// The guards of loop `a..=b`'s rows (no barrier, no inner loop), from the blocks an
/// invocation may be at when each row comes in a pass: a pass starts at `a`, at a
/// block some branch from outside the loop or back from inside it enters, or
/// outside the loop (an invocation passing by); a row leaves its invocations at its
/// successors (a superset: `successors`). Where every invocation in the loop is at
/// the row, the guard goes, and those outside it `break` before it (llvmpipe runs
/// every row masked whether or not taken: each `pc` test it skips is time on every
/// pass; mandelbrot over 196,608 items ~3.5-3.9 -> ~3.4-3.6 times the hand kernel's
/// GPU time). Once a row may branch back mid-pass, the rows after it keep theirs.
fn guards_of_loop(
    p: &Prepared,
    cfg: &blocks::Blocks,
    a: usize,
    b: usize,
    nested: bool,
) -> Vec<Guard> {
    let inside = |k: usize| (a..=b).contains(&k);
    let mut entries = vec![a];
    for j in 0..cfg.ranges.len() {
        for t in successors(p, cfg, j) {
            if inside(t) && (!inside(j) || t <= j) {
                entries.push(t);
            }
            // Passing by: branched over the loop, or waiting for an outer loop's pass.
            if j < a && !inside(t) && (t > b || nested) {
                entries.push(usize::MAX);
            }
        }
    }
    if nested {
        entries.push(usize::MAX);
    }
    let mut at: Vec<usize> = entries;
    let mut guards = Vec::new();
    for k in a..=b {
        at.sort_unstable();
        at.dedup();
        let guard = if at.iter().filter(|&&x| inside(x)).eq([k].iter()) {
            Guard::Elide {
                left: at.iter().any(|&x| !inside(x)),
            }
        } else {
            Guard::Keep
        };
        let succ = successors(p, cfg, k);
        match guard {
            Guard::Elide { .. } => at = succ,
            Guard::Keep => {
                at.retain(|&x| x != k);
                at.extend(succ);
            }
        }
        guards.push(guard);
    }
    guards
}

impl Rows<'_> {
    pub(super) fn emit(
        &mut self,
        em: &mut Emit,
        from: usize,
        to: usize,
        regions: &[Region],
        exit: Option<(usize, (usize, usize))>,
    ) -> Result<(), TranslateError> {
        let mut b = from;
        while b < to {
            if let Some(r) = regions.iter().find(|r| r.start == b) {
                self.emit_loop(em, r)?;
                b = r.end + 1;
            } else {
                self.emit_row(em, b)?;
                // Waiting invocations go on as soon as the workgroup has met: the
                // rows after the barrier run in the same pass (one pass a round in
                // a loop around a barrier, not two).
                match exit {
                    Some((row, region)) if row == b => self.meet(em, Some(region)),
                    _ if self.plain.contains(&b) && b + 1 < to => self.meet_plain(em, b),
                    _ if self.ends_in_barrier(b) && b + 1 < to => self.meet(em, None),
                    _ => {}
                }
                b += 1;
            }
        }
        Ok(())
    }

    /// The first row of loop `r` itself (not of a loop inside it) that ends in a
    /// barrier.
    fn first_barrier_row(&self, r: &Region) -> Option<usize> {
        (r.start..=r.end)
            .filter(|&b| !r.inner.iter().any(|i| (i.start..=i.end).contains(&b)))
            .find(|&b| self.ends_in_barrier(b))
    }

    fn ends_in_barrier(&self, b: usize) -> bool {
        ends_in_barrier(self.p, self.cfg, b)
    }

    /// Where the workgroup meets, in uniform control flow: invocations that still run
    /// (`pc < HELD`) say so; when none does, every waiting one is released (the vISA
    /// barrier: all threads arrived). With `region` (a loop's blocks) it also decides,
    /// for the whole workgroup, whether the loop goes on: while an invocation runs
    /// inside it (in any of its rows), or one waiting inside it was just released.
    /// Breaking off mid-pass is then exact: no invocation is left in the loop's rows.
    fn meet(&self, em: &mut Emit, region: Option<(usize, usize)>) {
        em.open("");
        em.line("// the workgroup meets");
        em.line("var bits = 0u;");
        em.line("if (pc < HELD) { bits = 1u; }");
        if let Some((a, b)) = region {
            em.line("let at = pc & ~HELD;");
            em.open(&format!("if (pc != IDLE && at >= {a}u && at <= {b}u)"));
            em.line("bits = bits | select(4u, 2u, pc < HELD);");
            em.close();
        }
        // Three words in turn (`meet_k`): meeting m ORs into word m % 3 and clears word
        // (m + 1) % 3 before its barrier, and reads word m % 3 after it. Nothing writes
        // that word again before every invocation has read it: the next writes are the
        // clear of meeting m + 2 and the ORs of meeting m + 3, and an invocation gets
        // there only past meeting m + 1's barrier, which all reach after their read.
        // So all read the same value, with one barrier less than publishing it through
        // `workgroupUniformLoad` (two barriers in naga's SPIR-V) took:
        // dot_product_reduce ~4.7 -> ~4.1 times the hand kernel's GPU time on llvmpipe.
        if self.agreed {
            // All arrive together: the own vote is everyone's (slm_prefix_scan on
            // llvmpipe ~2.4 -> ~1.6 times the hand kernel's kernel time).
            em.line("storageBarrier();");
            em.line("workgroupBarrier();");
            em.line("let go = bits;");
        } else {
            em.line("atomicStore(&st_live[(meet_k + 1u) % 3u], 0u);");
            em.line("if (bits != 0u) { atomicOr(&st_live[meet_k], bits); }");
            if self.in_order {
                // The earliest place an invocation is at, running or waiting, as the
                // greatest `~block` (the words start zeroed), cleared in turn like
                // `st_live`.
                em.line("atomicStore(&st_first[(meet_k + 1u) % 3u], 0u);");
                em.line("if (pc != IDLE) { atomicMax(&st_first[meet_k], ~(pc & ~HELD)); }");
            }
            em.line("storageBarrier();");
            em.line("workgroupBarrier();");
            em.line("let go = atomicLoad(&st_live[meet_k]);");
            if self.in_order {
                em.line("let first = ~atomicLoad(&st_first[meet_k]);");
            }
            em.line("meet_k = (meet_k + 1u) % 3u;");
        }
        if self.in_order {
            // Those waiting where no invocation is behind them: none can reach their
            // meeting any more (no meeting lies in a loop), even while others run on
            // further ahead.
            em.line("if (pc >= HELD && pc != IDLE && (pc & ~HELD) == first) { pc = pc & ~HELD; }");
        } else {
            em.line("if ((go & 1u) == 0u && pc != IDLE) { pc = pc & ~HELD; }");
        }
        if region.is_some() {
            em.line("if ((go & 2u) == 0u && ((go & 1u) != 0u || (go & 4u) == 0u)) { break; }");
        }
        em.close();
    }

    /// The meeting after barrier block `b` where every invocation not IDLE provably
    /// waits there (`plain_meetings`): the barrier alone, then those waiting go on.
    fn meet_plain(&self, em: &mut Emit, b: usize) {
        em.open("");
        em.line("// the workgroup meets (all arrive together: plain_meetings)");
        em.line("storageBarrier();");
        em.line("workgroupBarrier();");
        em.line(&format!(
            "if (pc == {}u + HELD) {{ pc = {}u; }}",
            b + 1,
            b + 1
        ));
        em.close();
    }

    fn emit_loop(&mut self, em: &mut Emit, r: &Region) -> Result<(), TranslateError> {
        let (a, b) = (r.start, r.end);
        // A loop around a barrier: the workgroup takes every pass together.
        let met = (a..=b).any(|k| self.ends_in_barrier(k));
        em.open("loop");
        em.out.truncate(em.out.trim_end().len());
        // The cost scan counts one pass; the budget check below bounds the passes.
        em.out.push_str(" // loop-bound: 1\n");
        let at = em.out.len();
        // The workgroup decides on the next pass where it meets after the loop's
        // first barrier, else at the end of each pass: one meeting a pass.
        let exit_row = if met { self.first_barrier_row(r) } else { None };
        let simple = !met && r.inner.is_empty();
        if simple {
            let guards = guards_of_loop(self.p, self.cfg, a, b, self.depth > 0);
            self.guards = (a..=b).zip(guards).collect();
        }
        self.depth += 1;
        let rows = self.emit(em, a, b + 1, &r.inner, exit_row.map(|row| (row, (a, b))));
        self.guards.clear();
        self.depth -= 1;
        rows?;
        let name = format!("{a}_{b}");
        self.passes.push((name.clone(), em.out[at..].to_string()));
        // Too long a walk for one dispatch: the host runs the thread mapping instead.
        // The error is reported at the end (`main`): an atomic in the loop, even one
        // never reached, costs llvmpipe every pass (mandelbrot: 0.93 -> 0.63 GPU ms).
        // The limits in privates (`main` reads them once): a storage read on every
        // pass costs llvmpipe (mandelbrot: ~1.1 -> ~0.7 GPU ms).
        // Where the workgroup agrees (`agreed`), a step count every invocation keeps
        // alike: an upper bound of each one's own (the kernel's length, then a pass's
        // every instruction), so that all stop together (an invocation stopping alone
        // would leave the others' barriers) and none later than its own count says.
        let visited0 = super::simt::visited_word(0);
        let steps = if self.agreed {
            let pass: usize = (a..=b).map(|k| self.cfg.ranges[k].len()).sum();
            em.line(&format!(
                "wg_steps = select(wg_steps + {pass}u, 0xffffffffu, wg_steps > {}u);",
                u32::MAX as usize - pass
            ));
            "wg_steps"
        } else {
            &visited0
        };
        if met {
            // Every invocation takes the pass; one that stops stops running.
            if self.cyclic {
                em.line(&format!(
                    "if (pc < HELD && {steps} > step_limit) {{ stop_at = pc + 1u; pc = IDLE; }}"
                ));
            }
            em.line(&format!("lane_edges = lane_edges + K_PASS_COST_{name};"));
            em.line("if (lane_edges > edge_budget && pc != IDLE) { stop_at = (pc & ~HELD) + 1u; pc = IDLE; }");
            if exit_row.is_none() {
                self.meet(em, Some((a, b)));
            }
        } else {
            // One range test, one limit test (non-short-circuit: llvmpipe runs every
            // condition of a pass masked), and the stop's bookkeeping after the loop:
            // an invocation leaves the loop inside its range only when a limit
            // stopped it (the rows' own breaks leave it outside). Mandelbrot over
            // 49,152 items on llvmpipe: ~2.0 -> ~1.8 times the hand kernel's GPU time.
            em.line(&format!("if (pc - {a}u > {}u) {{ break; }}", b - a));
            em.line(&format!("lane_edges = lane_edges + K_PASS_COST_{name};"));
            em.line(&format!(
                "if (({steps} > step_limit) | (lane_edges > edge_budget)) {{ break; }}"
            ));
            em.close();
            em.line(&format!(
                "if (pc - {a}u <= {}u) {{ stop_at = pc + 1u; pc = IDLE; }}",
                b - a
            ));
            return Ok(());
        }
        em.close();
        Ok(())
    }

    fn emit_row(&mut self, em: &mut Emit, b: usize) -> Result<(), TranslateError> {
        let range = self.cfg.ranges[b].clone();
        let guard = self
            .guards
            .iter()
            .find(|(k, _)| *k == b)
            .map_or(Guard::Keep, |(_, g)| *g);
        match guard {
            Guard::Keep => em.open(&format!("if (pc == {b}u)")),
            Guard::Elide { left } => {
                if left {
                    em.line(&format!("if (pc != {b}u) {{ break; }}"));
                }
                em.open("");
            }
        }
        let body_at = em.out.len();
        if self.cyclic {
            let w = super::simt::visited_word(0);
            em.line(&format!(
                "{w} = {w} + {}u;",
                super::exchange::counted(self.p, &range)
            ));
        } else {
            let w = super::simt::visited_word(b as u32 / 32);
            em.line(&format!("{w} = {w} | {}u;", 1u32 << (b % 32)));
        }
        // After a meeting: the other lanes' registers it passed.
        if let Some(pull) = range
            .start
            .checked_sub(1)
            .and_then(|k| self.exchanges.and_then(|x| x.pull(k)))
        {
            em.open("");
            for l in pull.lines() {
                em.line(l);
            }
            em.close();
        }
        let next_block = self.cfg.block_expr(range.end as u32);
        let in_prefix = b < self.prefix;
        let mut ended = false;
        let mut k = range.start;
        // Instructions already emitted as a later part of one run as one.
        let mut done = vec![false; range.len()];
        while k < range.end {
            if done[k - range.start] {
                k += 1;
                continue;
            }
            let at = em.out.len();
            let simd = self.p.simd;
            let unguard = |em: &mut Emit| {
                // Every such guard where the text binds `li` once (parts merged
                // over the whole width keep one per element).
                let once = em.out[at..].matches("let li = ").count() == 1;
                while let Some(t) = without_whole_width_guard(&em.out[at..], simd) {
                    em.out.truncate(at);
                    em.out.push_str(&t);
                    if !once {
                        break;
                    }
                }
                // The element, lane and mask bindings of the instruction, where its
                // code reads none (naga and the driver handle every `let`).
                let t = super::tidy::without_unread_lets(&em.out[at..], &["i", "li", "em"]);
                em.out.truncate(at);
                em.out.push_str(&t);
            };
            em.cr0_value = self.cr0_at[k];
            em.avoid_btis = self.avoid_at(k);
            em.flat_base = self.base_at(k);
            em.flat_proven = self.flat_proven.contains(&k);
            em.claim = self.claim_at(k);
            em.bti_proven = self.bti_proven.contains(&k);
            // NaN-blind parts merge as such; where some part is not, without it
            // (`parts_as_one`).
            em.nan_blind = self.nan_blind[k];
            let merged = match self.one_lane_group(
                em,
                (range.start, k, range.end),
                &done,
                &next_block,
                in_prefix,
            ) {
                Some(g) => Some(g),
                None => {
                    self.parts_as_one(em, range.start, k, range.end, &done, &next_block, in_prefix)?
                }
            };
            em.nan_blind = false;
            if let Some((text, parts)) = merged {
                em.out.push_str(&text);
                unguard(em);
                for j in parts {
                    done[j - range.start] = true;
                }
                k += 1;
                continue;
            }
            let inst = &self.p.insts[k];
            // Before a meeting: the registers this lane owns, for the others.
            if let Some(publish) = self.exchanges.and_then(|x| x.publish(k)) {
                em.open("");
                for l in publish.lines() {
                    em.line(l);
                }
                em.close();
            }
            if super::exchange::synthetic(inst)
                && self.exchanges.is_none_or(|x| !x.at.contains_key(&k))
            {
                em.line("// a fence: the lanes' memory accesses before it precede those after (fences.rs)");
            }
            em.nan_blind = self.nan_blind[k];
            // A whole-thread store or atomic after a meeting: its first lane's.
            let led = match (self.exchanges, self.plan.led.get(k).copied().flatten()) {
                (Some(x), Some(m)) if self.plan.run[k] == Run::Uniform && self.plan.mem[k].1 => {
                    em.open(&x.leader(m));
                    true
                }
                _ => false,
            };
            ended = emit_straight_inst(
                em,
                self.p,
                inst,
                k,
                self.plan,
                self.cfg,
                &next_block,
                in_prefix,
            )?;
            if led {
                em.close();
            }
            em.nan_blind = false;
            unguard(em);
            k += 1;
        }
        em.cr0_value = None;
        em.avoid_btis.clear();
        em.flat_base = None;
        em.flat_proven = false;
        em.claim = None;
        em.bti_proven = false;
        if !ended {
            em.line(&format!("pc = {next_block};"));
        }
        if let Some((function, call)) = row_function(b, &em.out[body_at..]) {
            em.out.truncate(body_at);
            em.line(&call);
            self.functions.push(function);
        }
        em.close();
        Ok(())
    }

    fn base_at(&self, k: usize) -> Option<u32> {
        self.flat_placed.iter().find(|f| f.0 == k).map(|f| f.1)
    }

    fn claim_at(&self, k: usize) -> Option<super::lane_memory::Owned> {
        self.owned_at.iter().find(|f| f.0 == k).map(|f| f.1)
    }

    fn avoid_at(&self, k: usize) -> Vec<u32> {
        (self.flat_unplaced.iter())
            .filter(|f| f.0 == k)
            .map(|f| f.1)
            .collect()
    }

    /// Per-lane instructions that each run for one channel alone
    /// (`lanes::single_lane`), for different channels, whose code is the same but for
    /// that channel's predicate bits: IGC's one-channel stores into a private array,
    /// `(Pk) mov (M1, 8) r[A0(k),0]<1>:d V(0,k)<0;1,0>` after `setp Pk 1 << k`, one per
    /// channel (private_array_dynamic SIMD32: 256 of them). One copy of the code, its
    /// predicate bits the invocation's own bit among the members' channels, stands at
    /// the first member; each channel runs its own member there. What the members
    /// move up across runs for other channels only, or is a `setp` of an immediate
    /// into a predicate no member reads any more.
    fn one_lane_group(
        &self,
        em: &Emit,
        (start, k, end): (usize, usize, usize),
        done: &[bool],
        next_block: &str,
        in_prefix: bool,
    ) -> Option<(String, Vec<usize>)> {
        const BITS: &str = "KNOWN_PRED_BITS";
        let a = &self.p.insts[k];
        let lane_of = |j: usize| {
            (self.plan.run[j] == Run::PerLane)
                .then(|| super::lanes::single_lane(&self.p.insts[j], self.plan.known_preds[j]))
                .flatten()
        };
        let first_lane = lane_of(k)?;
        let meets = |j: usize| self.exchanges.is_some_and(|x| x.publish(j).is_some());
        // Each member's code under the first's index (error reports), its bits a
        // placeholder.
        let canon = |j: usize| -> Option<String> {
            let as_a = PInst {
                index: a.index,
                ..self.p.insts[j].clone()
            };
            let mut sub = em.scratch();
            sub.pred_bits_text = Some(BITS.into());
            emit_straight_inst(
                &mut sub, self.p, &as_a, j, self.plan, self.cfg, next_block, in_prefix,
            )
            .ok()?;
            sub.out.contains(BITS).then_some(sub.out)
        };
        // Each member is emitted under the first's settings (`em`): the same ones.
        let same_settings = |j: usize| {
            self.cr0_at[j] == self.cr0_at[k]
                && self.avoid_at(j) == em.avoid_btis
                && self.base_at(j) == em.flat_base
                && self.flat_proven.contains(&j) == em.flat_proven
                && self.claim_at(j) == em.claim
                && self.bti_proven.contains(&j) == em.bti_proven
                && self.nan_blind[j] == em.nan_blind
        };
        if meets(k) {
            return None;
        }
        let text = canon(k)?;
        let reads_pred = |pid: u16| text.contains(&format!("pr[{pid}u]"));
        let mut members = vec![k];
        let mut lanes = 1u32 << first_lane;
        // Channels a later member may not have: code of theirs it would move above.
        let mut blocked = 0u32;
        for x in k + 1..end {
            if done[x - start] {
                continue;
            }
            let inst = &self.p.insts[x];
            if blocks::ends_block(inst.op) || super::exchange::synthetic(inst) || meets(x) {
                break;
            }
            if let Some(c) = lane_of(x) {
                let free = (lanes | blocked) & (1 << c) == 0;
                if free
                    && inst.op == a.op
                    && same_settings(x)
                    && canon(x).as_deref() == Some(text.as_str())
                {
                    members.push(x);
                    lanes |= 1 << c;
                } else {
                    blocked |= 1 << c;
                }
                continue;
            }
            let (_, srcs, _) = inst.alu_operands();
            let setp_imm = inst.op == Opcode::Setp
                && inst.pred.is_none()
                && matches!(srcs.first(), Some(Src::Imm { .. }));
            let writes_unread = inst.fields.iter().all(|f| match f {
                PField::Dst(Dst::Pred(p)) => !reads_pred(p.0),
                PField::Dst(_) => false,
                _ => true,
            });
            if setp_imm && writes_unread {
                continue;
            }
            if self.plan.run[x] == Run::PerLane {
                blocked |=
                    super::lanes::span(inst.exec.size as u32, inst.exec.mask.channel_offset());
                continue;
            }
            break;
        }
        if members.len() < 2 {
            return None;
        }
        let names: Vec<String> = members
            .iter()
            .map(|&j| format!("[{}]", self.p.insts[j].index))
            .collect();
        let text = text.replace(BITS, &format!("({lanes}u & lem)")).replacen(
            &format!("// [{}] ", a.index),
            &format!("// {}, one channel each: ", names.join("+")),
            1,
        );
        Some((text, members))
    }

    /// Instructions `k`, `k + 1`, ... as one per-lane instruction over all their
    /// channel ranges, where they are the parts of one wider operation (IGC splits
    /// SIMD32 into two SIMD16 instructions, M1 and M5, and a SIMD32 SVM atomic into
    /// four SIMD8 ones) that compute the same per-lane code: llvmpipe runs every
    /// instruction of a straight module masked, taken or not, so parts emitted apart
    /// cost once each (see `parts_key`). A later part moves up to the first across
    /// what it commutes with (`crossable`); `done` marks the block's instructions
    /// already emitted. Returns the text and the parts it covers (a power of two, at
    /// least two).
    #[allow(clippy::too_many_arguments)]
    fn parts_as_one(
        &self,
        em: &Emit,
        start: usize,
        k: usize,
        end: usize,
        done: &[bool],
        next_block: &str,
        in_prefix: bool,
    ) -> Result<Option<(String, Vec<usize>)>, TranslateError> {
        let a = &self.p.insts[k];
        let n = a.exec.size as u32;
        let off = a.exec.mask.channel_offset();
        // Instruction `j` as part number `q`.
        let part = |j: usize, q: usize| {
            let b = &self.p.insts[j];
            self.plan.run[j] == Run::PerLane
                && b.op == a.op
                && b.exec.size == a.exec.size
                && b.exec.mask.channel_offset() == off + q as u32 * n
                && off + (q + 1) as u32 * n <= 32
                && b.exec.mask.no_mask == a.exec.mask.no_mask
                && !blocks::ends_block(b.op)
                && self.cr0_at[j] == self.cr0_at[k]
                && self.avoid_at(j) == em.avoid_btis
                && self.base_at(j) == em.flat_base
                && self.flat_proven.contains(&j) == em.flat_proven
                && self.claim_at(j) == em.claim
                && self.bti_proven.contains(&j) == em.bti_proven
        };
        // Where part `q` sits (`at`: the parts found so far): the first instruction of
        // the block after `k` that is one, where every instruction on the way that is
        // not emitted yet commutes with it.
        let next_part = |at: &[usize], q: usize| {
            let lanes = (off + q as u32 * n, off + (q as u32 + 1) * n);
            for x in k + 1..end {
                if done[x - start] || at.contains(&x) {
                    continue;
                }
                if part(x, q) {
                    return Some(x);
                }
                if !crossable(self.p, self.plan, start, k, x, lanes) {
                    return None;
                }
            }
            None
        };
        if !part(k, 0) || next_part(&[k], 1).is_none() {
            return Ok(None);
        }
        // `blind`: the NaN-blind form (`Emit::nan_blind`), which changes every part's
        // text alike, so parts compare under the first's and the merged instruction
        // takes it where every part has it.
        let emit = |inst: &PInst, at: usize, blind: bool| -> Option<String> {
            let mut sub = em.scratch();
            sub.nan_blind = blind;
            emit_straight_inst(
                &mut sub, self.p, inst, at, self.plan, self.cfg, next_block, in_prefix,
            )
            .ok()?;
            Some(sub.out)
        };
        let Some(first) = emit(a, k, em.nan_blind) else {
            return Ok(None);
        };
        let Some(key) = parts_key(&first, n, off) else {
            return Ok(None);
        };
        // Each further part under the first's index: the index appears in the text
        // (error reports), and must not keep equal parts apart. A part may read other
        // lane registers than the first (IGC's halves of a SIMD32 operation on a
        // vector that a message laid out half by half): `regs` holds each part's.
        let mut at = vec![k];
        let mut regs = vec![lane_registers(&key)];
        while let Some(j) = next_part(&at, at.len()) {
            let b = &self.p.insts[j];
            let as_a = PInst {
                index: a.index,
                ..b.clone()
            };
            let off_b = b.exec.mask.channel_offset();
            let Some(key_b) = emit(&as_a, j, em.nan_blind).and_then(|t| parts_key(&t, n, off_b))
            else {
                break;
            };
            let Some(theirs) = read_registers_apart(&key, &key_b, &em.promoted) else {
                break;
            };
            regs.push(theirs);
            at.push(j);
        }
        // A whole execution size: the widest power of two of the matching parts.
        let mut parts = 1 << at.len().ilog2();
        while parts >= 2 {
            let wide = PInst {
                exec: ExecSize {
                    size: a.exec.size * parts as u8,
                    mask: a.exec.mask,
                },
                ..a.clone()
            };
            let wide_n = n * parts as u32;
            let blind = em.nan_blind && at[..parts].iter().all(|&j| self.nan_blind[j]);
            let (first, key) = if blind == em.nan_blind {
                (Some(first.clone()), Some(key.clone()))
            } else {
                let f = emit(a, k, blind);
                let key = f.as_deref().and_then(|t| parts_key(t, n, off));
                (f, key)
            };
            let same = |t: &String| key.is_some() && parts_key(t, wide_n, off) == key;
            // The wider instruction itself where it computes the parts' code; else,
            // where the parts name other registers (a wider region lays its elements
            // out otherwise), the first part's code over all their channels.
            let apart = regs[..parts].iter().any(|r| *r != regs[0]);
            let text = emit(&wide, k, blind).filter(same).or_else(|| {
                first
                    .filter(|_| apart)
                    .map(|f| widened(&f, n, wide_n, off))
                    .filter(same)
            });
            if let Some(text) = text {
                let names: Vec<String> = at[..parts]
                    .iter()
                    .map(|&j| format!("[{}]", self.p.insts[j].index))
                    .collect();
                let name = format!("] {} ({:?})", a.op.spec_name(), Run::PerLane);
                let text = text.replacen(
                    &format!("// [{}{name}", a.index),
                    &format!("// {}{}, {parts} parts as one", names.join("+"), &name[1..]),
                    1,
                );
                if let Some(text) = with_registers_by_part(&text, &regs[..parts], off, n) {
                    return Ok(Some((text, at[..parts].to_vec())));
                }
            }
            parts /= 2;
        }
        Ok(None)
    }
}

/// Whether a part for channels `lanes` (`[a, b)`) may move up across instruction `x`
/// of the block: `x` runs per lane for other channels only (each invocation runs one
/// channel, and keeps its own registers and predicates; memory between channels is
/// unordered in the straight form anyway), or repeats a surface move (`repeats`).
fn crossable(
    p: &Prepared,
    plan: &Plan,
    start: usize,
    k: usize,
    x: usize,
    lanes: (u32, u32),
) -> bool {
    let inst = &p.insts[x];
    if blocks::ends_block(inst.op) {
        return false;
    }
    let (a, b) = (
        inst.exec.mask.channel_offset(),
        inst.exec.mask.channel_offset() + inst.exec.size as u32,
    );
    (plan.run[x] == Run::PerLane && (b <= lanes.0 || lanes.1 <= a)) || repeats(p, start, k, x)
}

/// Whether instruction `r` (between two parts of the instruction at `k`) repeats the
/// instruction before `k` in the same block, and that one sets a surface variable to
/// an immediate (IGC's `movs` of the surface before each SIMD16 half of a legacy
/// message): the parts write no surface variable, so a later part that moves up
/// across the repeat reads the value the first move set, as it would after it.
fn repeats(p: &Prepared, start: usize, k: usize, r: usize) -> bool {
    let (Some(r), Some(first)) = (p.insts.get(r), k.checked_sub(1).filter(|&f| f >= start)) else {
        return false;
    };
    let first = &p.insts[first];
    let sets_surface = |i: &PInst| {
        i.op == Opcode::Movs
            && i.pred.is_none()
            && i.fields
                .iter()
                .any(|f| matches!(f, PField::Dst(Dst::State { .. })))
            && i.fields.iter().all(|f| match f {
                PField::Src(s) => matches!(s, Src::Imm { .. }),
                _ => true,
            })
    };
    sets_surface(first) && sets_surface(r) && first.fields == r.fields
}

/// The text of a per-lane instruction of `n` channels from channel `off` with its
/// channel numbering taken out, where nothing else in it depends on the channel
/// number: two parts with equal keys compute the same code in every lane, and one
/// instruction over both channel ranges computes it too. `None` where the text
/// indexes anything by its element (`i`, `li`) beyond the channel guard and a flag
/// bit (`i + off`): an element index names other bytes in a wider instruction.
fn parts_key(text: &str, n: u32, off: u32) -> Option<String> {
    // Each rewrite only where its form occurs: a search costs less than a copy, and
    // the translator keys every part of every instruction (private_array_large).
    let swap = |key: String, form: &str, to: &str| {
        if key.contains(form) {
            key.replace(form, to)
        } else {
            key
        }
    };
    let mut key = swap(
        text.to_string(),
        &format!("let li = lane - {off}u;"),
        "let li = lane - OFF;",
    );
    let placeholders = [
        "chen(em, N, OFF,",
        "if (GUARD) {",
        "if (GUARD_EN) {",
        "if (GUARD) {",
    ];
    for (form, placeholder) in count_forms(n, off).iter().zip(placeholders) {
        key = swap(key, form, placeholder);
    }
    let key = swap(key, &format!(", i + {off}u,"), ", FLAG,");
    let key = swap(key, "(pb & (1u << i))", "PBIT");
    let key = with_sel_masks(&key, off, n, "OFF", "FULL");
    let key = with_image_bases_by_channel(&key, off);
    let rest = swap(key.clone(), "let li = lane - OFF;", "");
    let rest = swap(rest, "let i = li;", "");
    let rest = swap(rest, "let i = 0u;", "");
    let indexed = has_word(&rest, "i") || has_word(&rest, "li");
    (!indexed).then_some(key)
}

/// `text` with each GRF-image access by element (`gld((C + i * S), ..)`,
/// `gst(C + (i) * S, ..)`, `i` the element of an instruction whose first channel is
/// `off`) written by channel: base `C - off * S`, index `CH`. Two parts whose accesses
/// then agree touch, for each channel, the bytes one wider instruction touches there;
/// two that name the same bytes for channels `off` apart do not agree.
fn with_image_bases_by_channel(text: &str, off: u32) -> String {
    const FORMS: [(&str, &str, &str); 2] =
        [("gld((", "u + i * ", "u)"), ("gst(", "u + (i) * ", "u,")];
    let digits = |t: &str| t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while !rest.is_empty() {
        // The nearest access of either form.
        let next = FORMS
            .iter()
            .filter_map(|f| rest.find(f.0).map(|p| (p, f)))
            .min_by_key(|(p, _)| *p);
        let Some((p, &(head, mid, tail))) = next else {
            break;
        };
        let body = &rest[p + head.len()..];
        let (d1, after) = body.split_at(digits(body));
        if let (Ok(c), Some(after)) = (d1.parse::<i64>(), after.strip_prefix(mid)) {
            let (d2, after) = after.split_at(digits(after));
            if let (Ok(stride), Some(after)) = (d2.parse::<i64>(), after.strip_prefix(tail)) {
                let base = c - i64::from(off) * stride;
                let idx = if head == "gst(" { "(CH)" } else { "CH" };
                out.push_str(&rest[..p]);
                out.push_str(&format!("{head}{base}u + {idx} * {stride}{tail}"));
                rest = after;
                continue 'scan;
            }
        }
        out.push_str(&rest[..p + head.len()]);
        rest = &rest[p + head.len()..];
    }
    out.push_str(rest);
    out
}

/// `text` with SEL's enabled and predicate words (`alu::emit`: `let en = (em >> off)
/// & full;`, `let pb = ((pr[p] >> off) & full);`, inverted or all ones) over `n`
/// channels from `off` written with `to_off` and `to_full` instead: placeholders in a
/// part's key, a wider instruction's numbers in `widened`. Only those lines: a
/// 16-bit operation's `& 65535u` elsewhere is no channel mask.
fn with_sel_masks(text: &str, off: u32, n: u32, to_off: &str, to_full: &str) -> String {
    let full = format!("{}u", super::alu::full(n));
    let shift = format!(">> {off}u)");
    let to_shift = format!(">> {to_off})");
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("let en = ") || t.starts_with("let pb = ") {
            out.push_str(&line.replace(&shift, &to_shift).replace(&full, to_full));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Where each lane register (`lanes::register`) is named in `text`, in order.
fn register_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(f) = text[i..].find("rv") {
        let s = i + f;
        let mut e = s + 2;
        while e < b.len() && b[e].is_ascii_digit() {
            e += 1;
        }
        let whole = e > s + 2 && (s == 0 || !ident(b[s - 1])) && (e == b.len() || !ident(b[e]));
        if whole {
            out.push((s, e));
        }
        i = e.max(s + 2);
    }
    out
}

/// The lane registers `text` names, in order.
fn lane_registers(text: &str) -> Vec<String> {
    register_spans(text)
        .into_iter()
        .map(|(s, e)| text[s..e].to_string())
        .collect()
}

/// `b`'s lane registers, where part keys `a` and `b` are one text but for the lane
/// registers they name, each pair of one size (`promoted`: the registers' lane vectors
/// and element sizes), and a register assigned apart is the target of a statement of
/// its own line (`with_registers_by_part` rewrites it). One instruction over both parts
/// then reads and writes each lane's own part's registers.
fn read_registers_apart(a: &str, b: &str, promoted: &[(u32, u32)]) -> Option<Vec<String>> {
    if a == b {
        return Some(lane_registers(b));
    }
    let (sa, sb) = (register_spans(a), register_spans(b));
    let skeleton = |t: &str, spans: &[(usize, usize)]| {
        let mut out = String::with_capacity(t.len());
        let mut last = 0;
        for &(s, e) in spans {
            out.push_str(&t[last..s]);
            out.push_str("rv#");
            last = e;
        }
        out.push_str(&t[last..]);
        out
    };
    if sa.len() != sb.len() || skeleton(a, &sa) != skeleton(b, &sb) {
        return None;
    }
    let wide = |name: &str| -> Option<bool> {
        let base: u32 = name[2..].parse().ok()?;
        let e = promoted.iter().find(|p| p.0 == base)?.1;
        Some(e >= 8)
    };
    for (&(s0, e0), &(s1, e1)) in sa.iter().zip(&sb) {
        let (x, y) = (&a[s0..e0], &b[s1..e1]);
        let own_statement = || !assigned(a, e0) || assignment_line(a, s0).is_some();
        // Neither `rvN += ..` nor `&rvN`: a select is no place to write through.
        let in_place = || {
            let rest = a[e0..].trim_start();
            let op = rest.find('=').map(|p| &rest[..p]);
            a[..s0].ends_with('&')
                || op.is_some_and(|o| {
                    ["+", "-", "*", "/", "%", "|", "&", "^", "<<", ">>"].contains(&o)
                })
        };
        if x != y && (wide(x)? != wide(y)? || !own_statement() || in_place()) {
            return None;
        }
    }
    Some(lane_registers(b))
}

/// Whether the register name ending at byte `e` of `t` is assigned there.
fn assigned(t: &str, e: usize) -> bool {
    let rest = t[e..].trim_start();
    rest.starts_with('=') && !rest.starts_with("==")
}

/// The line of `t` that assigns the register named at byte `s`, as (its start, the
/// byte after its `;`), where the line is that one statement: `rvN = value;`.
fn assignment_line(t: &str, s: usize) -> Option<(usize, usize)> {
    let start = t[..s].rfind('\n').map_or(0, |p| p + 1);
    let end = t[s..].find('\n').map_or(t.len(), |p| s + p);
    let line = &t[start..end];
    (t[start..s].trim().is_empty()
        && line.trim_end().ends_with(';')
        && line.matches(';').count() == 1)
        .then(|| (start, start + line.trim_end().len()))
}

/// `text` (one instruction over all the parts, channels `off..`, `n` per part) with
/// each lane register that the parts name differently (`regs`, each part's in order)
/// read and assigned as the one of the lane's part. `None` where an assignment is not a
/// statement of its own line.
fn with_registers_by_part(text: &str, regs: &[Vec<String>], off: u32, n: u32) -> Option<String> {
    let spans = register_spans(text);
    if spans.len() != regs[0].len() {
        return None;
    }
    let apart = |m: usize| regs.iter().any(|r| r.get(m) != regs[0].get(m));
    if !(0..spans.len()).any(apart) {
        return Some(text.to_string());
    }
    // The part of lane `lane`: a chain of selects, or of branches for assignments.
    let q_last = regs.len() - 1;
    let end = |q: usize| off + (q as u32 + 1) * n;
    let read = |m: usize| {
        let mut v = regs[q_last][m].clone();
        for q in (0..q_last).rev() {
            v = format!("select({v}, {}, lane < {}u)", regs[q][m], end(q));
        }
        v
    };
    let write = |m: usize, value: &str| {
        let mut v = format!("{} = part_value;", regs[q_last][m]);
        for q in (0..q_last).rev() {
            v = format!(
                "if (lane < {}u) {{ {} = part_value; }} else {{ {v} }}",
                end(q),
                regs[q][m]
            );
        }
        format!("{{ let part_value = {value} {v} }}")
    };
    // Assignments first, each line whole, from the last so that earlier spans stay.
    let mut out = text.to_string();
    let mut reads: Vec<usize> = Vec::new();
    let mut lines: Vec<(usize, (usize, usize))> = Vec::new();
    for (m, &(s, e)) in spans.iter().enumerate() {
        if !apart(m) {
            continue;
        }
        if assigned(text, e) {
            lines.push((m, assignment_line(text, s)?));
        } else {
            reads.push(m);
        }
    }
    // Reads within a rewritten line are taken by it; the rest from the end too.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for &(m, (ls, le)) in &lines {
        let (s, e) = spans[m];
        let rhs_start = e + text[e..].find('=')? + 1;
        let mut value = String::new();
        let mut last = rhs_start;
        for &r in reads
            .iter()
            .filter(|&&r| spans[r].0 > rhs_start && spans[r].1 <= le)
        {
            value.push_str(&text[last..spans[r].0]);
            value.push_str(&read(r));
            last = spans[r].1;
        }
        value.push_str(&text[last..le]);
        let indent = &text[ls..s];
        edits.push((ls, le, format!("{indent}{}", write(m, value.trim()))));
    }
    for &r in &reads {
        let (s, e) = spans[r];
        if !lines.iter().any(|&(_, (ls, le))| s >= ls && e <= le) {
            edits.push((s, e, read(r)));
        }
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (s, e, t) in edits {
        out.replace_range(s..e, &t);
    }
    Some(out)
}

/// The forms of a per-lane instruction's text that carry its channel count `n` from
/// channel `off`: `chen`'s arguments and the three guards (`if (li < n ..) {`).
fn count_forms(n: u32, off: u32) -> [String; 4] {
    [
        format!("chen(em, {n}u, {off}u,"),
        format!("if (li < {n}u && (ce & (1u << li)) != 0u) {{"),
        format!("if (li < {n}u && (en & (1u << li)) != 0u) {{"),
        format!("if (li < {n}u) {{"),
    ]
}

/// A part's text (`n` channels from `off`) over `wide_n` channels: the channel
/// numbering `parts_key` takes out, put back wider.
fn widened(text: &str, n: u32, wide_n: u32, off: u32) -> String {
    let mut text = text.to_string();
    for (form, wide) in count_forms(n, off).iter().zip(count_forms(wide_n, off)) {
        text = text.replace(form, &wide);
    }
    let wide_full = format!("{}u", super::alu::full(wide_n));
    with_sel_masks(&text, off, n, &format!("{off}u"), &wide_full)
}

/// `text` (one per-lane instruction) without its channel guard `if (li < N) {` where
/// the instruction starts at channel 0 and spans the whole SIMD width: every
/// invocation's lane (`li % K_SIMD` in simt.rs's entry point) passes it, and llvmpipe
/// pays for each branch when it creates the pipeline (matmul_tiled16: 70 -> 65 ms).
/// `None` where there is no such guard.
fn without_whole_width_guard(text: &str, simd: u32) -> Option<String> {
    if !text.contains("let li = lane - 0u;") {
        return None;
    }
    const HEAD: &str = "if (li < ";
    let at = text.find(HEAD)?;
    let rest = &text[at + HEAD.len()..];
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let n: u32 = rest[..digits].parse().ok()?;
    let tail = &rest[digits..];
    (n >= simd && tail.starts_with("u) {"))
        .then(|| format!("{}{{{}", &text[..at], &tail["u) {".len()..]))
}

/// A per-lane branch on a predicate only its own lanes' bits carry
/// (`Plan::own_preds`, kept all ones or zero by `pown`): taken where the invocation's
/// channel is among the instruction's and its predicate word says so, the value of
/// EvaluateChEn's bit without the shifts and masks (llvmpipe runs them on every pass).
fn own_pred_taken(inst: &PInst, plan: &Plan, run: Run, simd: u32) -> Option<String> {
    let pred = inst.pred?;
    let pid = pred.id.0 as usize;
    if run != Run::PerLane
        || pred.combine != PredCombine::Sequential
        || !plan.own_preds.get(pid).copied().unwrap_or(false)
    {
        return None;
    }
    let (n, off) = (inst.exec.size as u32, inst.exec.mask.channel_offset());
    let set = format!("(pr[{pid}u] {} 0u)", if pred.inverse { "==" } else { "!=" });
    Some(if off == 0 && n >= simd {
        set
    } else {
        format!("((lane - {off}u < {n}u) & {set})")
    })
}

/// One instruction of a straight block; returns true when it set `pc` itself.
#[allow(clippy::too_many_arguments)]
fn emit_straight_inst(
    em: &mut Emit,
    p: &Prepared,
    inst: &PInst,
    k: usize,
    plan: &Plan,
    cfg: &blocks::Blocks,
    next_block: &str,
    in_prefix: bool,
) -> Result<bool, TranslateError> {
    use Opcode::*;
    // A `setp` whose predicate every reader reads folded: nothing to write.
    if is_nop(inst.op) || plan.unread.get(k) == Some(&true) {
        return Ok(false);
    }
    let run = plan.run[k];
    em.open("");
    if super::exchange::synthetic(inst) {
        em.line("// the lanes meet (exchange.rs)");
    } else {
        em.line(&format!(
            "// [{}] {} ({:?})",
            inst.index,
            inst.op.spec_name(),
            run
        ));
    }
    // The execution mask an instruction sees: its own channel's bit per lane; the
    // thread's (the dispatch mask) in the entry blocks; none further on.
    let mask_known = run == Run::PerLane || in_prefix;
    if run == Run::PerLane {
        em.line("let em = lem;");
        em.line(&format!(
            "let li = lane - {}u;",
            inst.exec.mask.channel_offset()
        ));
    } else if in_prefix {
        em.line("let em = dm;");
    } else if inst.exec.mask.no_mask {
        // NoMask: `chen` ignores the mask, and nothing else may read it (checked below).
        em.line("let em = 0u;");
    }
    let at = em.out.len();
    let block_of = |t: u32| cfg.block_expr(t);
    let target = blocks::target_of(inst);
    let off = inst.exec.mask.channel_offset();
    let ended = match inst.op {
        // The invocation waits (`HELD`) until the workgroup meets (`Rows::meet`).
        Barrier => {
            // A barrier that ends the kernel has nothing to wait for.
            if next_block == "IDLE" {
                em.line("pc = IDLE;");
            } else {
                em.line(&format!("pc = {next_block} + HELD;"));
            }
            true
        }
        Goto | Jmp => {
            let taken = if inst.exec.size == 1 {
                match inst.pred {
                    None => "true".to_string(),
                    Some(_) => format!("({} & 1u) != 0u", chen_expr(inst, "1u")),
                }
            } else if let Some(t) = own_pred_taken(inst, plan, run, p.simd) {
                t
            } else {
                format!(
                    "(({} << {off}u) & em) != 0u",
                    chen_expr(inst, &format!("((em >> {off}u) << {off}u)"))
                )
            };
            em.line(&format!(
                "pc = select({next_block}, {}, {taken});",
                block_of(target)
            ));
            true
        }
        Ret => {
            let leaving = if inst.exec.size == 1 && inst.pred.is_none() {
                "true".to_string()
            } else {
                format!("(({} << {off}u) & em) != 0u", chen_expr(inst, "em"))
            };
            em.line(&format!("pc = select({next_block}, IDLE, {leaving});"));
            true
        }
        Switchjmp => {
            // The thread mapping's form sets every channel's PC to `t`.
            let mut sub = Emit::new(p.pre.cr0, em.alt_mode);
            sub.depth = em.depth;
            let r = emit_inst(&mut sub, p, inst, cfg, next_block)?;
            let body = sub
                .out
                .replace(&super::each_enabled_channel(None, "pcs[c] = t;"), "pc = t;");
            if body.contains("pcs[") {
                return Err(not_straight(inst, "switchjmp form"));
            }
            em.out.push_str(&body);
            r
        }
        _ => {
            if run == Run::PerLane {
                em.lane_elems = true;
                em.moff = off;
                em.own_lane = inst.pred.is_none();
                em.only_lane = super::lanes::single_lane(inst, plan.known_preds[k]);
            }
            // A surface the straight checks resolved (the last `movs` before it, which
            // every channel that gets here ran): the short binding-table accesses.
            if super::is_message(inst.op) {
                em.surface_bti = match super::lane_memory::space(p, k) {
                    Some(super::lane_memory::Space::Bti(b)) => Some(b),
                    _ => None,
                };
            }
            // An address outside the variable the plan passed between the lanes.
            match plan.indirect[k] {
                super::indirect_operands::Target::None => {}
                super::indirect_operands::Target::Known(lo, hi) => {
                    let column = plan.column(plan.indirect[k]);
                    let channel = super::indirect_operands::dst_channel(p, plan, k)
                        .map_err(|e| not_straight(inst, &e))?;
                    if column.is_some_and(|c| c.split(&em.promoted)) {
                        return Err(not_straight(
                            inst,
                            "a variable laid out per channel, some rows in registers",
                        ));
                    }
                    em.column = column
                        .filter(|_| run == Run::PerLane)
                        .and_then(|c| em.row_arrays.held(c));
                    em.dst_lane = channel;
                    // The one channel the predicate enables holds the address element:
                    // nothing to check.
                    let unproven = channel.filter(|&c| em.only_lane != Some(c));
                    em.line(&super::indirect_operands::check(
                        em,
                        inst,
                        run,
                        (lo, hi),
                        column,
                        unproven,
                    ));
                }
                super::indirect_operands::Target::Unknown => {
                    return Err(not_straight(inst, "an untraced indirect operand"));
                }
            }
            let r = emit_inst(em, p, inst, cfg, next_block);
            em.column = None;
            em.dst_lane = None;
            em.only_lane = None;
            em.surface_bti = None;
            em.lane_elems = false;
            em.own_lane = false;
            let r = r?;
            if run == Run::PerLane && em.out[at..].contains("for (var i = 0u;") {
                return Err(not_straight(inst, "an element loop over every channel"));
            }
            r
        }
    };
    // A predicate a `setp` of an immediate set for every channel of the instruction
    // (`lanes::known_pred_bits`): its value, not its register (private_array_dynamic's
    // 256 one-channel stores: llvmpipe otherwise folded them one NIR round after
    // another).
    if let Some(pred) = inst.pred {
        let value = plan.known_preds[k].1;
        if super::lanes::pred_folded(inst, plan.known_preds[k]) {
            let chen = chen_expr(inst, "em");
            // The `setp` before it may be gone (`Plan::unread`): the predicate must
            // be read nowhere else in the text.
            let register = format!("pr[{}u]", pred.id.0);
            let elsewhere = em.out[at..].replace(&chen, "").contains(&register);
            if elsewhere || !em.out[at..].contains(&chen) {
                return Err(not_straight(
                    inst,
                    "a known predicate read outside its channel enable",
                ));
            }
            let bits = em.pred_bits_text.clone().unwrap_or(format!("{value}u"));
            let folded = chen.replace(&register, &bits);
            let text = em.out[at..].replace(&chen, &folded);
            em.out.truncate(at);
            em.out.push_str(&text);
        }
    }
    let nomask_chen = format!("chen(em, {}u, {off}u, true,", inst.exec.size);
    if !mask_known && has_word(&em.out[at..].replace(&nomask_chen, ""), "em") {
        return Err(not_straight(
            inst,
            "it depends on the thread's execution mask outside the entry blocks",
        ));
    }
    em.close();
    Ok(ended)
}

fn not_straight(inst: &PInst, what: &str) -> TranslateError {
    TranslateError::Unsupported {
        index: inst.index,
        op: inst.op.spec_name(),
        what: format!("straight mapping: {what}"),
    }
}

#[cfg(test)]
mod tests {
    /// IGC's two SIMD16 halves of a SIMD32 operation compare equal once their channel
    /// numbers are taken out, where they compute the same per-lane code; an element
    /// index into the GRF image (which names other bytes in a wider instruction) or
    /// another register keeps them apart.
    #[test]
    fn halves_compare_without_their_channel_numbers() {
        use super::parts_key;
        let half = |off: u32, body: &str| {
            format!(
                "let li = lane - {off}u;\nlet ce = chen(em, 16u, {off}u, false, 0u, false, 0u, false);\n\
                 if (li < 16u) {{\nlet i = li;\n{body}\n}}\n"
            )
        };
        let a = half(0, "rv10 = rv20 + 1u;\npset(1u, i + 0u, true);");
        let b = half(16, "rv10 = rv20 + 1u;\npset(1u, i + 16u, true);");
        assert!(parts_key(&a, 16, 0).is_some());
        assert_eq!(parts_key(&a, 16, 0), parts_key(&b, 16, 16));
        let other = half(16, "rv12 = rv20 + 1u;\npset(1u, i + 16u, true);");
        assert_ne!(parts_key(&a, 16, 0), parts_key(&other, 16, 16));
        let indexed = half(0, "let s0 = gld(100u + (i) * 4u, 4u);");
        assert_eq!(parts_key(&indexed, 16, 0), None);
        // The guard with a predicate's bits names `li` as the element test does.
        let guarded =
            "let li = lane - 0u;\nif (li < 16u && (ce & (1u << li)) != 0u) {\nrv1 = 0u;\n}\n";
        assert!(parts_key(guarded, 16, 0).is_some());
    }

    /// Halves that read different lane registers (a vector a message laid out half by
    /// half) merge into one instruction that reads each lane's own half's; halves that
    /// assign different registers, or read registers of different sizes, do not.
    #[test]
    fn halves_reading_apart_read_by_lane() {
        use super::{parts_key, read_registers_apart, with_registers_by_part};
        let half = |off: u32, body: &str| {
            let t = format!("let li = lane - {off}u;\nif (li < 16u) {{\n{body}\n}}\n");
            parts_key(&t, 16, off).expect("a key")
        };
        let promoted = [(10, 4), (20, 4), (30, 4), (40, 8)];
        let a = half(0, "let s0 = u64(rv20);\nrv10 = u32(s0 + 1lu);");
        let b = half(16, "let s0 = u64(rv30);\nrv10 = u32(s0 + 1lu);");
        let regs_b = read_registers_apart(&a, &b, &promoted).expect("mergeable");
        assert_eq!(regs_b, ["rv30", "rv10"]);
        let regs = [super::lane_registers(&a), regs_b];
        let wide =
            "let li = lane - 0u;\nif (li < 32u) {\nlet s0 = u64(rv20);\nrv10 = u32(s0 + 1lu);\n}\n";
        let merged = with_registers_by_part(wide, &regs, 0, 16).expect("reads only");
        assert!(merged.contains("let s0 = u64(select(rv30, rv20, lane < 16u));"));
        assert!(merged.contains("rv10 = u32(s0 + 1lu);"));
        // Different destinations: each lane assigns its own half's.
        let dst = half(16, "let s0 = u64(rv30);\nrv20 = u32(s0 + 1lu);");
        let regs = [
            super::lane_registers(&a),
            read_registers_apart(&a, &dst, &promoted).expect("mergeable"),
        ];
        let merged = with_registers_by_part(wide, &regs, 0, 16).expect("own lines");
        assert!(merged.contains(
            "{ let part_value = u32(s0 + 1lu); if (lane < 16u) { rv10 = part_value; } else { rv20 = part_value; } }"
        ), "{merged}");
        // Not where the assignment shares its line, or assigns in place.
        let shared = half(16, "let s0 = u64(rv30); rv20 = u32(s0 + 1lu);");
        let a_shared = half(0, "let s0 = u64(rv20); rv10 = u32(s0 + 1lu);");
        assert_eq!(read_registers_apart(&a_shared, &shared, &promoted), None);
        let add_a = half(0, "rv10 += 1u;");
        let add_b = half(16, "rv20 += 1u;");
        assert_eq!(read_registers_apart(&add_a, &add_b, &promoted), None);
        // A u32 register against a u64 one: apart.
        let wide_src = half(16, "let s0 = u64(rv40);\nrv10 = u32(s0 + 1lu);");
        assert_eq!(read_registers_apart(&a, &wide_src, &promoted), None);
        // Not a register name: `rv200x` and `srv2` are left alone.
        assert_eq!(super::lane_registers("srv2 + rv200x + rv7"), ["rv7"]);
    }

    /// Halves that reach the GRF image by element merge where, channel by channel, they
    /// touch the bytes the wider instruction does; halves naming the same bytes for
    /// channels 16 apart do not.
    #[test]
    fn image_halves_compare_by_channel() {
        use super::parts_key;
        let half = |off: u32, base: u32| {
            format!(
                "let li = lane - {off}u;\nif (li < 16u) {{\nlet i = li;\n\
                 let s0 = gld(({base}u + i * 4u), 4u);\ngst({}u + (i) * 4u, 4u, s0 + 1lu);\n}}\n",
                base + 1024
            )
        };
        let lo = parts_key(&half(0, 2240), 16, 0);
        assert!(lo.is_some());
        assert_eq!(lo, parts_key(&half(16, 2304), 16, 16));
        assert_ne!(lo, parts_key(&half(16, 2240), 16, 16));
        let wide = half(0, 2240).replace("li < 16u", "li < 32u");
        assert_eq!(parts_key(&wide, 32, 0), lo);
        // An element index in any other form still keeps a text apart.
        let other = half(0, 2240).replace("gld((2240u + i * 4u), 4u)", "gld(2240u + i * 4u, 4u)");
        assert_eq!(parts_key(&other, 16, 0), None);
    }

    /// SEL's halves compare without their enabled and predicate words' channel
    /// numbers, and the first half widened carries full-width words; a 16-bit mask
    /// outside those lines is left alone.
    #[test]
    fn sel_halves_compare_and_widen() {
        use super::{parts_key, widened};
        let half = |off: u32| {
            format!(
                "let em = lem;\nlet li = lane - {off}u;\nlet en = (em >> {off}u) & 65535u;\n\
                 let pb = (~((pr[1u] >> {off}u) & 65535u) & 65535u);\n\
                 if (li < 16u && (en & (1u << li)) != 0u) {{\nlet i = li;\n\
                 let v = select(rv1 & 65535u, rv2, (pb & (1u << i)) != 0u);\nrv3 = v;\n}}\n"
            )
        };
        let (a, b) = (half(0), half(16));
        assert!(parts_key(&a, 16, 0).is_some());
        assert_eq!(parts_key(&a, 16, 0), parts_key(&b, 16, 16));
        let w = widened(&a, 16, 32, 0);
        assert!(w.contains("let en = (em >> 0u) & 4294967295u;"), "{w}");
        assert!(w.contains("let pb = (~((pr[1u] >> 0u) & 4294967295u) & 4294967295u);"));
        assert!(w.contains("if (li < 32u && (en & (1u << li)) != 0u) {"));
        assert!(w.contains("select(rv1 & 65535u, rv2,"));
        assert_eq!(parts_key(&w, 32, 0), parts_key(&a, 16, 0));
    }

    /// mandelbrot's escape loop (blocks 3-6): the iteration's rows run unguarded, a
    /// pixel past the image or escaped leaves with `break`; only the block that the
    /// counter's exit branch may skip keeps `if (pc == 5u)`.
    #[test]
    fn mandelbrot_loop_rows_lose_their_guards() {
        use super::{blocks, guards_of_loop, Guard};
        let path = crate::corpus::paths::default_corpus_dir()
            .join("mandelbrot/tgllp-simd16/kernel.visaasm");
        let text = std::fs::read_to_string(path).expect("the corpus");
        let program = crate::decode::text::parse_visaasm(&text, 32).expect("parses");
        let p = crate::interp::prepare(&program, "mandelbrot").expect("prepares");
        let cfg = blocks::split(&p.insts);
        let regions = crate::translate::simt::loop_regions(&p, &cfg);
        let [r] = regions.as_slice() else {
            panic!("one loop: {regions:?}")
        };
        assert_eq!((r.start, r.end), (3, 6));
        let leave = Guard::Elide { left: true };
        assert_eq!(
            guards_of_loop(&p, &cfg, 3, 6, false),
            [leave, leave, Guard::Keep, leave]
        );
        // Inside another loop, invocations waiting for its next pass go by too.
        assert_eq!(guards_of_loop(&p, &cfg, 3, 6, true)[0], leave);
    }

    /// Only a guard every lane passes goes: channel 0 on, the whole width, no
    /// predicate in the condition.
    #[test]
    fn only_a_whole_width_guard_goes() {
        use super::without_whole_width_guard as unguard;
        let text = |off: u32, n: u32| {
            format!("let li = lane - {off}u;\nif (li < {n}u) {{\nlet i = li;\nrv1 = 0u;\n}}\n")
        };
        assert_eq!(
            unguard(&text(0, 16), 16).as_deref(),
            Some("let li = lane - 0u;\n{\nlet i = li;\nrv1 = 0u;\n}\n")
        );
        assert!(unguard(&text(0, 32), 16).is_some());
        assert_eq!(unguard(&text(0, 8), 16), None);
        assert_eq!(unguard(&text(16, 16), 32), None);
        let predicated =
            "let li = lane - 0u;\nif (li < 16u && (ce & (1u << li)) != 0u) {\nrv1 = 0u;\n}\n";
        assert_eq!(unguard(predicated, 16), None);
    }
}
