//! Resumable passes (see `translate::budget`): with a small per-pass loop budget every
//! thread is saved and restored many times, across barriers and with SLM live, and the
//! results must still equal the CPU interpreter's byte for byte.

mod common;

use common::assert_same_run;
use visa_emu::backend::gpu;
use visa_emu_host::{GpuContext, GpuOptions};

fn variant(name: &str) -> (std::path::PathBuf, visa_emu::corpus::case::Case) {
    let dir = visa_emu::corpus::paths::default_corpus_dir().join(name);
    let case = visa_emu::corpus::case::Case::load(dir.parent().unwrap()).unwrap();
    (dir, case)
}

/// mandelbrot with 400 iterations, one group around the origin (inside the set): in
/// the thread mapping each costs ~1,260 loop iterations (its block's element loops),
/// so a thread needs ~500,000, far more than lavapipe's limiter allows one invocation
/// (65,535). Until stop 51 it ran 40,000 iterations: 1,276 passes, ~100 s a test.
/// Returns the interpreter's run and the launch, in the thread mapping.
fn mandelbrot_in_the_set() -> (visa_emu::backend::cpu::VariantRun, gpu::GpuLaunch) {
    let (dir, mut case) = variant("mandelbrot/tgllp-simd16");
    case.ndrange.global_size = vec![16, 4];
    for (name, bytes) in [
        ("maxit", 400u32.to_le_bytes()),
        ("x0", (-0.1f32).to_le_bytes()),
        ("y0", (-0.1f32).to_le_bytes()),
    ] {
        let a = case.args.iter_mut().find(|a| a.name == name).unwrap();
        a.bytes_hex = Some(bytes.iter().map(|b| format!("{b:02x}")).collect());
    }
    let cpu = visa_emu::backend::cpu::run_case(&dir, &case, &Default::default()).unwrap();
    let mut launch = gpu::build(&dir, &case, 500_000_000).unwrap();
    launch.mapping = gpu::Mapping::Threads;
    (cpu, launch)
}

#[test]
fn threads_saved_and_resumed_across_passes_agree_with_the_cpu() {
    let mut ctx = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    // slm_reduce: barriers and SLM live between passes; loop_data_dependent: divergent
    // loops whose lanes wait at different blocks when a pass ends.
    for name in [
        "slm_reduce/tgllp-simd16",
        "loop_data_dependent/tgllp-simd16",
    ] {
        let (dir, case) = variant(name);
        let cpu = visa_emu::backend::cpu::run_case(&dir, &case, &Default::default()).unwrap();
        let mut launch = gpu::build(&dir, &case, 50_000_000).unwrap();
        // The thread mapping's passes (loop_data_dependent would run straight).
        launch.mapping = gpu::Mapping::Threads;
        // Small enough that every thread is saved and restored several times.
        let budget = launch.module.max_block_cost as u32 + 1000;
        let g = gpu::execute_with_budget(&mut ctx, &launch, Some(budget))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(g.passes > 2, "{name}: only {} pass(es)", g.passes);
        assert_same_run(name, &cpu, &g);
    }
}

#[test]
fn a_budget_smaller_than_one_block_is_a_clear_error() {
    let mut ctx = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    // A kernel with a loop: its whole thread has no bound, so a small budget slices
    // (an acyclic one runs unsliced when the whole thread fits the budget).
    let (dir, case) = variant("loop_data_dependent/tgllp-simd16");
    let mut launch = gpu::build(&dir, &case, 1_000_000).unwrap();
    launch.mapping = gpu::Mapping::Threads;
    let need = launch.module.max_block_cost;
    let e = gpu::execute_with_budget(&mut ctx, &launch, Some(need as u32 - 1))
        .err()
        .expect("a budget below one block must be refused");
    assert!(e.contains(&need.to_string()), "{e}");
}

/// With the driver's own budget a thread-mapping launch first runs in one pass with
/// the thread-saving code compiled out (`translate::unsliced`); where the driver's
/// loop limiter cuts a thread short there (the probe sees it), the launch runs again
/// in passes. mandelbrot with 400 iterations in the set: far more loop iterations
/// per thread than lavapipe's limiter allows one invocation.
#[test]
fn a_one_pass_try_the_driver_cuts_short_runs_again_in_passes() {
    let mut ctx = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    let (cpu, launch) = mandelbrot_in_the_set();
    assert!(visa_emu::translate::unsliced(&launch.module.wgsl).is_some());
    let g = gpu::execute(&mut ctx, &launch).unwrap();
    if gpu::pass_budget(&ctx).is_some() {
        assert!(g.passes > 1, "only {} pass(es)", g.passes);
    }
    assert_same_run("mandelbrot, 400 iterations", &cpu, &g);
}

/// A pass budget the driver's limiter does not honour (the estimate too low, as
/// llvmpipe's lowering of long_arith's 64-bit division made it): the probe sees the
/// cut, and the launch runs again from its inputs in passes of half the budget until
/// they fit. Here the budget is four times llvmpipe's cap of 65,535 loop iterations
/// per invocation, on mandelbrot with 400 iterations in the set (halved twice).
#[test]
fn passes_the_driver_cuts_short_run_again_in_smaller_passes() {
    let mut ctx = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    let (cpu, launch) = mandelbrot_in_the_set();
    let g = gpu::execute_with_budget(&mut ctx, &launch, Some(4 * 65_535)).unwrap();
    if ctx.adapter().name.contains("llvmpipe") {
        let note = g.note.clone().unwrap_or_default();
        assert!(note.contains("ran in passes of"), "{note:?}");
    }
    assert_same_run("mandelbrot, 400 iterations, halved passes", &cpu, &g);
}

/// The group's SLM in the heap (where it is over the adapter's workgroup memory:
/// NVIDIA 48 KiB, lavapipe 32 KiB) gives the interpreter's bytes, in every mapping:
/// barriers and tree reductions, tiles, the straight form's meetings, and SLM 64-bit
/// atomics under their locks (which live past the SLM words, in the heap too).
#[test]
fn slm_in_the_heap_agrees_with_the_cpu() {
    let mut ctx = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    for name in [
        "slm_reduce/tgllp-simd16",
        "matmul_tiled16/tgllp-simd16",
        "dot_product_reduce/tgllp-simd32",
        "slm_prefix_scan/acm-g10-simd32",
    ] {
        let (dir, case) = variant(name);
        let cpu = visa_emu::backend::cpu::run_case(&dir, &case, &Default::default()).unwrap();
        // The thread mapping's modules take lavapipe seconds each to compile: one.
        let threads = name.starts_with("slm_reduce");
        let mappings = if threads {
            vec![gpu::Mapping::Threads, gpu::Mapping::Auto]
        } else {
            vec![gpu::Mapping::Auto]
        };
        for mapping in mappings {
            let mut launch = gpu::build(&dir, &case, 50_000_000).unwrap();
            if mapping == gpu::Mapping::Threads {
                launch.mapping = mapping;
            }
            assert!(
                launch.force_slm_into_heap().unwrap(),
                "{name}: no SLM moved"
            );
            let g = gpu::execute(&mut ctx, &launch)
                .unwrap_or_else(|e| panic!("{name} ({mapping:?}): {e}"));
            assert_same_run(&format!("{name} ({mapping:?}, SLM in the heap)"), &cpu, &g);
        }
    }
}
