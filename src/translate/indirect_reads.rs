//! Register-indirect sources in the straight form: `r[A0(i), imm]`, whose address
//! registers `addr_add A0 &V X` point into a variable V (IGC's sub-group shuffles with
//! a lane chosen at run time, its broadcasts from a computed lane).
//!
//! Each straight invocation keeps its own copy of the address registers (`ar`) and of
//! the GRF image. An indirect source reads some byte of V that any lane may have
//! written, so the plan counts it as reading all of V ([`targets`]): V's words then stay
//! in the image and a meeting passes the other lanes' words before the read
//! (`exchange.rs`), as for any register read across channels. The address registers it
//! reads must hold the vISA thread's values in the reading copy ([`refusal`]): written
//! by instructions every invocation runs whole, or by per-lane instructions whose
//! element `i` is channel `i`'s and read by the same channel only. An address outside V
//! at run time (the thread mapping would read another variable there, which the copy may
//! not hold) hands the launch to the thread mapping ([`check`], `slow_at`).

use super::lanes::{Plan, Run};
use crate::interp::prepare::{Dst, PField, PInst, Prepared, Src};
use crate::isa::Opcode;

/// What the indirect sources of one instruction may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// No indirect source.
    None,
    /// GRF bytes `[lo, hi)`: the variables their address registers point into.
    Known(u32, u32),
    /// An address register whose writers the translator cannot trace.
    Unknown,
}

/// The address-register elements an indirect source reads for `n` elements.
fn elements(s: &Src, n: u32) -> Option<(u32, u32)> {
    match s {
        Src::Indirect {
            addr, vs: None, w, ..
        } => Some((*addr, addr + n.div_ceil((*w).max(1)))),
        Src::Indirect { addr, .. } => Some((*addr, addr + 1)),
        _ => None,
    }
}

/// The address-register elements instruction `inst` writes.
fn written(inst: &PInst) -> Option<(u32, u32)> {
    inst.fields.iter().find_map(|f| match f {
        PField::Dst(Dst::Addr { base }) => Some((*base, base + inst.exec.size as u32)),
        _ => None,
    })
}

/// The GRF bytes of the widest variable holding byte `off` (a root, not a view).
fn variable_at(p: &Prepared, off: u32) -> Option<(u32, u32)> {
    p.layout
        .offsets
        .iter()
        .zip(&p.layout.sizes)
        .filter(|&(&o, &s)| o <= off && off < o + s)
        .max_by_key(|&(_, &s)| s)
        .map(|(&o, &s)| (o, o + s))
}

/// The variable an address writer points into: `addr_add A &V X`.
fn pointee(p: &Prepared, w: &PInst) -> Option<(u32, u32)> {
    if w.op != Opcode::AddrAdd {
        return None;
    }
    let (_, srcs, _) = w.alu_operands();
    match srcs.first() {
        Some(Src::AddrOf { off }) => variable_at(p, *off),
        _ => None,
    }
}

/// Per instruction, what its indirect sources may read.
pub fn targets(p: &Prepared) -> Vec<Target> {
    let writers: Vec<(usize, (u32, u32))> = p
        .insts
        .iter()
        .enumerate()
        .filter_map(|(k, i)| written(i).map(|e| (k, e)))
        .collect();
    p.insts
        .iter()
        .map(|inst| {
            let (_, srcs, _) = inst.alu_operands();
            let mut out = Target::None;
            for s in srcs {
                let Some((a, b)) = elements(s, inst.exec.size as u32) else {
                    continue;
                };
                let mut reached = writers
                    .iter()
                    .filter(|(_, (x, y))| *x < b && a < *y)
                    .map(|&(w, _)| pointee(p, &p.insts[w]));
                let first = reached.next().flatten();
                let one = first.filter(|v| reached.all(|o| o == Some(*v)));
                out = match (out, one) {
                    (Target::Unknown, _) | (_, None) => Target::Unknown,
                    (Target::None, Some((lo, hi))) => Target::Known(lo, hi),
                    (Target::Known(l, h), Some((lo, hi))) => Target::Known(l.min(lo), h.max(hi)),
                };
            }
            out
        })
        .collect()
}

/// Why the straight form cannot read the kernel's indirect sources, before any plan:
/// a predicated reader, or an address the translator cannot trace to one variable.
pub fn untraced(p: &Prepared) -> Option<String> {
    let targets = targets(p);
    p.insts.iter().zip(&targets).find_map(|(inst, t)| {
        let at = inst.index;
        match t {
            Target::None => None,
            Target::Unknown => Some(format!(
                "indirect operand at instruction {at}: its address registers do not point \
                 into one traced variable"
            )),
            Target::Known(..) if inst.pred.is_some() => {
                Some(format!("indirect operand at instruction {at}: predicated"))
            }
            Target::Known(..) => None,
        }
    })
}

/// Why the straight form cannot read the kernel's indirect sources with its plan:
/// address registers a copy does not hold as the thread does.
pub fn refusal(p: &Prepared, plan: &Plan) -> Option<String> {
    // Address registers read as values (`addr_add A0 A0 ..`, a move out of one) may
    // read any element: every copy holds them all only where none is written per lane.
    let per_lane_writes =
        (0..p.insts.len()).any(|j| plan.run[j] != Run::Uniform && written(&p.insts[j]).is_some());
    for (k, inst) in p.insts.iter().enumerate() {
        let at = inst.index;
        let reads_value = inst
            .fields
            .iter()
            .any(|f| matches!(f, PField::Src(Src::Addr { .. })));
        if reads_value && per_lane_writes {
            return Some(format!(
                "an address register read as a value at instruction {at}, while \
                 address registers are written per channel"
            ));
        }
        let (_, srcs, _) = inst.alu_operands();
        let n = inst.exec.size as u32;
        let moff = inst.exec.mask.channel_offset();
        for s in srcs {
            let Some((a, b)) = elements(s, n) else {
                continue;
            };
            let why = |what: &str| Some(format!("indirect operand at instruction {at}: {what}"));
            if plan.run[k] == Run::PerLane && own_elements_before(p, plan, k, s, (a, b)) {
                continue;
            }
            if plan.run[k] == Run::Uniform && !inst.exec.mask.no_mask {
                return why("read for the whole thread under the execution mask");
            }
            let writers = (0..p.insts.len())
                .filter(|&j| written(&p.insts[j]).is_some_and(|(x, y)| x < b && a < y));
            for j in writers {
                match plan.run[j] {
                    Run::Uniform => {}
                    Run::PerLane => {
                        // Element i of the writer is channel moff_w + i's, and the
                        // reader's channel moff + i reads element a + i.
                        let w = &p.insts[j];
                        let Some((base, _)) = written(w) else {
                            continue;
                        };
                        let per_element = matches!(s, Src::Indirect { vs: None, w: 1, .. });
                        let same = base as i64 - w.exec.mask.channel_offset() as i64
                            == a as i64 - moff as i64;
                        if plan.run[k] != Run::PerLane || !per_element || !same {
                            return why(
                                "its address registers are written per channel for other channels",
                            );
                        }
                    }
                    Run::Lane0 => return why("its address registers are written by one lane"),
                }
            }
        }
    }
    None
}

/// Whether the address elements `[a, b)` that per-lane reader `k` reads through `s`
/// were all last written, in straight-line code before it, by one unpredicated
/// per-lane writer whose element for each reading channel is that channel's (IGC's
/// SIMD32 shuffle: `addr_add (M1, 16) A0 ..`, its read, then `addr_add (M5, 16) A0 ..`
/// for the other half, each copy's `A0` then holding what its own channel wrote).
fn own_elements_before(p: &Prepared, plan: &Plan, k: usize, s: &Src, (a, b): (u32, u32)) -> bool {
    use Opcode::*;
    if !matches!(s, Src::Indirect { vs: None, w: 1, .. }) {
        return false;
    }
    let moff = p.insts[k].exec.mask.channel_offset();
    for j in (0..k).rev() {
        let w = &p.insts[j];
        if matches!(
            w.op,
            Label | Subroutine | Goto | Jmp | Call | Ret | Fret | Switchjmp
        ) {
            return false;
        }
        let Some((x, y)) = written(w) else {
            continue;
        };
        if y <= a || b <= x {
            continue;
        }
        return plan.run[j] == Run::PerLane
            && w.pred.is_none()
            && x <= a
            && b <= y
            && x as i64 - w.exec.mask.channel_offset() as i64 == a as i64 - moff as i64;
    }
    false
}

/// WGSL that hands the launch to the thread mapping (`slow_at`) where an indirect
/// source of `inst` (run per lane as channel `li`, or whole) addresses bytes outside
/// `[lo, hi)`.
pub fn check(inst: &PInst, run: Run, (lo, hi): (u32, u32)) -> String {
    let (_, srcs, _) = inst.alu_operands();
    let n = inst.exec.size as u32;
    let mut tests = Vec::new();
    for s in srcs {
        if let (Some(a), Src::Indirect { ty, .. }) = (super::operand::indirect_address(s), s) {
            tests.push(format!(
                "{{ let a = {a}; if (a < {lo} || a + {} > {hi}) {{ slow_at = {}u; }} }}",
                ty.size(),
                inst.index + 1
            ));
        }
    }
    let body = tests.join(" ");
    if run == Run::PerLane {
        format!("{{ let i = li; if (i < {n}u) {{ {body} }} }}")
    } else {
        format!("for (var i = 0u; i < {n}u; i++) {{ {body} }}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepared(body: &str) -> Prepared {
        super::super::test_kernel(
            ".decl V0032 v_type=G type=d num_elts=16 align=hword\n\
             .decl V0033 v_type=G type=d num_elts=16 align=hword\n\
             .decl V0034 v_type=G type=uw num_elts=16 align=hword\n\
             .decl V0035 v_type=G type=d num_elts=16 align=hword\n\
             .decl A0 v_type=A num_elts=16\n",
            16,
            body,
        )
    }

    fn straight_plan(p: &Prepared) -> Plan {
        super::super::lanes::plan(p, &super::super::blocks::split(&p.insts), true)
    }

    /// IGC's shuffle: the read may reach any byte of V0033 (64 bytes), and each
    /// channel reads the address element it wrote.
    #[test]
    fn a_shuffle_reads_the_variable_its_addresses_point_into() {
        let p = prepared(
            "mov (M1, 16) V0033(0,0)<1> V0032(0,0)<1;1,0>\n\
             addr_add (M1, 16) A0(0)<1> &V0033 V0034(0,0)<1;1,0>\n\
             mov (M1, 16) V0035(0,0)<1> r[A0(0),0]<1,0>:d\n",
        );
        let v0033 = match p.insts[0].fields.iter().find_map(|f| match f {
            PField::Dst(Dst::Direct { off, .. }) => Some(*off),
            _ => None,
        }) {
            Some(o) => o,
            None => panic!("a direct destination"),
        };
        let t = targets(&p);
        assert_eq!(t[2], Target::Known(v0033, v0033 + 64));
        assert_eq!((t[0], t[1]), (Target::None, Target::None));
        assert_eq!(untraced(&p), None);
        let plan = straight_plan(&p);
        assert_eq!((plan.run[1], plan.run[2]), (Run::PerLane, Run::PerLane));
        assert_eq!(refusal(&p, &plan), None);
        // The runtime check names the instruction and the variable's bytes.
        let c = check(&p.insts[2], Run::PerLane, (v0033, v0033 + 64));
        assert!(c.contains(&format!("a + 4 > {}", v0033 + 64)), "{c}");
        assert!(c.contains("slow_at = 3u"), "{c}");
    }

    /// Channels 8-15 reading the elements channels 0-7 wrote; an address register no
    /// `addr_add` of a variable wrote; an address register read as a value.
    #[test]
    fn address_registers_a_copy_does_not_hold_are_refused() {
        let other = prepared(
            "addr_add (M1, 8) A0(0)<1> &V0033 V0034(0,0)<1;1,0>\n\
             mov (M3, 8) V0035(0,0)<1> r[A0(0),0]<1,0>:d\n",
        );
        let why = refusal(&other, &straight_plan(&other)).expect("refused");
        assert!(why.contains("for other channels"), "{why}");
        let untraced_read = prepared("mov (M1, 16) V0035(0,0)<1> r[A0(0),0]<1,0>:d\n");
        assert_eq!(targets(&untraced_read)[0], Target::Unknown);
        assert!(untraced(&untraced_read).is_some());
        let as_value = prepared(
            "addr_add (M1, 16) A0(0)<1> &V0033 V0034(0,0)<1;1,0>\n\
             addr_add (M1_NM, 1) A0(0)<1> A0(0)<1> 0x4:uw\n\
             mov (M1, 16) V0035(0,0)<1> r[A0(0),0]<1,0>:d\n",
        );
        let why = refusal(&as_value, &straight_plan(&as_value)).expect("refused");
        assert!(why.contains("as a value"), "{why}");
    }
}
