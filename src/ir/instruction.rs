//! One instruction of the kernel IR: its opcode and its fields in the spec's binary
//! "Format" order. What each field means (and how it is encoded, parsed, printed and
//! validated) comes from the instruction table, `crate::isa::table`; the IR itself only
//! stores values.

use super::operand::{LabelId, Predicate, RawOperand, StateId, VecOperand};
use super::types::ExecSize;
use crate::isa::Opcode;

/// The value of one field of an instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// The Exec_size byte (size and mask control).
    ExecSize(ExecSize),
    /// The Pred word; `None` is P0 (no predication).
    Pred(Option<Predicate>),
    /// A vector operand (dst, src or scalar operand).
    Vec(VecOperand),
    /// A raw operand.
    Raw(RawOperand),
    /// A plain integer field (sizes, channel masks, sub-opcodes, relational ops, ...);
    /// the table gives its width and meaning.
    Int(u64),
    /// A label index (jmp/goto/call target).
    Label(LabelId),
    /// A list of labels (switchjmp).
    Labels(Vec<LabelId>),
    /// A surface variable index (`T#`).
    Surface(StateId),
    /// A sampler variable index (`S#`).
    Sampler(StateId),
    /// A string (FILE name).
    Str(String),
}

/// One vISA instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instruction {
    pub op: Opcode,
    pub fields: Vec<Field>,
}

impl Instruction {
    /// The execution size field, if the instruction has one.
    pub fn exec_size(&self) -> Option<ExecSize> {
        self.fields.iter().find_map(|f| match f {
            Field::ExecSize(e) => Some(*e),
            _ => None,
        })
    }

    /// The predicate, if the instruction has a Pred field and it is not P0.
    pub fn predicate(&self) -> Option<Predicate> {
        self.fields.iter().find_map(|f| match f {
            Field::Pred(p) => *p,
            _ => None,
        })
    }
}
