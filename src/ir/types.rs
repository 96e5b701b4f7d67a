//! The fundamental data types of vISA (spec 2_datatypes.md) and the small enums
//! every layer shares: execution size and mask control, alignment, modifiers.

use std::fmt;

/// A vISA data type. The discriminant is the 4-bit binary code of the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DataType {
    UD = 0,
    D = 1,
    UW = 2,
    W = 3,
    UB = 4,
    B = 5,
    DF = 6,
    F = 7,
    /// Packed vector of eight signed 4-bit integers (immediates only).
    V = 8,
    /// Packed vector of four 8-bit restricted floats (immediates only).
    VF = 9,
    Bool = 10,
    UQ = 11,
    /// Packed vector of eight unsigned 4-bit integers (immediates only).
    UV = 12,
    Q = 13,
    HF = 14,
    BF = 15,
}

impl DataType {
    pub const ALL: [DataType; 16] = [
        DataType::UD,
        DataType::D,
        DataType::UW,
        DataType::W,
        DataType::UB,
        DataType::B,
        DataType::DF,
        DataType::F,
        DataType::V,
        DataType::VF,
        DataType::Bool,
        DataType::UQ,
        DataType::UV,
        DataType::Q,
        DataType::HF,
        DataType::BF,
    ];

    /// Decode the 4-bit binary code.
    pub fn from_code(code: u8) -> Option<DataType> {
        Self::ALL.get(code as usize).copied()
    }

    pub fn code(self) -> u8 {
        self as u8
    }

    /// Size in bytes of one element. Packed vectors report their dword; BOOL reports 1
    /// (a predicate bit has no byte storage, but callers that size buffers need non-zero).
    pub fn size(self) -> u32 {
        use DataType::*;
        match self {
            UB | B | Bool => 1,
            UW | W | HF | BF => 2,
            UD | D | F | V | VF | UV => 4,
            UQ | Q | DF => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            DataType::F | DataType::DF | DataType::HF | DataType::BF | DataType::VF
        )
    }

    pub fn is_signed_int(self) -> bool {
        matches!(
            self,
            DataType::D | DataType::W | DataType::B | DataType::Q | DataType::V
        )
    }

    pub fn is_int(self) -> bool {
        matches!(
            self,
            DataType::UD
                | DataType::D
                | DataType::UW
                | DataType::W
                | DataType::UB
                | DataType::B
                | DataType::UQ
                | DataType::Q
        )
    }

    pub fn is_packed(self) -> bool {
        matches!(self, DataType::V | DataType::VF | DataType::UV)
    }

    /// Lower-case text mnemonic as IGC prints it (`ud`, `f`, `hf`, ...).
    pub fn text(self) -> &'static str {
        use DataType::*;
        match self {
            UD => "ud",
            D => "d",
            UW => "uw",
            W => "w",
            UB => "ub",
            B => "b",
            DF => "df",
            F => "f",
            V => "v",
            VF => "vf",
            Bool => "bool",
            UQ => "uq",
            UV => "uv",
            Q => "q",
            HF => "hf",
            BF => "bf",
        }
    }

    /// Parse the text mnemonic, case-insensitively.
    pub fn from_text(s: &str) -> Option<DataType> {
        let l = s.to_ascii_lowercase();
        Self::ALL.iter().copied().find(|t| t.text() == l)
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// Minimum alignment of a general variable (var_info bit_properties bits 4-6,
/// file_scope_var_info bits 4-7). `Grf` means one GRF of the target platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Align {
    Byte,
    Word,
    Dword,
    Qword,
    Oword,
    Grf,
    Grf2,
    Hword,
    Word32,
    Word64,
}

impl Align {
    const ALL: [Align; 10] = [
        Align::Byte,
        Align::Word,
        Align::Dword,
        Align::Qword,
        Align::Oword,
        Align::Grf,
        Align::Grf2,
        Align::Hword,
        Align::Word32,
        Align::Word64,
    ];

    pub fn from_code(code: u8) -> Option<Align> {
        Self::ALL.get(code as usize).copied()
    }

    pub fn code(self) -> u8 {
        Self::ALL.iter().position(|a| *a == self).unwrap_or(0) as u8
    }

    /// Alignment in bytes for a platform whose GRF is `grf_bytes` wide.
    pub fn bytes(self, grf_bytes: u32) -> u32 {
        match self {
            Align::Byte => 1,
            Align::Word => 2,
            Align::Dword => 4,
            Align::Qword => 8,
            Align::Oword => 16,
            Align::Grf => grf_bytes,
            Align::Grf2 => 2 * grf_bytes,
            Align::Hword => 32,
            Align::Word32 => 64,
            Align::Word64 => 128,
        }
    }

    /// Text keyword used by `.decl ... align=` (IGC spelling).
    pub fn text(self) -> &'static str {
        match self {
            Align::Byte => "byte",
            Align::Word => "word",
            Align::Dword => "dword",
            Align::Qword => "qword",
            Align::Oword => "oword",
            Align::Grf => "GRF",
            Align::Grf2 => "GRFx2",
            Align::Hword => "hword",
            Align::Word32 => "wordx32",
            Align::Word64 => "wordx64",
        }
    }

    pub fn from_text(s: &str) -> Option<Align> {
        Self::ALL
            .iter()
            .copied()
            .find(|a| a.text().eq_ignore_ascii_case(s))
    }
}

/// Execution mask control: which 8-channel group of the execution mask an
/// instruction starts at (M1..M8 = offset 0, 4, ..., 28 channels; spec 3_execution_model),
/// and whether the mask is ignored (NoMask, `_NM`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MaskControl {
    /// 0 for M1 ... 7 for M8.
    pub group: u8,
    pub no_mask: bool,
}

impl MaskControl {
    pub const M1: MaskControl = MaskControl {
        group: 0,
        no_mask: false,
    };

    /// Offset into the execution mask in channels: M(n+1) starts at channel 4*n.
    pub fn channel_offset(self) -> u32 {
        4 * self.group as u32
    }
}

/// The Exec_size byte of an instruction: bits 0-2 size code, bits 4-7 mask control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExecSize {
    /// Number of channels: 1, 2, 4, 8, 16 or 32.
    pub size: u8,
    pub mask: MaskControl,
}

impl ExecSize {
    pub fn from_byte(b: u8) -> Option<ExecSize> {
        let size = match b & 0x7 {
            0 => 1,
            1 => 2,
            2 => 4,
            3 => 8,
            4 => 16,
            5 => 32,
            _ => return None,
        };
        if b & 0x8 != 0 {
            return None;
        }
        let m = b >> 4;
        Some(ExecSize {
            size,
            mask: MaskControl {
                group: m & 0x7,
                no_mask: m & 0x8 != 0,
            },
        })
    }

    pub fn to_byte(self) -> u8 {
        let code = self.size.trailing_zeros() as u8;
        code | (self.mask.group << 4) | if self.mask.no_mask { 0x80 } else { 0 }
    }
}

/// Source/destination modifier (vec_operand tag bits 3-5). Saturation is carried
/// as the destination's modifier in the binary form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Modifier {
    #[default]
    None = 0,
    Abs = 1,
    Neg = 2,
    NegAbs = 3,
    Sat = 4,
    Not = 5,
}

impl Modifier {
    pub fn from_code(c: u8) -> Option<Modifier> {
        Some(match c {
            0 => Modifier::None,
            1 => Modifier::Abs,
            2 => Modifier::Neg,
            3 => Modifier::NegAbs,
            4 => Modifier::Sat,
            5 => Modifier::Not,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_codes_round_trip() {
        for t in DataType::ALL {
            assert_eq!(DataType::from_code(t.code()), Some(t));
            assert_eq!(DataType::from_text(t.text()), Some(t));
        }
        assert_eq!(DataType::from_code(16), None);
    }

    #[test]
    fn exec_size_byte_round_trip() {
        for b in 0u8..=255 {
            if let Some(e) = ExecSize::from_byte(b) {
                assert_eq!(e.to_byte(), b);
            }
        }
        let e = ExecSize::from_byte(0x85).unwrap();
        assert_eq!((e.size, e.mask.no_mask, e.mask.group), (32, true, 0));
    }
}
