//! The wgpu driver of visa-emu. It runs WGSL compute programs that the translator
//! (`visa_emu::translate`) generated: it picks an adapter, creates the device with the
//! limits and features the adapter offers, caches pipelines by a caller-given key,
//! uploads buffers, dispatches (splitting dispatches larger than the per-dimension
//! workgroup-count limit), and reads back through `map_async`.
//!
//! It knows nothing of vISA: its inputs are WGSL text and byte buffers.

mod context;
mod job;
mod probe;

pub use context::{AdapterSummary, BackendChoice, Capabilities, GpuContext, GpuOptions};
pub use job::{stage_log, BufferUse, ComputeJob, JobBuffer, JobResult, JobTimings, Repeat};
pub use probe::FloatBehaviour;

/// Errors of the driver. Every one says what was being done.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("no GPU adapter found for backend {backend}{hint}")]
    NoAdapter { backend: String, hint: String },
    #[error("adapter index {index} out of range: {count} adapter(s) found")]
    AdapterIndex { index: usize, count: usize },
    #[error("could not create the device on {adapter}: {source}")]
    Device {
        adapter: String,
        source: wgpu::RequestDeviceError,
    },
    #[error("the WGSL program was rejected by wgpu/naga: {0}")]
    Shader(String),
    #[error("the device was lost: {0}")]
    DeviceLost(String),
    #[error(
        "the device was lost creating the kernel's pipeline ({wgsl_bytes} bytes of WGSL, after {ms:.0} ms): \
         the driver could not compile it ({why}); VISA_WGSL_DUMP=FILE writes the module"
    )]
    PipelineLostDevice {
        wgsl_bytes: usize,
        ms: f64,
        why: String,
    },
    #[error("buffer {index} needs {bytes} bytes, over the adapter's limit of {limit} bytes")]
    BufferTooLarge {
        index: usize,
        bytes: u64,
        limit: u64,
    },
    #[error("creating or filling the job's buffers failed: {0}")]
    Buffers(String),
    #[error("the job binds {count} storage buffers; the adapter allows {limit}")]
    TooManyBuffers { count: usize, limit: u32 },
    #[error("reading back results failed: {0}")]
    Readback(String),
    #[error("the program still asked for another pass after {passes} passes")]
    Unfinished { passes: u32 },
    #[error("alias binding {binding} names buffer {buffer}; the job has {count} buffers")]
    BadAlias {
        binding: u32,
        buffer: usize,
        count: usize,
    },
    #[error("dispatch of {requested:?} workgroups cannot be split: {why}")]
    Dispatch { requested: [u32; 3], why: String },
}
