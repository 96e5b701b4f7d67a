//! Source modifiers (5_operands: abs, neg, neg-abs, not) and packed immediates
//! (2_datatypes: V, UV, VF).

use super::convert::{int_value, int_width, mask};
use super::types::Val;
use crate::ir::{DataType, Modifier};

/// Apply a source modifier to one element.
///
/// Floats: abs/neg act on the sign bit only (NaN payloads are kept). Integers:
/// abs/neg are two's complement in the source type and wrap (`-(-2^31):d` is
/// `-2^31`; `-x:ud` is `2^32 - x`), so the element keeps its type. `not` is bitwise
/// in the source type (BOOL: one bit). `Sat` and `None` leave the element unchanged.
#[inline]
pub fn apply_src_modifier(v: Val, m: Modifier) -> Val {
    match m {
        Modifier::None | Modifier::Sat => v,
        Modifier::Not => Val {
            ty: v.ty,
            bits: !v.bits & mask(elem_width(v.ty)),
        },
        Modifier::Abs | Modifier::Neg | Modifier::NegAbs => {
            if let Some(sign) = sign_bit(v.ty) {
                let bits = match m {
                    Modifier::Abs => v.bits & !sign,
                    Modifier::Neg => v.bits ^ sign,
                    _ => v.bits | sign,
                };
                return Val { ty: v.ty, bits };
            }
            let x = int_value(v);
            let r = match m {
                Modifier::Abs => x.abs(),
                Modifier::Neg => -x,
                _ => -x.abs(),
            };
            Val {
                ty: v.ty,
                bits: (r as u64) & mask(int_width(v.ty)),
            }
        }
    }
}

fn elem_width(ty: DataType) -> u32 {
    match ty {
        DataType::Bool => 1,
        t => 8 * t.size(),
    }
}

/// The sign bit of a float type.
#[inline]
fn sign_bit(ty: DataType) -> Option<u64> {
    match ty {
        DataType::DF => Some(1 << 63),
        DataType::F | DataType::VF => Some(1 << 31),
        DataType::HF | DataType::BF => Some(1 << 15),
        _ => None,
    }
}

/// Element `lane` (taken modulo the element count) of a packed immediate: V gives a
/// W (signed nibble), UV a UW (unsigned nibble), VF an F (restricted 8-bit float:
/// sign, 3-bit exponent with bias 3, 4-bit mantissa; 0x00/0x80 are +0/-0). Any other
/// type is returned as it is.
#[inline]
pub fn unpack_immediate(ty: DataType, bits: u32, lane: u32) -> Val {
    match ty {
        DataType::V => {
            let n = ((bits >> (4 * (lane % 8))) & 0xf) as u8;
            let v = ((n << 4) as i8) >> 4;
            Val::new(DataType::W, v as i16 as u16 as u64)
        }
        DataType::UV => Val::new(DataType::UW, ((bits >> (4 * (lane % 8))) & 0xf) as u64),
        DataType::VF => {
            let b = (bits >> (8 * (lane % 4))) & 0xff;
            Val::new(DataType::F, vf_to_f32_bits(b as u8) as u64)
        }
        _ => Val::new(ty, bits as u64),
    }
}

/// The F bits of a restricted float: exponent e (bias 3) becomes e + 124 (bias 127).
#[inline]
fn vf_to_f32_bits(b: u8) -> u32 {
    let sign = ((b & 0x80) as u32) << 24;
    if b & 0x7f == 0 {
        return sign;
    }
    let e = ((b >> 4) & 7) as u32;
    let m = (b & 0xf) as u32;
    sign | ((e + 124) << 23) | (m << 19)
}
