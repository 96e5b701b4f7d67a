//! The straight mapping: one invocation per SIMD channel that follows its own
//! channel's branches, with no block scheduler, no barrier and no mirror.
//!
//! Where channels never meet, the min-PC schedule of a vISA thread only decides in
//! which order its channels run their blocks, and that order is invisible: each
//! invocation can run the blocks its channel runs, in program order, straight. The
//! kernel must be acyclic (every block runs at most once per channel, so the thread's
//! instruction count is "every block some channel ran") and the plan must show that no
//! channel reads what another wrote, through registers or memory. What every channel
//! computes alike (scalars, surface moves) runs in every invocation, which is exact
//! when each invocation computes it from the same values as the thread did: in the
//! entry blocks every dispatched channel is present, so there an instruction sees the
//! thread's execution mask (the dispatch mask); further on it must ignore the mask
//! (NoMask) and what it writes is read only in its own block, after it.
//!
//! Statistics: each invocation records the blocks it ran (a bit per block) in the
//! `state` buffer when `cfg[CFG_COUNT]` asks for it; the host ORs a thread's lanes for
//! the instruction count and sums them for the channel-instructions.

use super::lane_memory::Conditions;
use super::lanes::{Plan, Run};
use super::{blocks, chen_expr, emit_inst, is_nop, Emit, Module, TranslateError};
use crate::interp::prepare::{Dst, PField, PInst, Prepared, Src};
use crate::ir::ExecSize;
use crate::isa::Opcode;
use std::collections::{HashMap, HashSet};

/// Whether a kernel (with its straight plan) can run straight: the conditions its
/// launch must meet, or why it cannot.
pub fn check(
    p: &Prepared,
    plan: &Plan,
    cfg: &blocks::Blocks,
    tpg: u32,
) -> Result<Conditions, String> {
    if let Some(why) = ineligible(p, plan, cfg, tpg) {
        return Err(why);
    }
    let block_of = block_of_each(p, cfg);
    let rounds = Rounds::of(p, cfg);
    // Blocks that end with a branch where channels may part.
    let parts: Vec<bool> = cfg
        .ranges
        .iter()
        .map(|r| {
            let last = &p.insts[r.end - 1];
            matches!(last.op, Opcode::Goto | Opcode::Jmp | Opcode::Switchjmp)
                && may_part(p, plan, last)
        })
        .collect();
    super::lane_memory::conditions(p, plan, &block_of, prefix_blocks(p, cfg), &|x, y| {
        rounds.apart(block_of[x], block_of[y], &parts)
    })
}

/// Why a kernel cannot run straight, memory aside (`lane_memory`).
fn ineligible(p: &Prepared, plan: &Plan, cfg: &blocks::Blocks, tpg: u32) -> Option<String> {
    use Opcode::*;
    if let Some(i) = p.insts.iter().find(|i| {
        matches!(i.op, Call | Fcall | Ifcall | Fret | Sbarrier | Nbarrier)
            || (i.op == Barrier && tpg.max(1) * p.simd > MAX_INVOCATIONS)
    }) {
        return Some(format!("{} at instruction {}", i.op.spec_name(), i.index));
    }
    // SLM is the group's: its threads must share one workgroup.
    if tpg > 1 && tpg * p.simd > MAX_INVOCATIONS && super::lanes::uses_slm(p) {
        return Some(format!(
            "shared local memory between {tpg} threads of SIMD{} (over {MAX_INVOCATIONS} invocations)",
            p.simd
        ));
    }
    if let Some(at) = Rounds::of(p, cfg).misaligned(p, plan) {
        return Some(format!(
            "channels that part at instruction {at} may reach different barriers"
        ));
    }
    if plan.mirrored.iter().any(|&m| m) || plan.mirrored_preds.iter().any(|&m| m) {
        return Some("channels read each other's registers".into());
    }
    if let Some(k) = plan.run.iter().position(|r| *r == Run::Lane0) {
        return Some(format!(
            "a store or atomic for the whole thread at instruction {}",
            p.insts[k].index
        ));
    }
    // A NoMask store writes for channels that are not running (or not dispatched).
    if let Some(k) = (0..p.insts.len())
        .find(|&k| plan.run[k] == Run::PerLane && plan.mem[k].1 && p.insts[k].exec.mask.no_mask)
    {
        return Some(format!(
            "a NoMask store at instruction {}",
            p.insts[k].index
        ));
    }
    let prefix = prefix_blocks(p, cfg);
    // A %cr0 known at every instruction is every channel's, whatever its path.
    let cr0_known = cr0_values(p, plan, cfg, cfg.ranges[prefix - 1].end)
        .iter()
        .all(Option::is_some);
    uniform_consistency(p, plan, &block_of_each(p, cfg), prefix, cr0_known)
}

/// The leading blocks every dispatched channel runs: until the first label, branch
/// target or control-flow instruction (the rest are cuts of long straight code).
pub fn prefix_blocks(p: &Prepared, cfg: &blocks::Blocks) -> usize {
    let mut targets = vec![false; p.insts.len() + 1];
    for t in p.insts.iter().flat_map(blocks::targets) {
        targets[(t as usize).min(p.insts.len())] = true;
    }
    let mut n = 1;
    for w in cfg.ranges.windows(2) {
        let (prev, next) = (&w[0], &w[1]);
        let last = &p.insts[prev.end - 1];
        let first = &p.insts[next.start];
        if blocks::ends_block(last.op)
            || matches!(first.op, Opcode::Label | Opcode::Subroutine)
            || targets[next.start]
        {
            break;
        }
        n += 1;
    }
    n.min(cfg.ranges.len())
}

fn block_of_each(p: &Prepared, cfg: &blocks::Blocks) -> Vec<usize> {
    let mut out = vec![0; p.insts.len()];
    for (b, r) in cfg.ranges.iter().enumerate() {
        for k in r.clone() {
            out[k] = b;
        }
    }
    out
}

/// Registers, predicates, surface and address variables an instruction reads or
/// writes, as keys of the consistency check.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Byte(u32),
    Pred(u32),
    Surf(u16),
    Addr(u32),
}

fn state_keys(inst: &PInst) -> (Vec<Key>, Vec<Key>) {
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    for f in &inst.fields {
        match f {
            PField::Surface(id) | PField::Src(Src::State { id, .. }) => reads.push(Key::Surf(*id)),
            PField::Src(Src::Addr { base, .. }) => reads.push(Key::Addr(*base)),
            PField::Dst(Dst::State { id }) => writes.push(Key::Surf(*id)),
            PField::Dst(Dst::Addr { base }) => writes.push(Key::Addr(*base)),
            _ => {}
        }
    }
    (reads, writes)
}

/// What an instruction run in every invocation writes outside the entry blocks is
/// read only in its block, after it (else a channel that skipped the block would read
/// a stale copy).
fn uniform_consistency(
    p: &Prepared,
    plan: &Plan,
    block_of: &[usize],
    prefix: usize,
    cr0_known: bool,
) -> Option<String> {
    let keys_of = |k: usize| -> (Vec<Key>, Vec<Key>) {
        let (mut r, mut w) = state_keys(&p.insts[k]);
        let (gr, pr) = &plan.reads[k];
        r.extend(gr.iter().flat_map(|&(a, b)| (a..b).map(Key::Byte)));
        r.extend(pr.iter().map(|&x| Key::Pred(x)));
        // Run in every invocation, or NoMask per lane (on hardware it also writes the
        // elements of channels that are not in the block).
        if plan.run[k] != Run::PerLane || p.insts[k].exec.mask.no_mask {
            let (gw, pw) = &plan.writes[k];
            w.extend(gw.iter().flat_map(|&(a, b)| (a..b).map(Key::Byte)));
            w.extend(pw.iter().map(|&x| Key::Pred(x)));
        } else {
            w.clear();
        }
        (r, w)
    };
    let mut late: HashSet<Key> = HashSet::new();
    for (k, &b) in block_of.iter().enumerate() {
        if b >= prefix {
            late.extend(keys_of(k).1);
        }
    }
    if cr0_known {
        for x in p.pre.cr0..p.pre.cr0 + 4 {
            late.remove(&Key::Byte(x));
        }
    }
    if late.is_empty() {
        return None;
    }
    // Per block, the keys written so far by instructions run in every invocation.
    let mut written: HashMap<Key, usize> = HashMap::new();
    // Keys read outside the block of their last write, with the first such read.
    let mut loose: HashMap<Key, usize> = HashMap::new();
    for (k, &b) in block_of.iter().enumerate() {
        let (r, w) = keys_of(k);
        for key in r {
            if late.contains(&key) && written.get(&key) != Some(&b) {
                loose.entry(key).or_insert(k);
            }
        }
        for key in w {
            written.insert(key, b);
        }
    }
    // Constants (IGC materializes float constants with `mov (M1_NM, 1) V imm` where
    // they are first needed) are exact in every copy that reads them after a write.
    let dom = super::lane_memory::dominators(p, block_of);
    loose.retain(|key, _| !constant_key(p, plan, block_of, &dom, key));
    let first = loose.values().min().copied()?;
    parting_branch(p, plan, block_of, &loose).map(|at| {
        format!(
            "instruction {} reads what a scalar instruction of another block writes, and the channels may part at instruction {at}",
            p.insts[first].index
        )
    })
}

/// The third way a copy of a scalar written outside the entry blocks stays exact: it
/// holds a constant. Every write of the byte `key` is a NoMask scalar `mov` of an
/// immediate of the destination's own type, all giving it one value, and every read of
/// it comes after a write in its block or in a block such a write dominates: every
/// channel that reads it wrote that value first, and nothing writes another.
fn constant_key(
    p: &Prepared,
    plan: &Plan,
    block_of: &[usize],
    dom: &[Vec<bool>],
    key: &Key,
) -> bool {
    let Key::Byte(x) = *key else {
        return false;
    };
    let touches = |ranges: &[(u32, u32)]| ranges.iter().any(|&(a, b)| a <= x && x < b);
    let mut value = None;
    let mut writers = Vec::new();
    for (k, inst) in p.insts.iter().enumerate() {
        if !touches(&plan.writes[k].0) {
            continue;
        }
        let (dsts, srcs, _) = inst.alu_operands();
        let byte = match (inst.op, dsts.as_slice(), srcs.as_slice()) {
            (
                Opcode::Mov,
                [Dst::Direct {
                    off,
                    ty,
                    sat: false,
                    ..
                }],
                [Src::Imm { ty: it, bits }],
            ) if inst.exec.size == 1
                && inst.exec.mask.no_mask
                && inst.pred.is_none()
                && it == ty
                && !ty.is_packed()
                && *off <= x
                && x < off + ty.size() =>
            {
                (bits >> (8 * (x - off))) & 0xff
            }
            _ => return false,
        };
        if value.is_some_and(|v| v != byte) {
            return false;
        }
        value = Some(byte);
        writers.push(k);
    }
    let written_before = |r: usize| {
        writers.iter().any(|&w| {
            let (bw, br) = (block_of[w], block_of[r]);
            if bw == br {
                w < r
            } else {
                dom[br][bw]
            }
        })
    };
    !writers.is_empty()
        && (0..p.insts.len())
            .filter(|&k| touches(&plan.reads[k].0))
            .all(written_before)
}

/// The second way a copy of a scalar written outside the entry blocks stays exact:
/// the channels that touch it never part. Every invocation then runs the same writes
/// of it as the thread, in the same order, from the same values (a loop counter that
/// IGC keeps in one NoMask register, as mandelbrot's). Channels part only at a branch
/// whose condition may differ between them; there, at most one way may lead to a block
/// that touches such a key (the channels going the other way never look at it again).
/// Returns the vISA index of a branch where that fails.
fn parting_branch(
    p: &Prepared,
    plan: &Plan,
    block_of: &[usize],
    keys: &HashMap<Key, usize>,
) -> Option<usize> {
    let nb = block_of.last().map_or(0, |&b| b + 1);
    let mut touches = vec![false; nb];
    for (k, &b) in block_of.iter().enumerate() {
        let (r, _) = state_keys(&p.insts[k]);
        let (gr, pr) = &plan.reads[k];
        let (gw, pw) = &plan.writes[k];
        let bytes = gr
            .iter()
            .chain(gw)
            .flat_map(|&(a, b)| (a..b).map(Key::Byte));
        let preds = pr.iter().chain(pw).map(|&x| Key::Pred(x));
        let (_, w) = state_keys(&p.insts[k]);
        if r.into_iter()
            .chain(w)
            .chain(bytes)
            .chain(preds)
            .any(|key| keys.contains_key(&key))
        {
            touches[b] = true;
        }
    }
    let succ = successors(p, block_of, nb);
    let ipdom = immediate_post_dominators(&succ);
    for (k, inst) in p.insts.iter().enumerate() {
        use Opcode::*;
        if !matches!(inst.op, Goto | Jmp | Switchjmp) || !may_part(p, plan, inst) {
            continue;
        }
        let b = block_of[k];
        // Channels that part here meet again where every way leads (the immediate
        // post-dominator); touching the key before that on two ways is what fails.
        let join = ipdom[b];
        let touching_ways = succ[b]
            .iter()
            .filter(|&&w| reaches_before(&succ, w, join, &touches))
            .count();
        if touching_ways > 1 {
            return Some(inst.index);
        }
    }
    None
}

/// Whether a block marked in `marked` is reachable from `from` without entering `stop`.
fn reaches_before(succ: &[Vec<usize>], from: usize, stop: Option<usize>, marked: &[bool]) -> bool {
    let mut seen = vec![false; succ.len()];
    let mut stack = vec![from];
    while let Some(b) = stack.pop() {
        if Some(b) == stop || std::mem::replace(&mut seen[b], true) {
            continue;
        }
        if marked[b] {
            return true;
        }
        stack.extend(succ[b].iter().copied());
    }
    false
}

/// Each block's immediate post-dominator (`None`: only the kernel's end), over the
/// successors `succ` (a block without successors leads to the end). Post-dominator
/// sets are the greatest fixed point; the immediate one is the strict post-dominator
/// that the others post-dominate.
fn immediate_post_dominators(succ: &[Vec<usize>]) -> Vec<Option<usize>> {
    let nb = succ.len();
    let mut pdom = vec![vec![true; nb]; nb];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..nb).rev() {
            let mut d = vec![!succ[b].is_empty(); nb];
            for &s in &succ[b] {
                for (x, y) in d.iter_mut().zip(&pdom[s]) {
                    *x = *x && *y;
                }
            }
            d[b] = true;
            if d != pdom[b] {
                pdom[b] = d;
                changed = true;
            }
        }
    }
    (0..nb)
        .map(|b| {
            let strict: Vec<usize> = (0..nb).filter(|&j| j != b && pdom[b][j]).collect();
            // The nearest: post-dominated by every other strict post-dominator.
            strict
                .iter()
                .copied()
                .find(|&j| strict.iter().all(|&o| o == j || pdom[j][o]))
        })
        .collect()
}

/// Whether channels may take different ways at a branch: a per-channel condition that
/// is not one value for every channel. A scalar branch (exec size 1) reads channel 0's
/// predicate bit, which every copy holds alike (else the plan mirrors it); a predicate
/// written only by NoMask compares of the same scalars, which together cover the whole
/// SIMD width (IGC's SIMD32 halves), is one value.
fn may_part(p: &Prepared, plan: &Plan, inst: &PInst) -> bool {
    if inst.op == Opcode::Switchjmp {
        return true;
    }
    let Some(pred) = inst.pred.filter(|_| inst.exec.size > 1) else {
        return false;
    };
    let id = pred.id.0 as u32;
    let writers: Vec<&PInst> = p
        .insts
        .iter()
        .enumerate()
        .filter(|(w, _)| plan.writes[*w].1.contains(&id))
        .map(|(_, wi)| wi)
        .collect();
    let scalar_compare = |wi: &PInst| {
        wi.op == Opcode::Cmp
            && wi.pred.is_none()
            && wi.exec.mask.no_mask
            && wi.alu_operands().1.iter().all(|s| match s {
                Src::Imm { .. } => true,
                s => super::lanes::src_linear(s, wi.exec.size as u32)
                    .is_some_and(|(_, stride)| stride == 0),
            })
    };
    // The compare itself: relation, sources and types (the destination is `id`).
    let what = |wi: &PInst| {
        let (_, srcs, ints) = wi.alu_operands();
        format!("{srcs:?} {ints:?}")
    };
    let mut covered = 0u64;
    for wi in &writers {
        let off = wi.exec.mask.channel_offset();
        covered |= ((1u64 << wi.exec.size as u32) - 1) << off;
    }
    let full = (1u64 << p.simd.min(32)) - 1;
    !(writers.iter().all(|wi| scalar_compare(wi))
        && writers.iter().all(|wi| what(wi) == what(writers[0]))
        && covered & full == full)
}

/// Translate a kernel the straight way ([`check`] gave `launch`).
pub(super) fn translate(
    p: &Prepared,
    tpg: u32,
    header: Emit,
    consts: HashMap<String, u64>,
    plan: &Plan,
    launch: Conditions,
    shared_from: Option<u32>,
) -> Result<Module, TranslateError> {
    let cfg_blocks = blocks::split(&p.insts);
    let prefix = prefix_blocks(p, &cfg_blocks);
    let nblocks = cfg_blocks.ranges.len();
    // With loops a block may run many times: each invocation counts its channel's
    // instructions (one word) instead of marking the blocks it ran.
    let cyclic = !blocks::acyclic(&p.insts);
    let barriers = p.insts.iter().any(|i| i.op == Opcode::Barrier);
    let visit_words = if cyclic {
        1
    } else {
        nblocks.div_ceil(32).max(1) as u32
    };
    let mut em = header;
    em.straight = true;
    em.line("var<private> lane: u32;");
    // Where the invocation starts (IDLE: a channel the thread was not dispatched).
    em.line("var<private> lane_pc: u32;");
    // Loop back-edges charged so far (loops' passes, rounds), against the budget.
    em.line("var<private> lane_edges: u32;");
    em.line("var<private> step_limit: u32;");
    em.line("var<private> edge_budget: u32;");
    if barriers {
        em.line("var<workgroup> st_live: atomic<u32>;");
        em.line("var<workgroup> st_go: u32;");
        em.line("var<private> wg_index: u32;");
        // `pc` of an invocation that waits at a barrier: its next block plus HELD.
        em.line("const HELD: u32 = 0x80000000u;");
    }
    let mut consts = consts;
    consts.insert("K_VISIT_WORDS".into(), visit_words as u64);
    em.declare_lane_registers(&plan.promoted);
    em.line(&format!("const K_VISIT_WORDS: u32 = {visit_words}u;"));
    em.line("var<private> visited: array<u32, K_VISIT_WORDS>;");
    em.line("");
    super::emit_init(&mut em, p, shared_from, Some(&plan.image_reads()), false);
    // Promoted inputs: each invocation loads its channel's element of the payload.
    em.open("fn load_lane_inputs()");
    for &(base, e, poff) in &plan.promoted_inputs {
        let r = super::lanes::register(base);
        em.line(&format!("{r} = {};", lane_input(poff, e)));
    }
    em.close();
    let cr0_at = cr0_values(p, plan, &cfg_blocks, cfg_blocks.ranges[prefix - 1].end);
    em.open("fn run_lane(dm: u32) -> u32");
    em.line("let lem = 1u << lane;");
    em.line("var pc = lane_pc;");
    let mut regions = loop_regions(p, &cfg_blocks);
    // With barriers every row sits in a loop whose passes the workgroup takes
    // together (see `Rows::emit_loop`): the whole kernel is the outermost.
    if barriers && !(regions.len() == 1 && regions[0].start == 0 && regions[0].end + 1 == nblocks) {
        regions = vec![Region {
            start: 0,
            end: nblocks - 1,
            inner: regions,
        }];
    }
    let mut rows = Rows {
        p,
        plan,
        cfg: &cfg_blocks,
        prefix,
        cr0_at: &cr0_at,
        flat_atomics: &launch.flat_atomics,
        cyclic,
        passes: Vec::new(),
    };
    rows.emit(&mut em, 0, nblocks, &regions, None)?;
    let passes = rows.passes;
    // A loop the driver's limiter stopped early would leave wrong results: say so.
    // Without vISA loops the only loops are the runtime's, bounded by their
    // `loop-bound` notes (K_FIXED_COST, which the host checks against the probed
    // budget before the run), so the check is left out: llvmpipe pays for its loop on
    // every invocation even when cfg[CFG_PROBE] is 0 (saxpy over 1M items: 6.2 -> 5.4
    // GPU ms).
    if cyclic {
        em.line("if (cfg[CFG_PROBE] != 0u && loops_exhausted()) { fail(ERR_DRIVER_LOOPS, 0u); }");
    }
    em.line("return 0u;");
    em.close();
    if cyclic || barriers {
        emit_block_starts(&mut em, p, &cfg_blocks);
    }
    // With barriers the whole group shares one workgroup (its SLM, its barriers).
    let tpw = if barriers || super::lanes::uses_slm(p) {
        tpg.max(1)
    } else {
        threads_per_workgroup(p.simd, tpg)
    };
    emit_main(&mut em, p.simd, tpg, tpw, p.insts.len(), barriers, cyclic);
    let costs = super::budget::Costs::of_functions(
        &format!("{}\n{}", super::cost_runtime(&em.out), em.out),
        &consts,
    )
    .map_err(TranslateError::Budget)?;
    let whole = costs
        .block(&em.out[em.out.find("fn run_lane").unwrap_or(0)..])
        .map_err(TranslateError::Budget)?
        + costs.function("init")
        + 64;
    // Everything once (every loop's first pass included), then each further pass of a
    // loop what its rows cost, and each further round everything again.
    em.line(&format!("const K_FIXED_COST: u32 = {whole}u;"));
    for (head, text) in &passes {
        let cost = costs.block(text).map_err(TranslateError::Budget)? + 2;
        em.line(&format!("const K_PASS_COST_{head}: u32 = {cost}u;"));
    }
    let mut wgsl = super::runtime_for(&em.out);
    wgsl.push_str(PAYLOAD_ELEM);
    wgsl.push_str("\n// ---- kernel ----\n");
    wgsl.push_str(&em.out);
    Ok(Module {
        wgsl,
        entry_point: "main",
        workgroup_size: p.simd * tpw,
        blocks: nblocks,
        max_block_cost: whole,
        state_cost: 0,
        unsliced_cost: Some(whole),
        state_words: 0,
        slm_words: 1,
        block_starts: cfg_blocks
            .ranges
            .iter()
            .map(|r| p.insts[r.start].index)
            .collect(),
        lanes: true,
        why_not_lanes: None,
        state_grf_offset: 0,
        straight: Some(Straight {
            visit_words,
            block_lens: cfg_blocks.ranges.iter().map(|r| r.len() as u32).collect(),
            launch,
            threads_per_workgroup: tpw,
            cyclic,
        }),
        why_not_straight: None,
        table: Vec::new(),
        shapes: None,
        grf_in_state: false,
    })
}

/// What the host needs of a straight module to count instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Straight {
    /// Words of visited-block bits per invocation in the `state` buffer.
    pub visit_words: u32,
    /// Instructions of each block.
    pub block_lens: Vec<u32>,
    /// What the launch must satisfy (the host checks it before it runs the module).
    pub launch: super::lane_memory::Conditions,
    /// vISA threads per workgroup ([`threads_per_workgroup`]).
    pub threads_per_workgroup: u32,
    /// The kernel has loops: each invocation records its channel's instruction count
    /// (one word) rather than the blocks it ran, and a thread's instructions cannot be
    /// told from its channels' (the channel-instructions can).
    pub cyclic: bool,
}

impl Straight {
    /// `(instructions, channel-instructions)` of the visited-block words of a run
    /// (`simd` invocations per thread, `threads` threads).
    pub fn count(&self, words: &[u32], simd: u32, threads: u64) -> (Option<u64>, u64) {
        if self.cyclic {
            let n = (threads * simd as u64) as usize;
            let chans = words.iter().take(n).map(|&w| w as u64).sum();
            return (None, chans);
        }
        let vw = self.visit_words as usize;
        let len_of = |bits: u32, w: usize| -> u64 {
            (0..32)
                .filter(|i| bits & (1 << i) != 0)
                .map(|i| self.block_lens.get(w * 32 + i).copied().unwrap_or(0) as u64)
                .sum()
        };
        let (mut insts, mut chans) = (0u64, 0u64);
        for t in 0..threads as usize {
            for w in 0..vw {
                let mut any = 0u32;
                for l in 0..simd as usize {
                    let bits = words
                        .get((t * simd as usize + l) * vw + w)
                        .copied()
                        .unwrap_or(0);
                    any |= bits;
                    chans += len_of(bits, w);
                }
                insts += len_of(any, w);
            }
        }
        (Some(insts), chans)
    }
}

/// The value %cr0 holds before each instruction, where it is known: the launch starts
/// it at 0 (`init` leaves it so), and IGC sets its float-mode bits once, in the entry
/// blocks, with a NoMask `or` / `and` / `xor` / `mov` of immediates (`or (M1_NM, 1)
/// %cr0 %cr0 0x4c0`), and may toggle the rounding mode around a conversion further on
/// (`xor ... 0x30` twice). The value flows over the blocks (a NoMask write runs
/// whenever its block runs, for every channel alike); where two paths bring different
/// values, or a write is of another form, it is unknown. Kernels with subroutine
/// calls know it only where nothing after the entry blocks (`prefix_end`: the first
/// instruction after them) writes it.
pub(super) fn cr0_values(
    p: &Prepared,
    plan: &Plan,
    cfg: &blocks::Blocks,
    prefix_end: usize,
) -> Vec<Option<u32>> {
    use Opcode::*;
    let cr0 = p.pre.cr0;
    // An indirect destination may write anything (the plan does not track it).
    let writes = |k: usize| {
        plan.writes[k]
            .0
            .iter()
            .any(|&(a, b)| a < cr0 + 4 && cr0 < b)
            || p.insts[k]
                .fields
                .iter()
                .any(|f| matches!(f, PField::Dst(Dst::Indirect { .. })))
    };
    let n = p.insts.len();
    let step = |k: usize, v: Option<u32>| {
        if writes(k) {
            v.and_then(|cur| cr0_write(&p.insts[k], cr0, cur))
        } else {
            v
        }
    };
    if !(prefix_end..n).any(writes) {
        let mut out = Vec::with_capacity(n);
        let mut v = Some(0u32);
        for k in 0..n {
            out.push(v);
            v = step(k, v);
        }
        return out;
    }
    if p.insts
        .iter()
        .any(|i| matches!(i.op, Call | Fcall | Ifcall | Fret))
    {
        return vec![None; n];
    }
    // Entry values per block: None = not reached (yet), Some(None) = unknown.
    let nb = cfg.ranges.len();
    let block_at = |k: usize| cfg.ranges.iter().position(|r| r.contains(&k));
    let mut entry: Vec<Option<Option<u32>>> = vec![None; nb];
    if nb > 0 {
        entry[0] = Some(Some(0));
    }
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..nb {
            let Some(mut v) = entry[b] else { continue };
            let range = cfg.ranges[b].clone();
            for k in range.clone() {
                v = step(k, v);
            }
            // Successors: the next block always (conservative) and branch targets.
            let mut succ: Vec<usize> = block_at(range.end).into_iter().collect();
            for t in blocks::targets(&p.insts[range.end - 1]) {
                succ.extend(block_at(t as usize));
            }
            for s in succ {
                let merged = match entry[s] {
                    None => Some(v),
                    Some(x) if x == v => Some(x),
                    Some(_) => Some(None),
                };
                if merged != entry[s] {
                    entry[s] = merged;
                    changed = true;
                }
            }
        }
    }
    let mut out = vec![None; n];
    for (b, r) in cfg.ranges.iter().enumerate() {
        let mut v = entry[b].flatten();
        for k in r.clone() {
            out[k] = v;
            v = step(k, v);
        }
    }
    out
}

/// The value a NoMask scalar write of %cr0 from itself and immediates leaves.
fn cr0_write(inst: &PInst, cr0: u32, cur: u32) -> Option<u32> {
    use Opcode::*;
    if inst.exec.size != 1 || !inst.exec.mask.no_mask || inst.pred.is_some() {
        return None;
    }
    let (dsts, srcs, _) = inst.alu_operands();
    match dsts.as_slice() {
        [Dst::Direct {
            off,
            ty,
            sat: false,
            ..
        }] if *off == cr0 && ty.size() == 4 => {}
        _ => return None,
    }
    let vals: Vec<u32> = srcs
        .iter()
        .map(|s| match s {
            Src::Imm { bits, ty } if ty.size() == 4 => Some(*bits as u32),
            Src::Direct {
                off,
                ty,
                m: crate::ir::Modifier::None,
                ..
            } if *off == cr0 && ty.size() == 4 => Some(cur),
            _ => None,
        })
        .collect::<Option<_>>()?;
    match (inst.op, vals.as_slice()) {
        (Mov, [a]) => Some(*a),
        (Or, [a, b]) => Some(a | b),
        (And, [a, b]) => Some(a & b),
        (Xor, [a, b]) => Some(a ^ b),
        _ => None,
    }
}

/// The rounds of a straight kernel with barriers: an invocation runs until its next
/// barrier, every invocation of the workgroup (the whole group) meets there, and the
/// next round starts after it. A round starts at the entry or after a barrier block
/// (a barrier ends its block).
struct Rounds {
    /// Blocks each round start reaches without passing a barrier.
    reach: Vec<Vec<bool>>,
    /// Per block: it ends with a barrier.
    barrier: Vec<bool>,
    succ: Vec<Vec<usize>>,
    block_of: Vec<usize>,
    /// `reach_from(b).0` per block, as `apart` needs them.
    from: std::cell::RefCell<Vec<Option<Vec<bool>>>>,
}

impl Rounds {
    fn of(p: &Prepared, cfg: &blocks::Blocks) -> Rounds {
        let block_of = block_of_each(p, cfg);
        let nb = cfg.ranges.len();
        let succ = successors(p, &block_of, nb);
        let barrier: Vec<bool> = cfg
            .ranges
            .iter()
            .map(|r| p.insts[r.end - 1].op == Opcode::Barrier)
            .collect();
        let mut starts = vec![0];
        starts.extend((0..nb).filter(|&b| barrier[b] && b + 1 < nb).map(|b| b + 1));
        let mut out = Rounds {
            reach: Vec::new(),
            barrier,
            succ,
            block_of,
            from: Default::default(),
        };
        out.reach = starts.iter().map(|&s| out.reach_from(s).0).collect();
        out
    }

    /// Blocks reachable from `start` without passing a barrier, and the barrier blocks
    /// met first.
    fn reach_from(&self, start: usize) -> (Vec<bool>, Vec<usize>) {
        let mut seen = vec![false; self.barrier.len()];
        let mut first = Vec::new();
        let mut stack = vec![start];
        while let Some(b) = stack.pop() {
            if std::mem::replace(&mut seen[b], true) {
                continue;
            }
            if self.barrier[b] {
                first.push(b);
                continue;
            }
            stack.extend(self.succ[b].iter().copied());
        }
        first.sort_unstable();
        (seen, first)
    }

    /// Whether two channels of a thread never run blocks `a` and `b` in one round:
    /// their memory accesses are then ordered by a barrier. The channels of a thread
    /// start a round together (the rounds are aligned), so they can only be in both
    /// when one block leads to the other without a barrier, or a branch of the round
    /// where channels may part (`parts`, per block) leads to both; ways that a branch
    /// on one value for every channel separates are never taken in one round.
    fn apart(&self, a: usize, b: usize, parts: &[bool]) -> bool {
        let from = |x: usize| {
            let mut memo = self.from.borrow_mut();
            if memo.len() <= x {
                memo.resize(x + 1, None);
            }
            memo[x].get_or_insert_with(|| self.reach_from(x).0).clone()
        };
        if !self.reach.iter().any(|r| r[a] && r[b]) {
            return true;
        }
        if from(a)[b] || from(b)[a] {
            return false;
        }
        !self.reach.iter().any(|r| {
            r[a] && r[b]
                && (0..parts.len()).any(|q| {
                    parts[q] && r[q] && {
                        let f = from(q);
                        f[a] && f[b]
                    }
                })
        })
    }

    /// A branch where channels may part and then meet different barriers first (the
    /// rounds would pair one channel's barrier with another's). A way that ends the
    /// channel first is fine: a finished channel no longer takes part.
    fn misaligned(&self, p: &Prepared, plan: &Plan) -> Option<usize> {
        if !self.barrier.iter().any(|&b| b) {
            return None;
        }
        p.insts.iter().enumerate().find_map(|(k, inst)| {
            use Opcode::*;
            if !matches!(inst.op, Goto | Jmp | Switchjmp) || !may_part(p, plan, inst) {
                return None;
            }
            let firsts: Vec<Vec<usize>> = self.succ[self.block_of[k]]
                .iter()
                .map(|&s| self.reach_from(s).1)
                .filter(|f| !f.is_empty())
                .collect();
            let aligned = firsts.iter().all(|f| f.len() == 1 && *f == firsts[0]);
            (!aligned).then_some(inst.index)
        })
    }
}

/// Successors of each block: the next block unless every channel leaves by an
/// unpredicated goto, jmp or ret, and branch targets.
fn successors(p: &Prepared, block_of: &[usize], nb: usize) -> Vec<Vec<usize>> {
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for (k, inst) in p.insts.iter().enumerate() {
        let b = block_of[k];
        let leaves =
            inst.pred.is_none() && matches!(inst.op, Opcode::Goto | Opcode::Jmp | Opcode::Ret);
        if let Some(&n) = block_of.get(k + 1) {
            if n != b && !leaves {
                succ[b].push(n);
            }
        }
        for t in blocks::targets(inst) {
            if let Some(&tb) = block_of.get(t as usize) {
                succ[b].push(tb);
            }
        }
    }
    for s in &mut succ {
        s.sort_unstable();
        s.dedup();
    }
    succ
}

/// A loop of a straight kernel: blocks `start..=end`, entered at the top, left by a
/// branch past `end` or before `start`; `inner`: the loops nested in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Region {
    pub start: usize,
    pub end: usize,
    pub inner: Vec<Region>,
}

/// The loops of a kernel as nested block ranges: each backward branch spans its
/// target's block to its own; ranges that overlap without nesting merge into one.
pub(super) fn loop_regions(p: &Prepared, cfg: &blocks::Blocks) -> Vec<Region> {
    let block_of = |k: usize| {
        cfg.ranges
            .iter()
            .position(|r| r.contains(&k))
            .unwrap_or(cfg.ranges.len())
    };
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (k, inst) in p.insts.iter().enumerate() {
        for t in blocks::targets(inst) {
            if (t as usize) <= k {
                spans.push((block_of(t as usize), block_of(k)));
            }
        }
    }
    nest_spans(spans)
}

/// Block ranges `(first, last)` as nested regions, merging ranges that overlap
/// without nesting.
fn nest_spans(mut spans: Vec<(usize, usize)>) -> Vec<Region> {
    // Merge partial overlaps until the ranges nest (each round removes one).
    loop {
        spans.sort_unstable_by_key(|&(a, b)| (a, std::cmp::Reverse(b)));
        spans.dedup();
        let crossing = (0..spans.len()).find_map(|i| {
            (i + 1..spans.len())
                .find(|&j| spans[j].0 <= spans[i].1 && spans[i].1 < spans[j].1)
                .map(|j| (i, j))
        });
        let Some((i, j)) = crossing else { break };
        let merged = (spans[i].0, spans[j].1);
        spans.remove(j);
        spans[i] = merged;
    }
    fn nest(spans: &[(usize, usize)]) -> Vec<Region> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < spans.len() {
            let (a, b) = spans[i];
            let mut j = i + 1;
            while j < spans.len() && spans[j].0 <= b {
                j += 1;
            }
            out.push(Region {
                start: a,
                end: b,
                inner: nest(&spans[i + 1..j]),
            });
            i = j;
        }
        out
    }
    nest(&spans)
}

/// Emits the rows of a straight kernel, loops as WGSL loops around their blocks'
/// rows: each pass runs the rows in program order (forward branches go on in the
/// same pass), and a branch back into the loop takes another pass.
struct Rows<'a> {
    p: &'a Prepared,
    plan: &'a Plan,
    cfg: &'a blocks::Blocks,
    prefix: usize,
    cr0_at: &'a [Option<u32>],
    /// `Conditions::flat_atomics`: allocations each unplaced atomic must stay out of.
    flat_atomics: &'a [(usize, u32)],
    cyclic: bool,
    /// Each loop's name (`first_last` block) and the text of its rows (for its pass
    /// cost).
    passes: Vec<(String, String)>,
}

impl Rows<'_> {
    fn emit(
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
        let r = &self.cfg.ranges[b];
        r.end > r.start && self.p.insts[r.end - 1].op == Opcode::Barrier
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
        em.line("if (bits != 0u) { atomicOr(&st_live, bits); }");
        em.line("storageBarrier();");
        em.line("workgroupBarrier();");
        em.line("if (wg_index == 0u) { st_go = atomicLoad(&st_live); atomicStore(&st_live, 0u); }");
        em.line("let go = workgroupUniformLoad(&st_go);");
        em.line("if ((go & 1u) == 0u && pc != IDLE) { pc = pc & ~HELD; }");
        if region.is_some() {
            em.line("if ((go & 2u) == 0u && ((go & 1u) != 0u || (go & 4u) == 0u)) { break; }");
        }
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
        self.emit(em, a, b + 1, &r.inner, exit_row.map(|row| (row, (a, b))))?;
        let name = format!("{a}_{b}");
        self.passes.push((name.clone(), em.out[at..].to_string()));
        // Too long a walk for one dispatch: the host runs the thread mapping instead.
        // The error is reported at the end (`main`): an atomic in the loop, even one
        // never reached, costs llvmpipe every pass (mandelbrot: 0.93 -> 0.63 GPU ms).
        // The limits in privates (`main` reads them once): a storage read on every
        // pass costs llvmpipe (mandelbrot: ~1.1 -> ~0.7 GPU ms).
        if met {
            // Every invocation takes the pass; one that stops stops running.
            if self.cyclic {
                em.line(
                    "if (pc < HELD && visited[0u] > step_limit) { stop_at = pc + 1u; pc = IDLE; }",
                );
            }
            em.open("if (edge_budget != 0u)");
            em.line(&format!("lane_edges = lane_edges + K_PASS_COST_{name};"));
            em.line("if (lane_edges > edge_budget && pc != IDLE) { stop_at = (pc & ~HELD) + 1u; pc = IDLE; }");
            em.close();
            if exit_row.is_none() {
                self.meet(em, Some((a, b)));
            }
        } else {
            em.line(&format!("if (pc < {a}u || pc > {b}u) {{ break; }}"));
            em.line("if (visited[0u] > step_limit) { stop_at = pc + 1u; pc = IDLE; break; }");
            em.open("if (edge_budget != 0u)");
            em.line(&format!("lane_edges = lane_edges + K_PASS_COST_{name};"));
            em.line("if (lane_edges > edge_budget) { stop_at = pc + 1u; pc = IDLE; break; }");
            em.close();
        }
        em.close();
        Ok(())
    }

    fn emit_row(&mut self, em: &mut Emit, b: usize) -> Result<(), TranslateError> {
        let range = self.cfg.ranges[b].clone();
        em.open(&format!("if (pc == {b}u)"));
        if self.cyclic {
            em.line(&format!("visited[0u] = visited[0u] + {}u;", range.len()));
        } else {
            em.line(&format!(
                "visited[{}u] = visited[{}u] | {}u;",
                b / 32,
                b / 32,
                1u32 << (b % 32)
            ));
        }
        let next_block = self.cfg.block_expr(range.end as u32);
        let in_prefix = b < self.prefix;
        let mut ended = false;
        let mut k = range.start;
        while k < range.end {
            em.cr0_value = self.cr0_at[k];
            em.atomic_avoid = self.avoid_at(k);
            if let Some((text, parts)) =
                self.parts_as_one(em, k, range.end, &next_block, in_prefix)?
            {
                em.out.push_str(&text);
                k += parts;
                continue;
            }
            let inst = &self.p.insts[k];
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
            k += 1;
        }
        em.cr0_value = None;
        em.atomic_avoid.clear();
        if !ended {
            em.line(&format!("pc = {next_block};"));
        }
        em.close();
        Ok(())
    }
}

impl Rows<'_> {
    fn avoid_at(&self, k: usize) -> Vec<u32> {
        (self.flat_atomics.iter())
            .filter(|f| f.0 == k)
            .map(|f| f.1)
            .collect()
    }

    /// Instructions `k`, `k + 1`, ... as one per-lane instruction over all their
    /// channel ranges, where they are the parts of one wider operation (IGC splits
    /// SIMD32 into two SIMD16 instructions, M1 and M5, and a SIMD32 SVM atomic into
    /// four SIMD8 ones) that compute the same per-lane code: llvmpipe runs every
    /// instruction of a straight module masked, taken or not, so parts emitted apart
    /// cost once each (see `parts_key`). Returns the text and the parts it covers (a
    /// power of two, at least two).
    fn parts_as_one(
        &self,
        em: &Emit,
        k: usize,
        end: usize,
        next_block: &str,
        in_prefix: bool,
    ) -> Result<Option<(String, usize)>, TranslateError> {
        let a = &self.p.insts[k];
        let n = a.exec.size as u32;
        let off = a.exec.mask.channel_offset();
        let part = |j: usize| {
            let b = &self.p.insts[j];
            self.plan.run[j] == Run::PerLane
                && b.op == a.op
                && b.exec.size == a.exec.size
                && b.exec.mask.channel_offset() == off + (j - k) as u32 * n
                && off + (j - k + 1) as u32 * n <= 32
                && b.exec.mask.no_mask == a.exec.mask.no_mask
                && !blocks::ends_block(b.op)
                && self.cr0_at[j] == self.cr0_at[k]
                && self.avoid_at(j) == em.atomic_avoid
        };
        if !part(k) || k + 1 >= end || !part(k + 1) {
            return Ok(None);
        }
        let emit = |inst: &PInst, at: usize| -> Option<String> {
            let mut sub = em.scratch();
            emit_straight_inst(
                &mut sub, self.p, inst, at, self.plan, self.cfg, next_block, in_prefix,
            )
            .ok()?;
            Some(sub.out)
        };
        let Some(key) = emit(a, k).and_then(|t| parts_key(&t, n, off)) else {
            return Ok(None);
        };
        // Each further part under the first's index: the index appears in the text
        // (error reports), and must not keep equal parts apart.
        let mut parts = 1;
        while k + parts < end && part(k + parts) {
            let j = k + parts;
            let b = &self.p.insts[j];
            let as_a = PInst {
                index: a.index,
                ..b.clone()
            };
            let off_b = b.exec.mask.channel_offset();
            if emit(&as_a, j)
                .and_then(|t| parts_key(&t, n, off_b))
                .as_ref()
                != Some(&key)
            {
                break;
            }
            parts += 1;
        }
        // A whole execution size: the widest power of two of the matching parts.
        let mut parts = 1 << parts.ilog2();
        while parts >= 2 {
            let wide = PInst {
                exec: ExecSize {
                    size: a.exec.size * parts as u8,
                    mask: a.exec.mask,
                },
                ..a.clone()
            };
            let text = emit(&wide, k);
            let wide_n = n * parts as u32;
            if let Some(text) = text.filter(|t| parts_key(t, wide_n, off).as_ref() == Some(&key)) {
                let names: Vec<String> = (k..k + parts)
                    .map(|j| format!("[{}]", self.p.insts[j].index))
                    .collect();
                let name = format!("] {} ({:?})", a.op.spec_name(), Run::PerLane);
                let text = text.replacen(
                    &format!("// [{}{name}", a.index),
                    &format!("// {}{}, {parts} parts as one", names.join("+"), &name[1..]),
                    1,
                );
                return Ok(Some((text, parts)));
            }
            parts /= 2;
        }
        Ok(None)
    }
}

/// The text of a per-lane instruction of `n` channels from channel `off` with its
/// channel numbering taken out, where nothing else in it depends on the channel
/// number: two parts with equal keys compute the same code in every lane, and one
/// instruction over both channel ranges computes it too. `None` where the text
/// indexes anything by its element (`i`, `li`) beyond the channel guard and a flag
/// bit (`i + off`): an element index names other bytes in a wider instruction.
fn parts_key(text: &str, n: u32, off: u32) -> Option<String> {
    let key = text
        .replace(&format!("let li = lane - {off}u;"), "let li = lane - OFF;")
        .replace(&format!("chen(em, {n}u, {off}u,"), "chen(em, N, OFF,")
        .replace(
            &format!("if (li < {n}u && (ce & (1u << li)) != 0u) {{"),
            "if (GUARD) {",
        )
        .replace(&format!("if (li < {n}u) {{"), "if (GUARD) {")
        .replace(&format!(", i + {off}u,"), ", FLAG,");
    let rest = key
        .replace("let li = lane - OFF;", "")
        .replace("let i = li;", "")
        .replace("let i = 0u;", "");
    let indexed = ["i", "li"].iter().any(|w| {
        rest.match_indices(w).any(|(at, _)| {
            let before = rest[..at].chars().next_back();
            let after = rest[at + w.len()..].chars().next();
            let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !ident(before) && !ident(after)
        })
    });
    (!indexed).then_some(key)
}

/// `fn block_start(b)`: the vISA index of block `b`'s first instruction (for reports).
fn emit_block_starts(em: &mut Emit, p: &Prepared, cfg: &blocks::Blocks) {
    em.open("fn block_start(b: u32) -> u32");
    em.open("switch b");
    for (b, r) in cfg.ranges.iter().enumerate() {
        em.line(&format!(
            "case {b}u: {{ return {}u; }}",
            p.insts[r.start].index
        ));
    }
    em.line("default: { return 0u; }");
    em.close();
    em.close();
}

/// The invocation's element of a payload vector of `e`-byte elements at byte `poff`
/// (u64 for 8 bytes, else u32). An aligned element never straddles a word, so it is
/// read without `payload_elem`'s byte loop: llvmpipe runs that loop (a gather in it)
/// on every invocation, masked, whether or not it is taken.
fn lane_input(poff: u32, e: u32) -> String {
    let at = format!("{poff}u + lane * {e}u");
    match e {
        4 if poff.is_multiple_of(4) => format!("pl_word({at})"),
        1 | 2 if poff.is_multiple_of(e) => {
            let mask = (1u32 << (8 * e)) - 1;
            format!("(pl_word({at}) >> ((({at}) & 3u) * 8u)) & {mask}u")
        }
        8 if poff.is_multiple_of(8) => {
            format!("u64(pl_word({at})) | (u64(pl_word({at} + 4u)) << 32u)")
        }
        8 => format!("payload_elem({at}, 8u)"),
        _ => format!("u32(payload_elem({at}, {e}u))"),
    }
}

/// One payload element of `n` (1, 2, 4 or 8) bytes at byte `o`.
const PAYLOAD_ELEM: &str = r#"
fn payload_elem(o: u32, n: u32) -> u64 {
    if ((o & 3u) + n <= 4u) {
        let v = pl_word(o & ~3u) >> ((o & 3u) * 8u);
        return u64(select(v & ((1u << (n * 8u)) - 1u), v, n == 4u));
    }
    var v = 0lu;
    // loop-bound: 8
    for (var i = 0u; i < n; i++) {
        v = v | (u64(pl_byte(o + i)) << (8u * i));
    }
    return v;
}
"#;

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
    if is_nop(inst.op) {
        return Ok(false);
    }
    let run = plan.run[k];
    em.open("");
    em.line(&format!(
        "// [{}] {} ({:?})",
        inst.index,
        inst.op.spec_name(),
        run
    ));
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
        // The invocation leaves for `main`, where the workgroup meets (see `Rounds`).
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
            let mut sub = Emit::new(p.pre.cr0);
            sub.depth = em.depth;
            let r = emit_inst(&mut sub, p, inst, cfg, next_block)?;
            let body = sub.out.replace(
                "for (var c = 0u; c < K_SIMD; c++) { if ((em & (1u << c)) != 0u) { pcs[c] = t; } }",
                "pc = t;",
            );
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
            }
            // A surface the straight checks resolved (the last `movs` before it, which
            // every channel that gets here ran): the short binding-table accesses.
            if super::is_message(inst.op) {
                em.surface_bti = match super::lane_memory::space(p, k) {
                    Some(super::lane_memory::Space::Bti(b)) => Some(b),
                    _ => None,
                };
            }
            let r = emit_inst(em, p, inst, cfg, next_block);
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
    let nomask_chen = format!("chen(em, {}u, {off}u, true,", inst.exec.size);
    if !mask_known && uses_em(&em.out[at..].replace(&nomask_chen, "")) {
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

/// Whether generated code names the variable `em`.
fn uses_em(code: &str) -> bool {
    code.match_indices("em").any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let after = code[i + 2..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    })
}

/// Kernels longer than this get a workgroup barrier before `run_lane`: llvmpipe
/// compiles a barrier-free shader as one function, and on SIMD32 kernels of about a
/// hundred instructions that took 75 s instead of 3.4 s (as_type_bitcasts); the
/// barrier costs small kernels ~30% of their run time there, nothing on hardware.
const BARRIER_FROM_INSTS: usize = 32;

/// Invocations a workgroup of the straight form holds at most: wgpu's default limit,
/// which every adapter offers.
const MAX_INVOCATIONS: u32 = 256;

/// vISA threads per workgroup: the most threads of a group (a divisor of `tpg`) whose
/// channels fit one workgroup. Straight invocations never meet, so any grouping is
/// exact; bigger workgroups cost llvmpipe less per thread.
pub fn threads_per_workgroup(simd: u32, tpg: u32) -> u32 {
    (1..=tpg.max(1))
        .rev()
        .find(|&d| tpg.is_multiple_of(d) && d * simd.max(1) <= MAX_INVOCATIONS)
        .unwrap_or(1)
}

fn emit_main(
    em: &mut Emit,
    simd: u32,
    tpg: u32,
    tpw: u32,
    insts: usize,
    barriers: bool,
    cyclic: bool,
) {
    let run = if barriers {
        // Rounds: every invocation calls `run_lane` (uniform control flow); its rows
        // sit in loops the workgroup passes together, meeting after each barrier's
        // row and at the end of each pass (`Rows::meet`).
        r#"    wg_index = li;
    lane_pc = select(IDLE, 0u, l < n);
    let r = run_lane(dm);
"#
    } else {
        "    if (l < n) { let r = run_lane(dm); }
"
    };
    // Where a lane stopped (`stop_at`: 1 + its block; loops and barrier rounds only,
    // which have `block_start`).
    let stopped = if cyclic || barriers {
        "    if (stop_at != 0u) { fail(ERR_STRAIGHT_STOPPED, block_start(stop_at - 1u)); }\n"
    } else {
        ""
    };
    let barrier = if insts > BARRIER_FROM_INSTS {
        "    // Splits the shader for llvmpipe's compiler (see BARRIER_FROM_INSTS).\n    workgroupBarrier();\n"
    } else {
        ""
    };
    let per = tpg / tpw;
    let wg = tpw * simd;
    em.out.push_str(&format!(
        r#"
@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
    // {tpw} thread(s) of a group per workgroup, {per} workgroup(s) per group.
    let l = li % K_SIMD;
    lane = l;
    step_limit = cfg[CFG_STEP_LIMIT];
    edge_budget = cfg[CFG_EDGE_BUDGET];
    let wx = wid.x + chunk.x;
    let t = (wx % {per}u) * {tpw}u + li / K_SIMD;
    let grp = vec3<u32>(wx / {per}u, wid.y + chunk.y, wid.z + chunk.z);
    let group = (grp.z * cfg[CFG_GROUPS + 1u] + grp.y) * cfg[CFG_GROUPS] + grp.x;
    let tid = group * cfg[CFG_THREADS] + t;
    init(tid, t, grp);
    load_lane_inputs();
    let n = pl_n;
    // The thread's execution mask in the entry blocks: the dispatched channels.
    var dm = 0xffffffffu;
    if (n < 32u) {{ dm = (1u << n) - 1u; }}
    lane_edges = K_FIXED_COST;
{barrier}{run}    keep_bindings();
    flush_oob();
    // A lane past its loop budget, an unaligned word (`bti_ld4`): the host runs the
    // launch in the thread mapping.
{stopped}    if (alias_at != 0u) {{ fail(ERR_STRAIGHT_ALIAS, alias_at - 1u); }}
    if (slow_at != 0u) {{ fail(ERR_STRAIGHT_SLOW, slow_at - 1u); }}
    if (cfg[CFG_COUNT] != 0u) {{
        let rec = (tid * K_SIMD + l) * K_VISIT_WORDS;
        for (var w = 0u; w < K_VISIT_WORDS; w++) {{ state[rec + w] = visited[w]; }}
    }}
}}
"#
    ));
}

#[cfg(test)]
mod tests {
    use super::{threads_per_workgroup, Straight};

    #[test]
    fn loops_nest_and_crossing_loops_merge() {
        use super::{nest_spans, Region};
        let r = |start, end, inner| Region { start, end, inner };
        // Two loops in sequence, the second with a loop inside; a repeated back edge.
        assert_eq!(
            nest_spans(vec![(1, 2), (4, 9), (5, 6), (1, 2)]),
            vec![r(1, 2, vec![]), r(4, 9, vec![r(5, 6, vec![])])]
        );
        // Crossing back edges (3..6 and 5..8) make one loop; a self-loop inside stays.
        assert_eq!(
            nest_spans(vec![(3, 6), (5, 8), (7, 7)]),
            vec![r(3, 8, vec![r(7, 7, vec![])])]
        );
    }

    #[test]
    fn workgroups_hold_whole_threads_up_to_256_invocations() {
        assert_eq!(threads_per_workgroup(16, 8), 8);
        assert_eq!(threads_per_workgroup(32, 8), 8);
        assert_eq!(threads_per_workgroup(32, 16), 8);
        // A divisor of the group's threads: 6 threads of SIMD32 fit (192 invocations),
        // of SIMD64 only 3 of them.
        assert_eq!(threads_per_workgroup(32, 6), 6);
        assert_eq!(threads_per_workgroup(64, 6), 3);
        assert_eq!(threads_per_workgroup(16, 1), 1);
    }

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

    /// Two threads of two lanes, blocks of 3 and 5 instructions: a thread's
    /// instructions are the blocks any lane ran, its channel-instructions every lane's.
    #[test]
    fn counts_from_visited_blocks() {
        let s = Straight {
            visit_words: 1,
            block_lens: vec![3, 5],
            launch: Default::default(),
            threads_per_workgroup: 1,
            cyclic: false,
        };
        // Thread 0: lane 0 ran both blocks, lane 1 the first; thread 1: only lane 1
        // ran, the second block.
        let words = [0b11, 0b01, 0b00, 0b10];
        assert_eq!(s.count(&words, 2, 2), (Some(3 + 5 + 5), 8 + 3 + 5));
        // With loops: one word per lane, its channel's instructions.
        let looped = Straight { cyclic: true, ..s };
        assert_eq!(looped.count(&[7, 0, 4, 9], 2, 2), (None, 20));
    }
}
