//! The lane mapping's plan (`translate::lanes`) on real kernels: which instructions
//! run per lane, what is mirrored between lanes, what lives in registers.

use visa_emu::isa::Opcode;
use visa_emu::translate::lanes::{self, Run};

fn prepared(variant: &str) -> visa_emu::interp::prepare::Prepared {
    let dir = visa_emu::corpus::paths::default_corpus_dir().join(variant);
    let case = visa_emu::corpus::case::Case::load(dir.parent().unwrap()).unwrap();
    let device = dir.file_name().unwrap().to_string_lossy().to_string();
    let grf = visa_emu::corpus::paths::grf_bytes_of_device(&device);
    let program = visa_emu::cli::load_file(&dir.join("kernel.visaasm"), grf).unwrap();
    visa_emu::interp::prepare(&program, &case.kernel).unwrap()
}

fn run_of(p: &visa_emu::interp::prepare::Prepared, plan: &lanes::Plan, op: Opcode) -> Vec<Run> {
    p.insts
        .iter()
        .zip(&plan.run)
        .filter(|(i, _)| i.op == op)
        .map(|(_, r)| *r)
        .collect()
}

#[test]
fn saxpy_runs_per_lane_and_mirrors_only_the_branch_predicate() {
    let p = prepared("saxpy/tgllp-simd16");
    assert!(lanes::ineligible(&p, 8, 0).is_none());
    let plan = lanes::plan_kernel(&p);
    // SIMD16 arithmetic and the gathers/scatter run one element per invocation; the
    // scalar address computation, surface moves and the branch run in every lane.
    assert!(run_of(&p, &plan, Opcode::Mad)
        .iter()
        .all(|r| *r == Run::PerLane));
    assert!(run_of(&p, &plan, Opcode::Gather4Scaled)
        .iter()
        .all(|r| *r == Run::PerLane));
    assert!(run_of(&p, &plan, Opcode::Scatter4Scaled)
        .iter()
        .all(|r| *r == Run::PerLane));
    assert!(run_of(&p, &plan, Opcode::Goto)
        .iter()
        .all(|r| *r == Run::Uniform));
    assert!(run_of(&p, &plan, Opcode::Movs)
        .iter()
        .all(|r| *r == Run::Uniform));
    // The goto reads every channel's bit of the compare's predicate: mirrored, and
    // the compare publishes it. No GRF word crosses lanes.
    let cmp = p.insts.iter().position(|i| i.op == Opcode::Cmp).unwrap();
    assert_eq!(plan.run[cmp], Run::PerLane);
    assert!(!plan.publish[cmp].preds.is_empty());
    assert!(plan.mirrored_preds.iter().any(|&m| m));
    assert!(!plan.mirrored.iter().any(|&m| m));
    // Lane vectors in registers: ids, index, addresses, both loaded values.
    assert!(plan.promoted.len() >= 4, "{:?}", plan.promoted);
    // The scatter writes memory the gathers read: a barrier orders them.
    let sc = p
        .insts
        .iter()
        .position(|i| i.op == Opcode::Scatter4Scaled)
        .unwrap();
    assert!(plan.sync_before[sc]);
}

#[test]
fn a_broadcast_mirrors_the_words_other_lanes_read() {
    let p = prepared("subgroup_broadcast_vote/tgllp-simd8");
    assert!(lanes::ineligible(&p, 1, 0).is_none());
    let plan = lanes::plan_kernel(&p);
    // Some lane reads another lane's element: its words are mirrored, a per-lane
    // instruction publishes them, and they are never promoted to registers.
    assert!(plan.mirrored.iter().any(|&m| m));
    assert!(plan
        .publish
        .iter()
        .zip(&plan.run)
        .any(|(pb, r)| *r == Run::PerLane && !pb.words.is_empty()));
    for &(base, e) in &plan.promoted {
        for b in base..base + p.simd * e {
            assert!(
                !plan.mirrored[b as usize / 4],
                "promoted byte {b} is mirrored"
            );
        }
    }
}

#[test]
fn indirect_operands_and_shared_slm_keep_the_thread_mapping() {
    let p = prepared("subgroup_shuffle/tgllp-simd16");
    let why = lanes::ineligible(&p, 1, 0).expect("shuffles address the GRF indirectly");
    assert!(why.contains("indirect"), "{why}");
    let p = prepared("slm_reduce/tgllp-simd16");
    assert!(lanes::ineligible(&p, 4, 4096).is_some());
}

/// The straight module of a variant folder (`tests/cases` or the corpus), as the host
/// builds it for the case's launch.
fn straight_of(dir: &std::path::Path) -> visa_emu::translate::Module {
    use visa_emu::backend::gpu;
    let case = visa_emu::corpus::case::Case::load(dir.parent().unwrap()).unwrap();
    let launch = gpu::build(dir, &case, gpu::DEFAULT_STEP_LIMIT).unwrap();
    let lanes = launch
        .lanes
        .unwrap_or_else(|| panic!("{}: no lane mapping", dir.display()));
    assert!(
        lanes.module.straight.is_some(),
        "{}: not straight",
        dir.display()
    );
    lanes.module
}

/// Private memory indexed by data carries owner tags (`lane_memory::Owned`): the
/// scratch space on tgllp, the private base's allocation on acm-g10, each access
/// claiming its words and `main` numbering its channel; global memory whose channels
/// meet on purpose (atomic_global_counters' counters) keeps the fences instead.
#[test]
fn private_memory_indexed_by_data_carries_owner_tags() {
    let own = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/private_pick");
    let m = straight_of(&own.join("tgllp-simd8"));
    let c = &m.straight.as_ref().unwrap().launch;
    assert!(c.owned_scratch && c.owned_flat.is_empty(), "{c:?}");
    assert!(m.wgsl.contains("claim_scratch4(") && m.wgsl.contains("owner_id = tid * K_SIMD"));
    let m = straight_of(&own.join("acm-g10-simd8"));
    let c = &m.straight.as_ref().unwrap().launch;
    assert!(!c.owned_scratch && c.owned_flat.len() == 1, "{c:?}");
    assert!(c.owned_at.len() >= 2, "{c:?}");
    assert!(m.wgsl.contains("claim_flat_words(") && m.wgsl.contains("owner_id = tid * K_SIMD"));
    let corpus = visa_emu::corpus::paths::default_corpus_dir();
    let m = straight_of(&corpus.join("atomic_global_counters/tgllp-simd16"));
    let c = &m.straight.as_ref().unwrap().launch;
    assert!(
        !c.owned_scratch && c.owned_flat.is_empty() && c.owned_at.is_empty(),
        "{c:?}"
    );
    assert!(!m.wgsl.contains("owner_id ="));
}

/// Private arrays IGC keeps in registers and stores to one channel at a time
/// (`translate/indirect_operands.rs`): the straight module holds each lane's column of
/// the array in a private array of its own (`rowsN`, indexed at run time), keeps the
/// address registers each lane writes for itself at constant indices (`al`, one private
/// per element it names: `al_N`), folds the one-hot predicates into the channel enables
/// (their `setp`s gone), and writes the members of a run of one-channel stores as one
/// copy of the code.
#[test]
fn one_channel_stores_run_straight_as_one_copy() {
    let own =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/private_index_small");
    let m = straight_of(&own.join("tgllp-simd8"));
    assert!(m.wgsl.contains("var<private> rows"), "the rows in an array");
    assert!(
        m.wgsl.contains("al_32: u32;") && !m.wgsl.contains("al["),
        "lane-held address registers, one private per element"
    );
    let ar_indexed = m.wgsl.match_indices("ar[").any(|(i, _)| {
        !m.wgsl[..i].ends_with(|c: char| c.is_ascii_alphanumeric())
            && m.wgsl[i + 3..].starts_with(|c: char| c.is_ascii_digit())
    });
    assert!(
        !ar_indexed,
        "the kernel's code reaches `ar` through `al` only"
    );
    assert_eq!(
        m.wgsl.matches("one channel each").count(),
        1,
        "eight stores as one"
    );
    let corpus = visa_emu::corpus::paths::default_corpus_dir();
    let m = straight_of(&corpus.join("private_array_dynamic/tgllp-simd32"));
    // Eight updates, each in four runs of eight channels (M1, M3, M5, M7).
    assert_eq!(m.wgsl.matches("one channel each").count(), 32);
    // Both SIMD16 halves' rows share one array: 31 lane vectors.
    assert!(
        m.wgsl.contains("array<u32, 31u>"),
        "one array for both halves"
    );
}
