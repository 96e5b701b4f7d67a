//! Localizing the first instruction whose results differ (`visa-emu validate`): the
//! bisection over "every thread stopped after k instructions" (`backend::localize`),
//! on two interpreter runs of kernels that differ in one instruction, and the GPU
//! path's probes against the interpreter's on the adapter.

mod common;

use std::path::{Path, PathBuf};
use visa_emu::backend::{gpu, localize};
use visa_emu::corpus::case::Case;
use visa_emu_host::{GpuContext, GpuOptions};

fn corpus(v: &str) -> PathBuf {
    visa_emu::corpus::paths::default_corpus_dir().join(v)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn bisection_finds_the_one_changed_instruction() {
    let dir = corpus("saxpy/tgllp-simd16");
    let case = Case::load(dir.parent().unwrap()).unwrap();
    // The same variant with the shift of the address computation changed.
    let tmp = std::env::temp_dir().join(format!("visa-emu-localize-{}", std::process::id()));
    let changed = tmp.join("tgllp-simd16");
    copy_dir(&dir, &changed);
    let text = std::fs::read_to_string(dir.join("kernel.visaasm")).unwrap();
    let edited = text.replacen("V0048(0,0)<1;1,0> 0x2:d", "V0048(0,0)<1;1,0> 0x3:d", 1);
    assert_ne!(text, edited);
    std::fs::write(changed.join("kernel.visaasm"), edited).unwrap();

    let mut reference = |k: u64| localize::cpu_states(&dir, &case, k).map(|x| x.0);
    let mut other = |k: u64| localize::cpu_states(&changed, &case, k).map(|x| x.0);
    let program = visa_emu::cli::load_file(&dir.join("kernel.visaasm"), 32).unwrap();
    let p = visa_emu::interp::prepare(&program, &case.kernel).unwrap();
    let part = localize::bisect(&mut reference, &mut other, p.layout.total as usize).unwrap();
    let (at, last) = localize::cpu_states(&dir, &case, part.step).unwrap();
    let (other_at, _) = localize::cpu_states(&changed, &case, part.step).unwrap();
    let l = localize::describe(&p, &part, &at, &last, &other_at);
    assert!(l.text.starts_with("shl"), "{l:?}");
    assert_eq!(l.thread, 0, "{l:?}");
    assert!(
        l.variable.as_deref().unwrap_or("").starts_with("V0051"),
        "{l:?}"
    );
    assert_ne!(l.reference, l.gpu);
    // One step earlier every thread agrees.
    let (a, _) = localize::cpu_states(&dir, &case, part.step - 1).unwrap();
    let (b, _) = localize::cpu_states(&changed, &case, part.step - 1).unwrap();
    assert_eq!(a, b);
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The GPU path's probes of `launch` after each of `steps` instructions stop the
/// threads the interpreter's stop, with the same GRF bytes; the interpreter's states.
fn probes_agree(
    ctx: &mut GpuContext,
    dir: &Path,
    case: &Case,
    launch: &gpu::GpuLaunch,
    steps: &[u64],
) -> Vec<localize::States> {
    let program = visa_emu::cli::load_file(&dir.join("kernel.visaasm"), 32).unwrap();
    let p = visa_emu::interp::prepare(&program, &case.kernel).unwrap();
    let len = p.layout.total as usize;
    let mut out = Vec::new();
    for &k in steps {
        let (cpu, _) = localize::cpu_states(dir, case, k).unwrap();
        let gpu: localize::States = gpu::probe(ctx, launch, k as u32)
            .unwrap()
            .into_iter()
            .map(|s| (s.thread, s.grf))
            .collect();
        assert_eq!(
            cpu.keys().collect::<Vec<_>>(),
            gpu.keys().collect::<Vec<_>>(),
            "threads stopped after {k}"
        );
        for (t, g) in &cpu {
            assert_eq!(
                &g[..len],
                &gpu[t][..len],
                "thread {t} after {k} instructions"
            );
        }
        out.push(cpu);
    }
    out
}

#[test]
fn gpu_probes_stop_where_the_interpreter_stops() {
    let dir = corpus("saxpy/tgllp-simd16");
    let case = Case::load(dir.parent().unwrap()).unwrap();
    let mut ctx = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    let launch = gpu::build_probe(&dir, &case).unwrap();
    probes_agree(&mut ctx, &dir, &case, &launch, &[1, 6, 13, 19, 40]);
    // On a variant where both agree, localization finds nothing to blame.
    let e = localize::localize(&mut ctx, &dir, &case).unwrap_err();
    assert_eq!(e, localize::NO_REGISTER_DIFFERENCE);
}

/// A non-uniform NDRange (ndrange_3d_ids over 11 x 5 x 3 items in 4 x 3 x 2 groups: 8
/// pieces) is probed piece by piece, each from the memory the stopped piece before
/// left: the GPU path's stopped threads are the interpreter's, numbered alike across
/// the pieces, and localization runs over them (and finds nothing to blame).
#[test]
fn gpu_probes_of_a_non_uniform_ndrange_stop_where_the_interpreter_stops() {
    let (dir, case) = common::uneven_3d_case();
    let mut ctx = GpuContext::new(&GpuOptions::default()).expect("a GPU adapter (lavapipe in CI)");
    let launch = gpu::build_probe(&dir, &case).unwrap();
    assert_eq!(launch.pieces(), 8);
    let stopped = probes_agree(&mut ctx, &dir, &case, &launch, &[1, 9, 30]);
    // Groups past the first piece's 2 x 1 x 1 box stopped too.
    assert!(stopped.iter().any(|s| s.keys().any(|&t| t >= 2)));
    let e = localize::localize(&mut ctx, &dir, &case).unwrap_err();
    assert_eq!(e, localize::NO_REGISTER_DIFFERENCE);
}
