//! A vISA object (kernel or function) and the file (program) that holds it:
//! symbol tables, inputs, attributes and the instruction stream.

use super::instruction::Instruction;
use super::operand::VarId;
use super::types::{Align, DataType};

/// A `.isa` file or `.visaasm` text: one or more kernels and functions.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// (major, minor), e.g. (4, 1).
    pub version: (u8, u8),
    /// GRF size of the target platform in bytes (32, or 64 on PVC). Not stored in the
    /// vISA object itself: it comes from the platform (ABI) or the caller.
    pub grf_bytes: u32,
    pub kernels: Vec<Kernel>,
    pub functions: Vec<Kernel>,
}

/// Whether an object is a kernel (has inputs) or a stack/subroutine function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    Kernel,
    Function,
}

/// An attribute `name[=value]` of a kernel or declaration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Attribute {
    pub name: String,
    pub value: AttrValue,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AttrValue {
    /// No value (a boolean attribute).
    Flag,
    Int(i64),
    Str(String),
}

/// A pre-defined general variable (V0..V31 in the spec's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PredefinedVar {
    Null,
    ThreadX,
    ThreadY,
    GroupIdX,
    GroupIdY,
    GroupIdZ,
    Tsc,
    R0,
    Arg,
    RetVal,
    Sp,
    Fp,
    HwId,
    Sr0,
    Cr0,
    Ce0,
    Dbg0,
    Color,
    ImplArgBufPtr,
    LocalIdBufPtr,
    Msg0,
}

impl PredefinedVar {
    /// In index order (V0 = %null ...), as the corpus' vISA 4.1 lists them.
    pub const ALL: [PredefinedVar; 21] = [
        PredefinedVar::Null,
        PredefinedVar::ThreadX,
        PredefinedVar::ThreadY,
        PredefinedVar::GroupIdX,
        PredefinedVar::GroupIdY,
        PredefinedVar::GroupIdZ,
        PredefinedVar::Tsc,
        PredefinedVar::R0,
        PredefinedVar::Arg,
        PredefinedVar::RetVal,
        PredefinedVar::Sp,
        PredefinedVar::Fp,
        PredefinedVar::HwId,
        PredefinedVar::Sr0,
        PredefinedVar::Cr0,
        PredefinedVar::Ce0,
        PredefinedVar::Dbg0,
        PredefinedVar::Color,
        PredefinedVar::ImplArgBufPtr,
        PredefinedVar::LocalIdBufPtr,
        PredefinedVar::Msg0,
    ];

    /// Text name including the `%`.
    pub fn text(self) -> &'static str {
        use PredefinedVar::*;
        match self {
            Null => "%null",
            ThreadX => "%thread_x",
            ThreadY => "%thread_y",
            GroupIdX => "%group_id_x",
            GroupIdY => "%group_id_y",
            GroupIdZ => "%group_id_z",
            Tsc => "%tsc",
            R0 => "%r0",
            Arg => "%arg",
            RetVal => "%retval",
            Sp => "%sp",
            Fp => "%fp",
            HwId => "%hw_id",
            Sr0 => "%sr0",
            Cr0 => "%cr0",
            Ce0 => "%ce0",
            Dbg0 => "%dbg0",
            Color => "%color",
            ImplArgBufPtr => "%impl_arg_buf_ptr",
            LocalIdBufPtr => "%local_id_buf_ptr",
            Msg0 => "%msg0",
        }
    }

    pub fn from_text(s: &str) -> Option<PredefinedVar> {
        Self::ALL.iter().copied().find(|p| p.text() == s)
    }
}

/// A general variable (`.decl V v_type=G ...`), or a pre-defined one.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneralVar {
    /// The name used in text (`V0032`, `%r0`).
    pub name: String,
    pub ty: DataType,
    pub align: Align,
    pub num_elements: u32,
    /// `alias=<base, byte offset>`.
    pub alias: Option<(VarId, u32)>,
    pub attrs: Vec<Attribute>,
    /// Set for the pre-defined variables (they occupy the first ids).
    pub predefined: Option<PredefinedVar>,
}

impl GeneralVar {
    pub fn byte_size(&self) -> u32 {
        self.num_elements * self.ty.size()
    }
}

/// An address variable (`v_type=A`).
#[derive(Clone, Debug, PartialEq)]
pub struct AddrVar {
    pub name: String,
    pub num_elements: u16,
    pub attrs: Vec<Attribute>,
}

/// A predicate variable (`v_type=P`). Index 0 is the reserved P0.
#[derive(Clone, Debug, PartialEq)]
pub struct PredVar {
    pub name: String,
    pub num_elements: u16,
    pub attrs: Vec<Attribute>,
}

/// A surface or sampler variable (`v_type=T` / `v_type=S`), pre-defined ones included
/// (T0 = %slm ... T5 = %scratch for surfaces).
#[derive(Clone, Debug, PartialEq)]
pub struct StateVar {
    pub name: String,
    pub num_elements: u16,
    pub attrs: Vec<Attribute>,
    pub predefined: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelKind {
    Block,
    Subroutine,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub name: String,
    pub kind: LabelKind,
    pub attrs: Vec<Attribute>,
}

/// Which symbol table an input refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputClass {
    General,
    Sampler,
    Surface,
}

/// A kernel input (`.input V offset=.. size=..`): where the runtime places it in the
/// thread payload.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    pub class: InputClass,
    /// Index into the symbol table named by `class`.
    pub id: u32,
    /// Byte offset in the GRF payload (from r0).
    pub offset: u32,
    pub size: u32,
    /// Provenance field (bits 3-7 of kind); 0 for user arguments.
    pub provenance: u8,
}

/// A kernel or function object.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub kind: ObjectKind,
    pub name: String,
    /// General variables; `VarId(i)` is `vars[i]`. The pre-defined ones come first.
    pub vars: Vec<GeneralVar>,
    pub addrs: Vec<AddrVar>,
    /// Predicates; index 0 is P0 (reserved, never declared).
    pub preds: Vec<PredVar>,
    pub labels: Vec<Label>,
    pub samplers: Vec<StateVar>,
    pub surfaces: Vec<StateVar>,
    pub inputs: Vec<Input>,
    pub attributes: Vec<Attribute>,
    pub body: Vec<Instruction>,
    /// Stack functions this object may call (`.funcdecl "name"`), in text order.
    pub func_decls: Vec<String>,
    /// Functions only: input_size / return_value_size (in GRFs).
    pub arg_size: u8,
    pub ret_size: u8,
}

impl Kernel {
    pub fn var(&self, id: VarId) -> Option<&GeneralVar> {
        self.vars.get(id.0 as usize)
    }

    /// The kernel attribute `name`, if present.
    pub fn attribute(&self, name: &str) -> Option<&AttrValue> {
        self.attributes
            .iter()
            .find(|a| a.name == name)
            .map(|a| &a.value)
    }

    /// SIMD width from the `SimdSize` attribute.
    pub fn simd_size(&self) -> Option<u32> {
        match self.attribute("SimdSize")? {
            AttrValue::Int(v) => Some(*v as u32),
            AttrValue::Str(s) => s.trim().parse().ok(),
            AttrValue::Flag => None,
        }
    }
}
