//! Declarations: `.decl`, `.input`, `.kernel_attr`, labels; and the symbol tables
//! with the pre-defined entries in the ids the binary gives them.

use super::{err, ParseError};
use crate::ir::*;
use std::collections::HashMap;

/// Ids below this are reserved for pre-defined general variables (V0..V31).
pub const FIRST_USER_VAR: u32 = 32;
/// Surfaces T0..T5 are pre-defined.
pub const FIRST_USER_SURFACE: u16 = 6;

/// Names of the pre-defined surfaces T0..T5, as IGC 4.1 lists them.
pub const PREDEFINED_SURFACES: [&str; 6] = ["%slm", "T1", "T2", "TSS", "%bss", "%scratch"];

/// The pre-defined general variables, then reserved placeholders up to V31.
pub fn predefined_vars() -> Vec<GeneralVar> {
    (0..FIRST_USER_VAR)
        .map(|i| {
            let p = PredefinedVar::ALL.get(i as usize).copied();
            GeneralVar {
                name: p.map_or(format!("V{i}"), |p| p.text().to_string()),
                ty: DataType::UD,
                align: Align::Dword,
                num_elements: predefined_elements(p),
                alias: None,
                attrs: Vec::new(),
                predefined: p,
            }
        })
        .collect()
}

/// Element counts (UD) of the pre-defined variables, from 4_visa_header's table.
fn predefined_elements(p: Option<PredefinedVar>) -> u32 {
    use PredefinedVar::*;
    match p {
        Some(R0) => 8,
        Some(Arg) => 256,
        Some(RetVal) => 96,
        Some(Sr0) => 4,
        Some(Tsc) => 5,
        Some(ImplArgBufPtr) | Some(LocalIdBufPtr) => 2,
        // The table says 1 UD, but IGC's stack calls use both as 64-bit A64 pointers
        // (`.decl V type=uq alias=<%sp, 0>`, tests/cases/stack_calls): 8 bytes each, so
        // that a write to %sp's high dword does not land in %fp.
        Some(Sp) | Some(Fp) => 2,
        _ => 1,
    }
}

pub fn predefined_surfaces() -> Vec<StateVar> {
    PREDEFINED_SURFACES
        .iter()
        .map(|n| StateVar {
            name: n.to_string(),
            num_elements: 1,
            attrs: Vec::new(),
            predefined: true,
        })
        .collect()
}

/// A kernel with only the pre-defined symbols (V0..V31, P0, T0..T5), as both decoders
/// start one: ids of declared symbols follow, exactly as the binary numbers them.
pub fn empty_kernel(name: String) -> Kernel {
    Kernel {
        kind: ObjectKind::Kernel,
        name,
        vars: predefined_vars(),
        addrs: Vec::new(),
        preds: vec![PredVar {
            name: "P0".into(),
            num_elements: 32,
            attrs: Vec::new(),
        }],
        labels: Vec::new(),
        samplers: Vec::new(),
        surfaces: predefined_surfaces(),
        inputs: Vec::new(),
        attributes: Vec::new(),
        body: Vec::new(),
        func_decls: Vec::new(),
        arg_size: 0,
        ret_size: 0,
    }
}

/// Name -> id maps of one kernel under construction.
#[derive(Default)]
pub struct Symbols {
    pub vars: HashMap<String, VarId>,
    pub addrs: HashMap<String, AddrId>,
    pub preds: HashMap<String, PredId>,
    pub surfaces: HashMap<String, StateId>,
    pub samplers: HashMap<String, StateId>,
    pub labels: HashMap<String, LabelId>,
}

/// Parse `key=value` pairs after the name in a `.decl`; `alias=<V, 0>` and
/// `attrs={...}` keep their brackets.
fn key_values(rest: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let b = rest.as_bytes();
    let mut parts = Vec::new();
    for (i, c) in rest.char_indices() {
        match c {
            '<' | '{' => depth += 1,
            '>' | '}' => depth -= 1,
            _ => {}
        }
        if c.is_whitespace() && depth == 0 {
            if i > start {
                parts.push(&rest[start..i]);
            }
            // Past the whole character: Unicode spaces are several bytes long.
            start = i + c.len_utf8();
        }
    }
    if start < b.len() {
        parts.push(&rest[start..]);
    }
    for p in parts {
        match p.split_once('=') {
            Some((k, v)) => out.push((k.trim(), v.trim())),
            None => out.push((p.trim(), "")),
        }
    }
    out
}

fn parse_attrs(v: &str, line: usize) -> Result<Vec<Attribute>, ParseError> {
    let inner = v
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .ok_or_else(|| err(line, 1, "attrs={...}", v))?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|a| attribute(a, line))
        .collect()
}

/// `name[=value]` as an attribute; quoted values are strings, numbers integers. A `"`
/// anywhere but around the whole value is refused: the printer could not write such a
/// string back (cargo fuzz found `Target="3d` printed as `Target=""3d"`).
pub fn attribute(a: &str, line: usize) -> Result<Attribute, ParseError> {
    let (name, value) = match a.split_once('=') {
        None => (a.trim(), AttrValue::Flag),
        Some((n, v)) => {
            let v = v.trim();
            let quoted = v.strip_prefix('"').map(|s| s.strip_suffix('"'));
            let value = if let Some(s) = quoted {
                match s.filter(|s| !s.contains('"')) {
                    Some(s) => AttrValue::Str(s.to_string()),
                    None => return Err(err(line, 1, "a string closed by `\"` (none inside)", v)),
                }
            } else if let Some(i) = super::lex::parse_int(v).and_then(|i| i64::try_from(i).ok()) {
                AttrValue::Int(i)
            } else if v.contains('"') {
                return Err(err(line, 1, "an attribute value without `\"` inside", v));
            } else {
                AttrValue::Str(v.to_string())
            };
            (n.trim(), value)
        }
    };
    if name.contains('"') {
        return Err(err(line, 1, "an attribute name without `\"`", name));
    }
    Ok(Attribute {
        name: name.to_string(),
        value,
    })
}

fn number(v: &str, line: usize, what: &str) -> Result<u32, ParseError> {
    super::lex::parse_int(v)
        .and_then(|i| u32::try_from(i).ok())
        .ok_or_else(|| err(line, 1, what, v))
}

/// A `.decl` whose alias target may be declared later: resolved after all decls.
pub struct PendingAlias {
    pub var: VarId,
    pub base: String,
    pub offset: u32,
    pub line: usize,
}

/// Parse one `.decl` line (without the `.decl` keyword) into `k`.
pub fn decl(
    k: &mut Kernel,
    sym: &mut Symbols,
    rest: &str,
    line: usize,
    aliases: &mut Vec<PendingAlias>,
) -> Result<(), ParseError> {
    let rest = rest.trim();
    let (name, tail) = rest
        .split_once(char::is_whitespace)
        .ok_or_else(|| err(line, 1, "`.decl NAME v_type=...`", rest))?;
    // Operands name variables with these characters only (`operand::ident`): a name
    // beyond them could be declared but never written back (cargo fuzz find).
    let plain =
        |(i, c): (usize, char)| c.is_ascii_alphanumeric() || c == '_' || (c == '%' && i == 0);
    if !name.char_indices().all(plain) {
        return Err(err(
            line,
            1,
            "a name of letters, digits and `_` (a leading `%` allowed)",
            name,
        ));
    }
    let kv = key_values(tail);
    let get = |key: &str| kv.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    let vtype = get("v_type").ok_or_else(|| err(line, 1, "v_type=G|A|P|S|T", tail))?;
    let attrs = match get("attrs") {
        Some(a) => parse_attrs(a, line)?,
        None => Vec::new(),
    };
    let num = |d: u32| -> Result<u32, ParseError> {
        get("num_elts").map_or(Ok(d), |v| number(v, line, "num_elts=<count>"))
    };
    let v_name = get("v_name").map(str::to_string);
    match vtype {
        "G" => {
            let ty = get("type")
                .and_then(DataType::from_text)
                .ok_or_else(|| err(line, 1, "type=<ud|d|uw|w|ub|b|df|f|uq|q|hf|bf>", tail))?;
            let align = match get("align") {
                Some(a) => Align::from_text(a).ok_or_else(|| err(line, 1, "a known align=", a))?,
                None => Align::Byte,
            };
            let num_elements = num(1)?;
            if num_elements == 0 || num_elements > 4096 {
                return Err(err(
                    line,
                    1,
                    "num_elts in 1..=4096",
                    &num_elements.to_string(),
                ));
            }
            let id = VarId(k.vars.len() as u32);
            if let Some(a) = get("alias") {
                let inner = a
                    .strip_prefix('<')
                    .and_then(|s| s.strip_suffix('>'))
                    .ok_or_else(|| err(line, 1, "alias=<VAR, offset>", a))?;
                let (b, o) = inner
                    .split_once(',')
                    .ok_or_else(|| err(line, 1, "alias=<VAR, offset>", a))?;
                aliases.push(PendingAlias {
                    var: id,
                    base: b.trim().to_string(),
                    offset: number(o.trim(), line, "an alias byte offset")?,
                    line,
                });
            }
            k.vars.push(GeneralVar {
                name: name.to_string(),
                ty,
                align,
                num_elements,
                alias: None,
                attrs,
                predefined: None,
            });
            insert(&mut sym.vars, name, id, line)?;
        }
        "A" => {
            let id = AddrId(k.addrs.len() as u16);
            k.addrs.push(AddrVar {
                name: name.to_string(),
                num_elements: num(1)? as u16,
                attrs,
            });
            insert(&mut sym.addrs, name, id, line)?;
        }
        "P" => {
            let id = PredId(k.preds.len() as u16);
            k.preds.push(PredVar {
                name: name.to_string(),
                num_elements: num(1)? as u16,
                attrs,
            });
            insert(&mut sym.preds, name, id, line)?;
        }
        "S" | "T" => {
            let table = if vtype == "S" {
                &mut k.samplers
            } else {
                &mut k.surfaces
            };
            let id = StateId(table.len() as u16);
            let mut attrs = attrs;
            if let Some(v) = v_name {
                attrs.push(Attribute {
                    name: "v_name".into(),
                    value: AttrValue::Str(v),
                });
            }
            table.push(StateVar {
                name: name.to_string(),
                num_elements: num(1)? as u16,
                attrs,
                predefined: false,
            });
            let map = if vtype == "S" {
                &mut sym.samplers
            } else {
                &mut sym.surfaces
            };
            insert(map, name, id, line)?;
        }
        other => return Err(err(line, 1, "v_type=G|A|P|S|T", other)),
    }
    Ok(())
}

fn insert<T>(
    map: &mut HashMap<String, T>,
    name: &str,
    id: T,
    line: usize,
) -> Result<(), ParseError> {
    if map.contains_key(name) {
        return Err(err(line, 1, "a name not declared before", name));
    }
    map.insert(name.to_string(), id);
    Ok(())
}

/// Parse `.input NAME offset=N size=N` (and `.implicit_*` with a provenance).
pub fn input(
    k: &mut Kernel,
    sym: &Symbols,
    rest: &str,
    line: usize,
    provenance: u8,
) -> Result<(), ParseError> {
    let rest = rest.trim();
    let (name, tail) = rest
        .split_once(char::is_whitespace)
        .ok_or_else(|| err(line, 1, "`.input NAME offset=N size=N`", rest))?;
    let kv = key_values(tail);
    let get = |key: &str| kv.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    let offset = number(get("offset").unwrap_or(""), line, "offset=<bytes>")?;
    let size = number(get("size").unwrap_or(""), line, "size=<bytes>")?;
    let (class, id) = if let Some(v) = sym.vars.get(name) {
        (InputClass::General, v.0)
    } else if let Some(s) = sym.surfaces.get(name) {
        (InputClass::Surface, s.0 as u32)
    } else if let Some(s) = sym.samplers.get(name) {
        (InputClass::Sampler, s.0 as u32)
    } else {
        return Err(err(
            line,
            1,
            "a declared general, surface or sampler variable",
            name,
        ));
    };
    k.inputs.push(Input {
        class,
        id,
        offset,
        size,
        provenance,
    });
    Ok(())
}

/// Resolve pending aliases once every variable is declared.
pub fn resolve_aliases(
    k: &mut Kernel,
    sym: &Symbols,
    aliases: Vec<PendingAlias>,
) -> Result<(), ParseError> {
    for a in aliases {
        let base = *sym
            .vars
            .get(&a.base)
            .ok_or_else(|| err(a.line, 1, "a declared alias base variable", &a.base))?;
        if let Some(v) = k.vars.get_mut(a.var.0 as usize) {
            v.alias = Some((base, a.offset));
        }
    }
    Ok(())
}
