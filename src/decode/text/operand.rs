//! Operand syntax: vector operands of every class, raw operands, state operands.

use super::decls::Symbols;
use super::lex::{parse_int, Token};
use super::{err, ParseError};
use crate::ir::*;

/// Where a token sits, for errors.
#[derive(Clone, Copy)]
pub struct At {
    pub line: usize,
    pub column: usize,
}

impl At {
    pub fn of(line: usize, t: &Token) -> At {
        At {
            line,
            column: t.column,
        }
    }

    pub fn fail(self, expected: &str, found: &str) -> ParseError {
        err(self.line, self.column, expected, found)
    }
}

/// Split `NAME...` into the identifier and the rest.
fn ident(s: &str) -> (&str, &str) {
    let end = s
        .char_indices()
        .find(|(i, c)| !(c.is_ascii_alphanumeric() || *c == '_' || (*c == '%' && *i == 0)))
        .map_or(s.len(), |(i, _)| i);
    s.split_at(end)
}

/// `(r,c)` -> (r, c) and the rest.
fn row_col(s: &str, at: At) -> Result<((u8, u8), &str), ParseError> {
    let Some(body) = s.strip_prefix('(') else {
        return Ok(((0, 0), s));
    };
    let close = body.find(')').ok_or_else(|| at.fail("`(row,col)`", s))?;
    let (inner, rest) = body.split_at(close);
    let nums: Vec<&str> = inner.split(',').map(str::trim).collect();
    let num = |x: &str| -> Result<u8, ParseError> {
        parse_int(x)
            .and_then(|v| u8::try_from(v).ok())
            .ok_or_else(|| at.fail("a row/column offset 0..=255", x))
    };
    match nums.as_slice() {
        [r, c] => Ok(((num(r)?, num(c)?), &rest[1..])),
        [c] => Ok(((0, num(c)?), &rest[1..])),
        _ => Err(at.fail("`(row,col)`", s)),
    }
}

fn region_param(x: &str, at: At) -> Result<u8, ParseError> {
    parse_int(x.trim())
        .and_then(|v| u8::try_from(v).ok())
        .ok_or_else(|| at.fail("a region stride or width", x))
}

/// `<vs;w,hs>`, `<w,hs>` (multi-address: Null vstride) or `<hs>`.
fn region(s: &str, at: At) -> Result<(Region, &str), ParseError> {
    let body = s
        .strip_prefix('<')
        .ok_or_else(|| at.fail("a region `<...>`", s))?;
    let close = body
        .find('>')
        .ok_or_else(|| at.fail("`>` closing the region", s))?;
    let (inner, rest) = body.split_at(close);
    let rest = &rest[1..];
    let r = if let Some((vs, wh)) = inner.split_once(';') {
        let (w, hs) = wh
            .split_once(',')
            .ok_or_else(|| at.fail("`<vs;w,hs>`", s))?;
        Region {
            vstride: if vs.trim().is_empty() {
                None
            } else {
                Some(region_param(vs, at)?)
            },
            width: Some(region_param(w, at)?),
            hstride: Some(region_param(hs, at)?),
        }
    } else if let Some((w, hs)) = inner.split_once(',') {
        Region {
            vstride: None,
            width: Some(region_param(w, at)?),
            hstride: Some(region_param(hs, at)?),
        }
    } else {
        Region {
            vstride: None,
            width: None,
            hstride: Some(region_param(inner, at)?),
        }
    };
    Ok((r, rest))
}

fn modifier(s: &str) -> (Modifier, &str) {
    for (p, m) in [
        ("(-abs)", Modifier::NegAbs),
        ("(abs)", Modifier::Abs),
        ("(-)", Modifier::Neg),
        ("(~)", Modifier::Not),
    ] {
        if let Some(rest) = s.strip_prefix(p) {
            return (m, rest);
        }
    }
    (Modifier::None, s)
}

/// `value:type`. Hex is the raw bit pattern (floats included); decimal integers are
/// two's complement; decimal floats are converted.
pub fn immediate(s: &str, at: At) -> Result<VecOperand, ParseError> {
    let (v, t) = s
        .rsplit_once(':')
        .ok_or_else(|| at.fail("an immediate `value:type`", s))?;
    let ty = DataType::from_text(t).ok_or_else(|| at.fail("an immediate type", t))?;
    let bits = if let Some(i) = parse_int(v) {
        if i < 0 {
            let mask = if ty.size() >= 8 {
                u64::MAX
            } else {
                (1u64 << (8 * ty.size().max(4))) - 1
            };
            (i as i64 as u64) & mask
        } else {
            u64::try_from(i).map_err(|_| at.fail("an immediate that fits 64 bits", v))?
        }
    } else if let Ok(f) = v.parse::<f64>() {
        match ty {
            DataType::F => (f as f32).to_bits() as u64,
            DataType::DF => f.to_bits(),
            DataType::HF => half::f16::from_f64(f).to_bits() as u64,
            DataType::BF => half::bf16::from_f64(f).to_bits() as u64,
            _ => return Err(at.fail("an integer for an integer-typed immediate", v)),
        }
    } else {
        return Err(at.fail("a number", v));
    };
    Ok(VecOperand::Immediate { ty, bits })
}

/// A vector operand. `dst` selects the destination region form `<hs>`.
pub fn vec_operand(tok: &str, dst: bool, sym: &Symbols, at: At) -> Result<VecOperand, ParseError> {
    let (modifier, s) = modifier(tok);
    if s.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.') {
        return immediate(s, at);
    }
    if let Some(body) = s.strip_prefix("r[") {
        return indirect(body, dst, modifier, sym, at);
    }
    if let Some(name) = s.strip_prefix('&') {
        // addr_add's "address of V": a general operand whose value is V's address.
        let (n, rest) = ident(name);
        let var = *sym
            .vars
            .get(n)
            .ok_or_else(|| at.fail("a declared variable after `&`", n))?;
        let ((row, col), _) = row_col(rest, at)?;
        return Ok(VecOperand::General {
            var,
            row,
            col,
            region: Region::SCALAR,
            modifier,
        });
    }
    let (name, rest) = ident(s);
    if let Some(&var) = sym.vars.get(name) {
        let ((row, col), rest) = row_col(rest, at)?;
        let (mut region, rest) = if rest.is_empty() {
            (Region::SCALAR, rest)
        } else {
            region(rest, at)?
        };
        if !rest.is_empty() {
            return Err(at.fail("end of operand", rest));
        }
        if dst {
            // A destination has only a horizontal stride (`<hs>`), as indirect ones
            // below: what else a region gives is not kept (the printer writes `<hs>`;
            // cargo fuzz found `<0;1,0>` on a destination that did not round-trip).
            region = Region {
                vstride: None,
                width: None,
                hstride: region.hstride,
            };
        }
        return Ok(VecOperand::General {
            var,
            row,
            col,
            region,
            modifier,
        });
    }
    if let Some(p) = predicate_ref(s, sym) {
        return Ok(VecOperand::Predicate(p));
    }
    if let Some(&addr) = sym.addrs.get(name) {
        let ((_, offset), rest) = row_col(rest, at)?;
        let width = match rest.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
            Some(w) => region_param(w, at)?,
            None => 1,
        };
        return Ok(VecOperand::Address {
            addr,
            offset,
            width,
        });
    }
    if let Some((class, id)) = state_ref(name, sym) {
        let ((_, offset), _) = row_col(rest, at)?;
        return Ok(VecOperand::State { class, id, offset });
    }
    Err(at.fail(
        "a declared variable, predicate, address, surface or immediate",
        tok,
    ))
}

/// `P1`, `!P1`, `P1.any` as a predicate value.
fn predicate_ref(s: &str, sym: &Symbols) -> Option<Predicate> {
    let (inverse, s) = match s.strip_prefix('!') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (name, combine) = match s.split_once('.') {
        Some((n, "any")) => (n, PredCombine::Any),
        Some((n, "all")) => (n, PredCombine::All),
        Some(_) => return None,
        None => (s, PredCombine::Sequential),
    };
    let id = *sym.preds.get(name)?;
    Some(Predicate {
        id,
        combine,
        inverse,
    })
}

/// The instruction predicate `(P1)`, `(!P1)`, `(P1.any)`.
pub fn predicate_prefix(tok: &str, sym: &Symbols, at: At) -> Result<Predicate, ParseError> {
    let inner = tok
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .ok_or_else(|| at.fail("a predicate `(P1)`", tok))?;
    predicate_ref(inner.trim(), sym).ok_or_else(|| at.fail("a declared predicate", inner))
}

fn state_ref(name: &str, sym: &Symbols) -> Option<(StateClass, StateId)> {
    if let Some(&id) = sym.surfaces.get(name) {
        return Some((StateClass::Surface, id));
    }
    if let Some(&id) = sym.samplers.get(name) {
        return Some((StateClass::Sampler, id));
    }
    // `T5`/`S0` by number when not declared under that name.
    let num = |p: &str| name.strip_prefix(p).and_then(|n| n.parse::<u16>().ok());
    if let Some(n) = num("T") {
        return Some((StateClass::Surface, StateId(n)));
    }
    None
}

/// A surface field: `T6`, `%slm`, `%bss`.
pub fn surface(tok: &str, sym: &Symbols, at: At) -> Result<StateId, ParseError> {
    match state_ref(tok, sym) {
        Some((StateClass::Surface, id)) => Ok(id),
        _ => Err(at.fail("a surface (`T6`, `%slm`)", tok)),
    }
}

pub fn sampler(tok: &str, sym: &Symbols, at: At) -> Result<StateId, ParseError> {
    sym.samplers
        .get(tok)
        .copied()
        .ok_or_else(|| at.fail("a declared sampler", tok))
}

/// `r[A0(0),8]<...>:type`.
fn indirect(
    body: &str,
    dst: bool,
    modifier: Modifier,
    sym: &Symbols,
    at: At,
) -> Result<VecOperand, ParseError> {
    let close = body
        .find(']')
        .ok_or_else(|| at.fail("`]` closing `r[`", body))?;
    let (inside, rest) = body.split_at(close);
    let rest = &rest[1..];
    let (a, off) = inside.split_once(',').unwrap_or((inside, "0"));
    let (aname, arest) = ident(a.trim());
    let addr = *sym
        .addrs
        .get(aname)
        .ok_or_else(|| at.fail("a declared address variable", aname))?;
    let ((_, addr_offset), _) = row_col(arest, at)?;
    let imm_offset = parse_int(off.trim())
        .and_then(|v| i16::try_from(v).ok())
        .ok_or_else(|| at.fail("an indirect byte offset", off))?;
    let (mut region, rest) = region(rest, at)?;
    if dst {
        region = Region {
            vstride: None,
            width: None,
            hstride: region.hstride,
        };
    }
    let t = rest
        .strip_prefix(':')
        .ok_or_else(|| at.fail("`:type` after an indirect operand", rest))?;
    let ty = DataType::from_text(t).ok_or_else(|| at.fail("a type", t))?;
    Ok(VecOperand::Indirect {
        addr,
        addr_offset,
        imm_offset,
        ty,
        region,
        modifier,
    })
}

/// A raw operand `V.off` (or `V`, offset 0).
pub fn raw(tok: &str, sym: &Symbols, at: At) -> Result<RawOperand, ParseError> {
    let (name, rest) = ident(tok);
    let var = *sym
        .vars
        .get(name)
        .ok_or_else(|| at.fail("a declared variable (raw operand)", tok))?;
    let offset = match rest.strip_prefix('.') {
        Some(o) => parse_int(o)
            .and_then(|v| u16::try_from(v).ok())
            .ok_or_else(|| at.fail("a raw operand byte offset", o))?,
        None if rest.is_empty() => 0,
        None => return Err(at.fail("`V.offset`", tok)),
    };
    Ok(RawOperand { var, offset })
}
