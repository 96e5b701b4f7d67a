//! Stack functions (`fcall`/`ifcall`/`faddr`/`fret`, spec FCALL/IFCALL/FADDR/FRET) linked
//! into their kernel, so that the interpreter and the translator see one object.
//!
//! IGC dumps a kernel that makes stack calls as the kernel (`.funcdecl "f"`) plus one
//! `.global_function "f"` object per callee (`*_f0.visaasm`, ...). Each function keeps
//! its own variables; only the pre-defined ones (`%arg`, `%retval`, `%sp`, `%fp`, `%r0`,
//! ...) are shared. Linking appends every reachable function's symbols (renamed
//! `function/name`) and body to the kernel and rewrites:
//! - `fcall (E) f a r` -> `call (E) f` and `fret (E)` -> `ret (E)`: FCALL/FRET have the
//!   call mask semantics of CALL/RET; the `%arg`/`%retval` copies and the `%sp`/`%fp`
//!   hand-over of the spec are identities when both sides name the same storage.
//! - `faddr f V` -> `mov (M1_NM, 1) V FUNCTION_ADDRESS_BASE+k:uq`, `k` the function's
//!   index among the address-taken ones.
//! - `ifcall (E) A a r` -> `add` (A - base) + `switchjmp` to one `call` per address-taken
//!   function, each followed by a `jmp` past the others; an address no `faddr` produced
//!   is out of the switch's range, which both backends report as an error.
//!
//! One storage per function is exact for any call graph without a cycle. A recursive
//! one is refused (OpenCL C and SYCL device code forbid recursion).

use super::*;
use crate::isa::Opcode;
use std::collections::HashMap;

/// The value `faddr` gives the first address-taken function; the k-th gets `base + k`.
pub const FUNCTION_ADDRESS_BASE: u64 = 0x7ff0_0000;

/// Ids below this are the pre-defined general variables shared by every object.
const FIRST_USER_VAR: u32 = 32;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LinkError {
    #[error(
        "{caller}: instruction {index} ({op}) names function `{name}`, which no loaded object \
         defines (expected a `.global_function \"{name}\"` object, e.g. kernel_f0.visaasm beside \
         the kernel)"
    )]
    MissingFunction {
        caller: String,
        index: usize,
        op: &'static str,
        name: String,
    },
    #[error(
        "{caller}: instruction {index} calls `{name}` with {what} {passed} GRFs, but the \
         function declares {declared} (spec FCALL: they must match)"
    )]
    SizeMismatch {
        caller: String,
        index: usize,
        name: String,
        what: &'static str,
        passed: u64,
        declared: u64,
    },
    #[error(
        "recursive stack calls ({cycle}): not supported (each function is linked with one storage)"
    )]
    Recursion { cycle: String },
    #[error("{caller}: instruction {index} ({op}): malformed operands")]
    Malformed {
        caller: String,
        index: usize,
        op: &'static str,
    },
    #[error("linking `{kernel}` needs more than {limit} {what}")]
    TooMany {
        kernel: String,
        what: &'static str,
        limit: usize,
    },
}

/// Whether `k` uses stack functions at all.
pub fn makes_stack_calls(k: &Kernel) -> bool {
    k.body.iter().any(|i| {
        matches!(
            i.op,
            Opcode::Fcall | Opcode::Ifcall | Opcode::Faddr | Opcode::Fret
        )
    })
}

fn func_name(i: &Instruction) -> Option<&str> {
    i.fields.iter().find_map(|f| match f {
        Field::Str(s) => Some(s.as_str()),
        _ => None,
    })
}

fn int_field(i: &Instruction, nth: usize) -> Option<u64> {
    i.fields
        .iter()
        .filter_map(|f| match f {
            Field::Int(v) => Some(*v),
            _ => None,
        })
        .nth(nth)
}

/// The kernel with every function it reaches linked in; a clone when it makes no stack
/// calls.
pub fn link(kernel: &Kernel, functions: &[Kernel]) -> Result<Kernel, LinkError> {
    if !makes_stack_calls(kernel) {
        return Ok(kernel.clone());
    }
    let by_name: HashMap<&str, &Kernel> = functions.iter().map(|f| (f.name.as_str(), f)).collect();
    // Reachable functions (fcall and faddr edges), in discovery order.
    let mut order: Vec<&Kernel> = Vec::new();
    let mut address_taken: Vec<String> = Vec::new();
    let mut edges: HashMap<String, Vec<String>> = HashMap::new();
    let mut work = vec![kernel];
    let mut seen: Vec<&str> = Vec::new();
    while let Some(obj) = work.pop() {
        let mut out = Vec::new();
        for (index, inst) in obj.body.iter().enumerate() {
            if !matches!(inst.op, Opcode::Fcall | Opcode::Faddr) {
                continue;
            }
            let name = func_name(inst).ok_or_else(|| LinkError::Malformed {
                caller: obj.name.clone(),
                index,
                op: inst.op.spec_name(),
            })?;
            let f = *by_name
                .get(name)
                .ok_or_else(|| LinkError::MissingFunction {
                    caller: obj.name.clone(),
                    index,
                    op: inst.op.spec_name(),
                    name: name.to_string(),
                })?;
            if inst.op == Opcode::Fcall {
                check_sizes(obj, index, inst, f)?;
                out.push(name.to_string());
            } else if !address_taken.iter().any(|a| a == name) {
                address_taken.push(name.to_string());
            }
            if !seen.contains(&name) {
                seen.push(f.name.as_str());
                order.push(f);
                work.push(f);
            }
        }
        edges.insert(obj.name.clone(), out);
    }
    // An indirect call reaches the functions whose address its object takes (IGC
    // materializes `faddr` where the pointer is used); an object that calls through a
    // pointer it did not take may reach any address-taken function.
    for obj in std::iter::once(kernel).chain(order.iter().copied()) {
        if obj.body.iter().any(|i| i.op == Opcode::Ifcall) {
            let own: Vec<String> = obj
                .body
                .iter()
                .filter(|i| i.op == Opcode::Faddr)
                .filter_map(|i| func_name(i).map(str::to_string))
                .collect();
            let e = edges.entry(obj.name.clone()).or_default();
            e.extend(if own.is_empty() {
                address_taken.clone()
            } else {
                own
            });
        }
    }
    if let Some(cycle) = find_cycle(&kernel.name, &edges) {
        return Err(LinkError::Recursion { cycle });
    }

    let mut out = kernel.clone();
    let mut entry: HashMap<String, LabelId> = HashMap::new();
    for f in &order {
        let id = new_label(&mut out, f.name.clone(), LabelKind::Subroutine)?;
        entry.insert(f.name.clone(), id);
    }
    let mut cx = Rewrite {
        entry: &entry,
        address_taken: &address_taken,
        idx_var: None,
        next_site: 0,
    };
    let body = std::mem::take(&mut out.body);
    let kname = kernel.name.clone();
    out.body = cx.rewrite_body(&mut out, &kname, body)?;
    for f in &order {
        let maps = merge_symbols(&mut out, f)?;
        let mut body = vec![Instruction {
            op: Opcode::Subroutine,
            fields: vec![Field::Label(entry[&f.name])],
        }];
        body.extend(f.body.iter().map(|i| remap(i, &maps)));
        let body = cx.rewrite_body(&mut out, &f.name, body)?;
        out.body.extend(body);
    }
    Ok(out)
}

fn check_sizes(
    caller: &Kernel,
    index: usize,
    inst: &Instruction,
    f: &Kernel,
) -> Result<(), LinkError> {
    for (nth, what, declared) in [
        (0, "arguments of", f.arg_size),
        (1, "a return value of", f.ret_size),
    ] {
        let passed = int_field(inst, nth).ok_or_else(|| LinkError::Malformed {
            caller: caller.name.clone(),
            index,
            op: inst.op.spec_name(),
        })?;
        if passed != u64::from(declared) {
            return Err(LinkError::SizeMismatch {
                caller: caller.name.clone(),
                index,
                name: f.name.clone(),
                what,
                passed,
                declared: declared.into(),
            });
        }
    }
    Ok(())
}

/// A cycle reachable from `root` in the call graph, as `a -> b -> a`.
fn find_cycle(root: &str, edges: &HashMap<String, Vec<String>>) -> Option<String> {
    fn visit(
        n: &str,
        edges: &HashMap<String, Vec<String>>,
        path: &mut Vec<String>,
        done: &mut Vec<String>,
    ) -> Option<String> {
        if let Some(at) = path.iter().position(|p| p == n) {
            let mut c = path[at..].to_vec();
            c.push(n.to_string());
            return Some(c.join(" -> "));
        }
        if done.iter().any(|d| d == n) {
            return None;
        }
        path.push(n.to_string());
        for m in edges.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.push(n.to_string());
        None
    }
    visit(root, edges, &mut Vec::new(), &mut Vec::new())
}

fn new_label(k: &mut Kernel, name: String, kind: LabelKind) -> Result<LabelId, LinkError> {
    let id = u16::try_from(k.labels.len()).map_err(|_| LinkError::TooMany {
        kernel: k.name.clone(),
        what: "labels",
        limit: u16::MAX as usize,
    })?;
    k.labels.push(Label {
        name,
        kind,
        attrs: Vec::new(),
    });
    Ok(LabelId(id))
}

/// Old id -> new id of one function's symbols inside the linked kernel.
struct Maps {
    vars: Vec<VarId>,
    addrs: Vec<AddrId>,
    preds: Vec<PredId>,
    labels: Vec<LabelId>,
    surfaces: Vec<StateId>,
    samplers: Vec<StateId>,
}

fn too_many(k: &Kernel, what: &'static str, limit: usize) -> LinkError {
    LinkError::TooMany {
        kernel: k.name.clone(),
        what,
        limit,
    }
}

fn merge_symbols(out: &mut Kernel, f: &Kernel) -> Result<Maps, LinkError> {
    let prefixed = |n: &str| format!("{}/{}", f.name, n);
    let mut vars = Vec::with_capacity(f.vars.len());
    let first_new = out.vars.len();
    for (i, v) in f.vars.iter().enumerate() {
        if (i as u32) < FIRST_USER_VAR {
            vars.push(VarId(i as u32));
            continue;
        }
        let id = u32::try_from(out.vars.len())
            .map_err(|_| too_many(out, "variables", u32::MAX as usize))?;
        vars.push(VarId(id));
        let mut v = v.clone();
        v.name = prefixed(&v.name);
        out.vars.push(v);
    }
    for v in &mut out.vars[first_new..] {
        if let Some((base, off)) = v.alias {
            v.alias = Some((vars.get(base.0 as usize).copied().unwrap_or(base), off));
        }
    }
    let mut addrs = Vec::new();
    for a in &f.addrs {
        addrs.push(AddrId(
            u16::try_from(out.addrs.len())
                .map_err(|_| too_many(out, "address variables", 65535))?,
        ));
        let mut a = a.clone();
        a.name = prefixed(&a.name);
        out.addrs.push(a);
    }
    let mut preds = vec![PredId(0)];
    for p in f.preds.iter().skip(1) {
        preds.push(PredId(
            u16::try_from(out.preds.len()).map_err(|_| too_many(out, "predicates", 4095))?,
        ));
        let mut p = p.clone();
        p.name = prefixed(&p.name);
        out.preds.push(p);
    }
    let mut labels = Vec::new();
    for l in &f.labels {
        labels.push(new_label(out, prefixed(&l.name), l.kind)?);
    }
    let states = |src: &[StateVar], dst: &mut Vec<StateVar>| -> Result<Vec<StateId>, LinkError> {
        let mut map = Vec::new();
        for (i, s) in src.iter().enumerate() {
            if s.predefined {
                map.push(StateId(i as u16));
                continue;
            }
            let id = u16::try_from(dst.len()).map_err(|_| LinkError::TooMany {
                kernel: f.name.clone(),
                what: "surfaces or samplers",
                limit: 65535,
            })?;
            map.push(StateId(id));
            let mut s = s.clone();
            s.name = prefixed(&s.name);
            dst.push(s);
        }
        Ok(map)
    };
    let surfaces = states(&f.surfaces, &mut out.surfaces)?;
    let samplers = states(&f.samplers, &mut out.samplers)?;
    Ok(Maps {
        vars,
        addrs,
        preds,
        labels,
        surfaces,
        samplers,
    })
}

fn remap(i: &Instruction, m: &Maps) -> Instruction {
    let var = |v: VarId| m.vars.get(v.0 as usize).copied().unwrap_or(v);
    let addr = |a: AddrId| m.addrs.get(a.0 as usize).copied().unwrap_or(a);
    let pred = |p: Predicate| Predicate {
        id: m.preds.get(p.id.0 as usize).copied().unwrap_or(p.id),
        ..p
    };
    let label = |l: LabelId| m.labels.get(l.0 as usize).copied().unwrap_or(l);
    let fields = i
        .fields
        .iter()
        .map(|f| match f {
            Field::Pred(p) => Field::Pred(p.map(pred)),
            Field::Vec(v) => Field::Vec(match v.clone() {
                VecOperand::General {
                    var: x,
                    row,
                    col,
                    region,
                    modifier,
                } => VecOperand::General {
                    var: var(x),
                    row,
                    col,
                    region,
                    modifier,
                },
                VecOperand::Address {
                    addr: a,
                    offset,
                    width,
                } => VecOperand::Address {
                    addr: addr(a),
                    offset,
                    width,
                },
                VecOperand::Predicate(p) => VecOperand::Predicate(pred(p)),
                VecOperand::Indirect {
                    addr: a,
                    addr_offset,
                    imm_offset,
                    ty,
                    region,
                    modifier,
                } => VecOperand::Indirect {
                    addr: addr(a),
                    addr_offset,
                    imm_offset,
                    ty,
                    region,
                    modifier,
                },
                VecOperand::State { class, id, offset } => {
                    let map = match class {
                        StateClass::Surface => &m.surfaces,
                        StateClass::Sampler => &m.samplers,
                    };
                    VecOperand::State {
                        class,
                        id: map.get(id.0 as usize).copied().unwrap_or(id),
                        offset,
                    }
                }
                imm @ VecOperand::Immediate { .. } => imm,
            }),
            Field::Raw(r) => Field::Raw(RawOperand {
                var: var(r.var),
                offset: r.offset,
            }),
            Field::Label(l) => Field::Label(label(*l)),
            Field::Labels(ls) => Field::Labels(ls.iter().map(|l| label(*l)).collect()),
            Field::Surface(s) => {
                Field::Surface(m.surfaces.get(s.0 as usize).copied().unwrap_or(*s))
            }
            Field::Sampler(s) => {
                Field::Sampler(m.samplers.get(s.0 as usize).copied().unwrap_or(*s))
            }
            other => other.clone(),
        })
        .collect();
    Instruction { op: i.op, fields }
}

struct Rewrite<'a> {
    entry: &'a HashMap<String, LabelId>,
    address_taken: &'a [String],
    /// The scalar that holds an indirect call's switch index.
    idx_var: Option<VarId>,
    next_site: usize,
}

fn exec_of(i: &Instruction) -> Option<ExecSize> {
    i.exec_size()
}

fn pred_of(i: &Instruction) -> Option<Predicate> {
    i.fields.iter().find_map(|f| match f {
        Field::Pred(p) => *p,
        _ => None,
    })
}

const SCALAR_NM: ExecSize = ExecSize {
    size: 1,
    mask: MaskControl {
        group: 0,
        no_mask: true,
    },
};
const SCALAR_M1: ExecSize = ExecSize {
    size: 1,
    mask: MaskControl {
        group: 0,
        no_mask: false,
    },
};

impl Rewrite<'_> {
    fn rewrite_body(
        &mut self,
        out: &mut Kernel,
        owner: &str,
        body: Vec<Instruction>,
    ) -> Result<Vec<Instruction>, LinkError> {
        let mut res = Vec::with_capacity(body.len());
        for (index, i) in body.into_iter().enumerate() {
            let bad = || LinkError::Malformed {
                caller: owner.to_string(),
                index,
                op: i.op.spec_name(),
            };
            match i.op {
                Opcode::Fcall => {
                    let name = func_name(&i).ok_or_else(bad)?;
                    res.push(Instruction {
                        op: Opcode::Call,
                        fields: vec![
                            Field::ExecSize(exec_of(&i).ok_or_else(bad)?),
                            Field::Pred(pred_of(&i)),
                            Field::Label(self.entry[name]),
                        ],
                    });
                }
                Opcode::Fret => res.push(Instruction {
                    op: Opcode::Ret,
                    fields: vec![
                        Field::ExecSize(exec_of(&i).ok_or_else(bad)?),
                        Field::Pred(pred_of(&i)),
                    ],
                }),
                Opcode::Faddr => {
                    let name = func_name(&i).ok_or_else(bad)?;
                    let k = self
                        .address_taken
                        .iter()
                        .position(|a| a == name)
                        .ok_or_else(bad)?;
                    let dst = i
                        .fields
                        .iter()
                        .find_map(|f| match f {
                            Field::Vec(v) => Some(v.clone()),
                            _ => None,
                        })
                        .ok_or_else(bad)?;
                    res.push(Instruction {
                        op: Opcode::Mov,
                        fields: vec![
                            Field::ExecSize(SCALAR_NM),
                            Field::Pred(None),
                            Field::Vec(dst),
                            Field::Vec(VecOperand::Immediate {
                                ty: DataType::UQ,
                                bits: FUNCTION_ADDRESS_BASE + k as u64,
                            }),
                        ],
                    });
                }
                Opcode::Ifcall => {
                    let exec = exec_of(&i).ok_or_else(bad)?;
                    let addr = i
                        .fields
                        .iter()
                        .find_map(|f| match f {
                            Field::Vec(v) => Some(v.clone()),
                            _ => None,
                        })
                        .ok_or_else(bad)?;
                    self.indirect_call(out, &mut res, exec, pred_of(&i), addr)?;
                }
                _ => res.push(i),
            }
        }
        Ok(res)
    }

    /// `add idx = addr - base; switchjmp idx (arms); arm_k: call f_k; jmp after; after:`.
    fn indirect_call(
        &mut self,
        out: &mut Kernel,
        res: &mut Vec<Instruction>,
        exec: ExecSize,
        pred: Option<Predicate>,
        addr: VecOperand,
    ) -> Result<(), LinkError> {
        let idx = match self.idx_var {
            Some(v) => v,
            None => {
                let id = VarId(
                    u32::try_from(out.vars.len())
                        .map_err(|_| too_many(out, "variables", u32::MAX as usize))?,
                );
                out.vars.push(GeneralVar {
                    name: "ifcall/index".into(),
                    ty: DataType::UD,
                    align: Align::Dword,
                    num_elements: 1,
                    alias: None,
                    attrs: Vec::new(),
                    predefined: None,
                });
                self.idx_var = Some(id);
                id
            }
        };
        let site = self.next_site;
        self.next_site += 1;
        let general = |region: Region| VecOperand::General {
            var: idx,
            row: 0,
            col: 0,
            region,
            modifier: Modifier::None,
        };
        let dst_region = Region {
            vstride: None,
            width: None,
            hstride: Some(1),
        };
        res.push(Instruction {
            op: Opcode::Add,
            fields: vec![
                Field::ExecSize(SCALAR_NM),
                Field::Pred(None),
                Field::Vec(general(dst_region)),
                Field::Vec(addr),
                Field::Vec(VecOperand::Immediate {
                    ty: DataType::UD,
                    bits: (FUNCTION_ADDRESS_BASE as u32).wrapping_neg() as u64,
                }),
            ],
        });
        let mut arms = Vec::new();
        for k in 0..self.address_taken.len() {
            arms.push(new_label(
                out,
                format!("ifcall{site}/{k}"),
                LabelKind::Block,
            )?);
        }
        let after = new_label(out, format!("ifcall{site}/after"), LabelKind::Block)?;
        res.push(Instruction {
            op: Opcode::Switchjmp,
            fields: vec![
                Field::ExecSize(SCALAR_M1),
                Field::Int(arms.len() as u64),
                Field::Vec(general(Region::SCALAR)),
                Field::Labels(arms.clone()),
            ],
        });
        for (k, arm) in arms.iter().enumerate() {
            res.push(Instruction {
                op: Opcode::Label,
                fields: vec![Field::Label(*arm)],
            });
            res.push(Instruction {
                op: Opcode::Call,
                fields: vec![
                    Field::ExecSize(exec),
                    Field::Pred(pred),
                    Field::Label(self.entry[&self.address_taken[k]]),
                ],
            });
            res.push(Instruction {
                op: Opcode::Jmp,
                fields: vec![
                    Field::ExecSize(SCALAR_M1),
                    Field::Pred(None),
                    Field::Label(after),
                ],
            });
        }
        res.push(Instruction {
            op: Opcode::Label,
            fields: vec![Field::Label(after)],
        });
        Ok(())
    }
}
