//! ALT floating-point mode (2_datatypes: %cr0 bit 0): F results of the arithmetic and
//! math instructions that would be infinite become the largest finite values of their
//! sign, LOG, RSQ and SQRT take |src|, and a DF -> F conversion that overflows gives
//! ±fmax (the interpreter's `alu::finish`, `math::function` and `Thread::alu`).
//!
//! %cr0 starts at zero, so only a kernel with an instruction that may set the bit can
//! run in ALT mode; the ALU code of such a kernel tests the bit in `cr` ([`ALT`]) and
//! every other kernel pays nothing. IGC's output only ORs and XORs %cr0 with
//! immediates (denorm and rounding bits), so none of its kernels does.

use super::operand::dst_range;
use super::simt::cr0_write;
use crate::interp::prepare::Prepared;

/// The WGSL test of ALT mode on the instruction's `cr` (%cr0's value).
pub(super) const ALT: &str = "((cr & 1u) != 0u)";

/// The first instruction that may set %cr0's ALT bit: one that writes %cr0's first
/// byte unless, from any value with the bit clear, it leaves it clear.
pub(super) fn first_alt_write(p: &Prepared) -> Option<usize> {
    let cr0 = p.pre.cr0;
    p.insts.iter().position(|inst| {
        let (dsts, _, _) = inst.alu_operands();
        let n = u32::from(inst.exec.size);
        let writes_bit0 = dsts
            .iter()
            .filter_map(|d| dst_range(d, n))
            .any(|(start, end)| start <= cr0 && cr0 < end);
        writes_bit0
            && ![0u32, 0xffff_fffe]
                .iter()
                .all(|&cur| cr0_write(inst, cr0, cur).is_some_and(|v| v & 1 == 0))
    })
}
