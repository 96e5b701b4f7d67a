//! `visa-emu run KERNEL.visaasm --bin K.bin`: an IGC dump run without a case folder.
//! The kernel's vISA (text, or a `.isa` the emulator can decode) is paired by kernel
//! name with the `.bin` ocloc wrote; the `.bin`'s patch tokens give the device (so the
//! GRF size), the arguments' kinds, names and types, and `--set` gives their values.
//! The pair is copied into a variant folder (`DEVICE-simdN`) under the system's temp
//! directory, so that every later step is the one a case folder takes.

use crate::abi::{patch_tokens, ArgKind, KernelAbi};
use crate::corpus::case::{Case, CaseArg, NdRange};
use std::path::{Path, PathBuf};

/// A dump made runnable: its variant folder and the case its arguments will fill.
pub struct Adopted {
    pub variant: PathBuf,
    pub case: Case,
}

/// The corpus device name of a `.bin`'s GFXCORE family.
pub fn device_of_family(family: u32) -> Result<&'static str, String> {
    match family {
        12 => Ok("skl"),
        18 => Ok("tgllp"),
        3079 => Ok("acm-g10"),
        3080 => Ok("pvc"),
        f => Err(format!(
            "the .bin is for GFXCORE family {f}; the emulator knows 12 (Gen9, skl), 18 \
             (Gen12LP, tgllp), 3079 (Xe-HPG, acm-g10) and 3080 (Xe-HPC, pvc)"
        )),
    }
}

/// The numpy dtype of an OpenCL scalar type name (`None` for vectors and structs,
/// whose bytes come from a file).
pub fn scalar_dtype(cl_type: &str) -> Option<&'static str> {
    Some(match cl_type.trim() {
        "char" | "signed char" => "int8",
        "uchar" | "unsigned char" | "bool" => "uint8",
        "short" => "int16",
        "ushort" => "uint16",
        "int" => "int32",
        "uint" | "unsigned int" => "uint32",
        "long" => "int64",
        "ulong" | "size_t" | "uintptr_t" => "uint64",
        "ptrdiff_t" | "intptr_t" => "int64",
        "half" => "float16",
        "float" => "float32",
        "double" => "float64",
        _ => return None,
    })
}

/// Pair `kernel_file` with `bin`, copy both into a fresh variant folder under `work`
/// and describe the kernel's arguments (without values: `--set` gives them, and
/// [`missing_values`] names what is still missing).
pub fn adopt(kernel_file: &Path, bin: &Path, work: &Path) -> Result<Adopted, String> {
    let bytes = std::fs::read(bin).map_err(|e| format!("{}: {e}", bin.display()))?;
    // The device family is the program's, whichever kernel is asked.
    let (family, names) =
        patch_tokens::family_and_kernels(&bytes).map_err(|e| format!("{}: {e}", bin.display()))?;
    if names.is_empty() {
        return Err(format!("{}: the .bin holds no kernel", bin.display()));
    }
    let device = device_of_family(family)?;
    let grf = crate::corpus::paths::grf_bytes_of_device(device);
    let program = super::load_file(kernel_file, grf).map_err(|e| e.to_string())?;
    let kernel = program.kernels.first().ok_or_else(|| {
        format!(
            "{}: no kernel in it (a file of stack functions?)",
            kernel_file.display()
        )
    })?;
    let name = kernel.name.clone();
    if !names.contains(&name) {
        return Err(format!(
            "{} is kernel `{name}`, which {} does not hold (it holds {})",
            kernel_file.display(),
            bin.display(),
            names.join(", ")
        ));
    }
    let simd = kernel.simd_size().unwrap_or(8);
    let abi: KernelAbi = patch_tokens::find_kernel(&bytes, &name, grf)
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    let args = case_args(&abi)?;

    let variant = work.join(format!("{device}-simd{simd}"));
    std::fs::create_dir_all(&variant).map_err(|e| format!("{}: {e}", variant.display()))?;
    let copy = |from: &Path, to: &str| {
        std::fs::copy(from, variant.join(to))
            .map(|_| ())
            .map_err(|e| format!("{} -> {}: {e}", from.display(), variant.display()))
    };
    copy(bin, "kernel.bin")?;
    // The format is the contents' (`decode::load_bytes`), not the name's.
    let head = std::fs::read(kernel_file).map_err(|e| format!("{}: {e}", kernel_file.display()))?;
    copy(
        kernel_file,
        if head.starts_with(b"CISA") {
            "kernel.isa"
        } else {
            "kernel.visaasm"
        },
    )?;
    for (n, f) in super::function_files(kernel_file).iter().enumerate() {
        copy(f, &format!("kernel_f{n}.visaasm"))?;
    }
    let case = Case {
        name: Some(name.clone()),
        kernel: name,
        args,
        // `--global` (required for a dump) replaces it; the local size defaults to one
        // thread of the kernel's SIMD width.
        ndrange: NdRange {
            work_dim: 1,
            global_size: vec![simd as u64],
            local_size: vec![simd as u64],
            global_offset: Vec::new(),
        },
        outputs: Vec::new(),
        variants: Vec::new(),
        reference: None,
        seed: None,
        pocl_build_options: None,
        ocloc_options: None,
        dir: work.to_path_buf(),
    };
    Ok(Adopted { variant, case })
}

/// The case arguments of `abi`'s kernel arguments, without values.
fn case_args(abi: &KernelAbi) -> Result<Vec<CaseArg>, String> {
    let mut out = Vec::new();
    for a in &abi.args {
        let kind = match a.kind {
            ArgKind::Buffer => "buffer",
            ArgKind::Scalar => "scalar",
            ArgKind::Local => "local",
            ArgKind::Unused => continue,
            ArgKind::Image | ArgKind::Sampler => {
                return Err(format!(
                    "argument {} `{}` is an image or a sampler: its shape and format need a \
                     case folder (case.json's `image` entries; see tests/cases/image_rw)",
                    a.index, a.name
                ))
            }
        };
        let cl_type = a.type_name.clone();
        let dtype = match a.kind {
            ArgKind::Scalar => cl_type.as_deref().and_then(scalar_dtype),
            _ => None,
        };
        out.push(CaseArg {
            index: a.index,
            name: if a.name.is_empty() {
                format!("arg{}", a.index)
            } else {
                a.name.clone()
            },
            kind: kind.into(),
            cl_type,
            dtype: dtype.map(str::to_string),
            count: None,
            bytes: None,
            input_file: None,
            bytes_hex: None,
            value: None,
            struct_fields: None,
            size: None,
            is_output: a.kind == ArgKind::Buffer,
            image: None,
        });
    }
    Ok(out)
}

/// The arguments `--set` has not given a value, each with how to give one.
pub fn missing_values(case: &Case) -> Vec<String> {
    case.args
        .iter()
        .filter_map(|a| {
            let ty = a.cl_type.as_deref().unwrap_or("?");
            match a.kind.as_str() {
                "buffer" if a.input_file.is_none() && a.bytes.is_none() => Some(format!(
                    "{} ({ty}): --set {}=@FILE (its bytes) or --set {}=zeros:BYTES",
                    a.name, a.name, a.name
                )),
                "scalar" if a.bytes_hex.is_none() => Some(match a.dtype {
                    Some(_) => format!("{} ({ty}): --set {}=VALUE", a.name, a.name),
                    None => format!("{} ({ty}): --set {}=@FILE (its bytes)", a.name, a.name),
                }),
                "local" if a.bytes.is_none() => {
                    Some(format!("{} ({ty}): --set {}=BYTES", a.name, a.name))
                }
                _ => None,
            }
        })
        .collect()
}

/// Write the dump's run as a case folder `dir` in the corpus layout: the variant folder
/// (kernel file and `.bin`), `inputs/` (every buffer's initial bytes), `case.json` with
/// the arguments, the NDRange and, as the expected outputs, `buffers` (this run's final
/// bytes, compared exactly), so that `run`, `validate`, `bench` and `conformance` take
/// it from then on. `reference` says what produced the outputs.
pub fn save_case(
    dir: &Path,
    variant: &Path,
    case: &Case,
    buffers: &[(String, Vec<u8>)],
    reference: &str,
) -> Result<(), String> {
    let io = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    if dir.join("case.json").exists() {
        return Err(format!(
            "{} already holds a case.json; --save-case writes a new case folder",
            dir.display()
        ));
    }
    let vname = variant
        .file_name()
        .ok_or("the variant folder has no name")?
        .to_string_lossy()
        .into_owned();
    let vdir = dir.join(&vname);
    for sub in [vdir.clone(), dir.join("inputs"), dir.join("expected")] {
        std::fs::create_dir_all(&sub).map_err(|e| io(&sub, e))?;
    }
    for e in std::fs::read_dir(variant).map_err(|e| io(variant, e))? {
        let from = e.map_err(|e| io(variant, e))?.path();
        if let Some(name) = from.file_name() {
            std::fs::copy(&from, vdir.join(name)).map_err(|e| io(&from, e))?;
        }
    }
    let mut args = Vec::new();
    for a in &case.args {
        let mut j = serde_json::json!({
            "index": a.index, "name": a.name, "kind": a.kind, "cl_type": a.cl_type,
            "is_output": a.kind == "buffer",
        });
        match a.kind.as_str() {
            "buffer" => {
                let data = case.input_bytes(a).map_err(|e| e.to_string())?;
                let file = format!("inputs/{}.bin", a.name);
                std::fs::write(dir.join(&file), &data).map_err(|e| io(&dir.join(&file), e))?;
                j["bytes"] = data.len().into();
                j["input_file"] = file.into();
            }
            "scalar" => {
                j["dtype"] = a.dtype.clone().into();
                j["bytes_hex"] = a.bytes_hex.clone().into();
            }
            _ => j["bytes"] = a.bytes.into(),
        }
        args.push(j);
    }
    let mut outputs = Vec::new();
    for (name, bytes) in buffers {
        let file = format!("expected/{name}.bin");
        std::fs::write(dir.join(&file), bytes).map_err(|e| io(&dir.join(&file), e))?;
        outputs.push(serde_json::json!({
            "arg": name, "file": file, "dtype": "uint8", "count": bytes.len(),
            "tolerance": {"type": "exact"},
        }));
    }
    let (device, simd) = vname
        .rsplit_once("-simd")
        .map(|(d, s)| (d.to_string(), s.parse::<u32>().unwrap_or(0)))
        .unwrap_or_default();
    let n = &case.ndrange;
    let json = serde_json::json!({
        "name": case.name, "kernel": case.kernel, "args": args,
        "ndrange": {
            "work_dim": n.work_dim, "global_size": n.global_size,
            "local_size": n.local_size, "global_offset": n.global_offset,
        },
        "outputs": outputs,
        "variants": [{"dir": vname, "device": device, "simd": simd}],
        "reference": reference,
    });
    let path = dir.join("case.json");
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    std::fs::write(&path, text + "\n").map_err(|e| io(&path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_and_scalar_types_map_or_say_what_is_known() {
        assert_eq!(device_of_family(18), Ok("tgllp"));
        assert_eq!(device_of_family(3080), Ok("pvc"));
        let e = device_of_family(7).unwrap_err();
        assert!(e.contains("family 7") && e.contains("3079"), "{e}");
        assert_eq!(scalar_dtype("uint"), Some("uint32"));
        assert_eq!(scalar_dtype("double"), Some("float64"));
        assert_eq!(scalar_dtype("float4"), None);
        assert_eq!(scalar_dtype("struct Params"), None);
    }
}
