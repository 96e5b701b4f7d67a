//! The 32-bit form of integer instructions whose result only needs its low 32 bits.
//!
//! The general path computes integers in i64 (the spec's extra precision) and then
//! converts to the destination. When every source and the destination are integers of
//! at most 32 bits, the destination is not saturated and the operation is one whose low
//! 32 bits depend only on the operands' low 32 bits (sums, products, bitwise ops,
//! left shifts; right shifts and compares by their sources' signedness), computing in
//! wrapping u32/i32 gives the same bits. It matters on every device without cheap
//! 64-bit integers (two registers per value, no 64-bit vector multiply on a CPU
//! driver) and most where SHADER_INT64 is absent: there every i64 operation becomes a
//! call into the u32-pair library.

use super::operand::Elem;
use crate::ir::{DataType, Modifier};
use crate::isa::Opcode;

/// Integer types the 32-bit form takes (sources and destination).
fn narrow_int(t: DataType) -> bool {
    use DataType::*;
    matches!(t, B | UB | W | UW | D | UD)
}

/// A source's value as a `u32`: extended from its type (by its signedness) to 32
/// bits, with its modifier applied, exactly the low 32 bits of the general path's
/// `num(e)`.
fn value32(e: &Elem) -> String {
    let raw = match e.m {
        Modifier::Not => format!("(~u32({}))", e.raw),
        _ => format!("u32({})", e.raw),
    };
    let bits = 8 * e.ty.size();
    let ext = match (bits, e.ty.is_signed_int()) {
        (32, _) => raw,
        (b, true) => format!("u32(i32({raw} << {s}u) >> {s}u)", s = 32 - b),
        (b, false) => format!("({raw} & {}u)", (1u64 << b) - 1),
    };
    // abs of a value zero-extended from an unsigned type is the value itself.
    let abs = |x: &str| {
        if e.ty.is_signed_int() {
            format!("u32(abs(i32({x})))")
        } else {
            x.to_string()
        }
    };
    match e.m {
        Modifier::Neg => format!("(0u - {ext})"),
        Modifier::Abs => abs(&ext),
        Modifier::NegAbs => format!("(0u - {})", abs(&ext)),
        _ => ext,
    }
}

/// Whether the general path's i64 value of `e` is `value32(e)` read as an i32
/// (`signed`) or as a u32: where compares and arithmetic right shifts may use it.
fn exact32(e: &Elem, signed: bool) -> bool {
    let plain = matches!(e.m, Modifier::None | Modifier::Not);
    match (signed, e.ty.is_signed_int(), e.ty.size()) {
        // 8- and 16-bit values stay far inside i32 whatever the modifier.
        (true, _, s) if s < 4 => true,
        // -(-2^31) and abs(-2^31) are 2^31, outside i32.
        (true, true, _) => plain,
        (true, false, _) => false,
        // A signed value may be negative; a negated unsigned one too.
        (false, true, _) => false,
        (false, false, _) => plain || e.m == Modifier::Abs,
    }
}

/// The relation codes of `cmp` (the runtime's `rel_i`).
fn rel(code: u64) -> Option<&'static str> {
    Some(match code {
        0 => "==",
        1 => "!=",
        2 => ">",
        3 => ">=",
        4 => "<",
        5 => "<=",
        _ => return None,
    })
}

/// The element's `v` (destination bits as `u64`, or cmp's 0/1) when the instruction
/// has a 32-bit form, else `None` (the general path handles it).
pub fn element(op: Opcode, dty: DataType, sat: bool, e: &[Elem], ints: &[u64]) -> Option<String> {
    use Opcode::*;
    if e.is_empty() || !e.iter().all(|x| narrow_int(x.ty)) {
        return None;
    }
    if op == Cmp {
        // Compared as i32 or u32 when both values are exact in that view.
        let r = rel(ints.first().copied().unwrap_or(0))?;
        let (a, b) = (e.first()?, e.get(1)?);
        let (x, y) = (value32(a), value32(b));
        return if exact32(a, true) && exact32(b, true) {
            Some(format!("select(0lu, 1lu, i32({x}) {r} i32({y}))"))
        } else if exact32(a, false) && exact32(b, false) {
            Some(format!("select(0lu, 1lu, {x} {r} {y})"))
        } else {
            None
        };
    }
    if sat || !narrow_int(dty) {
        return None;
    }
    let v = |k: usize| e.get(k).map(value32);
    let count = || v(1).map(|c| format!("({c} & 31u)"));
    let r = match op {
        Mov => v(0)?,
        Add => format!("({} + {})", v(0)?, v(1)?),
        Add3 => format!("({} + {} + {})", v(0)?, v(1)?, v(2)?),
        Mul => format!("({} * {})", v(0)?, v(1)?),
        Mad => format!("({} * {} + {})", v(0)?, v(1)?, v(2)?),
        And => format!("({} & {})", v(0)?, v(1)?),
        Or => format!("({} | {})", v(0)?, v(1)?),
        Xor => format!("({} ^ {})", v(0)?, v(1)?),
        Not => format!("(~{})", v(0)?),
        Shl => format!("({} << {})", v(0)?, count()?),
        // shr works on the raw bits of the source's type, modifiers aside.
        Shr => {
            let bits = 8 * e[0].ty.size();
            let raw = if bits == 32 {
                format!("u32({})", e[0].raw)
            } else {
                format!("(u32({}) & {}u)", e[0].raw, (1u64 << bits) - 1)
            };
            format!("({raw} >> {})", count()?)
        }
        MinMax => {
            let f = if ints.first() == Some(&1) {
                "max"
            } else {
                "min"
            };
            let (a, b) = (e.first()?, e.get(1)?);
            if exact32(a, true) && exact32(b, true) {
                format!("u32({f}(i32({}), i32({})))", value32(a), value32(b))
            } else if exact32(a, false) && exact32(b, false) {
                format!("{f}({}, {})", value32(a), value32(b))
            } else {
                return None;
            }
        }
        // The shift of the extended value: i32's when that is exact, a logical one
        // for a non-negative value that needs all 32 bits.
        Asr if exact32(&e[0], true) => format!("u32(i32({}) >> {})", v(0)?, count()?),
        Asr if exact32(&e[0], false) => format!("({} >> {})", v(0)?, count()?),
        _ => return None,
    };
    let bits = 8 * dty.size();
    Some(if bits == 32 {
        format!("u64({r})")
    } else {
        format!("u64({r} & {}u)", (1u64 << bits) - 1)
    })
}
