//! The `.visaasm` text parser (IGC's syntax; the corpus files are the reference).
//!
//! Two passes per kernel: declarations and labels first (labels may be used before they
//! are defined), then instructions. `.function "X"` followed by `X:` in IGC 4.x text is a
//! subroutine label inside the kernel (the target of `call`), not a separate object.

mod decls;
mod inst;
pub mod lex;
mod operand;

pub use decls::{
    empty_kernel, predefined_surfaces, predefined_vars, FIRST_USER_SURFACE, FIRST_USER_VAR,
    PREDEFINED_SURFACES,
};

use crate::ir::*;
use crate::isa::Opcode;
use decls::Symbols;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("line {line}, column {column}: expected {expected}, found `{found}`")]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub expected: String,
    pub found: String,
}

pub(crate) fn err(line: usize, column: usize, expected: &str, found: &str) -> ParseError {
    let mut found: String = found.chars().take(60).collect();
    if found.is_empty() {
        found = "nothing".into();
    }
    ParseError {
        line,
        column,
        expected: expected.to_string(),
        found,
    }
}

/// A kernel's lines, split by kind during the first pass.
struct KernelText<'a> {
    kind: ObjectKind,
    name: String,
    funcdecls: Vec<String>,
    line: usize,
    decls: Vec<(usize, &'a str)>,
    inputs: Vec<(usize, &'a str, u8)>,
    attrs: Vec<(usize, &'a str)>,
    /// Body items: instruction text, or a label (`is_subroutine`).
    body: Vec<BodyLine<'a>>,
}

enum BodyLine<'a> {
    Inst(usize, &'a str),
    Label(usize, String, LabelKind),
}

fn new_kernel(kind: ObjectKind, name: String, line: usize) -> KernelText<'static> {
    KernelText {
        kind,
        name,
        funcdecls: Vec::new(),
        line,
        decls: Vec::new(),
        inputs: Vec::new(),
        attrs: Vec::new(),
        body: Vec::new(),
    }
}

/// `"text"`, with no `"` inside (the printer writes names back between quotes).
fn quoted(s: &str, line: usize, what: &str) -> Result<String, ParseError> {
    let s = s.trim();
    s.strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .filter(|x| !x.contains('"'))
        .map(str::to_string)
        .ok_or_else(|| err(line, 1, what, s))
}

/// Parse `.visaasm` text. `grf_bytes` is the target's GRF size (32, or 64 on PVC).
pub fn parse_visaasm(text: &str, grf_bytes: u32) -> Result<Program, ParseError> {
    if grf_bytes != 32 && grf_bytes != 64 {
        return Err(err(
            0,
            0,
            "a GRF size of 32 or 64 bytes",
            &grf_bytes.to_string(),
        ));
    }
    let mut version = None;
    let mut kernels: Vec<KernelText> = Vec::new();
    let mut pending_function: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = lex::strip_comment(raw).trim();
        if l.is_empty() {
            continue;
        }
        let (word, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
        if word == ".version" {
            let (ma, mi) = rest
                .trim()
                .split_once('.')
                .ok_or_else(|| err(line, 10, "`.version MAJOR.MINOR`", rest))?;
            let p = |x: &str| {
                x.trim()
                    .parse::<u8>()
                    .map_err(|_| err(line, 10, "a version number", x))
            };
            let v = (p(ma)?, p(mi)?);
            if v != (4, 1) && v != (4, 2) {
                return Err(err(line, 10, "vISA version 4.1 or 4.2", rest.trim()));
            }
            // Concatenated dumps (a kernel and its functions) repeat the line.
            if version.is_some_and(|old| old != v) {
                return Err(err(
                    line,
                    10,
                    "the version of the first object",
                    rest.trim(),
                ));
            }
            version = Some(v);
            continue;
        }
        if word == ".kernel" || word == ".global_function" {
            let (kind, what) = if word == ".kernel" {
                (ObjectKind::Kernel, "a quoted kernel name")
            } else {
                (ObjectKind::Function, "a quoted function name")
            };
            kernels.push(new_kernel(kind, quoted(rest, line, what)?, line));
            continue;
        }
        let Some(k) = kernels.last_mut() else {
            return Err(err(
                line,
                1,
                "`.version` or `.kernel` (or `.global_function`) first",
                l,
            ));
        };
        match word {
            ".decl" => k.decls.push((line, rest)),
            ".input" => k.inputs.push((line, rest, 0)),
            ".kernel_attr" => k.attrs.push((line, rest)),
            ".funcdecl" => k
                .funcdecls
                .push(quoted(rest, line, "a quoted function name")?),
            ".function" => {
                // The name is also the subroutine's label (`name:`): one word.
                let name = quoted(rest, line, "a quoted function name")?;
                if name.is_empty() || name.contains(char::is_whitespace) {
                    return Err(err(line, 1, "a function name without spaces", &name));
                }
                pending_function = Some(name.clone());
                k.body
                    .push(BodyLine::Label(line, name, LabelKind::Subroutine));
            }
            w if w.starts_with(".implicit_") => {
                let prov = match &w[".implicit_".len()..] {
                    "LOCAL_SIZE" => 1,
                    "GROUP_COUNT" => 2,
                    "LOCAL_ID" => 3,
                    other => other
                        .strip_prefix("UNDEFINED_")
                        .and_then(|n| n.parse::<u8>().ok())
                        .ok_or_else(|| err(line, 1, "a known .implicit_ directive", w))?,
                };
                k.inputs.push((line, rest, prov));
            }
            w if w.starts_with('.') => return Err(err(line, 1, "a known directive", w)),
            _ => {
                if let Some(name) = l
                    .strip_suffix(':')
                    .filter(|n| !n.contains(char::is_whitespace))
                {
                    // The label line that follows `.function "X"` names the same subroutine.
                    if pending_function.take().as_deref() == Some(name) {
                        continue;
                    }
                    k.body
                        .push(BodyLine::Label(line, name.to_string(), LabelKind::Block));
                } else {
                    pending_function = None;
                    k.body.push(BodyLine::Inst(line, l));
                }
            }
        }
    }
    let version = version.ok_or_else(|| err(1, 1, "`.version 4.1`", "no version"))?;
    let objects = kernels
        .into_iter()
        .map(build_kernel)
        .collect::<Result<Vec<_>, _>>()?;
    if objects.is_empty() {
        return Err(err(1, 1, "a `.kernel` or `.global_function`", "none"));
    }
    let (kernels, functions) = objects
        .into_iter()
        .partition(|k| k.kind == ObjectKind::Kernel);
    Ok(Program {
        version,
        grf_bytes,
        kernels,
        functions,
    })
}

fn build_kernel(t: KernelText) -> Result<Kernel, ParseError> {
    let mut k = empty_kernel(t.name);
    k.kind = t.kind;
    k.func_decls = t.funcdecls;
    let mut sym = Symbols::default();
    for (i, v) in k.vars.iter().enumerate() {
        sym.vars.insert(v.name.clone(), VarId(i as u32));
    }
    for (i, s) in k.surfaces.iter().enumerate() {
        sym.surfaces.insert(s.name.clone(), StateId(i as u16));
    }
    let mut aliases = Vec::new();
    for (line, rest) in &t.decls {
        decls::decl(&mut k, &mut sym, rest, *line, &mut aliases)?;
    }
    decls::resolve_aliases(&mut k, &sym, aliases)?;
    for (line, rest, prov) in &t.inputs {
        decls::input(&mut k, &sym, rest, *line, *prov)?;
    }
    for (line, a) in &t.attrs {
        let attr = decls::attribute(a.trim(), *line)?;
        // A function's `.kernel_attr ArgSize=N RetValSize=M` are its FCALL sizes.
        for (name, slot) in [
            ("ArgSize", &mut k.arg_size),
            ("RetValSize", &mut k.ret_size),
        ] {
            if attr.name == name {
                *slot = match &attr.value {
                    AttrValue::Int(v) => u8::try_from(*v).ok(),
                    _ => None,
                }
                .ok_or_else(|| err(*line, 1, "a size in GRFs (0-255)", a.trim()))?;
            }
        }
        k.attributes.push(attr);
    }
    for b in &t.body {
        if let BodyLine::Label(line, name, kind) = b {
            if sym.labels.contains_key(name) {
                return Err(err(*line, 1, "a label defined once", name));
            }
            sym.labels
                .insert(name.clone(), LabelId(k.labels.len() as u16));
            k.labels.push(Label {
                name: name.clone(),
                kind: *kind,
                attrs: Vec::new(),
            });
        }
    }
    for b in &t.body {
        match b {
            BodyLine::Inst(line, text) => k.body.push(inst::instruction(text, *line, &sym)?),
            BodyLine::Label(_, name, kind) => {
                let id = sym.labels[name];
                let op = match kind {
                    LabelKind::Block => Opcode::Label,
                    LabelKind::Subroutine => Opcode::Subroutine,
                };
                k.body.push(Instruction {
                    op,
                    fields: vec![Field::Label(id)],
                });
            }
        }
    }
    let _ = t.line;
    Ok(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_saxpy_and_reports_positions() {
        let dir = crate::corpus::paths::default_corpus_dir().join("saxpy/tgllp-simd16");
        let text = std::fs::read_to_string(dir.join("kernel.visaasm")).unwrap();
        let p = parse_visaasm(&text, 32).unwrap();
        let k = &p.kernels[0];
        assert_eq!(k.name, "saxpy");
        assert_eq!(k.simd_size(), Some(16));
        assert_eq!(k.inputs.len(), 9);
        let bad = text.replace("mad (M1, 16)", "mad (M9, 16)");
        let e = parse_visaasm(&bad, 32).unwrap_err();
        assert!(e.expected.contains("mask control"), "{e}");
        assert!(e.line > 60 && e.column > 1, "{e}");
    }

    /// LSC_TYPED's 2D blocks: the shape and position errors name what was expected, on
    /// the instruction's line.
    #[test]
    fn typed_block2d_text_errors_name_the_rule() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/cases/image_block_typed2d/acm-g10-simd8/kernel.visaasm");
        let text = std::fs::read_to_string(path).unwrap();
        let p = parse_visaasm(&text, 32).unwrap();
        let typed = p.kernels[0]
            .body
            .iter()
            .filter(|i| i.op == crate::isa::Opcode::LscTyped)
            .count();
        assert_eq!(typed, 2);
        let line = text
            .lines()
            .position(|l| l.contains("lsc_load_block2d.tgm"))
            .unwrap()
            + 1;
        for (from, to, expected) in [
            (":32x2", ":65x2", "a block dimension 1..=64"),
            (":32x2", ":32", "block2d data `V:WxH`"),
            (
                ",V0082(0,0)<0;1,0>]",
                ",V0082(0,0)<0;1,0>,0x1]",
                "two block2d positions",
            ),
            ("bti(0x0)", "btx(0x0)", "an address model"),
            (
                "lsc_load_block2d.tgm ",
                "(P1) lsc_load_block2d.tgm ",
                "no predicate",
            ),
        ] {
            let bad = text.replacen(from, to, 1);
            assert_ne!(bad, text, "{from}");
            let e = parse_visaasm(&bad, 32).unwrap_err();
            assert!(e.expected.contains(expected), "{to}: {e}");
            assert_eq!(e.line, line, "{to}: {e}");
        }
    }
}
