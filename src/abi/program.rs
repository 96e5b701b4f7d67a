//! The patch-token program (ICBE): program header, program-scope patch list, then per
//! kernel a header, its name, four heaps (kernel, general state, dynamic state, surface
//! state) and its patch list. Every patch token starts with `{u32 token, u32 size}`.

use super::bytes::{size, Bytes};
use super::elf::{device_binary, PROGRAM_MAGIC};
use super::error::{AbiError, BinProblem};
use super::patch_tokens::{
    token_name, ALLOCATE_CONSTANT_MEMORY_SURFACE_PROGRAM_BINARY_INFO,
    ALLOCATE_GLOBAL_MEMORY_SURFACE_PROGRAM_BINARY_INFO,
};

/// The only ICBE version whose layouts this decoder knows.
pub(crate) const ICBE_VERSION: u32 = 1081;
const PROGRAM_HEADER_BYTES: usize = 28;
const KERNEL_HEADER_BYTES: usize = 40;

/// One patch token: its id, its bytes after the 8-byte header, and where it starts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token<'a> {
    pub id: u32,
    pub body: Bytes<'a>,
    pub at: usize,
}

impl Token<'_> {
    /// The `i`-th `u32` after the token header.
    pub fn word(&self, i: usize) -> Result<u32, AbiError> {
        self.body.u32(4 * i, "a patch-token field").map_err(|_| {
            AbiError::bin(
                self.at,
                BinProblem::TokenTooShort {
                    token: self.id,
                    name: token_name(self.id),
                    size: self.body.len() + 8,
                    expected: 8 + 4 * (i + 1),
                },
            )
        })
    }
}

pub(crate) struct ProgramHeader {
    pub version: u32,
    pub device: u32,
    pub pointer_size: u32,
}

pub(crate) struct KernelEntry<'a> {
    pub name: String,
    pub tokens: Vec<Token<'a>>,
    /// The surface state heap: binding table and surface states.
    pub ssh: Bytes<'a>,
    /// The dynamic state heap: sampler states and border colors.
    pub dsh: Bytes<'a>,
    pub kernel_heap_size: u32,
}

pub(crate) struct Program<'a> {
    pub header: ProgramHeader,
    pub tokens: Vec<Token<'a>>,
    pub kernels: Vec<KernelEntry<'a>>,
}

/// Parse the program inside `file` (an ocloc ELF or a bare program).
pub(crate) fn parse(file: &[u8]) -> Result<Program<'_>, AbiError> {
    let p = device_binary(file)?;
    let magic = p.u32(0, "the program magic")?;
    if magic != PROGRAM_MAGIC {
        return Err(AbiError::bin(p.base, BinProblem::BadMagic { found: magic }));
    }
    let version = p.u32(4, "the ICBE version")?;
    if version != ICBE_VERSION {
        return Err(AbiError::bin(
            p.file_offset(4),
            BinProblem::Version { found: version },
        ));
    }
    let header = ProgramHeader {
        version,
        device: p.u32(8, "the device family")?,
        pointer_size: p.u32(12, "the GPU pointer size")?,
    };
    let n_kernels = p.u32(16, "the kernel count")?;
    let list_size = size(p.u32(24, "the program patch-list size")? as u64);
    let list = p.slice(PROGRAM_HEADER_BYTES, list_size, "the program patch list")?;
    let tokens = token_list(list)?;
    let mut o = PROGRAM_HEADER_BYTES + list_size;
    // Not preallocated: the count is untrusted; each kernel consumes at least its header.
    let mut kernels = Vec::new();
    for _ in 0..n_kernels {
        let (k, end) = kernel(p, o)?;
        kernels.push(k);
        o = end;
    }
    Ok(Program {
        header,
        tokens,
        kernels,
    })
}

/// The kernel whose header starts at `h`; returns it and where the next one starts.
fn kernel(p: Bytes<'_>, h: usize) -> Result<(KernelEntry<'_>, usize), AbiError> {
    let hdr = p.slice(h, KERNEL_HEADER_BYTES, "a kernel header")?;
    let name_size = size(hdr.u32(12, "KernelNameSize")? as u64);
    let list_size = size(hdr.u32(16, "PatchListSize")? as u64);
    let kernel_heap_size = hdr.u32(20, "KernelHeapSize")?;
    let mut heaps = [0usize; 4];
    for (i, h) in heaps.iter_mut().enumerate() {
        *h = size(hdr.u32(20 + 4 * i, "a heap size")? as u64);
    }
    let name_at = h + KERNEL_HEADER_BYTES;
    let raw = p.slice(name_at, name_size, "the kernel name")?;
    let name = String::from_utf8_lossy(raw.data)
        .trim_end_matches('\0')
        .to_string();
    let past = |what| {
        AbiError::bin(
            hdr.base,
            BinProblem::KernelPastEnd {
                kernel: name.clone(),
                what,
            },
        )
    };
    let ssh_at = [name_size, heaps[0], heaps[1], heaps[2]]
        .iter()
        .try_fold(name_at, |a, n| a.checked_add(*n))
        .ok_or_else(|| past("its heaps"))?;
    let ssh = p
        .slice(ssh_at, heaps[3], "the surface state heap")
        .map_err(|_| past("its surface state heap"))?;
    let dsh = p
        .slice(ssh_at - heaps[2], heaps[2], "the dynamic state heap")
        .map_err(|_| past("its dynamic state heap"))?;
    let list_at = ssh_at + heaps[3];
    let list = p
        .slice(list_at, list_size, "the kernel patch list")
        .map_err(|_| past("its patch list"))?;
    let tokens = token_list(list)?;
    Ok((
        KernelEntry {
            name,
            tokens,
            ssh,
            dsh,
            kernel_heap_size,
        },
        list_at + list_size,
    ))
}

/// Split a patch list into tokens.
fn token_list(list: Bytes<'_>) -> Result<Vec<Token<'_>>, AbiError> {
    let mut out = Vec::new();
    let mut p = 0;
    while p + 8 <= list.len() {
        let id = list.u32(p, "a patch-token id")?;
        let mut total = list.u32(p + 4, "a patch-token size")? as u64;
        // The program-scope data tokens are followed by their inline data, which their
        // `Size` does not count; InlineDataSize is their last field.
        let inline_size_at = match id {
            ALLOCATE_CONSTANT_MEMORY_SURFACE_PROGRAM_BINARY_INFO => Some(12),
            ALLOCATE_GLOBAL_MEMORY_SURFACE_PROGRAM_BINARY_INFO => Some(16),
            _ => None,
        };
        if let Some(f) = inline_size_at {
            total += list.u32(p + f, "the inline data size")? as u64;
        }
        let left = list.len() - p;
        if total < 8 || total > left as u64 {
            return Err(AbiError::bin(
                list.file_offset(p),
                BinProblem::TokenSize {
                    token: id,
                    size: total,
                    left,
                },
            ));
        }
        let total = total as usize;
        out.push(Token {
            id,
            body: list.slice(p + 8, total - 8, "a patch-token body")?,
            at: list.file_offset(p),
        });
        p += total;
    }
    Ok(out)
}
