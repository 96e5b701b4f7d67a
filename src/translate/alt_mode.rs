//! ALT floating-point mode (2_datatypes: %cr0 bit 0; infinite F results become the
//! largest finite ones, LOG, RSQ and SQRT take |src|) is run by the interpreter only.
//! The GPU path refuses a kernel that could set the bit, before any code is generated,
//! so that no run gives IEEE results where the kernel asked for ALT ones. IGC's output
//! only ORs and XORs %cr0 with immediates (denorm and rounding bits), which passes.

use super::operand::dst_range;
use super::simt::cr0_write;
use super::TranslateError;
use crate::interp::prepare::Prepared;

/// `Err` naming the first instruction that may set %cr0's ALT bit: one that writes
/// %cr0's first byte unless, from any value with the bit clear, it leaves it clear.
pub(super) fn refuse_alt_mode(p: &Prepared) -> Result<(), TranslateError> {
    let cr0 = p.pre.cr0;
    for inst in &p.insts {
        let (dsts, _, _) = inst.alu_operands();
        let n = u32::from(inst.exec.size);
        let writes_bit0 = dsts
            .iter()
            .filter_map(|d| dst_range(d, n))
            .any(|(start, end)| start <= cr0 && cr0 < end);
        if !writes_bit0 {
            continue;
        }
        let keeps_clear = [0u32, 0xffff_fffe]
            .iter()
            .all(|&cur| cr0_write(inst, cr0, cur).is_some_and(|v| v & 1 == 0));
        if !keeps_clear {
            return Err(TranslateError::Unsupported {
                index: inst.index,
                op: inst.op.spec_name(),
                what: "may set %cr0's ALT floating-point mode bit (bit 0), which the \
                       GPU path does not emulate (the interpreter does: --backend cpu)"
                    .to_string(),
            });
        }
    }
    Ok(())
}
