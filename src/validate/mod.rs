//! Structural validation of a kernel: the region rules of 5_operands, operands within
//! their variables, ids within their symbol tables, labels defined. Each finding names
//! the instruction (index and text) and the rule.

pub mod region;

use crate::ir::*;
use crate::isa::table::{info, FieldKind};
use region::{check_direct, RegionRule};

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    /// A spec rule that IGC's real output breaks routinely (region rule 6: IGC emits
    /// SIMD16 dword regions with stride 2, four GRFs, and the finalizer splits them);
    /// the interpreter handles these, so they are reported but not errors.
    Note,
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub severity: Severity,
    pub index: usize,
    /// The instruction as `.visaasm` text.
    pub text: String,
    pub rule: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "instruction {} `{}`: {}",
            self.index, self.text, self.rule
        )
    }
}

/// Check every instruction of `k` for a platform with `grf_bytes`-byte GRFs.
pub fn validate(k: &Kernel, grf_bytes: u32) -> Vec<Finding> {
    let mut out = Vec::new();
    for (index, inst) in k.body.iter().enumerate() {
        let mut rules: Vec<String> = Vec::new();
        let row = info(inst.op).fields;
        if row.len() != inst.fields.len() {
            rules.push(format!(
                "{} takes {} fields, the instruction has {}",
                inst.op.spec_name(),
                row.len(),
                inst.fields.len()
            ));
        }
        let exec = inst.exec_size().map_or(1, |e| e.size);
        for (spec, f) in row.iter().zip(&inst.fields) {
            match (spec.kind, f) {
                (FieldKind::Dst | FieldKind::Src, Field::Vec(v)) => check_vec(
                    k,
                    v,
                    spec.kind == FieldKind::Dst,
                    exec,
                    grf_bytes,
                    spec.name,
                    &mut rules,
                ),
                (FieldKind::Scalar, Field::Vec(v)) => check_ids(k, v, spec.name, &mut rules),
                (_, Field::Raw(r)) if k.var(r.var).is_none() => rules.push(format!(
                    "{}: variable id {} is not declared",
                    spec.name, r.var.0
                )),
                (_, Field::Label(l)) if l.0 as usize >= k.labels.len() => {
                    rules.push(format!("{}: label id {} is not declared", spec.name, l.0))
                }
                (_, Field::Pred(Some(p))) if p.id.0 as usize >= k.preds.len() => {
                    rules.push(format!("predicate P{} is not declared", p.id.0))
                }
                _ => {}
            }
        }
        if let Some(rule) = type_rule(k, inst) {
            rules.push(rule);
        }
        for rule in rules {
            let severity = if rule.contains("region rule 6") || rule.contains("signedness only") {
                Severity::Note
            } else {
                Severity::Error
            };
            out.push(Finding {
                severity,
                index,
                text: crate::print::instruction(k, inst),
                rule,
            });
        }
    }
    out
}

/// The type an operand is read or written in (`None`: predicates, address and state
/// operands, which the type rules do not cover). Packed immediates count as their
/// element type (V and UV as W and UW, VF as F).
fn operand_type(k: &Kernel, v: &VecOperand) -> Option<DataType> {
    let t = match v {
        VecOperand::General { var, .. } => k.var(*var)?.ty,
        VecOperand::Indirect { ty, .. } | VecOperand::Immediate { ty, .. } => *ty,
        _ => return None,
    };
    Some(match t {
        DataType::V => DataType::W,
        DataType::UV => DataType::UW,
        DataType::VF => DataType::F,
        t => t,
    })
}

/// The instruction page's type rules: with type maps, one map must take the
/// destination's type and every source's; without, every operand's type must be among
/// the page's "Supported Types".
fn type_rule(k: &Kernel, inst: &Instruction) -> Option<String> {
    let (supported, maps) = crate::isa::table::types(inst.op)?;
    let row = info(inst.op).fields;
    let (mut dsts, mut srcs) = (Vec::new(), Vec::new());
    for (spec, f) in row.iter().zip(&inst.fields) {
        if let Field::Vec(v) = f {
            match (spec.kind, operand_type(k, v)) {
                (FieldKind::Dst, Some(t)) => dsts.push(t),
                (FieldKind::Src, Some(t)) => srcs.push(t),
                _ => {}
            }
        }
    }
    let names = |ts: &[DataType]| -> String {
        ts.iter()
            .map(|t| t.text().to_ascii_uppercase())
            .collect::<Vec<_>>()
            .join(",")
    };
    if maps.is_empty() {
        let bad: Vec<DataType> = dsts
            .iter()
            .chain(&srcs)
            .copied()
            .filter(|t| !supported.contains(t))
            .collect();
        return (!bad.is_empty() && !supported.is_empty()).then(|| {
            format!(
                "type rule: {} takes {}, not {}",
                inst.op.spec_name(),
                names(supported),
                names(&bad)
            )
        });
    }
    let fits_with = |f: &dyn Fn(DataType) -> DataType| {
        maps.iter().any(|(d, s)| {
            dsts.iter().all(|&t| d.iter().any(|&x| f(x) == f(t)))
                && srcs.iter().all(|&t| s.iter().any(|&x| f(x) == f(t)))
        })
    };
    if fits_with(&|t| t) {
        return None;
    }
    // The spec's maps do not describe every supported type (ADD and SHL list Q and UQ
    // among their "Supported Types" but have no 64-bit map, and IGC emits them): a
    // supported type that no map mentions is judged by "Supported Types" alone.
    let mapped = |t: DataType| maps.iter().any(|(d, s)| d.contains(&t) || s.contains(&t));
    if dsts
        .iter()
        .chain(&srcs)
        .all(|t| supported.contains(t) || mapped(*t))
        && dsts.iter().chain(&srcs).any(|t| !mapped(*t))
    {
        return None;
    }
    // IGC writes logical shifts (SHR) on signed types where the map lists unsigned
    // ones; the operation is on bits, so a difference in signedness alone is a note.
    if fits_with(&unsigned) {
        return Some(format!(
            "type rule (signedness only): {} maps {} but the operands are dst {} src {}",
            inst.op.spec_name(),
            maps.iter()
                .map(|(d, s)| format!("{} <- {}", names(d), names(s)))
                .collect::<Vec<_>>()
                .join("; "),
            names(&dsts),
            names(&srcs)
        ));
    }
    Some({
        format!(
            "type rule: no type map of {} takes dst {} with src {} (maps: {})",
            inst.op.spec_name(),
            names(&dsts),
            names(&srcs),
            maps.iter()
                .map(|(d, s)| format!("{} <- {}", names(d), names(s)))
                .collect::<Vec<_>>()
                .join("; ")
        )
    })
}

/// The unsigned integer type of the same width (other types unchanged).
fn unsigned(t: DataType) -> DataType {
    match t {
        DataType::D => DataType::UD,
        DataType::W => DataType::UW,
        DataType::B => DataType::UB,
        DataType::Q => DataType::UQ,
        t => t,
    }
}

fn check_ids(k: &Kernel, v: &VecOperand, name: &str, rules: &mut Vec<String>) {
    match v {
        VecOperand::General { var, .. } if k.var(*var).is_none() => {
            rules.push(format!("{name}: variable id {} is not declared", var.0))
        }
        VecOperand::Indirect { addr, .. } | VecOperand::Address { addr, .. }
            if addr.0 as usize >= k.addrs.len() =>
        {
            rules.push(format!("{name}: address A{} is not declared", addr.0))
        }
        VecOperand::Predicate(p) if p.id.0 as usize >= k.preds.len() => {
            rules.push(format!("{name}: predicate P{} is not declared", p.id.0))
        }
        _ => {}
    }
}

/// Where a variable lives inside its root variable (following aliases), for rule 6.
fn root_offset(k: &Kernel, mut v: VarId) -> (u32, u32) {
    let mut off = 0;
    for _ in 0..16 {
        match k.var(v).and_then(|x| x.alias) {
            Some((base, o)) => {
                off += o;
                v = base;
            }
            None => break,
        }
    }
    (off, k.var(v).map_or(0, |x| x.byte_size()))
}

fn check_vec(
    k: &Kernel,
    v: &VecOperand,
    dst: bool,
    exec: u8,
    grf: u32,
    name: &str,
    rules: &mut Vec<String>,
) {
    check_ids(k, v, name, rules);
    if let VecOperand::General {
        var,
        row,
        col,
        region,
        ..
    } = v
    {
        let Some(decl) = k.var(*var) else { return };
        // Pre-defined variables (%r0, %cr0 ...) have hardware-defined extents.
        if decl.predefined.is_some()
            || (var.0 as usize) < crate::decode::text::FIRST_USER_VAR as usize
        {
            return;
        }
        let (in_root, root_bytes) = root_offset(k, *var);
        // Access is checked against the root variable (an alias view may legally
        // reach past its own declared size into its base).
        let size = root_bytes.saturating_sub(in_root).max(decl.byte_size());
        let grf_offset = in_root % grf;
        for r in check_direct(
            *region,
            dst,
            exec,
            decl.ty.size(),
            grf,
            *row,
            *col,
            size,
            grf_offset,
        ) {
            if matches!(r, RegionRule::Null) && !dst {
                continue;
            }
            rules.push(format!("{name}: {r}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::paths::{default_corpus_dir, grf_bytes_of_device, variant_dirs};
    use crate::decode::text::parse_visaasm;

    #[test]
    fn the_corpus_is_valid() {
        let mut bad = Vec::new();
        for d in variant_dirs(&default_corpus_dir()).unwrap() {
            let grf = grf_bytes_of_device(&d.file_name().unwrap().to_string_lossy());
            let p = parse_visaasm(
                &std::fs::read_to_string(d.join("kernel.visaasm")).unwrap(),
                grf,
            )
            .unwrap();
            for f in validate(&p.kernels[0], grf) {
                if f.severity == Severity::Error {
                    bad.push(format!("{}: {f}", d.display()));
                }
            }
        }
        let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
        for b in &bad {
            let rule = b.rsplit("`: ").next().unwrap_or("");
            *kinds.entry(rule.chars().take(40).collect()).or_default() += 1;
        }
        assert!(bad.is_empty(), "{kinds:?}\nfirst: {:?}", bad.first());
    }

    #[test]
    fn findings_name_the_instruction_and_rule() {
        let src = ".version 4.1\n.kernel \"k\"\n.decl V0032 v_type=G type=d num_elts=8 align=hword\n.decl V0033 v_type=G type=d num_elts=8 align=hword\n    mov (M1, 8) V0032(0,0)<0> V0033(0,0)<1;1,0>\n    add (M1, 8) V0032(0,0)<1> V0033(0,0)<8;3,1> V0033(1,0)<1;1,0>\n";
        let p = parse_visaasm(src, 32).unwrap();
        let f = validate(&p.kernels[0], 32);
        let rules: Vec<&str> = f.iter().map(|f| f.rule.as_str()).collect();
        assert!(rules.iter().any(|r| r.contains("rule 5")), "{rules:?}");
        assert!(rules.iter().any(|r| r.contains("rule 1")), "{rules:?}");
        assert!(
            rules.iter().any(|r| r.contains("32-byte variable")),
            "{rules:?}"
        );
        assert_eq!(f[0].index, 0);
        assert!(f[0].text.starts_with("mov (M1, 8)"), "{}", f[0].text);
    }

    #[test]
    fn type_rules_come_from_the_instruction_pages() {
        let src = ".version 4.1\n.kernel \"k\"\n\
            .decl VF v_type=G type=f num_elts=8 align=hword\n\
            .decl VD v_type=G type=d num_elts=8 align=hword\n\
            .decl VQ v_type=G type=q num_elts=8 align=hword\n\
            and (M1, 8) VF(0,0)<1> VF(0,0)<1;1,0> VF(0,0)<1;1,0>\n\
            add (M1, 8) VF(0,0)<1> VD(0,0)<1;1,0> VF(0,0)<1;1,0>\n\
            add (M1, 8) VD(0,0)<1> VD(0,0)<1;1,0> 0x1:d\n\
            add (M1, 8) VQ(0,0)<1> VQ(0,0)<1;1,0> 0x1:q\n\
            shr (M1, 8) VD(0,0)<1> VD(0,0)<1;1,0> 0x1:d\n";
        let p = parse_visaasm(src, 32).unwrap();
        let f = validate(&p.kernels[0], 32);
        let at = |i: usize| f.iter().find(|x| x.index == i);
        // AND has integer maps only; ADD does not mix F and D.
        assert!(at(0).is_some_and(|x| x.severity == Severity::Error && x.rule.contains("AND")));
        assert!(
            at(1).is_some_and(|x| x.rule.contains("dst F with src D,F")),
            "{f:?}"
        );
        // Plain D, Q (supported, though no map mentions it), and signed SHR (a note).
        assert!(at(2).is_none() && at(3).is_none(), "{f:?}");
        assert!(at(4).is_some_and(|x| x.severity == Severity::Note), "{f:?}");
    }
}
