//! The OpenCL ABI of IGC: where each kernel argument and implicit value lives in the
//! thread payload, which binding-table slot each buffer uses, and the program-scope
//! data. [`KernelAbi`] is the model; [`launch`] turns it plus arguments into memory and
//! per-thread payload images.
//!
//! [`find_kernel`] decodes it from ocloc's `.bin` (what the product uses);
//! [`KernelAbi::load`] reads the corpus' `abi.json`, which the tests use to cross-check
//! the decoder on every variant. The field names follow `abi.json` so that one type
//! serves both.

mod bytes;
mod elf;
mod error;
pub mod image;
mod kernel;
pub mod launch;
pub mod patch_tokens;
pub mod printf;
mod program;

pub use error::{AbiError, BinProblem, LaunchProblem};
pub use patch_tokens::{find_kernel, grf_bytes_of_bin, grf_bytes_of_family, kernel_names};

use serde::Deserialize;
use std::path::Path;

/// A payload slot: `size` bytes at `payload_offset` (bytes from r0).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Slot {
    pub payload_offset: u32,
    pub size: u32,
}

/// One piece of a by-value argument: `size` bytes of the argument from `source_offset`
/// go to `payload_offset`.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Fragment {
    pub source_offset: u32,
    pub payload_offset: u32,
    pub size: u32,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ArgKind {
    /// A `__global` / `__constant` pointer.
    Buffer,
    /// A by-value argument (scalar, vector or struct).
    Scalar,
    /// A `__local` pointer: the host picks its SLM offset.
    Local,
    Image,
    Sampler,
    /// Declared but never read by the kernel: no payload slot.
    Unused,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Arg {
    pub index: u32,
    pub name: String,
    pub kind: ArgKind,
    /// OpenCL type name (`uint*`, `float4`, `struct S`).
    #[serde(default, rename = "type")]
    pub type_name: Option<String>,
    #[serde(default)]
    pub address_qualifier: Option<String>,
    #[serde(default)]
    pub access_qualifier: Option<String>,
    #[serde(default)]
    pub type_qualifier: Option<String>,
    #[serde(default)]
    pub payload_offset: Option<u32>,
    #[serde(default)]
    pub size: Option<u32>,
    /// Bytes of the argument's type (8 for pointers).
    #[serde(default)]
    pub type_size: Option<u32>,
    /// `global` or `constant` for buffers.
    #[serde(default)]
    pub address_space: Option<String>,
    #[serde(default)]
    pub surface_state_offset: Option<u32>,
    /// Binding-table index of a buffer or image.
    #[serde(default)]
    pub bti: Option<u32>,
    /// IGC may also access this buffer through its BTI (`DATA_PARAMETER_BUFFER_STATEFUL`).
    #[serde(default)]
    pub stateful: Option<bool>,
    #[serde(default)]
    pub stateless_pointer: Option<Slot>,
    /// Receives the byte offset of the pointer within its BTI surface (0 here: every
    /// buffer is bound at its start).
    #[serde(default)]
    pub buffer_offset: Option<Slot>,
    #[serde(default)]
    pub fragments: Option<Vec<Fragment>>,
    #[serde(default)]
    pub slm_offset_slot: Option<Slot>,
    #[serde(default)]
    pub slm_alignment: Option<u32>,
    /// Images: written by the kernel.
    #[serde(default)]
    pub writeable: Option<bool>,
    /// Samplers: the byte offset of the SAMPLER_STATE the driver fills in the dynamic
    /// state heap.
    #[serde(default)]
    pub sampler_state_offset: Option<u32>,
}

impl Arg {
    fn unused(index: u32) -> Arg {
        Arg {
            index,
            name: format!("arg{index}"),
            kind: ArgKind::Unused,
            type_name: None,
            address_qualifier: None,
            access_qualifier: None,
            type_qualifier: None,
            payload_offset: None,
            size: None,
            type_size: None,
            address_space: None,
            surface_state_offset: None,
            bti: None,
            stateful: None,
            stateless_pointer: None,
            buffer_offset: None,
            fragments: None,
            slm_offset_slot: None,
            slm_alignment: None,
            writeable: None,
            sampler_state_offset: None,
        }
    }
}

/// Values the runtime supplies that are not kernel arguments.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ImplicitKind {
    GlobalWorkOffset,
    LocalWorkSize,
    EnqueuedLocalWorkSize,
    GlobalWorkSize,
    NumWorkGroups,
    WorkDimensions,
    /// Base address of the stateless private memory of all threads.
    PrivateBase,
    ProgramConstantSurface,
    ProgramGlobalSurface,
    /// The SIMD width (`DATA_PARAMETER_SIMD_SIZE`, `PREFERRED_WORKGROUP_MULTIPLE`).
    SimdSize,
    /// Of the image argument `ImplicitArg::arg` (`DATA_PARAMETER_IMAGE_*`).
    ImageWidth,
    ImageHeight,
    ImageDepth,
    ImageChannelDataType,
    ImageChannelOrder,
    /// Layers of an image array.
    ImageArraySize,
    /// Address of the printf buffer (`ALLOCATE_STATELESS_PRINTF_SURFACE`).
    PrintfBuffer,
    /// The sampler argument's coordinate-snap workaround flag (DATA_PARAMETER 21): 0,
    /// the emulated sampler needs no workaround.
    SamplerSnapWa,
    /// A `DATA_PARAMETER_BUFFER` type the emulator does not fill (its number); a launch
    /// refuses the kernel rather than leave the slot zero.
    #[serde(skip_deserializing)]
    Unsupported(u32),
}

impl ImplicitKind {
    /// The name `abi.json` uses.
    pub fn name(self) -> &'static str {
        match self {
            ImplicitKind::GlobalWorkOffset => "global_work_offset",
            ImplicitKind::LocalWorkSize => "local_work_size",
            ImplicitKind::EnqueuedLocalWorkSize => "enqueued_local_work_size",
            ImplicitKind::GlobalWorkSize => "global_work_size",
            ImplicitKind::NumWorkGroups => "num_work_groups",
            ImplicitKind::WorkDimensions => "work_dimensions",
            ImplicitKind::PrivateBase => "private_base",
            ImplicitKind::ProgramConstantSurface => "program_constant_surface",
            ImplicitKind::ProgramGlobalSurface => "program_global_surface",
            ImplicitKind::SimdSize => "simd_size",
            ImplicitKind::ImageWidth => "image_width",
            ImplicitKind::ImageHeight => "image_height",
            ImplicitKind::ImageDepth => "image_depth",
            ImplicitKind::ImageChannelDataType => "image_channel_data_type",
            ImplicitKind::ImageChannelOrder => "image_channel_order",
            ImplicitKind::ImageArraySize => "image_array_size",
            ImplicitKind::SamplerSnapWa => "sampler_snap_wa",
            ImplicitKind::PrintfBuffer => "printf_buffer",
            ImplicitKind::Unsupported(_) => "unsupported",
        }
    }
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct ImplicitArg {
    pub kind: ImplicitKind,
    /// 0, 1, 2 for the x/y/z values.
    #[serde(default)]
    pub dim: Option<u32>,
    pub payload_offset: u32,
    pub size: u32,
    #[serde(default)]
    pub per_thread_private_size: Option<u32>,
    /// The private size is per work-item (SIMT lane), not per hardware thread.
    #[serde(default)]
    pub per_simt_lane: Option<bool>,
    #[serde(default)]
    pub bti: Option<u32>,
    /// Which program-scope surface (index into the program's surfaces of that kind).
    #[serde(default)]
    pub buffer_index: Option<u32>,
    /// The kernel argument an image parameter describes.
    #[serde(default)]
    pub arg: Option<u32>,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct LocalIds {
    pub dim: String,
    pub payload_offset: u32,
    pub size: u32,
}

/// `SPatchThreadPayload`: what the per-thread payload holds.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct ThreadPayloadFlags {
    #[serde(rename = "HeaderPresent")]
    pub header_present: u32,
    #[serde(rename = "LocalIDXPresent")]
    pub local_id_x_present: u32,
    #[serde(rename = "LocalIDYPresent")]
    pub local_id_y_present: u32,
    #[serde(rename = "LocalIDZPresent")]
    pub local_id_z_present: u32,
    #[serde(rename = "LocalIDFlattenedPresent")]
    pub local_id_flattened_present: u32,
    #[serde(rename = "IndirectPayloadStorage")]
    pub indirect_payload_storage: u32,
    #[serde(rename = "UnusedPerThreadConstantPresent")]
    pub unused_per_thread_constant_present: u32,
    #[serde(rename = "GetLocalIDPresent")]
    pub get_local_id_present: u32,
    #[serde(rename = "GetGroupIDPresent")]
    pub get_group_id_present: u32,
    #[serde(rename = "GetGlobalOffsetPresent")]
    pub get_global_offset_present: u32,
    #[serde(rename = "StageInGridOriginPresent")]
    pub stage_in_grid_origin_present: u32,
    #[serde(rename = "StageInGridSizePresent")]
    pub stage_in_grid_size_present: u32,
    #[serde(rename = "OffsetToSkipPerThreadDataLoad")]
    pub offset_to_skip_per_thread_data_load: u32,
    #[serde(rename = "OffsetToSkipSetFFIDGP")]
    pub offset_to_skip_set_ffid_gp: u32,
    /// The hardware receives the first CTD GRF inline (Xe-HPG); the vISA view is the same.
    #[serde(rename = "PassInlineData")]
    pub pass_inline_data: u32,
    #[serde(rename = "RTStackIDPresent")]
    pub rt_stack_id_present: u32,
    #[serde(rename = "generateLocalID")]
    pub generate_local_id: u32,
    #[serde(rename = "emitLocalMask")]
    pub emit_local_mask: u32,
    #[serde(rename = "walkOrder")]
    pub walk_order: u32,
    #[serde(rename = "tileY")]
    pub tile_y: u32,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct PerThreadPayload {
    pub local_ids: Vec<LocalIds>,
    #[serde(default)]
    pub flags: Option<ThreadPayloadFlags>,
}

/// `SPatchExecutionEnvironment`, in its binary order.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct ExecutionEnvironment {
    #[serde(rename = "RequiredWorkGroupSizeX")]
    pub required_work_group_size_x: u32,
    #[serde(rename = "RequiredWorkGroupSizeY")]
    pub required_work_group_size_y: u32,
    #[serde(rename = "RequiredWorkGroupSizeZ")]
    pub required_work_group_size_z: u32,
    #[serde(rename = "LargestCompiledSIMDSize")]
    pub largest_compiled_simd_size: u32,
    #[serde(rename = "CompiledSubGroupsNumber")]
    pub compiled_sub_groups_number: u32,
    #[serde(rename = "HasBarriers")]
    pub has_barriers: u32,
    #[serde(rename = "DisableMidThreadPreemption")]
    pub disable_mid_thread_preemption: u32,
    #[serde(rename = "CompiledSIMD8")]
    pub compiled_simd8: u32,
    #[serde(rename = "CompiledSIMD16")]
    pub compiled_simd16: u32,
    #[serde(rename = "CompiledSIMD32")]
    pub compiled_simd32: u32,
    #[serde(rename = "HasDeviceEnqueue")]
    pub has_device_enqueue: u32,
    #[serde(rename = "MayAccessUndeclaredResource")]
    pub may_access_undeclared_resource: u32,
    #[serde(rename = "UsesFencesForReadWriteImages")]
    pub uses_fences_for_read_write_images: u32,
    #[serde(rename = "UsesStatelessSpillFill")]
    pub uses_stateless_spill_fill: u32,
    #[serde(rename = "UsesMultiScratchSpaces")]
    pub uses_multi_scratch_spaces: u32,
    #[serde(rename = "IsCoherent")]
    pub is_coherent: u32,
    #[serde(rename = "IsInitializer")]
    pub is_initializer: u32,
    #[serde(rename = "IsFinalizer")]
    pub is_finalizer: u32,
    #[serde(rename = "SubgroupIndependentForwardProgressRequired")]
    pub subgroup_independent_forward_progress_required: u32,
    #[serde(rename = "CompiledForGreaterThan4GBBuffers")]
    pub compiled_for_greater_than_4gb_buffers: u32,
    #[serde(rename = "NumGRFRequired")]
    pub num_grf_required: u32,
    #[serde(rename = "WorkgroupWalkOrderDims")]
    pub workgroup_walk_order_dims: u32,
    #[serde(rename = "HasGlobalAtomics")]
    pub has_global_atomics: u32,
    #[serde(rename = "HasDPAS")]
    pub has_dpas: u32,
    #[serde(rename = "HasRTCalls")]
    pub has_rt_calls: u32,
    #[serde(rename = "NumThreadsRequired")]
    pub num_threads_required: u32,
    #[serde(rename = "StatelessWritesCount")]
    pub stateless_writes_count: u32,
    #[serde(rename = "IndirectStatelessCount")]
    pub indirect_stateless_count: u32,
    #[serde(rename = "UseBindlessMode")]
    pub use_bindless_mode: u32,
    #[serde(rename = "HasStackCalls")]
    pub has_stack_calls: u32,
    #[serde(rename = "SIMDInfo")]
    pub simd_info: u64,
    #[serde(rename = "RequireDisableEUFusion")]
    pub require_disable_eu_fusion: u32,
}

/// One binding-table entry: slot `bti` holds the surface state at
/// `surface_state_offset`, which belongs to argument `arg` (or to an implicit surface).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct BindingEntry {
    pub bti: u32,
    pub surface_state_offset: u32,
    #[serde(default)]
    pub arg: Option<u32>,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct SlmInfo {
    /// Bytes of the kernel's own `__local` variables (SLM offset 0 up).
    pub inline_bytes: u32,
}

#[derive(Clone, Debug, Deserialize)]
pub struct ProgramToken {
    pub name: String,
    #[serde(default)]
    pub token: Option<u32>,
    #[serde(default)]
    pub buffer_index: Option<u32>,
    #[serde(default)]
    pub inline_data_size: Option<u32>,
    #[serde(default)]
    pub inline_data_file: Option<String>,
}

/// Program-scope data: `__constant` tables and `__global` variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceKind {
    Constant,
    Global,
}

/// The initial bytes of one program-scope surface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramSurface {
    pub kind: SurfaceKind,
    pub index: u32,
    pub bytes: Vec<u8>,
}

/// A pointer stored in program-scope data (`__global int *p = &x;`): the loader adds
/// the base address of surface (`target_kind`, `target_index`) to the pointer-sized value
/// at `offset` of surface (`kind`, `index`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointerPatch {
    pub kind: SurfaceKind,
    pub index: u32,
    pub offset: u32,
    pub target_kind: SurfaceKind,
    pub target_index: u32,
}

#[derive(Clone, Debug, Default, Deserialize)]
pub struct ProgramInfo {
    #[serde(default)]
    pub icbe_version: Option<u32>,
    /// GFXCORE family id (18 Gen12LP, 3079 Xe-HPG, 12 Gen9, 3080 Xe-HPC).
    #[serde(default)]
    pub device: Option<u32>,
    #[serde(default)]
    pub gpu_pointer_size: Option<u32>,
    #[serde(default)]
    pub program_patch_tokens: Vec<ProgramToken>,
    /// Decoded from the `.bin` only (`abi.json` keeps the bytes in files).
    #[serde(skip)]
    pub surfaces: Vec<ProgramSurface>,
    #[serde(skip)]
    pub pointer_patches: Vec<PointerPatch>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct ScratchInfo {
    #[serde(default)]
    pub per_thread_scratch_bytes: u32,
    #[serde(default)]
    pub per_thread_scratch_bytes_slot1: u32,
}

/// One kernel's ABI.
#[derive(Clone, Debug, Deserialize)]
pub struct KernelAbi {
    pub kernel: String,
    pub simd: u32,
    pub grf_bytes: u32,
    pub per_thread_payload: PerThreadPayload,
    /// Where the cross-thread data starts in the payload and its size.
    #[serde(default)]
    pub cross_thread_data: Option<Slot>,
    pub args: Vec<Arg>,
    pub implicit_args: Vec<ImplicitArg>,
    pub slm: SlmInfo,
    #[serde(default)]
    pub scratch: Option<ScratchInfo>,
    #[serde(default)]
    pub binding_table: Vec<BindingEntry>,
    #[serde(default)]
    pub execution_environment: Option<ExecutionEnvironment>,
    #[serde(default)]
    pub kernel_attributes: Option<String>,
    #[serde(default)]
    pub kernel_heap_size: Option<u32>,
    pub program: ProgramInfo,
    /// The kernel's sampler states (inline samplers), by sampler index.
    #[serde(skip)]
    pub samplers: Vec<image::SamplerState>,
    /// Byte offset of the SAMPLER_STATE array in the dynamic state heap.
    #[serde(skip)]
    pub sampler_array_offset: Option<u32>,
    /// The printf format strings and string literals, by index (`STRING` tokens).
    #[serde(skip)]
    pub strings: Vec<(u32, String)>,
}

impl KernelAbi {
    /// Decode the ABI of `kernel` from the `kernel.bin` of a compiled variant folder.
    pub fn from_bin(
        variant_dir: &Path,
        kernel: &str,
        grf_bytes: u32,
    ) -> Result<KernelAbi, AbiError> {
        let path = variant_dir.join("kernel.bin");
        let bytes = std::fs::read(&path).map_err(|source| AbiError::Io {
            path: path.display().to_string(),
            source,
        })?;
        find_kernel(&bytes, kernel, grf_bytes)
    }

    /// Read the `abi.json` of a compiled variant folder.
    pub fn load(variant_dir: &Path) -> Result<KernelAbi, AbiError> {
        let path = variant_dir.join("abi.json");
        let text = std::fs::read_to_string(&path).map_err(|source| AbiError::Io {
            path: path.display().to_string(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|e| AbiError::Json {
            path: path.display().to_string(),
            line: e.line(),
            column: e.column(),
            msg: e.to_string(),
        })
    }

    /// The argument with index `index`, if the ABI lists it.
    pub fn arg(&self, index: u32) -> Option<&Arg> {
        self.args.iter().find(|a| a.index == index)
    }
}
