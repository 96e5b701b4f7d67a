//! Pre-resolution: a kernel becomes a flat list of instructions whose operands are GRF
//! byte offsets, types and regions, and whose labels are instruction indices, so the
//! hot loop has no maps or strings.

use super::layout::{Layout, LayoutError};
use super::ExecError;
use crate::ir::*;
use crate::isa::table::{info, FieldKind};
use crate::isa::Opcode;

/// A resolved source operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Src {
    Direct {
        off: u32,
        ty: DataType,
        vs: u32,
        w: u32,
        hs: u32,
        m: Modifier,
    },
    /// `r[A(k), imm]`: `vs == None` is multi-address (one address per element).
    Indirect {
        addr: u32,
        imm: i32,
        ty: DataType,
        vs: Option<u32>,
        w: u32,
        hs: u32,
        m: Modifier,
    },
    Imm {
        ty: DataType,
        bits: u64,
    },
    Pred(Predicate),
    /// Elements of an address register (index into the thread's address array).
    Addr {
        base: u32,
        width: u32,
    },
    /// The address of a general variable (addr_add's `&V`).
    AddrOf {
        off: u32,
    },
    State {
        class: StateClass,
        id: u16,
    },
}

/// A resolved destination.
#[derive(Clone, Debug, PartialEq)]
pub enum Dst {
    Direct {
        off: u32,
        ty: DataType,
        hs: u32,
        sat: bool,
    },
    Indirect {
        addr: u32,
        imm: i32,
        ty: DataType,
        hs: u32,
        sat: bool,
    },
    Pred(PredId),
    Addr {
        base: u32,
    },
    State {
        id: u16,
    },
    Null,
}

impl Dst {
    pub fn ty(&self) -> DataType {
        match self {
            Dst::Direct { ty, .. } | Dst::Indirect { ty, .. } => *ty,
            Dst::Addr { .. } => DataType::UW,
            _ => DataType::UD,
        }
    }

    pub fn sat(&self) -> bool {
        matches!(
            self,
            Dst::Direct { sat: true, .. } | Dst::Indirect { sat: true, .. }
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum PField {
    Src(Src),
    Dst(Dst),
    /// GRF byte offset of a raw operand (`None` for %null) and its variable's type.
    Raw(Option<u32>, DataType),
    Int(u64),
    Target(u32),
    Targets(Vec<u32>),
    Surface(u16),
    Sampler(u16),
    None,
}

#[derive(Clone, Debug)]
pub struct PInst {
    pub op: Opcode,
    pub exec: ExecSize,
    pub pred: Option<Predicate>,
    pub fields: Vec<PField>,
    /// Index in the original body (for error messages and traces).
    pub index: usize,
}

impl PInst {
    /// Destinations, sources and integer fields, in field order (what an ALU
    /// instruction computes with; the interpreter and the translator both read it so).
    pub fn alu_operands(&self) -> (Vec<&Dst>, Vec<&Src>, Vec<u64>) {
        let (mut dsts, mut srcs, mut ints) = (Vec::new(), Vec::new(), Vec::new());
        for f in &self.fields {
            match f {
                PField::Dst(d) => dsts.push(d),
                PField::Src(s) => srcs.push(s),
                PField::Int(v) => ints.push(*v),
                _ => {}
            }
        }
        (dsts, srcs, ints)
    }
}

/// A kernel ready to run.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub kernel: Kernel,
    pub layout: Layout,
    pub simd: u32,
    pub grf_bytes: u32,
    pub insts: Vec<PInst>,
    /// Start of each address variable in the flat address-register array.
    pub addr_base: Vec<u32>,
    pub addr_total: u32,
    /// (GRF offset, payload offset, size) for every general input.
    pub inputs: Vec<(u32, u32, u32)>,
    pub pre: PredefinedOffsets,
}

/// GRF offsets of the pre-defined variables the runtime initializes.
#[derive(Clone, Debug, Default)]
pub struct PredefinedOffsets {
    pub r0: u32,
    pub cr0: u32,
    pub sr0: u32,
    pub hw_id: u32,
    pub group_id: [u32; 3],
    pub thread_xy: [u32; 2],
    pub null: u32,
}

/// The value of sampler variable `id` at the end of `before` (the instructions before a
/// sample): the immediate of the last `movs S<id>(0) imm` in the same basic block, as
/// IGC writes before every sample. `None` when a label or branch comes first.
fn sampler_index(before: &[Instruction], id: u16) -> Option<u16> {
    for inst in before.iter().rev() {
        match inst.op {
            Opcode::Label
            | Opcode::Subroutine
            | Opcode::Goto
            | Opcode::Jmp
            | Opcode::Call
            | Opcode::Ret
            | Opcode::Switchjmp => return None,
            Opcode::Movs => {
                if let Some(
                    [Field::Vec(VecOperand::State {
                        class: StateClass::Sampler,
                        id: sid,
                        ..
                    }), Field::Vec(src)],
                ) = inst.fields.get(1..)
                {
                    if sid.0 == id {
                        return match src {
                            VecOperand::Immediate { bits, .. } => u16::try_from(*bits).ok(),
                            _ => None,
                        };
                    }
                }
            }
            _ => {}
        }
    }
    None
}

fn region_param(p: Option<u8>) -> u32 {
    p.unwrap_or(0) as u32
}

pub fn prepare(program: &Program, kernel: &str) -> Result<Prepared, ExecError> {
    let k = program
        .kernels
        .iter()
        .find(|k| k.name == kernel)
        .ok_or_else(|| ExecError::NoKernel(kernel.to_string()))?;
    // Stack functions become subroutines of the kernel (ir::link), so everything after
    // this point sees one object.
    let k = crate::ir::link::link(k, &program.functions)?;
    let grf = program.grf_bytes;
    let layout = Layout::new(&k, grf).map_err(|e: LayoutError| ExecError::Layout(e.to_string()))?;
    let simd = k.simd_size().unwrap_or(16);
    if ![1, 8, 16, 32].contains(&simd) {
        return Err(ExecError::Unsupported {
            index: 0,
            what: format!("SIMD size {simd}"),
        });
    }
    let mut addr_base = Vec::new();
    let mut addr_total = 0u32;
    for a in &k.addrs {
        addr_base.push(addr_total);
        addr_total += a.num_elements.max(1) as u32;
    }
    // Label id -> instruction index.
    let mut label_pc = vec![u32::MAX; k.labels.len()];
    for (i, inst) in k.body.iter().enumerate() {
        if matches!(inst.op, Opcode::Label | Opcode::Subroutine) {
            if let Some(Field::Label(l)) = inst.fields.first() {
                if let Some(slot) = label_pc.get_mut(l.0 as usize) {
                    *slot = i as u32;
                }
            }
        }
    }
    let var_off = |v: VarId| layout.offset(v);
    let var_ty = |v: VarId| k.vars.get(v.0 as usize).map_or(DataType::UD, |v| v.ty);
    let mut insts = Vec::with_capacity(k.body.len());
    for (index, inst) in k.body.iter().enumerate() {
        let row = info(inst.op).fields;
        let mut fields = Vec::with_capacity(row.len());
        let mut exec = ExecSize {
            size: 1,
            mask: MaskControl {
                group: 0,
                no_mask: true,
            },
        };
        let mut pred = None;
        for (spec, f) in row.iter().zip(&inst.fields) {
            let pf = match (spec.kind, f) {
                (FieldKind::ExecSize, Field::ExecSize(e)) => {
                    exec = *e;
                    PField::None
                }
                (FieldKind::Pred, Field::Pred(p)) => {
                    pred = *p;
                    PField::None
                }
                (FieldKind::Dst, Field::Vec(v)) => {
                    PField::Dst(resolve_dst(v, &var_off, &var_ty, &addr_base, grf))
                }
                (FieldKind::Src | FieldKind::Scalar, Field::Vec(v)) => {
                    let addr_of = inst.op == Opcode::AddrAdd && spec.name == "Src0";
                    PField::Src(resolve_src(v, addr_of, &var_off, &var_ty, &addr_base, grf))
                }
                (FieldKind::Raw, Field::Raw(r)) => {
                    // Typed messages move 32-bit elements; 16-bit sampler returns and
                    // coordinates are not emulated.
                    let typed = matches!(
                        inst.op,
                        Opcode::D3Load
                            | Opcode::D3Sample
                            | Opcode::D3Sample4
                            | Opcode::Gather4Typed
                            | Opcode::Scatter4Typed
                            | Opcode::TypedAtomic
                    );
                    if typed && r.var.0 != 0 && var_ty(r.var).size() != 4 {
                        return Err(ExecError::Unsupported {
                            index,
                            what: format!(
                                "{} with a {}-byte {} operand (the emulator moves 32-bit \
                                 texel channels and coordinates only)",
                                inst.op.spec_name(),
                                var_ty(r.var).size(),
                                spec.name
                            ),
                        });
                    }
                    if r.var.0 == 0 {
                        PField::Raw(None, var_ty(r.var))
                    } else {
                        PField::Raw(Some(var_off(r.var) + r.offset as u32), var_ty(r.var))
                    }
                }
                // LSC_UNTYPED's STORE_UNCOMPRESSED is STORE (one pseudo-code on its page;
                // a surface's compression is the hardware's business): one sub-op on.
                (FieldKind::Int(_), Field::Int(0x1c))
                    if inst.op == Opcode::LscUntyped && spec.name == "LscSubOp" =>
                {
                    PField::Int(0x04)
                }
                (FieldKind::Int(_), Field::Int(v)) => PField::Int(*v),
                (FieldKind::Label, Field::Label(l)) => {
                    let pc = label_pc.get(l.0 as usize).copied().unwrap_or(u32::MAX);
                    if pc == u32::MAX {
                        return Err(ExecError::BadLabel { index, label: l.0 });
                    }
                    PField::Target(pc)
                }
                (FieldKind::LabelList, Field::Labels(ls)) => {
                    let mut t = Vec::new();
                    for l in ls {
                        let pc = label_pc.get(l.0 as usize).copied().unwrap_or(u32::MAX);
                        if pc == u32::MAX {
                            return Err(ExecError::BadLabel { index, label: l.0 });
                        }
                        t.push(pc);
                    }
                    PField::Targets(t)
                }
                (FieldKind::Surface, Field::Surface(s)) => PField::Surface(s.0),
                // The sampler *state index* the variable holds (see `sampler_index`).
                (FieldKind::Sampler, Field::Sampler(s)) => {
                    PField::Sampler(sampler_index(&k.body[..index], s.0).ok_or_else(|| {
                        ExecError::Unsupported {
                            index,
                            what: format!(
                                "{} through sampler S{} whose index no `movs S{}(0) imm` \
                                 sets earlier in its basic block",
                                inst.op.spec_name(),
                                s.0,
                                s.0
                            ),
                        }
                    })?)
                }
                _ => {
                    return Err(ExecError::Malformed {
                        index,
                        what: format!(
                            "field {} of {} has the wrong kind",
                            spec.name,
                            inst.op.spec_name()
                        ),
                    })
                }
            };
            fields.push(pf);
        }
        // GATHER/SCATTER keep their execution size and mask in Num_elts: bits 0-1 the
        // element count (8, 16, 1), bits 4-7 the mask control as in an Exec_size byte.
        if matches!(inst.op, Opcode::Gather | Opcode::Scatter) {
            let ne = info(inst.op)
                .index_of("Num_elts")
                .and_then(|i| match fields.get(i) {
                    Some(PField::Int(v)) => Some(*v as u8),
                    _ => None,
                })
                .unwrap_or(0);
            let size = match ne & 3 {
                0 => 3,
                1 => 4,
                2 => 0,
                _ => {
                    return Err(ExecError::Malformed {
                        index,
                        what: format!("{} with Num_elts code 3", inst.op.spec_name()),
                    })
                }
            };
            exec = ExecSize::from_byte((ne & 0xf0) | size).unwrap_or(exec);
        }
        insts.push(PInst {
            op: inst.op,
            exec,
            pred,
            fields,
            index,
        });
    }
    let mut inputs = Vec::new();
    for i in &k.inputs {
        if i.class == InputClass::General {
            inputs.push((layout.offset(VarId(i.id)), i.offset, i.size));
        }
    }
    let find = |p: PredefinedVar| {
        k.vars
            .iter()
            .position(|v| v.predefined == Some(p))
            .map_or(0, |i| layout.offsets[i])
    };
    let pre = PredefinedOffsets {
        r0: find(PredefinedVar::R0),
        cr0: find(PredefinedVar::Cr0),
        sr0: find(PredefinedVar::Sr0),
        hw_id: find(PredefinedVar::HwId),
        group_id: [
            find(PredefinedVar::GroupIdX),
            find(PredefinedVar::GroupIdY),
            find(PredefinedVar::GroupIdZ),
        ],
        thread_xy: [find(PredefinedVar::ThreadX), find(PredefinedVar::ThreadY)],
        null: find(PredefinedVar::Null),
    };
    Ok(Prepared {
        kernel: k,
        layout,
        simd,
        grf_bytes: grf,
        insts,
        addr_base,
        addr_total,
        inputs,
        pre,
    })
}

fn resolve_src(
    v: &VecOperand,
    addr_of: bool,
    var_off: &dyn Fn(VarId) -> u32,
    var_ty: &dyn Fn(VarId) -> DataType,
    addr_base: &[u32],
    grf: u32,
) -> Src {
    match v {
        VecOperand::General {
            var,
            row,
            col,
            region,
            modifier,
        } => {
            let ty = var_ty(*var);
            let off = var_off(*var) + *row as u32 * grf + *col as u32 * ty.size();
            if addr_of {
                return Src::AddrOf { off };
            }
            Src::Direct {
                off,
                ty,
                vs: region_param(region.vstride),
                w: region_param(region.width).max(1),
                hs: region_param(region.hstride),
                m: *modifier,
            }
        }
        VecOperand::Indirect {
            addr,
            addr_offset,
            imm_offset,
            ty,
            region,
            modifier,
        } => Src::Indirect {
            addr: addr_base.get(addr.0 as usize).copied().unwrap_or(0) + *addr_offset as u32,
            imm: *imm_offset as i32,
            ty: *ty,
            vs: region.vstride.map(|v| v as u32),
            w: region_param(region.width).max(1),
            hs: region_param(region.hstride),
            m: *modifier,
        },
        VecOperand::Immediate { ty, bits } => Src::Imm {
            ty: *ty,
            bits: *bits,
        },
        VecOperand::Predicate(p) => Src::Pred(*p),
        VecOperand::Address {
            addr,
            offset,
            width,
        } => Src::Addr {
            base: addr_base.get(addr.0 as usize).copied().unwrap_or(0) + *offset as u32,
            width: (*width as u32).max(1),
        },
        VecOperand::State { class, id, .. } => Src::State {
            class: *class,
            id: id.0,
        },
    }
}

fn resolve_dst(
    v: &VecOperand,
    var_off: &dyn Fn(VarId) -> u32,
    var_ty: &dyn Fn(VarId) -> DataType,
    addr_base: &[u32],
    grf: u32,
) -> Dst {
    match v {
        VecOperand::General {
            var,
            row,
            col,
            region,
            modifier,
        } => {
            if var.0 == 0 {
                return Dst::Null;
            }
            let ty = var_ty(*var);
            Dst::Direct {
                off: var_off(*var) + *row as u32 * grf + *col as u32 * ty.size(),
                ty,
                hs: region.hstride.unwrap_or(1).max(1) as u32,
                sat: *modifier == Modifier::Sat,
            }
        }
        VecOperand::Indirect {
            addr,
            addr_offset,
            imm_offset,
            ty,
            region,
            modifier,
        } => Dst::Indirect {
            addr: addr_base.get(addr.0 as usize).copied().unwrap_or(0) + *addr_offset as u32,
            imm: *imm_offset as i32,
            ty: *ty,
            hs: region.hstride.unwrap_or(1).max(1) as u32,
            sat: *modifier == Modifier::Sat,
        },
        VecOperand::Predicate(p) => Dst::Pred(p.id),
        VecOperand::Address { addr, offset, .. } => Dst::Addr {
            base: addr_base.get(addr.0 as usize).copied().unwrap_or(0) + *offset as u32,
        },
        // Sampler variables hold a sampler index that `prepare` resolves at each sample
        // (`sampler_index`); writing them changes no surface.
        VecOperand::State {
            class: StateClass::Sampler,
            ..
        } => Dst::Null,
        VecOperand::State { id, .. } => Dst::State { id: id.0 },
        VecOperand::Immediate { .. } => Dst::Null,
    }
}
