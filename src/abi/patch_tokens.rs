//! ocloc's `.bin`: an ELF whose device-binary section holds IGC's patch-token program
//! (ICBE 1081). The public entry points: [`find_kernel`] (one kernel's [`KernelAbi`]) and
//! [`kernel_names`]. Token ids and the `DATA_PARAMETER_BUFFER` types are those of IGC's
//! `patch_list.h` for ICBE 1081.

use super::bytes::Bytes;
use super::error::{AbiError, BinProblem, LaunchProblem};
use super::program::{parse, Token};
use super::{KernelAbi, PointerPatch, ProgramInfo, ProgramSurface, ProgramToken, SurfaceKind};

pub(crate) const SAMPLER_STATE_ARRAY: u32 = 5;
pub(crate) const BINDING_TABLE_STATE: u32 = 8;
pub(crate) const IMAGE_MEMORY_OBJECT_KERNEL_ARGUMENT: u32 = 12;
pub(crate) const ALLOCATE_LOCAL_SURFACE: u32 = 15;
pub(crate) const SAMPLER_KERNEL_ARGUMENT: u32 = 16;
pub(crate) const DATA_PARAMETER_BUFFER: u32 = 17;
pub(crate) const MEDIA_VFE_STATE: u32 = 18;
pub(crate) const THREAD_PAYLOAD: u32 = 22;
pub(crate) const EXECUTION_ENVIRONMENT: u32 = 23;
pub(crate) const DATA_PARAMETER_STREAM: u32 = 25;
pub(crate) const KERNEL_ARGUMENT_INFO: u32 = 26;
pub(crate) const KERNEL_ATTRIBUTES_INFO: u32 = 27;
pub(crate) const STRING: u32 = 28;
pub(crate) const STATELESS_GLOBAL_MEMORY_OBJECT_KERNEL_ARGUMENT: u32 = 30;
pub(crate) const STATELESS_CONSTANT_MEMORY_OBJECT_KERNEL_ARGUMENT: u32 = 31;
pub(crate) const ALLOCATE_STATELESS_PRINTF_SURFACE: u32 = 33;
pub(crate) const ALLOCATE_STATELESS_PRIVATE_MEMORY: u32 = 38;
pub(crate) const ALLOCATE_GLOBAL_MEMORY_SURFACE_PROGRAM_BINARY_INFO: u32 = 41;
pub(crate) const ALLOCATE_CONSTANT_MEMORY_SURFACE_PROGRAM_BINARY_INFO: u32 = 42;
pub(crate) const ALLOCATE_STATELESS_GLOBAL_MEMORY_SURFACE_WITH_INITIALIZATION: u32 = 43;
pub(crate) const ALLOCATE_STATELESS_CONSTANT_MEMORY_SURFACE_WITH_INITIALIZATION: u32 = 44;
pub(crate) const GLOBAL_POINTER_PROGRAM_BINARY_INFO: u32 = 47;
pub(crate) const CONSTANT_POINTER_PROGRAM_BINARY_INFO: u32 = 48;
pub(crate) const MEDIA_VFE_STATE_SLOT1: u32 = 55;

/// `DATA_PARAMETER_BUFFER` types (`DATA_PARAMETER_TOKEN`).
pub(crate) mod dp {
    pub const KERNEL_ARGUMENT: u32 = 1;
    pub const LOCAL_WORK_SIZE: u32 = 2;
    pub const GLOBAL_WORK_SIZE: u32 = 3;
    pub const NUM_WORK_GROUPS: u32 = 4;
    pub const WORK_DIMENSIONS: u32 = 5;
    pub const IMAGE_WIDTH: u32 = 9;
    pub const IMAGE_HEIGHT: u32 = 10;
    pub const IMAGE_DEPTH: u32 = 11;
    pub const IMAGE_CHANNEL_DATA_TYPE: u32 = 12;
    pub const IMAGE_CHANNEL_ORDER: u32 = 13;
    pub const IMAGE_ARRAY_SIZE: u32 = 18;
    pub const SAMPLER_COORDINATE_SNAP_WA_REQUIRED: u32 = 21;
    pub const SUM_OF_LOCAL_MEMORY_OBJECT_ARGUMENT_SIZES: u32 = 8;
    pub const GLOBAL_WORK_OFFSET: u32 = 16;
    pub const ENQUEUED_LOCAL_WORK_SIZE: u32 = 28;
    pub const PREFERRED_WORKGROUP_MULTIPLE: u32 = 30;
    pub const SIMD_SIZE: u32 = 34;
    pub const BUFFER_OFFSET: u32 = 42;
    pub const BUFFER_STATEFUL: u32 = 43;
}

/// The patch token's name, for messages.
pub fn token_name(id: u32) -> &'static str {
    match id {
        SAMPLER_STATE_ARRAY => "SAMPLER_STATE_ARRAY",
        BINDING_TABLE_STATE => "BINDING_TABLE_STATE",
        IMAGE_MEMORY_OBJECT_KERNEL_ARGUMENT => "IMAGE_MEMORY_OBJECT_KERNEL_ARGUMENT",
        ALLOCATE_LOCAL_SURFACE => "ALLOCATE_LOCAL_SURFACE",
        SAMPLER_KERNEL_ARGUMENT => "SAMPLER_KERNEL_ARGUMENT",
        DATA_PARAMETER_BUFFER => "DATA_PARAMETER_BUFFER",
        MEDIA_VFE_STATE => "MEDIA_VFE_STATE",
        19 => "MEDIA_INTERFACE_DESCRIPTOR_LOAD",
        21 => "INTERFACE_DESCRIPTOR_DATA",
        THREAD_PAYLOAD => "THREAD_PAYLOAD",
        EXECUTION_ENVIRONMENT => "EXECUTION_ENVIRONMENT",
        DATA_PARAMETER_STREAM => "DATA_PARAMETER_STREAM",
        KERNEL_ARGUMENT_INFO => "KERNEL_ARGUMENT_INFO",
        KERNEL_ATTRIBUTES_INFO => "KERNEL_ATTRIBUTES_INFO",
        STRING => "STRING",
        ALLOCATE_STATELESS_PRINTF_SURFACE => "ALLOCATE_STATELESS_PRINTF_SURFACE",
        STATELESS_GLOBAL_MEMORY_OBJECT_KERNEL_ARGUMENT => {
            "STATELESS_GLOBAL_MEMORY_OBJECT_KERNEL_ARGUMENT"
        }
        STATELESS_CONSTANT_MEMORY_OBJECT_KERNEL_ARGUMENT => {
            "STATELESS_CONSTANT_MEMORY_OBJECT_KERNEL_ARGUMENT"
        }
        ALLOCATE_STATELESS_PRIVATE_MEMORY => "ALLOCATE_STATELESS_PRIVATE_MEMORY",
        ALLOCATE_GLOBAL_MEMORY_SURFACE_PROGRAM_BINARY_INFO => {
            "ALLOCATE_GLOBAL_MEMORY_SURFACE_PROGRAM_BINARY_INFO"
        }
        ALLOCATE_CONSTANT_MEMORY_SURFACE_PROGRAM_BINARY_INFO => {
            "ALLOCATE_CONSTANT_MEMORY_SURFACE_PROGRAM_BINARY_INFO"
        }
        ALLOCATE_STATELESS_GLOBAL_MEMORY_SURFACE_WITH_INITIALIZATION => {
            "ALLOCATE_STATELESS_GLOBAL_MEMORY_SURFACE_WITH_INITIALIZATION"
        }
        ALLOCATE_STATELESS_CONSTANT_MEMORY_SURFACE_WITH_INITIALIZATION => {
            "ALLOCATE_STATELESS_CONSTANT_MEMORY_SURFACE_WITH_INITIALIZATION"
        }
        GLOBAL_POINTER_PROGRAM_BINARY_INFO => "GLOBAL_POINTER_PROGRAM_BINARY_INFO",
        CONSTANT_POINTER_PROGRAM_BINARY_INFO => "CONSTANT_POINTER_PROGRAM_BINARY_INFO",
        MEDIA_VFE_STATE_SLOT1 => "MEDIA_VFE_STATE_SLOT1",
        _ => "an unknown token",
    }
}

/// The ABI of the kernel called `name` in `bin` (an ocloc `.bin` or a bare patch-token
/// program). `grf_bytes` is the platform's GRF size (32; 64 on Xe-HPC): it fixes where
/// the per-thread local ids and the cross-thread data sit in the payload.
pub fn find_kernel(bin: &[u8], name: &str, grf_bytes: u32) -> Result<KernelAbi, AbiError> {
    let program = parse(bin)?;
    let info = program_info(&program.header, &program.tokens)?;
    match program.kernels.iter().find(|k| k.name == name) {
        Some(k) => super::kernel::kernel_abi(k, grf_bytes, info),
        None => Err(AbiError::Launch(LaunchProblem::NoKernel {
            name: name.to_string(),
            known: program
                .kernels
                .iter()
                .map(|k| k.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })),
    }
}

/// GRF bytes of a GFXCORE family as the program header names it: Xe-HPC (3080) and
/// later have 64-byte GRFs; Gen9 (12), Gen12LP (18) and Xe-HPG (3079) 32-byte ones.
pub fn grf_bytes_of_family(family: u32) -> u32 {
    if family >= 3080 {
        64
    } else {
        32
    }
}

/// The GRF size of the device `bin` was compiled for (from its program header).
pub fn grf_bytes_of_bin(bin: &[u8]) -> Result<u32, AbiError> {
    Ok(grf_bytes_of_family(parse(bin)?.header.device))
}

/// Same as [`find_kernel`] (the name the fuzz target and older callers use).
pub fn decode_bin(bin: &[u8], kernel: &str, grf_bytes: u32) -> Result<KernelAbi, AbiError> {
    find_kernel(bin, kernel, grf_bytes)
}

/// The names of the kernels in `bin`, in file order.
pub fn kernel_names(bin: &[u8]) -> Result<Vec<String>, AbiError> {
    Ok(family_and_kernels(bin)?.1)
}

/// The program's GFXCORE family (the header's device field) and its kernels' names.
pub fn family_and_kernels(bin: &[u8]) -> Result<(u32, Vec<String>), AbiError> {
    let p = parse(bin)?;
    Ok((
        p.header.device,
        p.kernels.into_iter().map(|k| k.name).collect(),
    ))
}

fn surface_kind(buffer_type: u32, at: usize) -> Result<SurfaceKind, AbiError> {
    match buffer_type {
        0 => Ok(SurfaceKind::Global),
        1 => Ok(SurfaceKind::Constant),
        v => Err(AbiError::bin(
            at,
            BinProblem::OutOfRange {
                what: "program-scope buffer type",
                value: v as u64,
                max: 1,
            },
        )),
    }
}

/// Program-scope surfaces (their bytes) and the pointers stored in them.
fn program_info(
    header: &super::program::ProgramHeader,
    tokens: &[Token<'_>],
) -> Result<ProgramInfo, AbiError> {
    let mut info = ProgramInfo {
        icbe_version: Some(header.version),
        device: Some(header.device),
        gpu_pointer_size: Some(header.pointer_size),
        ..ProgramInfo::default()
    };
    for t in tokens {
        // (kind, index, size, where the data starts in the body)
        let (kind, index, size, data_at) = match t.id {
            ALLOCATE_CONSTANT_MEMORY_SURFACE_PROGRAM_BINARY_INFO => {
                (SurfaceKind::Constant, t.word(0)?, t.word(1)?, 8)
            }
            ALLOCATE_GLOBAL_MEMORY_SURFACE_PROGRAM_BINARY_INFO => {
                (SurfaceKind::Global, t.word(1)?, t.word(2)?, 12)
            }
            GLOBAL_POINTER_PROGRAM_BINARY_INFO | CONSTANT_POINTER_PROGRAM_BINARY_INFO => {
                info.pointer_patches.push(pointer_patch(t)?);
                continue;
            }
            _ => continue,
        };
        let data = token_tail(t, data_at, size as usize)?;
        info.program_patch_tokens.push(ProgramToken {
            name: token_name(t.id).to_string(),
            token: Some(t.id),
            buffer_index: Some(index),
            inline_data_size: Some(size),
            inline_data_file: None,
        });
        info.surfaces.push(ProgramSurface {
            kind,
            index,
            bytes: data.data.to_vec(),
        });
    }
    Ok(info)
}

fn token_tail<'a>(t: &Token<'a>, at: usize, len: usize) -> Result<Bytes<'a>, AbiError> {
    t.body.slice(at, len, "a token's inline data")
}

fn pointer_patch(t: &Token<'_>) -> Result<PointerPatch, AbiError> {
    let kind = if t.id == GLOBAL_POINTER_PROGRAM_BINARY_INFO {
        SurfaceKind::Global
    } else {
        SurfaceKind::Constant
    };
    let offset = t.body.u64(4, "a program-scope pointer offset")?;
    let offset = u32::try_from(offset).map_err(|_| {
        AbiError::bin(
            t.at,
            BinProblem::OutOfRange {
                what: "program-scope pointer offset",
                value: offset,
                max: u32::MAX as u64,
            },
        )
    })?;
    Ok(PointerPatch {
        kind,
        index: t.word(0)?,
        offset,
        target_kind: surface_kind(t.body.u32(12, "a pointer's buffer type")?, t.at)?,
        target_index: t.body.u32(16, "a pointer's buffer index")?,
    })
}
