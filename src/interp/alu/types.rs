//! The vocabulary of the ALU library: one element ([`Val`]), the floating-point
//! environment of %cr0 ([`FpEnv`]), the operations ([`AluOp`]), their results
//! ([`AluOut`]) and errors ([`AluError`]).

use crate::ir::DataType;
use crate::isa::Opcode;
use std::fmt;

/// One element: its type and raw bits, zero-extended to 64 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Val {
    pub ty: DataType,
    pub bits: u64,
}

impl Val {
    #[inline]
    pub const fn new(ty: DataType, bits: u64) -> Val {
        Val { ty, bits }
    }
}

/// Rounding mode of %cr0 bits 4-5 (4_visa_header, V14).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Round to nearest, ties to even.
    Rne,
    /// Round up, toward +inf.
    Ru,
    /// Round down, toward -inf.
    Rd,
    /// Round toward zero.
    Rz,
}

impl Rounding {
    #[inline]
    pub fn from_code(code: u8) -> Rounding {
        match code & 3 {
            0 => Rounding::Rne,
            1 => Rounding::Ru,
            2 => Rounding::Rd,
            _ => Rounding::Rz,
        }
    }
}

/// The floating-point environment from %cr0 (4_visa_header, V14): bit 0 ALT mode
/// for F, bits 4-5 rounding, bit 6 DF denorms kept, bit 7 F denorms kept, bit 10 HF
/// denorms kept (flushed to a signed zero when the bit is 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FpEnv {
    /// 0 RNE, 1 RU (+inf), 2 RD (-inf), 3 RZ: cr0 bits 4-5. See [`FpEnv::mode`].
    pub rounding: u8,
    pub f_denorm: bool,
    pub df_denorm: bool,
    pub hf_denorm: bool,
    /// ALT (legacy) single-precision mode: no inf/NaN results for F.
    pub alt: bool,
}

impl FpEnv {
    /// IEEE mode, round to nearest even, every denorm kept: what IGC's prologue
    /// (`or %cr0 %cr0 0x4c0`) establishes.
    pub const IEEE_DENORMS: FpEnv = FpEnv {
        rounding: 0,
        f_denorm: true,
        df_denorm: true,
        hf_denorm: true,
        alt: false,
    };

    pub fn from_cr0(cr0: u32) -> FpEnv {
        FpEnv {
            rounding: ((cr0 >> 4) & 3) as u8,
            df_denorm: cr0 & (1 << 6) != 0,
            f_denorm: cr0 & (1 << 7) != 0,
            hf_denorm: cr0 & (1 << 10) != 0,
            alt: cr0 & 1 != 0,
        }
    }

    #[inline]
    pub fn mode(&self) -> Rounding {
        Rounding::from_code(self.rounding)
    }
}

/// CMP's relational operator (CMP page, Rel_op bits 0-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RelOp {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

impl RelOp {
    pub fn from_code(code: u64) -> Option<RelOp> {
        Some(match code {
            0 => RelOp::Eq,
            1 => RelOp::Ne,
            2 => RelOp::Gt,
            3 => RelOp::Ge,
            4 => RelOp::Lt,
            5 => RelOp::Le,
            _ => return None,
        })
    }
}

/// The per-element operations. Sources are given in the instruction page's order;
/// where an operation needs values from more than one channel or an instruction
/// field, the expected `srcs` are listed here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AluOp {
    Add,
    Avg,
    Div,
    Exp,
    Frc,
    Log,
    Mad,
    Mulh,
    Lrp,
    Mod,
    Mul,
    Pow,
    Rndd,
    Rndu,
    Rnde,
    Rndz,
    /// `[src0[i], src1[i], src0[i+1], src1[i+1]]`; the result goes to the even channel.
    Sad2,
    Sin,
    Cos,
    Sqrt,
    Rsqrt,
    Inv,
    /// HF <-> BF8 (as UB), F <-> TF32 (as UD).
    Fcvt,
    /// `[src0, random]`: F -> HF or HF -> BF8 (as UB) with stochastic rounding.
    Srnd,
    Lzd,
    And,
    Or,
    Xor,
    Not,
    Shl,
    Shr,
    Asr,
    Cbit,
    Mov,
    /// `[src0, src1, predicate bit (any type, bit 0)]`.
    Sel,
    /// `dst` is the predicate bit (0/1); `extra` is what a general destination of the
    /// given type receives (all ones or zero).
    Cmp(RelOp),
    Min,
    Max,
    Fbl,
    Fbh,
    Bfe,
    Bfi,
    Bfrev,
    /// `extra` is the carry (0/1).
    Addc,
    /// `extra` is the borrow (0/1).
    Subb,
    /// `[src0[i], src1[i], src0[i+1], src1[i+1], src2[i]]`.
    Sad2add,
    /// `[p, q, r, u, v]`: `p*u + q*v + r` with `p = src0[0]`, `q = src0[1]`, `r = src0[3]`
    /// and u, v the channel's elements of src1.
    Pln,
    Sqrtm,
    Divm,
    Rol,
    Ror,
    Dp4a,
    Add3,
    /// `extra` is the overflow bit (the sum is not representable in `dst`).
    Add3o,
    /// The boolean function table (BooleanFuncCtrl).
    Bfn(u8),
    /// `extra` is the high 32 bits (the low 32 bits are in `dst`).
    Madw,
    /// `[src0, src1]`: src0 / src1; `extra` is the early-out bit (result NaN/inf/0).
    Invm,
    /// `extra` is the early-out bit (result NaN/inf/0).
    Rsqtm,
}

impl AluOp {
    /// The spec's mnemonic, for messages.
    pub fn name(self) -> &'static str {
        use AluOp::*;
        match self {
            Add => "add",
            Avg => "avg",
            Div => "div",
            Exp => "exp",
            Frc => "frc",
            Log => "log",
            Mad => "mad",
            Mulh => "mulh",
            Lrp => "lrp",
            Mod => "mod",
            Mul => "mul",
            Pow => "pow",
            Rndd => "rndd",
            Rndu => "rndu",
            Rnde => "rnde",
            Rndz => "rndz",
            Sad2 => "sad2",
            Sin => "sin",
            Cos => "cos",
            Sqrt => "sqrt",
            Rsqrt => "rsqrt",
            Inv => "inv",
            Fcvt => "fcvt",
            Srnd => "srnd",
            Lzd => "lzd",
            And => "and",
            Or => "or",
            Xor => "xor",
            Not => "not",
            Shl => "shl",
            Shr => "shr",
            Asr => "asr",
            Cbit => "cbit",
            Mov => "mov",
            Sel => "sel",
            Cmp(_) => "cmp",
            Min => "min",
            Max => "max",
            Fbl => "fbl",
            Fbh => "fbh",
            Bfe => "bfe",
            Bfi => "bfi",
            Bfrev => "bfrev",
            Addc => "addc",
            Subb => "subb",
            Sad2add => "sad2add",
            Pln => "pln",
            Sqrtm => "sqrtm",
            Divm => "divm",
            Rol => "rol",
            Ror => "ror",
            Dp4a => "dp4a",
            Add3 => "add3",
            Add3o => "add3o",
            Bfn(_) => "bfn",
            Madw => "madw",
            Invm => "invm",
            Rsqtm => "rsqtm",
        }
    }

    /// The operation of an EU instruction, given its integer fields in order (CMP's
    /// Rel_op, MIN_MAX's Op, BFN's BooleanFuncCtrl). `None` for opcodes that are not
    /// per-element ALU operations (control flow, messages, SETP, MOVS, ADDR_ADD, DPAS)
    /// or a field value the spec does not define.
    pub fn from_opcode(op: Opcode, ints: &[u64]) -> Option<AluOp> {
        use AluOp as A;
        use Opcode::*;
        Some(match op {
            Add => A::Add,
            Avg => A::Avg,
            Div => A::Div,
            Exp => A::Exp,
            Frc => A::Frc,
            Log => A::Log,
            Mad => A::Mad,
            Mulh => A::Mulh,
            Lrp => A::Lrp,
            Mod => A::Mod,
            Mul => A::Mul,
            Pow => A::Pow,
            Rndd => A::Rndd,
            Rndu => A::Rndu,
            Rnde => A::Rnde,
            Rndz => A::Rndz,
            Sad2 => A::Sad2,
            Sin => A::Sin,
            Cos => A::Cos,
            Sqrt => A::Sqrt,
            Rsqrt => A::Rsqrt,
            Inv => A::Inv,
            Fcvt => A::Fcvt,
            Srnd => A::Srnd,
            Lzd => A::Lzd,
            And => A::And,
            Or => A::Or,
            Xor => A::Xor,
            Not => A::Not,
            Shl => A::Shl,
            Shr => A::Shr,
            Asr => A::Asr,
            Cbit => A::Cbit,
            Mov => A::Mov,
            Sel => A::Sel,
            Cmp => A::Cmp(RelOp::from_code(*ints.first()?)?),
            MinMax => match *ints.first()? {
                0 => A::Min,
                1 => A::Max,
                _ => return None,
            },
            Fbl => A::Fbl,
            Fbh => A::Fbh,
            Bfe => A::Bfe,
            Bfi => A::Bfi,
            Bfrev => A::Bfrev,
            Addc => A::Addc,
            Subb => A::Subb,
            Sad2add => A::Sad2add,
            Pln => A::Pln,
            Sqrtm => A::Sqrtm,
            Divm => A::Divm,
            Rol => A::Rol,
            Ror => A::Ror,
            Dp4a => A::Dp4a,
            Add3 => A::Add3,
            Add3o => A::Add3o,
            Bfn => A::Bfn(u8::try_from(*ints.first()?).ok()?),
            Madw => A::Madw,
            Invm => A::Invm,
            Rsqtm => A::Rsqtm,
            _ => return None,
        })
    }

    /// Whether [`AluOut::extra`] carries a second result to write (a second
    /// destination, madw's high half, or a predicate bit). CMP's `extra` is the
    /// general-destination form of its one result, so it is not counted here.
    pub fn has_extra(self) -> bool {
        matches!(
            self,
            AluOp::Addc | AluOp::Subb | AluOp::Madw | AluOp::Add3o | AluOp::Invm | AluOp::Rsqtm
        )
    }

    /// How many sources [`super::exec`] expects.
    pub fn arity(self) -> usize {
        use AluOp::*;
        match self {
            Exp | Frc | Log | Rndd | Rndu | Rnde | Rndz | Sin | Cos | Sqrt | Rsqrt | Inv | Fcvt
            | Lzd | Not | Cbit | Mov | Fbl | Fbh | Bfrev | Sqrtm | Rsqtm => 1,
            Add | Avg | Div | Mulh | Mod | Mul | Pow | Srnd | And | Or | Xor | Shl | Shr | Asr
            | Cmp(_) | Min | Max | Addc | Subb | Divm | Rol | Ror | Invm => 2,
            Mad | Lrp | Sel | Bfe | Dp4a | Add3 | Add3o | Bfn(_) | Madw => 3,
            Sad2 | Bfi => 4,
            Sad2add | Pln => 5,
        }
    }
}

/// The result of one element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AluOut {
    /// The destination's bits (zero-extended).
    pub dst: u64,
    /// The second result where the operation has one: carry (addc), borrow (subb),
    /// high half (madw), overflow (add3o), early-out bit (invm, rsqtm), general
    /// destination value (cmp). Zero otherwise.
    pub extra: u64,
}

impl AluOut {
    #[inline]
    pub const fn bits(dst: u64) -> AluOut {
        AluOut { dst, extra: 0 }
    }
}

/// Up to five operand types, for error messages without allocation on the hot path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeList {
    types: [DataType; 5],
    len: u8,
}

impl TypeList {
    pub fn of(srcs: &[Val]) -> TypeList {
        let mut types = [DataType::UD; 5];
        let mut len = 0u8;
        for (slot, v) in types.iter_mut().zip(srcs) {
            *slot = v.ty;
            len += 1;
        }
        TypeList { types, len }
    }

    pub fn as_slice(&self) -> &[DataType] {
        &self.types[..self.len as usize]
    }
}

impl fmt::Display for TypeList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.as_slice().iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{t}")?;
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AluError {
    #[error("{op}: expected {expected} source(s), got {got}")]
    Arity {
        op: &'static str,
        expected: usize,
        got: usize,
    },
    #[error("{op}: type combination not allowed by the spec: dst {dst}, sources ({srcs}); expected {expected}")]
    Types {
        op: &'static str,
        dst: DataType,
        srcs: TypeList,
        expected: &'static str,
    },
}
