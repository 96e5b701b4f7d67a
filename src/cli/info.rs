//! `visa-emu info`: a summary of every kernel and function in a program.

use crate::ir::{Field, Kernel, Program, VecOperand};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Instruction counts by spec name, sorted by count (desc) then name.
pub fn histogram(k: &Kernel) -> Vec<(&'static str, usize)> {
    let mut h: BTreeMap<&'static str, usize> = BTreeMap::new();
    for i in &k.body {
        *h.entry(i.op.spec_name()).or_default() += 1;
    }
    let mut v: Vec<_> = h.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v
}

/// Number of instructions, not counting LABEL pseudo-instructions.
pub fn instruction_count(k: &Kernel) -> usize {
    k.body
        .iter()
        .filter(|i| i.op != crate::isa::Opcode::Label)
        .count()
}

fn uses_indirect(k: &Kernel) -> bool {
    k.body.iter().any(|i| {
        i.fields
            .iter()
            .any(|f| matches!(f, Field::Vec(VecOperand::Indirect { .. })))
    })
}

pub fn render(p: &Program) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "vISA {}.{}  GRF {} bytes  {} kernel(s), {} function(s)",
        p.version.0,
        p.version.1,
        p.grf_bytes,
        p.kernels.len(),
        p.functions.len()
    );
    for k in p.kernels.iter().chain(&p.functions) {
        let declared = k
            .vars
            .len()
            .saturating_sub(crate::decode::text::FIRST_USER_VAR as usize);
        let _ = writeln!(
            s,
            "\n{:?} \"{}\"  SIMD {}  instructions {}",
            k.kind,
            k.name,
            k.simd_size().map_or("?".to_string(), |v| v.to_string()),
            instruction_count(k)
        );
        let _ = writeln!(
            s,
            "  variables: {} general ({} declared), {} address, {} predicate, {} label, {} sampler, {} surface{}",
            k.vars.len(),
            declared,
            k.addrs.len(),
            k.preds.len().saturating_sub(1),
            k.labels.len(),
            k.samplers.len(),
            k.surfaces.len(),
            if uses_indirect(k) { "  (indirect access)" } else { "" }
        );
        if !k.inputs.is_empty() {
            let _ = writeln!(s, "  inputs:");
            for inp in &k.inputs {
                let name = match inp.class {
                    crate::ir::InputClass::General => {
                        k.vars.get(inp.id as usize).map_or("?".into(), |v| {
                            format!("{} ({}x{})", v.name, v.num_elements, v.ty)
                        })
                    }
                    crate::ir::InputClass::Surface => k
                        .surfaces
                        .get(inp.id as usize)
                        .map_or("?".into(), |v| v.name.clone()),
                    crate::ir::InputClass::Sampler => k
                        .samplers
                        .get(inp.id as usize)
                        .map_or("?".into(), |v| v.name.clone()),
                };
                let _ = writeln!(
                    s,
                    "    offset {:5}  size {:4}  {}",
                    inp.offset, inp.size, name
                );
            }
        }
        let _ = writeln!(s, "  histogram:");
        for (name, n) in histogram(k) {
            let _ = writeln!(s, "    {n:6}  {name}");
        }
    }
    s
}
