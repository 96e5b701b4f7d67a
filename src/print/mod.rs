//! IR -> `.visaasm` text (being built).

use crate::ir::Program;

/// Placeholder until the printer lands (the `text` branch replaces this file).
pub fn print_program(_p: &Program) -> String {
    String::from("// printer not built yet\n")
}
