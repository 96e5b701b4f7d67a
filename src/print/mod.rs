//! IR -> `.visaasm` text in IGC's syntax, driven by the same table and text forms as
//! the parser, so that `parse(print(k)) == k`.

use crate::ir::*;
use crate::isa::syntax;
use crate::isa::table::{info, FieldKind};
use crate::isa::text_form::{self, ExecPart, Suffix};
use crate::isa::Opcode;
use std::fmt::Write;

/// Print a whole program.
pub fn print_program(p: &Program) -> String {
    let mut s = String::new();
    let _ = writeln!(s, ".version {}.{}", p.version.0, p.version.1);
    for k in p.kernels.iter().chain(&p.functions) {
        print_kernel(&mut s, k);
    }
    s
}

fn attr_text(a: &Attribute) -> String {
    match &a.value {
        AttrValue::Flag => a.name.clone(),
        AttrValue::Int(i) => format!("{}={}", a.name, i),
        AttrValue::Str(v) => format!("{}=\"{}\"", a.name, v),
    }
}

fn print_kernel(s: &mut String, k: &Kernel) {
    let head = match k.kind {
        ObjectKind::Kernel => ".kernel",
        ObjectKind::Function => ".global_function",
    };
    let _ = writeln!(s, "{head} \"{}\"\n", k.name);
    for f in &k.func_decls {
        let _ = writeln!(s, ".funcdecl \"{f}\"");
    }
    // Ids below FIRST_USER_VAR are the pre-defined (and reserved) variables.
    for v in k
        .vars
        .iter()
        .skip(crate::decode::text::FIRST_USER_VAR as usize)
    {
        let _ = write!(
            s,
            ".decl {} v_type=G type={} num_elts={} align={}",
            v.name,
            v.ty,
            v.num_elements,
            v.align.text()
        );
        if let Some((base, off)) = v.alias {
            let _ = write!(s, " alias=<{}, {}>", var_name(k, base), off);
        }
        attrs(s, &v.attrs);
        s.push('\n');
    }
    for a in &k.addrs {
        let _ = write!(s, ".decl {} v_type=A num_elts={}", a.name, a.num_elements);
        attrs(s, &a.attrs);
        s.push('\n');
    }
    for p in k.preds.iter().skip(1) {
        let _ = write!(s, ".decl {} v_type=P num_elts={}", p.name, p.num_elements);
        attrs(s, &p.attrs);
        s.push('\n');
    }
    for (t, list) in [("S", &k.samplers), ("T", &k.surfaces)] {
        for v in list.iter().filter(|v| !v.predefined) {
            let _ = write!(
                s,
                ".decl {} v_type={} num_elts={}",
                v.name, t, v.num_elements
            );
            let (vname, rest): (Vec<&Attribute>, Vec<&Attribute>) =
                v.attrs.iter().partition(|a| a.name == "v_name");
            if let Some(AttrValue::Str(n)) = vname.first().map(|a| &a.value) {
                let _ = write!(s, " v_name={n}");
            }
            attrs(s, &rest.into_iter().cloned().collect::<Vec<_>>());
            s.push('\n');
        }
    }
    for i in &k.inputs {
        let name = match i.class {
            InputClass::General => var_name(k, VarId(i.id)),
            InputClass::Surface => k
                .surfaces
                .get(i.id as usize)
                .map_or("?".into(), |v| v.name.clone()),
            InputClass::Sampler => k
                .samplers
                .get(i.id as usize)
                .map_or("?".into(), |v| v.name.clone()),
        };
        let dir = match i.provenance {
            0 => ".input".to_string(),
            1 => ".implicit_LOCAL_SIZE".into(),
            2 => ".implicit_GROUP_COUNT".into(),
            3 => ".implicit_LOCAL_ID".into(),
            n => format!(".implicit_UNDEFINED_{n}"),
        };
        let _ = writeln!(s, "{dir} {name} offset={} size={}", i.offset, i.size);
    }
    for a in &k.attributes {
        let _ = writeln!(s, ".kernel_attr {}", attr_text(a));
    }
    for inst in &k.body {
        match inst.op {
            Opcode::Label => {
                let _ = writeln!(s, "\n{}:", label_of(k, inst));
            }
            Opcode::Subroutine => {
                let n = label_of(k, inst);
                let _ = writeln!(s, ".function \"{n}\"\n\n{n}:");
            }
            _ => {
                let _ = writeln!(s, "    {}", instruction(k, inst));
            }
        }
    }
    s.push('\n');
}

fn attrs(s: &mut String, a: &[Attribute]) {
    if !a.is_empty() {
        let list: Vec<String> = a.iter().map(attr_text).collect();
        let _ = write!(s, " attrs={{{}}}", list.join(", "));
    }
}

fn label_of(k: &Kernel, inst: &Instruction) -> String {
    match inst.fields.first() {
        Some(Field::Label(l)) => label_name(k, *l),
        _ => "?".into(),
    }
}

fn label_name(k: &Kernel, l: LabelId) -> String {
    k.labels
        .get(l.0 as usize)
        .map_or(format!("L{}", l.0), |l| l.name.clone())
}

fn var_name(k: &Kernel, v: VarId) -> String {
    k.vars
        .get(v.0 as usize)
        .map_or(format!("V{:04}", v.0), |v| v.name.clone())
}

fn exec(e: &ExecSize) -> String {
    format!(
        "(M{}{}, {})",
        e.mask.group + 1,
        if e.mask.no_mask { "_NM" } else { "" },
        e.size
    )
}

fn pred_text(k: &Kernel, p: &Predicate) -> String {
    let name = k
        .preds
        .get(p.id.0 as usize)
        .map_or(format!("P{}", p.id.0), |p| p.name.clone());
    let c = match p.combine {
        PredCombine::Sequential => "",
        PredCombine::Any => ".any",
        PredCombine::All => ".all",
    };
    format!("{}{}{}", if p.inverse { "!" } else { "" }, name, c)
}

fn region_src(r: &Region) -> String {
    let p = |x: Option<u8>| x.map_or(String::new(), |v| v.to_string());
    match (r.vstride, r.width) {
        (Some(vs), _) => format!("<{};{},{}>", vs, p(r.width), p(r.hstride)),
        (None, Some(w)) => format!("<{},{}>", w, p(r.hstride)),
        // `<hs>`, as the parser reads it (fuzzing found `<,hs>` printed before).
        (None, None) => format!("<{}>", p(r.hstride)),
    }
}

fn modifier_text(m: Modifier) -> &'static str {
    match m {
        Modifier::Abs => "(abs)",
        Modifier::Neg => "(-)",
        Modifier::NegAbs => "(-abs)",
        Modifier::Not => "(~)",
        Modifier::None | Modifier::Sat => "",
    }
}

/// A vector operand in text.
pub fn vec_operand(k: &Kernel, v: &VecOperand, dst: bool, address_of: bool) -> String {
    match v {
        VecOperand::General {
            var,
            row,
            col,
            region,
            modifier,
        } => {
            if address_of {
                return if (*row, *col) == (0, 0) {
                    format!("&{}", var_name(k, *var))
                } else {
                    format!("&{}({},{})", var_name(k, *var), row, col)
                };
            }
            let r = if dst {
                format!("<{}>", region.hstride.unwrap_or(1))
            } else {
                region_src(region)
            };
            format!(
                "{}{}({},{}){}",
                modifier_text(*modifier),
                var_name(k, *var),
                row,
                col,
                r
            )
        }
        VecOperand::Address {
            addr,
            offset,
            width,
        } => {
            let n = k
                .addrs
                .get(addr.0 as usize)
                .map_or(format!("A{}", addr.0), |a| a.name.clone());
            format!("{n}({offset})<{width}>")
        }
        VecOperand::Predicate(p) => pred_text(k, p),
        VecOperand::Indirect {
            addr,
            addr_offset,
            imm_offset,
            ty,
            region,
            modifier,
        } => {
            let n = k
                .addrs
                .get(addr.0 as usize)
                .map_or(format!("A{}", addr.0), |a| a.name.clone());
            let r = if dst {
                format!("<{}>", region.hstride.unwrap_or(1))
            } else {
                region_src(region)
            };
            format!(
                "{}r[{n}({addr_offset}),{imm_offset}]{r}:{ty}",
                modifier_text(*modifier)
            )
        }
        VecOperand::Immediate { ty, bits } => format!("0x{bits:x}:{ty}"),
        VecOperand::State { class, id, offset } => {
            let list = match class {
                StateClass::Surface => &k.surfaces,
                StateClass::Sampler => &k.samplers,
            };
            let n = list
                .get(id.0 as usize)
                .map_or(format!("T{}", id.0), |v| v.name.clone());
            format!("{n}({offset})")
        }
    }
}

fn raw(k: &Kernel, r: &RawOperand) -> String {
    format!("{}.{}", var_name(k, r.var), r.offset)
}

fn surface(k: &Kernel, s: StateId) -> String {
    k.surfaces
        .get(s.0 as usize)
        .map_or(format!("T{}", s.0), |v| v.name.clone())
}

fn field<'a>(inst: &'a Instruction, name: &str) -> Option<&'a Field> {
    info(inst.op)
        .index_of(name)
        .and_then(|i| inst.fields.get(i))
}

fn int(inst: &Instruction, name: &str) -> u64 {
    match field(inst, name) {
        Some(Field::Int(v)) => *v,
        _ => 0,
    }
}

fn operand_text(k: &Kernel, inst: &Instruction, name: &str, kind: FieldKind) -> String {
    match field(inst, name) {
        Some(Field::Vec(v)) => vec_operand(
            k,
            v,
            kind == FieldKind::Dst,
            inst.op == Opcode::AddrAdd && name == "Src0" && matches!(v, VecOperand::General { .. }),
        ),
        Some(Field::Raw(r)) => raw(k, r),
        Some(Field::Surface(s)) => surface(k, *s),
        Some(Field::Sampler(s)) => k
            .samplers
            .get(s.0 as usize)
            .map_or(format!("S{}", s.0), |v| v.name.clone()),
        Some(Field::Label(l)) => label_name(k, *l),
        Some(Field::Labels(ls)) => format!(
            "({})",
            ls.iter()
                .map(|l| label_name(k, *l))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Some(Field::Int(v)) => v.to_string(),
        _ => "?".into(),
    }
}

/// `fcall (E) name a r`, `ifcall (E) addr a r`, `faddr name dst` (spec FCALL, IFCALL,
/// FADDR text forms). A function id from a binary (no name) prints as `func#N`.
fn stack_call(k: &Kernel, inst: &Instruction) -> String {
    let name = || match field(inst, "Func_id") {
        Some(Field::Str(n)) => n.clone(),
        Some(Field::Int(v)) => format!("func#{v}"),
        _ => "?".into(),
    };
    let exec = inst.exec_size().map(|e| exec(&e)).unwrap_or_default();
    match inst.op {
        Opcode::Faddr => format!(
            "faddr {} {}",
            name(),
            operand_text(k, inst, "Dst", FieldKind::Dst)
        ),
        op => format!(
            "{} {exec} {} {} {}",
            if op == Opcode::Fcall {
                "fcall"
            } else {
                "ifcall"
            },
            if op == Opcode::Fcall {
                name()
            } else {
                operand_text(k, inst, "Func_addr", FieldKind::Scalar)
            },
            int(inst, "Arg_size"),
            int(inst, "Return_size")
        ),
    }
}

/// One instruction in text (no indentation, no comment).
pub fn instruction(k: &Kernel, inst: &Instruction) -> String {
    let mut s = String::new();
    if let Some(p) = inst.predicate() {
        let _ = write!(s, "({}) ", pred_text(k, &p));
    }
    match inst.op {
        Opcode::LscUntyped => return s + &lsc(k, inst),
        Opcode::LscTyped => return s + &lsc_typed(k, inst),
        Opcode::Fcall | Opcode::Ifcall | Opcode::Faddr => return s + &stack_call(k, inst),
        Opcode::LscFence => {
            let _ = write!(
                s,
                "lsc_fence.{}.{}.{}",
                syntax::LSC_SFID.name(int(inst, "LscSFID")).unwrap_or("?"),
                syntax::LSC_FENCE_OP
                    .name(int(inst, "LscFenceOp"))
                    .unwrap_or("?"),
                syntax::LSC_SCOPE.name(int(inst, "LscScope")).unwrap_or("?")
            );
            return s;
        }
        Opcode::Fence => {
            let m = int(inst, "Mask");
            if m & 0x80 != 0 {
                return s + "fence_sw";
            }
            s += if m & 0x20 != 0 {
                "fence_local"
            } else {
                "fence_global"
            };
            let flags: String = syntax::FENCE_FLAGS
                .iter()
                .filter(|(_, b)| m & (1 << b) != 0)
                .map(|(n, _)| *n)
                .collect();
            if !flags.is_empty() {
                let _ = write!(s, ".{flags}");
            }
            return s;
        }
        Opcode::Barrier => return s + "barrier",
        Opcode::D3Load | Opcode::D3Sample | Opcode::D3Sample4 => {
            return s + &sampler_message(k, inst)
        }
        Opcode::MediaLd | Opcode::MediaSt => return s + &media(k, inst),
        Opcode::Sbarrier => {
            return s + if int(inst, "Mode") == 1 {
                "sbarrier.signal"
            } else {
                "sbarrier.wait"
            }
        }
        _ => {}
    }
    if let Some(form) = text_form::form_of(inst.op) {
        s += form.mnemonic;
        let mut width_suffix = None;
        for (name, kind) in form.suffixes {
            let v = int(inst, name);
            let text = match kind {
                Suffix::Channels => channel_letters(v),
                Suffix::AtomicOp => {
                    width_suffix = match (v >> 5) & 3 {
                        1 => Some("16"),
                        2 => Some("64"),
                        _ => None,
                    };
                    syntax::ATOMIC_OP.name(v & 0x1f).unwrap_or("?").to_string()
                }
                Suffix::Log2Count => (1u64 << (v & 3)).to_string(),
                Suffix::Number => v.to_string(),
                Suffix::BlockBytes => ["1", "4", "8", "?"][(v & 3) as usize].to_string(),
                Suffix::Precision => syntax::PRECISION.name(v).unwrap_or("?").to_string(),
            };
            let _ = write!(s, ".{text}");
            if let Some(w) = width_suffix.take() {
                let _ = write!(s, ".{w}");
            }
        }
        match form.exec {
            ExecPart::ExecSize => {
                if let Some(e) = inst.exec_size() {
                    let _ = write!(s, " {}", exec(&e));
                }
            }
            ExecPart::Owords(f) => {
                let _ = write!(
                    s,
                    " ({})",
                    syntax::owords_from_code(int(inst, f)).unwrap_or(0)
                );
            }
            ExecPart::None => {}
        }
        for name in form.operands {
            let kind = info(inst.op)
                .index_of(name)
                .map(|i| info(inst.op).fields[i].kind)
                .unwrap_or(FieldKind::Src);
            // IGC writes DPAS's Src2 as a bare `V(r,c)`: its region means nothing there.
            let bare = matches!(inst.op, Opcode::Dpas | Opcode::Dpasw) && *name == "Src2";
            match field(inst, name) {
                Some(Field::Vec(VecOperand::General { var, row, col, .. })) if bare => {
                    let _ = write!(s, " {}({},{})", var_name(k, *var), row, col);
                }
                _ => {
                    let _ = write!(s, " {}", operand_text(k, inst, name, kind));
                }
            }
        }
        return s;
    }
    // ALU form.
    let row = info(inst.op).fields;
    let mnemonic = match inst.op {
        Opcode::MinMax => {
            if int(inst, "Op") == 1 {
                "max".to_string()
            } else {
                "min".to_string()
            }
        }
        op => text_form::alu_mnemonic(op),
    };
    s += &mnemonic;
    for spec in row {
        if let FieldKind::Int(_) = spec.kind {
            let v = int(inst, spec.name);
            match (inst.op, spec.name) {
                (Opcode::Cmp, "Rel_op") => {
                    let _ = write!(s, ".{}", syntax::REL_OP.name(v).unwrap_or("?"));
                }
                (Opcode::MinMax, "Op") | (Opcode::Switchjmp, "Num_labels") => {}
                (Opcode::Bfn, "BooleanFuncCtrl") => {
                    let _ = write!(s, ".x{v:x}");
                }
                _ => {
                    let _ = write!(s, ".{v}");
                }
            }
        }
    }
    if let Some(Field::Vec(v)) = field(inst, "Dst") {
        if v.modifier() == Modifier::Sat {
            s += ".sat";
        }
    }
    for spec in row {
        match spec.kind {
            FieldKind::ExecSize => {
                if let Some(e) = inst.exec_size() {
                    let _ = write!(s, " {}", exec(&e));
                }
            }
            FieldKind::Pred | FieldKind::Int(_) => {}
            k2 => {
                let _ = write!(s, " {}", operand_text(k, inst, spec.name, k2));
            }
        }
    }
    s
}

/// The letters of an RGBA channel mask (`RGBA`, `R`).
fn channel_letters(mask: u64) -> String {
    syntax::CHANNELS
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, c)| *c)
        .collect()
}

/// The sampler messages: `load_lz.RGBA (M1, 16) 0x0:uw T6 dst u v r` (3D_LOAD) and
/// `sample_lz.RGBA (M1, 16) 0x0:uw S0 T6 dst u v` (3D_SAMPLE), NumParams parameters in
/// the text order of the operation (`text_form::LOAD_3D_OPS`, `SAMPLE_3D_PARAMS`).
fn sampler_message(k: &Kernel, inst: &Instruction) -> String {
    let op = int(inst, "Op");
    let base = op & !text_form::PIXEL_NULL_MASK;
    let (mut s, params, fixed): (String, &[&str], &[&str]) = if inst.op == Opcode::D3Load {
        match text_form::LOAD_3D_OPS.iter().find(|o| o.0 == base) {
            Some((_, name, params)) => (name.to_string(), params, &["Aoffimmi", "Surface", "Dst"]),
            None => return format!("load_op_{op:#x}"),
        }
    } else if inst.op == Opcode::D3Sample4 {
        let name = match text_form::SAMPLE4_OPS.iter().find(|o| o.0 == base) {
            Some((_, name, _)) => name.to_string(),
            None => format!("sample4_op_{base:#x}"),
        };
        let fixed: &[&str] = &["Aoffimmi", "Sampler", "Surface", "Dst"];
        (name, &text_form::SAMPLE_3D_PARAMS, fixed)
    } else {
        let name = match text_form::SAMPLE_3D_OPS.iter().find(|o| o.0 == base) {
            Some((_, name)) => name.to_string(),
            None => format!("sample_op_{base:#x}"),
        };
        let fixed: &[&str] = &["Aoffimmi", "Sampler", "Surface", "Dst"];
        (name, &text_form::SAMPLE_3D_PARAMS, fixed)
    };
    if op & text_form::PIXEL_NULL_MASK != 0 {
        s += ".pixel_null_mask";
    }
    if inst.op == Opcode::D3Sample4 {
        let _ = write!(
            s,
            ".{}",
            ["R", "G", "B", "A"][int(inst, "Src_channel") as usize & 3]
        );
    } else {
        let _ = write!(s, ".{}", channel_letters(int(inst, "Channels")));
    }
    if let Some(e) = inst.exec_size() {
        let _ = write!(s, " {}", exec(&e));
    }
    for name in fixed {
        let kind = info(inst.op)
            .index_of(name)
            .map_or(FieldKind::Src, |i| info(inst.op).fields[i].kind);
        let _ = write!(s, " {}", operand_text(k, inst, name, kind));
    }
    for name in params.iter().take(int(inst, "NumParams") as usize) {
        let _ = write!(s, " {}", operand_text(k, inst, name, FieldKind::Raw));
    }
    s
}

/// `media_ld.nomod (32,1) T6 0 x y dst`.
fn media(k: &Kernel, inst: &Instruction) -> String {
    let m = int(inst, "Modifiers");
    let name = if inst.op == Opcode::MediaLd {
        "media_ld"
    } else {
        "media_st"
    };
    let m = text_form::MEDIA_MODIFIERS
        .iter()
        .find(|x| x.0 == m)
        .map_or(m.to_string(), |x| x.1.to_string());
    let data = if inst.op == Opcode::MediaLd {
        "Dst"
    } else {
        "Src"
    };
    format!(
        "{name}.{m} ({},{}) {} {} {} {} {}",
        int(inst, "Block_width"),
        int(inst, "Block_height"),
        operand_text(k, inst, "Surface", FieldKind::Surface),
        int(inst, "Plane"),
        operand_text(k, inst, "X_offset", FieldKind::Scalar),
        operand_text(k, inst, "Y_offset", FieldKind::Scalar),
        operand_text(k, inst, data, FieldKind::Raw)
    )
}

/// LSC_TYPED in IGC's form: `lsc_load_quad.tgm (M1, 16)  V:d32.xyzw  bti(0x4)[U,V+1]:a32`
/// (coordinates up to the first null one, then LOD when present).
fn lsc_typed(k: &Kernel, inst: &Instruction) -> String {
    let subop = int(inst, "LscSubOp");
    let mut s = syntax::LSC_SUBOP.name(subop).unwrap_or("lsc_?").to_string();
    s += ".tgm";
    let raw_of = |name: &str| match field(inst, name) {
        Some(Field::Raw(r)) if r.var.0 == 0 => None,
        Some(Field::Raw(r)) if r.offset == 0 => Some(var_name(k, r.var)),
        Some(Field::Raw(r)) => Some(raw(k, r)),
        _ => None,
    };
    let name_of = |name: &str| raw_of(name).unwrap_or_else(|| "%null".into());
    // The surface and the 2D blocks' positions: an immediate in hex, else the operand.
    let scalar = |name: &str| match field(inst, name) {
        Some(Field::Vec(VecOperand::Immediate { bits, .. })) => format!("0x{bits:X}"),
        Some(Field::Vec(v)) => vec_operand(k, v, false, false),
        _ => "?".into(),
    };
    let model = syntax::LSC_ADDR_TYPE
        .name(int(inst, "AddrType"))
        .unwrap_or("?");
    let surf = scalar("Surface");
    if matches!(subop, 0x03 | 0x07) {
        // `lsc_load_block2d.tgm  V:64x2  bti(0x0)[X,Y]`: no execution size.
        lsc_caching(&mut s, inst);
        let addr = format!(
            "{model}({surf})[{},{}]",
            scalar("Src0AddrX"),
            scalar("Src0AddrY")
        );
        let shape = format!("{}x{}", int(inst, "BlockWidth"), int(inst, "BlockHeight"));
        if subop == 0x07 {
            let _ = write!(s, "  {addr}  {}:{shape}", name_of("Src1Data"));
        } else {
            let _ = write!(s, "  {}:{shape}  {addr}", name_of("DstData"));
        }
        return s;
    }
    lsc_caching_and_exec(&mut s, inst);
    let size = syntax::LSC_DATA_SIZE
        .name(int(inst, "DataSize"))
        .unwrap_or("?");
    let data = |name: &str| {
        if matches!(subop, 0x02 | 0x06) {
            let letters = quad_letters(int(inst, "ChMask"));
            format!("{}:{size}.{letters}", name_of(name))
        } else {
            format!("{}:{size}", name_of(name))
        }
    };
    // Up to the last coordinate that is not null (IGC stops at the first null one; a
    // null inside is written so that the text reads back the same), U at least.
    let mut coords: Vec<String> = ["U", "V", "R"]
        .iter()
        .map(|c| {
            let r = name_of(&format!("Src0Addrs{c}"));
            match int(inst, &format!("Src0Addrs{c}Offset")) as u32 as i32 {
                0 => r,
                o if o > 0 => format!("{r}+{o}"),
                o => format!("{r}{o}"),
            }
        })
        .chain([name_of("Src0AddrsLOD")])
        .collect();
    while coords.len() > 1 && coords.last().is_some_and(|c| c == "%null") {
        coords.pop();
    }
    let addr = format!(
        "{model}({surf})[{}]:{}",
        coords.join(","),
        syntax::LSC_ADDR_SIZE
            .name(int(inst, "AddrSize"))
            .unwrap_or("?")
    );
    if subop == 0x06 {
        let _ = write!(s, "  {addr}  {}", data("Src1Data"));
    } else {
        let _ = write!(s, "  {}  {addr}", data("DstData"));
        if (0x08..=0x1a).contains(&subop) {
            let _ = write!(s, "  {}  {}", name_of("Src1Data"), name_of("Src2Data"));
        }
    }
    s
}

/// A quad LSC message's enabled channels as `xyzw` letters (ChMask bits 0-3).
fn quad_letters(mask: u64) -> String {
    "xyzw"
        .chars()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, c)| c)
        .collect()
}

/// An LSC message's `.<l1>.<l3>` cache suffixes (left out when both are default) and
/// its `(exec)` part, shared by LSC_UNTYPED and LSC_TYPED.
fn lsc_caching_and_exec(s: &mut String, inst: &Instruction) {
    lsc_caching(s, inst);
    if let Some(e) = inst.exec_size() {
        let _ = write!(s, " {}", exec(&e));
    }
}

/// An LSC message's `.<l1>.<l3>` cache suffixes, left out when both are default.
fn lsc_caching(s: &mut String, inst: &Instruction) {
    let (l1, l3) = (int(inst, "CachingL1"), int(inst, "CachingL3"));
    if (l1, l3) != (0, 0) {
        let _ = write!(
            s,
            ".{}.{}",
            syntax::LSC_CACHE.name(l1).unwrap_or("?"),
            syntax::LSC_CACHE.name(l3).unwrap_or("?")
        );
    }
}

fn lsc(k: &Kernel, inst: &Instruction) -> String {
    let subop = int(inst, "LscSubOp");
    let mut s = syntax::LSC_SUBOP.name(subop).unwrap_or("lsc_?").to_string();
    let _ = write!(
        s,
        ".{}",
        syntax::LSC_SFID.name(int(inst, "LscSFID")).unwrap_or("?")
    );
    lsc_caching_and_exec(&mut s, inst);
    let raw_name = |name: &str| match field(inst, name) {
        Some(Field::Raw(r)) if r.offset == 0 => var_name(k, r.var),
        Some(Field::Raw(r)) => raw(k, r),
        _ => "?".into(),
    };
    if matches!(subop, 0x03 | 0x07) {
        let nt = |v: u64| if v != 0 { 't' } else { 'n' };
        let blocks = if subop == 0x03 {
            format!("{}x", int(inst, "Blocks"))
        } else {
            String::new()
        };
        let data = |name: &str| {
            format!(
                "{}:{}.{blocks}{}x{}{}{}",
                raw_name(name),
                syntax::LSC_DATA_SIZE
                    .name(int(inst, "DataSize"))
                    .unwrap_or("?"),
                int(inst, "BlockWidth"),
                int(inst, "BlockHeight"),
                nt(u64::from(
                    int(inst, "DataOrder") == syntax::LSC_ORDER_TRANSPOSE
                )),
                nt(int(inst, "VNNI"))
            )
        };
        let ops: Vec<String> = crate::isa::table::BLOCK2D_OPERANDS
            .iter()
            .map(|name| match field(inst, name) {
                Some(Field::Vec(VecOperand::Immediate { bits, .. })) => format!("0x{bits:X}"),
                // IGC writes a whole scalar variable bare.
                Some(Field::Vec(VecOperand::General {
                    var,
                    row: 0,
                    col: 0,
                    modifier: Modifier::None,
                    ..
                })) => var_name(k, *var),
                Some(Field::Vec(v)) => vec_operand(k, v, false, false),
                _ => "?".into(),
            })
            .collect();
        let addr = format!("flat[{}]", ops.join(","));
        if subop == 0x07 {
            let _ = write!(s, "  {addr}  {}", data("Src1Data"));
        } else {
            let _ = write!(s, "  {}  {addr}", data("DstData"));
        }
        return s;
    }
    let quad = matches!(subop, 0x02 | 0x06);
    let data = |name: &str| {
        if quad {
            let letters = quad_letters(int(inst, "ChMask"));
            return format!(
                "{}:{}.{letters}",
                raw_name(name),
                syntax::LSC_DATA_SIZE
                    .name(int(inst, "DataSize"))
                    .unwrap_or("?")
            );
        }
        let vec = syntax::LSC_VECTOR
            .name(int(inst, "DataElemsPerAddr"))
            .unwrap_or("?");
        let t = if int(inst, "DataOrder") == syntax::LSC_ORDER_TRANSPOSE {
            "t"
        } else {
            ""
        };
        let x = if vec == "1" {
            String::new()
        } else {
            format!("x{vec}")
        };
        format!(
            "{}:{}{}{}",
            raw_name(name),
            syntax::LSC_DATA_SIZE
                .name(int(inst, "DataSize"))
                .unwrap_or("?"),
            x,
            t
        )
    };
    let addr = {
        let model = syntax::LSC_ADDR_TYPE
            .name(int(inst, "AddrType"))
            .unwrap_or("?");
        let surf = match field(inst, "Surface") {
            Some(Field::Vec(VecOperand::Immediate { bits, .. })) if model != "flat" => {
                format!("(0x{bits:X})")
            }
            Some(Field::Vec(v @ VecOperand::General { .. })) => {
                format!("({})", vec_operand(k, v, false, false))
            }
            _ => String::new(),
        };
        let scale = int(inst, "AddrScale");
        let off = int(inst, "AddrImmOffset") as u32 as i32;
        let mut inner = String::new();
        if scale != 1 {
            let _ = write!(inner, "0x{scale:x}*");
        }
        inner += &raw_name("Src0Addrs");
        if off > 0 {
            let _ = write!(inner, "+0x{off:x}");
        } else if off < 0 {
            let _ = write!(inner, "-0x{:x}", -(off as i64));
        }
        if matches!(subop, 0x01 | 0x05) {
            // The pitch, always (the parser's default is IGC's, not a missing one).
            match field(inst, "Src0AddrPitch") {
                Some(Field::Vec(VecOperand::Immediate { bits, .. })) => {
                    let _ = write!(inner, ", 0x{:x}", *bits as u32);
                }
                Some(Field::Vec(v)) => {
                    let _ = write!(inner, ", {}", vec_operand(k, v, false, false));
                }
                _ => {}
            }
        }
        format!(
            "{model}{surf}[{inner}]:{}",
            syntax::LSC_ADDR_SIZE
                .name(int(inst, "AddrSize"))
                .unwrap_or("?")
        )
    };
    if matches!(subop, 0x28 | 0x29) {
        // The append counter's surface, no address; the addend is in `Src0Addrs`.
        let surface = addr.split('[').next().unwrap_or_default();
        let size = syntax::LSC_DATA_SIZE
            .name(int(inst, "DataSize"))
            .unwrap_or("?");
        let _ = write!(
            s,
            "  {}  {surface}  {}:{size}",
            data("DstData"),
            raw_name("Src0Addrs")
        );
    } else if matches!(subop, 0x04 | 0x05 | 0x06 | 0x1c) {
        let _ = write!(s, "  {}  {}", addr, data("Src1Data"));
    } else {
        let _ = write!(s, "  {}  {}", data("DstData"), addr);
        if (0x08..=0x1a).contains(&subop) {
            let _ = write!(s, "  {}  {}", raw_name("Src1Data"), raw_name("Src2Data"));
        }
    }
    s
}
