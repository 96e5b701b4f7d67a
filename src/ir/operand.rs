//! Operands (spec 5_operands.md): vector operands of every class, raw operands,
//! regions and predicate controls. Ids index the symbol tables of the owning
//! [`Kernel`](super::Kernel): `VarId` the general variables (pre-defined ones first),
//! `AddrId` the address variables, `PredId` the predicates (0 = P0, "no predicate").

use super::types::{DataType, Modifier};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AddrId(pub u16);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PredId(pub u16);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LabelId(pub u16);
/// Index of a surface (`T#`) or sampler (`S#`) variable, pre-defined ones included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateId(pub u16);

/// A region parameter (VertStride, Width or HorzStride), in elements. `None` is the
/// spec's "Null" encoding (0b0000), used by multi-address indirect operands.
pub type RegionParam = Option<u8>;

/// `<VertStride; Width, HorzStride>`; a destination only uses `hstride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    pub vstride: RegionParam,
    pub width: RegionParam,
    pub hstride: RegionParam,
}

impl Region {
    /// The scalar region `<0;1,0>`.
    pub const SCALAR: Region = Region {
        vstride: Some(0),
        width: Some(1),
        hstride: Some(0),
    };

    /// Decode one 4-bit region code: 0 = Null, 1 = 0, 2 = 1, 3 = 2, ... 7 = 32.
    pub fn param_from_code(code: u8) -> Option<RegionParam> {
        match code {
            0 => Some(None),
            1 => Some(Some(0)),
            2..=7 => Some(Some(1u8 << (code - 2))),
            _ => None,
        }
    }

    pub fn param_code(p: RegionParam) -> u8 {
        match p {
            None => 0,
            Some(0) => 1,
            Some(v) => v.trailing_zeros() as u8 + 2,
        }
    }

    /// Decode the `uw region` field: vstride bits 0-3, width 4-7, hstride 8-11.
    pub fn from_word(w: u16) -> Option<Region> {
        Some(Region {
            vstride: Self::param_from_code((w & 0xf) as u8)?,
            width: Self::param_from_code(((w >> 4) & 0xf) as u8)?,
            hstride: Self::param_from_code(((w >> 8) & 0xf) as u8)?,
        })
    }

    pub fn to_word(self) -> u16 {
        Self::param_code(self.vstride) as u16
            | (Self::param_code(self.width) as u16) << 4
            | (Self::param_code(self.hstride) as u16) << 8
    }
}

/// How a predicate's bits are combined before use (spec: Predicate Combine).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PredCombine {
    #[default]
    Sequential,
    Any,
    All,
}

/// The `uw` predication control: id bits 0-11, combine 13-14, inverse 15.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Predicate {
    pub id: PredId,
    pub combine: PredCombine,
    pub inverse: bool,
}

impl Predicate {
    /// Decode the control word; `Ok(None)` for P0 (no predication).
    pub fn from_word(w: u16) -> Result<Option<Predicate>, &'static str> {
        let id = w & 0x0fff;
        if w & 0x1000 != 0 {
            return Err("predicate control bit 12 is reserved and must be 0");
        }
        let combine = match (w >> 13) & 3 {
            0 => PredCombine::Sequential,
            1 => PredCombine::Any,
            2 => PredCombine::All,
            _ => return Err("predicate combine 0b11 is reserved"),
        };
        let inverse = w & 0x8000 != 0;
        if id == 0 {
            return Ok(None);
        }
        Ok(Some(Predicate {
            id: PredId(id),
            combine,
            inverse,
        }))
    }

    pub fn to_word(p: Option<Predicate>) -> u16 {
        match p {
            None => 0,
            Some(p) => {
                let c = match p.combine {
                    PredCombine::Sequential => 0,
                    PredCombine::Any => 1,
                    PredCombine::All => 2,
                };
                p.id.0 | (c << 13) | if p.inverse { 0x8000 } else { 0 }
            }
        }
    }
}

/// Storage class of a state operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateClass {
    Surface,
    Sampler,
}

/// A vector operand of any class (spec: vec_operand).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum VecOperand {
    /// `V(row,col)<vs;w,hs>` over a general variable. `row` is in GRFs of the target,
    /// `col` in elements of the variable's type.
    General {
        var: VarId,
        row: u8,
        col: u8,
        region: Region,
        modifier: Modifier,
    },
    /// `A#(offset)<width>`: elements of an address variable.
    Address { addr: AddrId, offset: u8, width: u8 },
    /// A predicate variable used as a value (logic ops, setp).
    Predicate(Predicate),
    /// `r[A#(addr_offset), imm_offset]<region>:type`. `region.vstride == None` marks a
    /// multi-address operand.
    Indirect {
        addr: AddrId,
        addr_offset: u8,
        imm_offset: i16,
        ty: DataType,
        region: Region,
        modifier: Modifier,
    },
    /// An immediate: `bits` holds the raw little-endian value (high dword only for
    /// DF/Q/UQ).
    Immediate { ty: DataType, bits: u64 },
    /// A surface or sampler variable element.
    State {
        class: StateClass,
        id: StateId,
        offset: u8,
    },
}

impl VecOperand {
    pub fn modifier(&self) -> Modifier {
        match self {
            VecOperand::General { modifier, .. } | VecOperand::Indirect { modifier, .. } => {
                *modifier
            }
            _ => Modifier::None,
        }
    }
}

/// A raw operand: `V.offset`, a contiguous byte range of a general variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RawOperand {
    pub var: VarId,
    /// Byte offset from the start of the variable.
    pub offset: u16,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_word_round_trip() {
        for w in 0u16..0x1000 {
            if let Some(r) = Region::from_word(w) {
                assert_eq!(r.to_word(), w);
            }
        }
        // <0;1,0> = vs code 1, width code 2, hs code 1
        assert_eq!(Region::SCALAR.to_word(), 0x121);
    }

    #[test]
    fn predicate_word() {
        let p = Predicate::from_word(0x8000 | 0x2000 | 5).unwrap().unwrap();
        assert_eq!(p.id, PredId(5));
        assert!(p.inverse);
        assert_eq!(p.combine, PredCombine::Any);
        assert_eq!(Predicate::to_word(Some(p)), 0xa005);
        assert_eq!(Predicate::from_word(0).unwrap(), None);
        assert!(Predicate::from_word(0x1001).is_err());
    }
}
