//! Run a corpus variant on the CPU reference interpreter and check its outputs.

use crate::abi::{launch, KernelAbi};
use crate::corpus::case::{compare, Case};
use crate::corpus::paths::grf_bytes_of_device;
use crate::interp::{self, RunOptions, RunStats};
use std::path::Path;

/// What one variant run produced.
pub struct VariantRun {
    /// (argument name, final bytes) of every buffer argument.
    pub buffers: Vec<(String, Vec<u8>)>,
    pub stats: RunStats,
    /// The output of the kernel's printf calls, in buffer order (`abi::printf`).
    pub printf: Vec<String>,
}

/// Decode, lay out and run one compiled variant folder on the interpreter.
pub fn run_variant(dir: &Path, opts: &RunOptions) -> Result<(Case, VariantRun), String> {
    let case_dir = dir.parent().ok_or("variant folder has no case folder")?;
    let case = Case::load(case_dir).map_err(|e| e.to_string())?;
    let run = run_case(dir, &case, opts)?;
    Ok((case, run))
}

/// Run a variant folder with the arguments and NDRange of `case` (which the caller may
/// have changed from the case folder's).
pub fn run_case(dir: &Path, case: &Case, opts: &RunOptions) -> Result<VariantRun, String> {
    let device = dir
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let grf = grf_bytes_of_device(&device);
    let abi = KernelAbi::from_bin(dir, &case.kernel, grf).map_err(|e| e.to_string())?;
    let program =
        crate::cli::load_file(&crate::cli::variant_kernel(dir), grf).map_err(|e| e.to_string())?;
    let prepared = interp::prepare(&program, &case.kernel).map_err(|e| e.to_string())?;
    let mut pieces = launch::prepare_pieces(&abi, case, dir).map_err(|e| e.to_string())?;
    let (memory, stats) = run_pieces(&prepared, &mut pieces, opts)?;
    // Every piece names the same allocations: the last one's ids read the result.
    let lp = pieces.pop().ok_or("the NDRange has no pieces")?;
    let buffers = lp
        .buffers
        .iter()
        .map(|(n, id)| (n.clone(), memory.get(*id).to_vec()))
        .collect();
    let printf = lp
        .printf
        .map(|id| crate::abi::printf::decode(memory.get(id), &lp.strings))
        .unwrap_or_default();
    Ok(VariantRun {
        buffers,
        stats,
        printf,
    })
}

/// Run the pieces one after another, each over the memory the one before left (the
/// first piece's memory to start): that memory and the runs' stats together.
pub fn run_pieces(
    prepared: &interp::Prepared,
    pieces: &mut [launch::Prepared],
    opts: &RunOptions,
) -> Result<(interp::Memory, RunStats), String> {
    let first = pieces.first_mut().ok_or("the NDRange has no pieces")?;
    let mut memory = std::mem::take(&mut first.memory);
    let mut stats = RunStats::default();
    for lp in pieces.iter() {
        let s = interp::run(
            prepared,
            &lp.launch,
            &mut memory,
            &|g, t| lp.payload(g, t),
            opts,
        )
        .map_err(|e| e.to_string())?;
        stats.add(s);
    }
    Ok((memory, stats))
}

/// Run and compare every output; `Ok` carries a short summary.
pub fn check_variant(dir: &Path, opts: &RunOptions) -> Result<String, String> {
    let (case, run) = run_variant(dir, opts)?;
    check_outputs(&case, &run.buffers)?;
    check_printf(&case, &run.printf)?;
    Ok(format!("{} instructions", run.stats.instructions))
}

/// Compare every expected output of `case` with the run's buffers (any backend);
/// `Err` names the first mismatching element.
pub fn check_outputs(case: &Case, buffers: &[(String, Vec<u8>)]) -> Result<(), String> {
    for o in &case.outputs {
        let got = buffers
            .iter()
            .find(|(n, _)| *n == o.arg)
            .map(|(_, b)| b.as_slice())
            .ok_or_else(|| format!("output {} is not a buffer argument", o.arg))?;
        let want = case.expected(o).map_err(|e| e.to_string())?;
        compare(&o.dtype, &o.tolerance, got, &want).map_err(|m| {
            format!(
                "output {} element {}: got {} expected {} ({} tolerance)",
                o.arg, m.index, m.got, m.expected, o.tolerance.kind
            )
        })?;
    }
    Ok(())
}

/// Compare the kernel's printf output with the case's `expected/printf.txt`, when it
/// has one, as sorted lines: work-items reach the buffer's atomic offset in an order
/// no backend fixes (an OpenCL runtime prints it as it comes).
pub fn check_printf(case: &Case, printf: &[String]) -> Result<(), String> {
    let path = case.dir.join("expected/printf.txt");
    let Ok(want) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let mut got: Vec<&str> = printf.iter().flat_map(|r| r.lines()).collect();
    let mut want: Vec<&str> = want.lines().collect();
    got.sort_unstable();
    want.sort_unstable();
    if let Some(i) = (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i)) {
        return Err(format!(
            "printf output ({} lines, {} expected), sorted line {i}: got {:?} expected {:?}",
            got.len(),
            want.len(),
            got.get(i).copied().unwrap_or("(none)"),
            want.get(i).copied().unwrap_or("(none)")
        ));
    }
    Ok(())
}
