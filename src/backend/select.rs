//! `--backend` for the commands that execute kernels: parse the name, open the GPU
//! device it asks for, and decide `auto` (a hardware GPU when one can run the
//! translator's output, else the CPU interpreter, with a notice saying why).

use visa_emu_host::{AdapterSummary, BackendChoice, GpuContext, GpuOptions};

/// What `--backend` asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendArg {
    /// The reference interpreter.
    Cpu,
    /// A hardware GPU if one is usable, else the interpreter.
    Auto,
    /// The GPU path on this wgpu backend (`Any`: the best adapter of every backend).
    Gpu(BackendChoice),
}

impl std::str::FromStr for BackendArg {
    type Err = String;
    fn from_str(s: &str) -> Result<BackendArg, String> {
        Ok(match s {
            "cpu" => BackendArg::Cpu,
            "auto" => BackendArg::Auto,
            "gpu" | "any" => BackendArg::Gpu(BackendChoice::Any),
            "vulkan" => BackendArg::Gpu(BackendChoice::Vulkan),
            "metal" => BackendArg::Gpu(BackendChoice::Metal),
            "dx12" => BackendArg::Gpu(BackendChoice::Dx12),
            "gl" => BackendArg::Gpu(BackendChoice::Gl),
            other => {
                return Err(format!(
                    "unknown backend `{other}`: expected auto, cpu, gpu, vulkan, metal, dx12 or gl"
                ))
            }
        })
    }
}

/// Device options beyond the backend: the adapter index and forced fallbacks.
#[derive(Clone, Debug, Default)]
pub struct DeviceArgs {
    pub adapter: Option<usize>,
    pub no_subgroups: bool,
    pub no_f16: bool,
    pub no_f64: bool,
    pub no_int64: bool,
}

/// Every adapter of every wgpu backend, each opened with default options (the
/// error text where it cannot be).
pub fn open_each() -> Vec<(BackendChoice, AdapterSummary, Result<GpuContext, String>)> {
    let mut out = Vec::new();
    for b in [
        BackendChoice::Vulkan,
        BackendChoice::Metal,
        BackendChoice::Dx12,
        BackendChoice::Gl,
    ] {
        for a in GpuContext::adapters(b) {
            let ctx = GpuContext::new(&GpuOptions {
                backend: b,
                adapter: Some(a.index),
                ..Default::default()
            })
            .map_err(|e| e.to_string());
            out.push((b, a, ctx));
        }
    }
    out
}

/// Why a GPU context cannot run the translator's output, if it cannot. Missing
/// 64-bit types are not a reason: the driver lowers the modules to exact emulation
/// (`translate::lower64`, see [`emulation`]).
pub fn unusable(ctx: &GpuContext) -> Option<String> {
    let c = ctx.capabilities();
    let need = crate::translate::binding::STORAGE;
    (c.max_storage_buffers_per_stage < need).then(|| {
        format!(
            "the adapter '{}' binds {} storage buffers per stage; the translated modules use {need}",
            ctx.adapter().name,
            c.max_storage_buffers_per_stage
        )
    })
}

/// The 64-bit families the GPU path emulates on this device: what it lacks, plus
/// what `VISA_GPU_EMULATE` (`f64`, `int64` or `all`) forces on any device.
pub fn emulation(ctx: &GpuContext) -> crate::translate::lower64::Emulate {
    let c = ctx.capabilities();
    let forced = forced_emulation();
    crate::translate::lower64::Emulate::for_features(c.f64 && !forced.f64, c.int64 && !forced.int64)
}

/// Whether `VISA_GPU_EMULATE` (a comma-separated list) names `word`.
pub fn emulate_env_names(word: &str) -> bool {
    std::env::var("VISA_GPU_EMULATE")
        .unwrap_or_default()
        .split(',')
        .any(|x| x.trim() == word)
}

/// `VISA_GPU_EMULATE`: `f64`, `int64`, `all` (both), or unset/`none`.
pub fn forced_emulation() -> crate::translate::lower64::Emulate {
    let has = |w: &str| emulate_env_names(w) || emulate_env_names("all");
    crate::translate::lower64::Emulate {
        f64: has("f64"),
        int64: has("int64"),
    }
}

/// Open the device `arg` asks for; `Ok(None)` means "use the CPU interpreter".
/// `notice` receives one line when `auto` falls back.
pub fn open(
    arg: BackendArg,
    dev: &DeviceArgs,
    notice: &mut dyn FnMut(&str),
) -> Result<Option<GpuContext>, String> {
    let opts = |backend| GpuOptions {
        backend,
        adapter: dev.adapter,
        disable_subgroups: dev.no_subgroups,
        disable_f16: dev.no_f16,
        disable_f64: dev.no_f64,
        disable_int64: dev.no_int64,
        distrust_floats: false,
    };
    match arg {
        BackendArg::Cpu => Ok(None),
        BackendArg::Gpu(b) => {
            let ctx = GpuContext::new(&opts(b)).map_err(|e| e.to_string())?;
            match unusable(&ctx) {
                Some(why) => Err(format!("{why}: pick another adapter or use --backend cpu")),
                None => Ok(Some(ctx)),
            }
        }
        BackendArg::Auto => {
            let ctx = match GpuContext::new(&opts(BackendChoice::Any)) {
                Ok(c) => c,
                Err(e) => {
                    notice(&format!("using the CPU interpreter: {e}"));
                    return Ok(None);
                }
            };
            if ctx.adapter().device_type == "Cpu" {
                notice(&format!(
                    "using the CPU interpreter: the only adapter is the software '{}' \
                     (--backend vulkan runs the GPU path on it anyway)",
                    ctx.adapter().name
                ));
                return Ok(None);
            }
            if let Some(why) = unusable(&ctx) {
                notice(&format!("using the CPU interpreter: {why}"));
                return Ok(None);
            }
            Ok(Some(ctx))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_names() {
        assert_eq!("cpu".parse::<BackendArg>(), Ok(BackendArg::Cpu));
        assert_eq!(
            "vulkan".parse::<BackendArg>(),
            Ok(BackendArg::Gpu(BackendChoice::Vulkan))
        );
        let e = "cuda".parse::<BackendArg>().unwrap_err();
        assert!(e.contains("`cuda`") && e.contains("vulkan"), "{e}");
    }
}
