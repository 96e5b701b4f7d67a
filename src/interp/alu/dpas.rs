//! DPAS: the systolic matrix multiply-add `D = C + A x B` (DPAS page), over whole
//! operands rather than one element.
//!
//! Layout, as the page's pseudo-code: a "GRF row" is `exec_size` dwords. Dst and
//! Src0 (C) hold RC rows; Src1 (B) holds, in dword i of row m, the operands of
//! column i for the depths that share row m; Src2 (A) is a flat array of
//! elements of precision A, `SD * OPS_PER_CHAN` of them per repeat. Integer DPAS
//! accumulates in 32 bits (wrapping). Float DPAS (bf/hf/tf32) is not specified
//! bit-exactly by the page; this model computes each stage's dot product exactly
//! and adds it to the F accumulator with one rounding to nearest even, then stores
//! the accumulator in the destination type (RNE).

use super::float::{self, exact_sum, Fmt};
use super::types::{AluError, TypeList, Val};
use crate::ir::DataType;

/// Operand precision of Src1 (W) and Src2 (A), with the page's binary codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    U1 = 1,
    S1 = 2,
    U2 = 3,
    S2 = 4,
    U4 = 5,
    S4 = 6,
    U8 = 7,
    S8 = 8,
    Bf = 9,
    Hf = 10,
    Tf32 = 11,
}

impl Precision {
    pub fn from_code(c: u64) -> Option<Precision> {
        use Precision::*;
        Some(match c {
            1 => U1,
            2 => S1,
            3 => U2,
            4 => S2,
            5 => U4,
            6 => S4,
            7 => U8,
            8 => S8,
            9 => Bf,
            10 => Hf,
            11 => Tf32,
            _ => return None,
        })
    }

    pub fn bits(self) -> u32 {
        use Precision::*;
        match self {
            U1 | S1 => 1,
            U2 | S2 => 2,
            U4 | S4 => 4,
            U8 | S8 => 8,
            Bf | Hf => 16,
            Tf32 => 32,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Precision::Bf | Precision::Hf | Precision::Tf32)
    }

    fn signed(self) -> bool {
        use Precision::*;
        matches!(self, S1 | S2 | S4 | S8)
    }

    /// The value of a raw element of this precision.
    fn value(self, raw: u32) -> f64 {
        match self {
            Precision::Bf => float::decode(Fmt::Bf, raw as u64),
            Precision::Hf => float::decode(Fmt::Hf, raw as u64),
            // TF32 is an F whose low 13 mantissa bits are ignored.
            Precision::Tf32 => float::decode(Fmt::F, (raw & 0xffff_e000) as u64),
            _ => self.int(raw) as f64,
        }
    }

    fn int(self, raw: u32) -> i64 {
        let b = self.bits();
        let raw = raw as i64 & ((1i64 << b) - 1);
        if self.signed() && raw >> (b - 1) != 0 {
            raw - (1i64 << b)
        } else {
            raw
        }
    }
}

/// The shape of one DPAS instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DpasShape {
    /// Src1's precision (W).
    pub w: Precision,
    /// Src2's precision (A).
    pub a: Precision,
    /// Systolic depth SD: 1, 2, 4 or 8.
    pub depth: u32,
    /// Repeat count RC: 1 to 8.
    pub repeat: u32,
    /// 8 (pre-PVC) or 16 (PVC).
    pub exec_size: u32,
}

impl DpasShape {
    pub fn ops_per_chan(&self) -> u32 {
        if self.w.is_float() {
            32 / self.w.bits()
        } else if self.w.bits() == 8 || self.a.bits() == 8 {
            4
        } else {
            8
        }
    }

    /// Bytes of each operand that the instruction reads: (src0, src1, src2).
    pub fn operand_bytes(&self) -> (usize, usize, usize) {
        let row = 4 * self.exec_size as usize;
        let ops = self.ops_per_chan();
        let src1_per_chan = (32 / (ops * self.w.bits())).max(1);
        let src1_rows = self.depth.div_ceil(src1_per_chan) as usize;
        let a_elems = (self.repeat * self.depth * ops) as usize;
        let a_bytes = (a_elems * self.a.bits() as usize).div_ceil(8);
        (self.repeat as usize * row, src1_rows * row, a_bytes)
    }
}

fn err(dst: DataType, src0: DataType, expected: &'static str) -> AluError {
    AluError::Types {
        op: "dpas",
        dst,
        srcs: TypeList::of(&[Val::new(src0, 0)]),
        expected,
    }
}

/// Element `idx` of precision `p` from a little-endian packed byte array.
fn element(bytes: &[u8], idx: usize, p: Precision) -> u32 {
    let bits = p.bits() as usize;
    let first = idx * bits;
    let mut v = 0u64;
    for k in 0..bits.div_ceil(8) + 1 {
        let byte = bytes.get(first / 8 + k).copied().unwrap_or(0) as u64;
        v |= byte << (8 * k);
    }
    ((v >> (first % 8)) & ((1u64 << bits) - 1)) as u32
}

fn dword(bytes: &[u8], i: usize) -> u32 {
    let mut b = [0u8; 4];
    if let Some(s) = bytes.get(4 * i..4 * i + 4) {
        b.copy_from_slice(s);
    }
    u32::from_le_bytes(b)
}

/// The DPAS page's rules for one instruction: precisions, accumulator types (`src0`:
/// Src0's type, `None` for a null accumulator), SD, RC and execution size.
pub fn check(shape: DpasShape, dst: DataType, src0: Option<DataType>) -> Result<(), AluError> {
    let s0ty = src0.unwrap_or(dst);
    let float = shape.w.is_float();
    if float != shape.a.is_float() || (float && shape.w != shape.a) {
        return Err(err(
            dst,
            s0ty,
            "both precisions integer, or the same bf/hf/tf32",
        ));
    }
    let ok_types = if float {
        let acc = |t: DataType| match shape.w {
            Precision::Bf => matches!(t, DataType::F | DataType::BF),
            Precision::Hf => matches!(t, DataType::F | DataType::HF),
            _ => t == DataType::F,
        };
        acc(dst) && acc(s0ty)
    } else {
        let int = |t: DataType| matches!(t, DataType::D | DataType::UD);
        int(dst) && int(s0ty)
    };
    if !ok_types {
        return Err(err(dst, s0ty, "the DPAS page's legal type combinations"));
    }
    if !matches!(shape.depth, 1 | 2 | 4 | 8)
        || !(1..=8).contains(&shape.repeat)
        || !matches!(shape.exec_size, 8 | 16)
    {
        return Err(err(dst, s0ty, "SD 1/2/4/8, RC 1-8, exec size 8 or 16"));
    }
    Ok(())
}

/// Run one DPAS. `src0` is `None` for a null accumulator (zero). Returns the
/// destination bytes (RC rows of `exec_size` elements of `dst`'s type).
pub fn dpas(
    shape: DpasShape,
    dst: DataType,
    src0: Option<(DataType, &[u8])>,
    src1: &[u8],
    src2: &[u8],
) -> Result<Vec<u8>, AluError> {
    let s0ty = src0.map_or(dst, |s| s.0);
    check(shape, dst, src0.map(|s| s.0))?;
    let float = shape.w.is_float();
    let (b0, b1, b2) = shape.operand_bytes();
    let short = src0.is_some_and(|s| s.1.len() < b0 * s0ty.size() as usize / 4)
        || src1.len() < b1
        || src2.len() < b2;
    if short {
        return Err(err(
            dst,
            s0ty,
            "operands as large as SD, RC and the precisions need",
        ));
    }
    let n = shape.exec_size as usize;
    let ops = shape.ops_per_chan() as usize;
    let src1_per_chan = (32 / (ops * shape.w.bits() as usize)).max(1);
    let out_size = dst.size() as usize;
    let mut out = Vec::with_capacity(shape.repeat as usize * n * out_size);
    let mut k = 0usize;
    for r in 0..shape.repeat as usize {
        let mut ints = [0i64; 16];
        let mut floats = [0f64; 16];
        for i in 0..n {
            let raw = src0.map_or(0u64, |(t, b)| {
                let e = r * n + i;
                match t.size() {
                    2 => b
                        .get(2 * e..2 * e + 2)
                        .map_or(0, |s| u16::from_le_bytes([s[0], s[1]]) as u64),
                    _ => dword(b, e) as u64,
                }
            });
            ints[i] = match s0ty {
                DataType::D => raw as u32 as i32 as i64,
                _ => raw as u32 as i64,
            };
            floats[i] = Fmt::of(s0ty).map_or(0.0, |f| float::decode(f, raw));
        }
        for d in 0..shape.depth as usize {
            let m = d / src1_per_chan;
            let first = (d % src1_per_chan) * ops;
            for i in 0..n {
                let bdw = dword(src1, m * n + i);
                let b_elem = |j: usize| {
                    let bits = shape.w.bits() as usize;
                    ((bdw as u64 >> ((first + j) * bits)) & ((1u64 << bits) - 1)) as u32
                };
                if float {
                    let mut terms = [0f64; 3];
                    for (j, t) in terms.iter_mut().take(ops).enumerate() {
                        let a = shape.a.value(element(src2, k + j, shape.a));
                        *t = a * shape.w.value(b_elem(j)); // exact in f64
                    }
                    terms[2] = floats[i];
                    let (s, tail) = exact_sum(&terms);
                    floats[i] = float::round(Fmt::F, s, tail, super::Rounding::Rne, true);
                } else {
                    let mut dot = 0i64;
                    for j in 0..ops {
                        let a = shape.a.int(element(src2, k + j, shape.a));
                        dot += a * shape.w.int(b_elem(j));
                    }
                    ints[i] = ints[i].wrapping_add(dot);
                }
            }
            k += ops;
        }
        for i in 0..n {
            if float {
                let f = floats[i];
                let dfmt = Fmt::of(dst).unwrap_or(Fmt::F);
                let v = float::round(dfmt, f, 0, super::Rounding::Rne, true);
                // A NaN result is the canonical NaN, as float arithmetic's.
                let bits = if v.is_nan() {
                    super::float_ops::default_nan(dfmt)
                } else {
                    float::encode(dfmt, v)
                };
                out.extend_from_slice(&bits.to_le_bytes()[..out_size]);
            } else {
                out.extend_from_slice(&(ints[i] as u32).to_le_bytes());
            }
        }
    }
    Ok(out)
}
