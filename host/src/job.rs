//! One compute job: WGSL + buffers + a dispatch size, run to completion.

use crate::context::GpuContext;
use crate::HostError;
use std::sync::Arc;
use std::time::Instant;

/// How the shader uses a buffer (binding `i` of group 0 is `buffers[i]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferUse {
    /// `var<storage, read>`
    ReadOnly,
    /// `var<storage, read_write>`
    ReadWrite,
    /// `var<uniform>` (small parameters)
    Uniform,
}

#[derive(Clone, Debug)]
pub struct JobBuffer {
    /// Initial contents; padded with zeros to `size` (and to a multiple of 4).
    pub data: Vec<u8>,
    pub size: u64,
    pub usage: BufferUse,
    /// Copy the final contents back into [`JobResult::outputs`].
    pub readback: bool,
}

/// A compute program and how to run it.
#[derive(Clone, Debug)]
pub struct ComputeJob {
    /// Pipeline cache key (e.g. a hash of the kernel and the translation options):
    /// jobs with equal keys must carry equal WGSL.
    pub key: u64,
    pub wgsl: String,
    pub entry_point: String,
    pub buffers: Vec<JobBuffer>,
    /// Total workgroups in x, y, z.
    pub workgroups: [u32; 3],
    /// If set, the shader declares `var<uniform>` at this binding holding a
    /// `vec4<u32>` (x, y, z of the first workgroup of the current chunk): dispatches
    /// larger than the per-dimension limit are then split into chunks. Without it a
    /// too-large dispatch is an error.
    pub chunk_base_binding: Option<u32>,
    /// The id of the dispatch's first workgroup as the shader sees it through the
    /// chunk base: a job that runs part of a larger grid (a piece of a non-uniform
    /// NDRange) starts past 0. Non-zero needs `chunk_base_binding`.
    pub first_workgroup: [u32; 3],
    /// Dispatch again (every chunk) while the shader leaves a non-zero word here: for
    /// programs that stop part-way and resume in the next pass.
    pub repeat: Option<Repeat>,
    /// Extra bindings of buffers already in `buffers`: (binding, buffer index), e.g.
    /// one storage buffer seen as two element types.
    pub aliases: Vec<(u32, usize)>,
}

impl ComputeJob {
    /// `wgsl`'s `main` over `workgroups` with one read-write storage buffer holding
    /// `data` (binding 0), read back: small programs such as the float probe.
    pub fn one_buffer(key: u64, wgsl: &str, data: Vec<u8>, workgroups: [u32; 3]) -> ComputeJob {
        ComputeJob {
            key,
            wgsl: wgsl.into(),
            entry_point: "main".into(),
            buffers: vec![JobBuffer {
                size: data.len() as u64,
                data,
                usage: BufferUse::ReadWrite,
                readback: true,
            }],
            workgroups,
            chunk_base_binding: None,
            first_workgroup: [0; 3],
            repeat: None,
            aliases: Vec::new(),
        }
    }
}

/// The word a resumable program raises when it needs another pass.
#[derive(Clone, Copy, Debug)]
pub struct Repeat {
    /// Index into [`ComputeJob::buffers`] and word within it; zeroed before each pass.
    pub buffer: usize,
    pub word: u64,
    /// Passes allowed before the job is an error.
    pub max_passes: u32,
}

#[derive(Clone, Debug, Default)]
pub struct JobTimings {
    /// Shader module + pipeline creation (0 when the pipeline came from the cache).
    pub pipeline_ms: f64,
    /// Upload, dispatch and readback, wall clock.
    pub dispatch_ms: f64,
    /// GPU time of the compute passes from timestamp queries, when the adapter has them.
    pub gpu_ms: Option<f64>,
    pub pipeline_cached: bool,
    /// Dispatch passes run (1 unless the job repeats).
    pub passes: u32,
}

#[derive(Clone, Debug, Default)]
pub struct JobResult {
    /// One entry per buffer; empty for buffers without `readback`.
    pub outputs: Vec<Vec<u8>>,
    pub timings: JobTimings,
}

const CHUNK_STRIDE: u64 = 256;

/// How long one wait for the GPU may last: `VISA_GPU_TIMEOUT` seconds, default 900
/// (lavapipe runs the largest corpus kernels for minutes).
fn gpu_wait_limit() -> std::time::Duration {
    let secs = std::env::var("VISA_GPU_TIMEOUT")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&s| s > 0)
        .unwrap_or(900);
    std::time::Duration::from_secs(secs)
}

/// `VISA_GPU_LOG=1`: each job's stages go to stderr as they happen (pipeline start and
/// end, submit, wait), so a slow driver compile and a dispatch that hangs tell apart.
pub fn stage_log(what: std::fmt::Arguments) {
    if std::env::var_os("VISA_GPU_LOG").is_some_and(|v| v != "0") {
        eprintln!("[gpu] {what}");
    }
}

/// `VISA_GPU_PIPELINE_DIR=DIR`: every module handed to the driver is written to
/// `DIR/<key>.wgsl` first, as compiled (after the host's adaptation), so a module the
/// driver refuses can be bisected offline.
fn dump_pipeline_wgsl(job: &ComputeJob) {
    if let Some(dir) = std::env::var_os("VISA_GPU_PIPELINE_DIR") {
        let path = std::path::Path::new(&dir).join(format!("{:016x}.wgsl", job.key));
        if let Err(e) = std::fs::write(&path, &job.wgsl) {
            eprintln!("visa-emu: VISA_GPU_PIPELINE_DIR: {}: {e}", path.display());
        }
    }
}

/// (first workgroup, workgroup count) of one dispatch chunk.
type Chunk = ([u32; 3], [u32; 3]);

fn padded(len: u64) -> u64 {
    len.max(4).div_ceil(4) * 4
}

impl GpuContext {
    fn pipeline(
        &mut self,
        job: &ComputeJob,
    ) -> Result<(Arc<wgpu::ComputePipeline>, bool), HostError> {
        if let Some(p) = self.pipelines.get(&job.key) {
            return Ok((p.clone(), true));
        }
        // Driver-side compile failures (e.g. too much workgroup memory) are internal
        // errors, not validation ones: catch both rather than let wgpu panic.
        let internal = self.device.push_error_scope(wgpu::ErrorFilter::Internal);
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("visa-kernel"),
                source: wgpu::ShaderSource::Wgsl(job.wgsl.as_str().into()),
            });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("visa-kernel"),
                layout: None,
                module: &module,
                entry_point: Some(job.entry_point.as_str()),
                compilation_options: Default::default(),
                cache: None,
            });
        let validation = pollster::block_on(scope.pop());
        let driver = pollster::block_on(internal.pop());
        if let Some(err) = validation.or(driver) {
            return Err(HostError::Shader(err.to_string()));
        }
        let p = Arc::new(pipeline);
        self.pipelines.insert(job.key, p.clone());
        Ok((p, false))
    }

    /// Split `wg` into chunks that each fit the per-dimension limit.
    fn chunks(&self, job: &ComputeJob) -> Result<Vec<Chunk>, HostError> {
        let lim = self.caps.max_workgroups_per_dimension.max(1);
        let wg = job.workgroups;
        let first = job.first_workgroup;
        if job.chunk_base_binding.is_none() && first != [0; 3] {
            return Err(HostError::Dispatch {
                requested: wg,
                why: format!("a first workgroup of {first:?} and the shader takes no chunk base"),
            });
        }
        if wg.iter().all(|&d| d <= lim) {
            return Ok(vec![(first, wg)]);
        }
        if job.chunk_base_binding.is_none() {
            return Err(HostError::Dispatch {
                requested: wg,
                why: format!(
                    "over the limit of {lim} per dimension and the shader takes no chunk base"
                ),
            });
        }
        let mut out = Vec::new();
        for z in (0..wg[2]).step_by(lim as usize) {
            for y in (0..wg[1]).step_by(lim as usize) {
                for x in (0..wg[0]).step_by(lim as usize) {
                    let size = [
                        (wg[0] - x).min(lim),
                        (wg[1] - y).min(lim),
                        (wg[2] - z).min(lim),
                    ];
                    out.push(([first[0] + x, first[1] + y, first[2] + z], size));
                }
            }
        }
        Ok(out)
    }

    /// Create `job`'s pipeline (or take it from the cache): the pipeline, the
    /// milliseconds that took, and whether it was cached.
    fn ready_pipeline(
        &mut self,
        job: &ComputeJob,
    ) -> Result<(Arc<wgpu::ComputePipeline>, f64, bool), HostError> {
        self.check_lost()?;
        let t0 = Instant::now();
        stage_log(format_args!(
            "pipeline {:016x}: {} bytes of WGSL",
            job.key,
            job.wgsl.len()
        ));
        dump_pipeline_wgsl(job);
        let (pipeline, cached) = self.pipeline(job)?;
        let pipeline_ms = t0.elapsed().as_secs_f64() * 1e3;
        stage_log(format_args!(
            "pipeline {:016x}: {} in {pipeline_ms:.0} ms",
            job.key,
            if cached { "cached" } else { "created" }
        ));
        // A driver that fails compiling a pipeline can lose the device on the way (wgpu
        // takes any error of vkCreateComputePipelines but out-of-memory for a loss).
        if let Some(why) = self.lost() {
            return Err(HostError::PipelineLostDevice {
                wgsl_bytes: job.wgsl.len(),
                ms: pipeline_ms,
                why,
            });
        }
        Ok((pipeline, pipeline_ms, cached))
    }

    /// Compile `wgsl` (entry point `main`, bindings derived from the module) into a
    /// pipeline without running it: the milliseconds the driver took. For bisecting a
    /// module the driver refuses (`visa-emu compile`).
    pub fn compile(&mut self, key: u64, wgsl: &str) -> Result<f64, HostError> {
        let job = ComputeJob::one_buffer(key, wgsl, Vec::new(), [1, 1, 1]);
        Ok(self.ready_pipeline(&job)?.1)
    }

    /// Run `job` to completion and read back the requested buffers.
    pub fn run(&mut self, job: &ComputeJob) -> Result<JobResult, HostError> {
        let (pipeline, pipeline_ms, cached) = self.ready_pipeline(job)?;
        let t1 = Instant::now();

        if let Some(&(binding, buffer)) = job.aliases.iter().find(|a| a.1 >= job.buffers.len()) {
            return Err(HostError::BadAlias {
                binding,
                buffer,
                count: job.buffers.len(),
            });
        }
        // An alias is one more storage binding of the stage.
        let storage_count = job
            .buffers
            .iter()
            .filter(|b| b.usage != BufferUse::Uniform)
            .count()
            + job.aliases.len();
        if storage_count > self.caps.max_storage_buffers_per_stage as usize {
            return Err(HostError::TooManyBuffers {
                count: storage_count,
                limit: self.caps.max_storage_buffers_per_stage,
            });
        }
        stage_log(format_args!(
            "buffers (bytes, r = read back): {}",
            job.buffers
                .iter()
                .map(|b| format!(
                    "{}{}",
                    b.size.max(b.data.len() as u64),
                    if b.readback { "r" } else { "" }
                ))
                .collect::<Vec<_>>()
                .join(" ")
        ));
        let mut gpu_buffers = Vec::with_capacity(job.buffers.len());
        // A buffer the device cannot create (out of memory, a limit, a lost device)
        // is an error here rather than a panic at its first use.
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let invalid = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        for (index, b) in job.buffers.iter().enumerate() {
            let size = padded(b.size.max(b.data.len() as u64));
            let limit = self.caps.max_storage_buffer_binding_size;
            if size > limit {
                return Err(HostError::BufferTooLarge {
                    index,
                    bytes: size,
                    limit,
                });
            }
            let usage = match b.usage {
                BufferUse::Uniform => wgpu::BufferUsages::UNIFORM,
                _ => wgpu::BufferUsages::STORAGE,
            } | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC;
            let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size,
                usage,
                mapped_at_creation: false,
            });
            if !b.data.is_empty() {
                // Whole words go as they are (a 1M-item launch's heap is megabytes:
                // copying it first cost ~1 ms of every dispatch); a ragged tail is
                // padded.
                let whole = b.data.len() / 4 * 4;
                self.queue.write_buffer(&buf, 0, &b.data[..whole]);
                if whole < b.data.len() {
                    let mut tail = b.data[whole..].to_vec();
                    tail.resize(4, 0);
                    self.queue.write_buffer(&buf, whole as u64, &tail);
                }
            }
            gpu_buffers.push((buf, size));
        }
        let invalid = pollster::block_on(invalid.pop());
        let oom = pollster::block_on(oom.pop());
        if let Some(err) = invalid.or(oom) {
            self.check_lost()?;
            return Err(HostError::Buffers(err.to_string()));
        }

        let chunks = self.chunks(job)?;
        let chunk_buf = job.chunk_base_binding.map(|_| {
            let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("chunk-base"),
                size: CHUNK_STRIDE * chunks.len() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            for (i, (base, _)) in chunks.iter().enumerate() {
                let words = [base[0], base[1], base[2], 0u32];
                self.queue.write_buffer(
                    &buf,
                    i as u64 * CHUNK_STRIDE,
                    bytemuck::cast_slice(&words),
                );
            }
            buf
        });

        let layout = pipeline.get_bind_group_layout(0);
        let bind_group_for = |chunk: usize| {
            let mut entries: Vec<wgpu::BindGroupEntry> = gpu_buffers
                .iter()
                .enumerate()
                .map(|(i, (buf, _))| wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: buf.as_entire_binding(),
                })
                .collect();
            for &(binding, b) in &job.aliases {
                entries.push(wgpu::BindGroupEntry {
                    binding,
                    resource: gpu_buffers[b].0.as_entire_binding(),
                });
            }
            if let (Some(binding), Some(cb)) = (job.chunk_base_binding, chunk_buf.as_ref()) {
                entries.push(wgpu::BindGroupEntry {
                    binding,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: cb,
                        offset: chunk as u64 * CHUNK_STRIDE,
                        size: wgpu::BufferSize::new(16),
                    }),
                });
            }
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &layout,
                entries: &entries,
            })
        };

        let queries = self.caps.timestamps.then(|| {
            let set = self.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: None,
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            let resolve = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let read = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 16,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            (set, resolve, read)
        });

        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let flag = job.repeat.map(|_| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("repeat-flag"),
                size: 4,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        let mut passes = 0u32;
        let mut gpu_ms: Option<f64> = None;
        let mut last: Option<wgpu::CommandEncoder> = None;
        loop {
            passes += 1;
            if let Some(r) = job.repeat {
                self.queue
                    .write_buffer(&gpu_buffers[r.buffer].0, r.word * 4, &[0u8; 4]);
            }
            let mut enc = self.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("visa-kernel"),
                    timestamp_writes: queries.as_ref().map(|(set, _, _)| {
                        wgpu::ComputePassTimestampWrites {
                            query_set: set,
                            beginning_of_pass_write_index: Some(0),
                            end_of_pass_write_index: Some(1),
                        }
                    }),
                });
                pass.set_pipeline(&pipeline);
                for (i, (_, size)) in chunks.iter().enumerate() {
                    let bg = bind_group_for(i);
                    pass.set_bind_group(0, &bg, &[]);
                    pass.dispatch_workgroups(size[0], size[1], size[2]);
                }
            }
            if let Some((set, resolve, read)) = queries.as_ref() {
                enc.resolve_query_set(set, 0..2, resolve, 0);
                enc.copy_buffer_to_buffer(resolve, 0, read, 0, 16);
            }
            let (Some(r), Some(f)) = (job.repeat, flag.as_ref()) else {
                // One pass: its readbacks join this submission (one submit, one wait).
                last = Some(enc);
                break;
            };
            enc.copy_buffer_to_buffer(&gpu_buffers[r.buffer].0, r.word * 4, f, 0, 4);
            self.queue.submit([enc.finish()]);
            let (got, ms) = self.read_timed(vec![(f, 4)], queries.as_ref().map(|q| &q.2))?;
            if let Some(ms) = ms {
                *gpu_ms.get_or_insert(0.0) += ms;
            }
            let raised = &got[0];
            if raised.iter().all(|&b| b == 0) {
                break;
            }
            if passes >= r.max_passes {
                return Err(HostError::Unfinished { passes });
            }
        }
        let mut enc =
            last.unwrap_or_else(|| self.device.create_command_encoder(&Default::default()));
        let mut staging = Vec::new();
        for (i, b) in job.buffers.iter().enumerate() {
            if !b.readback {
                continue;
            }
            let (src, size) = &gpu_buffers[i];
            let dst = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: *size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            enc.copy_buffer_to_buffer(src, 0, &dst, 0, *size);
            staging.push((i, dst));
        }
        self.queue.submit([enc.finish()]);
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(HostError::Shader(err.to_string()));
        }

        let reads = staging
            .iter()
            .map(|(i, dst)| {
                let b = &job.buffers[*i];
                (dst, b.size.max(b.data.len() as u64))
            })
            .collect();
        // A single pass's timestamps came with this submission.
        let ts = queries.as_ref().filter(|_| job.repeat.is_none());
        let (got, ms) = self.read_timed(reads, ts.map(|q| &q.2))?;
        if let Some(ms) = ms {
            *gpu_ms.get_or_insert(0.0) += ms;
        }
        let mut outputs = vec![Vec::new(); job.buffers.len()];
        for ((i, _), bytes) in staging.iter().zip(got) {
            outputs[*i] = bytes;
        }
        self.check_lost()?;
        Ok(JobResult {
            outputs,
            timings: JobTimings {
                pipeline_ms: if cached { 0.0 } else { pipeline_ms },
                dispatch_ms: t1.elapsed().as_secs_f64() * 1e3,
                gpu_ms,
                pipeline_cached: cached,
                passes,
            },
        })
    }

    /// Map every buffer, wait for the device once, and copy each one's first `len`
    /// bytes out.
    fn read_buffers(&self, bufs: &[(&wgpu::Buffer, u64)]) -> Result<Vec<Vec<u8>>, HostError> {
        let receivers: Vec<_> = bufs
            .iter()
            .map(|(buf, _)| {
                let (tx, rx) = futures_intrusive::channel::shared::oneshot_channel();
                buf.slice(..).map_async(wgpu::MapMode::Read, move |r| {
                    tx.send(r).ok();
                });
                rx
            })
            .collect();
        // A shader that never ends (a deadlock the in-shader watchdog cannot see, such
        // as a barrier some invocations never reach) must not hang the caller: the wait
        // is bounded, and the device counts as lost after it.
        let limit = gpu_wait_limit();
        let waited = Instant::now();
        stage_log(format_args!(
            "waiting for the GPU (at most {} s)",
            limit.as_secs()
        ));
        let polled = self.device.poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: Some(limit),
        });
        stage_log(format_args!(
            "GPU wait ended after {:.0} ms",
            waited.elapsed().as_secs_f64() * 1e3
        ));
        match polled {
            Ok(_) => {}
            Err(wgpu::PollError::Timeout) => {
                let msg = format!(
                    "the GPU did not finish within {} s (VISA_GPU_TIMEOUT); the device is left busy",
                    limit.as_secs()
                );
                if let Ok(mut l) = self.lost.lock() {
                    *l = Some(msg.clone());
                }
                return Err(HostError::DeviceLost(msg));
            }
            Err(e) => return Err(HostError::Readback(e.to_string())),
        }
        let mut out = Vec::with_capacity(bufs.len());
        for ((buf, len), rx) in bufs.iter().zip(receivers) {
            match pollster::block_on(rx.receive()) {
                Some(Ok(())) => {}
                Some(Err(e)) => return Err(HostError::Readback(e.to_string())),
                None => return Err(HostError::Readback("map callback dropped".into())),
            }
            let view = buf
                .slice(..)
                .get_mapped_range()
                .map_err(|e| HostError::Readback(e.to_string()))?;
            let mut bytes = view.to_vec();
            drop(view);
            buf.unmap();
            bytes.truncate(*len as usize);
            out.push(bytes);
        }
        Ok(out)
    }

    /// [`Self::read_buffers`] of `bufs` and, when given, of the resolved timestamp
    /// pair `ts` (one wait): the buffers' bytes and the milliseconds between the pair.
    fn read_timed<'a>(
        &self,
        mut bufs: Vec<(&'a wgpu::Buffer, u64)>,
        ts: Option<&'a wgpu::Buffer>,
    ) -> Result<(Vec<Vec<u8>>, Option<f64>), HostError> {
        if let Some(t) = ts {
            bufs.push((t, 16));
        }
        let mut got = self.read_buffers(&bufs)?;
        let ms = ts.map(|_| self.elapsed_ms(&got.pop().unwrap_or_default()));
        Ok((got, ms))
    }

    /// Milliseconds between the two timestamps of a resolved query pair.
    fn elapsed_ms(&self, ts: &[u8]) -> f64 {
        let at = |k: usize| {
            ts.get(8 * k..8 * k + 8)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u64::from_le_bytes)
        };
        let period = self.queue.get_timestamp_period() as f64;
        at(1).saturating_sub(at(0)) as f64 * period / 1e6
    }
}
