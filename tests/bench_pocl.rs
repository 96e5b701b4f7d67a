//! The PoCL column of `visa-emu bench`: the case's OpenCL source built and timed by
//! PoCL through `tools/pocl_bench.py`. Needs pyopencl and PoCL (`.ci/run` installs
//! them and sets VISA_REQUIRE_POCL=1, so CI fails rather than skips without them).

use visa_emu::cli::bench_pocl;

#[test]
fn pocl_times_the_same_opencl_source() {
    let (py, device) = match bench_pocl::probe() {
        Ok(x) => x,
        Err(why) if std::env::var_os("VISA_REQUIRE_POCL").is_none() => {
            eprintln!("PoCL not available here ({why}); set VISA_REQUIRE_POCL=1 to require it");
            return;
        }
        Err(why) => panic!("PoCL required: {why}"),
    };
    assert!(!device.is_empty());
    let case_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/saxpy");
    let mut case = visa_emu::corpus::case::Case::load(&case_dir).unwrap();
    let tmp = std::env::temp_dir().join(format!("visa-emu-pocl-test-{}", std::process::id()));
    let small = bench_pocl::bench_pocl(&py, &case_dir, &case, 3, &tmp).unwrap();
    assert!(small.run_ms > 0.0 && small.build_ms > 0.0, "{small:?}");
    // A kernel argument PoCL rejects is an error naming the run, not a number.
    case.args.retain(|a| a.name != "n");
    let err = bench_pocl::bench_pocl(&py, &case_dir, &case, 1, &tmp).unwrap_err();
    assert!(err.contains("PoCL run failed"), "{err}");
    let _ = std::fs::remove_dir_all(&tmp);
}
