//! One kernel's patch list → [`KernelAbi`].

use super::bytes::Bytes;
use super::error::{AbiError, BinProblem, LaunchProblem};
use super::patch_tokens::{self as pt, dp};
use super::program::{KernelEntry, Token};
use super::{
    Arg, ArgKind, BindingEntry, ExecutionEnvironment, Fragment, ImplicitArg, ImplicitKind,
    KernelAbi, LocalIds, PerThreadPayload, ProgramInfo, ScratchInfo, SlmInfo, Slot,
    ThreadPayloadFlags,
};

/// Kernel arguments beyond this index are refused: OpenCL devices take far fewer, and
/// the index sizes nothing but it bounds the argument list a hostile file can grow.
const MAX_ARGS: u32 = 1024;

pub(crate) fn kernel_abi(
    k: &KernelEntry<'_>,
    grf_bytes: u32,
    program: ProgramInfo,
) -> Result<KernelAbi, AbiError> {
    if grf_bytes != 32 && grf_bytes != 64 {
        return Err(AbiError::Launch(LaunchProblem::BadGrf { grf_bytes }));
    }
    let mut b = Builder {
        args: Vec::new(),
        implicit: Vec::new(),
        ctd: 0,
        binding_table: Vec::new(),
    };
    let mut env = None;
    let mut flags = None;
    let mut stream_size = 0;
    let mut attributes = None;
    for t in &k.tokens {
        match t.id {
            pt::EXECUTION_ENVIRONMENT => env = Some(execution_environment(t)?),
            pt::THREAD_PAYLOAD => flags = Some(thread_payload(t)?),
            pt::DATA_PARAMETER_STREAM => stream_size = t.word(0)?,
            pt::BINDING_TABLE_STATE => b.binding_table = binding_table(t, k.ssh)?,
            pt::KERNEL_ATTRIBUTES_INFO => {
                let n = t.word(0)? as usize;
                attributes = Some(text(t.body.slice(4, n, "the kernel attributes")?));
            }
            _ => {}
        }
    }
    let env = env.ok_or_else(|| missing(k, pt::EXECUTION_ENVIRONMENT))?;
    let flags = flags.ok_or_else(|| missing(k, pt::THREAD_PAYLOAD))?;
    let simd = env.largest_compiled_simd_size;
    if ![8, 16, 32].contains(&simd) {
        return Err(AbiError::bin(
            k.tokens.first().map_or(0, |t| t.at),
            BinProblem::BadSimd {
                kernel: k.name.clone(),
                simd,
            },
        ));
    }
    if flags.local_id_flattened_present != 0 {
        return Err(AbiError::Launch(LaunchProblem::UnsupportedPayload {
            kernel: k.name.clone(),
            what: "a flattened local id (LocalIDFlattenedPresent)",
        }));
    }
    // The payload relation: r0, then one block per present local-id dimension (a uw per
    // lane, rounded up to whole GRFs) or the one unused GRF, then the cross-thread data.
    let ids_bytes = 2 * simd;
    let ids_stride = ids_bytes.div_ceil(grf_bytes) * grf_bytes;
    let present = [
        flags.local_id_x_present,
        flags.local_id_y_present,
        flags.local_id_z_present,
    ];
    let mut local_ids = Vec::new();
    let mut at = grf_bytes;
    for (dim, p) in ["x", "y", "z"].iter().zip(present) {
        if p != 0 {
            local_ids.push(LocalIds {
                dim: dim.to_string(),
                payload_offset: at,
                size: ids_stride,
            });
            at += ids_stride;
        }
    }
    // Without any local id IGC still reserves one GRF of per-thread data
    // (UnusedPerThreadConstantPresent): the vISA inputs of the cross-thread data sit
    // one GRF further (a kernel without get_local_id/get_global_id shows it).
    if local_ids.is_empty() && flags.unused_per_thread_constant_present != 0 {
        at += grf_bytes;
    }
    b.ctd = at;
    let mut slm_inline = 0;
    let mut strings = Vec::new();
    let mut scratch = ScratchInfo::default();
    for t in &k.tokens {
        match t.id {
            pt::DATA_PARAMETER_BUFFER => b.data_parameter(t)?,
            pt::STATELESS_GLOBAL_MEMORY_OBJECT_KERNEL_ARGUMENT
            | pt::STATELESS_CONSTANT_MEMORY_OBJECT_KERNEL_ARGUMENT => b.buffer(t)?,
            pt::IMAGE_MEMORY_OBJECT_KERNEL_ARGUMENT => {
                let ssh_offset = t.word(2)?;
                let bti = b.bti_of(ssh_offset);
                let a = b.arg(t, t.word(0)?)?;
                a.kind = ArgKind::Image;
                a.surface_state_offset = Some(ssh_offset);
                a.bti = bti;
                a.writeable = Some(t.word(5)? != 0);
            }
            pt::SAMPLER_KERNEL_ARGUMENT => {
                let off = t.word(2)?;
                let a = b.arg(t, t.word(0)?)?;
                a.kind = ArgKind::Sampler;
                a.sampler_state_offset = Some(off);
            }
            pt::ALLOCATE_STATELESS_PRIVATE_MEMORY => {
                let mut ia = b.implicit(ImplicitKind::PrivateBase, None, t.word(1)?, t.word(2)?);
                ia.per_thread_private_size = Some(t.word(3)?);
                ia.per_simt_lane = Some(t.word(4)? != 0);
                ia.bti = b.bti_of(t.word(0)?);
                b.implicit.push(ia);
            }
            pt::ALLOCATE_STATELESS_CONSTANT_MEMORY_SURFACE_WITH_INITIALIZATION
            | pt::ALLOCATE_STATELESS_GLOBAL_MEMORY_SURFACE_WITH_INITIALIZATION => {
                let kind =
                    if t.id == pt::ALLOCATE_STATELESS_CONSTANT_MEMORY_SURFACE_WITH_INITIALIZATION {
                        ImplicitKind::ProgramConstantSurface
                    } else {
                        ImplicitKind::ProgramGlobalSurface
                    };
                let mut ia = b.implicit(kind, None, t.word(2)?, t.word(3)?);
                ia.buffer_index = Some(t.word(0)?);
                ia.bti = b.bti_of(t.word(1)?);
                b.implicit.push(ia);
            }
            pt::ALLOCATE_STATELESS_PRINTF_SURFACE => {
                let mut ia = b.implicit(ImplicitKind::PrintfBuffer, None, t.word(2)?, t.word(3)?);
                ia.bti = b.bti_of(t.word(1)?);
                b.implicit.push(ia);
            }
            pt::STRING => {
                // Index, size, then the bytes (NUL-terminated within the size).
                let len = t.word(1)? as usize;
                let raw = t.body.bytes(8, len, "a printf string")?;
                let end = raw.iter().position(|&c| c == 0).unwrap_or(raw.len());
                strings.push((
                    t.word(0)?,
                    String::from_utf8_lossy(&raw[..end]).into_owned(),
                ));
            }
            pt::ALLOCATE_LOCAL_SURFACE => slm_inline = t.word(1)?,
            pt::MEDIA_VFE_STATE => scratch.per_thread_scratch_bytes = t.word(1)?,
            pt::MEDIA_VFE_STATE_SLOT1 => scratch.per_thread_scratch_bytes_slot1 = t.word(1)?,
            pt::KERNEL_ARGUMENT_INFO => b.arg_info(t)?,
            _ => {}
        }
    }
    for a in &mut b.args {
        if a.kind == ArgKind::Scalar && a.size.is_none() {
            a.size = a.type_size.or_else(|| {
                a.fragments
                    .as_ref()
                    .and_then(|f| f.iter().map(|x| x.source_offset + x.size).max())
            });
        }
    }
    let by_offset: Vec<(u32, u32)> = b
        .args
        .iter()
        .filter_map(|a| a.surface_state_offset.map(|s| (s, a.index)))
        .collect();
    for e in &mut b.binding_table {
        e.arg = by_offset
            .iter()
            .find(|(s, _)| *s == e.surface_state_offset)
            .map(|(_, i)| *i);
    }
    b.args.sort_by_key(|a| a.index);
    let (sampler_array_offset, samplers) = samplers(k)?;
    Ok(KernelAbi {
        kernel: k.name.clone(),
        simd,
        grf_bytes,
        per_thread_payload: PerThreadPayload {
            local_ids,
            flags: Some(flags),
        },
        cross_thread_data: Some(Slot {
            payload_offset: b.ctd,
            size: stream_size,
        }),
        args: b.args,
        implicit_args: b.implicit,
        slm: SlmInfo {
            inline_bytes: slm_inline,
        },
        scratch: Some(scratch),
        binding_table: b.binding_table,
        execution_environment: Some(env),
        kernel_attributes: attributes,
        kernel_heap_size: Some(k.kernel_heap_size),
        program,
        samplers,
        sampler_array_offset,
        strings,
    })
}

/// A kernel's sampler states and the offset of their array in the dynamic state heap.
type Samplers = (Option<u32>, Vec<super::image::SamplerState>);

/// The SAMPLER_STATE array in the dynamic state heap (`SAMPLER_STATE_ARRAY`: offset,
/// count, border color offset), 16 bytes per sampler; at most 16 samplers. Returns the
/// array's offset too (sampler arguments name their state by offset).
fn samplers(k: &KernelEntry<'_>) -> Result<Samplers, AbiError> {
    let Some(t) = k.tokens.iter().find(|t| t.id == pt::SAMPLER_STATE_ARRAY) else {
        return Ok((None, Vec::new()));
    };
    let (off, count) = (t.word(0)? as usize, t.word(1)?);
    if count > 16 {
        return Err(AbiError::bin(
            t.at,
            BinProblem::OutOfRange {
                what: "sampler count",
                value: count as u64,
                max: 16,
            },
        ));
    }
    let states = (0..count as usize)
        .map(|i| {
            let s = k.dsh.slice(off + 16 * i, 16, "a SAMPLER_STATE")?;
            Ok(super::image::SamplerState::from_words([
                s.u32(0, "SAMPLER_STATE dword 0")?,
                s.u32(12, "SAMPLER_STATE dword 3")?,
            ]))
        })
        .collect::<Result<_, AbiError>>()?;
    Ok((Some(off as u32), states))
}

fn missing(k: &KernelEntry<'_>, token: u32) -> AbiError {
    AbiError::Launch(LaunchProblem::MissingToken {
        kernel: k.name.clone(),
        token: pt::token_name(token),
    })
}

/// A NUL-padded string.
fn text(b: Bytes<'_>) -> String {
    let end = b.data.iter().position(|c| *c == 0).unwrap_or(b.data.len());
    String::from_utf8_lossy(&b.data[..end]).into_owned()
}

struct Builder {
    args: Vec<Arg>,
    implicit: Vec<ImplicitArg>,
    /// Payload offset of the cross-thread data.
    ctd: u32,
    binding_table: Vec<BindingEntry>,
}

impl Builder {
    fn bti_of(&self, ssh_offset: u32) -> Option<u32> {
        self.binding_table
            .iter()
            .find(|e| e.surface_state_offset == ssh_offset)
            .map(|e| e.bti)
    }

    /// A CTD offset as a payload offset.
    fn payload(&self, t: &Token<'_>, ctd_offset: u32) -> Result<u32, AbiError> {
        self.ctd.checked_add(ctd_offset).ok_or_else(|| {
            AbiError::bin(
                t.at,
                BinProblem::OutOfRange {
                    what: "cross-thread data offset",
                    value: ctd_offset as u64,
                    max: (u32::MAX - self.ctd) as u64,
                },
            )
        })
    }

    fn arg(&mut self, t: &Token<'_>, index: u32) -> Result<&mut Arg, AbiError> {
        if index >= MAX_ARGS {
            return Err(AbiError::bin(
                t.at,
                BinProblem::OutOfRange {
                    what: "kernel argument number",
                    value: index as u64,
                    max: (MAX_ARGS - 1) as u64,
                },
            ));
        }
        let i = match self.args.iter().position(|a| a.index == index) {
            Some(i) => i,
            None => {
                self.args.push(Arg::unused(index));
                self.args.len() - 1
            }
        };
        Ok(&mut self.args[i])
    }

    fn implicit(&self, kind: ImplicitKind, dim: Option<u32>, off: u32, size: u32) -> ImplicitArg {
        ImplicitArg {
            kind,
            dim,
            payload_offset: self.ctd.saturating_add(off),
            size,
            per_thread_private_size: None,
            per_simt_lane: None,
            bti: None,
            buffer_index: None,
            arg: None,
        }
    }

    fn data_parameter(&mut self, t: &Token<'_>) -> Result<(), AbiError> {
        let (ty, argn, off, size, src) =
            (t.word(0)?, t.word(1)?, t.word(2)?, t.word(3)?, t.word(4)?);
        let payload = self.payload(t, off)?;
        let slot = Slot {
            payload_offset: payload,
            size,
        };
        let implicit = |kind| match kind {
            ImplicitKind::WorkDimensions => (kind, None),
            _ => (kind, Some(src / 4)),
        };
        let (kind, dim) = match ty {
            dp::KERNEL_ARGUMENT => {
                let a = self.arg(t, argn)?;
                a.kind = ArgKind::Scalar;
                a.fragments.get_or_insert_with(Vec::new).push(Fragment {
                    source_offset: src,
                    payload_offset: payload,
                    size,
                });
                a.payload_offset = Some(a.payload_offset.map_or(payload, |p| p.min(payload)));
                return Ok(());
            }
            dp::BUFFER_OFFSET => {
                self.arg(t, argn)?.buffer_offset = Some(slot);
                return Ok(());
            }
            dp::BUFFER_STATEFUL => {
                self.arg(t, argn)?.stateful = Some(true);
                return Ok(());
            }
            dp::SUM_OF_LOCAL_MEMORY_OBJECT_ARGUMENT_SIZES => {
                let a = self.arg(t, argn)?;
                a.kind = ArgKind::Local;
                a.payload_offset = Some(payload);
                a.size = Some(size);
                a.slm_offset_slot = Some(slot);
                a.slm_alignment = Some(src.max(1));
                return Ok(());
            }
            dp::LOCAL_WORK_SIZE => implicit(ImplicitKind::LocalWorkSize),
            dp::GLOBAL_WORK_SIZE => implicit(ImplicitKind::GlobalWorkSize),
            dp::NUM_WORK_GROUPS => implicit(ImplicitKind::NumWorkGroups),
            dp::WORK_DIMENSIONS => implicit(ImplicitKind::WorkDimensions),
            dp::GLOBAL_WORK_OFFSET => implicit(ImplicitKind::GlobalWorkOffset),
            dp::ENQUEUED_LOCAL_WORK_SIZE => implicit(ImplicitKind::EnqueuedLocalWorkSize),
            dp::SIMD_SIZE | dp::PREFERRED_WORKGROUP_MULTIPLE => (ImplicitKind::SimdSize, None),
            dp::SAMPLER_COORDINATE_SNAP_WA_REQUIRED => {
                let mut ia = self.implicit(ImplicitKind::SamplerSnapWa, None, off, size);
                ia.arg = Some(argn);
                self.implicit.push(ia);
                return Ok(());
            }
            dp::IMAGE_WIDTH..=dp::IMAGE_CHANNEL_ORDER | dp::IMAGE_ARRAY_SIZE => {
                let kind = match ty {
                    dp::IMAGE_ARRAY_SIZE => ImplicitKind::ImageArraySize,
                    dp::IMAGE_WIDTH => ImplicitKind::ImageWidth,
                    dp::IMAGE_HEIGHT => ImplicitKind::ImageHeight,
                    dp::IMAGE_DEPTH => ImplicitKind::ImageDepth,
                    dp::IMAGE_CHANNEL_DATA_TYPE => ImplicitKind::ImageChannelDataType,
                    _ => ImplicitKind::ImageChannelOrder,
                };
                let mut ia = self.implicit(kind, None, off, size);
                ia.arg = Some(argn);
                self.implicit.push(ia);
                return Ok(());
            }
            other => (ImplicitKind::Unsupported(other), None),
        };
        if dim.is_some_and(|d| d > 2) {
            return Err(AbiError::bin(
                t.at,
                BinProblem::OutOfRange {
                    what: "work-size dimension (source offset / 4)",
                    value: dim.unwrap_or(0) as u64,
                    max: 2,
                },
            ));
        }
        let ia = self.implicit(kind, dim, off, size);
        self.implicit.push(ia);
        Ok(())
    }

    fn buffer(&mut self, t: &Token<'_>) -> Result<(), AbiError> {
        let (argn, ssh_off, off, size) = (t.word(0)?, t.word(1)?, t.word(2)?, t.word(3)?);
        let payload = self.payload(t, off)?;
        let bti = self.bti_of(ssh_off);
        let constant = t.id == pt::STATELESS_CONSTANT_MEMORY_OBJECT_KERNEL_ARGUMENT;
        let a = self.arg(t, argn)?;
        a.kind = ArgKind::Buffer;
        a.address_space = Some(if constant { "constant" } else { "global" }.into());
        a.payload_offset = Some(payload);
        a.size = Some(size);
        a.surface_state_offset = Some(ssh_off);
        a.bti = bti;
        a.stateless_pointer = Some(Slot {
            payload_offset: payload,
            size,
        });
        Ok(())
    }

    /// `KERNEL_ARGUMENT_INFO`: five NUL-padded strings after six words (address
    /// qualifier, access qualifier, name, `type;size`, type qualifier).
    fn arg_info(&mut self, t: &Token<'_>) -> Result<(), AbiError> {
        let mut strings = Vec::with_capacity(5);
        let mut at = 24usize;
        for i in 1..=5 {
            let n = t.word(i)? as usize;
            strings.push(text(t.body.slice(
                at,
                n,
                "a kernel-argument-info string",
            )?));
            at = at.saturating_add(n);
        }
        let [address, access, name, type_name, type_qualifier]: [String; 5] =
            match strings.try_into() {
                Ok(s) => s,
                Err(_) => return Ok(()),
            };
        let (ty, ty_size) = match type_name.split_once(';') {
            Some((ty, n)) => (ty.to_string(), n.trim().parse::<u32>().ok()),
            None => (type_name, None),
        };
        let a = self.arg(t, t.word(0)?)?;
        a.name = name;
        a.type_name = Some(ty);
        a.type_size = ty_size;
        a.address_qualifier = Some(address);
        a.access_qualifier = Some(access);
        a.type_qualifier = Some(type_qualifier);
        Ok(())
    }
}

fn binding_table(t: &Token<'_>, ssh: Bytes<'_>) -> Result<Vec<BindingEntry>, AbiError> {
    let (off, count) = (t.word(0)? as usize, t.word(1)? as usize);
    // The count is untrusted: the table must fit in the surface state heap.
    let table = ssh.slice(
        off,
        count.saturating_mul(4),
        "the binding table in the surface state heap",
    )?;
    (0..count)
        .map(|i| {
            Ok(BindingEntry {
                bti: i as u32,
                surface_state_offset: table.u32(4 * i, "a binding-table entry")?,
                arg: None,
            })
        })
        .collect()
}

fn words<const N: usize>(t: &Token<'_>) -> Result<[u32; N], AbiError> {
    let mut w = [0u32; N];
    for (i, x) in w.iter_mut().enumerate() {
        *x = t.word(i)?;
    }
    Ok(w)
}

fn thread_payload(t: &Token<'_>) -> Result<ThreadPayloadFlags, AbiError> {
    let w: [u32; 20] = words(t)?;
    Ok(ThreadPayloadFlags {
        header_present: w[0],
        local_id_x_present: w[1],
        local_id_y_present: w[2],
        local_id_z_present: w[3],
        local_id_flattened_present: w[4],
        indirect_payload_storage: w[5],
        unused_per_thread_constant_present: w[6],
        get_local_id_present: w[7],
        get_group_id_present: w[8],
        get_global_offset_present: w[9],
        stage_in_grid_origin_present: w[10],
        stage_in_grid_size_present: w[11],
        offset_to_skip_per_thread_data_load: w[12],
        offset_to_skip_set_ffid_gp: w[13],
        pass_inline_data: w[14],
        rt_stack_id_present: w[15],
        generate_local_id: w[16],
        emit_local_mask: w[17],
        walk_order: w[18],
        tile_y: w[19],
    })
}

fn execution_environment(t: &Token<'_>) -> Result<ExecutionEnvironment, AbiError> {
    let w: [u32; 33] = words(t)?;
    Ok(ExecutionEnvironment {
        required_work_group_size_x: w[0],
        required_work_group_size_y: w[1],
        required_work_group_size_z: w[2],
        largest_compiled_simd_size: w[3],
        compiled_sub_groups_number: w[4],
        has_barriers: w[5],
        disable_mid_thread_preemption: w[6],
        compiled_simd8: w[7],
        compiled_simd16: w[8],
        compiled_simd32: w[9],
        has_device_enqueue: w[10],
        may_access_undeclared_resource: w[11],
        uses_fences_for_read_write_images: w[12],
        uses_stateless_spill_fill: w[13],
        uses_multi_scratch_spaces: w[14],
        is_coherent: w[15],
        is_initializer: w[16],
        is_finalizer: w[17],
        subgroup_independent_forward_progress_required: w[18],
        compiled_for_greater_than_4gb_buffers: w[19],
        num_grf_required: w[20],
        workgroup_walk_order_dims: w[21],
        has_global_atomics: w[22],
        has_dpas: w[23],
        has_rt_calls: w[24],
        num_threads_required: w[25],
        stateless_writes_count: w[26],
        indirect_stateless_count: w[27],
        use_bindless_mode: w[28],
        has_stack_calls: w[29],
        simd_info: w[30] as u64 | (w[31] as u64) << 32,
        require_disable_eu_fusion: w[32],
    })
}
