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
        for rule in rules {
            let severity = if rule.contains("region rule 6") {
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
}
