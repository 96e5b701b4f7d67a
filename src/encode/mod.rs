//! The binary `.isa` (CISA) encoder: kernel IR -> the bytes [`crate::decode::binary`]
//! reads, driven by the same instruction table (each field in the spec's binary Format
//! order). `visa-emu asm` assembles text with it, and the round trip
//! `decode_isa(encode_isa(p)) == p` over every corpus kernel is what tests the binary
//! decoder's instruction stream: the corpus' own `.isa` streams omit operands.
//!
//! Layout (4_visa_header): the header (kernels, no file-scope variables, functions),
//! then every kernel object and every function object. Each object names the functions
//! it calls through function relocations (Func_id = the object's own index, resolved to
//! the header's function table); a function an object names but the program does not
//! define gets a header entry of size 0 (IGC writes linkage 0 for every function, and so
//! does this encoder).

mod writer;

use crate::decode::text::{FIRST_USER_SURFACE, FIRST_USER_VAR};
use crate::ir::*;
use crate::isa::table::{
    by_byte, extra_default, extra_fields, info, sub_form, FieldKind, FieldSpec,
};
use writer::{Pool, Writer};

/// Why a program cannot be written as `.isa`: which object (and instruction) and what
/// the binary format cannot hold.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{object}: {message}")]
pub struct EncodeError {
    /// `kernel "saxpy"` or `kernel "saxpy", instruction 12 (ADD)`.
    pub object: String,
    pub message: String,
}

/// Encode a program as a `.isa` file of its version (4.1 or 4.2).
pub fn encode_isa(p: &Program) -> Result<Vec<u8>, EncodeError> {
    let whole = |m: String| EncodeError {
        object: "program".into(),
        message: m,
    };
    if p.version != (4, 1) && p.version != (4, 2) {
        return Err(whole(format!(
            "vISA version {}.{} cannot be written (4.1 or 4.2)",
            p.version.0, p.version.1
        )));
    }
    // Kernels first, then functions (IGC's order), each by its kind wherever the
    // program lists it (a lone `.global_function` text parses into `kernels`).
    let all = || p.kernels.iter().chain(&p.functions);
    let objects: Vec<&Kernel> = all()
        .filter(|o| o.kind == ObjectKind::Kernel)
        .chain(all().filter(|o| o.kind == ObjectKind::Function))
        .collect();
    let kernels = objects
        .iter()
        .filter(|o| o.kind == ObjectKind::Kernel)
        .count();
    // The header's function table: the defined functions, then every other name an
    // object declares or calls.
    let mut table: Vec<String> = Vec::new();
    for o in &objects[kernels..] {
        if table.contains(&o.name) {
            return Err(EncodeError {
                object: describe(o),
                message: "a second function of that name".into(),
            });
        }
        table.push(o.name.clone());
    }
    let defined = table.len();
    // Each object's own function table (its Func_id order), once.
    let callees: Vec<Vec<String>> = objects.iter().map(|o| callee_table(o)).collect();
    for n in callees.iter().flatten() {
        if !table.contains(n) {
            table.push(n.clone());
        }
    }
    let mut bodies = Vec::with_capacity(objects.len());
    for (o, c) in objects.iter().zip(&callees) {
        bodies.push(object(o, c)?);
    }
    let relocs: Vec<Vec<(u16, u16)>> = callees
        .iter()
        .map(|c| {
            c.iter()
                .enumerate()
                .map(|(i, n)| {
                    (
                        i as u16,
                        table.iter().position(|t| t == n).unwrap_or(0) as u16,
                    )
                })
                .collect()
        })
        .collect();
    // Header size first: the offsets it holds depend on it.
    let name_len = |o: &Kernel| -> Result<u16, EncodeError> {
        u16::try_from(o.name.len())
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| EncodeError {
                object: describe(o),
                message: "a name of 1 to 65535 bytes".into(),
            })
    };
    let mut header = 4 + 2 + 2 + 2 + 2;
    for (i, o) in objects.iter().enumerate() {
        header += name_len(o)? as usize + 4 * relocs[i].len();
        header += match o.kind {
            ObjectKind::Kernel => 2 + 4 + 4 + 4 + 2 + 2 + 1,
            ObjectKind::Function => 1 + 2 + 4 + 4 + 2 + 2,
        };
    }
    let externs: Vec<&String> = table.iter().skip(defined).collect();
    for n in &externs {
        header += 1 + 2 + n.len() + 4 + 4 + 2 + 2;
    }
    if let Some(n) = externs
        .iter()
        .find(|n| n.is_empty() || n.len() > u16::MAX as usize)
    {
        return Err(whole(format!(
            "called function name \"{n}\": a name of 1 to 65535 bytes"
        )));
    }
    let mut out = Writer::default();
    out.bytes(b"CISA");
    out.u8(p.version.0);
    out.u8(p.version.1);
    out.u16(count(kernels, "kernels", u16::MAX as usize).map_err(whole)?);
    let mut at = header;
    let mut offsets = Vec::with_capacity(objects.len());
    for b in &bodies {
        offsets.push(at);
        at += b.bytes.len();
    }
    let u32_of = |v: usize| u32::try_from(v).map_err(|_| whole("the file exceeds 4 GiB".into()));
    let write_relocs = |out: &mut Writer, r: &[(u16, u16)]| -> Result<(), EncodeError> {
        out.u16(0); // variable relocations: there are no file-scope variables
        out.u16(count(r.len(), "called functions", u16::MAX as usize).map_err(whole)?);
        for &(s, t) in r {
            out.u16(s);
            out.u16(t);
        }
        Ok(())
    };
    for (i, o) in objects.iter().enumerate() {
        if o.kind != ObjectKind::Kernel {
            continue;
        }
        out.u16(name_len(o)?);
        out.bytes(o.name.as_bytes());
        out.u32(u32_of(offsets[i])?);
        out.u32(u32_of(bodies[i].bytes.len())?);
        out.u32(u32_of(offsets[i] + bodies[i].inputs_at)?);
        write_relocs(&mut out, &relocs[i])?;
        out.u8(0); // no GEN binaries
    }
    out.u16(0); // file-scope variables
    out.u16(count(table.len(), "functions", u16::MAX as usize).map_err(whole)?);
    for (i, o) in objects.iter().enumerate() {
        if o.kind != ObjectKind::Function {
            continue;
        }
        out.u8(0);
        out.u16(name_len(o)?);
        out.bytes(o.name.as_bytes());
        out.u32(u32_of(offsets[i])?);
        out.u32(u32_of(bodies[i].bytes.len())?);
        write_relocs(&mut out, &relocs[i])?;
    }
    for n in externs {
        out.u8(0);
        out.u16(n.len() as u16);
        out.bytes(n.as_bytes());
        out.u32(0);
        out.u32(0);
        write_relocs(&mut out, &[])?;
    }
    debug_assert_eq!(out.len(), header);
    for b in bodies {
        out.bytes(&b.bytes);
    }
    Ok(out.finish())
}

/// The functions an object names, in its own Func_id order: its `.funcdecl`s, then
/// every other function its `fcall`/`faddr` instructions name, in order of appearance.
/// The binary keeps one such table per object, so a decoded object declares them all.
pub fn callee_table(o: &Kernel) -> Vec<String> {
    let mut t = o.func_decls.clone();
    for i in &o.body {
        for f in &i.fields {
            if let Field::Str(n) = f {
                if !t.contains(n) {
                    t.push(n.clone());
                }
            }
        }
    }
    t
}

fn describe(o: &Kernel) -> String {
    let kind = match o.kind {
        ObjectKind::Kernel => "kernel",
        ObjectKind::Function => "function",
    };
    format!("{kind} \"{}\"", o.name)
}

fn count(n: usize, what: &str, max: usize) -> Result<u16, String> {
    if n > max {
        return Err(format!("{n} {what}, more than the binary's {max}"));
    }
    Ok(n as u16)
}

/// One object's bytes, and where its input count lies within them.
struct Object {
    bytes: Vec<u8>,
    inputs_at: usize,
}

/// `callees`: the object's function table ([`callee_table`]).
fn object(o: &Kernel, callees: &[String]) -> Result<Object, EncodeError> {
    let fail = |m: String| EncodeError {
        object: describe(o),
        message: m,
    };
    let first_surface = FIRST_USER_SURFACE as usize;
    let first_var = FIRST_USER_VAR as usize;
    if o.vars.len() < first_var || o.surfaces.len() < first_surface || o.preds.is_empty() {
        return Err(fail(
            "the pre-defined variables, surfaces and P0 must come first (as the decoders build them)"
                .into(),
        ));
    }
    let mut pool = Pool::default();
    let mut w = Writer::default();
    let name = pool.index(&o.name);
    w.u32(name);
    let vars = &o.vars[first_var..];
    w.u32(vars.len() as u32);
    for v in vars {
        w.u32(pool.index(&v.name));
        w.u8(v.ty.code() | v.align.code() << 4);
        let n = u16::try_from(v.num_elements).map_err(|_| {
            fail(format!(
                "{}: {} elements (at most 65535)",
                v.name, v.num_elements
            ))
        })?;
        w.u16(n);
        let (base, off) = v.alias.map_or((0, 0), |(b, o)| (b.0, o));
        w.u32(base);
        w.u16(u16::try_from(off).map_err(|_| fail(format!("{}: alias offset {off}", v.name)))?);
        w.u8(0); // alias scope: local
        attributes(&mut w, &mut pool, &v.attrs, 1).map_err(&fail)?;
    }
    w.u16(count(o.addrs.len(), "address variables", 4096).map_err(&fail)?);
    for a in &o.addrs {
        w.u32(pool.index(&a.name));
        w.u16(a.num_elements);
        attributes(&mut w, &mut pool, &a.attrs, 1).map_err(&fail)?;
    }
    w.u16(count(o.preds.len() - 1, "predicates", 4096).map_err(&fail)?);
    for p in &o.preds[1..] {
        w.u32(pool.index(&p.name));
        w.u16(p.num_elements);
        attributes(&mut w, &mut pool, &p.attrs, 1).map_err(&fail)?;
    }
    w.u16(count(o.labels.len(), "labels", u16::MAX as usize).map_err(&fail)?);
    for l in &o.labels {
        w.u32(pool.index(&l.name));
        w.u8(u8::from(l.kind == LabelKind::Subroutine));
        attributes(&mut w, &mut pool, &l.attrs, 1).map_err(&fail)?;
    }
    let surfaces = &o.surfaces[first_surface..];
    for (what, list) in [("samplers", &o.samplers[..]), ("surfaces", surfaces)] {
        w.u8(count(list.len(), what, 255).map_err(&fail)? as u8);
        for s in list {
            // The text's `S0 ... v_name=S000` is index and name: the pool keeps the name.
            let (vname, rest): (Vec<Attribute>, Vec<Attribute>) =
                s.attrs.iter().cloned().partition(|a| a.name == "v_name");
            let name = match vname.first().map(|a| &a.value) {
                Some(AttrValue::Str(n)) => n.as_str(),
                _ => s.name.as_str(),
            };
            w.u32(pool.index(name));
            w.u16(s.num_elements);
            attributes(&mut w, &mut pool, &rest, 1).map_err(&fail)?;
        }
    }
    w.u8(0); // VME variables
    let inputs_at = w.len();
    match o.kind {
        ObjectKind::Kernel => {
            w.u32(o.inputs.len() as u32);
            for i in &o.inputs {
                let class = match i.class {
                    InputClass::General => 0,
                    InputClass::Sampler => 1,
                    InputClass::Surface => 2,
                };
                if i.provenance > 31 {
                    return Err(fail(format!("input provenance {} (5 bits)", i.provenance)));
                }
                w.u8(class | i.provenance << 3);
                w.u32(i.id);
                let field = |v: u32, what: &str| {
                    u16::try_from(v).map_err(|_| fail(format!("input V{}: {what} {v}", i.id)))
                };
                w.u16(field(i.offset, "offset")?);
                w.u16(field(i.size, "size")?);
            }
        }
        ObjectKind::Function if !o.inputs.is_empty() => {
            return Err(fail(
                "a function has no inputs (its arguments come in %arg)".into(),
            ));
        }
        ObjectKind::Function => {}
    }
    let mut code = Writer::default();
    for (n, inst) in o.body.iter().enumerate() {
        instruction(&mut code, inst, callees).map_err(|m| EncodeError {
            object: format!("{}, instruction {n} ({})", describe(o), inst.op.spec_name()),
            message: m,
        })?;
    }
    let mut tail = Writer::default();
    tail.u32(code.len() as u32);
    let entry_at = tail.len();
    tail.u32(0); // patched below, once the pool's size is known
    if o.kind == ObjectKind::Function {
        tail.u8(o.arg_size);
        tail.u8(o.ret_size);
    }
    attributes(&mut tail, &mut pool, &o.attributes, 2).map_err(&fail)?;
    // The pool comes first in the object, and every name above went into it.
    let pool = pool.finish().map_err(&fail)?;
    let inputs_at = pool.len() + inputs_at;
    let entry = pool.len() + w.len() + tail.len();
    let mut tail = tail.finish();
    tail[entry_at..entry_at + 4].copy_from_slice(&(entry as u32).to_le_bytes());
    let mut bytes = pool;
    bytes.extend(w.finish());
    bytes.extend(tail);
    bytes.extend(code.finish());
    Ok(Object { bytes, inputs_at })
}

/// Attributes as the decoder reads them: by name, `Target` is one byte (0 cm, 1 3d,
/// 2 cs), `OutputAsmPath` and values over 4 bytes are strings, the rest integers of
/// 1, 2 or 4 bytes, and a flag has no value.
fn attributes(
    w: &mut Writer,
    pool: &mut Pool,
    attrs: &[Attribute],
    width: u8,
) -> Result<(), String> {
    let max = if width == 1 { 255 } else { u16::MAX as usize };
    let n = count(attrs.len(), "attributes", max)?;
    if width == 1 {
        w.u8(n as u8);
    } else {
        w.u16(n);
    }
    for a in attrs {
        w.u32(pool.index(&a.name));
        let value: Vec<u8> = match (&a.value, a.name.as_str()) {
            (AttrValue::Flag, _) => Vec::new(),
            (AttrValue::Str(s), "Target") => vec![match s.as_str() {
                "cm" => 0,
                "3d" => 1,
                "cs" => 2,
                _ => return Err(format!("Target=\"{s}\": expected cm, 3d or cs")),
            }],
            (AttrValue::Str(s), name) => {
                if name != "OutputAsmPath" && s.len() <= 4 {
                    return Err(format!(
                        "attribute {name}=\"{s}\": a string of 4 bytes or less reads back as an integer"
                    ));
                }
                if s.len() > 255 {
                    return Err(format!(
                        "attribute {name}: a value of {} bytes (at most 255)",
                        s.len()
                    ));
                }
                s.as_bytes().to_vec()
            }
            (AttrValue::Int(v), name) => {
                let v = u32::try_from(*v).map_err(|_| {
                    format!("attribute {name}={v}: binary integers are 0 to 2^32-1")
                })?;
                let n = if v <= 0xff {
                    1
                } else if v <= 0xffff {
                    2
                } else {
                    4
                };
                v.to_le_bytes()[..n].to_vec()
            }
        };
        w.u8(value.len() as u8);
        w.bytes(&value);
    }
    Ok(())
}

fn instruction(w: &mut Writer, inst: &Instruction, callees: &[String]) -> Result<(), String> {
    let op = inst.op;
    if by_byte(op.byte(), op.sub_byte()) != Some(op) {
        return Err(format!(
            "opcode {:#04x} reads back as another instruction; {} has no binary form here",
            op.byte(),
            op.spec_name()
        ));
    }
    let full = info(op).fields;
    if inst.fields.len() != full.len() {
        return Err(format!(
            "{} fields, the table's row has {}",
            inst.fields.len(),
            full.len()
        ));
    }
    let subop = match inst.fields.first() {
        Some(Field::Int(v)) => *v,
        _ => 0,
    };
    if let Some(form) = sub_form(op, subop) {
        // A sub-op with its own format: every field outside it must hold what the
        // decoder will imply for it.
        for (spec, f) in full.iter().zip(&inst.fields) {
            if form.order.contains(&spec.name) {
                continue;
            }
            let implied = form.outside(spec);
            if *f != implied {
                return Err(format!(
                    "{} holds {f:?}: {}'s binary form has no place for it (it implies {implied:?})",
                    spec.name,
                    crate::isa::syntax::LSC_SUBOP
                        .name(subop)
                        .unwrap_or("this sub-op")
                ));
            }
        }
        w.u8(op.byte());
        let mut num_labels = None;
        for name in form.order {
            let i = full
                .iter()
                .position(|s| s.name == *name)
                .ok_or_else(|| format!("the instruction table has no field {name}"))?;
            field(w, &full[i], &inst.fields[i], callees, &mut num_labels)?;
        }
        return Ok(());
    }
    let extra = extra_fields(op);
    let row = &full[..full.len() - extra.len()];
    for (spec, f) in extra.iter().zip(&inst.fields[row.len()..]) {
        if *f != extra_default(spec.kind) {
            return Err(format!(
                "{} holds {f:?}: the binary format has no place for it",
                spec.name
            ));
        }
    }
    w.u8(op.byte());
    if let Some(s) = op.sub_byte() {
        w.u8(s);
    }
    let mut num_labels = None;
    for (spec, f) in row.iter().zip(&inst.fields) {
        field(w, spec, f, callees, &mut num_labels)?;
    }
    Ok(())
}

/// One field, as the table's `spec` describes it.
fn field(
    w: &mut Writer,
    spec: &FieldSpec,
    f: &Field,
    callees: &[String],
    num_labels: &mut Option<usize>,
) -> Result<(), String> {
    let wrong = || format!("field {} holds {f:?}, expected {:?}", spec.name, spec.kind);
    match (spec.kind, f) {
        (FieldKind::ExecSize, Field::ExecSize(e)) => w.u8(e.to_byte()),
        (FieldKind::Pred, Field::Pred(p)) => w.u16(Predicate::to_word(*p)),
        (FieldKind::Dst | FieldKind::Src | FieldKind::Scalar, Field::Vec(v)) => vec_operand(w, v)?,
        (FieldKind::Raw, Field::Raw(r)) => {
            w.u32(r.var.0);
            w.u16(r.offset);
        }
        (FieldKind::Int(n), Field::Str(name)) if spec.name == "Func_id" => {
            let id = callees
                .iter()
                .position(|c| c == name)
                .ok_or_else(|| format!("function `{name}` is not in the object's table"))?;
            w.uint(id as u64, n);
        }
        (FieldKind::Int(n), Field::Int(v)) => {
            if n < 8 && *v >> (8 * n as u32) != 0 {
                return Err(format!("{} = {v} does not fit in {n} byte(s)", spec.name));
            }
            if spec.name == "Num_labels" {
                *num_labels = Some(*v as usize);
            }
            w.uint(*v, n);
        }
        (FieldKind::Label, Field::Label(l)) => w.u16(l.0),
        (FieldKind::LabelList, Field::Labels(ls)) => {
            if *num_labels != Some(ls.len()) || !(1..=32).contains(&ls.len()) {
                return Err(format!(
                    "{} switch labels for Num_labels {num_labels:?} (1 to 32, equal)",
                    ls.len()
                ));
            }
            for l in ls {
                w.u16(l.0);
            }
        }
        (FieldKind::Surface, Field::Surface(s)) | (FieldKind::Sampler, Field::Sampler(s)) => {
            w.u8(u8::try_from(s.0).map_err(|_| format!("{} index {} (one byte)", spec.name, s.0))?)
        }
        _ => return Err(wrong()),
    }
    Ok(())
}

fn vec_operand(w: &mut Writer, v: &VecOperand) -> Result<(), String> {
    match v {
        VecOperand::General {
            var,
            row,
            col,
            region,
            modifier,
        } => {
            w.u8((*modifier as u8) << 3);
            w.u32(var.0);
            w.u8(*row);
            w.u8(*col);
            w.u16(region.to_word());
        }
        VecOperand::Address {
            addr,
            offset,
            width,
        } => {
            w.u8(1);
            w.u16(addr.0);
            w.u8(*offset);
            w.u8(*width);
        }
        VecOperand::Predicate(p) => {
            w.u8(2);
            w.u16(Predicate::to_word(Some(*p)));
        }
        VecOperand::Indirect {
            addr,
            addr_offset,
            imm_offset,
            ty,
            region,
            modifier,
        } => {
            w.u8(3 | (*modifier as u8) << 3);
            w.u16(addr.0);
            w.u8(*addr_offset);
            w.u16(*imm_offset as u16);
            w.u8(ty.code());
            w.u16(region.to_word());
        }
        VecOperand::Immediate { ty, bits } => {
            w.u8(5);
            w.u8(ty.code());
            w.u32(*bits as u32);
            if matches!(ty, DataType::DF | DataType::Q | DataType::UQ) {
                w.u32((*bits >> 32) as u32);
            } else if *bits >> 32 != 0 {
                return Err(format!(
                    "a {} immediate with high bits {bits:#x}",
                    ty.text()
                ));
            }
        }
        VecOperand::State { class, id, offset } => {
            w.u8(6);
            w.u8(match class {
                StateClass::Surface => 0,
                StateClass::Sampler => 1,
            });
            w.u16(id.0);
            w.u8(*offset);
        }
    }
    Ok(())
}
