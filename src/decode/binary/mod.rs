//! The binary `.isa` (CISA) decoder: header, kernel objects, symbol tables and the
//! instruction stream, driven by the instruction table. Versions 4.1 (the corpus) and
//! 4.2 (the spec) share the layouts read here; any other version is rejected.

mod reader;

use crate::decode::text::empty_kernel;
use crate::ir::*;
use crate::isa::table::{by_byte, info, FieldKind};
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
    let mut headers = Vec::with_capacity(nk);
    for _ in 0..nk {
        let len = r.u16("a kernel name length")? as usize;
        let name = String::from_utf8_lossy(r.take(len, "a kernel name")?).into_owned();
        let field = r.pos;
        let offset = r.u32("a kernel offset")? as usize;
        let size = r.u32("a kernel size")? as usize;
        let _input_offset = r.u32("a kernel input offset")?;
        let nsv = r.count(2, 4, "the kernel's variable relocation count")?;
        r.take(nsv * 4, "variable relocations")?;
        let nsf = r.count(2, 4, "the kernel's function relocation count")?;
        r.take(nsf * 4, "function relocations")?;
        let ngen = r.count(1, 9, "the GEN binary count")?;
        r.take(ngen * 9, "GEN binary descriptors")?;
        headers.push((name, offset, size, field));
    }
    let mut kernels = Vec::with_capacity(nk);
    for (name, offset, size, field) in headers {
        if offset.checked_add(size).is_none_or(|e| e > bytes.len()) {
            return Err(BinaryError {
                offset: field,
                message: format!(
                    "kernel `{name}` claims {size} bytes at {offset:#x}, past the end of the file"
                ),
            });
        }
        kernels.push(kernel(
            &bytes[..offset + size],
            offset,
            grf_bytes,
            with_body,
        )?);
    }
    Ok(Program {
        version: (major, minor),
        grf_bytes,
        kernels,
        functions: Vec::new(),
    })
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
                "Target" => AttrValue::Str(if raw[0] == 0 {
                    "cm".into()
                } else {
                    "3d".into()
                }),
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
    grf_bytes: u32,
    with_body: bool,
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
            let name = string(&mut r, &strings, &format!("a {what} name"))?;
            let num_elements = r.u16(&format!("a {what} size"))?;
            let attrs = attributes(&mut r, &strings, 1)?;
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
    let ni = r.count(4, 9, "the input count")?;
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
    k.attributes = attributes(&mut r, &strings, 2)?;
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
        let inst = instruction(&mut ir, &k, grf_bytes)?;
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

fn instruction(r: &mut Reader, k: &Kernel, _grf_bytes: u32) -> Result<Instruction, BinaryError> {
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
    let extra = crate::isa::table::extra_fields(op);
    let row = info(op).fields;
    let row = &row[..row.len() - extra.len()];
    if matches!(op, Opcode::LscUntyped | Opcode::LscTyped) {
        // Strided, block2d and append-counter messages have their own binary formats
        // (other operands, an extra surface index): refused rather than misread.
        let subop = r.peek_u8().unwrap_or(0);
        let other = match op {
            Opcode::LscUntyped => matches!(subop, 0x01 | 0x03 | 0x05 | 0x07 | 0x28 | 0x29),
            _ => matches!(subop, 0x03 | 0x07),
        };
        if other {
            return Err(BinaryError {
                offset: r.pos,
                message: format!(
                    "the binary format of {} is not decoded (its .visaasm text is)",
                    crate::isa::syntax::LSC_SUBOP
                        .name(subop as u64)
                        .unwrap_or("lsc")
                ),
            });
        }
    }
    let mut fields = Vec::with_capacity(row.len());
    let mut num_labels = 0usize;
    for spec in row {
        let f = match spec.kind {
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
            FieldKind::Int(n) => {
                let v = r.uint(n, spec.name)?;
                if spec.name == "Num_labels" {
                    num_labels = v as usize;
                }
                Field::Int(v)
            }
            FieldKind::Label => Field::Label(LabelId(r.u16("a label id")?)),
            FieldKind::LabelList => {
                let mut ls = Vec::with_capacity(num_labels.min(32));
                for _ in 0..num_labels.min(32) {
                    ls.push(LabelId(r.u16("a switch label")?));
                }
                Field::Labels(ls)
            }
            FieldKind::Surface => Field::Surface(StateId(r.u8("a surface index")? as u16)),
            FieldKind::Sampler => Field::Sampler(StateId(r.u8("a sampler index")? as u16)),
        };
        fields.push(f);
    }
    let _ = (k, Opcode::Label);
    // Fields of the sub-op's other formats: their defaults (no strided pitch, no
    // coordinate offsets).
    for spec in extra {
        fields.push(crate::isa::table::extra_default(spec.kind));
    }
    Ok(Instruction { op, fields })
}
