//! The binary `.isa` (CISA) decoder: header, kernel objects, symbol tables and the
//! instruction stream, driven by the instruction table. Versions 4.1 (the corpus) and
//! 4.2 (the spec) share the layouts read here; any other version is rejected.

mod reader;

use crate::decode::text::empty_kernel;
use crate::ir::*;
use crate::isa::table::{by_byte, extra_default, info, sub_form, FieldKind, FieldSpec};
use crate::isa::Opcode;
use reader::Reader;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("at byte offset {offset:#x}: {message}")]
pub struct BinaryError {
    pub offset: usize,
    pub message: String,
}

/// Decode a `.isa` file. `grf_bytes` is the target's GRF size (32, or 64 on PVC).
pub fn decode_isa(bytes: &[u8], grf_bytes: u32) -> Result<Program, BinaryError> {
    decode(bytes, grf_bytes, true)
}

/// Decode only the header and the symbol tables of every kernel (bodies left empty).
///
/// The corpus' `.isa` files (IGC 1.0.12504, vISA 4.1) carry complete headers and symbol
/// tables, but their instruction streams omit most source and raw operands (e.g. in
/// `saxpy/tgllp-simd16`, the `or` at 0x461 is followed by its destination only, and
/// the stream's last ~190 bytes are heap pointers): see docs/design.md.
pub fn decode_isa_symbols(bytes: &[u8], grf_bytes: u32) -> Result<Program, BinaryError> {
    decode(bytes, grf_bytes, false)
}

fn decode(bytes: &[u8], grf_bytes: u32, with_body: bool) -> Result<Program, BinaryError> {
    let mut r = Reader::new(bytes, 0);
    let magic = r.take(4, "the magic number 'CISA'")?;
    if magic != b"CISA" {
        return Err(BinaryError {
            offset: 0,
            message: "expected the magic number 'CISA'".into(),
        });
    }
    let major = r.u8("the major version")?;
    let minor = r.u8("the minor version")?;
    if (major, minor) != (4, 1) && (major, minor) != (4, 2) {
        return Err(BinaryError {
            offset: 4,
            message: format!("vISA version {major}.{minor} is not supported (expected 4.1 or 4.2)"),
        });
    }
    if grf_bytes != 32 && grf_bytes != 64 {
        return Err(r.fail(format!("GRF size {grf_bytes} is not 32 or 64 bytes")));
    }
    let nk = r.count(2, 17, "the kernel count")?;
    let mut entries = Vec::with_capacity(nk);
    for _ in 0..nk {
        let len = r.u16("a kernel name length")? as usize;
        let name = String::from_utf8_lossy(r.take(len, "a kernel name")?).into_owned();
        let field = r.pos;
        let offset = r.u32("a kernel offset")? as usize;
        let size = r.u32("a kernel size")? as usize;
        let _input_offset = r.u32("a kernel input offset")?;
        let relocs = relocations(&mut r)?;
        let ngen = r.count(1, 9, "the GEN binary count")?;
        r.take(ngen * 9, "GEN binary descriptors")?;
        entries.push(Entry {
            kind: ObjectKind::Kernel,
            name,
            offset,
            size,
            field,
            relocs,
        });
    }
    // A file written before functions existed ends here.
    if r.pos < bytes.len() {
        let at = r.pos;
        let nv = r.count(2, 7, "the file-scope variable count")?;
        if nv != 0 {
            return Err(BinaryError {
                offset: at,
                message: format!(
                    "{nv} file-scope variables: not supported (IGC writes none; expected 0)"
                ),
            });
        }
        let nf = r.count(2, 15, "the function count")?;
        for _ in 0..nf {
            let _linkage = r.u8("a function linkage")?;
            let len = r.u16("a function name length")? as usize;
            let name = String::from_utf8_lossy(r.take(len, "a function name")?).into_owned();
            let field = r.pos;
            let offset = r.u32("a function offset")? as usize;
            let size = r.u32("a function size")? as usize;
            let relocs = relocations(&mut r)?;
            entries.push(Entry {
                kind: ObjectKind::Function,
                name,
                offset,
                size,
                field,
                relocs,
            });
        }
    }
    // Func_id operands name entries of the header's function table (directly, or
    // through the object's function relocations).
    let callees: Vec<String> = entries
        .iter()
        .filter(|e| e.kind == ObjectKind::Function)
        .map(|e| e.name.clone())
        .collect();
    let mut kernels = Vec::with_capacity(nk);
    let mut functions = Vec::new();
    for e in &entries {
        if e.kind == ObjectKind::Function && e.size == 0 {
            // Declared, defined elsewhere (IGC writes linkage 0 even for the functions
            // it defines, so the size tells).
            continue;
        }
        if e.offset
            .checked_add(e.size)
            .is_none_or(|end| end > bytes.len())
        {
            return Err(BinaryError {
                offset: e.field,
                message: format!(
                    "{} `{}` claims {} bytes at {:#x}, past the end of the file",
                    if e.kind == ObjectKind::Kernel {
                        "kernel"
                    } else {
                        "function"
                    },
                    e.name,
                    e.size,
                    e.offset
                ),
            });
        }
        let table = callee_table(e, &callees)?;
        let mut k = kernel(
            &bytes[..e.offset + e.size],
            e.offset,
            with_body,
            e.kind,
            &table,
        )?;
        k.func_decls = declared(&k, e, &table);
        match e.kind {
            ObjectKind::Kernel => kernels.push(k),
            ObjectKind::Function => functions.push(k),
        }
    }
    Ok(Program {
        version: (major, minor),
        grf_bytes,
        kernels,
        functions,
    })
}

/// One kernel or function of the header.
struct Entry {
    kind: ObjectKind,
    name: String,
    offset: usize,
    size: usize,
    /// Where its offset field is (errors about the object point there).
    field: usize,
    /// Function relocations: (the object's Func_id, index in the function table).
    relocs: Vec<(u16, u16)>,
}

/// A header's variable relocations (skipped: there are no file-scope variables) and
/// function relocations.
fn relocations(r: &mut Reader) -> Result<Vec<(u16, u16)>, BinaryError> {
    let nsv = r.count(2, 4, "the variable relocation count")?;
    r.take(nsv * 4, "variable relocations")?;
    let nsf = r.count(2, 4, "the function relocation count")?;
    let mut out = Vec::with_capacity(nsf);
    for _ in 0..nsf {
        out.push((
            r.u16("a relocation's symbolic index")?,
            r.u16("a relocation's resolved index")?,
        ));
    }
    Ok(out)
}

/// Func_id -> function name for one object: its relocations where it has some (what
/// [`crate::encode`] writes), else the header's table itself (what IGC writes).
fn callee_table(e: &Entry, callees: &[String]) -> Result<Vec<(u64, String)>, BinaryError> {
    if e.relocs.is_empty() {
        return Ok(callees
            .iter()
            .enumerate()
            .map(|(i, n)| (i as u64, n.clone()))
            .collect());
    }
    e.relocs
        .iter()
        .map(|&(sym, res)| {
            callees
                .get(res as usize)
                .map(|n| (sym as u64, n.clone()))
                .ok_or(BinaryError {
                    offset: e.field,
                    message: format!(
                        "`{}` relocates function {sym} to entry {res} of a {}-entry function table",
                        e.name,
                        callees.len()
                    ),
                })
        })
        .collect()
}

/// The functions an object declares: its relocations' names, or (IGC's files, which
/// have none) the functions its body names, in table order.
fn declared(k: &Kernel, e: &Entry, table: &[(u64, String)]) -> Vec<String> {
    if !e.relocs.is_empty() {
        return table.iter().map(|(_, n)| n.clone()).collect();
    }
    let named: Vec<&str> = k
        .body
        .iter()
        .flat_map(|i| &i.fields)
        .filter_map(|f| match f {
            Field::Str(s) => Some(s.as_str()),
            _ => None,
        })
        .collect();
    table
        .iter()
        .filter(|(_, n)| named.contains(&n.as_str()))
        .map(|(_, n)| n.clone())
        .collect()
}

fn attributes(
    r: &mut Reader,
    strings: &[String],
    count_width: u8,
) -> Result<Vec<Attribute>, BinaryError> {
    let n = r.count(count_width, 5, "an attribute count")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let name = string(r, strings, "an attribute name")?;
        let size = r.u8("an attribute size")? as usize;
        let raw = r.take(size, "an attribute value")?;
        let value = if size == 0 {
            AttrValue::Flag
        } else if matches!(name.as_str(), "OutputAsmPath" | "Target") || size > 4 {
            match name.as_str() {
                "Target" => AttrValue::Str(
                    match raw[0] {
                        0 => "cm",
                        1 => "3d",
                        _ => "cs",
                    }
                    .into(),
                ),
                _ => AttrValue::Str(
                    String::from_utf8_lossy(raw)
                        .trim_end_matches('\0')
                        .to_string(),
                ),
            }
        } else {
            let mut v = [0u8; 8];
            v[..size].copy_from_slice(raw);
            AttrValue::Int(i64::from_le_bytes(v))
        };
        out.push(Attribute { name, value });
    }
    Ok(out)
}

fn string(r: &mut Reader, strings: &[String], what: &str) -> Result<String, BinaryError> {
    let at = r.pos;
    let i = r.u32(what)? as usize;
    strings.get(i).cloned().ok_or(BinaryError {
        offset: at,
        message: format!(
            "{what}: string index {i} is past the {}-entry string pool",
            strings.len()
        ),
    })
}

fn kernel(
    bytes: &[u8],
    start: usize,
    with_body: bool,
    kind: ObjectKind,
    callees: &[(u64, String)],
) -> Result<Kernel, BinaryError> {
    let mut r = Reader::new(bytes, start);
    let ns = r.count(4, 1, "the string count")?;
    let mut strings = Vec::with_capacity(ns);
    for _ in 0..ns {
        let rest = &bytes[r.pos..];
        let end = rest
            .iter()
            .position(|b| *b == 0)
            .ok_or_else(|| r.fail("expected a NUL-terminated string"))?;
        strings.push(String::from_utf8_lossy(&rest[..end]).into_owned());
        r.pos += end + 1;
    }
    let name = string(&mut r, &strings, "the kernel name")?;
    let mut k = empty_kernel(name);
    k.kind = kind;
    let nv = r.count(4, 15, "the variable count")?;
    for _ in 0..nv {
        let vname = string(&mut r, &strings, "a variable name")?;
        let at = r.pos;
        let props = r.u8("variable type/alignment")?;
        let ty = DataType::from_code(props & 0xf).ok_or_else(|| r.fail("a variable type"))?;
        let align = Align::from_code(props >> 4).ok_or(BinaryError {
            offset: at,
            message: format!("alignment code {} is not defined", props >> 4),
        })?;
        let num_elements = r.u16("a variable element count")? as u32;
        let alias_index = r.u32("an alias index")?;
        let alias_offset = r.u16("an alias offset")? as u32;
        let _scope = r.u8("an alias scope")?;
        let attrs = attributes(&mut r, &strings, 1)?;
        k.vars.push(GeneralVar {
            name: vname,
            ty,
            align,
            num_elements,
            alias: (alias_index != 0).then_some((VarId(alias_index), alias_offset)),
            attrs,
            predefined: None,
        });
    }
    let na = r.count(2, 7, "the address count")?;
    for _ in 0..na {
        let name = string(&mut r, &strings, "an address name")?;
        let num_elements = r.u16("an address size")?;
        let attrs = attributes(&mut r, &strings, 1)?;
        k.addrs.push(AddrVar {
            name,
            num_elements,
            attrs,
        });
    }
    let np = r.count(2, 7, "the predicate count")?;
    for _ in 0..np {
        let name = string(&mut r, &strings, "a predicate name")?;
        let num_elements = r.u16("a predicate size")?;
        let attrs = attributes(&mut r, &strings, 1)?;
        k.preds.push(PredVar {
            name,
            num_elements,
            attrs,
        });
    }
    let nl = r.count(2, 6, "the label count")?;
    for _ in 0..nl {
        let name = string(&mut r, &strings, "a label name")?;
        let kind = if r.u8("a label kind")? & 1 == 1 {
            LabelKind::Subroutine
        } else {
            LabelKind::Block
        };
        let attrs = attributes(&mut r, &strings, 1)?;
        k.labels.push(Label { name, kind, attrs });
    }
    for (what, is_sampler) in [("sampler", true), ("surface", false), ("vme", false)] {
        let n = r.count(1, 7, &format!("the {what} count"))?;
        for _ in 0..n {
            let pooled = string(&mut r, &strings, &format!("a {what} name"))?;
            let num_elements = r.u16(&format!("a {what} size"))?;
            let mut attrs = attributes(&mut r, &strings, 1)?;
            // Named by index as IGC prints them (`.decl S0 ... v_name=S000`).
            let name = match (what, is_sampler) {
                (_, true) => format!("S{}", k.samplers.len()),
                ("surface", _) => format!("T{}", k.surfaces.len()),
                _ => pooled.clone(),
            };
            if pooled != name {
                attrs.push(Attribute {
                    name: "v_name".into(),
                    value: AttrValue::Str(pooled),
                });
            }
            let v = StateVar {
                name,
                num_elements,
                attrs,
                predefined: false,
            };
            match (what, is_sampler) {
                (_, true) => k.samplers.push(v),
                ("surface", _) => k.surfaces.push(v),
                _ => {}
            }
        }
    }
    // A function has no inputs: its arguments come in %arg.
    let ni = match kind {
        ObjectKind::Kernel => r.count(4, 9, "the input count")?,
        ObjectKind::Function => 0,
    };
    for _ in 0..ni {
        let kind = r.u8("an input kind")?;
        let id = r.u32("an input id")?;
        let offset = r.u16("an input offset")? as u32;
        let size = r.u16("an input size")? as u32;
        let class = match kind & 3 {
            0 => InputClass::General,
            1 => InputClass::Sampler,
            2 => InputClass::Surface,
            c => return Err(r.fail(format!("input category {c} is reserved"))),
        };
        k.inputs.push(Input {
            class,
            id,
            offset,
            size,
            provenance: kind >> 3,
        });
    }
    let size = r.u32("the instruction stream size")? as usize;
    let entry = r.u32("the instruction stream entry")? as usize;
    if kind == ObjectKind::Function {
        k.arg_size = r.u8("the function's input size (GRFs)")?;
        k.ret_size = r.u8("the function's return value size (GRFs)")?;
    }
    k.attributes = attributes(&mut r, &strings, 2)?;
    // IGC writes 0 in a function's size fields and the sizes as attributes, which the
    // text parser reads too: they win.
    let size_attr = |k: &Kernel, name: &str| match k.attribute(name) {
        Some(AttrValue::Int(v)) => Some(u8::try_from(*v).unwrap_or(u8::MAX)),
        _ => None,
    };
    k.arg_size = size_attr(&k, "ArgSize").unwrap_or(k.arg_size);
    k.ret_size = size_attr(&k, "RetValSize").unwrap_or(k.ret_size);
    let begin = start
        .checked_add(entry)
        .filter(|b| b.checked_add(size).is_some_and(|e| e <= bytes.len()))
        .ok_or_else(|| {
            r.fail(format!(
                "the instruction stream ({size} bytes at entry {entry:#x}) lies past the kernel"
            ))
        })?;
    let mut ir = Reader::new(&bytes[..begin + size], begin);
    while with_body && ir.pos < begin + size {
        let inst = instruction(&mut ir, callees)?;
        k.body.push(inst);
    }
    Ok(k)
}

fn vec_operand(r: &mut Reader) -> Result<VecOperand, BinaryError> {
    let at = r.pos;
    let tag = r.u8("an operand tag")?;
    let modifier = Modifier::from_code((tag >> 3) & 7).ok_or(BinaryError {
        offset: at,
        message: format!("operand modifier {} is reserved", (tag >> 3) & 7),
    })?;
    let region = |r: &mut Reader| -> Result<Region, BinaryError> {
        let at = r.pos;
        let w = r.u16("a region")?;
        Region::from_word(w).ok_or(BinaryError {
            offset: at,
            message: format!("region word {w:#06x} has an undefined stride code"),
        })
    };
    Ok(match tag & 7 {
        0 => VecOperand::General {
            var: VarId(r.u32("a variable id")?),
            row: r.u8("a row offset")?,
            col: r.u8("a column offset")?,
            region: region(r)?,
            modifier,
        },
        1 => VecOperand::Address {
            addr: AddrId(r.u16("an address id")?),
            offset: r.u8("an address offset")?,
            width: r.u8("an address width")?,
        },
        2 => {
            let at = r.pos;
            let w = r.u16("a predicate")?;
            match Predicate::from_word(w) {
                Ok(Some(p)) => VecOperand::Predicate(p),
                Ok(None) => {
                    return Err(BinaryError {
                        offset: at,
                        message: "a predicate operand may not be P0".into(),
                    })
                }
                Err(m) => {
                    return Err(BinaryError {
                        offset: at,
                        message: m.into(),
                    })
                }
            }
        }
        3 => {
            let addr = AddrId(r.u16("an address id")?);
            let addr_offset = r.u8("an address offset")?;
            let imm_offset = r.u16("an indirect offset")? as i16;
            let at = r.pos;
            let ty = DataType::from_code(r.u8("an indirect type")? & 0xf).ok_or(BinaryError {
                offset: at,
                message: "indirect operand type".into(),
            })?;
            VecOperand::Indirect {
                addr,
                addr_offset,
                imm_offset,
                ty,
                region: region(r)?,
                modifier,
            }
        }
        5 => {
            let at = r.pos;
            let ty = DataType::from_code(r.u8("an immediate type")? & 0xf).ok_or(BinaryError {
                offset: at,
                message: "immediate type".into(),
            })?;
            let lo = r.u32("an immediate value")? as u64;
            let bits = if matches!(ty, DataType::DF | DataType::Q | DataType::UQ) {
                lo | (r.u32("an immediate's high dword")? as u64) << 32
            } else {
                lo
            };
            VecOperand::Immediate { ty, bits }
        }
        6 => {
            let class = match r.u8("a state class")? & 3 {
                0 => StateClass::Surface,
                1 => StateClass::Sampler,
                c => return Err(r.fail(format!("state class {c} is reserved"))),
            };
            VecOperand::State {
                class,
                id: StateId(r.u16("a state id")?),
                offset: r.u8("a state offset")?,
            }
        }
        c => {
            return Err(BinaryError {
                offset: at,
                message: format!("operand class {c} is reserved"),
            })
        }
    })
}

fn instruction(r: &mut Reader, callees: &[(u64, String)]) -> Result<Instruction, BinaryError> {
    let at = r.pos;
    let byte = r.u8("an opcode")?;
    let sub = if byte == 0x4e {
        Some(r.u8("an SVM sub-opcode")?)
    } else {
        None
    };
    let op = by_byte(byte, sub).ok_or(BinaryError {
        offset: at,
        message: format!(
            "opcode {byte:#04x}{} is not a vISA instruction",
            sub.map_or(String::new(), |s| format!(" / {s:#04x}"))
        ),
    })?;
    let full = info(op).fields;
    if matches!(op, Opcode::LscUntyped | Opcode::LscTyped) {
        let subop = r.peek_u8().unwrap_or(0) as u64;
        if let Some(form) = sub_form(op, subop) {
            // A sub-op with its own format: read its fields, imply the rest.
            let mut read = Vec::with_capacity(form.order.len());
            let mut num_labels = 0;
            for name in form.order {
                let spec = full
                    .iter()
                    .find(|s| s.name == *name)
                    .ok_or_else(|| r.fail(format!("the instruction table has no field {name}")))?;
                read.push((*name, field(r, spec, &mut num_labels, callees)?));
            }
            let fields = full
                .iter()
                .map(
                    |spec| match read.iter().position(|(n, _)| *n == spec.name) {
                        Some(i) => read[i].1.clone(),
                        None => form.outside(spec),
                    },
                )
                .collect();
            return Ok(Instruction { op, fields });
        }
    }
    let extra = crate::isa::table::extra_fields(op);
    let row = &full[..full.len() - extra.len()];
    let mut fields = Vec::with_capacity(full.len());
    let mut num_labels = 0usize;
    for spec in row {
        fields.push(field(r, spec, &mut num_labels, callees)?);
    }
    // Fields of the sub-ops' other formats: their defaults (no strided pitch, no
    // coordinate offsets).
    for spec in extra {
        fields.push(extra_default(spec.kind));
    }
    Ok(Instruction { op, fields })
}

/// One field of an instruction, as the table's `spec` describes it.
fn field(
    r: &mut Reader,
    spec: &FieldSpec,
    num_labels: &mut usize,
    callees: &[(u64, String)],
) -> Result<Field, BinaryError> {
    Ok(match spec.kind {
        FieldKind::ExecSize => {
            let at = r.pos;
            let b = r.u8("an execution size")?;
            Field::ExecSize(ExecSize::from_byte(b).ok_or(BinaryError {
                offset: at,
                message: format!("execution size byte {b:#04x} is not defined"),
            })?)
        }
        FieldKind::Pred => {
            let at = r.pos;
            let w = r.u16("a predicate control")?;
            Field::Pred(Predicate::from_word(w).map_err(|m| BinaryError {
                offset: at,
                message: m.into(),
            })?)
        }
        FieldKind::Dst | FieldKind::Src | FieldKind::Scalar => Field::Vec(vec_operand(r)?),
        FieldKind::Raw => Field::Raw(RawOperand {
            var: VarId(r.u32("a raw operand id")?),
            offset: r.u16("a raw operand offset")?,
        }),
        FieldKind::Int(n) if spec.name == "Func_id" => {
            let at = r.pos;
            let id = r.uint(n, spec.name)?;
            match callees.iter().find(|(i, _)| *i == id) {
                Some((_, name)) => Field::Str(name.clone()),
                None => {
                    return Err(BinaryError {
                        offset: at,
                        message: format!(
                            "function id {id} is not in the object's {}-entry function table",
                            callees.len()
                        ),
                    })
                }
            }
        }
        FieldKind::Int(n) => {
            let at = r.pos;
            let v = r.uint(n, spec.name)?;
            if spec.name == "Num_labels" {
                if !(1..=32).contains(&v) {
                    return Err(BinaryError {
                        offset: at,
                        message: format!("Num_labels is {v}, expected 1 to 32"),
                    });
                }
                *num_labels = v as usize;
            }
            Field::Int(v)
        }
        FieldKind::Label => Field::Label(LabelId(r.u16("a label id")?)),
        FieldKind::LabelList => {
            let mut ls = Vec::with_capacity(*num_labels);
            for _ in 0..*num_labels {
                ls.push(LabelId(r.u16("a switch label")?));
            }
            Field::Labels(ls)
        }
        FieldKind::Surface => Field::Surface(StateId(r.u8("a surface index")? as u16)),
        FieldKind::Sampler => Field::Sampler(StateId(r.u8("a sampler index")? as u16)),
    })
}
