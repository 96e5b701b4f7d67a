//! The `visa-emu` command line.

fn main() {
    eprintln!("visa-emu: CLI is being built");
    std::process::exit(2);
}
