//! Adapter choice, device creation and what the device can do.

use crate::HostError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Which wgpu backend to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// Every backend; real GPUs are preferred over software ones.
    #[default]
    Any,
    Vulkan,
    Metal,
    Dx12,
    Gl,
}

impl BackendChoice {
    pub fn backends(self) -> wgpu::Backends {
        match self {
            BackendChoice::Any => wgpu::Backends::all(),
            BackendChoice::Vulkan => wgpu::Backends::VULKAN,
            BackendChoice::Metal => wgpu::Backends::METAL,
            BackendChoice::Dx12 => wgpu::Backends::DX12,
            BackendChoice::Gl => wgpu::Backends::GL,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            BackendChoice::Any => "any",
            BackendChoice::Vulkan => "vulkan",
            BackendChoice::Metal => "metal",
            BackendChoice::Dx12 => "dx12",
            BackendChoice::Gl => "gl",
        }
    }
}

/// How to open the device. The `disable_*` switches hide a feature the adapter has,
/// so that the translator's emulated paths can be forced and tested on any machine.
#[derive(Clone, Debug, Default)]
pub struct GpuOptions {
    pub backend: BackendChoice,
    /// Index into [`GpuContext::adapters`] for the chosen backend; `None` picks the best.
    pub adapter: Option<usize>,
    pub disable_subgroups: bool,
    pub disable_f16: bool,
    pub disable_f64: bool,
    pub disable_int64: bool,
    /// Skip the float probe and take the adapter for one that flushes f32 denormals,
    /// rounds native f64 division and square root inexactly and fuses products into
    /// sums, so that the exact forms run (tests prove them on adapters that need none).
    pub distrust_floats: bool,
}

/// One adapter as the user sees it in listings.
#[derive(Clone, Debug)]
pub struct AdapterSummary {
    pub index: usize,
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
}

/// What the opened device can do, after the `disable_*` options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capabilities {
    pub subgroups: bool,
    pub subgroup_min_size: u32,
    pub subgroup_max_size: u32,
    pub f16: bool,
    pub f64: bool,
    pub int64: bool,
    pub int64_atomics: bool,
    pub float32_atomics: bool,
    pub timestamps: bool,
    pub max_workgroup_size_x: u32,
    pub max_invocations_per_workgroup: u32,
    pub max_workgroups_per_dimension: u32,
    pub max_workgroup_storage_bytes: u32,
    pub max_storage_buffer_binding_size: u64,
    pub max_buffer_size: u64,
    pub max_storage_buffers_per_stage: u32,
    /// f32 arithmetic keeps denormals (measured: `probe.rs`).
    pub f32_denormals: bool,
    /// Native f64 division and square root round correctly (measured: `probe.rs`).
    pub f64_div_sqrt_exact: bool,
    /// The compiler keeps a product and the sum it feeds as two roundings rather than
    /// fusing them into one (measured: `probe.rs`).
    pub keeps_products: bool,
    /// WGSL's f32 `fma` rounds once and keeps denormals (measured: `probe.rs`).
    pub fma_single_rounding: bool,
    /// The four answers above were measured (false: `distrust_floats` assumed them).
    pub floats_probed: bool,
}

/// An open device plus its pipeline cache.
pub struct GpuContext {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) caps: Capabilities,
    pub(crate) pipelines: HashMap<u64, Arc<wgpu::ComputePipeline>>,
    pub(crate) lost: Arc<Mutex<Option<String>>>,
    summary: AdapterSummary,
}

fn instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env())
}

fn summarize(index: usize, a: &wgpu::Adapter) -> AdapterSummary {
    let info = a.get_info();
    AdapterSummary {
        index,
        name: info.name,
        backend: format!("{:?}", info.backend).to_lowercase(),
        device_type: format!("{:?}", info.device_type),
        driver: format!("{} {}", info.driver, info.driver_info),
    }
}

/// Real GPUs first, then integrated, virtual, software.
fn preference(a: &wgpu::Adapter) -> u8 {
    match a.get_info().device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

fn sorted_adapters(backend: BackendChoice) -> Vec<wgpu::Adapter> {
    let mut all = pollster::block_on(instance().enumerate_adapters(backend.backends()));
    // Stable: among equals keep wgpu's order (Vulkan before GL).
    all.sort_by_key(preference);
    all
}

impl GpuContext {
    /// Every adapter for `backend`, in the order `--adapter N` indexes them.
    pub fn adapters(backend: BackendChoice) -> Vec<AdapterSummary> {
        sorted_adapters(backend)
            .iter()
            .enumerate()
            .map(|(i, a)| summarize(i, a))
            .collect()
    }

    /// Open the chosen adapter with the limits raised to what it offers.
    pub fn new(opts: &GpuOptions) -> Result<GpuContext, HostError> {
        let mut adapters = sorted_adapters(opts.backend);
        if adapters.is_empty() {
            return Err(HostError::NoAdapter {
                backend: opts.backend.name().into(),
                hint: " (on Linux without a GPU install lavapipe: apt-get install mesa-vulkan-drivers)"
                    .into(),
            });
        }
        let index = opts.adapter.unwrap_or(0);
        if index >= adapters.len() {
            return Err(HostError::AdapterIndex {
                index,
                count: adapters.len(),
            });
        }
        let adapter = adapters.swap_remove(index);
        let summary = summarize(index, &adapter);
        let have = adapter.features();
        let mut want = wgpu::Features::empty();
        let mut take = |f: wgpu::Features, allowed: bool| {
            if allowed && have.contains(f) {
                want |= f;
            }
        };
        take(wgpu::Features::SUBGROUP, !opts.disable_subgroups);
        take(wgpu::Features::SUBGROUP_BARRIER, !opts.disable_subgroups);
        take(wgpu::Features::SHADER_F16, !opts.disable_f16);
        take(wgpu::Features::SHADER_F64, !opts.disable_f64);
        take(wgpu::Features::SHADER_INT64, !opts.disable_int64);
        take(
            wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS,
            !opts.disable_int64,
        );
        take(wgpu::Features::SHADER_FLOAT32_ATOMIC, true);
        take(wgpu::Features::TIMESTAMP_QUERY, true);
        take(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES, true);
        take(wgpu::Features::PIPELINE_CACHE, true);
        let limits = adapter.limits();
        let desc = wgpu::DeviceDescriptor {
            label: Some("visa-emu"),
            required_features: want,
            required_limits: limits.clone(),
            ..Default::default()
        };
        let (device, queue) =
            pollster::block_on(adapter.request_device(&desc)).map_err(|source| {
                HostError::Device {
                    adapter: summary.name.clone(),
                    source,
                }
            })?;
        let lost = Arc::new(Mutex::new(None));
        let lost_cb = lost.clone();
        device.set_device_lost_callback(move |reason, msg| {
            if let Ok(mut l) = lost_cb.lock() {
                *l = Some(format!("{reason:?}: {msg}"));
            }
        });
        let info = adapter.get_info();
        let caps = Capabilities {
            subgroups: want.contains(wgpu::Features::SUBGROUP),
            subgroup_min_size: info.subgroup_min_size,
            subgroup_max_size: info.subgroup_max_size,
            f16: want.contains(wgpu::Features::SHADER_F16),
            f64: want.contains(wgpu::Features::SHADER_F64),
            int64: want.contains(wgpu::Features::SHADER_INT64),
            int64_atomics: want.contains(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS),
            float32_atomics: want.contains(wgpu::Features::SHADER_FLOAT32_ATOMIC),
            timestamps: want.contains(wgpu::Features::TIMESTAMP_QUERY),
            max_workgroup_size_x: limits.max_compute_workgroup_size_x,
            max_invocations_per_workgroup: limits.max_compute_invocations_per_workgroup,
            max_workgroups_per_dimension: limits.max_compute_workgroups_per_dimension,
            max_workgroup_storage_bytes: limits.max_compute_workgroup_storage_size,
            max_storage_buffer_binding_size: limits.max_storage_buffer_binding_size,
            max_buffer_size: limits.max_buffer_size,
            max_storage_buffers_per_stage: limits.max_storage_buffers_per_shader_stage,
            f32_denormals: true,
            f64_div_sqrt_exact: true,
            keeps_products: true,
            fma_single_rounding: false,
            floats_probed: false,
        };
        let mut ctx = GpuContext {
            device,
            queue,
            caps,
            pipelines: HashMap::new(),
            lost,
            summary,
        };
        let floats = if opts.distrust_floats {
            crate::probe::FloatBehaviour {
                f32_denormals: false,
                f64_div_sqrt_exact: !ctx.caps.f64,
                keeps_products: false,
                fma_single_rounding: false,
            }
        } else {
            crate::probe::probe(&mut ctx)
        };
        ctx.caps.f32_denormals = floats.f32_denormals;
        ctx.caps.f64_div_sqrt_exact = floats.f64_div_sqrt_exact;
        ctx.caps.keeps_products = floats.keeps_products;
        ctx.caps.fma_single_rounding = floats.fma_single_rounding;
        ctx.caps.floats_probed = !opts.distrust_floats;
        Ok(ctx)
    }

    pub fn capabilities(&self) -> &Capabilities {
        &self.caps
    }

    pub fn adapter(&self) -> &AdapterSummary {
        &self.summary
    }

    /// Whether the pipeline cache holds `key`'s pipeline (a job with that key then
    /// skips module and pipeline creation).
    pub fn has_pipeline(&self, key: u64) -> bool {
        self.pipelines.contains_key(&key)
    }

    /// Number of pipelines held by the cache.
    pub fn cached_pipelines(&self) -> usize {
        self.pipelines.len()
    }

    /// Why the device was lost (a driver fault, a GPU wait past `VISA_GPU_TIMEOUT`),
    /// or `None` while it is usable. A lost device stays lost: open another.
    pub fn lost(&self) -> Option<String> {
        self.lost.lock().ok().and_then(|l| l.clone())
    }

    pub(crate) fn check_lost(&self) -> Result<(), HostError> {
        match self.lost() {
            Some(msg) => Err(HostError::DeviceLost(msg)),
            None => Ok(()),
        }
    }
}
