//! Every corpus kernel translates to WGSL that naga parses and validates (one variant
//! per case folder, plus the project's own cases).

mod common;

use visa_emu::translate::lane_memory::Apart;
use visa_emu::translate::prune::unreachable_functions;
use visa_emu::translate::workgroup_memory::workgroup_bytes;
use visa_emu::translate::{parse_valid_wgsl, translate, validate_wgsl, Target};

/// The bytes of the module's `var<workgroup>` globals as naga lays them out: what
/// the host's check before a dispatch (`workgroup_bytes`) must agree with.
fn naga_workgroup_bytes(module: &naga::Module) -> u64 {
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).expect("layout");
    module
        .global_variables
        .iter()
        .filter(|(_, g)| g.space == naga::AddressSpace::WorkGroup)
        .map(|(_, g)| u64::from(layouter[g.ty].size))
        .sum()
}

fn variants() -> Vec<std::path::PathBuf> {
    visa_emu::corpus::paths::first_variants()
}

#[test]
fn corpus_kernels_translate_to_valid_wgsl() {
    let vs = variants();
    assert!(vs.len() > 40, "corpus not found ({} variants)", vs.len());
    // One variant's findings; the variants are split over the cores (CI has two).
    let check = |dir: &std::path::PathBuf| -> Vec<String> {
        let mut failures = Vec::new();
        let p = common::prepared(dir);
        // The thread mapping (plain and in the table form), the lane mapping where the
        // kernel allows it, and the probe modules of `validate`'s localization.
        for (lanes, probe, table) in [
            (false, false, false),
            (false, false, true),
            (true, false, false),
            (false, true, false),
        ] {
            let target = Target {
                probe,
                table: Some(table),
                full_lanes: lanes,
                ..common::target(if lanes { 1 } else { 2 }, 4096, lanes, true)
            };
            match translate(&p, &target) {
                Ok(m) => {
                    if lanes && visa_emu::translate::lanes::ineligible(&p, 1, 4096).is_none() {
                        // Taken unless each invocation would keep a GRF over
                        // PRIVATE_GRF_WORDS_MAX in private memory.
                        let why = m.why_not_lanes.as_deref().unwrap_or_default();
                        assert!(
                            m.lanes || why.contains("private memory"),
                            "{}: lane mode not taken: {why}",
                            dir.display()
                        );
                    }
                    assert_eq!(m.shapes.is_some(), table, "{}", dir.display());
                    // One parse for both checks (parsing is most of naga's time: ~0.23 s a module).
                    match parse_valid_wgsl(&m.wgsl) {
                        Ok(module) => {
                            let scanned = workgroup_bytes(&m.wgsl);
                            let by_naga = naga_workgroup_bytes(&module);
                            if scanned != Some(by_naga) {
                                failures.push(format!(
                                    "{} (lanes: {lanes}): workgroup memory scanned {scanned:?}, naga {by_naga}",
                                    dir.display()
                                ));
                            }
                        }
                        Err(e) => failures.push(format!(
                            "{} (lanes: {lanes}, probe: {probe}, table: {table}): {}",
                            dir.display(),
                            e.lines().next().unwrap_or("")
                        )),
                    }
                    // What the driver is given: the functions the entry point reaches.
                    let pruned = unreachable_functions(&m.wgsl, m.entry_point);
                    if pruned.len() >= m.wgsl.len() {
                        failures.push(format!("{}: pruning removed nothing", dir.display()));
                    }
                    if let Err(e) = validate_wgsl(&pruned) {
                        failures.push(format!(
                            "{} (lanes: {lanes}, probe: {probe}, table: {table}), pruned: {}",
                            dir.display(),
                            e.lines().next().unwrap_or("")
                        ));
                    }
                }
                Err(e) => failures.push(format!(
                    "{} (lanes: {lanes}, probe: {probe}): {e}",
                    dir.display()
                )),
            }
        }
        failures
    };
    let check = &check;
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Each worker takes the next variant as it finishes one: their costs differ by
    // two orders of magnitude, so fixed halves left one core idle for a minute.
    let next = &std::sync::atomic::AtomicUsize::new(0);
    let vs = &vs;
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(move || {
                    let mut found = Vec::new();
                    loop {
                        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(dir) = vs.get(k) else { break found };
                        found.extend(check(dir));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Corpus variant `name` translated for the lane mapping with the straight form.
fn straight_module(name: &str) -> visa_emu::translate::Module {
    straight_module_at(&visa_emu::corpus::paths::default_corpus_dir().join(name))
}

/// The variant in `dir` translated for the lane mapping with the straight form.
fn straight_module_at(dir: &std::path::Path) -> visa_emu::translate::Module {
    let p = common::prepared(dir);
    let target = common::target(1, 4096, true, true);
    translate(&p, &target).unwrap()
}

/// IGC's aggregated atomics (the channels' operands reduced in registers, then one
/// atomic for the thread) run as each channel's own atomic in the straight form
/// (`translate::aggregated_atomics`): no meeting passes registers between the lanes
/// (atomic_global_counters had eleven; SIMD32's pipeline 2.4-2.9 s -> 0.12-0.2 s on
/// lavapipe), and nonuniform_groups on tgllp, whose count atomic after a branch had
/// needed a barrier where channels part, runs straight.
#[test]
fn aggregated_atomics_run_per_channel() {
    let own = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    for m in [
        straight_module("atomic_global_counters/tgllp-simd32"),
        straight_module("atomic_global_counters/acm-g10-simd8"),
        straight_module_at(&own.join("nonuniform_groups/tgllp-simd16")),
    ] {
        assert!(m.straight.is_some(), "{:?}", m.why_not_straight);
        validate_wgsl(&m.wgsl).unwrap();
    }
    for v in [
        "atomic_global_counters/tgllp-simd32",
        "atomic_global_counters/acm-g10-simd8",
    ] {
        let m = straight_module(v);
        assert!(!m.wgsl.contains("the lanes publish what they own"), "{v}");
    }
}

/// Under `PRIVATE_GRF_WORDS_MAX` a straight image of 512 words or more is compacted
/// only where the code reaches it at run-time words a few times (`grf_rows::worth_it`):
/// atomic_global_counters SIMD16 (1,912 words, reached at known words) compacts,
/// subgroup_block_rw SIMD16 (728 words, its shuffles' words picked at run time) keeps
/// the whole image.
#[test]
fn images_under_the_limit_compact_where_known_words_reach_them() {
    let compact = straight_module("atomic_global_counters/tgllp-simd16");
    let words = compact.straight.as_ref().unwrap().image_words;
    assert!(words.is_some_and(|w| w < 256), "{words:?}");
    validate_wgsl(&compact.wgsl).unwrap();
    let whole = straight_module("subgroup_block_rw/tgllp-simd16");
    assert_eq!(whole.straight.as_ref().unwrap().image_words, None);
    assert!(whole
        .wgsl
        .contains("var<private> g: array<u32, K_GRF_QUADS * 4u>;"));
}

/// Two memory instructions whose bytes channels of a thread may share get a barrier
/// between them in the straight form (`translate/fences.rs`), which naga accepts; a
/// loop whose store may meet its own bytes from another channel in another pass
/// (slm_passes_apart) stays off the straight form, naming that store.
#[test]
fn fences_order_what_two_channels_may_share() {
    let own = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let m = straight_module_at(&own.join("float_atomics/acm-g10-simd32"));
    assert!(m.straight.is_some(), "{:?}", m.why_not_straight);
    let fences = m.wgsl.matches("(fences.rs)").count();
    assert!(fences >= 1, "no fence");
    validate_wgsl(&m.wgsl).unwrap_or_else(|e| panic!("{e}"));
    let m = straight_module_at(&own.join("slm_passes_apart/tgllp-simd16"));
    let why = m.why_not_straight.unwrap_or_default();
    assert!(why.contains("memory instructions 21 and 21"), "{why}");
}

/// GATHER/SCATTER run per channel (stop 60): each channel's offset and dword slot,
/// not every raw operand whole, so the byte gathers of `gather_scatter_legacy` no
/// longer read the whole GRF (which the straight form refused as reads of scalars
/// written in other blocks); its word scatter `hs[(i * 5) % 256]`, whose address
/// has no linear form, is what keeps it off the straight form now.
#[test]
fn legacy_gathers_run_per_channel() {
    let own = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    for (v, at) in [
        ("tgllp-simd8", 50),
        ("tgllp-simd16", 50),
        ("tgllp-simd32", 84),
    ] {
        let m = straight_module_at(&own.join("gather_scatter_legacy").join(v));
        let why = m.why_not_straight.unwrap_or_default();
        assert!(
            why.contains(&format!("memory instructions {at} and {at} may touch")),
            "{v}: {why}"
        );
    }
}

/// Two whole-thread stores behind one branch that lets one channel of a thread
/// through need no order between them (image_dims: `if (i == 0)` stores the image
/// queries through the `info` pointer and through binding-table entry 2, one buffer
/// at launch): the host checks instead that the compared vector's elements (the local
/// ids) differ within each thread. image_rw's `x == 0 && y == 0` (IGC's `sel` and
/// `cmp.ne`) counts its `x == 0` half.
#[test]
fn stores_one_channel_makes_need_no_order() {
    let own = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    // The binding-table entry of the stores' buffer (the pointer is base 0), and how
    // many vectors the host checks: image_rw counts both halves of its `&&` (a SIMD32
    // thread of its 8-wide groups holds four rows: `x == 0` alone admits four channels,
    // the (x, y) pairs differ).
    for (v, bti, vectors) in [
        ("image_dims/tgllp-simd8", 2, 1),
        ("image_rw/acm-g10-simd8", 3, 2),
        ("image_rw/tgllp-simd32", 3, 2),
    ] {
        let m = straight_module_at(&own.join(v));
        let s = m
            .straight
            .as_ref()
            .unwrap_or_else(|| panic!("{v}: {:?}", m.why_not_straight));
        let [d] = s.launch.single_distinct.as_slice() else {
            panic!("{v}: {:?}", s.launch)
        };
        assert_eq!((d[0], d.len()), ((32, 2), vectors), "{v}: {:?}", s.launch);
        assert!(
            !s.launch.distinct_flat.contains(&(0, Apart::Bti(bti))),
            "{v}: {:?}",
            s.launch
        );
        validate_wgsl(&m.wgsl).unwrap_or_else(|e| panic!("{v}: {e}"));
    }
}

/// The lane mapping runs straight (each invocation its own channel's branches, no
/// scheduler) exactly where no channel meets another, and says why elsewhere.
#[test]
fn straight_form_where_no_channel_meets_another() {
    let saxpy = straight_module("saxpy/tgllp-simd16");
    let s = saxpy.straight.as_ref().expect("saxpy runs straight");
    assert_eq!(s.block_lens.len(), saxpy.blocks);
    assert!(!saxpy.wgsl.contains("fn run_thread"), "no block scheduler");
    assert!(!saxpy.wgsl.contains("workgroupBarrier"), "no barrier");
    // Its two surfaces must be two buffers, and its addresses are injective in the
    // local ids (payload byte 32, uw).
    assert_eq!(s.launch.distinct_btis, vec![(0, 1)]);
    let [form] = s.launch.distinct_inputs.as_slice() else {
        panic!("{:?}", s.launch.distinct_inputs)
    };
    let at: Vec<(u32, u32, i64)> = form
        .terms
        .iter()
        .map(|t| (t.offset, t.bytes, t.coef))
        .collect();
    assert_eq!(
        (at, form.at),
        (vec![(32, 2, 4)], [(0, 4), (0, 4)]),
        "{form:?}"
    );
    // SIMD32 in two halves: two address registers computing the same function.
    let halves = straight_module("uint_bitops/acm-g10-simd32");
    assert!(halves.straight.is_some(), "{:?}", halves.why_not_straight);
    // Stores in two branches through an address defined in a block that dominates both.
    let joined = straight_module("early_return/acm-g10-simd32");
    assert!(joined.straight.is_some(), "{:?}", joined.why_not_straight);
    // A loop whose counter IGC keeps in one NoMask scalar: the channels that read it
    // never part (the divergent exit leads past every use), and the store address is
    // a function of both local ids and a kernel argument (the row pitch).
    let looped = straight_module("mandelbrot/tgllp-simd16");
    let s = looped.straight.as_ref().expect("mandelbrot runs straight");
    assert!(s.cyclic);
    let [form] = s.launch.distinct_inputs.as_slice() else {
        panic!("{:?}", s.launch.distinct_inputs)
    };
    assert_eq!(form.terms.len(), 2, "{form:?}");
    assert!(form.terms.iter().any(|t| !t.factors.is_empty()), "{form:?}");
    // A 2D group: x + pitch * y, distinct for the host to check.
    let rows = straight_module("ndrange_2d_ids/acm-g10-simd16");
    assert!(rows.straight.is_some(), "{:?}", rows.why_not_straight);
    // Stores at `2i + 1` and `2i` in the two branches of an if (one byte each), and
    // struct fields at `32i + 16` written through `or`: one linear function of the
    // ids up to a constant.
    for name in [
        "byte_short_access/acm-g10-simd32",
        "global_offset_ids_1d/acm-g10-simd32",
        "ndrange_3d_ids/acm-g10-simd32",
    ] {
        let m = straight_module(name);
        assert!(m.straight.is_some(), "{name}: {:?}", m.why_not_straight);
    }
    // A loop whose exit test is a NoMask compare of scalars in two SIMD16 halves, and
    // a kernel that toggles the rounding mode around a conversion (%cr0 known
    // everywhere).
    for name in [
        "constant_arg/acm-g10-simd32",
        "int_arith_wrap/acm-g10-simd16",
    ] {
        let m = straight_module(name);
        assert!(m.straight.is_some(), "{name}: {:?}", m.why_not_straight);
    }
    // A tree reduction in SLM, `if (l < off) s[l] += s[l + off]`: each round's accesses
    // run only in the channels a compare of the local id lets through (a gather of
    // channels R and B touches two pieces, not G between them), and the group's sum is
    // stored for the whole thread by the one channel with `l == 0`.
    let tree = straight_module("dot_product_reduce/tgllp-simd32");
    let s = tree
        .straight
        .as_ref()
        .expect("dot_product_reduce runs straight");
    let bounds: Vec<i64> = s
        .launch
        .distinct_inputs
        .iter()
        .filter_map(|f| f.guards[0].as_ref().map(|g| g.hi))
        .collect();
    for hi in [32, 16, 8, 4, 2] {
        assert!(bounds.contains(&hi), "{hi}: {:?}", s.launch.distinct_inputs);
    }
    let [g] = s.launch.single.as_slice() else {
        panic!("{:?}", s.launch.single)
    };
    assert_eq!((g.offset, g.lo, g.hi), (32, 0, 1), "{g:?}");
    // acm-g10 loads `s[l .. l + 3]` (LSC d32x3) in round 2 and adds the first and the
    // third: the middle element, another channel's store, is never read.
    let lsc = straight_module("dot_product_reduce/acm-g10-simd32");
    assert!(lsc.straight.is_some(), "{:?}", lsc.why_not_straight);
    // A tile stored at `68 * ly + 4 * lx` (IGC's `mad 0x44 ly (lx << 2)`) and read
    // transposed after a barrier.
    let tile = straight_module("slm_transpose_tile/acm-g10-simd32");
    assert!(tile.straight.is_some(), "{:?}", tile.why_not_straight);
    // Two `__local` arguments, `tmp[l]` (4-byte) and `tmp2[l]` (2-byte) at the offset a
    // kernel argument gives (copied into a register first): two functions the host
    // evaluates whole.
    let args = straight_module("local_arg_pointer/acm-g10-simd32");
    let s = args
        .straight
        .as_ref()
        .expect("local_arg_pointer runs straight");
    assert!(
        s.launch.distinct_inputs.iter().any(|f| f
            .terms2
            .as_ref()
            .is_some_and(|t| t.iter().any(|t| t.bytes == 0 && !t.factors.is_empty()))),
        "{:?}",
        s.launch.distinct_inputs
    );
    // Histogram bins through flat 64-bit addresses built from dword halves: placed on
    // the `hist` pointer, which the host checks lies apart from the bytes read through
    // binding-table entry 0 (until stop 53: unplaced, searched for per atomic).
    let hist = straight_module("atomic_histogram/acm-g10-simd32");
    let s = hist
        .straight
        .as_ref()
        .expect("atomic_histogram runs straight");
    assert!(!s.launch.flat_placed.is_empty(), "{:?}", s.launch);
    assert!(
        s.launch.distinct_flat.contains(&(0, Apart::Bti(0))),
        "{:?}",
        s.launch
    );
    // Its bins are `hist + (byte << 2)` (IGC's `addc`/`add` of dword halves): within
    // 1,024 bytes of the pointer, which the host checks the buffer holds, so the shader
    // does not check each increment (`flat_in`, since stop 56).
    for name in [
        "atomic_histogram/acm-g10-simd32",
        "atomic_histogram/tgllp-simd32",
    ] {
        let m = straight_module(name);
        let s = m.straight.as_ref().expect("atomic_histogram runs straight");
        assert_eq!(s.launch.flat_spans, vec![(0, 1024)], "{name}");
        assert!(!s.launch.flat_proven.is_empty(), "{name}");
        assert!(
            m.wgsl.contains("flat_in(0u"),
            "{name}: no unchecked increment"
        );
        assert!(
            m.wgsl.contains("atomicAdd(&heap[o >> 2u], 1u)"),
            "{name}: the increment is not applied to its word directly"
        );
        assert!(
            !m.wgsl.contains("flat_at(0u"),
            "{name}: a checked increment"
        );
    }
    // Its byte loads `data[i]` behind `if (i < n)`: linear in the launch, so the host
    // evaluates them (and the guard) for every channel, and the shader reads them
    // unchecked (`bti_in`, since stop 56); saxpy's words on acm-g10 likewise, and
    // tgllp's 4-channel gathers and scatter (since stop 57).
    for (name, read) in [
        ("atomic_histogram/tgllp-simd32", "heap_byte(bti_in(bt,"),
        ("saxpy/acm-g10-simd16", "atomicLoad(&heap[bti_in(bt,"),
        ("saxpy/tgllp-simd16", "atomicStore(&heap[bti_in(bt,"),
    ] {
        let m = straight_module(name);
        let s = m.straight.as_ref().expect("runs straight");
        assert!(!s.launch.bti_proven.is_empty(), "{name}");
        assert!(
            s.launch.bti_bounds.iter().all(|b| b.runs_where.is_some()),
            "{name}: {:?}",
            s.launch.bti_bounds
        );
        assert!(m.wgsl.contains(read), "{name}: no unchecked access");
        // What the host translates where the launch fails the proof.
        let dir = visa_emu::corpus::paths::default_corpus_dir().join(name);
        let target = Target {
            prove_bounds: false,
            ..common::target(1, 4096, true, true)
        };
        let checked = translate(&common::prepared(&dir), &target).unwrap();
        assert!(checked.straight.is_some(), "{name}");
        assert!(!checked.wgsl.contains("bti_in(bt,"), "{name}");
    }
    // Subroutine calls written out; a scalar read across blocks where the channels
    // part both ways, each way writing it whole first (both refused until stop 53).
    for name in [
        "noinline_calls/tgllp-simd16",
        "math_exp_log_pow/tgllp-simd32",
    ] {
        let m = straight_module(name);
        assert!(m.straight.is_some(), "{name}: {:?}", m.why_not_straight);
    }
    // A work-group scan whose sub-group steps read other channels' registers in a
    // loop (no meeting there); stack calls, written out like subroutines (since stop
    // 55 whole: a linked function's two labels made an empty copy before), whose
    // callees read bytes several lanes write; indirect calls, whose `ifcall` switch
    // lists the calling function among its arms (a recursion the written-out form
    // cannot bound).
    for (name, why) in [
        (
            "work_group_collectives/acm-g10-simd8",
            "each other's registers in a loop",
        ),
        (
            "stack_calls/tgllp-simd8",
            "a register byte that several lanes write",
        ),
        ("indirect_calls/acm-g10-simd8", "nested over 8 deep"),
    ] {
        let m = straight_module_at(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/cases")
                .join(name),
        );
        assert!(m.straight.is_none(), "{name} must not run straight");
        let got = m.why_not_straight.unwrap_or_default();
        assert!(got.contains(why), "{name}: {got}");
    }
    // Constants (`mov (M1_NM, 1) V imm`) read past a branch where channels part.
    let consts = straight_module("math_exp_log_pow/acm-g10-simd16");
    assert!(consts.straight.is_some(), "{:?}", consts.why_not_straight);
    // IGC's math library reads its constant tables through the constant buffer's
    // address: NoMask copies of that prologue scalar past parting branches, per-lane SVM
    // gathers (tgllp: unplaced, each checked in the shader against the allocations the
    // kernel stores to) and LSC flat loads (acm-g10: placed on the constant buffer's
    // pointer since stop 53, which the host checks apart from every buffer the kernel
    // stores to) (own case `math_special`).
    let own = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/math_special");
    for (v, placed) in [("tgllp-simd16", false), ("acm-g10-simd16", true)] {
        let m = straight_module_at(&own.join(v));
        let s = m
            .straight
            .as_ref()
            .unwrap_or_else(|| panic!("{v}: {:?}", m.why_not_straight));
        if placed {
            assert!(!s.launch.flat_placed.is_empty(), "{v}: {:?}", s.launch);
            assert!(!s.launch.distinct_flat.is_empty(), "{v}: {:?}", s.launch);
            assert!(m.wgsl.contains("flat_ld4("), "{v}: no placed load");
        } else {
            assert!(!s.launch.flat_unplaced.is_empty(), "{v}: {:?}", s.launch);
            assert!(m.wgsl.contains("flat_avoid("), "{v}: no load checked");
        }
    }
}

/// A straight module's `run_lane` (up to its closing brace) with the rows written as
/// functions of their own (`pc = rowB(pc, dm);`) put back in place.
fn run_lane_inlined(wgsl: &str) -> String {
    let body = &wgsl[wgsl.find("fn run_lane").unwrap()..];
    let body = &body[..body.find("\n}\n").unwrap()];
    let mut out = String::new();
    for l in body.lines() {
        let call = l.trim_start();
        let Some(name) = call
            .strip_prefix("pc = ")
            .and_then(|c| c.strip_suffix("(pc, dm);"))
        else {
            out.push_str(l);
            out.push('\n');
            continue;
        };
        let start = "let lem = 1u << lane;\n";
        let f = &wgsl[wgsl.find(&format!("fn {name}(pc_in: u32")).unwrap()..];
        let f = &f[f.find(start).unwrap() + start.len()..];
        out.push_str(&f[..f.find("    return pc;\n}").unwrap()]);
    }
    out
}

/// The straight form keeps each channel's own elements in registers, not in the GRF
/// image, also where IGC splits a SIMD32 input in two (the local ids), reads a part
/// of an element (the low byte of a gathered dword, a 64-bit address written as two
/// halves) or writes a second destination (ADDC's carry): llvmpipe keeps a GRF image
/// addressed per channel in memory (atomic_histogram SIMD32: ~0.5 -> ~0.3 GPU ms).
#[test]
fn straight_form_keeps_channel_elements_in_registers() {
    let m = straight_module("atomic_histogram/tgllp-simd32");
    assert!(m.straight.is_some(), "{:?}", m.why_not_straight);
    let body = &run_lane_inlined(&m.wgsl);
    // A per-lane instruction's GRF accesses that index the image with the channel
    // (`i`, bound to `li`).
    let mut per_lane = false;
    let mut per_channel = Vec::new();
    for l in body.lines() {
        if l.trim_start().starts_with("// [") {
            per_lane = l.contains("(PerLane)");
        }
        let grf = l.contains("gld(") || l.contains("gst(");
        let by_channel = l
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .any(|w| w == "i");
        if per_lane && grf && by_channel {
            per_channel.push(l);
        }
    }
    assert!(per_channel.is_empty(), "{per_channel:#?}");
    assert!(
        m.wgsl.contains(
            "rv1792 = (pl_word(32u + lane * 2u) >> (((32u + lane * 2u) & 3u) * 8u)) & 65535u;"
        ),
        "the local ids of both halves load from their payload word"
    );
    assert!(
        m.wgsl.contains("& 255lu)"),
        "a byte part of a dword register"
    );
}

/// The benchmark kernels' straight modules keep every GRF scalar in a register and
/// address no GRF image at all (llvmpipe then drops the image: pipeline creation of
/// stencil3x3 640 -> 70 ms), so they need no barrier to split them either. So do
/// struct_arg_by_value, whose struct argument's 1- and 2-byte fields are slots of their
/// own (454 -> 14 ms), and long_arith, whose MADW high halves are lane registers
/// (7.4-9.6 s -> 0.11-0.21 s); words that per-lane and whole-thread instructions both
/// write stay in the image.
#[test]
fn straight_form_keeps_grf_scalars_in_registers() {
    let own = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let modules = [
        straight_module("saxpy/tgllp-simd16"),
        straight_module("mandelbrot/tgllp-simd16"),
        straight_module("dot_product_reduce/tgllp-simd32"),
        straight_module("dot_product_reduce/acm-g10-simd32"),
        straight_module("slm_prefix_scan/acm-g10-simd32"),
        straight_module_at(&own.join("stencil3x3/tgllp-simd32")),
        straight_module("struct_arg_by_value/tgllp-simd32"),
        straight_module("long_arith/tgllp-simd32"),
    ];
    let accessor = |l: &str| {
        ["gld(", "gst(", "g32(", "gs32(", "gb(", "gsb("]
            .iter()
            .any(|a| l.split(a).count() > 1 && !l.contains(&format!("fn {a}")))
    };
    for m in &modules {
        assert!(m.straight.is_some(), "{:?}", m.why_not_straight);
        let kernel = &m.wgsl[m.wgsl.find("// ---- kernel ----").unwrap()..];
        let left: Vec<&str> = kernel.lines().filter(|l| accessor(l)).collect();
        assert!(left.is_empty(), "{left:#?}");
        assert!(kernel.contains("var<private> ug"), "scalars in registers");
        assert!(!kernel.contains("workgroupBarrier();\n    if (l < n)"));
        validate_wgsl(&m.wgsl).unwrap();
    }
    // The SIMD16 halves of a legacy gather run as one past the repeated surface move
    // between them (`straight_rows::repeats`), and parts move up across per-lane
    // instructions of other channels (`crossable`): IGC's SIMD8 parts of a 64-bit
    // address interleave addc and add.
    let stencil = &modules[5].wgsl;
    assert!(stencil.contains("// [65]+[67] GATHER4_SCALED (PerLane), 2 parts as one"));
    let histogram = straight_module("atomic_histogram/tgllp-simd32").wgsl;
    for rows in [
        "// [16]+[19] GATHER_SCALED (PerLane), 2 parts as one",
        "// [27]+[29]+[31]+[33] ADDC (PerLane), 4 parts as one",
        "// [28]+[30]+[32]+[34] ADD (PerLane), 4 parts as one",
    ] {
        assert!(histogram.contains(rows), "{rows}");
    }
    assert!(modules[6]
        .wgsl
        .contains("ug1968 = u32((u64(pl_byte(280u) | (pl_byte(281u) << 8u))) & 0xfffflu);"));
    // atomic_global_counters: a per-lane MOV writes words a whole-thread one wrote.
    let m = straight_module("atomic_global_counters/tgllp-simd32");
    let kernel = &m.wgsl[m.wgsl.find("// ---- kernel ----").unwrap()..];
    assert!(kernel.lines().any(accessor));
}

/// IGC splits SIMD32 into two SIMD16 instructions (an SVM atomic into four SIMD8
/// ones); the straight form runs the parts as one where all compute the same per-lane
/// code (llvmpipe runs every instruction
/// of the module masked, taken or not), and a loop around a barrier meets inside its
/// rows: a round costs one pass of the loop, not the whole kernel (slm_prefix_scan
/// SIMD32: ~1.1 -> ~0.6 GPU ms on lavapipe).
#[test]
fn straight_form_runs_halves_as_one_and_meets_inside_loops() {
    let m = straight_module("slm_prefix_scan/acm-g10-simd32");
    assert!(m.straight.is_some(), "{:?}", m.why_not_straight);
    let body = &run_lane_inlined(&m.wgsl);
    let merged = body.matches("2 parts as one").count();
    // Every half pair is one instruction; only the branches stay per half.
    let single: Vec<&str> = body
        .lines()
        .filter(|l| l.trim_start().starts_with("// [") && l.ends_with("(PerLane)"))
        .filter(|l| !l.contains("GOTO"))
        .collect();
    assert!(merged >= 20, "{merged} merged pairs");
    assert!(single.is_empty(), "{single:#?}");
    // The scan's loop (its barrier inside) meets once a pass, after the barrier's
    // row, and decides there whether it goes on; `main` calls `run_lane` once.
    let inner = &body[body.find("        loop {").expect("the scan's loop")..];
    let inner = &inner[..inner.find("\n        }\n").unwrap()];
    assert_eq!(
        inner
            .matches("let go = atomicLoad(&st_live[meet_k]);")
            .count(),
        1
    );
    let meet = &inner[inner.find("// [56] BARRIER").unwrap()..];
    assert!(meet.find("{ break; }") < meet.find("// [57]"), "{meet}");
    let main = &m.wgsl[m.wgsl.find("fn main(").unwrap()..];
    assert_eq!(main.matches("run_lane(").count(), 1);
    assert!(!main.contains("loop {"), "no rounds loop in main");
    // A SIMD32 SVM atomic is four SIMD8 messages: one instruction.
    let hist = straight_module("atomic_histogram/tgllp-simd32");
    assert!(
        hist.wgsl.contains("SVM_ATOMIC (PerLane), 4 parts as one"),
        "{}",
        hist.wgsl
    );
}

/// SIMD32 halves that read or assign other lane registers (IGC lays a message's
/// vector out half by half), SEL halves and GRF-image halves run as one instruction
/// (stop 61): matmul_tiled16's and mandelbrot's SIMD32 straight modules keep no
/// per-lane row apart but their branches and predicate ANDs, and mandelbrot's merged
/// escape loop keeps the NaN-blind form (its halves lost it until then: 1.4-1.8x ->
/// 1.2-1.3x its hand WGSL on lavapipe).
#[test]
fn simd32_halves_on_other_registers_run_as_one() {
    for v in [
        "matmul_tiled16/tgllp-simd32",
        "matmul_tiled16/acm-g10-simd32",
        "mandelbrot/tgllp-simd32",
        "mandelbrot/acm-g10-simd32",
    ] {
        let m = straight_module(v);
        assert!(m.straight.is_some(), "{v}: {:?}", m.why_not_straight);
        validate_wgsl(&m.wgsl).unwrap_or_else(|e| panic!("{v}: {e}"));
        let body = &run_lane_inlined(&m.wgsl);
        let single: Vec<&str> = body
            .lines()
            .filter(|l| l.trim_start().starts_with("// [") && l.ends_with("(PerLane)"))
            .filter(|l| !l.contains("GOTO") && !l.contains("] AND "))
            .collect();
        assert!(single.is_empty(), "{v}: {single:#?}");
        if v.starts_with("matmul") {
            // The MADs read element 0 of each half from its own register; the
            // gathers assign each half's.
            assert!(body.contains("select(rv"), "{v}");
            assert!(body.contains("let part_value = "), "{v}");
        } else {
            // As many NaN canonicalizations as the SIMD16 twin, which has no halves.
            let twin = straight_module(&v.replace("simd32", "simd16"));
            let canon = |t: &str| t.matches("canon_nan(u64(").count();
            assert_eq!(
                canon(body),
                canon(&run_lane_inlined(&twin.wgsl)),
                "{v}: a merged half lost the NaN-blind form"
            );
        }
    }
}

/// A barrier that ends the kernel (slm_reduce with its `ret` made a `barrier`): the
/// invocation finishes there; a next block past the end must not be held (it would
/// never be released into a row).
#[test]
fn straight_barrier_at_the_end_finishes_the_invocation() {
    let src = visa_emu::corpus::paths::default_corpus_dir().join("slm_reduce");
    let dir = std::env::temp_dir().join(format!("visa-emu-endbar-{}", std::process::id()));
    let variant = dir.join("slm_reduce/tgllp-simd8");
    std::fs::create_dir_all(&variant).unwrap();
    std::fs::copy(src.join("case.json"), dir.join("slm_reduce/case.json")).unwrap();
    let text = std::fs::read_to_string(src.join("tgllp-simd8/kernel.visaasm")).unwrap();
    let ret = text
        .lines()
        .find(|l| l.trim_start().starts_with("ret (M1, 1)"))
        .unwrap();
    std::fs::write(
        variant.join("kernel.visaasm"),
        text.replace(ret, "    barrier"),
    )
    .unwrap();
    let m = straight_module_at(&variant);
    std::fs::remove_dir_all(&dir).ok();
    assert!(m.straight.is_some(), "{:?}", m.why_not_straight);
    validate_wgsl(&m.wgsl).unwrap();
    let rows = run_lane_inlined(&m.wgsl);
    let last = &rows[rows.rfind("BARRIER (Uniform)").unwrap()..];
    let row = &last[..last.find('}').unwrap()];
    assert!(row.contains("pc = IDLE;"), "{row}");
    assert!(!m.wgsl.contains("IDLE + HELD"));
}

/// Kernels with 64-bit atomics get the native form on devices that have them: the
/// swapped module is valid (with 64-bit atomics) and binds the heap again; kernels
/// without keep the runtime untouched. Only those whose 64-bit atomics may address SLM
/// carry the mark that moves their SLM into the heap (lock-free there), and that
/// module is valid too.
#[test]
fn native_64_bit_atomics_swap_in_only_where_used() {
    use visa_emu::translate::{workgroup_memory::slm_in_heap, ATOMIC64_SLM_MARK};
    let own = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let corpus = visa_emu::corpus::paths::default_corpus_dir();
    for (dir, has, on_slm) in [
        (own.join("atomic_64bit_carry/tgllp-simd32"), true, false),
        (own.join("atomic_64bit/acm-g10-simd32"), true, false),
        (own.join("atomic_64bit_local/pvc-simd32"), true, true),
        // IGC emulates 64-bit SLM atomics with 32-bit ones on tgllp.
        (own.join("atomic_64bit_local/tgllp-simd16"), false, false),
        (corpus.join("atomic_histogram/tgllp-simd32"), false, false),
        (corpus.join("saxpy/tgllp-simd16"), false, false),
    ] {
        let p = common::prepared(&dir);
        for lanes in [false, true] {
            let target = common::target(if lanes { 1 } else { 2 }, 4096, lanes, true);
            let m = translate(&p, &target).unwrap();
            assert_eq!(
                m.wgsl.contains(ATOMIC64_SLM_MARK),
                on_slm,
                "{} (lanes: {lanes})",
                dir.display()
            );
            if on_slm {
                let moved = slm_in_heap(&m.wgsl).expect("SLM to move");
                assert!(moved.contains("const K_SLM_IN_HEAP: bool = true;"));
                let text = visa_emu::translate::native_atomic64(&moved).unwrap();
                validate_wgsl(&text)
                    .unwrap_or_else(|e| panic!("{} in the heap: {e}", dir.display()));
            }
            match visa_emu::translate::native_atomic64(&m.wgsl) {
                Some(text) => {
                    assert!(has, "{}: swapped without 64-bit atomics", dir.display());
                    assert!(text.contains("var<storage, read_write> heap64: array<atomic<u64>>"));
                    assert!(!text.contains("-> u64 { return atomic64_split("));
                    validate_wgsl(&text)
                        .unwrap_or_else(|e| panic!("{} (lanes: {lanes}): {e}", dir.display()));
                }
                None => assert!(!has, "{}: no native 64-bit atomics", dir.display()),
            }
        }
    }
}

/// A kernel whose GRF is over `PRIVATE_GRF_WORDS_MAX` (atomic_global_counters SIMD32:
/// 2,320 words) runs straight with a compact GRF image (`translate/grf_rows.rs`: the
/// rows its code reaches through the image, every index through `gw`), within the limit
/// and valid for naga; its thread mapping translates with the GRF in `state` too, with
/// no private GRF array left. long_arith SIMD32 (7,928 words), the example until stop
/// 63, keeps no image at all since MADW's high halves are lane registers.
#[test]
fn a_large_grf_runs_straight_compacted_and_translates_into_state() {
    let corpus = visa_emu::corpus::paths::default_corpus_dir();
    let long_arith = straight_module_at(&corpus.join("long_arith/tgllp-simd32"));
    let s = long_arith.straight.as_ref().expect("straight");
    assert!(s.image_words.is_none());
    let kernel = &long_arith.wgsl[long_arith.wgsl.find("// ---- kernel ----").unwrap()..];
    assert!(
        !kernel.contains("gst(") && !kernel.contains("gld("),
        "no GRF image access"
    );
    let dir = corpus.join("atomic_global_counters/tgllp-simd32");
    let lane = straight_module_at(&dir);
    let s = lane
        .straight
        .as_ref()
        .expect("straight with a compact image");
    let words = s.image_words.expect("a compact image");
    assert!(
        words <= visa_emu::translate::PRIVATE_GRF_WORDS_MAX,
        "{words}"
    );
    assert!(lane
        .wgsl
        .contains(&format!("var<private> g: array<u32, {words}u>;")));
    assert!(lane.wgsl.contains("fn gw(w: u32) -> u32"));
    assert!(lane.wgsl.contains("code = ERR_STRAIGHT_GRF"));
    validate_wgsl(&lane.wgsl).unwrap_or_else(|e| panic!("{e}"));
    // A small GRF keeps its straight form (and the limit is not the reason).
    let small = straight_module("saxpy/tgllp-simd16");
    assert!(small.straight.is_some(), "{:?}", small.why_not_straight);

    let p = common::prepared(&dir);
    for grf_in_state in [false, true] {
        let target = Target {
            table: Some(false),
            grf_in_state,
            ..common::target(1, 0, false, false)
        };
        let m = translate(&p, &target).unwrap();
        assert_eq!(m.grf_in_state, grf_in_state);
        let private = m.wgsl.contains("var<private> g: array<u32");
        assert_eq!(private, !grf_in_state);
        assert_eq!(
            m.private_grf_words() > visa_emu::translate::PRIVATE_GRF_WORDS_MAX,
            !grf_in_state
        );
        validate_wgsl(&m.wgsl).unwrap_or_else(|e| panic!("grf_in_state {grf_in_state}: {e}"));
    }
}

/// The GPU launch of variant `dir` with its case's sizes, or as two work-groups of
/// `local` items.
fn built_in_groups_of(
    dir: &std::path::Path,
    local: Option<u64>,
) -> visa_emu::backend::gpu::GpuLaunch {
    use visa_emu::backend::gpu;
    let mut case = visa_emu::corpus::case::Case::load(dir.parent().unwrap()).unwrap();
    if let Some(l) = local {
        case.ndrange.local_size = vec![l];
        case.ndrange.global_size = vec![2 * l];
    }
    gpu::build(dir, &case, gpu::DEFAULT_STEP_LIMIT).unwrap()
}

/// Straight modules meet with plain barriers where every invocation of the workgroup
/// provably arrives together (`wg_uniform`): every channel dispatched, and each branch
/// alike everywhere or a forward `if` whose paths meet before the barrier. The scan's
/// and the reduction's rounds qualify (their loops count with kernel arguments; the
/// `if (l >= off)` / `if (l < s)` meet again inside the round); dot_product_reduce's
/// bounds check before its first barrier does not (its meetings are plain ones,
/// `plain_meetings`, with no vote either), nor a launch whose last thread has channels
/// left over (slm_reduce SIMD32 over work-groups of 48). Every module validates.
#[test]
fn meetings_are_plain_barriers_where_the_workgroup_agrees() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for (path, local, agreed, votes) in [
        ("corpus/slm_prefix_scan/acm-g10-simd32", None, true, false),
        ("corpus/slm_reduce/tgllp-simd16", None, true, false),
        ("corpus/slm_reduce/tgllp-simd32", None, true, false),
        ("corpus/slm_reduce/tgllp-simd32", Some(48), false, true),
        ("corpus/matmul_tiled16/tgllp-simd16", None, true, false),
        ("corpus/dot_product_reduce/tgllp-simd32", None, false, false),
    ] {
        let dir = root.join(path);
        let launch = built_in_groups_of(&dir, local);
        let m = launch.chosen();
        assert!(m.straight.is_some(), "{path}: {:?}", m.why_not_straight);
        assert!(m.wgsl.contains("workgroupBarrier()"), "{path}: meets");
        assert_eq!(m.wgsl.contains("let go = bits;"), agreed, "{path}");
        assert_eq!(m.wgsl.contains("atomicOr(&st_live"), votes, "{path}");
        validate_wgsl(&m.wgsl).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
}

/// Where the workgroup may part the meetings vote, but a barrier the workgroup
/// reaches from the one before (or from the kernel's start) by forward branches and
/// loops of its own, with no way in from elsewhere, meets with a plain barrier
/// (`plain_meetings`): dot_product_reduce's first barrier after its grid-stride loop
/// and its six reduction rounds. With every meeting plain the rows run once, with no
/// loop around the whole kernel: `run_lane`'s only loop is the grid-stride one. A
/// launch whose last thread has channels left over has no plain meeting, and its rows
/// sit in the whole-kernel loop. Every module validates.
#[test]
fn barriers_after_a_vote_meet_plainly_where_the_workgroup_left_together() {
    let src =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/dot_product_reduce");
    let text = std::fs::read_to_string(src.join("tgllp-simd32/kernel.visaasm")).unwrap();
    let round = "(!P4) goto (M1, 32) _0_034";
    assert!(text.contains(round), "dot_product_reduce's second round");
    let root = std::env::temp_dir().join(format!("visa-emu-plain-{}", std::process::id()));
    let case_dir = common::copy_case(&src, "tgllp-simd32", &root);
    let v = case_dir.join("tgllp-simd32");
    let count = |text: &str, local: Option<u64>| {
        std::fs::write(v.join("kernel.visaasm"), text).unwrap();
        let launch = built_in_groups_of(&v, local);
        let m = launch.chosen();
        assert!(m.straight.is_some(), "{:?}", m.why_not_straight);
        validate_wgsl(&m.wgsl).unwrap();
        let votes = m.wgsl.matches("atomicOr(&st_live").count();
        (
            m.wgsl
                .matches("(all arrive together: plain_meetings)")
                .count(),
            votes,
            run_lane_loops(&m.wgsl),
        )
    };
    assert_eq!(count(&text, None), (7, 0, 1), "as IGC wrote it");
    assert_eq!(count(&text, Some(48)), (0, 7, 2), "channels left over");
    // A round branching past its barrier leaves the straight form altogether.
    let skip = text.replace(round, "(!P4) goto (M1, 32) _0_036");
    std::fs::write(v.join("kernel.visaasm"), &skip).unwrap();
    let launch = built_in_groups_of(&v, None);
    assert!(
        launch.chosen().straight.is_none(),
        "a barrier skipped straight"
    );
    std::fs::remove_dir_all(&root).ok();
}

/// The WGSL loops of a straight module's `run_lane` (the kernel's own loops, and the
/// loop around the whole kernel where its rows take several passes).
fn run_lane_loops(wgsl: &str) -> usize {
    run_lane_inlined(wgsl).matches("loop {").count()
}

/// Loops whose trip counts differ per channel before the first barrier, between two
/// barriers and after the last (tests/cases/barrier_loops_between): the workgroup still
/// arrives together at each barrier (a loop of its own runs in place until its
/// channels leave it), so all three meet plainly and the rows run once; `run_lane`'s
/// loops are the kernel's two (IGC unrolled the third). With channels left over the
/// meetings vote. Both validate (tests/conformance_gpu.rs runs the case against the
/// interpreter).
#[test]
fn loops_between_barriers_leave_the_meetings_plain() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cases/barrier_loops_between/tgllp-simd16");
    let text = std::fs::read_to_string(dir.join("kernel.visaasm")).unwrap();
    assert_eq!(text.matches("    barrier ").count(), 3, "three barriers");
    for (local, plain, votes, loops) in [(None, 3, 0, 2), (Some(40), 0, 3, 3)] {
        let launch = built_in_groups_of(&dir, local);
        let m = launch.chosen();
        assert!(m.straight.is_some(), "{:?}", m.why_not_straight);
        validate_wgsl(&m.wgsl).unwrap();
        let got = (
            m.wgsl
                .matches("(all arrive together: plain_meetings)")
                .count(),
            m.wgsl.matches("atomicOr(&st_live").count(),
            run_lane_loops(&m.wgsl),
        );
        assert_eq!(got, (plain, votes, loops), "work-groups of {local:?}");
    }
}

/// What would part the workgroup keeps the vote: slm_prefix_scan patched so that its
/// loop's exit compares with each channel's local id, or so that its two SIMD halves
/// compute the exit from different values, still meets through the atomics (or leaves
/// the straight form), and runs exactly.
#[test]
fn meetings_keep_the_vote_where_the_workgroup_may_part() {
    use visa_emu::backend::gpu;
    use visa_emu::corpus::case::Case;
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/slm_prefix_scan");
    let text = std::fs::read_to_string(src.join("acm-g10-simd32/kernel.visaasm")).unwrap();
    let exit_m1 = "cmp.lt (M1_NM, 16) P3 V0067(0,0)<0;1,0> V0037(0,0)<0;1,0>";
    let exit_m5 = "cmp.lt (M5_NM, 16) P3 V0067(0,0)<0;1,0> V0037(0,0)<0;1,0>";
    assert!(
        text.contains(exit_m1) && text.contains(exit_m5),
        "the scan's loop exit"
    );
    let patches = [
        (
            "per-lane exit",
            text.replace(
                exit_m1,
                "cmp.lt (M1_NM, 16) P3 V0067(0,0)<0;1,0> V0048(0,0)<1;1,0>",
            )
            .replace(
                exit_m5,
                "cmp.lt (M5_NM, 16) P3 V0067(0,0)<0;1,0> V0049(0,0)<1;1,0>",
            ),
        ),
        (
            "halves apart",
            text.replace(exit_m5, "cmp.lt (M5_NM, 16) P3 V0067(0,0)<0;1,0> 0x40:d"),
        ),
    ];
    for (what, patched) in patches {
        let root = std::env::temp_dir().join(format!(
            "visa-emu-vote-{}-{}",
            what.replace(' ', "-"),
            std::process::id()
        ));
        let case_dir = common::copy_case(&src, "acm-g10-simd32", &root);
        let v = case_dir.join("acm-g10-simd32");
        std::fs::write(v.join("kernel.visaasm"), patched).unwrap();
        let case = Case::load(&case_dir).unwrap();
        let launch = gpu::build(&v, &case, gpu::DEFAULT_STEP_LIMIT).unwrap();
        let m = launch.chosen();
        assert!(
            !m.wgsl.contains("let go = bits;"),
            "{what}: must keep the vote"
        );
        if m.straight.is_some() {
            assert!(m.wgsl.contains("atomicOr(&st_live"), "{what}");
        }
        std::fs::remove_dir_all(&root).ok();
    }
}

/// Float results that only arithmetic and compares read keep the adapter's NaN bits
/// in straight modules (`translate::nan_blind`): of mandelbrot's 12 float adds and
/// muls all but `$40` (zr2 - zi2 + cr, which `mov $44` copies: moves keep NaN bits)
/// drop `canon_nan`; the results saxpy and float_arith store keep it.
#[test]
fn nan_canonicalization_stays_where_bits_are_seen() {
    let m = straight_module("mandelbrot/acm-g10-simd16");
    let s = m.straight.as_ref().expect("mandelbrot runs straight");
    let text = std::fs::read_to_string(
        visa_emu::corpus::paths::default_corpus_dir()
            .join("mandelbrot/acm-g10-simd16/kernel.visaasm"),
    )
    .unwrap();
    let at = |n: usize| {
        let tag = format!("/// ${n}");
        let line = text.lines().find(|l| l.trim_end().ends_with(&tag)).unwrap();
        line.split_whitespace()
            .take(5)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(at(40), "add (M1, 16) V0071(0,0)<1> V0070(0,0)<1;1,0>");
    assert_eq!(at(44), "mov (M1, 16) V0064(0,0)<1> V0071(0,0)<1;1,0>");
    assert_eq!(s.nan_blind, [16, 17, 19, 20, 25, 26, 27, 39, 41, 42, 43]);
    for n in &s.nan_blind {
        assert!(
            at(*n).starts_with("add ") || at(*n).starts_with("mul "),
            "${n}"
        );
    }
    assert_eq!(
        m.wgsl.matches("canon_nan(").count(),
        2,
        "$40's and the function"
    );
    for name in ["saxpy/acm-g10-simd16", "float_arith/acm-g10-simd16"] {
        let m = straight_module(name);
        let s = m.straight.as_ref().expect("runs straight");
        assert!(s.nan_blind.is_empty(), "{name}: {:?}", s.nan_blind);
        assert!(
            m.wgsl.matches("canon_nan(").count() > 1,
            "{name}: stored sums keep it"
        );
    }
}

/// Calls of WGSL function `f` in `wgsl`, its definition left out.
fn calls(wgsl: &str, f: &str) -> usize {
    wgsl.matches(&format!("{f}(")).count() - wgsl.matches(&format!("fn {f}(")).count()
}

/// A straight module keeps a predicate that only its own channels' bits carry as a
/// whole word (`pown`) and branches on that word without EvaluateChEn's shifts; a
/// predicate that scalar (uniform) compares write keeps its bits (`pset`).
#[test]
fn own_lane_predicates_are_whole_words_in_straight_modules() {
    let m = straight_module("mandelbrot/tgllp-simd16");
    assert!(calls(&m.wgsl, "pown") >= 3, "mandelbrot's compares");
    assert_eq!(calls(&m.wgsl, "pset"), 0);
    let branches: Vec<&str> = m
        .wgsl
        .lines()
        .filter(|l| l.trim_start().starts_with("pc = select("))
        .collect();
    assert!(
        branches.iter().all(|l| !l.contains("chen(")),
        "{branches:#?}"
    );
    assert!(
        branches.iter().any(|l| l.contains(" != 0u)")),
        "{branches:#?}"
    );
    // P1: two SIMD16 halves' compares, one SIMD32 `(!P1) goto`; P2, P3: scalar
    // NoMask compares that scalar `sel`s read.
    let m = straight_module("struct_arg_by_value/acm-g10-simd32");
    assert_eq!(calls(&m.wgsl, "pown"), 1, "P1's halves, one row");
    assert_eq!(calls(&m.wgsl, "pset"), 2, "P2 and P3");
    assert!(m.wgsl.contains("(pr[1u] == 0u)"), "the inverted goto");
}

/// Float immediates, and integer ones with an infinity's or a NaN's bits, reach the
/// kernel through `imm_opaque` (drivers rewrite float arithmetic on literals they can
/// see: lavapipe made `x * 0.0` a +0 and reassociated math_trig's cos reduction;
/// NVIDIA's took the invocations that multiplied by a literal +inf off the rest of
/// math_trig), every float result through `fence` (alone or in `canon_nan`), and the
/// other integer immediates stay a plain `imm` the compiler may fold.
#[test]
fn float_immediates_are_hidden_from_the_compiler() {
    use visa_emu::ir::DataType;
    use visa_emu::translate::special_float;
    assert!(special_float(DataType::F, 0x7f80_0000));
    assert!(special_float(DataType::F, 0xffff_ffff));
    assert!(special_float(DataType::DF, 0xfff0_0000_0000_0000));
    assert!(special_float(DataType::HF, 0x7e00));
    assert!(special_float(DataType::UD, 0xff80_0000));
    assert!(special_float(DataType::Q, 0x7ff8_0000_0000_0000));
    assert!(!special_float(DataType::F, 0x7f7f_ffff));
    assert!(!special_float(DataType::D, 0x7fff_ffff));
    assert!(!special_float(DataType::UD, 0xffff_ffff));
    assert!(!special_float(DataType::HF, 0x7bff));
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/math_trig/tgllp-simd16");
    let m = straight_module_at(&dir);
    // `mul (M1, 16) V0838 V0841 0x7f800000:f` (sinh of +-inf) and its kin.
    assert!(calls(&m.wgsl, "imm_opaque") > 0);
    assert!(m.wgsl.contains("imm_opaque(2139095040u, 0u)"));
    assert!(!m.wgsl.contains("imm(2139095040u, 0u)"));
    // `0x3f800000:f` (1.0f) is hidden; IGC's integer `add .. 0x3f800000:d` stays `imm`.
    assert!(m.wgsl.contains("imm_opaque(1065353216u, 0u)"), "1.0f");
    assert!(
        m.wgsl.contains("imm(2u, 0u)"),
        "`shl .. 0x2:d` stays foldable"
    );
    // mandelbrot's NaN-blind adds and muls keep the adapter's NaN behind the barrier.
    let m = straight_module("mandelbrot/tgllp-simd16");
    assert!(calls(&m.wgsl, "fence") >= 11, "{}", calls(&m.wgsl, "fence"));
}

/// A module keeps only the atomic operations its kernel uses (`translate::atomic_ops`):
/// the float ones (through `afl`/`atf`, f64 min/max and add: soft doubles where 64-bit
/// types are emulated, minutes of llvmpipe compiling) only where the kernel has one
/// (own case float_atomics: LSC fadd/fsub/fmin/fmax on acm-g10, legacy fsub/fmin/fmax
/// and a compare-exchange loop on tgllp), and their f64 form only for 16- and 64-bit
/// ones.
#[test]
fn only_the_kernels_atomic_operations_stay() {
    use visa_emu::translate::prune::unreachable_functions;
    let own = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    for (variant, floats, kept, dropped) in [
        ("atomic_64bit/acm-g10-simd32", false, "case 0u:", "case 7u:"),
        (
            "atomic_64bit_carry/tgllp-simd32",
            false,
            "case 0u:",
            "case 8u:",
        ),
        ("image_atomic/tgllp-simd8", false, "case 7u:", "case 10u:"),
        (
            "float_atomics/acm-g10-simd32",
            true,
            "case 17u:",
            "case 16u:",
        ),
        ("float_atomics/tgllp-simd16", true, "case 18u:", "case 16u:"),
    ] {
        let dir = own.join(variant);
        let m = straight_module_at(&dir);
        let pruned = unreachable_functions(&m.wgsl, "main");
        assert_eq!(pruned.contains("fn atomic_float32("), floats, "{variant}");
        // All of these float atomics are 32-bit: no f64 form.
        assert!(!pruned.contains("fn atomic_float_wide("), "{variant}");
        let switches: String = ["fn atomic_apply(", "fn atomic_float32("]
            .iter()
            .filter_map(|f| {
                let at = pruned.find(f)?;
                Some(&pruned[at..at + pruned[at..].find("\n}\n")?])
            })
            .collect();
        assert!(switches.contains(kept), "{variant}: {kept}");
        assert!(!switches.contains(dropped), "{variant}: {dropped}");
        validate_wgsl(&pruned).unwrap_or_else(|e| panic!("{variant}: {e}"));
    }
}

/// A `.visaasm` text's kernel "k" (32-byte GRF), prepared.
fn prepared_text(text: &str) -> visa_emu::interp::prepare::Prepared {
    let k =
        visa_emu::decode::text::parse_visaasm(text, 32).unwrap_or_else(|e| panic!("{text}: {e}"));
    visa_emu::interp::prepare(&k, "k").unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Kernel `k` of `.visaasm` text translated for one invocation per thread, with the
/// lane mapping and its straight form when `lanes`; the WGSL validated.
fn translate_text(text: &str, lanes: bool) -> visa_emu::translate::Module {
    let p = prepared_text(text);
    let m = translate(&p, &common::target(1, 0, lanes, lanes))
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    validate_wgsl(&m.wgsl).unwrap_or_else(|e| panic!("{text}: {e}"));
    m
}

/// ALT floating-point mode: a kernel that may set %cr0's bit 0 gets its F results
/// clamped and SQRT's source made absolute (under a test of %cr0 where the translator
/// does not know its value), in every mapping; a kernel whose %cr0 writes (IGC's: OR
/// and XOR of immediates without that bit) keep it clear gets no ALT code. Until stop
/// 51 the GPU path refused the former.
#[test]
fn alt_mode_code_appears_where_the_kernel_may_set_the_bit() {
    let kernel = |cr0_write: &str| {
        format!(
            ".version 4.1\n.kernel \"k\"\n\
             .decl V0032 v_type=G type=f num_elts=8 align=hword\n\
             .decl V0033 v_type=G type=ud num_elts=1 align=dword\n\
             .kernel_attr SimdSize=8\n\
             {cr0_write}\n\
             mul (M1, 8) V0032(0,0)<1> V0032(0,0)<1;1,0> 0x7f000000:f\n\
             sqrt (M1, 8) V0032(0,0)<1> V0032(0,0)<1;1,0>\n\
             ret (M1, 1)\n"
        )
    };
    let translated = |cr0_write: &str, lanes: bool| translate_text(&kernel(cr0_write), lanes).wgsl;
    for lanes in [false, true] {
        // Writes that may set the bit: the product and the root are clamped and the
        // root's source made absolute, under a test of %cr0 where its value is not
        // known (`known`: an immediate from %cr0's initial zero, which straight
        // modules and the table form fold).
        for (may_set, known) in [
            ("or (M1_NM, 1) %cr0(0,0)<1> %cr0(0,0)<0;1,0> 0x1:ud", true),
            ("mov (M1_NM, 1) %cr0(0,0)<1> V0033(0,0)<0;1,0>", false),
            ("xor (M1_NM, 1) %cr0(0,0)<1> %cr0(0,0)<0;1,0> 0x31:ud", true),
        ] {
            let w = translated(may_set, lanes);
            assert_eq!(calls(&w, "alt_fin32"), 2, "{may_set} (lanes: {lanes})");
            assert_eq!(calls(&w, "alt_abs32"), 1, "{may_set} (lanes: {lanes})");
            if !known {
                assert!(
                    w.contains("((cr & 1u) != 0u)"),
                    "{may_set} (lanes: {lanes})"
                );
            }
        }
        for kept in [
            "or (M1_NM, 1) %cr0(0,0)<1> %cr0(0,0)<0;1,0> 0x4c0:ud",
            "xor (M1_NM, 1) %cr0(0,0)<1> %cr0(0,0)<0;1,0> 0x30:ud",
            "and (M1_NM, 1) %cr0(0,0)<1> %cr0(0,0)<0;1,0> 0xffffffcf:ud",
        ] {
            let w = translated(kept, lanes);
            assert_eq!(calls(&w, "alt_fin32") + calls(&w, "alt_abs32"), 0, "{kept}");
        }
    }
}

/// A SIMD8 kernel whose NoMask scalar V0033 one way of a branch changes and whose
/// channels read after the join, with `after_join` between the join and the read.
fn scalar_changed_on_one_way(after_join: &str) -> String {
    format!(
        ".version 4.1\n.kernel \"k\"\n\
         .decl V0032 v_type=G type=w num_elts=8 align=hword\n\
         .decl V0033 v_type=G type=d num_elts=1 align=dword\n\
         .decl V0034 v_type=G type=d num_elts=8 align=hword\n\
         .decl P1 v_type=P num_elts=8\n\
         .input V0032 offset=32 size=16\n\
         .kernel_attr SimdSize=8\n\
         mov (M1_NM, 1) V0033(0,0)<1> 0x0:d\n\
         cmp.gt (M1, 8) P1 V0032(0,0)<1;1,0> 0x3:w\n\
         (P1) goto (M1, 8) L1\n\
         add (M1_NM, 1) V0033(0,0)<1> V0033(0,0)<0;1,0> 0x1:d\n\
         L1:\n\
         {after_join}\n\
         add (M1, 8) V0034(0,0)<1> V0032(0,0)<1;1,0> V0033(0,0)<0;1,0>\n\
         ret (M1, 1)\n"
    )
}

/// A NoMask scalar that one way of a per-channel branch changes and that is read after
/// the ways meet holds the thread's last value there, which the channels of the other
/// way never computed: the kernel keeps the thread mapping (until stop 53 the straight
/// form took it). Written whole again on every way before its reads, as the loop
/// counter of a subroutine written out at two call sites, it runs straight.
#[test]
fn scalars_changed_on_one_way_and_read_after_the_join_keep_the_thread_mapping() {
    let straight = |after_join: &str| {
        let m = translate_text(&scalar_changed_on_one_way(after_join), true);
        (m.straight.is_some(), m.why_not_straight.unwrap_or_default())
    };
    let (s, why) = straight("");
    assert!(!s, "read after the join");
    assert!(
        why.contains("reads what a scalar instruction of another block writes"),
        "{why}"
    );
    // Written whole after the join, before the read: every channel's copy agrees.
    let (s, why) = straight("mov (M1_NM, 1) V0033(0,0)<1> 0x5:d");
    assert!(s, "{why}");
}

/// IGC's 64-bit addresses built from dword halves (`addc` of the pointer's low half and
/// a byte offset, `add` of the carry and its high half, `mov`s into each address's
/// halves) are placed on the pointer they derive from (`lane_memory::pointer_in_slice`):
/// the histogram's SVM increments on `hist` (payload byte 264), with no search of the
/// allocations; the byte loads through binding-table entry 0 are checked apart from it
/// by the host.
#[test]
fn svm_addresses_from_dword_halves_are_placed_on_their_pointer() {
    let m = straight_module("atomic_histogram/tgllp-simd32");
    let s = m.straight.as_ref().expect("the histogram runs straight");
    assert_eq!(s.launch.flat_bases, vec![264]);
    // The four SIMD8 parts of the SIMD32 atomic, all on `hist`.
    assert_eq!(s.launch.flat_placed.len(), 4, "{:?}", s.launch.flat_placed);
    assert!(s.launch.flat_placed.iter().all(|&(_, j)| j == 0));
    // Placed, and since stop 56 proven to stay within `hist`'s 1,024 bytes: the
    // heap offset without `flat_at`'s check (`flat_in`).
    assert!(m.wgsl.contains("flat_in(0u, a)"));
    assert!(!m.wgsl.contains("locate(SP_FLAT"));
    validate_wgsl(&m.wgsl).unwrap();
}

/// 64-bit atomics of different kinds on `acc[0]` and `acc[1]`, every channel on the
/// same word, through addresses IGC (acm-g10: no 64-bit adds) builds from dword
/// halves: the pointer's halves copied to every channel, `acc + 8` by `addc` of an
/// immediate into a scalar after a branch. The analysis follows the copies and the
/// `addc` down to the pointer argument, compares the low halves (every allocation lies
/// inside one 4 GiB window) and finds the words apart (until stop 53: "memory
/// instructions 27 and 51 may touch the same bytes"); its GRF is over
/// `PRIVATE_GRF_WORDS_MAX`, and since stop 63 (MADW's high halves in lane registers)
/// it runs straight with no GRF image at all (a compact one from stop 55).
#[test]
fn uniform_addresses_apart_by_a_constant_are_apart() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cases/atomic_64bit/acm-g10-simd32");
    let m = straight_module_at(&dir);
    let s = m
        .straight
        .as_ref()
        .unwrap_or_else(|| panic!("{:?}", m.why_not_straight));
    assert!(s.image_words.is_none(), "no GRF image");
    validate_wgsl(&m.wgsl).unwrap();
}

/// A NoMask reduction of a vector each channel wrote its element of: the straight
/// form runs the reduction whole in every invocation after a meeting that passes the
/// elements (`translate/exchange.rs`); the same read inside a loop keeps the kernel
/// off the straight form, saying why.
#[test]
fn cross_channel_reads_meet_in_the_straight_form_outside_loops() {
    let body = |in_loop: bool| {
        let (head, tail) = if in_loop {
            (
                "_L1:\n",
                "cmp.lt (M1, 8) P1 V0032(0,0)<1;1,0> 0x10:d\n(P1) goto (M1, 8) _L1\n",
            )
        } else {
            ("", "")
        };
        format!(
            ".version 4.1\n.kernel \"k\"\n\
             .decl V0032 v_type=G type=d num_elts=8 align=hword\n\
             .decl V0033 v_type=G type=d num_elts=8 align=hword\n\
             .decl V0034 v_type=G type=d num_elts=4 align=hword\n\
             .decl P1 v_type=P num_elts=8\n\
             .kernel_attr SimdSize=8\n\
             mov (M1, 8) V0032(0,0)<1> 0x76543210:v\n\
             {head}\
             mov (M1_NM, 8) V0033(0,0)<1> 0x0:d\n\
             mov (M1, 8) V0033(0,0)<1> V0032(0,0)<1;1,0>\n\
             add (M1_NM, 4) V0034(0,0)<1> V0033(0,0)<1;1,0> V0033(0,4)<1;1,0>\n\
             add (M1, 8) V0032(0,0)<1> V0032(0,0)<1;1,0> V0034(0,1)<0;1,0>\n\
             {tail}\
             ret (M1, 1)\n"
        )
    };
    let m = translate_text(&body(false), true);
    assert!(m.straight.is_some(), "{:?}", m.why_not_straight);
    assert!(m.wgsl.contains("the lanes publish"), "no meeting");
    assert!(m.wgsl.contains("var<workgroup> xm"), "no meeting words");
    let m = translate_text(&body(true), true);
    assert!(m.straight.is_none());
    let why = m.why_not_straight.unwrap_or_default();
    assert!(why.contains("in a loop"), "{why}");
}

/// Where the straight form is refused, the lane translation writes the scheduled lane
/// form only when asked (`Target::scheduled_fallback`): `auto` runs the thread mapping
/// then, so the host does not ask, and the refusal's reason stays the same.
#[test]
fn a_refused_straight_form_writes_the_scheduled_one_only_when_asked() {
    // A scalar changed on one way and read after the join: refused straight.
    let text = scalar_changed_on_one_way("");
    let asked = translate_text(&text, true);
    assert_eq!(asked.mapping(), "lanes", "{:?}", asked.why_not_straight);
    let p = prepared_text(&text);
    let target = Target {
        scheduled_fallback: false,
        private_base: None,
        ..common::target(1, 0, true, true)
    };
    let stopped = translate(&p, &target).unwrap();
    assert_eq!(stopped.mapping(), "threads");
    assert!(stopped.wgsl.is_empty());
    assert!(stopped.why_not_straight.is_some());
    assert_eq!(stopped.why_not_straight, asked.why_not_straight);
    // A kernel that runs straight is unaffected.
    let saxpy =
        common::prepared(&visa_emu::corpus::paths::default_corpus_dir().join("saxpy/tgllp-simd16"));
    let straight = translate(&saxpy, &target).unwrap();
    assert_eq!(straight.mapping(), "straight");
}
