//! Scalars that change from one pass of a loop to the next, for the straight form's
//! memory analysis: a tree reduction's `off` (`s[l] += s[l + off]` while `l < off`), a
//! double buffer's index (`buf[1 - p][l] = buf[p][l] + buf[p][l - off]`).
//!
//! Such a scalar is an expression ([`Node`]s of the kernel's own integer operations,
//! evaluated by the interpreter's ALU, so exactly as the thread computes them) over
//! kernel inputs, immediates and *carried* registers: a register's value at the top of
//! a loop's pass. A carried register starts from one value (the write that reaches the
//! loop, itself an expression) and a pass may replace it by one more expression of it
//! (its only write in the loop). The host takes the closure of the start value under
//! that update ([`Passes::values`]): every value the register can hold at the top of a
//! pass, a superset of those it does hold (the loop may stop earlier). Checking every
//! valuation then covers every pass.

use crate::interp::alu::{apply_src_modifier, exec, AluOp, FpEnv, Val};
use crate::ir::{DataType, Modifier};

/// The most values one carried register may take before the host gives up (a loop
/// halving or doubling a 64-bit scalar takes 65).
const MAX_VALUES: usize = 80;
/// %cr0 for the nodes' integer operations, which read none of it.
const INT_ENV: FpEnv = FpEnv {
    rounding: 0,
    f_denorm: false,
    df_denorm: false,
    hf_denorm: false,
    alt: false,
};
/// The most valuations one form's check may try.
const MAX_VALUATIONS: usize = 4096;

/// A value of an expression: raw bits, zero-extended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ref {
    Imm(u64),
    /// Payload bytes `(offset, bytes)` the kernel never writes (an input).
    Input(u32, u32),
    /// Carried register `i` at the top of the pass.
    Carried(u16),
    /// Node `i`'s result.
    Node(u16),
}

/// A scalar a form reads: a value and the type it is read as (which decides its
/// extension into the address arithmetic).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Typed {
    pub r: Ref,
    pub ty: DataType,
}

/// One NoMask scalar integer instruction of the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub op: AluOp,
    pub dst: DataType,
    pub srcs: Vec<(Ref, DataType, Modifier)>,
}

/// A register carried around a loop: `bytes` wide, `init` where the loop starts,
/// `update` after a pass that writes it. `update` reads no other carried register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Carried {
    pub at: u32,
    pub bytes: u32,
    /// The loop `[t, j]` (instruction positions) it is carried around.
    pub lp: (usize, usize),
    pub init: Ref,
    pub update: Ref,
}

/// The expressions of one analysis (forms copy the whole table; it is small).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Passes {
    pub nodes: Vec<Node>,
    pub carried: Vec<Carried>,
}

impl Passes {
    /// The interned node, or the same node already there.
    pub fn node(&mut self, n: Node) -> Option<Ref> {
        if let Some(i) = self.nodes.iter().position(|m| *m == n) {
            return Some(Ref::Node(i as u16));
        }
        let i = u16::try_from(self.nodes.len()).ok()?;
        self.nodes.push(n);
        Some(Ref::Node(i))
    }

    /// The carried registers `r` depends on.
    pub fn carried_in(&self, r: Ref, out: &mut Vec<u16>) {
        match r {
            Ref::Carried(i) => {
                if !out.contains(&i) {
                    out.push(i);
                }
            }
            Ref::Node(i) => {
                for s in &self.nodes[i as usize].srcs {
                    self.carried_in(s.0, out);
                }
            }
            Ref::Imm(_) | Ref::Input(..) => {}
        }
    }

    /// Payload bytes any expression reads.
    pub fn inputs(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        let mut add = |r: Ref| {
            if let Ref::Input(o, n) = r {
                out.push((o, n));
            }
        };
        for n in &self.nodes {
            for s in &n.srcs {
                add(s.0);
            }
        }
        for c in &self.carried {
            add(c.init);
            add(c.update);
        }
        out
    }

    /// `r`'s raw bits, carried registers valued by `vals` (indexed like `carried`).
    pub fn eval(&self, r: Ref, rec: &[u8], vals: &[u64]) -> Result<u64, String> {
        match r {
            Ref::Imm(b) => Ok(b),
            Ref::Input(o, n) => {
                let (o, n) = (o as usize, n as usize);
                let b = rec.get(o..o + n).filter(|_| n <= 8).ok_or_else(|| {
                    "the payload is shorter than a loop scalar's input".to_string()
                })?;
                let mut w = [0u8; 8];
                w[..n].copy_from_slice(b);
                Ok(u64::from_le_bytes(w))
            }
            Ref::Carried(i) => vals
                .get(i as usize)
                .copied()
                .ok_or_else(|| "a loop scalar has no value".to_string()),
            Ref::Node(i) => {
                let n = &self.nodes[i as usize];
                let srcs = n
                    .srcs
                    .iter()
                    .map(|&(r, ty, m)| {
                        let bits = self.eval(r, rec, vals)?;
                        Ok(apply_src_modifier(Val::new(ty, bits & mask(ty)), m))
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                exec(n.op, n.dst, &srcs, false, &INT_ENV)
                    .map(|o| o.dst)
                    .map_err(|e| format!("a loop scalar's operation: {e}"))
            }
        }
    }

    /// The value of `t` as its type reads it, sign- or zero-extended.
    pub fn typed(&self, t: Typed, rec: &[u8], vals: &[u64]) -> Result<i128, String> {
        let b = self.eval(t.r, rec, vals)? & mask(t.ty);
        let bits = 8 * t.ty.size();
        Ok(if signed(t.ty) && bits < 128 && b >> (bits - 1) & 1 == 1 {
            b as i128 - (1i128 << bits)
        } else {
            b as i128
        })
    }

    /// Every valuation of the carried registers `used` (the rest 0): each register's
    /// values at the top of a pass, in every combination.
    pub fn valuations(&self, used: &[u16], rec: &[u8]) -> Result<Vec<Vec<u64>>, String> {
        let mut out = vec![vec![0u64; self.carried.len()]];
        for &i in used {
            let c = &self.carried[i as usize];
            let mut seen = Vec::new();
            let mut v = self.eval(c.init, rec, &[])? & byte_mask(c.bytes);
            while !seen.contains(&v) {
                if seen.len() == MAX_VALUES {
                    return Err(format!(
                        "the loop scalar at byte {} takes more than {MAX_VALUES} values",
                        c.at
                    ));
                }
                seen.push(v);
                let mut vals = vec![0u64; self.carried.len()];
                vals[i as usize] = v;
                v = self.eval(c.update, rec, &vals)? & byte_mask(c.bytes);
            }
            if out.len() * seen.len() > MAX_VALUATIONS {
                return Err(format!(
                    "the loop scalars take more than {MAX_VALUATIONS} combinations of values"
                ));
            }
            out = out
                .iter()
                .flat_map(|o| {
                    seen.iter().map(move |&s| {
                        let mut o = o.clone();
                        o[i as usize] = s;
                        o
                    })
                })
                .collect();
        }
        Ok(out)
    }
}

pub fn signed(ty: DataType) -> bool {
    matches!(ty, DataType::B | DataType::W | DataType::D | DataType::Q)
}

fn mask(ty: DataType) -> u64 {
    byte_mask(ty.size())
}

fn byte_mask(bytes: u32) -> u64 {
    if bytes >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * bytes)) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `off = n / 2; ...; off >>= 1` over a ud: n's halvings down to 0.
    #[test]
    fn halving_takes_every_power_down_to_zero() {
        let mut p = Passes::default();
        let shr = |p: &mut Passes, r| {
            p.node(Node {
                op: AluOp::Shr,
                dst: DataType::UD,
                srcs: vec![
                    (r, DataType::UD, Modifier::None),
                    (Ref::Imm(1), DataType::D, Modifier::None),
                ],
            })
            .unwrap()
        };
        let init = shr(&mut p, Ref::Input(0, 4));
        let update = shr(&mut p, Ref::Carried(0));
        p.carried.push(Carried {
            at: 64,
            bytes: 4,
            lp: (3, 9),
            init,
            update,
        });
        let rec = 128u32.to_le_bytes();
        let mut vals: Vec<u64> = p
            .valuations(&[0], &rec)
            .unwrap()
            .into_iter()
            .map(|v| v[0])
            .collect();
        vals.sort_unstable();
        assert_eq!(vals, [0, 1, 2, 4, 8, 16, 32, 64]);
    }

    /// `p = 1 - p` from 0 (IGC's `add 0x1:w (-)p`): two values; a doubling from 1 in a
    /// d takes 33 (down to 0 after the sign bit), read as d the sign bit is negative.
    #[test]
    fn toggles_and_doublings_close() {
        let mut p = Passes::default();
        let flip = p
            .node(Node {
                op: AluOp::Add,
                dst: DataType::D,
                srcs: vec![
                    (Ref::Imm(1), DataType::W, Modifier::None),
                    (Ref::Carried(0), DataType::D, Modifier::Neg),
                ],
            })
            .unwrap();
        let dbl = p
            .node(Node {
                op: AluOp::Shl,
                dst: DataType::D,
                srcs: vec![
                    (Ref::Carried(1), DataType::D, Modifier::None),
                    (Ref::Imm(1), DataType::D, Modifier::None),
                ],
            })
            .unwrap();
        p.carried.push(Carried {
            at: 0,
            bytes: 4,
            lp: (0, 1),
            init: Ref::Imm(0),
            update: flip,
        });
        p.carried.push(Carried {
            at: 4,
            bytes: 4,
            lp: (0, 1),
            init: Ref::Imm(1),
            update: dbl,
        });
        let all = p.valuations(&[0, 1], &[]).unwrap();
        assert_eq!(all.len(), 2 * 33);
        let off = |v: &Vec<u64>| {
            p.typed(
                Typed {
                    r: Ref::Carried(1),
                    ty: DataType::D,
                },
                &[],
                v,
            )
            .unwrap()
        };
        assert!(all.iter().any(|v| off(v) == i32::MIN as i128));
        assert!(all.iter().any(|v| off(v) == 0));
        assert_eq!(all.iter().filter(|v| v[0] == 1).count(), 33);
        // An update that never repeats within the cap is refused.
        p.carried[1].update = p
            .node(Node {
                op: AluOp::Add,
                dst: DataType::D,
                srcs: vec![
                    (Ref::Carried(1), DataType::D, Modifier::None),
                    (Ref::Imm(1), DataType::D, Modifier::None),
                ],
            })
            .unwrap();
        assert!(p.valuations(&[1], &[]).is_err());
    }
}
