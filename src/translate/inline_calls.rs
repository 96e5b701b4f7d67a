//! Subroutine calls written out at their call sites, for the straight lane form only.
//!
//! In the straight form each invocation runs one channel, and a channel's path through
//! a `call`/`ret` pair is plain: it enters the subroutine when it calls, and goes on
//! after the call when it returns (the interpreter's frames only decide *when* the
//! channels that did not call run on, which straight invocations cannot observe). So a
//! call becomes a branch that skips its own copy of the subroutine for the channels
//! that do not call, and each `ret` of the copy a branch past it. Every branch then
//! goes forward or stays inside one subroutine's own loops, and the straight form's
//! analyses (loops, reaching definitions, rounds) need no call edges.
//!
//! Each replacement is one instruction where the original was one (`call` -> `goto`,
//! `ret` -> `goto`, the subroutine label -> a label), so the instruction and
//! channel-instruction counts of a run stay the interpreter's. The copies keep their
//! original `index` for messages. The thread mapping keeps the calls as they are.

use crate::interp::prepare::{PField, PInst, Prepared};
use crate::ir::operand::PredCombine;
use crate::isa::opcode::Opcode;

/// Inlining stops (and the kernel keeps the thread mapping) past this many
/// instructions, or this many nested calls.
pub const MAX_INLINED_INSTS: usize = 20_000;
pub const MAX_CALL_DEPTH: usize = 8;

/// The kernel with every subroutine call written out, `Ok(None)` when it has no call,
/// or why the calls cannot be written out.
pub fn inline(p: &Prepared) -> Result<Option<Prepared>, String> {
    use Opcode::*;
    if !p.insts.iter().any(|i| i.op == Call) {
        return Ok(None);
    }
    if let Some(i) = p
        .insts
        .iter()
        .find(|i| matches!(i.op, Fcall | Ifcall | Fret))
    {
        return Err(format!("{} at instruction {}", i.op.spec_name(), i.index));
    }
    // Regions: the kernel's own code up to the first subroutine, then each subroutine
    // up to the next.
    let n = p.insts.len();
    let mut starts: Vec<usize> = vec![0];
    // A linked stack function opens with two labels (`ir::link`'s entry, then the
    // function's own `.function` label): one region.
    starts
        .extend((1..n).filter(|&k| p.insts[k].op == Subroutine && p.insts[k - 1].op != Subroutine));
    starts.push(n);
    let region_of = |k: usize| starts.windows(2).position(|w| (w[0]..w[1]).contains(&k));
    for (k, inst) in p.insts.iter().enumerate() {
        let here = region_of(k).unwrap_or(0);
        let at = || format!("{} at instruction {}", inst.op.spec_name(), inst.index);
        match inst.op {
            Call => {
                let t = super::blocks::target_of(inst) as usize;
                if t >= n || p.insts[t].op != Subroutine {
                    return Err(format!("{}: its target is not a subroutine", at()));
                }
                let whole = inst.exec.size as u32 >= p.simd && inst.exec.mask.group == 0;
                let plain = match inst.pred {
                    None => inst.exec.size == 1 || whole,
                    Some(pr) => whole && pr.combine == PredCombine::Sequential,
                };
                if !plain {
                    return Err(format!(
                        "{}: a call for part of the thread or on a combined predicate",
                        at()
                    ));
                }
            }
            Ret if here > 0 => {
                let whole = inst.exec.size == 1
                    || (inst.exec.size as u32 >= p.simd && inst.exec.mask.group == 0);
                if inst.pred.is_some() || !whole {
                    return Err(format!("{}: a predicated or partial return", at()));
                }
            }
            _ => {
                for t in super::blocks::targets(inst) {
                    if region_of(t as usize) != Some(here) {
                        return Err(format!(
                            "{}: a branch between a subroutine and other code",
                            at()
                        ));
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut x = Expand {
        p,
        starts: &starts,
        out: &mut out,
    };
    x.region(0, 0, &mut Vec::new())?;
    let mut q = p.clone();
    q.insts = out;
    Ok(Some(q))
}

struct Expand<'a> {
    p: &'a Prepared,
    starts: &'a [usize],
    out: &'a mut Vec<PInst>,
}

impl Expand<'_> {
    /// Writes region `r` (with its calls written out); the positions of the branches
    /// its `ret`s became go to `rets`.
    fn region(&mut self, r: usize, depth: usize, rets: &mut Vec<usize>) -> Result<(), String> {
        let range = self.starts[r]..self.starts[r + 1];
        let mut at = vec![0u32; range.len() + 1];
        let mut local = Vec::new();
        for k in range.clone() {
            at[k - range.start] = self.out.len() as u32;
            if self.out.len() > MAX_INLINED_INSTS {
                return Err(format!(
                    "its subroutine calls written out would be over {MAX_INLINED_INSTS} instructions"
                ));
            }
            let inst = &self.p.insts[k];
            match inst.op {
                Opcode::Call => {
                    if depth >= MAX_CALL_DEPTH {
                        return Err(format!(
                            "CALL at instruction {}: calls nested over {MAX_CALL_DEPTH} deep (or recursive)",
                            inst.index
                        ));
                    }
                    let t = super::blocks::target_of(inst) as usize;
                    // Its region: the one it starts, or whose second label it is.
                    let callee = self
                        .starts
                        .iter()
                        .position(|&s| s == t || s + 1 == t)
                        .unwrap_or(0);
                    // Channels that do not call skip the copy; the others fall into it.
                    let skip = self.out.len();
                    self.out.push(PInst {
                        op: Opcode::Goto,
                        pred: inst.pred.map(|mut pr| {
                            pr.inverse = !pr.inverse;
                            pr
                        }),
                        fields: vec![PField::Target(0)],
                        ..inst.clone()
                    });
                    let mut inner = Vec::new();
                    self.region(callee, depth + 1, &mut inner)?;
                    let after = self.out.len() as u32;
                    let skip_to = if inst.pred.is_some() {
                        after
                    } else {
                        skip as u32 + 1
                    };
                    self.out[skip].fields = vec![PField::Target(skip_to)];
                    for j in inner {
                        self.out[j].fields = vec![PField::Target(after)];
                    }
                }
                Opcode::Ret if r > 0 => {
                    rets.push(self.out.len());
                    self.out.push(PInst {
                        op: Opcode::Goto,
                        fields: vec![PField::Target(0)],
                        ..inst.clone()
                    });
                }
                Opcode::Subroutine => self.out.push(PInst {
                    op: Opcode::Label,
                    ..inst.clone()
                }),
                _ => {
                    if !super::blocks::targets(inst).is_empty() {
                        local.push(self.out.len());
                    }
                    self.out.push(inst.clone());
                }
            }
        }
        at[range.len()] = self.out.len() as u32;
        // The region's own branches, to the copies of their targets.
        let map = |t: u32| at[(t as usize).saturating_sub(range.start).min(range.len())];
        for j in local {
            for f in self.out[j].fields.iter_mut() {
                match f {
                    PField::Target(t) => *t = map(*t),
                    PField::Targets(ts) => ts.iter_mut().for_each(|t| *t = map(*t)),
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::operand::Predicate;
    use crate::ir::types::ExecSize;

    fn inst(op: Opcode, index: usize, fields: Vec<PField>) -> PInst {
        PInst {
            op,
            exec: ExecSize {
                size: 16,
                mask: crate::ir::types::MaskControl::M1,
            },
            pred: None,
            fields,
            index,
        }
    }

    /// noinline_calls (tgllp SIMD16) prepared, its instructions to be replaced.
    fn base(simd: u32) -> Prepared {
        let path = crate::corpus::paths::default_corpus_dir()
            .join("noinline_calls/tgllp-simd16/kernel.visaasm");
        let text = std::fs::read_to_string(path).expect("the corpus");
        let program = crate::decode::text::parse_visaasm(&text, 32).expect("parses");
        let mut p = crate::interp::prepare(&program, "noinline_calls").expect("prepares");
        p.simd = simd;
        p
    }

    /// Every call of noinline_calls becomes a copy: no call, return into the
    /// kernel or subroutine label is left, and every branch goes forward or into
    /// a loop of its own copy.
    #[test]
    fn noinline_calls_is_written_out() {
        let p = base(16);
        let q = inline(&p).unwrap().unwrap();
        assert!(q.insts.len() > p.insts.len());
        let rets = q.insts.iter().filter(|i| i.op == Opcode::Ret).count();
        assert_eq!(rets, 1, "the kernel's own end");
        assert!(!q
            .insts
            .iter()
            .any(|i| matches!(i.op, Opcode::Call | Opcode::Subroutine)));
        // poly's loop is the only backward branch, once per copy (two calls).
        let back = q
            .insts
            .iter()
            .enumerate()
            .filter(|(k, i)| {
                super::super::blocks::targets(i)
                    .iter()
                    .any(|&t| t as usize <= *k)
            })
            .count();
        assert_eq!(back, 2);
    }

    fn target(i: &PInst) -> u32 {
        super::super::blocks::target_of(i)
    }

    /// A kernel calling one subroutine twice, the second call predicated: each call
    /// site gets its own copy, the predicated call's branch skips it for the channels
    /// whose bit is clear, every `ret` branches past its copy, the subroutine's own
    /// loop stays inside its copy, and the count of instructions stays one for one.
    #[test]
    fn calls_become_copies_with_branches_around_them() {
        use Opcode::*;
        let mut p = base(16);
        let mut c2 = inst(Call, 2, vec![PField::Target(5)]);
        c2.pred = Some(Predicate {
            id: crate::ir::operand::PredId(1),
            combine: PredCombine::Sequential,
            inverse: false,
        });
        p.insts = vec![
            inst(Call, 0, vec![PField::Target(5)]),
            inst(Add, 1, vec![]),
            c2,
            inst(Ret, 3, vec![]),
            inst(Label, 4, vec![]),
            inst(Subroutine, 5, vec![]),
            inst(Add, 6, vec![]),
            inst(Goto, 7, vec![PField::Target(6)]),
            inst(Ret, 8, vec![]),
        ];
        let q = inline(&p).unwrap().unwrap();
        let ops: Vec<Opcode> = q.insts.iter().map(|i| i.op).collect();
        assert_eq!(
            ops,
            vec![Goto, Label, Add, Goto, Goto, Add, Goto, Label, Add, Goto, Goto, Ret, Label]
        );
        let idx: Vec<usize> = q.insts.iter().map(|i| i.index).collect();
        assert_eq!(idx, vec![0, 5, 6, 7, 8, 1, 2, 5, 6, 7, 8, 3, 4]);
        // First call: falls into its copy (1..5); the copy's loop and its return.
        assert_eq!(target(&q.insts[0]), 1);
        assert_eq!(target(&q.insts[3]), 2);
        assert_eq!(target(&q.insts[4]), 5);
        // Second call: the channels without P1 skip to 11; the copy's loop at 8.
        assert!(q.insts[6].pred.unwrap().inverse);
        assert_eq!(target(&q.insts[6]), 11);
        assert_eq!(target(&q.insts[9]), 8);
        assert_eq!(target(&q.insts[10]), 11);
        assert!(!q.insts.iter().any(|i| matches!(i.op, Call | Subroutine)));
    }

    /// A linked stack function opens with two labels (`ir::link`'s entry, then its own
    /// `.function` label): the copy holds its whole body, whichever label the call
    /// names. Until stop 55 the first label was a region of its own, the copy was
    /// empty, and the straight form ran the kernel without the function (stack_calls
    /// gave wrong bytes once nothing else kept it off the straight form).
    #[test]
    fn a_function_with_two_labels_is_copied_whole() {
        use Opcode::*;
        for target in [3, 4] {
            let mut p = base(16);
            p.insts = vec![
                inst(Call, 0, vec![PField::Target(target)]),
                inst(Add, 1, vec![]),
                inst(Ret, 2, vec![]),
                inst(Subroutine, 3, vec![]),
                inst(Subroutine, 4, vec![]),
                inst(Mul, 5, vec![]),
                inst(Ret, 6, vec![]),
            ];
            let q = inline(&p).unwrap().unwrap();
            let ops: Vec<Opcode> = q.insts.iter().map(|i| i.op).collect();
            assert_eq!(
                ops,
                vec![Goto, Label, Label, Mul, Goto, Add, Ret],
                "call to {target}"
            );
        }
    }

    /// A subroutine that calls itself is refused with the call's instruction.
    #[test]
    fn recursion_is_refused_by_depth() {
        use Opcode::*;
        let mut p = base(8);
        p.insts = vec![
            inst(Call, 0, vec![PField::Target(2)]),
            inst(Ret, 1, vec![]),
            inst(Subroutine, 2, vec![]),
            inst(Call, 3, vec![PField::Target(2)]),
            inst(Ret, 4, vec![]),
        ];
        let why = inline(&p).unwrap_err();
        assert!(why.contains("CALL at instruction 3"), "{why}");
    }

    /// A branch from a subroutine into the kernel's own code cannot be written out.
    #[test]
    fn branches_between_regions_are_refused() {
        use Opcode::*;
        let mut p = base(8);
        p.insts = vec![
            inst(Call, 0, vec![PField::Target(3)]),
            inst(Label, 1, vec![]),
            inst(Ret, 2, vec![]),
            inst(Subroutine, 3, vec![]),
            inst(Goto, 4, vec![PField::Target(1)]),
            inst(Ret, 5, vec![]),
        ];
        let why = inline(&p).unwrap_err();
        assert!(why.contains("GOTO at instruction 4"), "{why}");
    }
}
