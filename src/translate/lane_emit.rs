//! Lane mode's WGSL: a workgroup runs one vISA thread, one invocation per channel
//! (the plan comes from `lanes.rs`). The block loop is the thread mapping's min-PC
//! scheme, run identically by every invocation, so the blocks and every barrier in
//! them are reached by the whole workgroup together.

use super::lanes::{Plan, Run};
use super::{blocks, budget, emit_inst, Emit, Module, TranslateError};
use crate::interp::prepare::Prepared;
use std::collections::HashMap;

/// The lane-mode runtime pieces (mirror, mirrored stores).
pub const LANES_RUNTIME: &str = include_str!("../../shaders/lanes.wgsl");

/// Barrier that also orders the heap, scratch and SLM between the invocations.
const SYNC: &str = "storageBarrier(); workgroupBarrier();";

pub(super) fn translate(
    p: &Prepared,
    tpg: u32,
    header: Emit,
    consts: HashMap<String, u64>,
    plan: &Plan,
    shared_from: Option<u32>,
) -> Result<Module, TranslateError> {
    let cfg_blocks = blocks::split(&p.insts);
    let mut em = header;
    em.line(&format!("const K_XG_WORDS: u32 = {}u;", plan.xg_words));
    let mut consts = consts;
    consts.insert("K_XG_WORDS".into(), plan.xg_words as u64);
    em.declare_lane_registers(&plan.promoted);
    // Sliced runs: each invocation's record is the thread's state and its registers.
    let slm_words = consts.get("K_SLM_WORDS").copied().unwrap_or(1) as u32;
    let per_lane = slm_words.div_ceil(p.simd.max(1));
    // Each register's words in the record after the thread state (two for 8 bytes).
    let (mut save, mut restore, mut k) = (Vec::new(), Vec::new(), 0u32);
    for &(base, e) in &plan.promoted {
        let r = super::lanes::register(base);
        if e >= 8 {
            save.push(format!("state[o + {k}u] = u32({r} & 0xfffffffflu);"));
            save.push(format!("state[o + {}u] = u32({r} >> 32u);", k + 1));
            restore.push(format!(
                "{r} = u64(state[o + {k}u]) | (u64(state[o + {}u]) << 32u);",
                k + 1
            ));
            k += 2;
        } else {
            save.push(format!("state[o + {k}u] = {r};"));
            restore.push(format!("{r} = state[o + {k}u];"));
            k += 1;
        }
    }
    let reg_words = k;
    em.line(&format!(
        "const K_LANE_STATE_WORDS: u32 = K_STATE_WORDS + {reg_words}u;"
    ));
    em.line(&format!("const K_SLM_PER_LANE: u32 = {per_lane}u;"));
    consts.insert("K_SLM_PER_LANE".into(), per_lane as u64);
    for (head, lines) in [
        ("fn save_regs(o: u32)", save),
        ("fn restore_regs(o: u32)", restore),
    ] {
        em.open(head);
        for l in lines {
            em.line(&l);
        }
        em.close();
    }
    em.line("");
    super::emit_init(
        &mut em,
        p,
        shared_from,
        Some(&plan.image_reads()),
        true,
        &[],
        false,
    );
    let costs = budget::Costs::of_functions(
        &format!(
            "{}\n{LANES_RUNTIME}\n{}",
            super::cost_runtime(&em.out),
            em.out
        ),
        &consts,
    );
    let cost = |f: &str| costs.function(f).map_err(TranslateError::Budget);
    // What a pass spends outside blocks: restoring (or initializing) and mirroring
    // before the first, saving after the last.
    let start_cost = cost("restore_state_at")?
        + cost("lane_restore_slm")?
        + cost("init")?
        + plan.xg_words as u64
        + p.kernel.preds.len().max(1) as u64
        + 4;
    let save_cost = cost("save_state_at")? + cost("lane_save_slm")? + 64;
    let cr0_at = super::simt::cr0_values(
        p,
        plan,
        &cfg_blocks,
        cfg_blocks.ranges[super::simt::prefix_blocks(p, &cfg_blocks) - 1].end,
    );
    let (max_block_cost, all_blocks_cost) = super::emit_block_loop(
        &mut em,
        p,
        &cfg_blocks,
        &costs,
        save_cost,
        &mut |em, range, next| {
            let mut ended = false;
            for k in range {
                em.cr0_value = cr0_at[k];
                ended = emit_lane_inst(em, p, k, plan, &cfg_blocks, next)?;
            }
            em.cr0_value = None;
            Ok(ended)
        },
    )?;
    emit_main(&mut em, tpg, start_cost);
    let mut wgsl = super::runtime_for(&em.out);
    wgsl.push_str(LANES_RUNTIME);
    wgsl.push_str("\n// ---- kernel ----\n");
    wgsl.push_str(&em.out);
    Ok(Module {
        wgsl,
        entry_point: "main",
        workgroup_size: p.simd,
        blocks: cfg_blocks.ranges.len(),
        max_block_cost: max_block_cost + start_cost + save_cost,
        state_cost: start_cost + save_cost,
        unsliced_cost: blocks::acyclic(&p.insts).then_some(start_cost + all_blocks_cost),
        // Per invocation (the host multiplies by the SIMD width).
        state_words: p.simd * (super::state_layout(p).1 + reg_words),
        slm_words,
        block_starts: cfg_blocks
            .ranges
            .iter()
            .map(|r| p.insts[r.start].index)
            .collect(),
        lanes: true,
        why_not_lanes: None,
        // Each invocation's record starts with the thread state.
        state_grf_offset: super::state_layout(p).0,
        straight: None,
        why_not_straight: None,
        table: Vec::new(),
        shapes: None,
        grf_in_state: false,
    })
}

/// One instruction run as the plan says; returns true when it set the channel PCs.
fn emit_lane_inst(
    em: &mut Emit,
    p: &Prepared,
    k: usize,
    plan: &Plan,
    cfg: &blocks::Blocks,
    next_block: &str,
) -> Result<bool, TranslateError> {
    let inst = &p.insts[k];
    if plan.sync_before[k] {
        em.line(SYNC);
    }
    em.open("");
    em.line(&format!(
        "// [{}] {} ({:?})",
        inst.index,
        inst.op.spec_name(),
        plan.run[k]
    ));
    let run = plan.run[k];
    if run == Run::PerLane {
        em.line(&format!(
            "let li = lane - {}u;",
            inst.exec.mask.channel_offset()
        ));
        em.lane_elems = true;
        em.moff = inst.exec.mask.channel_offset();
    }
    if run == Run::Lane0 {
        em.open("if (lane == 0u)");
    }
    let at = em.out.len();
    // A vISA barrier of a one-thread group orders its SLM and memory accesses between
    // the lanes; the thread goes on (the thread mapping returns to `main` instead).
    if matches!(
        inst.op,
        crate::isa::Opcode::Barrier | crate::isa::Opcode::Sbarrier | crate::isa::Opcode::Nbarrier
    ) {
        em.line(SYNC);
        em.close();
        return Ok(false);
    }
    let ended = emit_inst(em, p, inst, cfg, next_block);
    em.lane_elems = false;
    let ended = ended?;
    if run == Run::PerLane && em.out[at..].contains("for (var i = 0u;") {
        return Err(TranslateError::Unsupported {
            index: inst.index,
            op: inst.op.spec_name(),
            what: "lane mode: an element loop was not restricted to the lane (translator bug)"
                .into(),
        });
    }
    if plan.mirrors[k] {
        let body = em.out[at..]
            .replace("gst(", "gstm(")
            .replace("pset(", "psetm(");
        em.out.truncate(at);
        em.out.push_str(&body);
    }
    if run == Run::Lane0 {
        em.close();
    }
    em.close();
    let publish = &plan.publish[k];
    if !publish.is_empty() {
        em.line(SYNC);
        for &(a, b) in &publish.words {
            if b == a + 1 {
                em.line(&format!("g[{a}u] = atomicLoad(&xg[{a}u]);"));
            } else {
                em.line(&format!(
                    "for (var w = {a}u; w < {b}u; w++) {{ g[w] = atomicLoad(&xg[w]); }}"
                ));
            }
        }
        for pid in &publish.preds {
            em.line(&format!("pr[{pid}u] = atomicLoad(&xp[{pid}u]);"));
        }
        em.line("workgroupBarrier();");
    }
    Ok(ended)
}

fn emit_main(em: &mut Emit, tpg: u32, start_cost: u64) {
    em.out.push_str(&format!(
        r#"
@compute @workgroup_size(K_SIMD)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) l: u32) {{
    keep_bindings();
    lane = l;
    zero_word = cfh(CFG_ZERO);
    let wx = wid.x + chunk.x;
    let t = wx % {tpg}u;
    let grp = vec3<u32>(wx / {tpg}u, wid.y + chunk.y, wid.z + chunk.z);
    let group = (grp.z * cfh(CFG_GROUPS + 1u) + grp.y) * cfh(CFG_GROUPS) + grp.x;
    let tid = group * cfh(CFG_THREADS) + t;
    let sliced = cfh(CFG_SLICED) != 0u;
    // This invocation's record in a sliced run.
    let rec = (tid * K_SIMD + l) * K_LANE_STATE_WORDS;
    edges = {start_cost}u;
    var status = ST_FRESH;
    if (sliced) {{
        status = restore_state_at(rec);
        if (status == ST_DONE) {{ return; }}
        lane_restore_slm(group);
    }}
    if (status == ST_FRESH) {{
        init(tid, t, grp);
    }} else {{
        restore_regs(rec + K_STATE_WORDS);
        scratch_base = tid * cfh(CFG_SCRATCH_WORDS);
    }}
    // Every lane's copy agrees on the mirrored words and predicates: lane 0's seeds
    // the mirror.
    if (l == 0u) {{
        for (var w = 0u; w < K_XG_WORDS; w++) {{ atomicStore(&xg[w], g[w]); }}
        for (var q = 0u; q < K_NPRED; q++) {{ atomicStore(&xp[q], pr[q]); }}
    }}
    storageBarrier();
    workgroupBarrier();
    let r = run_thread();
    storageBarrier();
    workgroupBarrier();
    if (r == 2u) {{
        save_state_at(rec, ST_RUNNING);
        save_regs(rec + K_STATE_WORDS);
        lane_save_slm(group);
        if (l == 0u) {{ atomicAdd(&stat[STAT_YIELDED], 1u); }}
        flush_oob();
        return;
    }}
    if (sliced) {{ state[rec] = ST_DONE; }}
    if (l == 0u) {{
        count64(STAT_INSTS_LO, steps);
        count64(STAT_CHAN_LO, chans);
        atomicAdd(&stat[STAT_CHAN_HI], chans_hi);
    }}
    flush_oob();
}}
"#
    ));
}
