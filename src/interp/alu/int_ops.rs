//! Integer semantics. Sources are read as their typed values (sign- or
//! zero-extended), the operation is computed in i128 -- the spec's "extra
//! precision" -- and the result is stored in the destination type by truncation, or
//! by the saturation table with `.sat` (2_datatypes).

use super::convert::{int_to_int, int_value, int_width, mask};
use super::types::{AluOp, AluOut, Val};
use crate::ir::DataType;

#[inline]
fn add(a: i128, b: i128, sat: bool) -> i128 {
    if sat {
        a.saturating_add(b)
    } else {
        a.wrapping_add(b)
    }
}

/// Products of two 64-bit values can pass i128's range (UQ x UQ): saturating keeps
/// the clamp right, wrapping keeps the low 64 bits right.
#[inline]
fn mul(a: i128, b: i128, sat: bool) -> i128 {
    if sat {
        a.saturating_mul(b)
    } else {
        a.wrapping_mul(b)
    }
}

/// ADD, MUL, MAD on integers (mixed types allowed: `mul d x uw`, `mul q = d x d`).
#[inline]
pub fn arith(op: AluOp, dst: DataType, s: &[Val], sat: bool) -> u64 {
    let a = int_value(s[0]);
    let b = int_value(s[1]);
    let r = match op {
        AluOp::Add => add(a, b, sat),
        AluOp::Mul => mul(a, b, sat),
        _ => add(mul(a, b, sat), int_value(s[2]), sat),
    };
    int_to_int(r, dst, sat)
}

/// MIN/MAX on integers: the typed values compare.
#[inline]
pub fn min_max(max: bool, dst: DataType, s: &[Val], sat: bool) -> u64 {
    let (a, b) = (int_value(s[0]), int_value(s[1]));
    int_to_int(if max { a.max(b) } else { a.min(b) }, dst, sat)
}

/// DIV/MOD on integers: truncating division, so the quotient's sign is the product
/// of the signs and the remainder takes the numerator's (the DIV page's table).
/// INT_MIN / -1 is 2^31 in extra precision: truncated back to INT_MIN, or INT_MAX
/// with `.sat`. The spec leaves division by zero undefined; this gives the quotient
/// all ones and the remainder the numerator, as Gen's integer divide does.
#[inline]
pub fn div_mod(modulo: bool, dst: DataType, s: &[Val], sat: bool) -> u64 {
    let (a, b) = (int_value(s[0]), int_value(s[1]));
    if b == 0 {
        return if modulo {
            int_to_int(a, dst, sat)
        } else {
            mask(int_width(dst))
        };
    }
    int_to_int(if modulo { a % b } else { a / b }, dst, sat)
}

/// AND, OR, XOR, NOT: on the typed values (sign-extended), truncated to the
/// destination; BOOL operands are single bits.
#[inline]
pub fn logic(op: AluOp, dst: DataType, s: &[Val]) -> u64 {
    let a = int_value(s[0]);
    let r = match op {
        AluOp::Not => !a,
        AluOp::And => a & int_value(s[1]),
        AluOp::Or => a | int_value(s[1]),
        _ => a ^ int_value(s[1]),
    };
    int_to_int(r, dst, false)
}

/// The shift count's mask: 5 bits, or 6 when the destination or src0 is 64-bit
/// (SHL/SHR/ASR notes; a Q source shifted into a D, as IGC does to take a high
/// half, needs the 6-bit count).
#[inline]
fn shift_count(dst: DataType, src0: DataType, count: Val) -> u32 {
    let m = if int_width(dst) == 64 || int_width(src0) == 64 {
        63
    } else {
        31
    };
    (count.bits as u32) & m
}

/// The raw bits of an element, limited to its width (the unsigned view).
#[inline]
fn raw(v: Val) -> u64 {
    v.bits & mask(int_width(v.ty))
}

pub fn expected_types(op: AluOp) -> &'static str {
    use AluOp::*;
    match op {
        Mulh | Madw | Bfe | Bfi | Dp4a => "D or UD operands",
        Addc | Subb | Bfrev | Fbl | Lzd => "UD operands",
        Add3 | Add3o | Bfn(_) => "D, UD, W or UW operands",
        Sad2 | Sad2add => "B or UB sources and a W or UW destination",
        Rol | Ror => "D, UD, W, UW, Q or UQ operands",
        _ => "integer operands",
    }
}

#[inline]
fn is32(t: DataType) -> bool {
    matches!(t, DataType::D | DataType::UD)
}

#[inline]
fn all(s: &[Val], f: impl Fn(DataType) -> bool) -> bool {
    s.iter().all(|v| f(v.ty))
}

/// The remaining integer operations; `None` when the page does not allow the types.
pub fn exec_int(op: AluOp, dst: DataType, s: &[Val], sat: bool) -> Option<AluOut> {
    use AluOp::*;
    let one = |x: u64| Some(AluOut::bits(x));
    match op {
        Avg => {
            let r = (int_value(s[0]) + int_value(s[1]) + 1) >> 1;
            one(int_to_int(r, dst, sat))
        }
        Mod => one(div_mod(true, dst, s, sat)),
        Mulh => {
            if !(is32(dst) && all(s, is32)) {
                return None;
            }
            let p = int_value(s[0]) * int_value(s[1]);
            one(int_to_int(p >> 32, dst, false))
        }
        Madw => {
            if !(is32(dst) && all(s, is32)) {
                return None;
            }
            let r = int_value(s[0]) * int_value(s[1]) + int_value(s[2]);
            Some(AluOut {
                dst: (r as u64) & 0xffff_ffff,
                extra: ((r >> 32) as u64) & 0xffff_ffff,
            })
        }
        Addc => {
            if !(dst == DataType::UD && all(s, |t| t == DataType::UD)) {
                return None;
            }
            let r = raw(s[0]) + raw(s[1]);
            Some(AluOut {
                dst: r & 0xffff_ffff,
                extra: r >> 32,
            })
        }
        Subb => {
            if !(dst == DataType::UD && all(s, |t| t == DataType::UD)) {
                return None;
            }
            let (a, b) = (raw(s[0]), raw(s[1]));
            Some(AluOut {
                dst: a.wrapping_sub(b) & 0xffff_ffff,
                extra: (a < b) as u64,
            })
        }
        Add3 | Add3o => {
            let ok =
                |t: DataType| matches!(t, DataType::D | DataType::UD | DataType::W | DataType::UW);
            if !(ok(dst) && all(s, ok)) {
                return None;
            }
            let r = int_value(s[0]) + int_value(s[1]) + int_value(s[2]);
            if op == Add3o {
                let (lo, hi) = super::convert::int_range(dst);
                return Some(AluOut {
                    dst: int_to_int(r, dst, false),
                    extra: (r < lo || r > hi) as u64,
                });
            }
            one(int_to_int(r, dst, sat))
        }
        Shl => {
            let n = shift_count(dst, s[0].ty, s[1]);
            one(int_to_int(int_value(s[0]).wrapping_shl(n), dst, sat))
        }
        Shr => {
            // Logical: the unsigned view of src0 in its own width.
            let n = shift_count(dst, s[0].ty, s[1]);
            one(int_to_int((raw(s[0]) >> n) as i128, dst, sat))
        }
        Asr => {
            let n = shift_count(dst, s[0].ty, s[1]);
            one(int_to_int(int_value(s[0]) >> n, dst, sat))
        }
        Rol | Ror => {
            let w = int_width(s[0].ty);
            if w < 16 {
                return None;
            }
            let x = raw(s[0]);
            let n = (s[1].bits as u32) & (w - 1);
            let r = if n == 0 {
                x
            } else if op == Rol {
                (x << n | x >> (w - n)) & mask(w)
            } else {
                (x >> n | x << (w - n)) & mask(w)
            };
            one(int_to_int(int_value(Val::new(s[0].ty, r)), dst, false))
        }
        Cbit => one(int_to_int(raw(s[0]).count_ones() as i128, dst, false)),
        Fbl => {
            let x = s[0].bits as u32;
            let r = if x == 0 { u32::MAX } else { x.trailing_zeros() };
            one(int_to_int(r as i128, dst, false))
        }
        Fbh => {
            let x = s[0].bits as u32;
            let r = if s[0].ty.is_signed_int() {
                if x == 0 || x == u32::MAX {
                    u32::MAX
                } else if (x as i32) < 0 {
                    x.leading_ones()
                } else {
                    x.leading_zeros()
                }
            } else if x == 0 {
                u32::MAX
            } else {
                x.leading_zeros()
            };
            one(int_to_int(r as i128, dst, false))
        }
        Lzd => one(int_to_int(
            (s[0].bits as u32).leading_zeros() as i128,
            dst,
            sat,
        )),
        Bfrev => one(int_to_int(
            (s[0].bits as u32).reverse_bits() as i128,
            dst,
            false,
        )),
        Bfe => {
            if !(is32(dst) && all(s, is32)) {
                return None;
            }
            let w = (s[0].bits as u32) & 0x1f;
            let off = (s[1].bits as u32) & 0x1f;
            let field = ((s[2].bits as u32) >> off) & (mask(w) as u32);
            // D destinations get the field sign-extended.
            let r = if dst == DataType::D && w > 0 {
                ((field << (32 - w)) as i32 >> (32 - w)) as i128
            } else {
                field as i128
            };
            one(int_to_int(r, dst, false))
        }
        Bfi => {
            if !(is32(dst) && all(s, is32)) {
                return None;
            }
            let w = (s[0].bits as u32) & 0x1f;
            let off = (s[1].bits as u32) & 0x1f;
            let bitmask = (mask(w) as u32) << off;
            let r = (((s[2].bits as u32) << off) & bitmask) | ((s[3].bits as u32) & !bitmask);
            one(int_to_int(r as i128, dst, false))
        }
        Bfn(ctrl) => {
            let ok =
                |t: DataType| matches!(t, DataType::D | DataType::UD | DataType::W | DataType::UW);
            if !(ok(dst) && all(s, ok)) {
                return None;
            }
            let (x, y, z) = (s[0].bits, s[1].bits, s[2].bits);
            // Per bit: index = src0 + 2*src1 + 4*src2 into the 8-entry table.
            let mut r = 0u64;
            for k in 0..8u32 {
                if (ctrl >> k) & 1 == 0 {
                    continue;
                }
                let px = if k & 1 != 0 { x } else { !x };
                let py = if k & 2 != 0 { y } else { !y };
                let pz = if k & 4 != 0 { z } else { !z };
                r |= px & py & pz;
            }
            one(r & mask(int_width(dst)))
        }
        Dp4a => {
            if !(is32(dst) && all(s, is32)) {
                return None;
            }
            let byte = |v: Val, k: u32| -> i128 {
                let b = ((v.bits >> (8 * k)) & 0xff) as u8;
                if v.ty == DataType::D {
                    b as i8 as i128
                } else {
                    b as i128
                }
            };
            let mut acc = int_value(s[0]);
            for k in 0..4 {
                acc += byte(s[1], k) * byte(s[2], k);
            }
            one(int_to_int(acc, dst, sat))
        }
        Sad2 | Sad2add => {
            let bytes = |t: DataType| matches!(t, DataType::B | DataType::UB);
            if !(matches!(dst, DataType::W | DataType::UW) && all(&s[..4], bytes)) {
                return None;
            }
            let d0 = (int_value(s[0]) - int_value(s[1])).abs();
            let d1 = (int_value(s[2]) - int_value(s[3])).abs();
            let acc = if op == Sad2add { int_value(s[4]) } else { 0 };
            one(int_to_int(d0 + d1 + acc, dst, sat))
        }
        _ => None,
    }
}
