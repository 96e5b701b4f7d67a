//! Every corpus variant runs on the CPU reference interpreter and matches its expected
//! outputs under the case's tolerance, except the documented disagreements in
//! tests/known_disagreements.txt, which must fail exactly as recorded.

mod common;

use visa_emu::backend::cpu::check_variant;
use visa_emu::cli::conformance::{discover, explained, parse_known, run_parallel};
use visa_emu::corpus::paths::default_corpus_dir;
use visa_emu::interp::RunOptions;

#[test]
fn corpus_passes_on_the_cpu_interpreter() {
    let variants = discover(&[default_corpus_dir()]).unwrap();
    assert_eq!(variants.len(), 148);
    let known_text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/known_disagreements.txt"),
    )
    .unwrap();
    let known = parse_known(&known_text).unwrap();
    let opts = RunOptions::default();
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let out = run_parallel(&variants, jobs, |v| check_variant(v, &opts), |_| {});
    let mut unexplained = Vec::new();
    let mut explained_count = 0;
    for o in &out {
        match (&o.result, explained(&known, o)) {
            (Ok(_), _) => assert!(
                !known.iter().any(|k| k.variant == o.name),
                "{} is listed as a known disagreement but now passes: remove it",
                o.name
            ),
            (Err(_), Some(_)) => explained_count += 1,
            (Err(e), None) => unexplained.push(format!("{}: {e}", o.name)),
        }
    }
    assert!(
        unexplained.is_empty(),
        "{} failed:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
    assert_eq!(
        explained_count,
        known.len(),
        "every known disagreement must still occur"
    );
}

#[test]
fn bundled_example_passes() {
    let ex = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/saxpy");
    let variants = discover(&[ex]).unwrap();
    assert_eq!(variants.len(), 6);
    for v in variants {
        check_variant(&v, &RunOptions::default()).unwrap();
    }
}

/// The project's own cases (tests/cases, built by tools/make_case.py with Debian's ocloc
/// and a Python model as the reference): 64-bit atomics (also carrying adds under
/// contention), private arrays of several element types with dynamic indices (in GRF,
/// in %scratch and in stateless private memory: `private_pick`; stored to through
/// register-indirect moves: `private_index_small`), SIMD32
/// sub-group shuffles of long/ushort/float, stack functions (fcall/fret) and indirect calls
/// (ifcall through function pointers), images (typed reads and writes, nearest and
/// linear samples, block reads, 1D/3D, arrays, sampler arguments, typed atomics, LSC typed
/// load status), words read at
/// unaligned addresses and past the ends of their buffers, SLM rounds whose loop scalar
/// makes channels write each other's slots, loops of per-channel trip counts before,
/// between and after barriers, barrier-free passes that read what the
/// previous pass wrote, the bench's 3x3 stencil (PoCL computes the model's bits),
/// products with the sums they feed rounded twice in float and double (FP_CONTRACT OFF),
/// float arithmetic on literals (`x * 0.0`, `x + 0.0`, round-to-integer adds),
/// OpenCL 2.0 non-uniform work-groups (a 21 x 10 NDRange in 8 x 4 groups), and OpenCL
/// 2.0 work-group collectives (whose SLM race IGC leaves to the hardware's interleaving
/// of threads), OpenCL 2.0 generic pointers with program-scope globals, C11-style
/// atomics with explicit orders and scopes, float atomics (LSC and legacy, bit-exact
/// over the IEEE specials), async work-group copies, sub-group
/// functions over partial sub-groups, and the trigonometric and hyperbolic builtins
/// (IGC's software routines, large-argument reduction, specials) within OpenCL's bounds,
/// and their double-precision counterparts on skl and pvc (exp, log, pow, sin, cos,
/// atan2, cbrt, tanh against mpmath's correctly rounded values), and conversions in
/// every %cr0 rounding mode (float/double to half and float, 64-bit integers to float
/// and double, saturating conversions in a mode) against exact rational models, and
/// the exactly specified float builtins (remainder, remquo, frexp, ldexp, nextafter,
/// logb, modf) that IGC computes on the bits, in float and double, and the integer
/// builtins at the edges of long, short and char.
#[test]
fn own_cases_pass() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let variants = discover(&[dir]).unwrap();
    assert_eq!(variants.len(), 168);
    let opts = RunOptions::default();
    for v in &variants {
        check_variant(v, &opts).unwrap_or_else(|e| panic!("{}: {e}", v.display()));
    }
}

/// Groups spread over several workers give the same, correct outputs (global atomics,
/// SLM and barriers included).
#[test]
fn parallel_groups_match() {
    let root = default_corpus_dir();
    let opts = RunOptions {
        workers: 4,
        ..RunOptions::default()
    };
    for v in [
        "saxpy/tgllp-simd16",
        "atomic_global_counters/acm-g10-simd16",
        "atomic_cmpxchg_mul/tgllp-simd16",
        "slm_reduce/tgllp-simd32",
        "matmul_tiled16/acm-g10-simd16",
        "private_array_large/tgllp-simd16",
    ] {
        check_variant(&root.join(v), &opts).unwrap_or_else(|e| panic!("{v}: {e}"));
    }
}

/// Non-uniform work-groups in three dimensions with a global offset (8 pieces): every
/// item's ids and sizes are OpenCL 2.0's.
#[test]
fn non_uniform_3d_ranges_follow_opencl() {
    let (dir, case) = common::uneven_3d_case();
    let run = visa_emu::backend::cpu::run_case(&dir, &case, &RunOptions::default()).unwrap();
    let o = &run.buffers.iter().find(|(n, _)| n == "o").unwrap().1;
    assert_eq!(common::uneven_3d_mismatches(&case, o), 0);
    // 3 x 2 x 2 groups of at most 24 items: one SIMD32 thread each.
    assert_eq!(run.stats.threads, 12);
}
