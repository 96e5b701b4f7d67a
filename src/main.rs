//! The `visa-emu` command line.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use visa_emu::cli;

#[derive(Parser)]
#[command(
    name = "visa-emu",
    version,
    about = "Run Intel vISA kernels on a CPU reference interpreter or any wgpu GPU"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Summarize a .isa or .visaasm file: kernels, SIMD size, variables, inputs, histogram.
    Info {
        file: PathBuf,
        /// GRF size of the target platform in bytes (64 for PVC).
        #[arg(long, default_value_t = 32)]
        grf_bytes: u32,
    },
    /// Print a .isa or .visaasm file as .visaasm text (IGC syntax).
    Disasm {
        file: PathBuf,
        #[arg(long, default_value_t = 32)]
        grf_bytes: u32,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { file, grf_bytes } => {
            cli::load_file(&file, grf_bytes).map(|p| print!("{}", cli::info::render(&p)))
        }
        Command::Disasm { file, grf_bytes } => cli::load_file(&file, grf_bytes)
            .map(|p| print!("{}", visa_emu::print::print_program(&p))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("visa-emu: {e}");
            ExitCode::FAILURE
        }
    }
}
