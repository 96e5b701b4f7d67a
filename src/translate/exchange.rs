//! Registers that channels read from each other, passed through workgroup memory in
//! the straight form.
//!
//! The straight form runs one invocation per channel, each with its own copy of the
//! thread's registers. IGC's sub-group reductions, scans and broadcasts (and its
//! aggregation of atomics) read other channels' registers: each channel writes its
//! element of a vector, then NoMask code of the whole thread reduces the vector. That
//! is exact in the straight form, outside loops, when:
//! - the NoMask code that reads other lanes' registers, and the NoMask code that
//!   writes what it reads, runs whole in every invocation (`lanes::plan_forced`), so
//!   every copy computes the thread's values alike, and
//! - before each instruction that reads bytes another lane wrote per lane, the lanes
//!   meet: each publishes the bytes it owns to workgroup memory (`xw`, predicate bits
//!   to `xq`), a barrier, and each copies in those of the other lanes that met there
//!   (`xm`: one bit per lane that published).
//!
//! The lanes that meet are the channels that run the meeting's block, as in the vISA
//! thread: every dispatched channel in the entry blocks and in blocks on every way to
//! the end; elsewhere a meeting passes only what its own block wrote.
//!
//! The meeting is a vISA barrier inserted before the reader ([`SYNTHETIC`]), so the
//! straight form's rounds place it like any other (the whole group in one workgroup,
//! every barrier reached in uniform control flow); it counts as no instruction.
//! Bytes no lane writes per lane are written alike in every copy; a lane that was
//! not dispatched wrote nothing per lane, so its bytes stay what every copy holds.

use super::blocks;
use super::lanes::{self, Plan, Run};
use crate::interp::prepare::{PField, PInst, Prepared};
use crate::isa::Opcode;
use std::collections::HashMap;
use std::fmt::Write as _;

/// `PInst::index` of an inserted meeting (no vISA instruction: not counted).
pub const SYNTHETIC: usize = usize::MAX;

/// Whether an instruction is an inserted meeting.
pub fn synthetic(inst: &PInst) -> bool {
    inst.index == SYNTHETIC
}

/// Whether every channel runs the block of instruction `k`: no way from the entry
/// block reaches the kernel's end without passing it.
fn every_channel_runs(p: &Prepared, cfg: &blocks::Blocks, k: usize) -> bool {
    let Some(b) = cfg.ranges.iter().position(|r| r.contains(&k)) else {
        return false;
    };
    let mut seen = vec![false; cfg.ranges.len()];
    let mut todo = vec![0usize];
    while let Some(x) = todo.pop() {
        if x == b || seen[x] {
            continue;
        }
        seen[x] = true;
        for s in super::straight_rows::successors(p, cfg, x) {
            if s == usize::MAX {
                return false;
            }
            todo.push(s);
        }
    }
    true
}

/// Where the kernel's real blocks begin (labels, branch targets, after control
/// flow): `blocks::split` without its cuts of long straight code.
fn real_block_starts(p: &Prepared) -> Vec<bool> {
    let mut out = vec![false; p.insts.len()];
    for r in blocks::split_at_most(&p.insts, usize::MAX).ranges {
        if let Some(x) = out.get_mut(r.start) {
            *x = true;
        }
    }
    out
}

/// Instructions of a block that the interpreter counts (inserted meetings are not).
pub fn counted(p: &Prepared, r: &std::ops::Range<usize>) -> usize {
    p.insts[r.clone()].iter().filter(|i| !synthetic(i)).count()
}

/// GRF words `word..word + words` published by lanes `lane..`, `per` words each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WordRun {
    pub word: u32,
    pub words: u32,
    pub per: u32,
    pub lane: u32,
}

/// The bytes `mask` of GRF word `word`, which lane `lane` writes per lane while
/// other lanes write the word's other bytes (a vector of 16-bit or 8-bit elements:
/// IGC's shuffles of shorts and chars).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartSlot {
    pub word: u32,
    pub mask: u32,
    pub lane: u32,
}

/// What one meeting passes between the lanes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exchange {
    pub runs: Vec<WordRun>,
    /// Words several lanes write parts of: each part in a slot of its own after the
    /// runs' words (its lane publishes the whole word; the others merge its bytes).
    pub parts: Vec<PartSlot>,
    /// Predicates, with the bits lanes write per lane (bit `c` by lane `c`).
    pub preds: Vec<(u32, u32)>,
    /// Which of the two buffers it uses (meetings alternate: the next one's barrier
    /// lies between a meeting's reads and the writes two meetings later).
    pub parity: u32,
    /// Its number (its word in `xm`).
    pub number: u32,
}

/// Every meeting of a kernel, by the position of its inserted barrier.
#[derive(Clone, Debug, Default)]
pub struct Exchanges {
    pub at: HashMap<usize, Exchange>,
    /// Words and predicates of the largest meeting (one buffer's size).
    pub words: u32,
    pub preds: u32,
    /// Meetings (each has a word of the lanes that published at it, `xm`).
    pub count: u32,
}

impl Exchanges {
    /// GRF words some meeting writes into a lane's copy (never kept in registers).
    pub fn words_written(&self) -> Vec<u32> {
        let mut out: Vec<u32> = self
            .at
            .values()
            .flat_map(|x| {
                let runs = x.runs.iter().flat_map(|r| r.word..r.word + r.words);
                runs.chain(x.parts.iter().map(|s| s.word))
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Bytes of workgroup memory the buffers take (`tpw` threads per workgroup).
    pub fn workgroup_bytes(&self, tpw: u32) -> u32 {
        let (w, q, m) = self.buffer_words(tpw);
        4 * (w + q + m)
    }

    /// Words of `xw`, `xq` and `xm`: two buffers of the largest meeting per thread,
    /// and a word per meeting per thread.
    fn buffer_words(&self, tpw: u32) -> (u32, u32, u32) {
        (
            (2 * tpw * self.words).max(1),
            (2 * tpw * self.preds).max(1),
            (tpw * self.count).max(1),
        )
    }

    /// Declarations of the buffers (`tpw` threads per workgroup). Workgroup memory
    /// starts zeroed: no lane has published at any meeting yet (no meeting lies in a
    /// loop, so each `xm` word is written once a run).
    pub fn declarations(&self, tpw: u32) -> String {
        let (w, q, m) = self.buffer_words(tpw);
        format!(
            "var<workgroup> xw: array<u32, {w}>;\nvar<workgroup> xq: array<atomic<u32>, {q}>;\n\
             var<workgroup> xm: array<atomic<u32>, {m}>;\nvar<private> xslot: u32;\n"
        )
    }

    /// This thread's word of meeting `m` in `xm`: the lanes that published there.
    fn met(&self, m: u32) -> String {
        format!("xm[xslot * {}u + {m}u]", self.count)
    }

    /// The bases of meeting `x`'s buffers in `xw` (`xb`) and, where it passes
    /// predicates, `xq` (`xqb`).
    fn bases(&self, x: &Exchange) -> String {
        let mut s = format!("let xb = (xslot * 2u + {}u) * {}u;\n", x.parity, self.words);
        if !x.preds.is_empty() {
            let _ = writeln!(
                s,
                "let xqb = (xslot * 2u + {}u) * {}u;",
                x.parity, self.preds
            );
        }
        s
    }

    /// The publishing half of the meeting at `k`, before its barrier.
    pub fn publish(&self, k: usize) -> Option<String> {
        let x = self.at.get(&k)?;
        let mut s = String::new();
        let _ = writeln!(s, "// the lanes publish what they own (exchange.rs)");
        s.push_str(&self.bases(x));
        let _ = writeln!(s, "atomicOr(&{}, lem);", self.met(x.number));
        let mut at = 0;
        for r in &x.runs {
            let lanes = r.words / r.per;
            let _ = writeln!(s, "let q{at} = lane - {}u;", r.lane);
            let _ = write!(s, "if (q{at} < {lanes}u) {{");
            for j in 0..r.per {
                let _ = write!(
                    s,
                    " xw[xb + {}u + q{at} * {}u] = g[{}u + q{at} * {}u];",
                    at + j,
                    r.per,
                    r.word + j,
                    r.per
                );
            }
            let _ = writeln!(s, " }}");
            at += r.words;
        }
        for (j, p) in x.parts.iter().enumerate() {
            let _ = writeln!(
                s,
                "if (lane == {}u) {{ xw[xb + {}u] = g[{}u]; }}",
                p.lane,
                at + j as u32,
                p.word
            );
        }
        for (j, &(pid, owned)) in x.preds.iter().enumerate() {
            let _ = writeln!(
                s,
                "if (({owned}u & lem) != 0u) {{ if ((pr[{pid}u] & lem) != 0u) {{ atomicOr(&xq[xqb + {j}u], lem); }} else {{ atomicAnd(&xq[xqb + {j}u], ~lem); }} }}"
            );
        }
        Some(s)
    }

    /// The reading half of the meeting whose barrier is at `k`, after it: the bytes
    /// of the other lanes that met there into this lane's copy.
    pub fn pull(&self, k: usize) -> Option<String> {
        let x = self.at.get(&k)?;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// the lanes read what the others that met here own (exchange.rs)"
        );
        s.push_str(&self.bases(x));
        let _ = writeln!(s, "let xin = atomicLoad(&{}) & ~lem;", self.met(x.number));
        let mut at = 0;
        for r in &x.runs {
            for j in 0..r.words {
                // A select, not a branch: llvmpipe runs both sides of every branch
                // (atomic_global_counters ~10% less GPU time).
                let w = r.word + j;
                let _ = writeln!(
                    s,
                    "g[{w}u] = select(g[{w}u], xw[xb + {}u], (xin & {}u) != 0u);",
                    at + j,
                    1u32 << (r.lane + j / r.per)
                );
            }
            at += r.words;
        }
        for (j, p) in x.parts.iter().enumerate() {
            let (w, m) = (p.word, p.mask);
            let _ = writeln!(
                s,
                "g[{w}u] = select(g[{w}u], (g[{w}u] & ~{m}u) | (xw[xb + {}u] & {m}u), (xin & {}u) != 0u);",
                at + j as u32,
                1u32 << p.lane
            );
        }
        for (j, &(pid, owned)) in x.preds.iter().enumerate() {
            let _ = writeln!(
                s,
                "pr[{pid}u] = (pr[{pid}u] & ~(xin & {owned}u)) | (atomicLoad(&xq[xqb + {j}u]) & xin & {owned}u);"
            );
        }
        Some(s)
    }
}

/// What [`prepare`] makes of a kernel.
pub struct WithMeetings {
    /// The kernel with a barrier inserted before each meeting and fence.
    pub p: Prepared,
    /// The instructions to run whole in every lane (for `lanes::plan_forced`).
    pub forced: Vec<bool>,
    pub meetings: Exchanges,
    /// `lanes::plan_forced(p, .., forced)` where nothing was inserted (the kernel's
    /// own plan, made on the way).
    pub plan: Option<Plan>,
}

/// A kernel whose channels read each other's registers outside loops only, with a
/// meeting inserted before each such read. `plain`: the kernel's own plan
/// (`lanes::plan`). `Err`: why the straight form cannot pass the registers.
///
/// `fences`: positions before which a barrier that passes nothing goes (where no
/// meeting does), to order two channels' memory accesses (`fences.rs`).
pub fn prepare(
    p: &Prepared,
    cfg: &blocks::Blocks,
    fences: &[usize],
    plain: &Plan,
) -> Result<WithMeetings, String> {
    let prefix = super::simt::prefix_blocks(p, cfg);
    let prefix_end = cfg.ranges[prefix - 1].end;
    // Blocks that run at most once per channel: outside every loop.
    let mut in_loop = vec![false; p.insts.len()];
    for r in super::simt::loop_regions(p, cfg) {
        for x in in_loop[cfg.ranges[r.start].start..cfg.ranges[r.end].end].iter_mut() {
            *x = true;
        }
    }
    let starts = real_block_starts(p);
    // NoMask code outside loops that may run whole in every invocation.
    let eligible: Vec<bool> = p
        .insts
        .iter()
        .enumerate()
        .map(|(k, i)| {
            !in_loop[k]
                && i.exec.mask.no_mask
                && !blocks::ends_block(i.op)
                && !super::is_nop(i.op)
                && i.op != Opcode::Movs
        })
        .collect();
    // A NoMask plain store writes every channel's element, dispatched or not: each
    // invocation reaching it makes all of it (the same bytes alike).
    let mut uniform: Vec<bool> = p
        .insts
        .iter()
        .zip(&eligible)
        .map(|(i, &e)| e && super::is_message(i.op) && lanes::message_effects(i) == (false, true))
        .collect();
    // Then, to a fixed point, NoMask ALU code that reads other lanes' registers, and
    // the NoMask code that writes what such code reads (the elements of channels that
    // are not running: a reduction's identity). The rest keeps its per-lane form
    // (each invocation its own element, a lane vector in a register where it can).
    let alu = |k: usize| eligible[k] && !super::is_message(p.insts[k].op);
    let plan = loop {
        // With nothing forced whole the plan is the plain one (`lanes::plan`), which
        // the caller made already.
        let plan = if uniform.contains(&true) {
            lanes::plan_forced(p, cfg, true, &uniform)
        } else {
            plain.clone()
        };
        let mut grew = false;
        let mut need = vec![false; plan.owner.len() + 1];
        let mut need_preds = vec![false; plan.pred_owner.len()];
        for (k, whole) in uniform.iter_mut().enumerate() {
            let cross = !plan.cross[k].0.is_empty() || !plan.cross[k].1.is_empty();
            if cross && alu(k) && !*whole {
                *whole = true;
                grew = true;
            }
            if cross || *whole {
                for &(a, b) in &plan.reads[k].0 {
                    for x in need.iter_mut().take(b as usize).skip(a as usize) {
                        *x = true;
                    }
                }
                for &pid in &plan.reads[k].1 {
                    if let Some(x) = need_preds.get_mut(pid as usize) {
                        *x = true;
                    }
                }
            }
        }
        for (k, whole) in uniform.iter_mut().enumerate() {
            if !alu(k) || *whole {
                continue;
            }
            let (bytes, preds) = &plan.writes[k];
            let feeds = bytes
                .iter()
                .any(|&(a, b)| need.iter().take(b as usize).skip(a as usize).any(|&x| x))
                || preds
                    .iter()
                    .any(|&pid| need_preds.get(pid as usize) == Some(&true));
            if feeds {
                *whole = true;
                grew = true;
            }
        }
        if !grew {
            break plan;
        }
    };
    let total = plan.owner.len() as u32;
    // Words (and predicates) some lane wrote per lane since the last meeting passed
    // them: the copies differ there.
    let mut dirty = vec![false; total.div_ceil(4) as usize + 1];
    let mut dirty_preds = vec![false; plan.pred_owner.len()];
    let mut meetings: Vec<(usize, Exchange)> = Vec::new();
    // The words and predicates the copies differed in where the current block began.
    let (mut dirty_at_start, mut dirty_preds_at_start) = (dirty.clone(), dirty_preds.clone());
    for k in 0..p.insts.len() {
        if starts[k] {
            dirty_at_start.clone_from(&dirty);
            dirty_preds_at_start.clone_from(&dirty_preds);
        }
        let (bytes, preds) = &plan.cross[k];
        if !bytes.is_empty() || !preds.is_empty() {
            let inst = &p.insts[k];
            let at = || format!("at instruction {}: {}", inst.index, inst.op.spec_name());
            if in_loop[k] {
                return Err(format!(
                    "channels read each other's registers in a loop ({})",
                    at()
                ));
            }
            let x = exchange_of(&plan, k, bytes, preds, &dirty, &dirty_preds)?;
            // Past the entry blocks a meeting holds only the channels that run its
            // block: what it passes must have been written in the block, unless every
            // channel runs the block (it lies on every way from the entry to the end).
            let entry = k < prefix_end || every_channel_runs(p, cfg, k);
            let stale = x
                .runs
                .iter()
                .any(|r| (r.word..r.word + r.words).any(|w| dirty_at_start[w as usize]))
                || x.parts.iter().any(|s| dirty_at_start[s.word as usize])
                || x.preds
                    .iter()
                    .any(|&(pid, _)| dirty_preds_at_start[pid as usize]);
            if !entry && stale {
                return Err(format!(
                    "channels read registers that others wrote before their paths parted ({})",
                    at()
                ));
            }
            if entry {
                for r in &x.runs {
                    for w in r.word..r.word + r.words {
                        dirty[w as usize] = false;
                    }
                }
                for s in &x.parts {
                    dirty[s.word as usize] = false;
                }
                for &(pid, _) in &x.preds {
                    dirty_preds[pid as usize] = false;
                }
            }
            if !x.runs.is_empty() || !x.parts.is_empty() || !x.preds.is_empty() {
                meetings.push((k, x));
            }
        }
        if plan.run[k] == Run::PerLane {
            for &(a, b) in &plan.writes[k].0 {
                for w in a / 4..b.div_ceil(4) {
                    if let Some(d) = dirty.get_mut(w as usize) {
                        *d = true;
                    }
                }
            }
            for &pid in &plan.writes[k].1 {
                if let Some(d) = dirty_preds.get_mut(pid as usize) {
                    *d = true;
                }
            }
        }
    }
    // Insert the meetings' barriers; branch targets move with the code.
    let mut out = p.clone();
    let mut insts = Vec::with_capacity(p.insts.len() + meetings.len());
    let mut forced = Vec::with_capacity(insts.capacity());
    let mut shift = vec![0usize; p.insts.len() + 1];
    let mut xs = Exchanges::default();
    let mut m = meetings.into_iter().peekable();
    // Meetings (numbered) and barriers inserted in all.
    let (mut n, mut inserted) = (0usize, 0usize);
    for (k, inst) in p.insts.iter().enumerate() {
        let meeting = m.next_if(|(at, _)| *at == k);
        if meeting.is_some() || fences.contains(&k) {
            if let Some((_, mut x)) = meeting {
                x.parity = (n % 2) as u32;
                x.number = n as u32;
                let words: u32 = x.runs.iter().map(|r| r.words).sum();
                xs.words = xs.words.max(words + x.parts.len() as u32);
                xs.preds = xs.preds.max(x.preds.len() as u32);
                xs.at.insert(insts.len(), x);
                n += 1;
            }
            insts.push(PInst {
                op: Opcode::Barrier,
                exec: inst.exec,
                pred: None,
                fields: Vec::new(),
                index: SYNTHETIC,
            });
            forced.push(false);
            inserted += 1;
        }
        shift[k] = inserted;
        insts.push(inst.clone());
        forced.push(uniform[k]);
    }
    shift[p.insts.len()] = inserted;
    xs.count = n as u32;
    let moved = |t: u32| t + shift.get(t as usize).copied().unwrap_or(inserted) as u32;
    for inst in &mut insts {
        for f in &mut inst.fields {
            match f {
                PField::Target(t) => *t = moved(*t),
                PField::Targets(ts) => {
                    for t in ts {
                        *t = moved(*t);
                    }
                }
                _ => {}
            }
        }
    }
    out.insts = insts;
    // Nothing inserted: the kernel is `p`, and its plan under `forced` the last one.
    Ok(WithMeetings {
        p: out,
        forced,
        meetings: xs,
        plan: (inserted == 0).then_some(plan),
    })
}

/// The meeting before instruction `k`, which reads `bytes` and `preds` of other lanes:
/// the words and predicates written per lane since they were last passed.
fn exchange_of(
    plan: &Plan,
    k: usize,
    bytes: &[(u32, u32)],
    preds: &[u32],
    dirty: &[bool],
    dirty_preds: &[bool],
) -> Result<Exchange, String> {
    let unsure = |what: &str| Err(format!("{what} (instruction at {k})"));
    // Each word's one owner lane, or its parts' lanes.
    let mut words: Vec<(u32, u32)> = Vec::new();
    let mut parts: Vec<PartSlot> = Vec::new();
    let read: std::collections::BTreeSet<u32> = bytes
        .iter()
        .flat_map(|&(a, b)| a / 4..b.div_ceil(4))
        .collect();
    for w in read {
        {
            if !dirty.get(w as usize).copied().unwrap_or(false) {
                continue;
            }
            let owners: Vec<u32> = (4 * w..4 * w + 4)
                .map(|x| plan.owner.get(x as usize).copied().unwrap_or(0))
                .collect();
            if owners.contains(&u32::MAX) {
                return unsure("a register byte that several lanes write");
            }
            if plan.in_registers.get(w as usize).copied().unwrap_or(false) {
                return unsure("a lane vector held in registers");
            }
            let mut lanes: Vec<u32> = owners.iter().filter(|&&o| o != 0).map(|o| o - 1).collect();
            lanes.dedup();
            match lanes.as_slice() {
                [] => {}
                [l] => words.push((w, *l)),
                _ => match word_parts(&owners) {
                    Some(p) => parts.extend(p.into_iter().map(|(mask, lane)| PartSlot {
                        word: w,
                        mask,
                        lane,
                    })),
                    None => return unsure("a register word that two lanes write parts of"),
                },
            }
        }
    }
    // Runs of words whose owners go up one lane every `per` words.
    let mut runs: Vec<WordRun> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (w0, l0) = words[i];
        let mut per = 1;
        while i + per < words.len() && words[i + per] == (w0 + per as u32, l0) {
            per += 1;
        }
        let mut len = per;
        while i + len < words.len() && words[i + len] == (w0 + len as u32, l0 + (len / per) as u32)
        {
            len += 1;
        }
        let len = len - len % per;
        runs.push(WordRun {
            word: w0,
            words: len as u32,
            per: per as u32,
            lane: l0,
        });
        i += len;
    }
    let mut out_preds = Vec::new();
    for &pid in preds {
        if !dirty_preds.get(pid as usize).copied().unwrap_or(false) {
            continue;
        }
        let mut owned = 0u32;
        for (c, &o) in plan.pred_owner[pid as usize].iter().enumerate() {
            match o {
                0 => {}
                o if o == c as u32 + 1 => owned |= 1 << c,
                _ => return unsure("a predicate bit another channel's lane writes"),
            }
        }
        out_preds.push((pid, owned));
    }
    Ok(Exchange {
        runs,
        parts,
        preds: out_preds,
        parity: 0,
        number: 0,
    })
}

/// A word's bytes as parts of 2 bytes (or else 1) each written by one lane or none
/// (`owners`: per byte, `plan.owner`'s lane + 1 or 0), as (byte mask, lane) per part
/// some lane writes; `None` where two lanes write one part.
fn word_parts(owners: &[u32]) -> Option<Vec<(u32, u32)>> {
    [2usize, 1].iter().find_map(|&size| {
        let mut out = Vec::new();
        for (c, chunk) in owners.chunks(size).enumerate() {
            let mut lanes: Vec<u32> = chunk.iter().copied().filter(|&o| o != 0).collect();
            lanes.dedup();
            match lanes.as_slice() {
                [] => {}
                [o] => {
                    let mask = ((1u64 << (8 * size)) - 1) as u32;
                    out.push((mask << (8 * size * c), o - 1));
                }
                _ => return None,
            }
        }
        Some(out)
    })
}

/// A plan whose cross-lane reads the meetings pass: nothing left to mirror, and
/// whole-thread stores and atomics that write no register run by the first lane of
/// the meeting before them in their block (`Plan::led`).
pub fn finish(mut plan: Plan, p: &Prepared, xs: &Exchanges) -> Plan {
    let starts = real_block_starts(p);
    let mut current = None;
    plan.led = (0..p.insts.len())
        .map(|k| {
            if starts[k] && !(k > 0 && synthetic(&p.insts[k - 1])) {
                current = None;
            }
            if let Some(x) = xs.at.get(&k) {
                current = Some(x.number);
            }
            current.filter(|_| plan.writes[k].0.is_empty() && plan.writes[k].1.is_empty())
        })
        .collect();
    plan.mirrored.iter_mut().for_each(|m| *m = false);
    plan.mirrored_preds.iter_mut().for_each(|m| *m = false);
    plan.mirrors.iter_mut().for_each(|m| *m = false);
    plan.publish
        .iter_mut()
        .for_each(|x| *x = Default::default());
    plan.first_cross_read = None;
    plan
}

impl Exchanges {
    /// The condition under which only meeting `m`'s first lane runs an instruction.
    pub fn leader(&self, m: u32) -> String {
        format!(
            "if (lane == firstTrailingBit(atomicLoad(&{})))",
            self.met(m)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`prepare`] with no fences, from the kernel's own plan.
    fn prepare_plain(p: &Prepared) -> Result<WithMeetings, String> {
        let cfg = blocks::split(&p.insts);
        prepare(p, &cfg, &[], &lanes::plan(p, &cfg, true))
    }

    fn prepared(body: &str) -> Prepared {
        super::super::test_kernel(
            ".decl V0032 v_type=G type=d num_elts=8 align=hword\n\
             .decl V0033 v_type=G type=q num_elts=8 align=hword\n\
             .decl V0034 v_type=G type=q num_elts=4 align=hword\n\
             .decl V0035 v_type=G type=d num_elts=8 align=hword\n\
             .decl V0036 v_type=G type=w num_elts=8 align=hword\n\
             .decl P1 v_type=P num_elts=8\n",
            8,
            body,
        )
    }

    /// `xp` (`p` with barriers inserted): its goto still reaches its label, and it
    /// counts as many instructions as `p`.
    fn assert_moved_past(p: &Prepared, xp: &Prepared) {
        let goto = xp.insts.iter().find(|i| i.op == Opcode::Goto).unwrap();
        let t = goto.fields.iter().find_map(|f| match f {
            PField::Target(t) => Some(*t as usize),
            _ => None,
        });
        assert_eq!(xp.insts[t.unwrap()].op, Opcode::Label);
        assert_eq!(counted(xp, &(0..xp.insts.len())), p.insts.len());
    }

    /// A qword vector each lane writes its element of, reduced by NoMask code: one
    /// meeting before the first read, publishing two words a lane; the NoMask code
    /// runs whole, and the branch after it still reaches its label.
    #[test]
    fn a_meeting_passes_each_lanes_words_before_the_first_cross_read() {
        let p = prepared(
            "mov (M1_NM, 8) V0033(0,0)<1> 0x0:q\n\
             mov (M1, 8) V0033(0,0)<1> V0032(0,0)<1;1,0>\n\
             add (M1_NM, 4) V0034(0,0)<1> V0033(0,0)<1;1,0> V0033(1,0)<1;1,0>\n\
             add (M1_NM, 2) V0034(0,0)<1> V0034(0,0)<1;1,0> V0034(0,2)<1;1,0>\n\
             cmp.lt (M1, 8) P1 V0032(0,0)<1;1,0> 0x4:d\n\
             (P1) goto (M1, 8) _L1\n\
             mov (M1, 8) V0035(0,0)<1> V0034(0,0)<0;1,0>\n\
             _L1:\n",
        );
        let cfg = blocks::split(&p.insts);
        let WithMeetings {
            p: xp,
            forced: uniform,
            meetings: xs,
            plan,
        } = prepare(&p, &cfg, &[], &lanes::plan(&p, &cfg, true)).expect("passes");
        assert_eq!(xs.count, 1);
        // A barrier went in: the caller plans the new kernel itself.
        assert!(plan.is_none());
        assert_eq!(xp.insts.len(), p.insts.len() + 1);
        let (&at, x) = xs.at.iter().next().unwrap();
        assert!(synthetic(&xp.insts[at]) && xp.insts[at].op == Opcode::Barrier);
        assert_eq!(xp.insts[at + 1].op, Opcode::Add);
        let v0033 = p.insts[1].fields.iter().find_map(|f| match f {
            PField::Dst(crate::interp::prepare::Dst::Direct { off, .. }) => Some(*off),
            _ => None,
        });
        assert_eq!(
            x.runs,
            vec![WordRun {
                word: v0033.unwrap() / 4,
                words: 16,
                per: 2,
                lane: 0
            }]
        );
        // The identity and the cross-lane add run whole (forced); the per-lane move
        // keeps its form; the 2-wide add is whole anyway (a short NoMask vector).
        assert!(uniform[0] && !uniform[1] && uniform[at + 1]);
        // The goto's target moved with the label.
        assert_moved_past(&p, &xp);
    }

    /// Where no meeting goes in, the kernel's plan under the forced instructions comes
    /// back with it, as `lanes::plan_forced` makes it.
    #[test]
    fn a_kernel_without_meetings_keeps_its_plan() {
        let p = prepared(
            "mov (M1, 8) V0036(0,0)<1> V0032(0,0)<1;1,0>\n\
             add (M1, 8) V0036(0,0)<1> V0036(0,0)<1;1,0> 0x1:d\n",
        );
        let cfg = blocks::split(&p.insts);
        let m = prepare(&p, &cfg, &[], &lanes::plan(&p, &cfg, true)).expect("passes");
        assert_eq!(m.meetings.count, 0);
        let plan = m.plan.expect("nothing inserted");
        let made = lanes::plan_forced(&m.p, &cfg, true, &m.forced);
        assert_eq!(plan.run, made.run);
        assert_eq!(plan.promoted, made.promoted);
        assert_eq!(plan.cross, made.cross);
    }

    /// A vector of 16-bit elements each lane writes its element of: each word holds two
    /// lanes' parts, passed as slots of their own (lane 2j's low half, lane 2j + 1's high
    /// half of word j), which the other lanes merge by mask.
    #[test]
    fn a_meeting_passes_two_lanes_parts_of_a_word() {
        let p = prepared(
            "mov (M1, 8) V0036(0,0)<1> V0032(0,0)<1;1,0>\n\
             add (M1_NM, 4) V0036(0,0)<1> V0036(0,0)<1;1,0> V0036(0,4)<1;1,0>\n",
        );
        let cfg = blocks::split(&p.insts);
        let xs = prepare(&p, &cfg, &[], &lanes::plan(&p, &cfg, true))
            .expect("passes")
            .meetings;
        let x = xs.at.values().next().expect("one meeting");
        assert!(x.runs.is_empty());
        let base = p.insts[0].fields.iter().find_map(|f| match f {
            PField::Dst(crate::interp::prepare::Dst::Direct { off, .. }) => Some(*off / 4),
            _ => None,
        });
        let want: Vec<PartSlot> = (0..8u32)
            .map(|l| PartSlot {
                word: base.unwrap() + l / 2,
                mask: if l % 2 == 0 { 0xffff } else { 0xffff_0000 },
                lane: l,
            })
            .collect();
        assert_eq!(x.parts, want);
        assert_eq!(xs.words, 8);
        let pull = xs.pull(*xs.at.keys().next().unwrap()).unwrap();
        assert!(
            pull.contains("& ~4294901760u) | (xw[xb + 1u] & 4294901760u)"),
            "{pull}"
        );
        // Two lanes inside one 2-byte part: a slot a byte.
        let bytes = vec![(0xff, 0), (0xff00, 1), (0xff_0000, 2), (0xff00_0000, 2)];
        assert_eq!(word_parts(&[1, 2, 3, 3]), Some(bytes));
        assert_eq!(
            word_parts(&[1, 1, 0, 2]),
            Some(vec![(0xffff, 0), (0xffff_0000, 1)])
        );
    }

    /// A fence is a barrier that passes nothing: no meeting number, no buffers, and
    /// the branch targets after it move past it.
    #[test]
    fn a_fence_inserts_a_barrier_without_a_meeting() {
        let p = prepared(
            "mov (M1, 8) V0032(0,0)<1> 0x1:d\n\
             cmp.lt (M1, 8) P1 V0032(0,0)<1;1,0> 0x4:d\n\
             (P1) goto (M1, 8) _L1\n\
             mov (M1, 8) V0035(0,0)<1> V0032(0,0)<1;1,0>\n\
             _L1:\n",
        );
        let cfg = blocks::split(&p.insts);
        let WithMeetings {
            p: xp,
            meetings: xs,
            plan,
            ..
        } = prepare(&p, &cfg, &[1], &lanes::plan(&p, &cfg, true)).expect("passes");
        assert_eq!((xs.count, xs.at.len()), (0, 0));
        assert!(plan.is_none(), "a fence went in");
        assert!(synthetic(&xp.insts[1]) && xp.insts[1].op == Opcode::Barrier);
        assert_eq!(xp.insts[2].op, Opcode::Cmp);
        assert_moved_past(&p, &xp);
    }

    /// The same read inside a loop, and a read past a branch of what channels wrote
    /// before it: refused with the reason.
    #[test]
    fn reads_in_loops_or_of_values_from_before_a_parting_are_refused() {
        let looped = prepared(
            "_L0:\n\
             mov (M1, 8) V0033(0,0)<1> V0032(0,0)<1;1,0>\n\
             add (M1_NM, 4) V0034(0,0)<1> V0033(0,0)<1;1,0> V0033(1,0)<1;1,0>\n\
             cmp.lt (M1, 8) P1 V0032(0,0)<1;1,0> 0x4:d\n\
             (P1) goto (M1, 8) _L0\n",
        );
        let why = prepare_plain(&looped).err().expect("refused");
        assert!(why.contains("in a loop"), "{why}");
        let parted = prepared(
            "mov (M1, 8) V0033(0,0)<1> V0032(0,0)<1;1,0>\n\
             cmp.lt (M1, 8) P1 V0032(0,0)<1;1,0> 0x4:d\n\
             (P1) goto (M1, 8) _L1\n\
             add (M1_NM, 4) V0034(0,0)<1> V0033(0,0)<1;1,0> V0033(1,0)<1;1,0>\n\
             _L1:\n",
        );
        let why = prepare_plain(&parted).err().expect("refused");
        assert!(why.contains("before their paths parted"), "{why}");
    }
}
