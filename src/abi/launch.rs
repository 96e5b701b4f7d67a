//! From an ABI, case arguments and an NDRange to what the interpreter runs: memory
//! allocations (buffers, private memory, program-scope data) bound to their BTIs, the
//! launch shape, and each SIMD thread's payload image (r0, local ids, cross-thread data).

use super::error::{AbiError, LaunchProblem};
use super::image::SamplerState;
use super::{ArgKind, ImplicitKind, KernelAbi, ProgramSurface, SurfaceKind};
use crate::corpus::case::Case;
use crate::interp::{AllocId, Launch, Memory, ThreadPayload};
use std::path::Path;

/// Allocations start at 64 GiB and are 4 GiB apart, so that an address computed with
/// 32-bit arithmetic by mistake can never land in a buffer.
pub const BASE: u64 = 0x10_0000_0000;
pub const STRIDE: u64 = 0x1_0000_0000;
/// The payload image never exceeds the largest GRF file (256 GRFs of 64 bytes).
pub const PAYLOAD_LIMIT: u32 = 256 * 64;
/// Private memory and the thread count are bounded so that a hostile ABI or NDRange
/// cannot make the emulator allocate without limit.
pub const PRIVATE_LIMIT: u64 = 1 << 30;
pub const THREAD_LIMIT: u64 = 1 << 24;

/// What an allocation holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// The buffer passed as kernel argument `arg`.
    Buffer { arg: u32 },
    /// Stateless private memory of all threads (`private_base`).
    Private,
    /// Program-scope data.
    Program { kind: SurfaceKind, index: u32 },
    /// The printf buffer (`abi::printf`).
    Printf,
}

/// One allocation of the launch: where it lives and which BTI (if any) names it.
#[derive(Clone, Debug)]
pub struct Allocation {
    pub name: String,
    pub role: Role,
    pub id: AllocId,
    pub base: u64,
    pub size: u64,
    pub bti: Option<u32>,
}

/// Everything needed to run one variant and read its outputs back.
pub struct Prepared {
    pub memory: Memory,
    pub launch: Launch,
    /// (argument name, allocation) of every buffer argument: where outputs are read.
    pub buffers: Vec<(String, AllocId)>,
    /// Every allocation, in creation order.
    pub allocations: Vec<Allocation>,
    /// The printf buffer, when the kernel calls printf, and the strings that format it.
    pub printf: Option<AllocId>,
    pub strings: Vec<(u32, String)>,
    /// The payload ranges that carry a value (the same in every thread but for r0 and
    /// the local ids' contents).
    pub filled: Vec<Filled>,
    payload: PayloadPlan,
}

struct PayloadPlan {
    simd: u32,
    local: [u32; 3],
    local_id_offsets: [Option<u32>; 3],
    /// r0 zero, local ids zero, cross-thread data filled: the part all threads share.
    image: Vec<u8>,
}

impl Prepared {
    /// Where the payload holds each dimension's local ids and the work-group's size:
    /// what [`Prepared::payload`] writes, item `t * simd + lane` of thread `t`.
    pub fn local_id_layout(&self) -> ([Option<u32>; 3], [u32; 3]) {
        (self.payload.local_id_offsets, self.payload.local)
    }

    /// The payload of SIMD thread `t` of work-group `group`: r0.1/r0.6/r0.7 hold the group
    /// id, r0.2 bits 7:0 the thread's index in its group, then one `uw` local id per lane
    /// for each dimension. Work-items are numbered x fastest; thread `t` covers linear ids
    /// `t*simd ..`, and lanes past the group's item count are disabled (`lanes`).
    pub fn payload(&self, group: [u32; 3], t: u32) -> ThreadPayload {
        let p = &self.payload;
        let mut bytes = p.image.clone();
        let mut put = |off: usize, v: &[u8]| {
            if let Some(d) = bytes.get_mut(off..off + v.len()) {
                d.copy_from_slice(v);
            }
        };
        put(4, &group[0].to_le_bytes());
        put(24, &group[1].to_le_bytes());
        put(28, &group[2].to_le_bytes());
        // IGC for Xe-HPG reads get_sub_group_id() from r0 byte 8 (corpus
        // subgroup_reduce_scan_simd16, acm-g10: `mov V0097 V0098(0,8)`, V0098 a byte
        // view of r0).
        put(8, &[t as u8]);
        let items = p.local[0] * p.local[1] * p.local[2];
        let first = t.saturating_mul(p.simd);
        let lanes = items.saturating_sub(first).min(p.simd);
        for lane in 0..lanes {
            let lin = first + lane;
            let id = [
                lin % p.local[0],
                (lin / p.local[0]) % p.local[1],
                lin / (p.local[0] * p.local[1]),
            ];
            for (off, v) in p.local_id_offsets.iter().zip(id) {
                if let Some(off) = off {
                    put((off + 2 * lane) as usize, &(v as u16).to_le_bytes());
                }
            }
        }
        ThreadPayload { bytes, lanes }
    }
}

fn dim3(v: &[u64], fill: u64) -> [u64; 3] {
    [
        v.first().copied().unwrap_or(fill),
        v.get(1).copied().unwrap_or(fill),
        v.get(2).copied().unwrap_or(fill),
    ]
}

fn launch_err(p: LaunchProblem) -> AbiError {
    AbiError::Launch(p)
}

/// A payload range the launch fills with a value, named as `abi.json`'s
/// `visa_inputs[].covers` names ABI items (`arg1(buffer)`, `local_work_size[0]`,
/// `arg2(scalar)@4`, `local_id_x`, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filled {
    pub payload_offset: u32,
    pub size: u32,
    pub label: String,
}

/// The shared payload image under construction: every write is bounds-checked and
/// recorded.
#[derive(Default)]
struct Image {
    bytes: Vec<u8>,
    filled: Vec<Filled>,
}

impl Image {
    fn put(&mut self, what: &str, off: u32, v: &[u8]) -> Result<(), AbiError> {
        self.reserve(what, off, v.len() as u32)?;
        self.bytes[off as usize..off as usize + v.len()].copy_from_slice(v);
        self.filled.push(Filled {
            payload_offset: off,
            size: v.len() as u32,
            label: what.to_string(),
        });
        Ok(())
    }

    /// Make the image cover `len` bytes at `off` (zeros where nothing was written).
    fn reserve(&mut self, what: &str, off: u32, len: u32) -> Result<(), AbiError> {
        let end = off as u64 + len as u64;
        if end > PAYLOAD_LIMIT as u64 {
            return Err(launch_err(LaunchProblem::SlotOutOfRange {
                what: what.to_string(),
                offset: off,
                size: len,
                limit: PAYLOAD_LIMIT,
            }));
        }
        if self.bytes.len() < end as usize {
            self.bytes.resize(end as usize, 0);
        }
        Ok(())
    }

    /// The low `size` bytes (at most 8) of `v`.
    fn put_value(&mut self, what: &str, off: u32, size: u32, v: u64) -> Result<(), AbiError> {
        self.put(what, off, &v.to_le_bytes()[..size.min(8) as usize])
    }
}

/// Hands out base addresses and records allocations.
struct Allocator {
    memory: Memory,
    next: u64,
    list: Vec<Allocation>,
}

impl Allocator {
    fn add(&mut self, name: &str, role: Role, data: Vec<u8>, bti: Option<u32>) -> Allocation {
        let base = self.next;
        let size = data.len() as u64;
        self.next += STRIDE.max(size.next_power_of_two());
        let id = self.memory.add(name, base, data);
        if let Some(b) = bti {
            self.memory.bind(b, id);
        }
        let a = Allocation {
            name: name.to_string(),
            role,
            id,
            base,
            size,
            bti,
        };
        self.list.push(a.clone());
        a
    }
}

/// One part of an NDRange whose work-groups all have one size. OpenCL 2.0 lets the
/// global size be any size: the last group of a dimension the local size does not
/// divide is smaller (non-uniform work-groups). Intel's runtime dispatches each mix of
/// full and remainder groups as a walker of its own, whose payload gives its local
/// size (`get_local_size`) next to the enqueued one (`get_enqueued_local_size`); a
/// launch here is split the same way, into up to 2^dims pieces that run one after
/// another over the same memory (work-groups are unordered: any order is one OpenCL
/// allows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Group id of the piece's first group.
    pub first: [u32; 3],
    pub groups: [u32; 3],
    /// The local size of every group of the piece.
    pub local: [u64; 3],
}

/// The pieces of `case`'s NDRange: one for a uniform NDRange (also one with no groups
/// when a global size is 0), else the full groups' piece (where a dimension has any)
/// and the remainder groups' pieces, in x-fastest order.
pub fn pieces(case: &Case) -> Result<Vec<Piece>, AbiError> {
    let nd = &case.ndrange;
    let global = dim3(&nd.global_size, 1);
    let local = dim3(&nd.local_size, 1);
    // Per dimension: (first group, groups, local size) of its full and remainder parts.
    let mut parts: Vec<Vec<(u32, u32, u64)>> = Vec::new();
    for d in 0..3 {
        if local[d] == 0 || local[d] > u16::MAX as u64 {
            return Err(launch_err(LaunchProblem::BadLocal {
                dim: d,
                local: local[d],
            }));
        }
        let full = u32::try_from(global[d] / local[d]).map_err(|_| {
            launch_err(LaunchProblem::TooLarge {
                what: format!("work-groups in dimension {d}"),
                bytes: global[d] / local[d],
                limit: u32::MAX as u64,
            })
        })?;
        let rest = global[d] % local[d];
        let mut p = Vec::new();
        if full > 0 || rest == 0 {
            p.push((0, full, local[d]));
        }
        if rest > 0 {
            p.push((full, 1, rest));
        }
        parts.push(p);
    }
    let mut out = Vec::new();
    for z in &parts[2] {
        for y in &parts[1] {
            for x in &parts[0] {
                out.push(Piece {
                    first: [x.0, y.0, z.0],
                    groups: [x.1, y.1, z.1],
                    local: [x.2, y.2, z.2],
                });
            }
        }
    }
    Ok(out)
}

/// [`prepare_piece`] of every piece of `case`'s NDRange ([`pieces`]: one for a uniform
/// NDRange, up to 2^dims for non-uniform work-groups).
pub fn prepare_pieces(abi: &KernelAbi, case: &Case, dir: &Path) -> Result<Vec<Prepared>, AbiError> {
    pieces(case)?
        .iter()
        .map(|p| prepare_piece(abi, case, dir, p))
        .collect()
}

/// [`prepare_piece`] of a uniform NDRange (`what` names the caller in the error a
/// non-uniform one gets).
pub fn prepare(
    abi: &KernelAbi,
    case: &Case,
    dir: &Path,
    what: &'static str,
) -> Result<Prepared, AbiError> {
    let all = pieces(case)?;
    match all.as_slice() {
        [one] => prepare_piece(abi, case, dir, one),
        _ => Err(launch_err(LaunchProblem::Pieces {
            pieces: all.len(),
            what,
        })),
    }
}

/// Lay out memory and payload for the groups of `piece` (one of [`pieces`]) of `case`
/// compiled as `abi` (variant folder `dir`, where `abi.json`'s program-scope data
/// files lie). Every piece of a case gets the same allocations at the same addresses
/// (per-thread private memory sized for the whole NDRange), so one piece's final
/// memory is the next one's start.
pub fn prepare_piece(
    abi: &KernelAbi,
    case: &Case,
    dir: &Path,
    piece: &Piece,
) -> Result<Prepared, AbiError> {
    let nd = &case.ndrange;
    let global = dim3(&nd.global_size, 1);
    let enqueued = dim3(&nd.local_size, 1);
    let offset = dim3(&nd.global_offset, 0);
    let local = piece.local;
    let grid: [u32; 3] = std::array::from_fn(|d| {
        // Within u32: `pieces` checked the full groups, and the remainder adds one.
        (global[d].div_ceil(enqueued[d].max(1))).min(u32::MAX as u64) as u32
    });
    let uniform = (0..3).all(|d| global[d].is_multiple_of(enqueued[d].max(1)));
    let reads_local = abi
        .implicit_args
        .iter()
        .any(|i| i.kind == ImplicitKind::LocalWorkSize);
    let reads_enqueued = abi
        .implicit_args
        .iter()
        .any(|i| i.kind == ImplicitKind::EnqueuedLocalWorkSize);
    if !uniform && reads_local && !reads_enqueued {
        let d = (0..3)
            .find(|&d| !global[d].is_multiple_of(enqueued[d].max(1)))
            .unwrap_or(0);
        return Err(launch_err(LaunchProblem::NotUniform {
            dim: d,
            global: global[d],
            local: enqueued[d],
        }));
    }
    let groups = piece.groups;
    // Per-thread resources are sized for the NDRange's full groups everywhere.
    let full_items = enqueued[0] * enqueued[1] * enqueued[2];
    let full_threads = grid
        .iter()
        .fold(full_items.div_ceil(abi.simd.max(1) as u64), |n, g| {
            n.saturating_mul(*g as u64)
        });
    let items = local[0] * local[1] * local[2];
    let threads_per_group = items.div_ceil(abi.simd.max(1) as u64);
    let total_threads = full_threads;
    if total_threads > THREAD_LIMIT || full_items > u32::MAX as u64 {
        return Err(launch_err(LaunchProblem::TooLarge {
            what: "hardware threads of the NDRange".into(),
            bytes: total_threads,
            limit: THREAD_LIMIT,
        }));
    }

    let mut alloc = Allocator {
        memory: Memory::new(),
        next: BASE,
        list: Vec::new(),
    };
    let mut image = Image::default();
    let mut buffers = Vec::new();
    let mut samplers = abi.samplers.clone();
    let mut image_of_arg = std::collections::HashMap::new();
    let mut slm_cursor = abi.slm.inline_bytes as u64;
    for a in &abi.args {
        let unsupported = |kind: &str| {
            launch_err(LaunchProblem::Unsupported {
                index: a.index,
                name: a.name.clone(),
                kind: kind.to_string(),
            })
        };
        let ca = || {
            case.args
                .iter()
                .find(|c| c.index == a.index)
                .ok_or_else(|| {
                    launch_err(LaunchProblem::MissingArg {
                        index: a.index,
                        name: a.name.clone(),
                    })
                })
        };
        match a.kind {
            ArgKind::Buffer => {
                let ca = ca()?;
                let data = case.input_bytes(ca).map_err(AbiError::Case)?;
                let al = alloc.add(&ca.name, Role::Buffer { arg: a.index }, data, a.bti);
                if let Some(p) = &a.stateless_pointer {
                    image.put_value(
                        &format!("arg{}(buffer)", a.index),
                        p.payload_offset,
                        p.size,
                        al.base,
                    )?;
                }
                // Each buffer is bound at its start: its offset within the surface is 0.
                if let Some(s) = &a.buffer_offset {
                    image.put_value(
                        &format!("arg{}.buffer_offset", a.index),
                        s.payload_offset,
                        s.size,
                        0,
                    )?;
                }
                buffers.push((ca.name.clone(), al.id));
            }
            ArgKind::Scalar => {
                let ca = ca()?;
                let bytes = case.scalar_bytes(ca).map_err(AbiError::Case)?;
                let type_size = a.type_size.unwrap_or(bytes.len() as u32);
                for f in a.fragments.iter().flatten() {
                    // A slot takes min(size, type_size - source_offset) bytes.
                    let n = f.size.min(type_size.saturating_sub(f.source_offset)) as usize;
                    let src: Vec<u8> = bytes
                        .iter()
                        .skip(f.source_offset as usize)
                        .take(n)
                        .copied()
                        .collect();
                    image.put(
                        &format!("arg{}(scalar)@{}", a.index, f.source_offset),
                        f.payload_offset,
                        &src,
                    )?;
                }
            }
            ArgKind::Local => {
                let ca = ca()?;
                let align = a.slm_alignment.unwrap_or(4).max(1) as u64;
                slm_cursor = slm_cursor.div_ceil(align) * align;
                if let Some(s) = &a.slm_offset_slot {
                    image.put_value(
                        &format!("arg{}(local)", a.index),
                        s.payload_offset,
                        s.size,
                        slm_cursor,
                    )?;
                }
                slm_cursor =
                    slm_cursor.saturating_add(case.local_bytes(ca).map_err(AbiError::Case)?);
            }
            ArgKind::Image => {
                let ca = ca()?;
                let desc = case.image_desc(ca).map_err(AbiError::Case)?;
                let data = case.input_bytes(ca).map_err(AbiError::Case)?;
                if data.len() as u64 != desc.bytes() {
                    return Err(AbiError::Case(crate::corpus::case::CaseError::Size {
                        arg: ca.name.clone(),
                        what: "image texels (width x height x depth x texel bytes)",
                        expected: desc.bytes(),
                        found: data.len() as u64,
                    }));
                }
                let bti = a
                    .bti
                    .ok_or_else(|| unsupported("image without a binding-table entry"))?;
                let al = alloc.add(&ca.name, Role::Buffer { arg: a.index }, data, Some(bti));
                alloc.memory.bind_image(bti, al.id, desc);
                image_of_arg.insert(a.index, desc);
                buffers.push((ca.name.clone(), al.id));
            }
            ArgKind::Sampler => {
                // The state a driver would write for the argument's CLK_* value, at the
                // sampler index its SAMPLER_STATE occupies in the kernel's array.
                let ca = ca()?;
                let clk = ca.value.as_ref().and_then(|v| v.as_u64()).ok_or_else(|| {
                    unsupported("sampler without a CLK_* bit value (`value` in case.json)")
                })?;
                let state = SamplerState::from_clk(clk)
                    .map_err(|why| unsupported(&format!("sampler value {clk:#x}: {why}")))?;
                let index = match (a.sampler_state_offset, abi.sampler_array_offset) {
                    (Some(o), Some(base)) if o >= base && (o - base) % 16 == 0 => {
                        ((o - base) / 16) as usize
                    }
                    _ => return Err(unsupported("sampler whose state lies outside the array")),
                };
                if index >= 16 {
                    return Err(unsupported("sampler index over 16"));
                }
                if samplers.len() <= index {
                    samplers.resize(index + 1, state);
                }
                samplers[index] = state;
            }
            ArgKind::Unused => {}
        }
    }
    // The group's SLM is what the kernel declares (its own arrays and the `__local`
    // arguments), in 1 KiB steps as Intel hardware allocates it; an access past it is
    // undefined (3_execution_model: "Out-of-bound SLM accesses have undefined
    // behavior") and both backends treat it as out of bounds. Sizing it to the 64 KiB
    // maximum instead made every SLM kernel's workgroup too large for NVIDIA's 48 KiB,
    // whose driver then never started it.
    let slm_bytes = u32::try_from(slm_cursor.div_ceil(1024) * 1024).map_err(|_| {
        launch_err(LaunchProblem::TooLarge {
            what: "shared local memory".into(),
            bytes: slm_cursor,
            limit: u32::MAX as u64,
        })
    })?;

    alloc.memory.set_samplers(samplers);
    let bases = add_program_surfaces(&mut alloc, abi, dir)?;
    let mut printf = None;
    for i in &abi.implicit_args {
        let d = i.dim.unwrap_or(0).min(2) as usize;
        let what = match i.dim {
            Some(d) => format!("{}[{d}]", i.kind.name()),
            None => i.kind.name().to_string(),
        };
        let v = match i.kind {
            ImplicitKind::GlobalWorkOffset => offset[d],
            ImplicitKind::LocalWorkSize => local[d],
            ImplicitKind::EnqueuedLocalWorkSize => enqueued[d],
            ImplicitKind::GlobalWorkSize => global[d],
            ImplicitKind::NumWorkGroups => grid[d] as u64,
            ImplicitKind::WorkDimensions => nd.work_dim as u64,
            ImplicitKind::SimdSize => abi.simd as u64,
            ImplicitKind::PrivateBase => {
                let lanes = if i.per_simt_lane.unwrap_or(false) {
                    abi.simd as u64
                } else {
                    1
                };
                let per = i.per_thread_private_size.unwrap_or(0) as u64 * lanes;
                let size = per.saturating_mul(total_threads).max(64);
                if size > PRIVATE_LIMIT {
                    return Err(launch_err(LaunchProblem::TooLarge {
                        what: "private memory".into(),
                        bytes: size,
                        limit: PRIVATE_LIMIT,
                    }));
                }
                alloc
                    .add("private", Role::Private, vec![0; size as usize], i.bti)
                    .base
            }
            ImplicitKind::ProgramConstantSurface | ImplicitKind::ProgramGlobalSurface => {
                let kind = surface_kind_of(i.kind);
                let index = i.buffer_index.unwrap_or(0);
                match base_of(&bases, kind, index) {
                    Some(b) => b,
                    // A surface the program does not carry: an empty allocation, so the
                    // pointer is valid and every access reports out of bounds.
                    None => {
                        let name = format!("{kind:?} surface {index}");
                        alloc
                            .add(&name, Role::Program { kind, index }, Vec::new(), i.bti)
                            .base
                    }
                }
            }
            ImplicitKind::ImageWidth
            | ImplicitKind::ImageHeight
            | ImplicitKind::ImageDepth
            | ImplicitKind::ImageChannelDataType
            | ImplicitKind::ImageChannelOrder
            | ImplicitKind::ImageArraySize => {
                let d = i.arg.and_then(|n| image_of_arg.get(&n)).ok_or_else(|| {
                    launch_err(LaunchProblem::UnsupportedImplicit {
                        dp_type: 9, // an image parameter of an argument that is no image
                    })
                })?;
                (match i.kind {
                    ImplicitKind::ImageWidth => d.width,
                    ImplicitKind::ImageHeight => d.height,
                    ImplicitKind::ImageDepth => d.depth,
                    ImplicitKind::ImageChannelDataType => d.ty.cl_code(),
                    ImplicitKind::ImageArraySize => match (d.array, d.dims) {
                        (true, 2) => d.height,
                        (true, _) => d.depth,
                        (false, _) => 0,
                    },
                    _ => d.order.cl_code(),
                }) as u64
            }
            // The emulated sampler needs no coordinate-snap workaround.
            ImplicitKind::SamplerSnapWa => 0,
            ImplicitKind::PrintfBuffer => {
                let mut data = vec![0; super::printf::BUFFER_BYTES];
                data[..4].copy_from_slice(&super::printf::FIRST_RECORD.to_le_bytes());
                let al = alloc.add("printf", Role::Printf, data, i.bti);
                printf = Some(al.id);
                al.base
            }
            ImplicitKind::Unsupported(t) => {
                return Err(launch_err(LaunchProblem::UnsupportedImplicit {
                    dp_type: t,
                }))
            }
        };
        image.put_value(&what, i.payload_offset, i.size, v)?;
    }

    // Local ids and r0 lie below the cross-thread data: the image covers them all.
    let mut local_id_offsets = [None; 3];
    for l in &abi.per_thread_payload.local_ids {
        let d = match l.dim.as_str() {
            "x" => 0,
            "y" => 1,
            _ => 2,
        };
        local_id_offsets[d] = Some(l.payload_offset);
        let label = format!("local_id_{}", l.dim);
        image.put(&label, l.payload_offset, &vec![0; l.size as usize])?;
    }
    image.reserve("r0", 0, abi.grf_bytes)?;
    if let Some(c) = &abi.cross_thread_data {
        image.reserve("cross-thread data", c.payload_offset, c.size)?;
    }
    Ok(Prepared {
        memory: alloc.memory,
        launch: Launch {
            groups,
            first: piece.first,
            grid,
            threads_per_group: threads_per_group as u32,
            slm_bytes,
            scratch_bytes: abi
                .scratch
                .as_ref()
                .map_or(0, |s| s.per_thread_scratch_bytes),
        },
        buffers,
        allocations: alloc.list,
        printf,
        strings: abi.strings.clone(),
        payload: PayloadPlan {
            simd: abi.simd,
            local: [local[0] as u32, local[1] as u32, local[2] as u32],
            local_id_offsets,
            image: image.bytes,
        },
        filled: image.filled,
    })
}

/// The program-scope surfaces: decoded from the `.bin`, or (for an ABI read from
/// `abi.json`) from the files the tokens name.
fn program_surfaces(abi: &KernelAbi, dir: &Path) -> Result<Vec<ProgramSurface>, AbiError> {
    if !abi.program.surfaces.is_empty() {
        return Ok(abi.program.surfaces.clone());
    }
    let mut out = Vec::new();
    for t in &abi.program.program_patch_tokens {
        let Some(file) = &t.inline_data_file else {
            continue;
        };
        let path = dir.join(file);
        let bytes = std::fs::read(&path).map_err(|source| AbiError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let kind = if t.name.contains("CONSTANT") {
            SurfaceKind::Constant
        } else {
            SurfaceKind::Global
        };
        out.push(ProgramSurface {
            kind,
            index: t.buffer_index.unwrap_or(0),
            bytes,
        });
    }
    Ok(out)
}

fn surface_kind_of(k: ImplicitKind) -> SurfaceKind {
    if k == ImplicitKind::ProgramConstantSurface {
        SurfaceKind::Constant
    } else {
        SurfaceKind::Global
    }
}

fn base_of(bases: &[(SurfaceKind, u32, u64)], kind: SurfaceKind, index: u32) -> Option<u64> {
    bases
        .iter()
        .find(|(k, x, _)| *k == kind && *x == index)
        .map(|b| b.2)
}

/// Allocate the program-scope surfaces, bound to the BTIs the kernel's implicit
/// arguments name, with the pointers stored in them relocated to the surfaces' bases.
/// Returns (kind, index, base) of each.
fn add_program_surfaces(
    alloc: &mut Allocator,
    abi: &KernelAbi,
    dir: &Path,
) -> Result<Vec<(SurfaceKind, u32, u64)>, AbiError> {
    let surfaces = program_surfaces(abi, dir)?;
    // Bases are known before allocation: the allocator hands them out in order.
    let mut next = alloc.next;
    let bases: Vec<(SurfaceKind, u32, u64)> = surfaces
        .iter()
        .map(|s| {
            let base = next;
            next += STRIDE.max((s.bytes.len() as u64).next_power_of_two());
            (s.kind, s.index, base)
        })
        .collect();
    let pointer_size = if abi.program.gpu_pointer_size == Some(4) {
        4
    } else {
        8
    };
    for s in surfaces {
        let mut bytes = s.bytes;
        for p in abi
            .program
            .pointer_patches
            .iter()
            .filter(|p| p.kind == s.kind && p.index == s.index)
        {
            if let Some(target) = base_of(&bases, p.target_kind, p.target_index) {
                relocate(&mut bytes, p.offset as usize, pointer_size, target);
            }
        }
        let bti = abi
            .implicit_args
            .iter()
            .find(|i| {
                matches!(
                    i.kind,
                    ImplicitKind::ProgramConstantSurface | ImplicitKind::ProgramGlobalSurface
                ) && surface_kind_of(i.kind) == s.kind
                    && i.buffer_index.unwrap_or(0) == s.index
            })
            .and_then(|i| i.bti);
        let name = match s.kind {
            SurfaceKind::Constant => format!("program_constant_surface_{}", s.index),
            SurfaceKind::Global => format!("program_global_surface_{}", s.index),
        };
        let role = Role::Program {
            kind: s.kind,
            index: s.index,
        };
        alloc.add(&name, role, bytes, bti);
    }
    Ok(bases)
}

/// Add `base` to the little-endian pointer of `size` bytes at `at` (the stored value is
/// the offset within the target surface). A pointer outside the data is left alone.
fn relocate(bytes: &mut [u8], at: usize, size: usize, base: u64) {
    let Some(slot) = at.checked_add(size).and_then(|end| bytes.get_mut(at..end)) else {
        return;
    };
    let mut v = [0u8; 8];
    v[..size].copy_from_slice(slot);
    let moved = u64::from_le_bytes(v).wrapping_add(base).to_le_bytes();
    slot.copy_from_slice(&moved[..size]);
}
