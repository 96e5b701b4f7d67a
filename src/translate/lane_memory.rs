//! Whether the channels of a straight kernel can touch the same memory bytes from
//! different instructions (which the straight form would reorder between channels).
//!
//! Two memory instructions of a thread are ordered; straight invocations are not. The
//! order is unobservable when, for every pair of memory instructions of which one
//! writes (an instruction with itself included, for plain stores), no byte one channel
//! touches at one is touched by another channel at the other. That holds when
//! - they address different spaces (SLM against a surface), or different surfaces
//!   whose binding-table entries name different allocations (a condition on the
//!   launch: the host checks `distinct_btis` before it picks the straight module);
//! - or the same surface through per-lane addresses that are, at both instructions, the
//!   same function `coef * v[lane] + u` modulo 2^width (one register or two computing
//!   it alike, whatever each holds above that width), with `u` uniform (scalars
//!   written once, in the entry blocks, including a legacy message's global offset)
//!   and `v` a vector the launch gives (IGC's local ids), `|coef|` at least the bytes
//!   a channel touches: distinct channels then touch disjoint bytes when the launch's
//!   `v` has distinct elements within each thread, spread at most 65535 (the host
//!   checks `distinct_inputs`);
//! - or a flat access and a binding-table access of one buffer whose offsets from the
//!   buffer's start are such forms (`flat_bti_forms`, `Conditions::flat_bti_start`).
//!
//! Scalars that change from one pass of a loop to the next (a tree reduction's bound, a
//! double buffer's index) enter as expressions the host evaluates for every value they
//! can take ([`super::lane_passes`]).
//!
//! Private memory (the thread's `%scratch`, the ABI's private base) where no such
//! form shows the channels apart (a private array indexed by data) carries owner tags
//! instead ([`Owned`]): the shader checks that no two channels touch one word. Anything
//! else (unplaced flat addresses, data-dependent indices into global memory) keeps the
//! fenced or the scheduled form.

use super::lane_passes::{self, Carried, Node, Passes, Ref, Typed};
use super::lanes::{self, Plan, Run};
use crate::interp::alu::AluOp;
use crate::interp::prepare::{Dst, PField, PInst, Prepared, Src};
use crate::interp::thread::{ffld as field, fint as int, fraw as raw};
use crate::ir::{DataType, Modifier};
use crate::isa::Opcode;
use std::cell::RefCell;

mod bound_check;
mod bti_bounds;
mod flat_spans;

pub use bound_check::{ThreadImage, EXACT_THREADS_MAX};
pub use bti_bounds::{BtiBound, RunsWhere};

/// What the launch must satisfy for the straight module to be exact.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conditions {
    /// Binding-table indices that must name different allocations (or be unbound).
    pub distinct_btis: Vec<(u32, u32)>,
    /// Per-channel address offsets that must keep the channels' bytes apart within
    /// each thread (dispatched channels).
    pub distinct_inputs: Vec<LaneForm>,
    /// Guards of whole-thread stores and atomics (`if (get_local_id(0) == 0) ...`):
    /// each must admit one dispatched channel of a thread at most, whose invocation
    /// then makes the thread's access.
    pub single: Vec<Guard>,
    /// Atomics on flat addresses the translator cannot place, with no result used and
    /// an operation whose updates commute (`free_atomic`), and loads from flat
    /// addresses (`flat_load`: IGC's constant tables, read through the constant
    /// buffer's address): `(instruction position, binding-table index)` where the
    /// access must not touch the allocation bound at that index (another instruction's
    /// store or atomic). The shader checks each address; a hit stops the straight run
    /// and the host runs the thread mapping instead.
    pub flat_unplaced: Vec<(usize, u32)>,
    /// Flat (stateless LSC) accesses placed on the pointer argument their address
    /// adds to ([`flat_base`]): the payload byte offsets of those pointers, at most
    /// [`FLAT_BASES`]. The host writes the allocation each pointer lies in
    /// (`cfg::FLAT_SPAN`); a placed access whose bytes leave it stops the straight run
    /// (the host then runs the thread mapping), so within a run every placed access
    /// stays in its base's allocation.
    pub flat_bases: Vec<u32>,
    /// `(instruction position, index into flat_bases)` of every placed access.
    pub flat_placed: Vec<(usize, u32)>,
    /// A placed base (its index) and what must lie in another allocation: a second
    /// base or a binding-table entry that an access meets with a write between them.
    pub distinct_flat: Vec<(u32, Apart)>,
    /// `(placed base, binding-table entry, payload byte of an offset)`: where the base
    /// and the entry name one allocation, the pointer must lie that offset (a 4-byte
    /// input; 0 without one) past its start, so that flat addresses less the pointer
    /// and binding-table addresses less the offset are the same bytes' offsets, which
    /// `distinct_inputs` then keep apart ([`flat_bti_forms`]).
    pub flat_bti_start: Vec<(u32, u32, Option<u32>)>,
    /// Placed atomics whose bytes provably lie within [`Conditions::flat_spans`]'s span
    /// after their pointer (`flat_spans::span`): the shader does not check them.
    pub flat_proven: Vec<usize>,
    /// `(placed base, bytes)`: the base's allocation must hold that many bytes from
    /// its pointer on (else the thread mapping runs the launch).
    pub flat_spans: Vec<(u32, u64)>,
    /// Binding-table loads and stores whose every channel's address the host must
    /// find inside the entry (`bti_bounds`), with their positions: the shader does not
    /// check them.
    pub bti_bounds: Vec<BtiBound>,
    pub bti_proven: Vec<usize>,
    /// Payload vectors `(byte offset, element bytes)`, each set of which must hold
    /// different elements (tuples of them) in the dispatched channels of each thread:
    /// equalities with them let one channel at most through to the whole-thread
    /// stores that [`conditions`] then need not order against each other
    /// (`OneChannel::Distinct`).
    pub single_distinct: Vec<Vec<(u32, u32)>>,
    /// The loop scalars the forms' terms and guards read ([`lane_passes`]).
    pub passes: Passes,
    /// Scratch accesses whose channels the translator cannot keep apart: each claims
    /// the words it touches ([`Owned`]); the host gives the tags room.
    pub owned_scratch: bool,
    /// Placed flat bases (their indices) likewise, for their allocations.
    pub owned_flat: Vec<u32>,
    /// `(instruction position, memory)` of every access that claims.
    pub owned_at: Vec<(usize, Owned)>,
}

/// How many pointer arguments a straight module places accesses on (`cfg::FLAT_SPAN`
/// holds one entry each).
pub const FLAT_BASES: usize = 32;

/// What a placed flat base's allocation must differ from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Apart {
    /// Another placed base (its index).
    Base(u32),
    /// A binding-table entry.
    Bti(u32),
}

impl Conditions {
    /// Whether any payload bytes the checks read over `simd` channels lie in the group
    /// id words (then every group's threads must be checked, not the first group's).
    pub fn reads_group_ids(&self, simd: u32) -> bool {
        self.distinct_inputs.iter().any(|f| f.reads_group_ids(simd))
            || self.single.iter().any(|g| g.reads_group_ids(simd))
            || self
                .single_distinct
                .iter()
                .flatten()
                .any(|&(o, b)| group_id_bytes(o, b.saturating_mul(simd)))
            || self
                .passes
                .inputs()
                .iter()
                .any(|&(o, n)| group_id_bytes(o, n))
    }
}

/// A channel's address offset as a linear function of the launch's payload vectors:
/// `f(c) = Σ coef · L[c]` over the terms, computed in `width`-bit integers. Channel `c`
/// touches `[f(c) + k, f(c) + k + span)` at one instruction and the same with the
/// other's `(k, span)` at the other; the channels of a thread must not touch each
/// other's bytes, modulo `2^width`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneForm {
    pub terms: Vec<Term>,
    /// The second instruction's terms where its function differs from the first's
    /// (two arrays in SLM at different strides); `None`: the same.
    pub terms2: Option<Vec<Term>>,
    pub width: u32,
    /// `(k, span)` at the two instructions (equal for an instruction with itself).
    pub at: [(i64, u32); 2],
    /// The channels that run each instruction, where a branch before it lets only
    /// some through (`if (l < off) s[l] += s[l + off]`); `None`: every channel.
    pub guards: [Option<Guard>; 2],
}

/// Whether payload bytes `[a, a + len)` meet the group id words r0.1, r0.6, r0.7: the
/// only bytes in which the payloads of one thread index differ between groups.
fn group_id_bytes(a: u32, len: u32) -> bool {
    let b = a.saturating_add(len);
    [(4, 8), (24, 32)].iter().any(|&(x, y)| a < y && x < b)
}

/// Payload `bytes` of one thread index as group `g` has them (`abi::launch`: its ids
/// at r0.1, r0.6, r0.7), where the payload holds those words.
pub fn set_group_ids(bytes: &mut [u8], g: [u32; 3]) {
    for (at, v) in [(4, g[0]), (24, g[1]), (28, g[2])] {
        if let Some(d) = bytes.get_mut(at..at + 4) {
            d.copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// Channel `c` runs the instruction only if its element of a launch vector (at payload
/// byte `offset + c * bytes`, sign-extended when `signed`) lies in `[lo, hi)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    pub offset: u32,
    pub bytes: u32,
    pub signed: bool,
    pub lo: i64,
    pub hi: i64,
    /// A bound the kernel computes (`l < off`, `off` halved each pass; `l < n`, an
    /// argument): the interval follows from its value, `lo` and `hi` are unused.
    pub bound: Option<Bound>,
}

/// `v rel value`, the compare that sets the guard's predicate; the channel goes
/// through where it is set when `through_when_set`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    pub value: Typed,
    pub rel: u8,
    pub through_when_set: bool,
}

/// The interval of `v` in which a channel goes through a `goto` on `v rel konst`.
fn through_interval(rel: u8, konst: i64, through_when_set: bool) -> Option<(i64, i64)> {
    let (lo, hi) = (i64::MIN, i64::MAX);
    let set = match rel {
        4 => (lo, konst),                    // v < K
        5 => (lo, konst.checked_add(1)?),    // v <= K
        3 => (konst, hi),                    // v >= K
        2 => (konst.checked_add(1)?, hi),    // v > K
        0 => (konst, konst.checked_add(1)?), // v == K
        _ => return None,
    };
    if through_when_set {
        Some(set)
    } else if set.0 == i64::MIN {
        Some((set.1, hi))
    } else if set.1 == i64::MAX {
        Some((lo, set.0))
    } else {
        None
    }
}

impl Guard {
    /// Whether its vector over `simd` channels lies in the group id words.
    pub fn reads_group_ids(&self, simd: u32) -> bool {
        group_id_bytes(self.offset, self.bytes.saturating_mul(simd))
    }

    /// Whether channel `c` of a thread with payload `rec` may run the instruction
    /// (`None`: the payload is too short to tell, or the bound is computed).
    pub fn admits(&self, rec: &[u8], c: usize) -> Option<bool> {
        if self.bound.is_some() {
            return None;
        }
        self.admits_within(rec, c, (self.lo, self.hi))
    }

    /// The interval the channels' elements must lie in, loop scalars valued by `vals`
    /// (`None`: no channel is refused, as when the bound does not fit 64 bits).
    fn interval(
        &self,
        passes: &Passes,
        rec: &[u8],
        vals: &[u64],
    ) -> Result<Option<(i64, i64)>, String> {
        let Some(b) = &self.bound else {
            return Ok(Some((self.lo, self.hi)));
        };
        let v = passes.typed(b.value, rec, vals)?;
        Ok(i64::try_from(v)
            .ok()
            .and_then(|k| through_interval(b.rel, k, b.through_when_set)))
    }

    fn admits_within(&self, rec: &[u8], c: usize, (lo, hi): (i64, i64)) -> Option<bool> {
        let e = self.bytes as usize;
        let at = self.offset as usize + c * e;
        let mut v = [0u8; 8];
        v[..e].copy_from_slice(rec.get(at..at + e)?);
        let u = u64::from_le_bytes(v);
        let x = if self.signed && e < 8 {
            ((u << (64 - 8 * e)) as i64) >> (64 - 8 * e)
        } else {
            u as i64
        };
        Some(lo <= x && x < hi)
    }
}

/// One payload vector of a [`LaneForm`]: channel `c`'s element at byte
/// `offset + c * bytes`, sign-extended when `signed` (the host accepts only elements
/// whose sign bit is clear, where the extension does not matter), times `coef`.
/// `bytes == 0`: no vector, the same `coef * Π factors` in every channel (a kernel
/// argument's offset of a `__local` array).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Term {
    pub offset: u32,
    pub bytes: u32,
    pub signed: bool,
    /// Scalars of the thread's payload `(byte offset, bytes)` the element is
    /// multiplied by (kernel arguments and sizes: a row pitch, a plane size).
    pub factors: Vec<(u32, u32)>,
    /// Loop scalars it is multiplied by (a term of no bytes: a double buffer's half).
    pub pass: Vec<Typed>,
    pub coef: i64,
}

impl Term {
    /// A term of no bytes: `coef` times the payload scalars `factors`.
    pub fn scalar(factors: Vec<(u32, u32)>, coef: i64) -> Term {
        Term {
            offset: 0,
            bytes: 0,
            signed: false,
            factors,
            pass: Vec::new(),
            coef,
        }
    }
}

impl LaneForm {
    /// Whether any payload bytes the form reads (its vectors over `simd` channels, its
    /// factors) lie in the group id words r0.1, r0.6, r0.7: the only bytes in which
    /// the payloads of one thread index differ between groups.
    pub fn reads_group_ids(&self, simd: u32) -> bool {
        self.terms
            .iter()
            .chain(self.terms2.iter().flatten())
            .any(|t| {
                group_id_bytes(t.offset, t.bytes.saturating_mul(simd))
                    || t.factors.iter().any(|&(o, n)| group_id_bytes(o, n))
            })
            || self
                .guards
                .iter()
                .flatten()
                .any(|g| g.reads_group_ids(simd))
    }

    /// The loop scalars' carried registers the form reads.
    fn carried(&self, passes: &Passes) -> Vec<u16> {
        let mut used = Vec::new();
        for t in self.terms.iter().chain(self.terms2.iter().flatten()) {
            for f in &t.pass {
                passes.carried_in(f.r, &mut used);
            }
        }
        for b in self
            .guards
            .iter()
            .flatten()
            .filter_map(|g| g.bound.as_ref())
        {
            passes.carried_in(b.value.r, &mut used);
        }
        used
    }

    /// Why the channels' offsets of one thread (payload bytes `rec`, `lanes`
    /// dispatched channels) may overlap, if they may: in any pass, where loop scalars
    /// take part (every value each can hold, in every combination).
    pub fn overlap(&self, passes: &Passes, rec: &[u8], lanes: usize) -> Option<String> {
        let used = self.carried(passes);
        let vals = match passes.valuations(&used, rec) {
            Ok(v) => v,
            Err(why) => return Some(why),
        };
        vals.iter().find_map(|v| {
            let why = self.overlap_at(passes, rec, lanes, v)?;
            Some(if used.is_empty() {
                why
            } else {
                let at: Vec<u64> = used.iter().map(|&i| v[i as usize]).collect();
                format!("{why} when the loop scalars hold {at:?}")
            })
        })
    }

    fn overlap_at(
        &self,
        passes: &Passes,
        rec: &[u8],
        lanes: usize,
        vals: &[u64],
    ) -> Option<String> {
        let modulus = 1i128 << self.width.min(64);
        let offs = match offsets(&self.terms, passes, vals, rec, lanes, modulus) {
            Ok(o) => o,
            Err(why) => return Some(why),
        };
        let offs2 = match &self.terms2 {
            None => offs.clone(),
            Some(t) => match offsets(t, passes, vals, rec, lanes, modulus) {
                Ok(o) => o,
                Err(why) => return Some(why),
            },
        };
        let short = || "the payload is shorter than its vectors".to_string();
        let [(k1, s1), (k2, s2)] = self.at;
        // Channel d's bytes at the second meet channel c's at the first when
        // D = f(d) - f(c) lies in (lo, hi), modulo 2^width. Every ordered pair (c at
        // the first, d at the second) is tried, among the channels each admits.
        let (lo, hi) = (
            k1 as i128 - k2 as i128 - s2 as i128,
            k1 as i128 - k2 as i128 + s1 as i128,
        );
        let admitted = |g: &Option<Guard>| -> Result<Option<Vec<bool>>, String> {
            let Some(g) = g else {
                return Ok(Some(vec![true; offs.len()]));
            };
            Ok(match g.interval(passes, rec, vals)? {
                None => Some(vec![true; offs.len()]),
                Some(i) => (0..offs.len())
                    .map(|c| g.admits_within(rec, c, i))
                    .collect(),
            })
        };
        let (first, second) = match (admitted(&self.guards[0]), admitted(&self.guards[1])) {
            (Ok(Some(a)), Ok(Some(b))) => (a, b),
            (Err(why), _) | (_, Err(why)) => return Some(why),
            _ => return Some(short()),
        };
        let mut order: Vec<usize> = (0..offs2.len()).filter(|&d| second[d]).collect();
        order.sort_unstable_by_key(|&i| offs2[i]);
        let sorted: Vec<i128> = order.iter().map(|&i| offs2[i]).collect();
        let meets = |c: usize| {
            // Channels d != c with lo < f(d) - f(c) < hi, for D shifted by a modulus.
            [-modulus, 0, modulus].iter().any(|&m| {
                let (a, b) = (offs[c] + lo + m, offs[c] + hi + m);
                let from = sorted.partition_point(|&v| v <= a);
                (from..sorted.len())
                    .take_while(|&j| sorted[j] < b)
                    .any(|j| order[j] != c)
            })
        };
        let near = (0..offs.len()).any(|c| first[c] && meets(c));
        near.then(|| {
            let at: Vec<u32> = self.terms.iter().map(|t| t.offset).collect();
            format!(
                "addresses derived from the payload vectors at bytes {at:?} let two channels of a thread touch the same bytes"
            )
        })
    }
}

/// Each dispatched channel's offset `Σ coef · L[c] · Π factors` (a term of no bytes:
/// `coef · Π factors`), reduced modulo the form's `2^width`.
fn offsets(
    terms: &[Term],
    passes: &Passes,
    vals: &[u64],
    rec: &[u8],
    lanes: usize,
    modulus: i128,
) -> Result<Vec<i128>, String> {
    let mut offs = sums(terms, passes, vals, rec, lanes)?;
    for f in &mut offs {
        *f = f.rem_euclid(modulus);
    }
    Ok(offs)
}

/// [`offsets`] before the reduction: each channel's exact sum.
fn sums(
    terms: &[Term],
    passes: &Passes,
    vals: &[u64],
    rec: &[u8],
    lanes: usize,
) -> Result<Vec<i128>, String> {
    let short = || "the payload is shorter than its vectors".to_string();
    let too_big = || "the address offsets exceed 128 bits".to_string();
    // Each term's multiplier `coef * Π factors` is the same in every channel.
    let mut mults = Vec::with_capacity(terms.len());
    for t in terms {
        let mut m = t.coef as i128;
        for &(o, n) in &t.factors {
            let (o, n) = (o as usize, n as usize);
            let mut w = [0u8; 8];
            match rec.get(o..o + n) {
                Some(b) if n <= 8 => w[..n].copy_from_slice(b),
                _ => return Err(short()),
            }
            let x = u64::from_le_bytes(w);
            if x >> (8 * n - 1) != 0 {
                return Err(format!("the payload scalar at byte {o} is negative"));
            }
            m = m.checked_mul(x as i128).ok_or_else(too_big)?;
        }
        for &f in &t.pass {
            let x = passes.typed(f, rec, vals)?;
            m = m.checked_mul(x).ok_or_else(too_big)?;
        }
        mults.push(m);
    }
    let mut offs: Vec<i128> = Vec::with_capacity(lanes);
    for c in 0..lanes {
        let mut f = 0i128;
        for (t, &m) in terms.iter().zip(&mults) {
            let u = if t.bytes == 0 {
                1
            } else {
                let e = t.bytes as usize;
                let at = t.offset as usize + c * e;
                let mut v = [0u8; 8];
                v[..e].copy_from_slice(rec.get(at..at + e).ok_or_else(short)?);
                let u = u64::from_le_bytes(v);
                // Elements with the sign bit set would make the form's extension
                // matter (the analysis tracks it only for the vector read directly).
                if u >> (8 * t.bytes - 1) != 0 {
                    return Err(format!(
                        "the payload vector at byte {} holds a negative element",
                        t.offset
                    ));
                }
                u
            };
            f = f
                .checked_add((u as i128).checked_mul(m).ok_or_else(too_big)?)
                .ok_or_else(too_big)?;
        }
        offs.push(f);
    }
    Ok(offs)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Space {
    Bti(u32),
    Slm,
    /// Flat memory through placed base `j` (`Conditions::flat_bases`).
    Flat(u32),
    /// The thread's `%scratch` space (T5), which no other space reaches.
    Scratch,
}

/// Memory whose words carry owner tags in a straight module (`claim_word` of
/// runtime.wgsl): where the translator cannot keep the channels' bytes apart (a
/// private array indexed by data), the shader checks that no two channels touch one
/// word, and the thread mapping runs the launch where two do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owned {
    /// The thread's scratch space.
    Scratch,
    /// Flat memory through placed base `j`.
    Flat(u32),
}

/// A per-lane access: the address register, its element bytes, what else forms the
/// address (must match between the two instructions), its scale, and the bytes a
/// channel touches from its address.
struct Access {
    reg: u32,
    /// Typed messages: the V coordinates' register, the address then `U + 2^16 V`
    /// (see `access`).
    reg_v: Option<u32>,
    asize: u32,
    rest: String,
    /// The register of a scalar part of the address (legacy messages' global offset):
    /// equal in `rest` is equal in value only while nothing writes it.
    scalar: Option<(u32, u32)>,
    scale: i64,
    /// The bytes a channel touches, `(offset from its address, length)`: one piece,
    /// or one per enabled channel of a 4-channel gather or scatter.
    pieces: Vec<(i64, u32)>,
    moff: u32,
    n: u32,
}

/// A launch vector: channel 0's element at payload byte `at`, `bytes` each, and the
/// input scalars `(payload byte offset, bytes)` it is multiplied by (three at most).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Leaf {
    at: u32,
    bytes: u32,
    signed: bool,
    /// Input scalars multiplying it, sorted, `None` after the last.
    factors: [Option<(u32, u32)>; 3],
}

/// A scalar register read whole by every channel (written once at most, in the entry
/// blocks); `input`: its payload byte offset when the launch gives it and the kernel
/// never writes it (the host can then read its value).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Scalar {
    at: u32,
    ty: u8,
    size: u32,
    input: Option<u32>,
    /// Its value where it is not one for the whole kernel: a loop scalar's expression.
    pass: Option<Typed>,
}

/// The value channel `c` holds, `Σ coef·L[c] + Σ mult·Π scalars + konst` computed in
/// `width`-bit integers, where each `L[c]` is a launch vector ([`Leaf`]).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Affine {
    /// Launch vectors with their coefficients (none zero), sorted.
    leaves: Vec<(Leaf, i64)>,
    /// Products of scalars with their coefficients (none zero), sorted.
    uni: Vec<(Vec<Scalar>, i64)>,
    konst: i64,
    width: u32,
    /// The widest operation (equal to `width` when every step computes at one width,
    /// which two registers' forms need to be compared).
    wmax: u32,
}

impl Affine {
    fn constant(k: i64) -> Affine {
        Affine {
            leaves: Vec::new(),
            uni: Vec::new(),
            konst: k,
            width: 64,
            wmax: 0,
        }
    }

    fn scaled(&self, m: i64) -> Option<Affine> {
        let mut out = self.clone();
        for l in &mut out.leaves {
            l.1 = l.1.checked_mul(m)?;
        }
        out.leaves.retain(|l| l.1 != 0);
        out.konst = out.konst.wrapping_mul(m);
        for u in &mut out.uni {
            u.1 = u.1.wrapping_mul(m);
        }
        out.uni.retain(|u| u.1 != 0);
        Some(out)
    }

    /// `self` times input scalar `s` (the whole of `by`): a launch vector takes it as
    /// one more factor, the rest become products.
    fn times(&self, s: Scalar, by: &Affine) -> Option<Affine> {
        let mut out = self.clone();
        for l in &mut out.leaves {
            let free = l.0.factors.iter().position(|f| f.is_none())?;
            l.0.factors[free] = Some((s.input?, s.size));
            l.0.factors.sort_unstable_by_key(|f| (f.is_none(), *f));
        }
        out.leaves.sort_unstable();
        for u in &mut out.uni {
            u.0.push(s);
            u.0.sort_unstable();
        }
        if out.konst != 0 {
            out.uni.push((vec![s], out.konst));
            out.konst = 0;
        }
        out.uni.sort();
        out.width = out.width.min(by.width);
        out.wmax = out.wmax.max(by.wmax);
        Some(out)
    }

    fn plus(&self, o: &Affine) -> Option<Affine> {
        let mut leaves = self.leaves.clone();
        for &(k, c) in &o.leaves {
            match leaves.iter_mut().find(|l| l.0 == k) {
                Some(l) => l.1 = l.1.checked_add(c)?,
                None => leaves.push((k, c)),
            }
        }
        leaves.retain(|l| l.1 != 0);
        leaves.sort_unstable();
        let mut uni = self.uni.clone();
        for (k, m) in &o.uni {
            match uni.iter_mut().find(|u| u.0 == *k) {
                Some(u) => u.1 = u.1.wrapping_add(*m),
                None => uni.push((k.clone(), *m)),
            }
        }
        uni.retain(|u| u.1 != 0);
        uni.sort();
        Some(Affine {
            leaves,
            uni,
            konst: self.konst.wrapping_add(o.konst),
            width: self.width.min(o.width),
            wmax: self.wmax.max(o.wmax),
        })
    }
}

/// Why the straight form refuses a kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub why: String,
    /// Where two memory instructions (positions in `p.insts`) may touch the same bytes
    /// from different channels: a barrier between them would order them
    /// (`exchange::prepare`'s fences).
    pub unordered: Option<(usize, usize)>,
}

impl From<String> for Refused {
    fn from(why: String) -> Self {
        Refused {
            why,
            unordered: None,
        }
    }
}

/// The launch conditions under which no two channels' memory accesses conflict, or
/// why that cannot be shown.
pub fn conditions(
    p: &Prepared,
    plan: &Plan,
    block_of: &[usize],
    prefix: usize,
    ordered: &dyn Fn(usize, usize) -> bool,
    private_base: Option<u32>,
) -> Result<Conditions, Refused> {
    let mem: Vec<usize> = (0..p.insts.len())
        .filter(|&k| plan.mem[k].0 || plan.mem[k].1)
        .collect();
    let mut out = Conditions::default();
    if !mem.iter().any(|&k| plan.mem[k].1) {
        return Ok(out);
    }
    let preds = predecessors(p, block_of);
    let dom = dominators_of(&preds);
    let loops = loops_of(p);
    let passes = RefCell::new(Passes::default());
    let writer_index = WriterIndex::new(plan);
    let targets = super::blocks::branch_targets(&p.insts);
    let chains = Chains {
        p,
        plan,
        block_of,
        prefix,
        preds: &preds,
        dom: &dom,
        loops: &loops,
        passes: &passes,
        writers: &writer_index,
        accesses: Default::default(),
        vectors: Default::default(),
    };
    // Flat accesses placed on their pointer argument.
    let mut placed = vec![None; p.insts.len()];
    for &k in &mem {
        let Some(poff) = flat_base(&chains, k) else {
            continue;
        };
        let j = match out.flat_bases.iter().position(|&b| b == poff) {
            Some(j) => j,
            None if out.flat_bases.len() < FLAT_BASES => {
                out.flat_bases.push(poff);
                out.flat_bases.len() - 1
            }
            None => continue,
        };
        placed[k] = Some(Space::Flat(j as u32));
        out.flat_placed.push((k, j as u32));
        if let Some(span) = flat_spans::span(&chains, k, poff) {
            out.flat_proven.push(k);
            match out.flat_spans.iter_mut().find(|s| s.0 == j as u32) {
                Some(s) => s.1 = s.1.max(span),
                None => out.flat_spans.push((j as u32, span)),
            }
        }
    }
    let space_of = |k: usize| placed[k].or_else(|| space(p, k));
    for &k in &mem {
        if let Some(b) = bti_bounds::bound(&chains, &targets, k) {
            out.bti_bounds.push(b);
            out.bti_proven.push(k);
        }
    }
    // Whole-thread stores and atomics: one channel's invocation makes them, so one
    // channel at most may reach them.
    let mut single_at = Vec::new();
    // The branch and what lets one channel at most through it, per whole-thread store.
    let mut one_channel: Vec<Option<(usize, OneChannel)>> = vec![None; p.insts.len()];
    for &k in &mem {
        if plan.run[k] != Run::Uniform || !plan.mem[k].1 {
            continue;
        }
        // The first lane of a meeting earlier in its block runs it (`exchange.rs`).
        if plan.led.get(k).copied().flatten().is_some() {
            single_at.push(k);
            continue;
        }
        let chain = chains.chain(k);
        one_channel[k] = guard_of(&chain, &targets, k, true).filter(|(_, o)| match o {
            OneChannel::Interval(g) => g.bound.is_none(),
            OneChannel::Distinct(..) => true,
        });
        let g = guard(&chain, &targets, k).filter(|g| g.bound.is_none());
        // A plain store without such a guard: every invocation that reaches it writes
        // the same bytes with the same values (what a whole-thread instruction reads is
        // every channel's alike: `simt::uniform_consistency`), so repeats leave what one
        // write leaves. Against any other access to its space the pairs below decide.
        if g.is_none() && !is_atomic(&p.insts[k]) {
            single_at.push(k);
            continue;
        }
        // One channel is counted from the launch's payload alone.
        let g = g.ok_or_else(|| {
            format!(
                "a store or atomic for the whole thread at instruction {} that more than one channel may reach",
                p.insts[k].index
            )
        })?;
        single_at.push(k);
        if !out.single.contains(&g) {
            out.single.push(g);
        }
    }
    for (i, &x) in mem.iter().enumerate() {
        for &y in &mem[i..] {
            let writes = plan.mem[x].1 || plan.mem[y].1;
            // One instruction with itself: channels of an atomic meet in the atomic.
            // Instructions a barrier always separates are ordered by it.
            if !writes
                || (x == y && (is_atomic(&p.insts[x]) || single_at.contains(&x)))
                || ordered(x, y)
            {
                continue;
            }
            // Two whole-thread stores behind one branch that lets one channel of a
            // thread through at most: that channel's invocation makes both, in order.
            if let (Some((gx, ox)), Some((gy, _))) = (&one_channel[x], &one_channel[y]) {
                if x != y && gx == gy && single_at.contains(&x) && single_at.contains(&y) {
                    match ox {
                        OneChannel::Interval(g) if !out.single.contains(g) => {
                            out.single.push(g.clone());
                        }
                        OneChannel::Distinct(v) if !out.single_distinct.contains(v) => {
                            out.single_distinct.push(v.clone());
                        }
                        _ => {}
                    }
                    continue;
                }
            }
            let (sx, sy) = (space_of(x), space_of(y));
            let at = |k: usize| p.insts[k].index;
            // Unplaced commuting atomics: with each other the order of their updates
            // does not matter; against a placed instruction the shader checks that the
            // address stays out of that instruction's allocation. Unplaced flat loads
            // likewise (class `u8::MAX`: two loads never pair here, a load meets no
            // unplaced atomic's class).
            let unplaced = |k: usize| {
                free_atomic(p, k).or_else(|| flat_load(p, plan, k).then_some((u8::MAX, 0)))
            };
            // Commuting atomics of one class, placed or not.
            if let (Some(a), Some(b)) = (free_atomic(p, x), free_atomic(p, y)) {
                if a == b {
                    continue;
                }
            }
            // Scratch is the thread's own: no other space reaches it.
            if let (Some(a), Some(b)) = (sx, sy) {
                if (a == Space::Scratch) != (b == Space::Scratch) {
                    continue;
                }
            }
            let (fx, fy) = (unplaced(x), unplaced(y));
            match ((sx, fx), (sy, fy)) {
                ((None, Some(a)), (None, Some(b))) if a == b && a.0 != u8::MAX => continue,
                ((None, Some(_)), (Some(Space::Slm), _))
                | ((Some(Space::Slm), _), (None, Some(_))) => continue,
                ((None, Some(_)), (Some(Space::Bti(b)), _)) => {
                    if !out.flat_unplaced.contains(&(x, b)) {
                        out.flat_unplaced.push((x, b));
                    }
                    continue;
                }
                ((Some(Space::Bti(b)), _), (None, Some(_))) => {
                    if !out.flat_unplaced.contains(&(y, b)) {
                        out.flat_unplaced.push((y, b));
                    }
                    continue;
                }
                _ => {}
            }
            let (Some(sx), Some(sy)) = (sx, sy) else {
                // Two instructions a barrier may still order; not one with itself.
                let k = if sx.is_none() { x } else { y };
                return Err(Refused {
                    why: format!(
                        "memory instruction {} addresses memory the translator cannot place",
                        at(k)
                    ),
                    unordered: (x != y).then_some((x, y)),
                });
            };
            let apart = match (sx, sy) {
                (Space::Bti(a), Space::Bti(b)) if a != b => {
                    let pair = (a.min(b), a.max(b));
                    if !out.distinct_btis.contains(&pair) {
                        out.distinct_btis.push(pair);
                    }
                    continue;
                }
                (Space::Bti(_) | Space::Flat(_), Space::Slm)
                | (Space::Slm, Space::Bti(_) | Space::Flat(_)) => continue,
                (Space::Flat(a), Space::Flat(b)) if a != b => {
                    Some((a.min(b), Apart::Base(a.max(b))))
                }
                (Space::Flat(a), Space::Bti(b)) | (Space::Bti(b), Space::Flat(a)) => {
                    // One buffer through both is fine where the pointer is its start
                    // and the offsets keep the channels apart.
                    let (flat, other) = if matches!(sx, Space::Flat(_)) {
                        (x, y)
                    } else {
                        (y, x)
                    };
                    let poff = out.flat_bases[a as usize];
                    if let Some((forms, soff)) =
                        flat_bti_forms(&chains, &targets, (flat, poff), other)
                    {
                        for form in forms {
                            if !out.distinct_inputs.contains(&form) {
                                out.distinct_inputs.push(form);
                            }
                        }
                        if !out.flat_bti_start.contains(&(a, b, soff)) {
                            out.flat_bti_start.push((a, b, soff));
                        }
                        continue;
                    }
                    Some((a, Apart::Bti(b)))
                }
                _ => None,
            };
            if let Some(pair) = apart {
                if !out.distinct_flat.contains(&pair) {
                    out.distinct_flat.push(pair);
                }
                continue;
            }
            // The same space: the same injective per-lane address at both. Private
            // memory without one (a private array indexed by data) carries owner tags.
            let Some(forms) = same_lane_address(&chains, &targets, x, y) else {
                // Work-items never share private memory: there channels meet only
                // through addresses gone wrong, which the tags catch. Elsewhere they
                // may well meet (fences then order them: `fences::fit`).
                let private = |j: u32| Some(out.flat_bases[j as usize]) == private_base;
                match sx {
                    Space::Scratch => out.owned_scratch = true,
                    Space::Flat(j) if private(j) => {
                        if !out.owned_flat.contains(&j) {
                            out.owned_flat.push(j);
                        }
                    }
                    _ => {
                        return Err(Refused {
                            why: format!(
                                "memory instructions {} and {} may touch the same bytes from different channels",
                                at(x),
                                at(y)
                            ),
                            unordered: (x != y).then_some((x, y)),
                        })
                    }
                }
                continue;
            };
            for form in forms {
                if !out.distinct_inputs.contains(&form) {
                    out.distinct_inputs.push(form);
                }
            }
        }
    }
    for &k in &mem {
        let owned = match space_of(k) {
            Some(Space::Scratch) if out.owned_scratch => Owned::Scratch,
            Some(Space::Flat(j)) if out.owned_flat.contains(&j) => Owned::Flat(j),
            _ => continue,
        };
        out.owned_at.push((k, owned));
    }
    out.passes = passes.into_inner();
    Ok(out)
}

/// The payload byte offset of the pointer argument a flat LSC access's 64-bit addresses
/// add to (`p[i]`: the pointer plus a per-channel offset): the one 8-byte input scalar
/// that enters the address with coefficient 1. A guess the shader checks: a placed
/// access outside the pointer's allocation stops the straight run.
fn flat_base(c: &Chains, k: usize) -> Option<u32> {
    use Opcode::*;
    let inst = &c.p.insts[k];
    // The address register: 8-byte addresses, element i for channel i + moff.
    let (reg, n, moff) = match inst.op {
        LscUntyped if int(inst, "LscSFID") != 3 && int(inst, "AddrType") == 1 => {
            match c.access(k) {
                Some(a) if a.asize == 8 => (a.reg, a.n, a.moff),
                Some(_) => return None,
                // A message for the whole thread (a transposed store of a scalar's
                // elements): its one 64-bit address.
                None if c.plan.run[k] == Run::Uniform && inst.exec.size == 1 => {
                    let reg = raw(inst, "Src0Addrs")?;
                    return pointer_in_slice(c, &c.chain(k), reg, reg + 8);
                }
                None => return None,
            }
        }
        // An SVM atomic for the whole thread (IGC's aggregated atomics: one channel's
        // address): its one 64-bit address, like the transposed LSC message above.
        SvmAtomic if c.plan.run[k] == Run::Uniform && inst.exec.size == 1 => {
            let reg = raw(inst, "Addresses")?;
            return pointer_in_slice(c, &c.chain(k), reg, reg + 8);
        }
        // A NoMask SVM scatter run whole (`exchange.rs`): every address it holds.
        SvmScatter if c.plan.run[k] == Run::Uniform => {
            let reg = raw(inst, "Addresses")?;
            let n = inst.exec.size as u32;
            return pointer_in_slice(c, &c.chain(k), reg, reg + 8 * n);
        }
        SvmGather | SvmScatter | SvmAtomic if c.plan.run[k] == Run::PerLane => (
            raw(inst, "Addresses")?,
            inst.exec.size as u32,
            inst.exec.mask.channel_offset(),
        ),
        _ => return None,
    };
    let chain = c.chain(k);
    if let Some(f) = chain.vector(reg, 8, moff, n, k, 0) {
        let mut pointers = f.uni.iter().filter_map(|(s, m)| match s.as_slice() {
            [s] if *m == 1 && s.size == 8 && s.pass.is_none() => s.input,
            _ => None,
        });
        if let (Some(base), None) = (pointers.next(), pointers.next()) {
            return Some(base);
        }
    }
    // Where the address has no form here (written on several paths): every
    // instruction that writes the address register adds one pointer to something.
    let end = reg + n * 8;
    let writers = c.writers.of(reg, end);
    let mut bases = writers.iter().map(|&d| {
        let w = &c.p.insts[d];
        let (_, srcs, _) = w.alu_operands();
        if w.op != Opcode::Add || srcs.len() != 2 {
            return None;
        }
        let mut inputs = srcs.iter().filter_map(|s| match s {
            Src::Direct {
                ty,
                m: Modifier::None,
                ..
            } if ty.size() == 8 && ty.is_int() => {
                let (at, stride) = lanes::src_linear(s, w.exec.size as u32)?;
                (stride == 0).then(|| chain.input_scalar(at, 8)).flatten()
            }
            _ => None,
        });
        match (inputs.next(), inputs.next()) {
            (Some(b), None) => Some(b),
            _ => None,
        }
    });
    if let Some(Some(first)) = bases.next() {
        if bases.all(|b| b == Some(first)) {
            return Some(first);
        }
    }
    pointer_in_slice(c, &chain, reg, end)
}

/// The one pointer argument among the scalar sources of the instructions that compute
/// bytes `[a, b)`, followed back through their register sources (up to
/// [`SLICE_DEPTH`] steps; messages end the search). IGC builds 64-bit addresses out
/// of dword halves where the device has no 64-bit adds (tgllp, acm-g10): `addc` of
/// the pointer's low half and an offset, `add` of the carry and its high half, `mov`s
/// into the halves of each address; or it copies a pointer's halves to every channel.
/// Only a guess: the shader checks every placed access against the pointer's
/// allocation (`flat_at`).
fn pointer_in_slice(c: &Chains, chain: &Chain, a: u32, b: u32) -> Option<u32> {
    let mut found: Vec<u32> = Vec::new();
    let mut seen: Vec<(u32, u32)> = Vec::new();
    let mut todo = vec![(a, b, 0u32)];
    while let Some((a, b, depth)) = todo.pop() {
        if seen.contains(&(a, b)) || depth > SLICE_DEPTH || seen.len() > 256 {
            continue;
        }
        seen.push((a, b));
        for &d in c.writers.of(a, b).iter() {
            let w = &c.p.insts[d];
            if super::is_message(w.op) {
                continue;
            }
            let (_, srcs, _) = w.alu_operands();
            for s in srcs {
                let Src::Direct { ty, .. } = s else { continue };
                let Some((at, stride)) = lanes::src_linear(s, w.exec.size as u32) else {
                    continue;
                };
                let size = ty.size();
                let n = if stride == 0 { 1 } else { w.exec.size as u32 };
                let end = at + (n - 1) * stride + size;
                // A pointer argument's low or high half, or the whole of it (read as a
                // scalar, or as its two dwords: `mov (M1_NM, 2)`).
                let pointer = c.p.inputs.iter().find_map(|&(goff, _, isize)| {
                    (isize == 8 && goff <= at && end <= goff + 8)
                        .then(|| chain.input_scalar(goff, 8))
                        .flatten()
                });
                if let Some(poff) = pointer {
                    if !found.contains(&poff) {
                        found.push(poff);
                    }
                    continue;
                }
                todo.push((at, end, depth + 1));
            }
        }
    }
    match found.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// Whether `inst`'s one destination is integer elements of `size` bytes from GRF
/// byte `at`, unsaturated, at horizontal stride `hs` where given.
fn writes_ints(inst: &PInst, at: u32, size: u32, hs: Option<u32>) -> bool {
    let (dsts, _, _) = inst.alu_operands();
    matches!(
        dsts.as_slice(),
        [Dst::Direct { off, ty, hs: h, sat: false }]
            if *off == at && ty.size() == size && ty.is_int() && hs.is_none_or(|x| x == *h)
    )
}

/// How far [`pointer_in_slice`] follows an address back.
const SLICE_DEPTH: u32 = 6;

/// A load from a flat (SVM / LSC stateless) address: SVM gathers and block loads, LSC
/// loads of `flat[...]` addresses.
fn flat_load(p: &Prepared, plan: &Plan, k: usize) -> bool {
    let inst = &p.insts[k];
    plan.mem[k] == (true, false)
        && match inst.op {
            Opcode::SvmGather | Opcode::SvmGather4Scaled | Opcode::SvmBlockLd => true,
            Opcode::LscUntyped => {
                int(inst, "LscSFID") != 3 && int(inst, "AddrType") == 1 && !is_atomic(inst)
            }
            _ => false,
        }
}

/// An atomic on a flat (SVM / LSC stateless) address whose result nobody reads and
/// whose updates commute with those of the same class: integer add/sub/inc/dec (one
/// class), and, or, xor, min, max (each its own). Returns (class, bytes).
fn free_atomic(p: &Prepared, k: usize) -> Option<(u8, u32)> {
    use crate::interp::memory::AtomicOp::{self, *};
    let inst = &p.insts[k];
    let (op, dst, bytes) = match inst.op {
        Opcode::SvmAtomic => (
            AtomicOp::from_legacy(int(inst, "Op"))?,
            field(inst, "Dst"),
            super::message::atomic_width(inst) / 8,
        ),
        Opcode::LscUntyped
            if is_atomic(inst) && int(inst, "LscSFID") != 3 && int(inst, "AddrType") != 4 =>
        {
            // The bytes each address touches: the message code's own reading.
            let bytes =
                super::message::lsc_shape(inst, inst.exec.size as u32, p.grf_bytes).mem_bytes;
            (
                AtomicOp::from_lsc(int(inst, "LscSubOp"))?,
                field(inst, "DstData"),
                bytes,
            )
        }
        _ => return None,
    };
    if !matches!(dst, Some(PField::Raw(None, _))) {
        return None;
    }
    let class = match op {
        Add | Sub | Inc | Dec | PreDec => 0,
        And => 1,
        Or => 2,
        Xor => 3,
        UMin => 4,
        UMax => 5,
        IMin => 6,
        IMax => 7,
        _ => return None,
    };
    Some((class, bytes))
}

fn is_atomic(inst: &PInst) -> bool {
    match inst.op {
        Opcode::DwordAtomic | Opcode::SvmAtomic | Opcode::TypedAtomic => true,
        Opcode::LscUntyped | Opcode::LscTyped => (0x08..=0x1a).contains(&int(inst, "LscSubOp")),
        _ => false,
    }
}

/// The space a memory instruction addresses, when it is known without running it.
pub(super) fn space(p: &Prepared, k: usize) -> Option<Space> {
    let inst = &p.insts[k];
    if inst.op == Opcode::LscUntyped {
        if int(inst, "LscSFID") == 3 {
            return Some(Space::Slm);
        }
        return match (int(inst, "AddrType"), field(inst, "Surface")) {
            (4, Some(PField::Src(Src::Imm { bits, .. }))) => Some(Space::Bti(*bits as u32)),
            _ => None,
        };
    }
    let id = match field(inst, "Surface") {
        Some(PField::Surface(id)) => *id,
        _ => return None,
    };
    match id {
        0 => return Some(Space::Slm),
        1..=4 => return None,
        5 => return Some(Space::Scratch),
        _ => {}
    }
    let nsurf = p.kernel.surfaces.len().max(8) as u16;
    if id >= nsurf {
        return Some(Space::Bti(id as u32));
    }
    // The surface variable's last move before `k` (the straight checks keep moves
    // outside the entry blocks local to their block), else the index itself.
    for j in (0..k).rev() {
        let prev = &p.insts[j];
        if prev.op != Opcode::Movs {
            continue;
        }
        let (dsts, srcs, _) = prev.alu_operands();
        if !dsts
            .iter()
            .any(|d| matches!(d, Dst::State { id: i } if *i == id))
        {
            continue;
        }
        return match srcs.first() {
            Some(Src::Imm { bits, .. }) if prev.pred.is_none() => {
                Some(Space::Bti(*bits as u32 & 0x7fff_ffff))
            }
            _ => None,
        };
    }
    if p.insts.iter().any(|i| {
        i.op == Opcode::Movs
            && i.alu_operands()
                .0
                .iter()
                .any(|d| matches!(d, Dst::State { id: x } if *x == id))
    }) {
        return None;
    }
    Some(Space::Bti(id as u32))
}

/// A per-lane memory instruction's address form.
fn access(p: &Prepared, plan: &Plan, k: usize) -> Option<Access> {
    use Opcode::*;
    let inst = &p.insts[k];
    if plan.run[k] != Run::PerLane || inst.pred.is_some() {
        return None;
    }
    let moff = inst.exec.mask.channel_offset();
    let n = inst.exec.size as u32;
    let dbg = |name: &str| format!("{:?}", field(inst, name));
    // The global offset of legacy messages: an immediate, or a register read whole
    // (QW messages' `Offset` is their per-lane address register instead).
    let scalar = match field(inst, "Offset") {
        _ if matches!(inst.op, QwGather | QwScatter) => None,
        Some(PField::Src(Src::Direct { off, ty, .. })) => Some((*off, ty.size())),
        Some(PField::Src(Src::Imm { .. })) | None => None,
        Some(_) => return None,
    };
    // Typed messages address texels: channels whose (U, V) coordinates differ touch
    // different texels whatever their R, so `U + 2^16 V` (modulo 2^32, as the forms
    // compute) is the address, one unit a channel (a texel): an image has at most
    // 16384 texels a side (`corpus::case`), so two texels inside it never share it,
    // and a texel outside is no access (a store there is dropped, a load reads 0). A
    // thread whose channels span rows (SIMD32 over 16-wide groups) needs V. The
    // surface and "typed" go into `rest`, so a typed access never pairs with a
    // byte-addressed one on the same entry. Samples take float coordinates (no affine
    // form): refused where a write may meet them.
    let typed = || {
        Some(Access {
            reg: raw(inst, "U")?,
            reg_v: raw(inst, "V"),
            asize: 4,
            rest: format!("typed {}", dbg("Surface")),
            scalar: None,
            scale: 1,
            pieces: vec![(0, 1)],
            moff,
            n,
        })
    };
    match inst.op {
        Gather4Scaled | Scatter4Scaled => {
            let mask = int(inst, "Channels") as u32 & 0xf;
            Some(Access {
                reg: raw(inst, "Element_offset")?,
                reg_v: None,
                asize: 4,
                rest: dbg("Offset"),
                scalar,
                scale: 1,
                pieces: (0..4)
                    .filter(|c| mask & (1 << c) != 0)
                    .map(|c| (4 * c as i64, 4))
                    .collect(),
                moff,
                n,
            })
        }
        GatherScaled | ScatterScaled => Some(Access {
            reg: raw(inst, "Element_offset")?,
            reg_v: None,
            asize: 4,
            rest: dbg("Offset"),
            scalar,
            scale: 1,
            pieces: vec![(0, 1 << (int(inst, "Num_blocks") & 3))],
            moff,
            n,
        }),
        // GATHER/SCATTER: element `Global_offset + Element_offset[i]` of Elt_size
        // bytes (the interpreter's `Thread::message`).
        Gather | Scatter => {
            let bytes = crate::interp::thread::elt_size_bytes(int(inst, "Elt_size"))?;
            let global = match field(inst, "Global_offset") {
                Some(PField::Src(Src::Direct { off, ty, .. })) => Some((*off, ty.size())),
                Some(PField::Src(Src::Imm { .. })) | None => None,
                Some(_) => return None,
            };
            Some(Access {
                reg: raw(inst, "Element_offset")?,
                reg_v: None,
                asize: 4,
                rest: format!("elements {}", dbg("Global_offset")),
                scalar: global,
                scale: bytes as i64,
                pieces: vec![(0, bytes)],
                moff,
                n,
            })
        }
        QwGather | QwScatter => Some(Access {
            reg: raw(inst, "Offset")?,
            reg_v: None,
            asize: 4,
            rest: String::new(),
            scalar: None,
            scale: 1,
            pieces: vec![(0, 8 << (int(inst, "Num_blocks") & 3))],
            moff,
            n,
        }),
        DwordAtomic => Some(Access {
            reg: raw(inst, "Element_offset")?,
            reg_v: None,
            asize: 4,
            rest: dbg("Offset"),
            scalar,
            scale: 1,
            pieces: vec![(0, super::message::atomic_width(inst) / 8)],
            moff,
            n,
        }),
        // SVM: each channel's own 64-bit address, its blocks back to back from there
        // (`svm_blocks`: Num_blocks of Block_size bytes).
        // An atomic's one element there.
        SvmGather | SvmScatter | SvmAtomic => {
            let bytes = if inst.op == SvmAtomic {
                super::message::atomic_width(inst) / 8
            } else {
                let (bsize, blocks) = crate::interp::thread::svm_blocks(inst, n);
                bsize * blocks.len() as u32
            };
            Some(Access {
                reg: raw(inst, "Addresses")?,
                reg_v: None,
                asize: 8,
                rest: "svm".into(),
                scalar: None,
                scale: 1,
                pieces: vec![(0, bytes)],
                moff,
                n,
            })
        }
        Gather4Typed | Scatter4Typed | TypedAtomic => typed(),
        D3Load if crate::interp::thread::sampler_coords(inst).is_ok() => typed(),
        LscUntyped => {
            let s = super::message::lsc_shape(inst, n, p.grf_bytes);
            // Strided and quad messages: not placed (the thread mapping runs them
            // where another channel's access may meet theirs).
            if s.transpose || matches!(int(inst, "LscSubOp"), 0x01..=0x03 | 0x05..=0x07) {
                return None;
            }
            Some(Access {
                reg: raw(inst, "Src0Addrs")?,
                reg_v: None,
                asize: s.asize,
                rest: format!(
                    "{} {} {}",
                    int(inst, "AddrImmOffset"),
                    int(inst, "AddrType"),
                    dbg("Surface")
                ),
                scalar: None,
                scale: int(inst, "AddrScale").max(1) as i64,
                pieces: lsc_pieces(p, plan, inst, &s, n),
                moff,
                n,
            })
        }
        _ => None,
    }
}

/// The bytes an untransposed LSC message touches per channel: its elements, `mem_bytes`
/// apart. A load's element that no instruction ever reads from its registers is left
/// out: what it loads cannot be observed, so another channel's store to those bytes
/// does not matter (acm-g10's reduction loads `s[l .. l + 3]` and adds the first and
/// the third).
fn lsc_pieces(
    p: &Prepared,
    plan: &Plan,
    inst: &PInst,
    s: &super::message::LscShape,
    n: u32,
) -> Vec<(i64, u32)> {
    let vec = s.vec.max(1);
    let load = int(inst, "LscSubOp") == 0x00;
    let dst = raw(inst, "DstData");
    (0..vec)
        .filter(|&v| {
            let (true, Some(base)) = (load && vec > 1, dst) else {
                return true;
            };
            let (a, b) = (base + v * s.pitch, base + v * s.pitch + n * s.slot);
            (0..p.insts.len()).any(|k| plan.reads[k].0.iter().any(|&(x, y)| x < b && a < y))
        })
        .map(|v| (i64::from(v * s.mem_bytes), s.mem_bytes))
        .collect()
}

/// The launch vector both accesses' addresses are injective in, when every channel's
/// address is the same function of its element of that vector at `x` and at `y`.
#[allow(clippy::too_many_arguments)]
/// [`Chains::vector_at`]'s question: instruction, register, element bytes, first
/// channel, channels.
type VectorAt = (usize, u32, u32, u32, u32);

/// What every [`Chain`] of one analysis shares.
struct Chains<'a> {
    p: &'a Prepared,
    plan: &'a Plan,
    block_of: &'a [usize],
    prefix: usize,
    preds: &'a [Vec<usize>],
    dom: &'a [Vec<bool>],
    loops: &'a [(usize, usize)],
    passes: &'a RefCell<Passes>,
    /// Which instructions write which registers.
    writers: &'a WriterIndex<'a>,
    /// Each instruction's [`access`], made at the first question: the pairs below ask
    /// for every memory instruction's once per partner (private_array_large SIMD32:
    /// 422 messages, 89,000 pairs, 40 ms formatting the same `rest` strings).
    accesses: std::cell::OnceCell<Vec<Option<Access>>>,
    /// [`Chains::vector_at`]'s answers: the pairs ask for each access's address form
    /// once per partner (private_array_large SIMD32: 45 ms). The analysis registers
    /// what it finds in `passes` by value (`Passes::node` reuses an equal node), so an
    /// answer made again would be the same.
    vectors: RefCell<super::fast_map::FastMap<VectorAt, Option<Affine>>>,
}

impl Chains<'_> {
    /// Instruction `k`'s per-lane access ([`access`]), remembered.
    fn access(&self, k: usize) -> Option<&Access> {
        self.accesses
            .get_or_init(|| {
                (0..self.p.insts.len())
                    .map(|k| access(self.p, self.plan, k))
                    .collect()
            })
            .get(k)?
            .as_ref()
    }

    /// The function of the channel that lane vector `reg` holds where instruction `k`
    /// reads it ([`Chain::vector`] in `k`'s chain), remembered.
    fn vector_at(&self, k: usize, reg: u32, e: u32, moff: u32, n: u32) -> Option<Affine> {
        let key = (k, reg, e, moff, n);
        if let Some(v) = self.vectors.borrow().get(&key) {
            return v.clone();
        }
        let v = self.chain(k).vector(reg, e, moff, n, k, 0);
        self.vectors.borrow_mut().insert(key, v.clone());
        v
    }
}

/// The instructions that write into GRF byte ranges, found through an index of
/// 32-byte rows and remembered per range: the analysis asks for the writers of the
/// same address and scalar bytes from every access, and scanning the whole kernel for
/// each (`writes_any` over every instruction) took private_array_large's lane
/// translation 0.5-0.6 s (SIMD32), 0.2-0.3 s with this index.
struct WriterIndex<'a> {
    plan: &'a Plan,
    /// By `(a, b)`: the instructions writing any byte of `[a, b)`, in order.
    memo: RefCell<Writers>,
    /// Per 32-byte row: the instructions writing into it, in order (built at the
    /// first question).
    rows: std::cell::OnceCell<Vec<Vec<u32>>>,
}

/// The instructions that write into each byte range asked about.
type Writers = std::collections::HashMap<(u32, u32), std::rc::Rc<[usize]>>;

/// Bytes of a [`WriterIndex`] row.
const ROW_BYTES: u32 = 32;

impl<'a> WriterIndex<'a> {
    fn new(plan: &'a Plan) -> WriterIndex<'a> {
        WriterIndex {
            plan,
            memo: Default::default(),
            rows: Default::default(),
        }
    }

    /// The instructions that write any byte of `[a, b)`, in order.
    fn of(&self, a: u32, b: u32) -> std::rc::Rc<[usize]> {
        self.memo
            .borrow_mut()
            .entry((a, b))
            .or_insert_with(|| {
                if a >= b {
                    return std::rc::Rc::from([]);
                }
                let rows = self.rows.get_or_init(|| {
                    let mut rows: Vec<Vec<u32>> = Vec::new();
                    for (d, (ranges, _)) in self.plan.writes.iter().enumerate() {
                        for &(x, y) in ranges.iter().filter(|r| r.0 < r.1) {
                            let last = ((y - 1) / ROW_BYTES) as usize;
                            if rows.len() <= last {
                                rows.resize(last + 1, Vec::new());
                            }
                            for row in &mut rows[(x / ROW_BYTES) as usize..=last] {
                                if row.last() != Some(&(d as u32)) {
                                    row.push(d as u32);
                                }
                            }
                        }
                    }
                    rows
                });
                let first = (a / ROW_BYTES) as usize;
                let last = (((b - 1) / ROW_BYTES) as usize).min(rows.len().saturating_sub(1));
                let mut found: Vec<usize> = rows
                    .get(first..=last)
                    .unwrap_or_default()
                    .iter()
                    .flatten()
                    .map(|&d| d as usize)
                    .filter(|&d| writes_any(self.plan, d, a, b))
                    .collect();
                found.sort_unstable();
                found.dedup();
                found.into()
            })
            .clone()
    }
}

impl Chains<'_> {
    /// Reaching definitions seen from the channels that run instruction `k`.
    fn chain(&self, k: usize) -> Chain<'_> {
        Chain {
            p: self.p,
            plan: self.plan,
            preds: self.preds,
            dom: self.dom,
            loops: self.loops,
            block_of: self.block_of,
            prefix: self.prefix,
            blocks: [self.block_of[k], self.block_of[k]],
            passes: self.passes,
            writers: self.writers,
        }
    }
}

fn same_lane_address(c: &Chains, targets: &[bool], x: usize, y: usize) -> Option<Vec<LaneForm>> {
    let (ax, ay) = (c.access(x)?, c.access(y)?);
    if ax.asize != ay.asize || ax.rest != ay.rest || ax.scale != ay.scale {
        return None;
    }
    // Each address's definitions must reach every channel at its own instruction.
    if let Some((at, size)) = ax.scalar {
        if !c.chain(x).fixed_scalar(at, size, x.min(y)) {
            return None;
        }
    }
    // Typed: U + 2^16 V where both V have a form, else U alone (apart when it is).
    let v_form = |a: &Access, k: usize| {
        let v = c.vector_at(k, a.reg_v?, a.asize, a.moff, a.n)?;
        v.scaled(1 << 16)
    };
    let (vx, vy) = match (v_form(ax, x), v_form(ay, y)) {
        (Some(vx), Some(vy)) => (Some(vx), Some(vy)),
        _ => (None, None),
    };
    let form = |a: &Access, k: usize, v: &Option<Affine>| -> Option<Affine> {
        let u = c.vector_at(k, a.reg, a.asize, a.moff, a.n)?;
        match v {
            None => Some(u),
            Some(v) => u.plus(v),
        }
    };
    let (fx, fy) = (form(ax, x, &vx)?, form(ay, y, &vy)?);
    forms_of(c, targets, (x, ax, fx), (y, ay, fy))
}

/// A flat access `flat` through the pointer argument at payload byte `poff` and a
/// binding-table access `bti` whose surface the pointer may point into: where the
/// pointer is the start of the surface's buffer (the host checks it,
/// `Conditions::flat_bti_start`), the flat address less the pointer is a byte offset
/// in the surface, so the two compare as two accesses of one surface. With the forms,
/// the payload byte offset of the input scalar that the binding-table address adds
/// (the pointer then lies that far into the buffer), if any. IGC on skl
/// stores `h[i]` through T6 on one path and through `svm_scatter` at `h + 2 i` on
/// another (convert_modes_double's half stores).
fn flat_bti_forms(
    c: &Chains,
    targets: &[bool],
    (flat, poff): (usize, u32),
    bti: usize,
) -> Option<(Vec<LaneForm>, Option<u32>)> {
    let p = c.p;
    let (af, ab) = (c.access(flat)?, c.access(bti)?);
    // Offsets from the surface's start alone: no global offset, no immediate.
    let no_offset = |k: usize| {
        let inst = &p.insts[k];
        let imm_zero = |name: &str| match field(inst, name) {
            None => true,
            Some(PField::Src(Src::Imm { bits, .. })) => *bits == 0,
            Some(PField::Int(v)) => *v == 0,
            Some(_) => false,
        };
        imm_zero("Offset") && imm_zero("AddrImmOffset")
    };
    if af.scale != ab.scale
        || af.reg_v.is_some()
        || ab.reg_v.is_some()
        || !no_offset(flat)
        || !no_offset(bti)
    {
        return None;
    }
    let ff = c.vector_at(flat, af.reg, af.asize, af.moff, af.n)?;
    let fb = c.vector_at(bti, ab.reg, ab.asize, ab.moff, ab.n)?;
    // The pointer's term taken out of the flat form.
    let is_pointer = |(s, m): &(Vec<Scalar>, i64)| {
        *m == 1
            && matches!(s.as_slice(), [s] if s.size == 8 && s.input == Some(poff) && s.pass.is_none())
    };
    if ff.uni.iter().filter(|u| is_pointer(u)).count() != 1 {
        return None;
    }
    let width = ff.width.min(fb.width);
    let uni: Vec<_> = ff.uni.iter().filter(|u| !is_pointer(u)).cloned().collect();
    // The binding-table address may add one input scalar that the flat one does not
    // (IGC's `bufferOffset` implicit argument): the host checks that the pointer lies
    // that far into the buffer.
    let mut extra = fb.uni.iter().filter(|u| !uni.contains(u));
    let (buni, soff) = match (extra.next(), extra.next()) {
        (None, _) => (fb.uni.clone(), None),
        (Some((sc, 1)), None) => match sc.as_slice() {
            [sc] if sc.size == 4 && sc.pass.is_none() && sc.input.is_some() => {
                let keep = fb.uni.iter().filter(|u| u.0 != [*sc]).cloned().collect();
                (keep, sc.input)
            }
            _ => return None,
        },
        _ => return None,
    };
    // Both modulo the narrower width (the host's check is modular, `overlap_at`).
    let ff = Affine {
        uni,
        width,
        wmax: width,
        ..ff
    };
    let fb = Affine {
        uni: buni,
        width,
        wmax: width,
        ..fb
    };
    let forms = if flat < bti {
        forms_of(c, targets, (flat, af, ff), (bti, ab, fb))
    } else {
        forms_of(c, targets, (bti, ab, fb), (flat, af, ff))
    }?;
    // Only one function at both: the host evaluates nothing it cannot.
    forms
        .iter()
        .all(|f| f.terms2.is_none())
        .then_some((forms, soff))
}

/// The launch forms under which accesses `x` and `y` (their addresses' functions
/// `fx`, `fy`) keep different channels' bytes apart, if there are any.
fn forms_of(
    c: &Chains,
    targets: &[bool],
    (x, ax, fx): (usize, &Access, Affine),
    (y, ay, fy): (usize, &Access, Affine),
) -> Option<Vec<LaneForm>> {
    let (cx, cy) = (c.chain(x), c.chain(y));
    let linear = |f: &Affine| Affine {
        konst: 0,
        ..f.clone()
    };
    // The same function at both (up to a constant, which the host's ranges take), or
    // two functions the host evaluates whole: then every uniform part must be a
    // product of kernel arguments (a `__local` array's offset) and each address
    // computed at one width.
    //
    // A form is each channel's address modulo 2^width (its narrowest step), whatever
    // the bits above, so two registers with one form may differ there (one offset
    // sign-extended, the other not). The host's check is modular too (`overlap_at`:
    // channel offsets apart by less than the bytes touched, modulo 2^width), and two
    // addresses that meet agree modulo 2^width: a pair it passes cannot meet.
    let same = linear(&fx) == linear(&fy);
    if fx.width < 32 {
        return None;
    }
    // One address for every channel at both, the same scalars apart by a constant
    // (`acc[0]` and `acc[1]`, each updated by every channel): apart when the bytes
    // are, whatever the channel.
    if same
        && fx.leaves.is_empty()
        && fx.width == fy.width
        && fx.uni.iter().flat_map(|u| &u.0).all(|s| s.pass.is_none())
        && fx.konst.abs() < 1 << 20
        && fy.konst.abs() < 1 << 20
    {
        let disjoint = ax.pieces.iter().all(|&(ox, lx)| {
            ay.pieces.iter().all(|&(oy, ly)| {
                let a = (fx.konst * ax.scale + ox, lx as i64);
                let b = (fy.konst * ay.scale + oy, ly as i64);
                a.0 + a.1 <= b.0 || b.0 + b.1 <= a.0
            })
        });
        if disjoint {
            return Some(Vec::new());
        }
    }
    if same && fx.leaves.is_empty() {
        return None;
    }
    if !same && (fx.width != fy.width || fx.width != fx.wmax || fy.width != fy.wmax) {
        return None;
    }
    let terms_of = |f: &Affine, uniform: bool| -> Option<Vec<Term>> {
        let mut out = f
            .leaves
            .iter()
            .map(|&(l, c)| {
                Some(Term {
                    offset: l.at,
                    bytes: l.bytes,
                    signed: l.signed,
                    factors: l.factors.iter().flatten().copied().collect(),
                    pass: Vec::new(),
                    coef: c.checked_mul(ax.scale)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        if uniform {
            for (scalars, c) in &f.uni {
                let (pass, inputs): (Vec<&Scalar>, Vec<&Scalar>) =
                    scalars.iter().partition(|s| s.pass.is_some());
                out.push(Term {
                    offset: 0,
                    bytes: 0,
                    signed: false,
                    factors: inputs
                        .iter()
                        .map(|s| s.input.map(|o| (o, s.size)))
                        .collect::<Option<Vec<_>>>()?,
                    pass: pass.iter().filter_map(|s| s.pass).collect(),
                    coef: c.checked_mul(ax.scale)?,
                });
            }
        }
        Some(out)
    };
    let terms = terms_of(&fx, !same)?;
    let terms2 = if same {
        None
    } else {
        Some(terms_of(&fy, true)?)
    };
    // The constants as the address computes them: wrapped to the width, scaled.
    let k = |f: &Affine| -> Option<i64> {
        let w = fx.width.min(64);
        let v = if w >= 64 {
            f.konst
        } else {
            (f.konst << (64 - w)) >> (64 - w)
        };
        v.checked_mul(ax.scale)
    };
    let (kx, ky) = (k(&fx)?, k(&fy)?);
    let guards = [guard(&cx, targets, x), guard(&cy, targets, y)];
    // Loop scalars on both sides must be one pass's values.
    let uses = |f: &Affine, g: &Option<Guard>| {
        let mut used = Vec::new();
        let passes = c.passes.borrow();
        for s in f.uni.iter().flat_map(|u| &u.0) {
            if let Some(t) = s.pass {
                passes.carried_in(t.r, &mut used);
            }
        }
        if let Some(b) = g.as_ref().and_then(|g| g.bound.as_ref()) {
            passes.carried_in(b.value.r, &mut used);
        }
        used
    };
    let (ux, uy) = (uses(&fx, &guards[0]), uses(&fy, &guards[1]));
    if !ux.is_empty() && !uy.is_empty() && !one_pass(c, &ux, &uy, x, y) {
        return None;
    }
    // A form per pair of pieces (a gather of channels R and B skips G's bytes).
    let mut forms = Vec::new();
    for &(ox, lx) in &ax.pieces {
        for &(oy, ly) in &ay.pieces {
            forms.push(LaneForm {
                terms: terms.clone(),
                terms2: terms2.clone(),
                width: fx.width,
                at: [(kx.checked_add(ox)?, lx), (ky.checked_add(oy)?, ly)],
                guards: guards.clone(),
            });
        }
    }
    // No pieces: a load none of whose elements is ever read.
    Some(forms)
}

/// Whether instructions `x` and `y` read one pass's values of the loop scalars whose
/// carried registers are `ux` and `uy` whenever two channels run them in one round:
/// all are carried around one loop `[t, j]`, and both instructions lie at or after `t`
/// and before a barrier whose block dominates the back edge's. Every way from either
/// instruction to the next pass then meets that barrier, so a round never holds one
/// of them in one pass and the other in the next.
fn one_pass(c: &Chains, ux: &[u16], uy: &[u16], x: usize, y: usize) -> bool {
    let passes = c.passes.borrow();
    let mut lps = ux.iter().chain(uy).map(|&i| passes.carried[i as usize].lp);
    let Some((t, j)) = lps.next() else {
        return true;
    };
    lps.all(|l| l == (t, j))
        && t <= x.min(y)
        && (x.max(y) + 1..=j)
            .any(|b| c.p.insts[b].op == Opcode::Barrier && c.dom[c.block_of[j]][c.block_of[b]])
}

/// Which channels can run instruction `k`, when only some pass the branch before it:
/// walking back from `k` over blocks nobody branches into, the first branch is a
/// `goto` whose predicate a compare of a launch vector with a constant set (IGC's
/// `if (get_local_id(0) < off)`), so the channels that fall through to `k` are those
/// whose element lies in an interval. `None` claims nothing (every channel may run it).
fn guard(chain: &Chain, targets: &[bool], k: usize) -> Option<Guard> {
    match guard_of(chain, targets, k, false)?.1 {
        OneChannel::Interval(g) => Some(g),
        OneChannel::Distinct(..) => None,
    }
}

/// The `goto` whose fall-through leads to instruction `k` with no branch target or
/// other control flow on the way (its position): the channels at `k` are those it let
/// through.
fn guarding_goto(chain: &Chain, targets: &[bool], k: usize) -> Option<usize> {
    let p = chain.p;
    let mut at = k;
    loop {
        // The first instruction of `at`'s block.
        let start = (0..=at)
            .rev()
            .find(|&j| j == 0 || chain.block_of[j - 1] != chain.block_of[at])?;
        if start == 0 || targets[start] {
            return None;
        }
        let prev = &p.insts[start - 1];
        if prev.op == Opcode::Goto {
            return Some(start - 1);
        }
        if super::blocks::ends_block(prev.op) {
            return None;
        }
        at = start - 1;
    }
}

/// What lets at most one channel of a thread through the branch before a whole-thread
/// store: a [`Guard`] the host counts, or an equality of one launch vector (plus what
/// every channel of the thread shares: `get_global_id(0) == 0`) with a constant, which
/// one channel at most meets where the vector's dispatched elements differ within each
/// thread (`Conditions::single_distinct`: payload byte offset and element bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
enum OneChannel {
    Interval(Guard),
    Distinct(Vec<(u32, u32)>),
}

/// The branch (its position) that guards instruction `k` and what its channels through
/// are: [`guard`]'s interval, or with `distinct` also [`OneChannel::Distinct`].
fn guard_of(
    chain: &Chain,
    targets: &[bool],
    k: usize,
    distinct: bool,
) -> Option<(usize, OneChannel)> {
    let p = chain.p;
    let g = guarding_goto(chain, targets, k)?;
    let goto = &p.insts[g];
    let pred = goto.pred?;
    if pred.combine != crate::ir::PredCombine::Sequential {
        return None;
    }
    // `(P) goto` lets through the channels whose P is clear, `(!P) goto` those with P set.
    let through_when_set = pred.inverse;
    let pid = pred.id.0 as u32;
    let gm = goto.exec.mask.channel_offset();
    let need = (gm, gm + goto.exec.size as u32);
    // IGC's `a && b`: a channel through where P is set had Q set, so Q's compare alone
    // holds the channels through (and maybe more, which only the count can miss).
    let (pid, through_when_set, also) = match conjunct(chain, pid, g) {
        Some((q, also)) if distinct && through_when_set => (q, true, also),
        _ => (pid, through_when_set, Vec::new()),
    };
    // Every write of P in the kernel: compares of one launch vector with one constant,
    // each before the goto in a block that dominates it (so every channel at the goto
    // ran them), together covering the goto's channels.
    let mut covered = Vec::new();
    let mut shape: Option<(Leaf, u64, GuardBound, bool)> = None;
    // The distinct form's one shape: the compare's type, its value's form and constant.
    let mut equal: Option<(DataType, Affine, i64)> = None;
    let gb = chain.block_of[g];
    for j in 0..p.insts.len() {
        if !chain.plan.writes[j].1.contains(&pid) {
            continue;
        }
        if j >= g || !chain.dom[gb][chain.block_of[j]] {
            return None;
        }
        let inst = &p.insts[j];
        if inst.op != Opcode::Cmp || inst.pred.is_some() || chain.plan.run[j] != Run::PerLane {
            return None;
        }
        let (dsts, srcs, ints) = inst.alu_operands();
        if !matches!(dsts.as_slice(), [Dst::Pred(d)] if d.0 as u32 == pid) {
            return None;
        }
        let rel = *ints.first()?;
        let moff = inst.exec.mask.channel_offset();
        let n = inst.exec.size as u32;
        let at_cmp = Chain {
            blocks: [chain.block_of[j], chain.block_of[j]],
            ..*chain
        };
        let swapped = swapped_rel(rel);
        // A scalar bound of the vector's own type, as the host computes it.
        let scalar = |s: &Src, v: &Src| -> Option<GuardBound> {
            let (
                Src::Direct {
                    ty,
                    m: Modifier::None,
                    ..
                },
                Src::Direct { ty: vt, .. },
            ) = (s, v)
            else {
                return None;
            };
            let (from, stride) = lanes::src_linear(s, n)?;
            if ty != vt || stride != 0 {
                return None;
            }
            let r = at_cmp.pass_ref(from, ty.size(), j, 0)?;
            Some(GuardBound::Value(Typed { r, ty: *ty }))
        };
        // `v rel K`, or `K rel v` turned around.
        let (v, bound, rel) = match srcs.as_slice() {
            [v @ Src::Direct { .. }, Src::Imm { ty, bits }] if ty.is_int() => {
                (v, GuardBound::Const(imm_value(*ty, *bits)), rel)
            }
            [Src::Imm { ty, bits }, v @ Src::Direct { .. }] if ty.is_int() => {
                (v, GuardBound::Const(imm_value(*ty, *bits)), swapped)
            }
            [v, s] if scalar(s, v).is_some() => (v, scalar(s, v)?, rel),
            [s, v] if scalar(s, v).is_some() => (v, scalar(s, v)?, swapped),
            _ => return None,
        };
        let (ty, off) = int_lane_vector(v, n)?;
        let f = at_cmp.vector(off, ty.size(), moff, n, j, 0)?;
        // `v == K` where v is one-to-one in a launch vector's element plus what the
        // thread's channels share (the vector alone, at coefficient 1, is the
        // interval's exact count below).
        let this = match (rel, bound) {
            (0, GuardBound::Const(k)) => Some((ty, f.clone(), k)),
            _ => None,
        };
        if let Some(this) = this.filter(|(t, f, _)| {
            distinct
                && one_to_one(*t, f).is_some()
                && (!f.uni.is_empty() || f.konst != 0 || f.leaves[0].1 != 1)
        }) {
            if equal.as_ref().is_some_and(|e| *e != this) || shape.is_some() {
                return None;
            }
            equal = Some(this);
            covered.push((moff, moff + n));
            continue;
        }
        if equal.is_some() {
            return None;
        }
        let [(leaf, 1)] = f.leaves.as_slice() else {
            return None;
        };
        // The register holds the payload element itself: at its full size, read as
        // the compare's type; or extended as the copy's source type says (IGC's
        // `mov (16) l:d ids:uw`) into a wider type, which holds every such value.
        if !f.uni.is_empty()
            || f.konst != 0
            || f.width < 8 * ty.size()
            || leaf.bytes > ty.size()
            || leaf.factors != [None; 3]
        {
            return None;
        }
        let signed = if leaf.bytes == ty.size() {
            lane_passes::signed(ty)
        } else {
            leaf.signed
        };
        let this = (*leaf, rel, bound, signed);
        if shape.is_some_and(|s| s != this) {
            return None;
        }
        shape = Some(this);
        covered.push((moff, moff + n));
    }
    covered.sort_unstable();
    // Overlapping writes: the later one would decide some channels.
    if covered.windows(2).any(|w| w[1].0 < w[0].1) {
        return None;
    }
    if !covers(&covered, need) {
        return None;
    }
    if let Some((ty, f, _)) = &equal {
        // Through where equal only: `(!P) goto` on `cmp.eq`.
        let mut vectors = vec![one_to_one(*ty, f)?];
        // The `&&`'s other compare, where it is an equality of the same shape in
        // every part: the channels through hold distinct pairs.
        let other: Option<Vec<_>> = also.iter().map(|&w| equality(chain, w)).collect();
        if let Some([first, rest @ ..]) = other.as_deref() {
            if rest.iter().all(|o| o == first) {
                vectors.extend(one_to_one(first.0, &first.1));
            }
        }
        return through_when_set.then_some((g, OneChannel::Distinct(vectors)));
    }
    let (leaf, rel, bound, signed) = shape?;
    // The interval of v where the channel goes through: now, or per valuation of the
    // bound (a relation the interval cannot express is refused either way).
    let rel = u8::try_from(rel).ok()?;
    let ((lo, hi), bound) = match bound {
        GuardBound::Const(k) => (through_interval(rel, k, through_when_set)?, None),
        GuardBound::Value(value) => {
            through_interval(rel, 0, through_when_set)?;
            (
                (i64::MIN, i64::MAX),
                Some(Bound {
                    value,
                    rel,
                    through_when_set,
                }),
            )
        }
    };
    Some((
        g,
        OneChannel::Interval(Guard {
            offset: leaf.at,
            bytes: leaf.bytes,
            signed,
            lo,
            hi,
            bound,
        }),
    ))
}

/// `s` as an unmodified direct source over `n` channels whose element `i` lies at
/// `off + i · stride`: its type, `off` and `stride`.
pub(super) fn plain_linear(s: &Src, n: u32) -> Option<(DataType, u32, u32)> {
    let Src::Direct {
        ty,
        m: Modifier::None,
        ..
    } = s
    else {
        return None;
    };
    let (off, stride) = lanes::src_linear(s, n)?;
    Some((*ty, off, stride))
}

/// `s` read as an integer lane vector over `n` channels: a [`plain_linear`] source
/// whose elements lie back to back (its type and `off`).
pub(super) fn int_lane_vector(s: &Src, n: u32) -> Option<(DataType, u32)> {
    let (ty, off, stride) = plain_linear(s, n)?;
    (ty.is_int() && stride == ty.size()).then_some((ty, off))
}

/// `cmp.eq v K` at `j`, K an integer immediate and v a linear integer operand: v's
/// type, its form and K.
fn equality(chain: &Chain, j: usize) -> Option<(DataType, Affine, i64)> {
    let inst = &chain.p.insts[j];
    let (_, srcs, ints) = inst.alu_operands();
    if inst.op != Opcode::Cmp
        || inst.pred.is_some()
        || chain.plan.run[j] != Run::PerLane
        || ints.first() != Some(&0)
    {
        return None;
    }
    let (v, k) = match srcs.as_slice() {
        [v @ Src::Direct { .. }, Src::Imm { ty, bits }]
        | [Src::Imm { ty, bits }, v @ Src::Direct { .. }]
            if ty.is_int() =>
        {
            (v, imm_value(*ty, *bits))
        }
        _ => return None,
    };
    let n = inst.exec.size as u32;
    let (ty, off) = int_lane_vector(v, n)?;
    let at_cmp = Chain {
        blocks: [chain.block_of[j]; 2],
        ..*chain
    };
    let f = at_cmp.vector(off, ty.size(), inst.exec.mask.channel_offset(), n, j, 0)?;
    Some((ty, f, k))
}

/// The launch vector `(payload byte offset, element bytes)` that a compare of `ty`
/// values of form `f` is one-to-one in: ±1 times the vector, no wider than the
/// compare, plus what every channel of the thread shares.
fn one_to_one(ty: DataType, f: &Affine) -> Option<(u32, u32)> {
    let [(leaf, 1 | -1)] = f.leaves.as_slice() else {
        return None;
    };
    (leaf.factors == [None; 3] && leaf.bytes <= ty.size() && f.width >= 8 * ty.size())
        .then_some((leaf.at, leaf.bytes))
}

/// IGC's `a && b` of two compares: `(Q) sel V -W 0` and then `cmp.ne P V 0`, each the
/// one instruction that writes P or V, for the same channels: where P is set, V is
/// not 0, so Q was set at the `sel`. Q (its id), where P (`pid`, read by the branch at
/// `g`) has that shape, and the compares that wrote W (`cmp.eq W ...`: all ones where
/// equal, else 0), each W's one writer, for every part of P (none where a W has
/// another writer: then Q alone counts).
fn conjunct(chain: &Chain, pid: u32, g: usize) -> Option<(u32, Vec<usize>)> {
    let p = chain.p;
    let only_writer = |a: u32, b: u32| match *chain.writers.of(a, b) {
        [k] => Some(k),
        _ => None,
    };
    let gb = chain.block_of[g];
    let mut found = None;
    let mut also = Some(Vec::new());
    // Each write of P (a SIMD32 compare's two halves): its own V and `sel`, one Q.
    for j in (0..p.insts.len()).filter(|&j| chain.plan.writes[j].1.contains(&pid)) {
        let cmp = &p.insts[j];
        let (dsts, srcs, ints) = cmp.alu_operands();
        if cmp.op != Opcode::Cmp
            || cmp.pred.is_some()
            || j >= g
            || !chain.dom[gb][chain.block_of[j]]
            || ints.first() != Some(&1)
            || !matches!(dsts.as_slice(), [Dst::Pred(d)] if d.0 as u32 == pid)
        {
            return None;
        }
        let n = cmp.exec.size as u32;
        let [v, Src::Imm { bits: 0, .. }] = srcs.as_slice() else {
            return None;
        };
        let (ty, off) = int_lane_vector(v, n)?;
        let stride = ty.size();
        let k = only_writer(off, off + n * stride)?;
        let sel = &p.insts[k];
        let q = sel.pred?;
        let (_, ssrcs, _) = sel.alu_operands();
        let same_channels = sel.exec.size == cmp.exec.size
            && sel.exec.mask.channel_offset() == cmp.exec.mask.channel_offset();
        let shaped = sel.op == Opcode::Sel
            && k < j
            && chain.dom[chain.block_of[j]][chain.block_of[k]]
            && !q.inverse
            && q.combine == crate::ir::PredCombine::Sequential
            && same_channels
            && writes_ints(sel, off, ty.size(), Some(1))
            && matches!(ssrcs.as_slice(), [_, Src::Imm { bits: 0, .. }]);
        let q = q.id.0 as u32;
        if !shaped || found.is_some_and(|f| f != q) {
            return None;
        }
        found = Some(q);
        // W: `-W` at the same type, written whole by one compare into the register.
        let w = match ssrcs.as_slice() {
            [w @ Src::Direct {
                ty: wt,
                m: Modifier::Neg,
                ..
            }, _]
                if *wt == ty =>
            {
                lanes::src_linear(w, n)
                    .filter(|&(_, st)| st == ty.size())
                    .and_then(|(wo, _)| only_writer(wo, wo + n * ty.size()))
                    .filter(|&c| {
                        let wc = &p.insts[c];
                        wc.op == Opcode::Cmp
                            && c < k
                            && chain.dom[chain.block_of[k]][chain.block_of[c]]
                            && wc.exec.size == sel.exec.size
                            && wc.exec.mask.channel_offset() == sel.exec.mask.channel_offset()
                            && writes_ints(
                                wc,
                                lanes::src_linear(w, n).map_or(0, |x| x.0),
                                ty.size(),
                                Some(1),
                            )
                    })
            }
            _ => None,
        };
        match (w, also.as_mut()) {
            (Some(c), Some(v)) => v.push(c),
            _ => also = None,
        }
    }
    found.map(|q| (q, also.unwrap_or_default()))
}

/// Whether channel ranges `sorted` (by start) together cover `from..to`.
fn covers(sorted: &[(u32, u32)], (from, to): (u32, u32)) -> bool {
    let mut upto = from;
    for &(a, b) in sorted {
        if a <= upto {
            upto = upto.max(b);
        }
    }
    upto >= to
}

/// `K rel v` as `v rel' K`: gt and lt, ge and le trade places.
fn swapped_rel(rel: u64) -> u64 {
    match rel {
        2 => 4,
        3 => 5,
        4 => 2,
        5 => 3,
        r => r,
    }
}

/// A guard's compare operand: an immediate, or a scalar the host evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GuardBound {
    Const(i64),
    Value(Typed),
}

/// Dominators of the blocks (`block_of`: each instruction's block; blocks are
/// contiguous, block 0 is the entry). `dom[b][a]`: `a` dominates `b`.
pub(super) fn dominators(p: &Prepared, block_of: &[usize]) -> Vec<Vec<bool>> {
    dominators_of(&predecessors(p, block_of))
}

/// Each block's predecessors: a block's successors are the next block (always, which
/// is conservative: more predecessors, fewer dominators; a subroutine's body is passed
/// over by its call's fall-through) and its branch targets.
fn predecessors(p: &Prepared, block_of: &[usize]) -> Vec<Vec<usize>> {
    let n = block_of.last().map_or(0, |&b| b + 1);
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, inst) in p.insts.iter().enumerate() {
        let b = block_of[k];
        if k + 1 < block_of.len() && block_of[k + 1] != b {
            preds[block_of[k + 1]].push(b);
        }
        for t in super::blocks::targets(inst) {
            if let Some(&tb) = block_of.get(t as usize) {
                if tb != b || t as usize <= k {
                    preds[tb].push(b);
                }
            }
        }
    }
    preds
}

/// [`dominators`] from the predecessors: the greatest fixed point of the dataflow
/// equations, iterated from "everything dominates" (back edges included).
fn dominators_of(preds: &[Vec<usize>]) -> Vec<Vec<bool>> {
    let n = preds.len();
    let mut dom = vec![vec![true; n]; n];
    if n > 0 {
        dom[0] = vec![false; n];
        dom[0][0] = true;
    }
    // Each round can only remove dominators, so this ends within n * n rounds.
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..n {
            let mut d = vec![true; n];
            if preds[b].is_empty() {
                // Unreachable: claim nothing.
                d = vec![false; n];
            }
            for &q in &preds[b] {
                for (x, y) in d.iter_mut().zip(&dom[q]) {
                    *x = *x && *y;
                }
            }
            d[b] = true;
            if d != dom[b] {
                dom[b] = d;
                changed = true;
            }
        }
    }
    dom
}

/// Loops as instruction ranges `[t, j]`: a branch at `j` back to `t <= j`.
fn loops_of(p: &Prepared) -> Vec<(usize, usize)> {
    p.insts
        .iter()
        .enumerate()
        .flat_map(|(j, inst)| {
            super::blocks::targets(inst)
                .into_iter()
                .filter(move |&t| (t as usize) <= j)
                .map(move |t| (t as usize, j))
        })
        .collect()
}

fn writes_any(plan: &Plan, k: usize, a: u32, b: u32) -> bool {
    plan.writes[k].0.iter().any(|&(x, y)| x < b && a < y)
}

/// Reaching definitions in a straight kernel, seen from the channels that run both
/// `blocks`.
struct Chain<'a> {
    p: &'a Prepared,
    plan: &'a Plan,
    /// Each block's predecessors ([`predecessors`]).
    preds: &'a [Vec<usize>],
    /// `dom[b][a]`: block `a` dominates block `b`.
    dom: &'a [Vec<bool>],
    /// Loops `[t, j]` ([`loops_of`]).
    loops: &'a [(usize, usize)],
    block_of: &'a [usize],
    prefix: usize,
    blocks: [usize; 2],
    /// The loop scalars' expressions, shared by the analysis.
    passes: &'a RefCell<Passes>,
    writers: &'a WriterIndex<'a>,
}

impl Chain<'_> {
    /// The last instruction before `before` that writes any of `[a, b)`, if any:
    /// `Err` when another write can reach `before` too, around a loop.
    ///
    /// In program order the last writer `d` is the only one on every forward path
    /// from `d` (the callers also require that `d` dominates the reads). A path that
    /// brings another writer's value must take a back edge: of a loop around
    /// `before` whose range holds that writer (a loop that ends before `before`
    /// leaves it through `d`, which dominates). So no other writer may lie in a loop
    /// around `before`.
    ///
    /// One exception: where `d` lies in the only loop around `before`, at or after its
    /// start `t`, which dominates both, and `d` dominates `before`, every way from the
    /// start of a pass to `before` passes `d` (the first arrival at `t` cannot have
    /// passed `d`, which `t` dominates), so `d`'s value of the same pass reaches it.
    fn reaching(&self, a: u32, b: u32, before: usize) -> Result<Option<usize>, ()> {
        let writers = self.writers.of(a, b);
        let d = writers.iter().rev().find(|&&k| k < before).copied();
        for &(t, j) in self.loops {
            if t <= before
                && before <= j
                && writers
                    .iter()
                    .any(|&k| (t..=j).contains(&k) && Some(k) != d)
                && !d.is_some_and(|d| self.in_pass(d, (t, j), before))
            {
                return Err(());
            }
        }
        Ok(d)
    }

    /// `d` in loop `[t, j]` before `before`, as [`Chain::reaching`] allows.
    fn in_pass(&self, d: usize, (t, j): (usize, usize), before: usize) -> bool {
        t <= d
            && self.alone((t, j))
            && self.dominates(t, before)
            && self.dominates(t, d)
            && self.dominates(d, before)
    }

    /// No other loop lies inside loop `[t, j]` or crosses it.
    fn alone(&self, (t, j): (usize, usize)) -> bool {
        self.loops
            .iter()
            .all(|&(t2, j2)| (t2, j2) == (t, j) || j2 < t || j < t2)
    }

    /// Instruction `d`'s block dominates instruction `k`'s.
    fn dominates(&self, d: usize, k: usize) -> bool {
        self.dom[self.block_of[k]][self.block_of[d]]
    }

    /// Every channel at instruction `k` ran instruction `d` before it: `d` lies in an
    /// entry block or its block dominates `k`'s.
    fn ran_before(&self, d: usize, k: usize) -> bool {
        self.block_of[d] < self.prefix || self.dominates(d, k)
    }

    /// Whether scalar bytes `[at, at + size)` hold one value wherever instruction `d`
    /// or a later one reads them: written at most once, in an entry block, before `d`.
    fn fixed_scalar(&self, at: u32, size: u32, d: usize) -> bool {
        match *self.writers.of(at, at + size) {
            [] => true,
            [w] => w < d && self.block_of[w] < self.prefix,
            _ => false,
        }
    }

    /// The payload byte offset of scalar bytes `[at, at + size)` when the launch gives
    /// them (one input holds them) and no instruction writes them.
    fn input_scalar(&self, at: u32, size: u32) -> Option<u32> {
        self.input_scalar_within(at, size, 4)
    }

    fn input_scalar_within(&self, at: u32, size: u32, copies: u32) -> Option<u32> {
        match *self.writers.of(at, at + size) {
            [] => {
                let &(goff, poff, _) = self
                    .p
                    .inputs
                    .iter()
                    .find(|&&(goff, _, isize)| goff <= at && at + size <= goff + isize)?;
                Some(poff + (at - goff))
            }
            // A copy of an input (IGC moves a `__local` argument's offset into a
            // register of its own): the input's value, when the copy is exact.
            [w] if copies > 0 => {
                let inst = &self.p.insts[w];
                let (dsts, srcs, _) = inst.alu_operands();
                let exact = inst.op == Opcode::Mov
                    && inst.pred.is_none()
                    && inst.exec.size == 1
                    && matches!(dsts.as_slice(), [Dst::Direct { off, ty, sat: false, .. }]
                        if *off == at && ty.size() == size && ty.is_int());
                match (exact, srcs.as_slice()) {
                    (
                        true,
                        [Src::Direct {
                            off,
                            ty,
                            m: Modifier::None,
                            ..
                        }],
                    ) if ty.size() == size && ty.is_int() && *off != at => {
                        let (from, stride) = lanes::src_linear(srcs[0], 1)?;
                        (stride == 0 || inst.exec.size == 1)
                            .then_some(())
                            .and_then(|_| self.input_scalar_within(from, size, copies - 1))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The value scalar bytes `[at, at + size)` hold when instruction `before` reads
    /// them, as an expression the host evaluates ([`lane_passes`]): the launch's
    /// input, a NoMask scalar integer instruction every channel there ran, or the
    /// register's value at the top of the pass of the loop around `before`.
    fn pass_ref(&self, at: u32, size: u32, before: usize, depth: u32) -> Option<Ref> {
        if depth > 16 {
            return None;
        }
        match self.reaching(at, at + size, before) {
            Ok(None) => self.launch_input(at, size),
            Ok(Some(d)) => {
                if !self.ran_before(d, before) {
                    return None;
                }
                self.def_node(d, at, size, depth)
            }
            Err(()) => self.carried(at, size, before, depth),
        }
    }

    /// The payload bytes of scalar bytes `[at, at + size)` where the launch gives them.
    fn launch_input(&self, at: u32, size: u32) -> Option<Ref> {
        let &(goff, poff, _) = self
            .p
            .inputs
            .iter()
            .find(|&&(goff, _, isize)| goff <= at && at + size <= goff + isize)?;
        Some(Ref::Input(poff + (at - goff), size))
    }

    /// Instruction `d`'s result as a node: a NoMask scalar integer operation writing
    /// exactly `[at, at + size)` from immediates and scalars.
    fn def_node(&self, d: usize, at: u32, size: u32, depth: u32) -> Option<Ref> {
        let inst = &self.p.insts[d];
        if inst.exec.size != 1
            || !inst.exec.mask.no_mask
            || inst.pred.is_some()
            || self.plan.run[d] != Run::Uniform
        {
            return None;
        }
        if !writes_ints(inst, at, size, None) {
            return None;
        }
        let (dsts, srcs, ints) = inst.alu_operands();
        let ty = dsts[0].ty();
        use AluOp as A;
        let op = AluOp::from_opcode(inst.op, &ints)?;
        let plain = matches!(
            op,
            A::Mov | A::Add | A::Mul | A::Shl | A::Shr | A::Asr | A::And | A::Or | A::Xor | A::Not
        );
        if !plain || srcs.len() != op.arity() {
            return None;
        }
        let mut operands = Vec::new();
        for s in srcs {
            operands.push(match s {
                Src::Imm { ty, bits } if ty.is_int() && !ty.is_packed() => {
                    (Ref::Imm(*bits), *ty, Modifier::None)
                }
                Src::Direct { ty, m, .. }
                    if ty.is_int() && matches!(m, Modifier::None | Modifier::Neg) =>
                {
                    let (from, _) = lanes::src_linear(s, 1)?;
                    (self.pass_ref(from, ty.size(), d, depth + 1)?, *ty, *m)
                }
                _ => return None,
            });
        }
        self.passes.borrow_mut().node(Node {
            op,
            dst: ty,
            srcs: operands,
        })
    }

    /// Register `[at, at + size)` at the top of a pass of the one loop `[t, j]` around
    /// `before`, where `before` reads the value the pass started with: nothing in the
    /// loop writes it before `before` and one instruction at or after it does (the
    /// update; no other loop meets this one, so it runs once per pass at most). The
    /// start is the write that reaches `t` from before the loop, which dominates it.
    fn carried(&self, at: u32, size: u32, before: usize, depth: u32) -> Option<Ref> {
        let around: Vec<(usize, usize)> = self
            .loops
            .iter()
            .copied()
            .filter(|&(t, j)| t <= before && before <= j)
            .collect();
        let &[(t, j)] = around.as_slice() else {
            return None;
        };
        if !self.alone((t, j)) || !self.dominates(t, before) {
            return None;
        }
        let writers: Vec<usize> = self
            .writers
            .of(at, at + size)
            .iter()
            .copied()
            .filter(|k| (t..=j).contains(k))
            .collect();
        let &[w] = writers.as_slice() else {
            return None;
        };
        if w < before {
            return None;
        }
        let known = self
            .passes
            .borrow()
            .carried
            .iter()
            .position(|c| c.at == at && c.bytes == size && c.lp == (t, j));
        if let Some(i) = known {
            return Some(Ref::Carried(i as u16));
        }
        let init = match self
            .writers
            .of(at, at + size)
            .iter()
            .rev()
            .find(|&&k| k < t)
            .copied()
        {
            None => self.launch_input(at, size)?,
            Some(d0) => {
                if !self.ran_before(d0, t) {
                    return None;
                }
                self.def_node(d0, at, size, depth + 1)?
            }
        };
        // Registered before its update is built: the update reads it.
        let id = {
            let mut passes = self.passes.borrow_mut();
            let id = u16::try_from(passes.carried.len()).ok()?;
            passes.carried.push(Carried {
                at,
                bytes: size,
                lp: (t, j),
                init,
                update: init,
            });
            id
        };
        let update = self.def_node(w, at, size, depth + 1);
        let mut passes = self.passes.borrow_mut();
        let (mut from_init, mut from_update) = (Vec::new(), Vec::new());
        passes.carried_in(init, &mut from_init);
        if let Some(u) = update {
            passes.carried_in(u, &mut from_update);
        }
        match update {
            Some(u) if from_init.is_empty() && from_update.iter().all(|&i| i == id) => {
                passes.carried[id as usize].update = u;
                Some(Ref::Carried(id))
            }
            // Nothing refers to what was registered since (the caller fails too).
            _ => {
                passes.carried.truncate(id as usize);
                None
            }
        }
    }

    /// Every channel that reaches `blocks` ran instruction `d`: its block dominates
    /// theirs (an entry block always does). With `d` the last writer before them in
    /// program order, which is a topological order here, no other write comes between
    /// on any path.
    fn ran_by_all(&self, d: usize) -> bool {
        let bd = self.block_of[d];
        bd < self.prefix || self.blocks.iter().all(|&b| self.dom[b][bd])
    }

    /// The function of the channel that lane vector `reg` (elements of `e` bytes,
    /// element `i` for channel `i + moff`, channels `moff..moff + n`) holds when
    /// instruction `before` reads it.
    fn vector(
        &self,
        reg: u32,
        e: u32,
        moff: u32,
        n: u32,
        before: usize,
        depth: u32,
    ) -> Option<Affine> {
        self.vector_whole(reg, e, moff, n, before, depth)
            .or_else(|| {
                (e == 8)
                    .then(|| self.low_halves(reg, moff, n, before, depth))
                    .flatten()
            })
    }

    /// 64-bit addresses that IGC writes as dword halves (`mov (M1, 16) V(0,0)<2> L`,
    /// then the high halves): the function of their low halves, at 32 bits. Every
    /// allocation starts on a 4 GiB boundary and is smaller than 4 GiB
    /// (`abi::launch::BASE`, `STRIDE`), and a placed access is checked to lie in its
    /// base's allocation (`flat_at`), so two such addresses in one allocation are
    /// apart exactly when their low halves are.
    fn low_halves(&self, reg: u32, moff: u32, n: u32, before: usize, depth: u32) -> Option<Affine> {
        if depth > 16 || n == 0 {
            return None;
        }
        let d = self.reaching(reg, reg + 4, before).ok()??;
        for i in 1..n {
            let lo = reg + 8 * i;
            if self.reaching(lo, lo + 4, before).ok()? != Some(d) {
                return None;
            }
        }
        let inst = &self.p.insts[d];
        if inst.op != Opcode::Mov || !self.lane_def(d, moff, n) {
            return None;
        }
        let (_, srcs, _) = inst.alu_operands();
        let [src] = srcs.as_slice() else {
            return None;
        };
        if !writes_ints(inst, reg, 4, Some(2)) {
            return None;
        }
        let mut f = match self.source(src, inst, 4, moff, n, d, depth + 1)? {
            Value::Lane(f) => f,
            Value::Const(k) => Affine::constant(k),
        };
        f.width = f.width.min(32);
        f.wmax = f.wmax.max(32);
        Some(f)
    }

    /// Definition `d` computes channels `moff..moff + n` for every channel there, each
    /// its own element, unpredicated.
    fn lane_def(&self, d: usize, moff: u32, n: u32) -> bool {
        let inst = &self.p.insts[d];
        self.ran_by_all(d)
            && self.plan.run[d] == Run::PerLane
            && inst.pred.is_none()
            && inst.exec.mask.channel_offset() == moff
            && inst.exec.size as u32 >= n
    }

    #[allow(clippy::too_many_arguments)]
    fn vector_whole(
        &self,
        reg: u32,
        e: u32,
        moff: u32,
        n: u32,
        before: usize,
        depth: u32,
    ) -> Option<Affine> {
        let p = self.p;
        if depth > 16 {
            return None;
        }
        let end = reg + n * e;
        let reached = self.reaching(reg, end, before);
        let agreed = || self.agreed_defs(reg, e, moff, n, before, depth);
        let Ok(reached) = reached else {
            return agreed();
        };
        let Some(d) = reached else {
            // The launch's value: one input holds the whole vector.
            let &(goff, poff, _) = p
                .inputs
                .iter()
                .find(|&&(goff, _, size)| goff <= reg && end <= goff + size)?;
            let at = poff + (reg - goff);
            return Some(Affine {
                leaves: vec![(
                    Leaf {
                        at: at.checked_sub(moff * e)?,
                        bytes: e,
                        signed: false,
                        factors: [None; 3],
                    },
                    1,
                )],
                uni: Vec::new(),
                konst: 0,
                width: 64,
                wmax: 0,
            });
        };
        let inst = &p.insts[d];
        if !self.lane_def(d, moff, n) {
            // Part of a wider definition's vector (a SIMD16 coordinate read by the
            // M3 half of a SIMD8 pair): that vector's function, which is every
            // channel's of it, when that definition reaches the whole vector.
            let (dm, dn) = (inst.exec.mask.channel_offset(), inst.exec.size as u32);
            if dm < moff && moff + n <= dm + dn && self.lane_def(d, dm, dn) {
                let base = reg.checked_sub((moff - dm) * e)?;
                return self.vector_whole(base, e, dm, dn, before, depth + 1);
            }
            return agreed();
        }
        self.def_value(d, reg, e, moff, n, depth)
    }

    /// The function that definition `d` computes into exactly lane vector `reg`'s
    /// elements, from its sources as every channel at the chain's instructions sees
    /// them.
    fn def_value(
        &self,
        d: usize,
        reg: u32,
        e: u32,
        moff: u32,
        n: u32,
        depth: u32,
    ) -> Option<Affine> {
        let inst = &self.p.insts[d];
        let (_, srcs, _) = inst.alu_operands();
        // The definition writes exactly this vector's elements.
        if !writes_ints(inst, reg, e, Some(1)) {
            return None;
        }
        let vals: Vec<Value> = srcs
            .iter()
            .map(|s| self.source(s, inst, e, moff, n, d, depth))
            .collect::<Option<_>>()?;
        let mut f = combine(inst.op, &vals)?;
        f.width = f.width.min(8 * e);
        f.wmax = f.wmax.max(8 * e);
        Some(f)
    }

    /// Where no one definition reaches every channel at `before` (IGC computes an
    /// address again on each path, into one register: `convert_modes_double`'s
    /// `h + 2 * i` for its half stores), the function that all of them compute, when
    /// they agree. Then whichever ran last on a channel's way left that value:
    /// - every instruction that writes any of the vector's bytes writes all of them,
    ///   unpredicated and not NoMask, for every channel that runs it (a channel's own
    ///   path runs it only where the channel is enabled);
    /// - each computes the same function, with no loop scalar in it (a scalar that is
    ///   not one value wherever it is read) and sources that every channel at the
    ///   chain's instructions computed alike;
    /// - no way from the kernel's start to `before` misses them all (else the launch's
    ///   value would arrive there).
    fn agreed_defs(
        &self,
        reg: u32,
        e: u32,
        moff: u32,
        n: u32,
        before: usize,
        depth: u32,
    ) -> Option<Affine> {
        let end = reg + n * e;
        let writers: Vec<usize> = self.writers.of(reg, end).to_vec();
        if writers.len() < 2 || writers.len() > 16 || depth > 16 {
            return None;
        }
        let mut agreed: Option<Affine> = None;
        for &d in &writers {
            let inst = &self.p.insts[d];
            // NoMask: on hardware it also writes channels that are not on its path,
            // from sources they did not compute there.
            if self.plan.run[d] != Run::PerLane
                || inst.pred.is_some()
                || inst.exec.mask.no_mask
                || inst.exec.mask.channel_offset() != moff
                || inst.exec.size as u32 != n
            {
                return None;
            }
            // Its sources as the channels that run it see them.
            let at_d = Chain {
                blocks: [self.block_of[d]; 2],
                ..*self
            };
            let f = at_d.def_value(d, reg, e, moff, n, depth + 1)?;
            if f.uni.iter().flat_map(|u| &u.0).any(|s| s.pass.is_some()) {
                return None;
            }
            match &agreed {
                Some(g) if *g != f => return None,
                Some(_) => {}
                None => agreed = Some(f),
            }
        }
        self.every_way_writes(&writers, before)
            .then_some(agreed)
            .flatten()
    }

    /// Whether every way from the kernel's start to instruction `before` passes one of
    /// `writers` (ways as [`predecessors`] finds them).
    fn every_way_writes(&self, writers: &[usize], before: usize) -> bool {
        let block_of = self.block_of;
        let home = block_of[before];
        if writers.iter().any(|&w| block_of[w] == home && w < before) {
            return true;
        }
        if home == 0 {
            return false;
        }
        let mut has_writer = vec![false; self.preds.len()];
        for &w in writers {
            has_writer[block_of[w]] = true;
        }
        // Back from `before`'s block: a block holding a writer ends that way (its last
        // writer ran after anything earlier); reaching the start without one fails. The
        // home block met again (around a loop) is passed whole.
        let mut seen = vec![false; self.preds.len()];
        let mut todo: Vec<usize> = self.preds[home].clone();
        while let Some(b) = todo.pop() {
            if std::mem::replace(&mut seen[b], true) || has_writer[b] {
                continue;
            }
            if b == 0 {
                return false;
            }
            todo.extend(&self.preds[b]);
        }
        true
    }

    /// A fixed scalar (`fixed_scalar`) that its one writer computes as another fixed
    /// scalar plus an immediate (`add (M1_NM, 1) V927 V48 0x3`: IGC's `p + 3` for a
    /// vstore3 at an odd offset, next to an address `p + 3 * i + 3` it computes
    /// without it): that scalar's symbol plus the constant, so that the two forms differ
    /// by a constant only. Sums wrap at the scalar's width, as the form's width says.
    fn scalar_plus_constant(&self, at: u32, ty: DataType, d: usize, depth: u32) -> Option<Affine> {
        let size = ty.size();
        if depth > 16 || !ty.is_int() {
            return None;
        }
        // Its one writer, which every channel at `d` ran (its sources, followed down to
        // inputs and immediates, give every channel one value).
        let [w] = *self.writers.of(at, at + size) else {
            return None;
        };
        if w >= d || !self.ran_before(w, d) {
            return None;
        }
        let inst = &self.p.insts[w];
        if !matches!(inst.op, Opcode::Add | Opcode::Addc | Opcode::Mov)
            || inst.exec.size != 1
            || inst.pred.is_some()
        {
            return None;
        }
        let (dsts, srcs, _) = inst.alu_operands();
        // ADDC's first destination is the sum's low bits, its second the carry.
        let Some(Dst::Direct {
            off,
            ty: dty,
            sat: false,
            ..
        }) = dsts.first()
        else {
            return None;
        };
        if *off != at || dty.size() != size || !dty.is_int() {
            return None;
        }
        let direct = |s: &Src| match s {
            Src::Direct {
                off,
                ty: st,
                m: Modifier::None,
                ..
            } if st.size() == size && st.is_int() => Some((*off, *st)),
            _ => None,
        };
        let imm = |s: &Src| match s {
            Src::Imm { ty: it, bits } if it.is_int() => Some(imm_value(*it, *bits)),
            _ => None,
        };
        let (src_at, src_ty, k) = match (inst.op, srcs.as_slice()) {
            (Opcode::Mov, [a]) => {
                let (o, t) = direct(a)?;
                (o, t, 0)
            }
            (Opcode::Add | Opcode::Addc, [a, b]) => match (direct(a), direct(b)) {
                (Some((o, t)), None) => (o, t, imm(b)?),
                (None, Some((o, t))) => (o, t, imm(a)?),
                _ => return None,
            },
            _ => return None,
        };
        if src_at == at {
            return None;
        }
        let base = match self.scalar_plus_constant(src_at, src_ty, w, depth + 1) {
            Some(f) => f,
            None if self.fixed_scalar(src_at, size, w) => Affine {
                leaves: Vec::new(),
                uni: vec![(
                    vec![Scalar {
                        at: src_at,
                        ty: unsigned_of(src_ty) as u8,
                        size,
                        input: self.input_scalar(src_at, size),
                        pass: None,
                    }],
                    1,
                )],
                konst: 0,
                width: 8 * size,
                wmax: 8 * size,
            },
            None => return None,
        };
        let mut f = base.plus(&Affine::constant(k))?;
        f.width = f.width.min(8 * size);
        f.wmax = f.wmax.max(8 * size);
        Some(f)
    }

    /// A 64-bit scalar that IGC writes as two dword moves (`mov (M1_NM, 1) V(0,0)<2> L`,
    /// then the high half: an address it computed in halves, `addc` of the pointer's
    /// low half and an offset): the form of its low half, at 32 bits. Addresses with
    /// such forms are apart as their low halves are (see [`Chain::low_halves`]): IGC's
    /// per-counter atomics at `ctr + 4 k` that `aggregated_atomics` makes per channel.
    fn scalar_low_half(&self, at: u32, d: usize, depth: u32) -> Option<Affine> {
        // Its one writer a move, which `scalar_plus_constant` follows down.
        let [w] = *self.writers.of(at, at + 4) else {
            return None;
        };
        if self.p.insts[w].op != Opcode::Mov {
            return None;
        }
        self.scalar_plus_constant(at, DataType::UD, d, depth)
    }

    /// A source of definition `d` as a function of the channel.
    #[allow(clippy::too_many_arguments)]
    fn source(
        &self,
        s: &Src,
        inst: &PInst,
        e: u32,
        moff: u32,
        n: u32,
        d: usize,
        depth: u32,
    ) -> Option<Value> {
        match s {
            Src::Imm { ty, bits } if ty.is_int() => Some(Value::Const(imm_value(*ty, *bits))),
            Src::Direct { ty, m, .. } if ty.is_int() && ty.size() <= e => {
                let sign = match m {
                    Modifier::None => 1,
                    Modifier::Neg => -1,
                    _ => return None,
                };
                let (at, stride) = lanes::src_linear(s, inst.exec.size as u32)?;
                let f = if stride == 0 {
                    if ty.size() == 8 {
                        if let Some(f) = self.scalar_low_half(at, d, depth) {
                            return Some(Value::Lane(f.scaled(sign)?));
                        }
                    }
                    if let Some(f) = self.scalar_plus_constant(at, *ty, d, depth) {
                        return Some(Value::Lane(f.scaled(sign)?));
                    }
                    let sym = if self.fixed_scalar(at, ty.size(), d) {
                        // A scalar symbol: the same value wherever it is read.
                        Scalar {
                            at,
                            ty: unsigned_of(*ty) as u8,
                            size: ty.size(),
                            input: self.input_scalar(at, ty.size()),
                            pass: None,
                        }
                    } else {
                        // A value the host computes (a loop scalar): its expression
                        // is its identity, wherever it is held.
                        let r = self.pass_ref(at, ty.size(), d, depth + 1)?;
                        Scalar {
                            at: u32::MAX,
                            ty: *ty as u8,
                            size: ty.size(),
                            input: None,
                            pass: Some(Typed { r, ty: *ty }),
                        }
                    };
                    Affine {
                        leaves: Vec::new(),
                        uni: vec![(vec![sym], 1)],
                        konst: 0,
                        width: 8 * ty.size(),
                        wmax: 8 * ty.size(),
                    }
                } else if stride == ty.size() {
                    let mut f = self.vector(at, ty.size(), moff, n, d, depth + 1)?;
                    if let [l] = f.leaves.as_mut_slice() {
                        if f.uni.is_empty() && f.konst == 0 && l.1 == 1 && f.width == 64 {
                            // The launch vector itself, extended as its type says.
                            l.0.signed = matches!(ty, DataType::W | DataType::B | DataType::D);
                        }
                    }
                    f
                } else {
                    return None;
                };
                Some(Value::Lane(f.scaled(sign)?))
            }
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
enum Value {
    Const(i64),
    Lane(Affine),
}

/// The unsigned integer type of `ty`'s size: a scalar symbol's name. Forms compute
/// modulo 2^width, no wider than their narrowest scalar, so a scalar read as D or as
/// UD is one value there.
fn unsigned_of(ty: DataType) -> DataType {
    match ty.size() {
        1 => DataType::UB,
        2 => DataType::UW,
        8 => DataType::UQ,
        _ => DataType::UD,
    }
}

fn imm_value(ty: DataType, bits: u64) -> i64 {
    let b = 8 * ty.size();
    if b >= 64 {
        bits as i64
    } else if matches!(ty, DataType::D | DataType::W | DataType::B | DataType::Q) {
        ((bits << (64 - b)) as i64) >> (64 - b)
    } else {
        (bits & ((1u64 << b) - 1)) as i64
    }
}

fn affine_of(v: &Value) -> Affine {
    match v {
        Value::Lane(a) => a.clone(),
        Value::Const(k) => Affine::constant(*k),
    }
}

/// The input scalar a value is, alone.
fn input_factor(v: &Affine) -> Option<Scalar> {
    match (v.leaves.as_slice(), v.uni.as_slice(), v.konst) {
        ([], [(prod, 1)], 0) if prod.len() == 1 && prod[0].input.is_some() => Some(prod[0]),
        _ => None,
    }
}

/// The greatest value form `a` takes where the form bounds it: a constant and
/// non-negative multiples of unsigned launch vectors that no scalar multiplies.
fn greatest(a: &Affine) -> Option<i64> {
    if !a.uni.is_empty() || a.konst < 0 {
        return None;
    }
    a.leaves.iter().try_fold(a.konst, |m, (l, c)| {
        let plain = *c >= 0 && !l.signed && l.bytes <= 4 && l.factors.iter().all(Option::is_none);
        let top = (1i64 << (8 * l.bytes)) - 1;
        plain.then(|| m.checked_add(c.checked_mul(top)?)).flatten()
    })
}

fn combine(op: Opcode, vals: &[Value]) -> Option<Affine> {
    use Opcode::*;
    match (op, vals) {
        (Mov, [v]) => Some(affine_of(v)),
        (Add, [_, _]) | (Add3, [_, _, _]) => {
            let mut out = affine_of(&vals[0]);
            for v in &vals[1..] {
                out = out.plus(&affine_of(v))?;
            }
            Some(out)
        }
        (Shl, [Value::Lane(a), Value::Const(k)]) if (0..32).contains(k) => a.scaled(1 << k),
        (Mul, [Value::Lane(a), Value::Const(c)]) | (Mul, [Value::Const(c), Value::Lane(a)]) => {
            a.scaled(*c)
        }
        // `x | k` is `x + k` when x is a multiple of a power of two above k (IGC's
        // struct fields: `(i << 5) | 0x10`), or when x stays below k's lowest set bit
        // (a generic pointer's tag: `(l << 2) | 0x10000000` addresses SLM).
        (Or, [Value::Lane(a), Value::Const(k)]) | (Or, [Value::Const(k), Value::Lane(a)])
            if *k >= 0 =>
        {
            let m = (*k as u64 + 1).next_power_of_two() as i64;
            let aligned = a.leaves.iter().all(|l| l.1 % m == 0)
                && a.uni.iter().all(|u| u.1 % m == 0)
                && a.konst % m == 0;
            let below = greatest(a).is_some_and(|x| x < (k & k.wrapping_neg()));
            (aligned || below)
                .then(|| a.plus(&Affine::constant(*k)))
                .flatten()
        }
        (Mul, [Value::Lane(a), Value::Lane(b)]) => match (input_factor(a), input_factor(b)) {
            (_, Some(s)) => a.times(s, b),
            (Some(s), _) => b.times(s, a),
            _ => None,
        },
        // `src0 * src1 + src2` (IGC's row-major tile index: `mad 0x44 ly (4 * lx)`).
        (Mad, [x, y, z]) => combine(Mul, &[x.clone(), y.clone()])?.plus(&affine_of(z)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `coef` times the 2-byte launch vector at payload byte 64.
    fn ids(coef: i64) -> Value {
        Value::Lane(Affine {
            leaves: vec![(
                Leaf {
                    at: 64,
                    bytes: 2,
                    signed: false,
                    factors: [None; 3],
                },
                coef,
            )],
            uni: Vec::new(),
            konst: 0,
            width: 32,
            wmax: 32,
        })
    }

    /// A SIMD16 kernel that stores each channel's dword at `p + addresses`, where
    /// the two sides of a branch on the local id compute the address register
    /// (`then` and `else`, each ending with the add into V0043).
    fn two_paths(then: &str, els: &str) -> Result<Conditions, Refused> {
        let p = super::super::test_kernel(
            ".decl V0040 v_type=G type=q num_elts=1 align=qword\n\
             .decl V0041 v_type=G type=uw num_elts=16 align=hword\n\
             .decl V0042 v_type=G type=q num_elts=16 align=hword\n\
             .decl V0043 v_type=G type=uq num_elts=16 align=hword\n\
             .decl V0044 v_type=G type=d num_elts=16 align=hword\n\
             .decl P1 v_type=P num_elts=16\n\
             .input V0040 offset=32 size=8\n\
             .input V0041 offset=64 size=32\n",
            16,
            &format!(
                "cmp.gt (M1, 16) P1 V0041(0,0)<1;1,0> 0x7:uw\n\
                 (P1) goto (M1, 16) L_else\n\
                 {then}\
                 goto (M1, 1) L_join\n\
                 L_else:\n\
                 {els}\
                 L_join:\n\
                 svm_scatter.4.1 (M1, 16) V0043.0 V0044.0\n"
            ),
        );
        let cfg = super::super::blocks::split(&p.insts);
        let plan = lanes::plan(&p, &cfg, true);
        super::super::simt::check(&p, &plan, &cfg, 1, None)
    }

    /// IGC computes an address again on each path into one register
    /// (`convert_modes_double`'s half stores): where every definition computes one
    /// function and no way to the store misses them all, the store's channels are
    /// apart as for one definition; not where the two disagree, or where a way
    /// leaves the register as the launch gave it.
    #[test]
    fn one_address_computed_on_each_path_is_one_form() {
        let shl = |by: u32| {
            format!(
                "shl (M1, 16) V0042(0,0)<1> V0041(0,0)<1;1,0> 0x{by}:q\n\
                 add (M1, 16) V0043(0,0)<1> V0042(0,0)<1;1,0> V0040(0,0)<0;1,0>\n"
            )
        };
        let refused = |r: Result<Conditions, Refused>| match r {
            Ok(_) => panic!("the store was let through"),
            Err(r) => r.why,
        };
        let c = two_paths(&shl(2), &shl(2)).expect("one form on both paths");
        assert!(!c.distinct_inputs.is_empty(), "{:?}", c.distinct_inputs);
        // One path shifts by 1: channels 0 and 1 of different paths may meet.
        let why = refused(two_paths(&shl(2), &shl(1)));
        assert!(why.contains("may touch the same bytes"), "{why}");
        // The else path leaves V0043 unwritten.
        let why = refused(two_paths(&shl(2), ""));
        assert!(why.contains("may touch the same bytes"), "{why}");
    }

    #[test]
    fn an_or_is_a_sum_where_the_bits_cannot_meet() {
        let or = |a: Value, k: i64| combine(Opcode::Or, &[a, Value::Const(k)]);
        // Local ids times 4 reach 262,140 < 2^28: the tag 0x10000000 is added.
        let f = or(ids(4), 0x1000_0000).expect("a sum");
        assert_eq!((f.konst, f.leaves[0].1), (0x1000_0000, 4));
        // Times 2^13 they reach 2^29 - 2^13, which meets bit 28.
        assert_eq!(or(ids(1 << 13), 0x1000_0000), None);
        // A multiple of 32 under 0x10: the low bits are free (struct fields).
        assert!(or(ids(32), 0x10).is_some());
        assert_eq!(or(ids(3), 0x10), None);
        // A signed vector or a negative coefficient has no bound.
        assert_eq!(or(ids(-4), 0x1000_0000), None);
        let Value::Lane(mut signed) = ids(4) else {
            unreachable!()
        };
        signed.leaves[0].0.signed = true;
        assert_eq!(or(Value::Lane(signed), 0x1000_0000), None);
    }
}
