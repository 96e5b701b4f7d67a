//! ocloc's `.bin`: an ELF whose device-binary section holds IGC's patch-token program
//! (ICBE). This reads the program header, each kernel's header, heaps and patch list,
//! and builds the same [`KernelAbi`] that `abi.json` describes.
//!
//! Token ids and payload fields (all little-endian u32 after an 8-byte `{token, size}`
//! header) as ICBE 1081 writes them; the `DATA_PARAMETER_BUFFER` types were matched
//! against the corpus' decoded ABI on every variant (tests/abi.rs).

use super::*;

const MAGIC: u32 = 0x494e_5443; // "INTC"

const BINDING_TABLE_STATE: u32 = 8;
const ALLOCATE_LOCAL_SURFACE: u32 = 15;
const DATA_PARAMETER_BUFFER: u32 = 17;
const MEDIA_VFE_STATE: u32 = 18;
const EXECUTION_ENVIRONMENT: u32 = 23;
const STATELESS_GLOBAL_MEMORY_OBJECT: u32 = 30;
const STATELESS_CONSTANT_MEMORY_OBJECT: u32 = 31;
const ALLOCATE_STATELESS_PRIVATE_MEMORY: u32 = 38;
const ALLOCATE_CONSTANT_MEMORY_SURFACE_PROGRAM_BINARY_INFO: u32 = 42;
const ALLOCATE_STATELESS_CONSTANT_MEMORY_SURFACE_WITH_INITIALIZATION: u32 = 44;
const ALLOCATE_STATELESS_GLOBAL_MEMORY_SURFACE_WITH_INITIALIZATION: u32 = 45;
const ALLOCATE_GLOBAL_MEMORY_SURFACE_PROGRAM_BINARY_INFO: u32 = 41;

/// DATA_PARAMETER_BUFFER types.
const DP_KERNEL_ARGUMENT: u32 = 1;
const DP_LOCAL_WORK_SIZE: u32 = 2;
const DP_GLOBAL_WORK_SIZE: u32 = 3;
const DP_NUM_WORK_GROUPS: u32 = 4;
const DP_WORK_DIMENSIONS: u32 = 5;
const DP_SUM_OF_LOCAL_MEMORY_OBJECT_ARGUMENT_SIZES: u32 = 8;
const DP_GLOBAL_WORK_OFFSET: u32 = 16;
const DP_ENQUEUED_LOCAL_WORK_SIZE: u32 = 28;
const DP_BUFFER_OFFSET: u32 = 43;

fn bad(offset: usize, msg: impl Into<String>) -> AbiError {
    AbiError::Launch(format!("kernel.bin at byte {offset:#x}: {}", msg.into()))
}

fn u32_at(b: &[u8], o: usize) -> Result<u32, AbiError> {
    b.get(o..o + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or_else(|| bad(o, "expected a 32-bit field, found the end of the data"))
}

/// One patch token: id and its payload words after the 8-byte header.
struct Token<'a> {
    id: u32,
    at: usize,
    body: &'a [u8],
}

impl Token<'_> {
    fn word(&self, i: usize) -> Result<u32, AbiError> {
        u32_at(self.body, 4 * i).map_err(|_| {
            bad(
                self.at,
                format!("token {} is shorter than its field {i}", self.id),
            )
        })
    }
}

fn tokens(list: &[u8], base: usize) -> Result<Vec<Token<'_>>, AbiError> {
    let mut out = Vec::new();
    let mut p = 0;
    while p + 8 <= list.len() {
        let id = u32_at(list, p)?;
        let mut size = u32_at(list, p + 4)? as usize;
        // Program-scope data tokens: `size` covers the struct; the inline data that
        // follows it (InlineDataSize, the struct's last field) belongs to the token too.
        if matches!(
            id,
            ALLOCATE_CONSTANT_MEMORY_SURFACE_PROGRAM_BINARY_INFO
                | ALLOCATE_GLOBAL_MEMORY_SURFACE_PROGRAM_BINARY_INFO
        ) && size == 16
        {
            size += u32_at(list, p + 12)? as usize;
        }
        if size < 8 || p + size > list.len() {
            return Err(bad(
                base + p,
                format!("patch token {id} claims {size} bytes"),
            ));
        }
        out.push(Token {
            id,
            at: base + p,
            body: &list[p + 8..p + size],
        });
        p += size;
    }
    Ok(out)
}

/// Decode the kernel called `kernel` from a `.bin`. `grf_bytes` is the platform's GRF
/// size; it fixes where the per-thread local ids and the cross-thread data sit.
pub fn decode_bin(bin: &[u8], kernel: &str, grf_bytes: u32) -> Result<KernelAbi, AbiError> {
    let start = bin
        .windows(4)
        .position(|w| w == MAGIC.to_le_bytes())
        .ok_or_else(|| bad(0, "no patch-token program (magic 'INTC') in this file"))?;
    let b = &bin[start..];
    let n_kernels = u32_at(b, 16)? as usize;
    let prog_list_size = u32_at(b, 24)? as usize;
    let mut o = 28;
    let prog_list = b
        .get(o..o + prog_list_size)
        .ok_or_else(|| bad(start + o, "program patch list past the end"))?;
    let prog_tokens = tokens(prog_list, start + o)?;
    o += prog_list_size;
    let mut program = ProgramInfo {
        program_patch_tokens: Vec::new(),
    };
    let mut program_data: Vec<(String, u32, Vec<u8>)> = Vec::new();
    for t in &prog_tokens {
        let name = match t.id {
            ALLOCATE_CONSTANT_MEMORY_SURFACE_PROGRAM_BINARY_INFO => {
                "ALLOCATE_CONSTANT_MEMORY_SURFACE_PROGRAM_BINARY_INFO"
            }
            ALLOCATE_GLOBAL_MEMORY_SURFACE_PROGRAM_BINARY_INFO => {
                "ALLOCATE_GLOBAL_MEMORY_SURFACE_PROGRAM_BINARY_INFO"
            }
            _ => continue,
        };
        let index = t.word(0)?;
        let size = t.word(1)? as usize;
        let data = t
            .body
            .get(8..8 + size)
            .ok_or_else(|| bad(t.at, "inline data past the token"))?;
        program.program_patch_tokens.push(ProgramToken {
            name: name.into(),
            buffer_index: Some(index),
            inline_data_file: None,
        });
        program_data.push((name.into(), index, data.to_vec()));
    }
    for _ in 0..n_kernels {
        let h = o;
        let name_size = u32_at(b, h + 12)? as usize;
        let list_size = u32_at(b, h + 16)? as usize;
        let heaps: Vec<usize> = (0..4)
            .map(|i| u32_at(b, h + 20 + 4 * i).map(|v| v as usize))
            .collect::<Result<_, _>>()?;
        let name_at = h + 40;
        let raw_name = b
            .get(name_at..name_at + name_size)
            .ok_or_else(|| bad(start + name_at, "kernel name past the end"))?;
        let name = String::from_utf8_lossy(raw_name)
            .trim_end_matches('\0')
            .to_string();
        let ssh_at = name_at + name_size + heaps[0] + heaps[1] + heaps[2];
        let list_at = ssh_at + heaps[3];
        let end = list_at + list_size;
        if end > b.len() {
            return Err(bad(
                start + h,
                format!("kernel `{name}` runs past the end of the file"),
            ));
        }
        o = end;
        if name != kernel {
            continue;
        }
        let ssh = &b[ssh_at..list_at];
        return kernel_abi(
            &name,
            &tokens(&b[list_at..end], start + list_at)?,
            ssh,
            grf_bytes,
            program,
            &program_data,
        );
    }
    Err(AbiError::Launch(format!(
        "kernel.bin has no kernel named `{kernel}`"
    )))
}

fn kernel_abi(
    name: &str,
    toks: &[Token],
    ssh: &[u8],
    grf_bytes: u32,
    program: ProgramInfo,
    data: &[(String, u32, Vec<u8>)],
) -> Result<KernelAbi, AbiError> {
    let mut simd = 0;
    let mut binding_table: Vec<u32> = Vec::new();
    for t in toks {
        match t.id {
            EXECUTION_ENVIRONMENT => simd = t.word(3)?,
            BINDING_TABLE_STATE => {
                let (off, count) = (t.word(0)? as usize, t.word(1)? as usize);
                for i in 0..count.min(256) {
                    binding_table.push(u32_at(ssh, off + 4 * i)?);
                }
            }
            _ => {}
        }
    }
    if ![8, 16, 32].contains(&simd) {
        return Err(AbiError::Launch(format!(
            "kernel `{name}`: execution environment gives SIMD {simd}"
        )));
    }
    let bti_of = |ssh_offset: u32| {
        binding_table
            .iter()
            .position(|s| *s == ssh_offset)
            .map(|i| i as u32)
    };
    let ids_bytes = 2 * simd;
    let ids_stride = ids_bytes.div_ceil(grf_bytes) * grf_bytes;
    let ctd = grf_bytes + 3 * ids_stride;
    let local_ids = ["x", "y", "z"]
        .iter()
        .enumerate()
        .map(|(i, d)| LocalIds {
            dim: d.to_string(),
            payload_offset: grf_bytes + i as u32 * ids_stride,
            size: ids_bytes,
        })
        .collect();
    let mut args: Vec<Arg> = Vec::new();
    let arg = |args: &mut Vec<Arg>, index: u32| -> usize {
        if let Some(i) = args.iter().position(|a| a.index == index) {
            return i;
        }
        args.push(Arg {
            index,
            name: format!("arg{index}"),
            kind: "unused".into(),
            payload_offset: None,
            size: None,
            type_size: None,
            bti: None,
            stateless_pointer: None,
            buffer_offset: None,
            fragments: None,
            slm_offset_slot: None,
            slm_alignment: None,
        });
        args.len() - 1
    };
    let mut implicit = Vec::new();
    let mut slm_inline = 0;
    let mut scratch = 0;
    let implicit_arg = |kind: &str, dim: Option<u32>, off: u32, size: u32| ImplicitArg {
        kind: kind.into(),
        dim,
        payload_offset: ctd + off,
        size,
        per_thread_private_size: None,
        per_simt_lane: None,
        bti: None,
        buffer_index: None,
    };
    for t in toks {
        match t.id {
            DATA_PARAMETER_BUFFER => {
                let (ty, argn, off, size, src) =
                    (t.word(0)?, t.word(1)?, t.word(2)?, t.word(3)?, t.word(4)?);
                let dim = Some(src / 4);
                match ty {
                    DP_KERNEL_ARGUMENT => {
                        let i = arg(&mut args, argn);
                        let a = &mut args[i];
                        a.kind = "scalar".into();
                        a.fragments.get_or_insert_with(Vec::new).push(Fragment {
                            source_offset: src,
                            payload_offset: ctd + off,
                            size,
                        });
                        a.payload_offset = Some(
                            a.payload_offset
                                .map_or(ctd + off, |p: u32| p.min(ctd + off)),
                        );
                    }
                    DP_BUFFER_OFFSET => {
                        let i = arg(&mut args, argn);
                        args[i].buffer_offset = Some(Slot {
                            payload_offset: ctd + off,
                            size,
                        });
                    }
                    DP_SUM_OF_LOCAL_MEMORY_OBJECT_ARGUMENT_SIZES => {
                        let i = arg(&mut args, argn);
                        let a = &mut args[i];
                        a.kind = "local".into();
                        a.slm_offset_slot = Some(Slot {
                            payload_offset: ctd + off,
                            size,
                        });
                        a.slm_alignment = Some(src.max(1));
                    }
                    DP_LOCAL_WORK_SIZE => {
                        implicit.push(implicit_arg("local_work_size", dim, off, size))
                    }
                    DP_GLOBAL_WORK_SIZE => {
                        implicit.push(implicit_arg("global_work_size", dim, off, size))
                    }
                    DP_NUM_WORK_GROUPS => {
                        implicit.push(implicit_arg("num_work_groups", dim, off, size))
                    }
                    DP_WORK_DIMENSIONS => {
                        implicit.push(implicit_arg("work_dimensions", None, off, size))
                    }
                    DP_GLOBAL_WORK_OFFSET => {
                        implicit.push(implicit_arg("global_work_offset", dim, off, size))
                    }
                    DP_ENQUEUED_LOCAL_WORK_SIZE => {
                        implicit.push(implicit_arg("enqueued_local_work_size", dim, off, size))
                    }
                    _ => {}
                }
            }
            STATELESS_GLOBAL_MEMORY_OBJECT | STATELESS_CONSTANT_MEMORY_OBJECT => {
                let (argn, ssh_off, off, size) = (t.word(0)?, t.word(1)?, t.word(2)?, t.word(3)?);
                let i = arg(&mut args, argn);
                let a = &mut args[i];
                a.kind = "buffer".into();
                a.payload_offset = Some(ctd + off);
                a.size = Some(size);
                a.bti = bti_of(ssh_off);
                a.stateless_pointer = Some(Slot {
                    payload_offset: ctd + off,
                    size,
                });
            }
            ALLOCATE_STATELESS_PRIVATE_MEMORY => {
                let mut ia = implicit_arg("private_base", None, t.word(1)?, t.word(2)?);
                ia.per_thread_private_size = Some(t.word(3)?);
                ia.per_simt_lane = Some(t.word(4).unwrap_or(1) != 0);
                ia.bti = bti_of(t.word(0)?);
                implicit.push(ia);
            }
            ALLOCATE_STATELESS_CONSTANT_MEMORY_SURFACE_WITH_INITIALIZATION
            | ALLOCATE_STATELESS_GLOBAL_MEMORY_SURFACE_WITH_INITIALIZATION => {
                let kind = if t.id == ALLOCATE_STATELESS_CONSTANT_MEMORY_SURFACE_WITH_INITIALIZATION
                {
                    "program_constant_surface"
                } else {
                    "program_global_surface"
                };
                let mut ia = implicit_arg(kind, None, t.word(2)?, t.word(3)?);
                ia.buffer_index = Some(t.word(0)?);
                ia.bti = bti_of(t.word(1)?);
                implicit.push(ia);
            }
            ALLOCATE_LOCAL_SURFACE => slm_inline = t.word(1)?,
            MEDIA_VFE_STATE => scratch = t.word(1)?,
            _ => {}
        }
    }
    args.sort_by_key(|a| a.index);
    Ok(KernelAbi {
        kernel: name.to_string(),
        simd,
        grf_bytes,
        per_thread_payload: PerThreadPayload { local_ids },
        args,
        implicit_args: implicit,
        slm: SlmInfo {
            inline_bytes: slm_inline,
        },
        scratch: Some(ScratchInfo {
            per_thread_scratch_bytes: scratch,
        }),
        program,
        program_data: data.to_vec(),
    })
}
