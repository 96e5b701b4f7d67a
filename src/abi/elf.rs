//! The ELF container that `ocloc` writes: find the section that holds the patch-token
//! program. Only the section headers are read (ELF64, little-endian, as ocloc writes).

use super::bytes::{size, Bytes};
use super::error::{AbiError, BinProblem};

/// `SHT_OPENCL_DEV_BINARY`: the "Intel(R) OpenCL Device Binary" section.
const SHT_OPENCL_DEV_BINARY: u32 = 0xff00_0005;
const ELF_MAGIC: &[u8] = b"\x7fELF";
/// "INTC" as stored little-endian at the start of a patch-token program.
pub(crate) const PROGRAM_MAGIC: u32 = 0x494e_5443;

/// The patch-token program inside `file`: the device-binary section of an ELF, or the
/// whole file if it is already a bare program.
pub(crate) fn device_binary(file: &[u8]) -> Result<Bytes<'_>, AbiError> {
    let all = Bytes::new(file, 0);
    if file.starts_with(ELF_MAGIC) {
        return elf_section(all);
    }
    if file.starts_with(&PROGRAM_MAGIC.to_le_bytes()) {
        return Ok(all);
    }
    Err(AbiError::bin(0, BinProblem::NotAProgram))
}

fn elf_section(elf: Bytes<'_>) -> Result<Bytes<'_>, AbiError> {
    let class = elf.data.get(4).copied().unwrap_or(0);
    let data = elf.data.get(5).copied().unwrap_or(0);
    if class != 2 || data != 1 {
        return Err(AbiError::bin(4, BinProblem::ElfKind { class, data }));
    }
    let shoff = size(elf.u64(0x28, "the section header offset e_shoff")?);
    let shentsize = elf.u16(0x3a, "the section header size e_shentsize")? as usize;
    let shnum = elf.u16(0x3c, "the section count e_shnum")? as usize;
    if shentsize < 0x28 {
        return Err(AbiError::bin(
            0x3a,
            BinProblem::OutOfRange {
                what: "e_shentsize below the ELF64 section header size",
                value: shentsize as u64,
                max: 0x40,
            },
        ));
    }
    for i in 0..shnum {
        let at = shoff.saturating_add(i.saturating_mul(shentsize));
        let sh = elf.slice(at, shentsize, "an ELF section header")?;
        if sh.u32(4, "sh_type")? != SHT_OPENCL_DEV_BINARY {
            continue;
        }
        let off = size(sh.u64(0x18, "sh_offset")?);
        let len = size(sh.u64(0x20, "sh_size")?);
        return elf.slice(off, len, "the device-binary section's bytes");
    }
    Err(AbiError::bin(
        shoff.min(elf.len()),
        BinProblem::NoDeviceBinary,
    ))
}
