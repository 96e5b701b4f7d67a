//! Instruction lines: the predicate, the mnemonic and its suffixes, the execution
//! part, and the operands, placed into the table row of the opcode by field name.

use super::decls::Symbols;
use super::lex::{parse_int, tokens, Token};
use super::operand::{self, At};
use super::ParseError;
use crate::ir::*;
use crate::isa::syntax::{self, Names};
use crate::isa::table::{info, FieldKind};
use crate::isa::text_form::{self, ExecPart, Suffix};
use crate::isa::Opcode;

/// Fields of one instruction being filled by name.
struct Builder {
    op: Opcode,
    fields: Vec<Option<Field>>,
}

impl Builder {
    fn new(op: Opcode) -> Builder {
        Builder {
            op,
            fields: vec![None; info(op).fields.len()],
        }
    }

    fn set(&mut self, name: &str, f: Field, at: At) -> Result<(), ParseError> {
        let i = info(self.op)
            .index_of(name)
            .ok_or_else(|| at.fail(&format!("a field of {}", self.op.spec_name()), name))?;
        self.fields[i] = Some(f);
        Ok(())
    }

    /// Raw-operand fields left unset become the null variable (the parameters a
    /// sampler message's text leaves out, and its row's other layouts).
    fn fill_null_raw(&mut self) {
        let null = RawOperand {
            var: VarId(0),
            offset: 0,
        };
        for (spec, f) in info(self.op).fields.iter().zip(&mut self.fields) {
            if spec.kind == FieldKind::Raw && f.is_none() {
                *f = Some(Field::Raw(null));
            }
        }
    }

    /// An integer field already set.
    fn int(&self, name: &str) -> Option<u64> {
        let i = info(self.op).index_of(name)?;
        match self.fields[i] {
            Some(Field::Int(v)) => Some(v),
            _ => None,
        }
    }

    /// The row's appended fields the form left unset (`isa::table::extra_default`),
    /// as the binary decoder fills them.
    fn default_extras(&mut self) {
        let row = info(self.op).fields;
        let extra = crate::isa::table::extra_fields(self.op).len();
        let first = row.len() - extra;
        for (spec, f) in row[first..].iter().zip(&mut self.fields[first..]) {
            f.get_or_insert_with(|| crate::isa::table::extra_default(spec.kind));
        }
    }

    fn kind(&self, name: &str) -> Option<FieldKind> {
        let i = info(self.op);
        i.index_of(name).map(|k| i.fields[k].kind)
    }

    fn finish(self, at: At) -> Result<Instruction, ParseError> {
        let row = info(self.op).fields;
        let mut out = Vec::with_capacity(row.len());
        for (spec, f) in row.iter().zip(self.fields) {
            match f {
                Some(f) => out.push(f),
                None => match spec.kind {
                    FieldKind::Pred => out.push(Field::Pred(None)),
                    _ => {
                        return Err(at.fail(
                            &format!("the {} operand of {}", spec.name, self.op.spec_name()),
                            "end of line",
                        ))
                    }
                },
            }
        }
        Ok(Instruction {
            op: self.op,
            fields: out,
        })
    }
}

/// `(M1, 16)` / `(M5_NM, 8)`.
pub fn exec_size(tok: &str, at: At) -> Result<ExecSize, ParseError> {
    let inner = tok
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .ok_or_else(|| at.fail("an execution size `(M1, 16)`", tok))?;
    let (m, n) = inner
        .split_once(',')
        .ok_or_else(|| at.fail("`(Mn, size)`", tok))?;
    let m = m.trim();
    let (mask, no_mask) = match m.strip_suffix("_NM") {
        Some(x) => (x, true),
        None => (m, false),
    };
    let group = mask
        .strip_prefix('M')
        .and_then(|g| g.parse::<u8>().ok())
        .filter(|g| (1..=8).contains(g))
        .ok_or_else(|| at.fail("a mask control M1..M8[_NM]", m))?
        - 1;
    let size = parse_int(n.trim())
        .and_then(|v| u8::try_from(v).ok())
        .filter(|v| [1, 2, 4, 8, 16, 32].contains(v))
        .ok_or_else(|| at.fail("an execution size 1,2,4,8,16,32", n))?;
    Ok(ExecSize {
        size,
        mask: MaskControl { group, no_mask },
    })
}

/// An LSC address's `:aNN` suffix: the text before it and the AddrSize code.
fn lsc_address_size<'s>(s: &'s str, expected: &str, a: At) -> Result<(&'s str, u64), ParseError> {
    let (body, size) = s.rsplit_once(':').ok_or_else(|| a.fail(expected, s))?;
    let size = name_code(
        &syntax::LSC_ADDR_SIZE,
        size,
        "an address size a16 a32 a64",
        a,
    )?;
    Ok((body, size))
}

fn name_code(names: &Names, s: &str, what: &str, at: At) -> Result<u64, ParseError> {
    names.code(s).ok_or_else(|| at.fail(what, s))
}

fn channels(s: &str, at: At) -> Result<u64, ParseError> {
    let mut m = 0u64;
    for c in s.chars() {
        let bit = syntax::CHANNELS
            .iter()
            .position(|x| *x == c)
            .ok_or_else(|| at.fail("channel letters from RGBA", s))?;
        m |= 1 << bit;
    }
    if m == 0 {
        return Err(at.fail("at least one channel", s));
    }
    Ok(m)
}

/// Parse one instruction line.
pub fn instruction(text: &str, line: usize, sym: &Symbols) -> Result<Instruction, ParseError> {
    let toks = tokens(text);
    let mut it = toks.iter().peekable();
    let first = it
        .next()
        .ok_or_else(|| super::err(line, 1, "an instruction", "nothing"))?;
    let (pred, head) = if first.text.starts_with('(') {
        let p = operand::predicate_prefix(first.text, sym, At::of(line, first))?;
        let h = it.next().ok_or_else(|| {
            At::of(line, first).fail("a mnemonic after the predicate", "end of line")
        })?;
        (Some(p), h)
    } else {
        (None, first)
    };
    let rest: Vec<&Token> = it.collect();
    let at = At::of(line, head);
    let mut parts = head.text.split('.');
    let base = parts.next().unwrap_or_default().to_ascii_lowercase();
    let suffixes: Vec<&str> = parts.collect();
    let cx = Cx { line, sym, pred };

    if base.starts_with("lsc_") {
        return cx.lsc(&base, &suffixes, &rest, at);
    }
    match base.as_str() {
        "fence_global" | "fence_local" | "fence_sw" => {
            return cx.fence(&base, &suffixes, &rest, at)
        }
        "barrier" => return Builder::new(Opcode::Barrier).finish(at),
        "fcall" | "ifcall" | "faddr" => return cx.stack_call(&base, &rest, at),
        "media_ld" | "media_st" => return cx.media(&base, &suffixes, &rest, at),
        "sbarrier" => {
            let mut b = Builder::new(Opcode::Sbarrier);
            let mode = match suffixes.first() {
                Some(&"signal") => 1,
                Some(&"wait") => 0,
                _ => return Err(at.fail("sbarrier.wait or sbarrier.signal", head.text)),
            };
            b.set("Mode", Field::Int(mode), at)?;
            return b.finish(at);
        }
        _ => {}
    }
    if let Some((code, _, params)) = text_form::LOAD_3D_OPS.iter().find(|o| o.1 == base) {
        return cx.sampler_message(Opcode::D3Load, *code, params, &suffixes, &rest, at);
    }
    // IGC prints 3D_SAMPLE4's gather4 as `sample4`; the row holds four parameters.
    if let Some((code, _, _)) = text_form::SAMPLE4_OPS.iter().find(|o| o.1 == base) {
        let params = &text_form::SAMPLE_3D_PARAMS;
        return cx.sampler_message(Opcode::D3Sample4, *code, params, &suffixes, &rest, at);
    }
    if base.starts_with("sample4_") {
        return Err(at.fail(
            "`sample4`, `sample4_l`, `sample4_b` or `sample4_i` (the compare forms need \
             a sampler's shadow function, which OpenCL samplers lack; the offset forms \
             are not modelled)",
            &base,
        ));
    }
    if let Some((code, _)) = text_form::SAMPLE_3D_OPS.iter().find(|o| o.1 == base) {
        let params = &text_form::SAMPLE_3D_PARAMS;
        return cx.sampler_message(Opcode::D3Sample, *code, params, &suffixes, &rest, at);
    }
    let igc = text_form::SPEC_SPELLINGS
        .iter()
        .find(|(spec, _)| *spec == base)
        .map_or(base.as_str(), |(_, igc)| igc);
    if let Some(form) = text_form::FORMS.iter().find(|f| f.mnemonic == igc) {
        return cx.form(form, &suffixes, &rest, at);
    }
    let op = match base.as_str() {
        "min" | "max" => Opcode::MinMax,
        _ => Opcode::ALL
            .iter()
            .copied()
            .find(|o| text_form::alu_mnemonic(*o) == base && *o != Opcode::Fccall)
            .ok_or_else(|| at.fail("a vISA mnemonic", &base))?,
    };
    cx.alu(op, &base, &suffixes, &rest, at)
}

struct Cx<'a> {
    line: usize,
    sym: &'a Symbols,
    pred: Option<Predicate>,
}

impl Cx<'_> {
    fn at(&self, t: &Token) -> At {
        At::of(self.line, t)
    }

    fn set_pred(&self, b: &mut Builder, at: At) -> Result<(), ParseError> {
        if b.kind("Pred").is_some() {
            b.set("Pred", Field::Pred(self.pred), at)?;
        } else if self.pred.is_some() {
            return Err(at.fail(
                &format!("no predicate ({} takes none)", b.op.spec_name()),
                "a predicate",
            ));
        }
        Ok(())
    }

    /// `media_ld.nomod (32,1) T6 0 x y dst`: MEDIA_LD / MEDIA_ST (block width in bytes,
    /// height in rows; surface, plane, x byte and y row offsets, data).
    fn media(
        &self,
        base: &str,
        suffixes: &[&str],
        rest: &[&Token],
        at: At,
    ) -> Result<Instruction, ParseError> {
        let load = base == "media_ld";
        let mut b = Builder::new(if load {
            Opcode::MediaLd
        } else {
            Opcode::MediaSt
        });
        let m = match suffixes {
            [] => 0,
            [m] => text_form::MEDIA_MODIFIERS
                .iter()
                .find(|x| x.1 == *m)
                .map(|x| x.0)
                .or_else(|| parse_int(m).and_then(|v| u64::try_from(v).ok()))
                .ok_or_else(|| at.fail("a media modifier (nomod, modified, top, bottom...)", m))?,
            _ => return Err(at.fail("one modifier suffix", &suffixes.join("."))),
        };
        b.set("Modifiers", Field::Int(m), at)?;
        let mut ops = rest.iter().map(|t| (t.text, self.at(t)));
        let mut next = |what: &str| ops.next().ok_or_else(|| at.fail(what, "end of line"));
        let (t, a) = next("the block size `(width,height)`")?;
        let (w, h) = t
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .and_then(|s| s.split_once(','))
            .and_then(|(w, h)| Some((parse_int(w.trim())?, parse_int(h.trim())?)))
            .filter(|(w, h)| (1..=64).contains(w) && (1..=64).contains(h))
            .ok_or_else(|| a.fail("`(width,height)`: 1 to 64 bytes by 1 to 64 rows", t))?;
        b.set("Block_width", Field::Int(w as u64), at)?;
        b.set("Block_height", Field::Int(h as u64), at)?;
        let (t, a) = next("a surface")?;
        b.set(
            "Surface",
            Field::Surface(operand::surface(t, self.sym, a)?),
            at,
        )?;
        let (t, a) = next("the plane")?;
        let plane = parse_int(t)
            .and_then(|v| u64::try_from(v).ok())
            .filter(|v| *v <= 3)
            .ok_or_else(|| a.fail("a plane 0 to 3", t))?;
        b.set("Plane", Field::Int(plane), at)?;
        for name in ["X_offset", "Y_offset"] {
            let (t, a) = next(name)?;
            b.set(
                name,
                Field::Vec(operand::vec_operand(t, false, self.sym, a)?),
                at,
            )?;
        }
        let (t, a) = next("the data operand")?;
        let data = if load { "Dst" } else { "Src" };
        b.set(data, Field::Raw(operand::raw(t, self.sym, a)?), at)?;
        if let Some((t, a)) = ops.next() {
            return Err(a.fail("end of instruction", t));
        }
        b.finish(at)
    }

    /// The sampler messages, `load_lz[.pixel_null_mask].RGBA (M1, 16) 0x0:uw T6 dst u v`
    /// (3D_LOAD) and `sample_lz.RGBA (M1, 16) 0x0:uw S0 T6 dst u v` (3D_SAMPLE): the
    /// operation's code, its parameter fields in text order (NumParams of them given;
    /// the row's other raw fields are the null variable).
    fn sampler_message(
        &self,
        op: Opcode,
        code: u64,
        params: &[&str],
        suffixes: &[&str],
        rest: &[&Token],
        at: At,
    ) -> Result<Instruction, ParseError> {
        let mut b = Builder::new(op);
        self.set_pred(&mut b, at)?;
        let mut code = code;
        let mut sfx = suffixes;
        if sfx.first() == Some(&"pixel_null_mask") {
            code |= text_form::PIXEL_NULL_MASK;
            sfx = &sfx[1..];
        }
        let [ch] = sfx else {
            return Err(at.fail("one channel suffix (.R ... .RGBA)", &suffixes.join(".")));
        };
        b.set("Op", Field::Int(code), at)?;
        if op == Opcode::D3Sample4 {
            let c = ["R", "G", "B", "A"]
                .iter()
                .position(|x| x.eq_ignore_ascii_case(ch))
                .ok_or_else(|| at.fail("one source channel .R, .G, .B or .A", ch))?;
            b.set("Src_channel", Field::Int(c as u64), at)?;
        } else {
            b.set("Channels", Field::Int(channels(ch, at)?), at)?;
        }
        let mut ops = rest.iter().map(|t| (t.text, self.at(t)));
        let mut next = |what: &str| ops.next().ok_or_else(|| at.fail(what, "end of line"));
        let (t, a) = next("an execution size")?;
        b.set("Exec_size", Field::ExecSize(exec_size(t, a)?), at)?;
        let (t, a) = next("the aoffimmi operand")?;
        let aoffimmi = operand::vec_operand(t, false, self.sym, a)?;
        b.set("Aoffimmi", Field::Vec(aoffimmi), at)?;
        if op != Opcode::D3Load {
            let (t, a) = next("a sampler")?;
            b.set(
                "Sampler",
                Field::Sampler(operand::sampler(t, self.sym, a)?),
                at,
            )?;
        }
        let (t, a) = next("a surface")?;
        b.set(
            "Surface",
            Field::Surface(operand::surface(t, self.sym, a)?),
            at,
        )?;
        let (t, a) = next("the destination")?;
        b.set("Dst", Field::Raw(operand::raw(t, self.sym, a)?), at)?;
        let given: Vec<(&str, At)> = std::iter::from_fn(|| next("").ok()).collect();
        if given.is_empty() || given.len() > params.len() {
            let more = match op {
                Opcode::D3Sample => "; gradient forms with more are not modelled",
                _ => "",
            };
            return Err(at.fail(
                &format!(
                    "1 to {} parameters ({}){more}",
                    params.len(),
                    params.join(" ")
                ),
                &format!("{} parameters", given.len()),
            ));
        }
        b.set("NumParams", Field::Int(given.len() as u64), at)?;
        for (name, (t, a)) in params.iter().zip(&given) {
            b.set(name, Field::Raw(operand::raw(t, self.sym, *a)?), at)?;
        }
        b.fill_null_raw();
        b.finish(at)
    }

    /// Stack-function forms (spec FCALL, IFCALL, FADDR):
    /// `fcall (E) name args rets`, `ifcall (E) addr args rets`, `faddr name dst`.
    /// A function is named by its string (`Field::Str`), as the text has no pool.
    fn stack_call(&self, base: &str, rest: &[&Token], at: At) -> Result<Instruction, ParseError> {
        let op = match base {
            "fcall" => Opcode::Fcall,
            "ifcall" => Opcode::Ifcall,
            _ => Opcode::Faddr,
        };
        let mut b = Builder::new(op);
        self.set_pred(&mut b, at)?;
        let mut toks = rest.iter();
        let mut next = |what: &str| toks.next().ok_or_else(|| at.fail(what, "end of line"));
        if op != Opcode::Faddr {
            let t = next("an execution size")?;
            b.set(
                "Exec_size",
                Field::ExecSize(exec_size(t.text, self.at(t))?),
                at,
            )?;
        }
        match op {
            Opcode::Ifcall => {
                let t = next("the function address operand")?;
                let v = operand::vec_operand(t.text, false, self.sym, self.at(t))?;
                b.set("Func_addr", Field::Vec(v), at)?;
            }
            _ => {
                let t = next("a function name")?;
                if !t
                    .text
                    .chars()
                    .all(|c| c.is_alphanumeric() || "_$.".contains(c))
                {
                    return Err(self.at(t).fail("a function name", t.text));
                }
                b.set("Func_id", Field::Str(t.text.to_string()), at)?;
            }
        }
        if op == Opcode::Faddr {
            let t = next("the destination operand")?;
            let v = operand::vec_operand(t.text, true, self.sym, self.at(t))?;
            b.set("Dst", Field::Vec(v), at)?;
        } else {
            for (name, max) in [("Arg_size", 255), ("Return_size", 255)] {
                let t = next(&format!("{name} in GRFs"))?;
                let v = parse_int(t.text)
                    .and_then(|v| u64::try_from(v).ok())
                    .filter(|v| *v <= max)
                    .ok_or_else(|| self.at(t).fail(&format!("{name} in GRFs (0-255)"), t.text))?;
                b.set(name, Field::Int(v), at)?;
            }
        }
        if let Some(t) = toks.next() {
            return Err(self.at(t).fail("end of instruction", t.text));
        }
        b.finish(at)
    }

    /// The ALU form: `[(P)] name[.sfx][.sat] (exec) operands`.
    fn alu(
        &self,
        op: Opcode,
        base: &str,
        suffixes: &[&str],
        rest: &[&Token],
        at: At,
    ) -> Result<Instruction, ParseError> {
        let mut b = Builder::new(op);
        self.set_pred(&mut b, at)?;
        let mut sat = false;
        let mut int_suffixes: Vec<&str> = Vec::new();
        for s in suffixes {
            if *s == "sat" {
                sat = true;
            } else {
                int_suffixes.push(s);
            }
        }
        let mut operands = rest.iter();
        let mut ints = int_suffixes.into_iter();
        for spec in info(op).fields {
            let f = match spec.kind {
                FieldKind::ExecSize => {
                    let t = operands
                        .next()
                        .ok_or_else(|| at.fail("an execution size", "end of line"))?;
                    Field::ExecSize(exec_size(t.text, self.at(t))?)
                }
                FieldKind::Pred => continue,
                FieldKind::Dst | FieldKind::Src | FieldKind::Scalar => {
                    let t = operands
                        .next()
                        .ok_or_else(|| at.fail(&format!("operand {}", spec.name), "end of line"))?;
                    let mut v = operand::vec_operand(
                        t.text,
                        spec.kind == FieldKind::Dst,
                        self.sym,
                        self.at(t),
                    )?;
                    if sat && spec.name == "Dst" {
                        set_sat(&mut v);
                    }
                    Field::Vec(v)
                }
                FieldKind::Raw => {
                    let t = operands
                        .next()
                        .ok_or_else(|| at.fail("a raw operand", "end of line"))?;
                    Field::Raw(operand::raw(t.text, self.sym, self.at(t))?)
                }
                FieldKind::Label => {
                    let t = operands
                        .next()
                        .ok_or_else(|| at.fail("a label", "end of line"))?;
                    Field::Label(label(t.text, self.sym, self.at(t))?)
                }
                FieldKind::Surface => {
                    let t = operands
                        .next()
                        .ok_or_else(|| at.fail("a surface", "end of line"))?;
                    Field::Surface(operand::surface(t.text, self.sym, self.at(t))?)
                }
                FieldKind::Sampler => {
                    let t = operands
                        .next()
                        .ok_or_else(|| at.fail("a sampler", "end of line"))?;
                    Field::Sampler(operand::sampler(t.text, self.sym, self.at(t))?)
                }
                FieldKind::LabelList => {
                    let t = operands
                        .next()
                        .ok_or_else(|| at.fail("a label list `(L0, L1)`", "end of line"))?;
                    let inner = t
                        .text
                        .strip_prefix('(')
                        .and_then(|s| s.strip_suffix(')'))
                        .ok_or_else(|| self.at(t).fail("a label list `(L0, L1)`", t.text))?;
                    let labels = inner
                        .split(',')
                        .map(|l| label(l.trim(), self.sym, self.at(t)))
                        .collect::<Result<Vec<_>, _>>()?;
                    b.set("Num_labels", Field::Int(labels.len() as u64), at)?;
                    Field::Labels(labels)
                }
                FieldKind::Int(_) => {
                    let v = match (op, spec.name) {
                        (Opcode::Cmp, "Rel_op") => {
                            let s = ints.next().ok_or_else(|| at.fail("cmp.<relop>", base))?;
                            name_code(
                                &syntax::REL_OP,
                                s,
                                "a relational op (eq ne gt ge lt le)",
                                at,
                            )?
                        }
                        (Opcode::MinMax, "Op") => u64::from(base == "max"),
                        (Opcode::Bfn, "BooleanFuncCtrl") => {
                            let s = ints.next().ok_or_else(|| at.fail("bfn.x<hex>", base))?;
                            s.strip_prefix('x')
                                .and_then(|h| u64::from_str_radix(h, 16).ok())
                                .ok_or_else(|| at.fail("bfn.x<hex>", s))?
                        }
                        (Opcode::Switchjmp, "Num_labels") => continue,
                        _ => {
                            let s = ints
                                .next()
                                .ok_or_else(|| at.fail(&format!(".{} suffix", spec.name), base))?;
                            parse_int(s)
                                .and_then(|v| u64::try_from(v).ok())
                                .ok_or_else(|| at.fail(&format!("a number for {}", spec.name), s))?
                        }
                    };
                    Field::Int(v)
                }
            };
            b.set(spec.name, f, at)?;
        }
        if let Some(t) = operands.next() {
            return Err(self.at(t).fail("end of instruction", t.text));
        }
        if let Some(s) = ints.next() {
            return Err(at.fail("no further suffix", s));
        }
        b.finish(at)
    }

    /// A table-described memory form.
    fn form(
        &self,
        form: &text_form::TextForm,
        suffixes: &[&str],
        rest: &[&Token],
        at: At,
    ) -> Result<Instruction, ParseError> {
        let mut b = Builder::new(form.op);
        self.set_pred(&mut b, at)?;
        for (name, v) in form.defaults {
            b.set(name, Field::Int(*v), at)?;
        }
        let mut sfx = suffixes.iter();
        for (name, kind) in form.suffixes {
            let s = sfx
                .next()
                .ok_or_else(|| at.fail(&format!(".{name}"), "no suffix"))?;
            let v = match kind {
                Suffix::Channels => channels(s, at)?,
                Suffix::AtomicOp => {
                    let mut v = name_code(&syntax::ATOMIC_OP, s, "an atomic op", at)?;
                    // `.16` / `.64` width suffix (bits 5-6).
                    if let Some(w) = sfx.clone().next() {
                        match *w {
                            "16" => {
                                v |= 1 << 5;
                                sfx.next();
                            }
                            "64" => {
                                v |= 2 << 5;
                                sfx.next();
                            }
                            _ => {}
                        }
                    }
                    v
                }
                Suffix::Log2Count => match *s {
                    "1" => 0,
                    "2" => 1,
                    "4" => 2,
                    "8" => 3,
                    _ => return Err(at.fail("a block count 1, 2, 4 or 8", s)),
                },
                Suffix::BlockBytes => match *s {
                    "1" => 0,
                    "4" => 1,
                    "8" => 2,
                    _ => return Err(at.fail("a block size of 1, 4 or 8 bytes", s)),
                },
                Suffix::Number => parse_int(s)
                    .and_then(|v| u64::try_from(v).ok())
                    .ok_or_else(|| at.fail("a number", s))?,
                Suffix::Precision => name_code(
                    &syntax::PRECISION,
                    s,
                    "a precision (u8, s8, hf, bf, ...)",
                    at,
                )?,
            };
            b.set(name, Field::Int(v), at)?;
        }
        if let Some(s) = sfx.next() {
            return Err(at.fail("no further suffix", s));
        }
        let mut ops = rest.iter();
        match form.exec {
            ExecPart::ExecSize => {
                let t = ops
                    .next()
                    .ok_or_else(|| at.fail("an execution size", "end of line"))?;
                b.set(
                    "Exec_size",
                    Field::ExecSize(exec_size(t.text, self.at(t))?),
                    at,
                )?;
            }
            ExecPart::Owords(field) => {
                let t = ops
                    .next()
                    .ok_or_else(|| at.fail("`(owords)`", "end of line"))?;
                let n = t
                    .text
                    .strip_prefix('(')
                    .and_then(|s| s.strip_suffix(')'))
                    .and_then(parse_int)
                    .and_then(|v| u64::try_from(v).ok())
                    .and_then(syntax::oword_code)
                    .ok_or_else(|| self.at(t).fail("`(n)` owords: 1, 2, 4, 8 or 16", t.text))?;
                b.set(field, Field::Int(n), at)?;
            }
            ExecPart::None => {}
        }
        for name in form.operands {
            let t = ops
                .next()
                .ok_or_else(|| at.fail(&format!("operand {name}"), "end of line"))?;
            let a = self.at(t);
            let f = match b.kind(name) {
                Some(FieldKind::Raw) => Field::Raw(operand::raw(t.text, self.sym, a)?),
                Some(FieldKind::Surface) => Field::Surface(operand::surface(t.text, self.sym, a)?),
                Some(FieldKind::Dst) => {
                    Field::Vec(operand::vec_operand(t.text, true, self.sym, a)?)
                }
                Some(FieldKind::Src) | Some(FieldKind::Scalar) => {
                    Field::Vec(operand::vec_operand(t.text, false, self.sym, a)?)
                }
                _ => return Err(a.fail("an operand", name)),
            };
            b.set(name, f, at)?;
        }
        if let Some(t) = ops.next() {
            return Err(self.at(t).fail("end of instruction", t.text));
        }
        b.finish(at)
    }

    fn fence(
        &self,
        base: &str,
        suffixes: &[&str],
        rest: &[&Token],
        at: At,
    ) -> Result<Instruction, ParseError> {
        if let Some(t) = rest.first() {
            return Err(self.at(t).fail("end of instruction", t.text));
        }
        let mut mask: u64 = match base {
            "fence_local" => 1 << 5,
            "fence_sw" => 1 << 7,
            _ => 0,
        };
        for s in suffixes {
            let mut rest = *s;
            while !rest.is_empty() {
                let (name, bit) = syntax::FENCE_FLAGS
                    .iter()
                    .find(|(n, _)| rest.starts_with(n))
                    .ok_or_else(|| at.fail("fence flags from E I S C R L1", s))?;
                mask |= 1 << bit;
                rest = &rest[name.len()..];
            }
        }
        let mut b = Builder::new(Opcode::Fence);
        b.set("Mask", Field::Int(mask), at)?;
        b.finish(at)
    }

    /// `lsc_*` untyped messages and `lsc_fence`.
    fn lsc(
        &self,
        base: &str,
        suffixes: &[&str],
        rest: &[&Token],
        at: At,
    ) -> Result<Instruction, ParseError> {
        if base == "lsc_fence" {
            let [sfid, op, scope] = suffixes else {
                return Err(at.fail("lsc_fence.<sfid>.<op>.<scope>", base));
            };
            let mut b = Builder::new(Opcode::LscFence);
            self.set_pred(&mut b, at)?;
            b.set(
                "ExecSize",
                Field::ExecSize(ExecSize {
                    size: 1,
                    mask: MaskControl {
                        group: 0,
                        no_mask: true,
                    },
                }),
                at,
            )?;
            b.set(
                "LscSFID",
                Field::Int(name_code(&syntax::LSC_SFID, sfid, "an LSC SFID", at)?),
                at,
            )?;
            b.set(
                "LscFenceOp",
                Field::Int(name_code(&syntax::LSC_FENCE_OP, op, "a fence op", at)?),
                at,
            )?;
            b.set(
                "LscScope",
                Field::Int(name_code(&syntax::LSC_SCOPE, scope, "a fence scope", at)?),
                at,
            )?;
            return b.finish(at);
        }
        let subop = name_code(&syntax::LSC_SUBOP, base, "an LSC operation", at)?;
        if suffixes.first() == Some(&"tgm") {
            return self.lsc_typed(base, subop, suffixes, rest, at);
        }
        let mut b = Builder::new(Opcode::LscUntyped);
        self.set_pred(&mut b, at)?;
        b.set("LscSubOp", Field::Int(subop), at)?;
        let sfid = suffixes
            .first()
            .ok_or_else(|| at.fail("lsc_*.<sfid>", base))?;
        b.set(
            "LscSFID",
            Field::Int(name_code(&syntax::LSC_SFID, sfid, "an LSC SFID", at)?),
            at,
        )?;
        if matches!(subop, 0x03 | 0x07) {
            return self.lsc_block2d(b, subop, suffixes, rest, at);
        }
        if matches!(subop, 0x28 | 0x29) {
            return self.lsc_append_counter(b, suffixes, rest, at);
        }
        let quad = matches!(subop, 0x02 | 0x06);
        let mut ops = self.lsc_caching_and_exec(&mut b, suffixes, rest, quad, "Exec_size", at)?;
        let null = RawOperand {
            var: VarId(0),
            offset: 0,
        };
        let mut next = |what: &str| ops.next().ok_or_else(|| at.fail(what, "end of line"));
        let is_store = matches!(subop, 0x04 | 0x05 | 0x06 | 0x1c);
        let is_atomic = (0x08..=0x1a).contains(&subop);
        let strided = matches!(subop, 0x01 | 0x05);
        let addr_data = if is_store {
            let a = next("an LSC address")?;
            (a, next("LSC store data")?)
        } else {
            let d = next("LSC destination data")?;
            (next("an LSC address")?, d)
        };
        let data = self.lsc_data(&mut b, addr_data.1, quad)?;
        let pitch = self.lsc_address(&mut b, addr_data.0, strided)?;
        let pitch = match pitch {
            Some(p) => p,
            // IGC's default pitch: a packed block (element bytes times the vector
            // length when not transposed).
            None if strided => {
                let bytes = match b.int("DataSize") {
                    Some(1 | 5) => 1,
                    Some(2 | 6 | 7) => 2,
                    Some(4) => 8,
                    _ => 4,
                };
                let transposed = b.int("DataOrder") == Some(syntax::LSC_ORDER_TRANSPOSE);
                let vec = match b.int("DataElemsPerAddr") {
                    Some(v @ 1..=4) => v,
                    Some(v @ 5..=8) => 8 << (v - 5),
                    _ => 1,
                };
                VecOperand::Immediate {
                    ty: DataType::UD,
                    bits: if transposed { bytes } else { bytes * vec },
                }
            }
            None => VecOperand::Immediate {
                ty: DataType::UD,
                bits: 0,
            },
        };
        b.set("Src0AddrPitch", Field::Vec(pitch), at)?;
        if is_store {
            b.set("Src1Data", Field::Raw(data), at)?;
            b.set("DstData", Field::Raw(null), at)?;
            b.set("Src2Data", Field::Raw(null), at)?;
        } else {
            b.set("DstData", Field::Raw(data), at)?;
            let (s1, s2) = if is_atomic {
                let s1 = next("atomic source 1")?;
                let s2 = next("atomic source 2")?;
                (
                    operand::raw(s1.text, self.sym, self.at(s1))?,
                    operand::raw(s2.text, self.sym, self.at(s2))?,
                )
            } else {
                (null, null)
            };
            b.set("Src1Data", Field::Raw(s1), at)?;
            b.set("Src2Data", Field::Raw(s2), at)?;
        }
        if let Some(t) = ops.next() {
            return Err(self.at(t).fail("end of instruction", t.text));
        }
        b.default_extras();
        b.finish(at)
    }

    /// `lsc_apndctr_atomic_add.ugm (M1, 16) VDATA:d32 bti(0x3) VADDEND:d32` (and `_sub`):
    /// no address, the surface's append counter. The addend (the page's `Src0Data`)
    /// is kept in `Src0Addrs`, the raw operand in that position of the format.
    fn lsc_append_counter(
        &self,
        mut b: Builder,
        suffixes: &[&str],
        rest: &[&Token],
        at: At,
    ) -> Result<Instruction, ParseError> {
        let mut ops = self.lsc_caching_and_exec(&mut b, suffixes, rest, false, "Exec_size", at)?;
        let mut next = |what: &str| ops.next().ok_or_else(|| at.fail(what, "end of line"));
        let d = next("append counter destination data `V:d32`")?;
        let surf = next("the append counter's surface `bti(N)`, `ss(N)` or `bss(N)`")?;
        let v = next("the addend `V:d32`")?;
        if let Some(t) = ops.next() {
            return Err(self.at(t).fail("end of instruction", t.text));
        }
        let data = self.lsc_data(&mut b, d, false)?;
        let a = self.at(surf);
        let (ty, surface) = self.lsc_model(surf.text, a)?;
        if !matches!(ty, 2..=4) {
            return Err(a.fail(
                "a stateful surface `bti(N)`, `ss(N)` or `bss(N)` (append counters live in surface state)",
                surf.text,
            ));
        }
        let av = self.at(v);
        let (name, size) = v
            .text
            .rsplit_once(':')
            .ok_or_else(|| av.fail("the addend `V:d32`", v.text))?;
        if syntax::LSC_DATA_SIZE.code(size) != b.int("DataSize") {
            return Err(av.fail("the destination's data size", size));
        }
        b.set("AddrType", Field::Int(ty), a)?;
        b.set("AddrSize", Field::Int(2), a)?;
        b.set("AddrScale", Field::Int(1), a)?;
        b.set("AddrImmOffset", Field::Int(0), a)?;
        b.set("Surface", Field::Vec(surface), a)?;
        b.set(
            "Src0Addrs",
            Field::Raw(operand::raw(name, self.sym, av)?),
            av,
        )?;
        b.set("DstData", Field::Raw(data), at)?;
        // Src1Data and Src2Data: null.
        b.fill_null_raw();
        b.default_extras();
        b.finish(at)
    }

    /// `lsc_load_block2d.ugm (M1, 16) V:d16.2x16x8nn flat[Base,W,H,P,X,Y]` and
    /// `lsc_store_block2d.ugm (M1, 16) flat[...] V:d16.16x8nn` (the store's block count
    /// optional): DataSize.Blocks x BlockWidth x BlockHeight, then (t)ransposed and VNNI
    /// (t)ransformed or (n)ot. Surface width, height and pitch are kept as written
    /// (minus-one encoded, as IGC passes them).
    /// `b` holds the predicate, sub-op and SFID (`lsc`).
    fn lsc_block2d(
        &self,
        mut b: Builder,
        subop: u64,
        suffixes: &[&str],
        rest: &[&Token],
        at: At,
    ) -> Result<Instruction, ParseError> {
        let mut ops = self.lsc_caching_and_exec(&mut b, suffixes, rest, false, "Exec_size", at)?;
        let mut next = |what: &str| ops.next().ok_or_else(|| at.fail(what, "end of line"));
        let store = subop == 0x07;
        let (data, addr) = if store {
            let a = next("a block2d address `flat[Base,W,H,P,X,Y]`")?;
            (next("block2d store data")?, a)
        } else {
            let d = next("block2d destination data")?;
            (d, next("a block2d address `flat[Base,W,H,P,X,Y]`")?)
        };
        if let Some(t) = ops.next() {
            return Err(self.at(t).fail("end of instruction", t.text));
        }
        let a = self.at(data);
        let shape_err = || a.fail("block2d data `V:d16.2x16x8nn`", data.text);
        let (v, spec) = data.text.rsplit_once(':').ok_or_else(shape_err)?;
        let (size, shape) = spec.split_once('.').ok_or_else(shape_err)?;
        let ds = name_code(
            &syntax::LSC_DATA_SIZE,
            size,
            "a block2d data size d8 d16 d32 d64",
            a,
        )?;
        if !(1..=4).contains(&ds) {
            return Err(a.fail("a block2d data size d8 d16 d32 d64", size));
        }
        let flag = |c: u8| match c {
            b't' => Ok(1),
            b'n' => Ok(0),
            _ => Err(a.fail("`nn`, `nt`, `tn` or `tt` after the block shape", shape)),
        };
        let (dims, flags) = shape
            .len()
            .checked_sub(2)
            .filter(|&k| shape.is_char_boundary(k))
            .map(|k| shape.split_at(k))
            .ok_or_else(shape_err)?;
        let (transpose, vnni) = (flag(flags.as_bytes()[0])?, flag(flags.as_bytes()[1])?);
        let num = |t: &str, max: u64| {
            parse_int(t)
                .and_then(|v| u64::try_from(v).ok())
                .filter(|v| (1..=max).contains(v))
                .ok_or_else(|| a.fail(&format!("a block dimension 1..={max}"), t))
        };
        let dims: Vec<&str> = dims.split('x').collect();
        let (blocks, w, h) = match dims[..] {
            [w, h] => (1, num(w, 0xffff)?, num(h, 0xffff)?),
            [n, w, h] => (num(n, 0xff)?, num(w, 0xffff)?, num(h, 0xffff)?),
            _ => return Err(shape_err()),
        };
        if store && (blocks != 1 || transpose == 1 || vnni == 1) {
            return Err(a.fail("a block2d store of one block, `nn`", shape));
        }
        b.set("DataSize", Field::Int(ds), a)?;
        b.set("DataElemsPerAddr", Field::Int(1), a)?;
        let order = if transpose == 1 {
            syntax::LSC_ORDER_TRANSPOSE
        } else {
            syntax::LSC_ORDER_NONTRANSPOSE
        };
        b.set("DataOrder", Field::Int(order), a)?;
        b.set("Blocks", Field::Int(blocks), a)?;
        b.set("BlockWidth", Field::Int(w), a)?;
        b.set("BlockHeight", Field::Int(h), a)?;
        b.set("VNNI", Field::Int(vnni), a)?;
        self.block2d_data(&mut b, v, store, a)?;
        let null = RawOperand {
            var: VarId(0),
            offset: 0,
        };
        b.set("Src2Data", Field::Raw(null), a)?;
        b.set("Src0Addrs", Field::Raw(null), a)?;

        let a = self.at(addr);
        let (model, inner) = addr
            .text
            .strip_suffix(']')
            .and_then(|x| x.split_once('['))
            .ok_or_else(|| a.fail("a block2d address `flat[Base,W,H,P,X,Y]`", addr.text))?;
        let ty = name_code(&syntax::LSC_ADDR_TYPE, model, "the address model flat", a)?;
        if model != "flat" {
            return Err(a.fail("the address model flat (block2d takes no surface)", model));
        }
        let items: Vec<&str> = inner.split(',').map(str::trim).collect();
        let names = crate::isa::table::BLOCK2D_OPERANDS;
        if items.len() != names.len() {
            return Err(a.fail("six block2d operands `[Base,W,H,P,X,Y]`", inner));
        }
        for (name, item) in names.iter().zip(items) {
            let max = if *name == "SurfaceBaseAddr" {
                u64::MAX
            } else {
                u32::MAX as u64
            };
            let v = self.imm_or_operand(item, &format!("the block2d {name}"), max, a)?;
            b.set(name, Field::Vec(v), a)?;
        }
        b.set("AddrType", Field::Int(ty), a)?;
        b.set("AddrSize", Field::Int(3), a)?;
        b.set("AddrScale", Field::Int(1), a)?;
        b.set("AddrImmOffset", Field::Int(0), a)?;
        let zero = VecOperand::Immediate {
            ty: DataType::UD,
            bits: 0,
        };
        b.set("Surface", Field::Vec(zero), a)?;
        b.default_extras();
        b.finish(at)
    }

    /// LSC_TYPED (`.tgm`): `lsc_load_quad.tgm (M1, 16) V:d32.xyzw bti(0x4)[U,V+1,R]:a32`,
    /// The parts LSC_UNTYPED and LSC_TYPED share: the `.<l1>.<l3>` cache suffixes after
    /// the SFID (default 0), ChMask 0 unless a quad form names channels, and the
    /// `(exec)` part (`exec_field`: the rows name it differently); the operands left.
    fn lsc_caching_and_exec<'r, 't>(
        &self,
        b: &mut Builder,
        suffixes: &[&str],
        rest: &'r [&'r Token<'t>],
        quad: bool,
        exec_field: &str,
        at: At,
    ) -> Result<std::slice::Iter<'r, &'r Token<'t>>, ParseError> {
        lsc_caching(b, suffixes, at)?;
        if !quad {
            b.set("ChMask", Field::Int(0), at)?;
        }
        let mut ops = rest.iter();
        let t = ops
            .next()
            .ok_or_else(|| at.fail("an execution size", "end of line"))?;
        b.set(
            exec_field,
            Field::ExecSize(exec_size(t.text, self.at(t))?),
            at,
        )?;
        Ok(ops)
    }

    /// `lsc_store_quad.tgm (M1, 16) ADDR V:d32.xyzw`, `lsc_atomic_iadd.tgm (M1, 16)
    /// V:d32 ADDR SRC1 SRC2`, `lsc_load_status.tgm (M1, 16) V:d32 ADDR` (IGC's printer:
    /// coordinates up to the first null one, then LOD; immediate offsets on U, V and R).
    fn lsc_typed(
        &self,
        base: &str,
        subop: u64,
        suffixes: &[&str],
        rest: &[&Token],
        at: At,
    ) -> Result<Instruction, ParseError> {
        let quad = matches!(subop, 0x02 | 0x06);
        let atomic = (0x08..=0x1a).contains(&subop);
        let status = subop == 0x1b;
        if matches!(subop, 0x03 | 0x07) {
            return self.lsc_typed_block2d(subop, suffixes, rest, at);
        }
        if !quad && !atomic && !status {
            return Err(at.fail(
                "a typed LSC operation this parser supports (lsc_load_quad, lsc_store_quad, \
                 lsc_load_block2d, lsc_store_block2d, lsc_atomic_*, lsc_load_status)",
                base,
            ));
        }
        let mut b = Builder::new(Opcode::LscTyped);
        b.set("LscSubOp", Field::Int(subop), at)?;
        b.set("Predicate", Field::Pred(self.pred), at)?;
        let mut ops = self.lsc_caching_and_exec(&mut b, suffixes, rest, quad, "ExecSize", at)?;
        let null = RawOperand {
            var: VarId(0),
            offset: 0,
        };
        let mut next = |what: &str| ops.next().ok_or_else(|| at.fail(what, "end of line"));
        let store = subop == 0x06;
        let (addr, data) = if store {
            let a = next("a typed LSC address")?;
            (a, next("LSC store data")?)
        } else {
            let d = next("LSC destination data")?;
            (next("a typed LSC address")?, d)
        };
        let data = self.lsc_data(&mut b, data, quad)?;
        self.lsc_typed_address(&mut b, addr)?;
        let (s1, s2) = if atomic {
            let s1 = next("atomic source 1")?;
            let s2 = next("atomic source 2")?;
            (
                operand::raw(s1.text, self.sym, self.at(s1))?,
                operand::raw(s2.text, self.sym, self.at(s2))?,
            )
        } else if store {
            (data, null)
        } else {
            (null, null)
        };
        b.set("DstData", Field::Raw(if store { null } else { data }), at)?;
        b.set("Src1Data", Field::Raw(s1), at)?;
        b.set("Src2Data", Field::Raw(s2), at)?;
        if let Some(t) = ops.next() {
            return Err(self.at(t).fail("end of instruction", t.text));
        }
        b.default_extras();
        b.finish(at)
    }

    /// LSC_TYPED's 2D block forms, as IGC prints them (no execution size: the message
    /// is one channel): `lsc_load_block2d.tgm V:64x2 bti(0x0)[X,Y]` and
    /// `lsc_store_block2d.tgm bti(0x0)[X,Y] V:64x2`, the block's width in bytes and its
    /// height in rows; X (bytes) and Y (rows) are scalars or immediates.
    fn lsc_typed_block2d(
        &self,
        subop: u64,
        suffixes: &[&str],
        rest: &[&Token],
        at: At,
    ) -> Result<Instruction, ParseError> {
        let mut b = Builder::new(Opcode::LscTyped);
        if self.pred.is_some() {
            return Err(at.fail(
                "no predicate (a typed 2D block message takes none)",
                "a predicate",
            ));
        }
        b.set("LscSubOp", Field::Int(subop), at)?;
        b.set("Predicate", Field::Pred(None), at)?;
        lsc_caching(&mut b, suffixes, at)?;
        b.set(
            "ExecSize",
            Field::ExecSize(ExecSize {
                size: 1,
                mask: MaskControl::M1,
            }),
            at,
        )?;
        for name in [
            "AddrSize",
            "DataSize",
            "DataOrder",
            "DataElemsPerAddr",
            "ChMask",
        ] {
            b.set(name, Field::Int(0), at)?;
        }
        let mut ops = rest.iter();
        let mut next = |what: &str| ops.next().ok_or_else(|| at.fail(what, "end of line"));
        let store = subop == 0x07;
        let (addr, data) = if store {
            let a = next("a typed block2d address `bti(N)[X,Y]`")?;
            (a, next("block2d store data `V:WxH`")?)
        } else {
            let d = next("block2d destination data `V:WxH`")?;
            (next("a typed block2d address `bti(N)[X,Y]`")?, d)
        };
        if let Some(t) = ops.next() {
            return Err(self.at(t).fail("end of instruction", t.text));
        }
        let a = self.at(data);
        let shape_err = || {
            a.fail(
                "block2d data `V:WxH` (width in bytes, height in rows)",
                data.text,
            )
        };
        let (v, shape) = data.text.rsplit_once(':').ok_or_else(shape_err)?;
        let (w, h) = shape.split_once('x').ok_or_else(shape_err)?;
        let num = |t: &str| {
            parse_int(t)
                .and_then(|v| u64::try_from(v).ok())
                .filter(|v| (1..=64).contains(v))
                .ok_or_else(|| a.fail("a block dimension 1..=64", t))
        };
        b.set("BlockWidth", Field::Int(num(w)?), a)?;
        b.set("BlockHeight", Field::Int(num(h)?), a)?;
        self.block2d_data(&mut b, v, store, a)?;

        let a = self.at(addr);
        let (model, inner) = addr
            .text
            .strip_suffix(']')
            .and_then(|x| x.split_once('['))
            .ok_or_else(|| a.fail("a typed block2d address `bti(N)[X,Y]`", addr.text))?;
        let (ty, surface) = self.lsc_surface(model, a)?;
        let items = split_outside_brackets(inner);
        let [x, y] = items[..] else {
            return Err(a.fail("two block2d positions `[X,Y]`", inner));
        };
        for (name, item) in [("Src0AddrX", x), ("Src0AddrY", y)] {
            let v =
                self.imm_or_operand(item, &format!("the block2d {name}"), u32::MAX as u64, a)?;
            b.set(name, Field::Vec(v), a)?;
        }
        b.set("AddrType", Field::Int(ty), a)?;
        b.set("Surface", Field::Vec(surface), a)?;
        b.fill_null_raw();
        b.default_extras();
        b.finish(at)
    }

    /// A 2D block message's data register `v`: DstData of a load, Src1Data of a store
    /// (the other one null).
    fn block2d_data(&self, b: &mut Builder, v: &str, store: bool, a: At) -> Result<(), ParseError> {
        let reg = operand::raw(v, self.sym, a)?;
        let null = RawOperand {
            var: VarId(0),
            offset: 0,
        };
        let (d, s1) = if store { (null, reg) } else { (reg, null) };
        b.set("DstData", Field::Raw(d), a)?;
        b.set("Src1Data", Field::Raw(s1), a)
    }

    /// A typed LSC surface `bti(N)`, `bss(V)` or `ss(V)`: AddrType and the operand.
    fn lsc_surface(&self, model: &str, a: At) -> Result<(u64, VecOperand), ParseError> {
        let (mname, sarg) = model
            .strip_suffix(')')
            .and_then(|m| m.split_once('('))
            .ok_or_else(|| a.fail("a surface `bti(N)`, `bss(V)` or `ss(V)`", model))?;
        let ty = name_code(
            &syntax::LSC_ADDR_TYPE,
            mname,
            "an address model bss ss bti",
            a,
        )?;
        Ok((
            ty,
            self.imm_or_operand(sarg, "a surface index", u64::MAX, a)?,
        ))
    }

    /// An LSC surface index or pitch: an immediate (UD, at most `max`) where the text
    /// starts with a digit, else a vector operand.
    fn imm_or_operand(
        &self,
        text: &str,
        what: &str,
        max: u64,
        a: At,
    ) -> Result<VecOperand, ParseError> {
        if !text.starts_with(|c: char| c.is_ascii_digit()) {
            return operand::vec_operand(text, false, self.sym, a);
        }
        let bits = parse_int(text)
            .and_then(|v| u64::try_from(v).ok())
            .filter(|v| *v <= max)
            .ok_or_else(|| a.fail(what, text))?;
        Ok(VecOperand::Immediate {
            ty: DataType::UD,
            bits,
        })
    }

    /// `bti(0x4)[U,V+1,R,LOD]:a32` (or `bss(V)`/`ss(V)`): AddrType, AddrSize, Surface,
    /// the coordinate registers (missing ones null) and their offsets.
    fn lsc_typed_address(&self, b: &mut Builder, t: &Token) -> Result<(), ParseError> {
        let a = self.at(t);
        let s = t.text;
        let (body, size) = lsc_address_size(s, "a typed LSC address `bti(N)[U,V,R,LOD]:a32`", a)?;
        let (model, inner) = body
            .strip_suffix(']')
            .and_then(|x| x.split_once('['))
            .ok_or_else(|| a.fail("`[U,V,R,LOD]` in a typed LSC address", s))?;
        let (ty, surface) = self.lsc_surface(model, a)?;
        let coords: Vec<&str> = inner.split(',').map(str::trim).collect();
        if coords.is_empty() || coords.len() > 4 {
            return Err(a.fail("one to four coordinates U,V,R,LOD", inner));
        }
        let names = ["Src0AddrsU", "Src0AddrsV", "Src0AddrsR", "Src0AddrsLOD"];
        for (k, name) in names.iter().enumerate() {
            let c = coords.get(k).copied().unwrap_or("%null");
            let (var, off) = match c.find(['+', '-']).filter(|_| k < 3) {
                Some(i) => (
                    &c[..i],
                    parse_int(&c[i..])
                        .and_then(|v| i32::try_from(v).ok())
                        .ok_or_else(|| a.fail("a 32-bit coordinate offset", &c[i..]))?,
                ),
                None => (c, 0),
            };
            b.set(name, Field::Raw(operand::raw(var, self.sym, a)?), a)?;
            if k < 3 {
                b.set(&format!("{name}Offset"), Field::Int(off as u32 as u64), a)?;
            }
        }
        b.set("AddrType", Field::Int(ty), a)?;
        b.set("AddrSize", Field::Int(size), a)?;
        b.set("Surface", Field::Vec(surface), a)?;
        Ok(())
    }

    /// `V:d32x4t` -> the raw operand; DataSize, DataElemsPerAddr and DataOrder fields.
    /// `quad`: `V:d32.xzw`, the channel enables in ChMask (X bit 0 .. W bit 3).
    fn lsc_data(&self, b: &mut Builder, t: &Token, quad: bool) -> Result<RawOperand, ParseError> {
        let a = self.at(t);
        let (v, spec) = t
            .text
            .rsplit_once(':')
            .ok_or_else(|| a.fail("LSC data `V:d32[xN][t]`", t.text))?;
        if quad {
            let (size, letters) = spec
                .split_once('.')
                .ok_or_else(|| a.fail("quad data `V:d32.xyzw`", t.text))?;
            let mut mask = 0u64;
            let mut last = None;
            for c in letters.chars() {
                let bit = "xyzw"
                    .find(c)
                    .filter(|&i| last.is_none_or(|l| i > l))
                    .ok_or_else(|| a.fail("channels from x y z w, in that order", letters))?;
                mask |= 1 << bit;
                last = Some(bit);
            }
            if mask == 0 {
                return Err(a.fail("at least one channel of x y z w", letters));
            }
            let ds = name_code(
                &syntax::LSC_DATA_SIZE,
                size,
                "an LSC data size (d8 d16 d32 d64 d8c32 d16c32)",
                a,
            )?;
            b.set("DataSize", Field::Int(ds), a)?;
            b.set("DataElemsPerAddr", Field::Int(1), a)?;
            b.set("DataOrder", Field::Int(syntax::LSC_ORDER_NONTRANSPOSE), a)?;
            b.set("ChMask", Field::Int(mask), a)?;
            return operand::raw(v, self.sym, a);
        }
        let (spec, order) = match spec.strip_suffix('t') {
            Some(s) => (s, syntax::LSC_ORDER_TRANSPOSE),
            None => (spec, syntax::LSC_ORDER_NONTRANSPOSE),
        };
        let (size, vec) = match spec.split_once('x') {
            Some((s, n)) => (s, n),
            None => (spec, "1"),
        };
        let ds = name_code(
            &syntax::LSC_DATA_SIZE,
            size,
            "an LSC data size (d8 d16 d32 d64 d8c32 d16c32)",
            a,
        )?;
        let vs = name_code(
            &syntax::LSC_VECTOR,
            vec,
            "an LSC vector size 1,2,3,4,8,16,32,64",
            a,
        )?;
        b.set("DataSize", Field::Int(ds), a)?;
        b.set("DataElemsPerAddr", Field::Int(vs), a)?;
        b.set("DataOrder", Field::Int(order), a)?;
        operand::raw(v, self.sym, a)
    }

    /// `flat[S*V+off]:a64`, `bti(0x3)[V]:a32`, `bss(V)[V]:a32`; `strided`: an optional
    /// `, pitch` (a register or an immediate) after the address, returned.
    /// An LSC address model with its surface: `flat`, `bti(0x3)`, `bss(V)`...
    fn lsc_model(&self, model: &str, a: At) -> Result<(u64, VecOperand), ParseError> {
        let (mname, surface) = match model.split_once('(') {
            Some((m, sarg)) => {
                let sarg = sarg
                    .strip_suffix(')')
                    .ok_or_else(|| a.fail("`)` after the surface", model))?;
                (
                    m,
                    self.imm_or_operand(sarg, "a surface index", u64::MAX, a)?,
                )
            }
            None => (
                model,
                VecOperand::Immediate {
                    ty: DataType::UD,
                    bits: 0,
                },
            ),
        };
        let ty = name_code(
            &syntax::LSC_ADDR_TYPE,
            mname,
            "an address model flat bss ss bti arg",
            a,
        )?;
        Ok((ty, surface))
    }

    fn lsc_address(
        &self,
        b: &mut Builder,
        t: &Token,
        strided: bool,
    ) -> Result<Option<VecOperand>, ParseError> {
        let a = self.at(t);
        let s = t.text;
        let (body, size) = lsc_address_size(s, "an LSC address `model[...]:aNN`", a)?;
        let open = body
            .find('[')
            .ok_or_else(|| a.fail("`[` in an LSC address", s))?;
        let (model, rest) = body.split_at(open);
        let inner = rest
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .ok_or_else(|| a.fail("`[...]` in an LSC address", s))?;
        let (ty, surface) = self.lsc_model(model, a)?;
        let (inner, pitch) = match inner.split_once(',') {
            Some((addr, p)) if strided => {
                let v =
                    self.imm_or_operand(p.trim(), "a 32-bit unsigned pitch", u32::MAX as u64, a)?;
                (addr, Some(v))
            }
            Some(_) => return Err(a.fail("`]` (only strided messages take a pitch)", s)),
            None => (inner, None),
        };
        // [scale*]V[+off|-off]
        let (scale, rest) = match inner.split_once('*') {
            Some((sc, r)) => (
                parse_int(sc)
                    .and_then(|v| u64::try_from(v).ok())
                    .ok_or_else(|| a.fail("an address scale", sc))?,
                r,
            ),
            None => (1, inner),
        };
        let split = rest.find(['+', '-']);
        let (var, off) = match split {
            Some(i) => (
                &rest[..i],
                parse_int(&rest[i..]).ok_or_else(|| a.fail("an immediate offset", &rest[i..]))?,
            ),
            None => (rest, 0),
        };
        let off = i32::try_from(off).map_err(|_| a.fail("a 32-bit immediate offset", rest))?;
        b.set("AddrType", Field::Int(ty), a)?;
        b.set("AddrSize", Field::Int(size), a)?;
        b.set("AddrScale", Field::Int(scale), a)?;
        b.set("AddrImmOffset", Field::Int(off as u32 as u64), a)?;
        b.set("Surface", Field::Vec(surface), a)?;
        b.set("Src0Addrs", Field::Raw(operand::raw(var, self.sym, a)?), a)?;
        Ok(pitch)
    }
}

/// An LSC message's `.<l1>.<l3>` cache suffixes after the SFID (default 0).
fn lsc_caching(b: &mut Builder, suffixes: &[&str], at: At) -> Result<(), ParseError> {
    let cache = |i: usize| {
        suffixes.get(i).map_or(Ok(0), |s| {
            name_code(&syntax::LSC_CACHE, s, "a cache option", at)
        })
    };
    b.set("CachingL1", Field::Int(cache(1)?), at)?;
    b.set("CachingL3", Field::Int(cache(2)?), at)
}

/// `text` split at the commas outside `(...)` and `<...>` (operands with regions
/// inside an address's brackets: `[V1(0,0)<0;1,0>,V2(0,0)<0;1,0>]`), trimmed.
fn split_outside_brackets(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '<' => depth += 1,
            ')' | '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(text[start..].trim());
    out
}

fn set_sat(v: &mut VecOperand) {
    if let VecOperand::General { modifier, .. } | VecOperand::Indirect { modifier, .. } = v {
        *modifier = Modifier::Sat;
    }
}

fn label(name: &str, sym: &Symbols, at: At) -> Result<LabelId, ParseError> {
    sym.labels
        .get(name)
        .copied()
        .ok_or_else(|| at.fail("a label defined in this kernel", name))
}
