//! `visa-emu run`: one compiled variant with the case folder's arguments, changed by
//! `--set NAME=@FILE` (buffer contents) or `--set NAME=LITERAL` (scalars, in the
//! argument's dtype), an NDRange from `--global`/`--local`, outputs written to files.

use crate::corpus::case::Case;

/// Parse `64`, `64,48` or `4,3,2` into sizes.
/// The case folder of `variant` (CASE/DEVICE-simdN: its parent holds `case.json`), or
/// what the path is instead: a case folder (its variants named), or neither.
pub fn case_dir_of(variant: &std::path::Path) -> Result<std::path::PathBuf, String> {
    let is_case = |d: &std::path::Path| d.join("case.json").is_file();
    if let Some(parent) = variant.parent().filter(|p| is_case(p)) {
        return Ok(parent.to_path_buf());
    }
    if is_case(variant) {
        let mut variants: Vec<String> = std::fs::read_dir(variant)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| {
                ["kernel.bin", "kernel.isa", "kernel.visaasm"]
                    .iter()
                    .any(|k| e.path().join(k).is_file())
            })
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        variants.sort();
        return Err(format!(
            "{} is a case folder; run takes one of its variant folders (CASE/DEVICE-simdN): {}",
            variant.display(),
            if variants.is_empty() {
                "it has none".to_string()
            } else {
                variants.join(", ")
            }
        ));
    }
    Err(format!(
        "{} is not a variant folder: expected CASE/DEVICE-simdN, whose parent holds case.json",
        variant.display()
    ))
}

pub fn sizes(s: &str) -> Result<Vec<u64>, String> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<u64>()
                .map_err(|_| format!("`{x}` is not a size in `{s}`"))
        })
        .collect()
}

/// Little-endian bytes of `lit` as `dtype` (numpy names).
pub fn literal_bytes(dtype: &str, lit: &str) -> Result<Vec<u8>, String> {
    let bad = || format!("`{lit}` is not a {dtype} literal");
    let int =
        || -> Result<i128, String> { crate::decode::text::lex::parse_int(lit).ok_or_else(bad) };
    Ok(match dtype {
        "float32" => lit
            .parse::<f32>()
            .map_err(|_| bad())?
            .to_le_bytes()
            .to_vec(),
        "float64" => lit
            .parse::<f64>()
            .map_err(|_| bad())?
            .to_le_bytes()
            .to_vec(),
        "float16" => half::f16::from_f32(lit.parse::<f32>().map_err(|_| bad())?)
            .to_le_bytes()
            .to_vec(),
        "int8" | "uint8" => vec![int()? as u8],
        "int16" | "uint16" => (int()? as u16).to_le_bytes().to_vec(),
        "int32" | "uint32" => (int()? as u32).to_le_bytes().to_vec(),
        "int64" | "uint64" => (int()? as u64).to_le_bytes().to_vec(),
        _ => {
            return Err(format!(
                "argument dtype `{dtype}` takes no literal; use NAME=@FILE"
            ))
        }
    })
}

/// Apply `NAME=@FILE` / `NAME=LITERAL` to the case.
pub fn apply_set(case: &mut Case, set: &str) -> Result<(), String> {
    let (name, value) = set
        .split_once('=')
        .ok_or_else(|| format!("--set `{set}`: expected NAME=@FILE or NAME=VALUE"))?;
    let arg = case
        .args
        .iter_mut()
        .find(|a| a.name == name)
        .ok_or_else(|| format!("--set: the kernel has no argument `{name}`"))?;
    let kind = arg.kind.clone();
    let int = || {
        crate::decode::text::lex::parse_int(value)
            .and_then(|v| u64::try_from(v).ok())
            .ok_or_else(|| format!("--set {name}: `{value}` is not a non-negative integer"))
    };
    match (kind.as_str(), value.strip_prefix('@')) {
        ("buffer" | "image", Some(file)) => {
            let path = std::fs::canonicalize(file).map_err(|e| format!("{file}: {e}"))?;
            let len = std::fs::metadata(&path)
                .map_err(|e| format!("{file}: {e}"))?
                .len();
            arg.input_file = Some(path.display().to_string());
            arg.bytes = Some(len);
        }
        // A buffer of that many zero bytes.
        ("buffer", None) if value.starts_with("zeros:") => {
            let n = crate::decode::text::lex::parse_int(&value["zeros:".len()..])
                .and_then(|v| u64::try_from(v).ok())
                .filter(|&v| v <= 1 << 30)
                .ok_or_else(|| {
                    format!("--set {name}: `{value}` is not zeros:BYTES (at most 1 GiB)")
                })?;
            arg.input_file = None;
            arg.bytes = Some(n);
        }
        ("buffer" | "image", None) => {
            return Err(format!(
                "--set {name}: the {kind} argument takes its contents from a file: {name}=@FILE{}",
                if kind == "buffer" {
                    " (or zeros:BYTES)"
                } else {
                    ""
                }
            ))
        }
        // The CLK_* bits of a sampler, the bytes of a __local buffer.
        ("sampler", None) => arg.value = Some(serde_json::Value::from(int()?)),
        ("local", None) => arg.bytes = Some(int()?),
        ("scalar", None) => {
            let dtype = arg.dtype.clone().unwrap_or_else(|| "int32".into());
            let bytes = literal_bytes(&dtype, value)?;
            arg.bytes_hex = Some(bytes.iter().map(|b| format!("{b:02x}")).collect());
        }
        ("scalar", Some(file)) => {
            let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
            arg.bytes_hex = Some(bytes.iter().map(|b| format!("{b:02x}")).collect());
        }
        (k, _) => {
            return Err(format!(
                "--set {name}: the {k} argument takes no such value"
            ))
        }
    }
    Ok(())
}

/// `--scale K`: K times the work-items in dimension 0, every buffer argument's initial
/// contents repeated K times (written under `tmp`). Scalars stay: change a size
/// argument with `--set` as the kernel needs.
pub fn scale_case(case: &mut Case, k: u64, tmp: &std::path::Path) -> Result<(), String> {
    if k <= 1 {
        return Ok(());
    }
    let g = case
        .ndrange
        .global_size
        .first_mut()
        .ok_or("the case has no NDRange")?;
    *g *= k;
    std::fs::create_dir_all(tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let inputs: Vec<Option<Vec<u8>>> = case
        .args
        .iter()
        .map(|a| {
            (a.kind == "buffer")
                .then(|| case.input_bytes(a))
                .transpose()
        })
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    for (a, data) in case.args.iter_mut().zip(inputs) {
        let Some(data) = data else { continue };
        let tiled = data.repeat(k as usize);
        let path = tmp.join(format!("{}.bin", a.name));
        std::fs::write(&path, &tiled).map_err(|e| format!("{}: {e}", path.display()))?;
        a.input_file = Some(path.display().to_string());
        a.bytes = Some(tiled.len() as u64);
        a.count = a.count.map(|c| c * k);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_folder_or_a_stray_folder_is_named_for_what_it_is() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let saxpy = root.join("tests/corpus/saxpy");
        assert_eq!(case_dir_of(&saxpy.join("tgllp-simd16")).unwrap(), saxpy);
        let e = case_dir_of(&saxpy).unwrap_err();
        assert!(
            e.contains("is a case folder") && e.contains("tgllp-simd16"),
            "{e}"
        );
        let e = case_dir_of(&root.join("src")).unwrap_err();
        assert!(e.contains("is not a variant folder"), "{e}");
    }

    #[test]
    fn literals_and_sizes() {
        assert_eq!(
            literal_bytes("float32", "2.5").unwrap(),
            2.5f32.to_le_bytes()
        );
        assert_eq!(literal_bytes("uint32", "0x10").unwrap(), vec![16, 0, 0, 0]);
        assert_eq!(literal_bytes("int16", "-1").unwrap(), vec![0xff, 0xff]);
        assert!(literal_bytes("float32", "x").is_err());
        assert_eq!(sizes("64,48").unwrap(), vec![64, 48]);
        assert!(sizes("6a").is_err());
    }

    /// `--set` changes what the argument's kind reads (a sampler's CLK_* value, a local
    /// buffer's size, a scalar's bytes) and refuses what it would ignore.
    #[test]
    fn set_follows_the_argument_kind() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/image_sampler_arg");
        let mut case = Case::load(&dir).unwrap();
        apply_set(&mut case, "s_edge=0x14").unwrap();
        assert_eq!(
            case.arg("s_edge").unwrap().value,
            Some(serde_json::json!(0x14))
        );
        assert!(apply_set(&mut case, "img=3")
            .unwrap_err()
            .contains("=@FILE"));
        assert!(apply_set(&mut case, "s_edge=@x").is_err());
        assert!(apply_set(&mut case, "nothing=1").is_err());
        let saxpy = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/saxpy");
        let mut case = Case::load(&saxpy).unwrap();
        apply_set(&mut case, "n=7").unwrap();
        assert_eq!(
            case.arg("n").unwrap().bytes_hex.as_deref(),
            Some("07000000")
        );
    }
}
