//! The host's half of [`BtiBound`]: whether every channel of a launch that runs a
//! proven binding-table access addresses inside its entry.
//!
//! The threads of a launch differ between groups only in the group id words, so an
//! address splits into the part those words give (a scalar: the same in every channel
//! of a group) and the rest (the same in every group). The rest's least and greatest
//! value over one group's channels, plus a group's part, bound that group's addresses;
//! where the bounds lie in one 2^32 window (no wrap between them) the address is
//! monotone in them, and the ends holding is every channel holding. A guard's compare
//! is monotone in its form the same way: where its ends agree, a group's channels all
//! go through or none do. Only the groups for which that fails (the one a rounded-up
//! NDRange cuts) are evaluated channel by channel, at most [`EXACT_THREADS_MAX`]
//! threads: saxpy over 1M items took 0.2 s to check one thread at a time.

use super::bti_bounds::{BtiBound, RunsWhere};
use super::{group_id_bytes, set_group_ids, sums, Passes, Term};

const WORD: i128 = 1 << 32;

/// The most threads a launch's check evaluates one by one (~3 us each on this
/// project's VM) before it gives up and the kernel keeps its checks.
pub const EXACT_THREADS_MAX: u64 = 16_384;

/// One thread index's payload in a group and its dispatched channel count.
pub type ThreadImage<'a> = (&'a [u8], usize);

/// A form's least and greatest value over one group's channels, without the terms
/// that read the group ids, and those terms.
type Extent = ((i128, i128), Vec<Term>);

/// The start of the 2^32 window holding both `lo` and `hi` (signed: windows centred
/// on multiples of 2^32), where one does.
fn window(lo: i128, hi: i128, signed: bool) -> Option<i128> {
    let shift = if signed { WORD / 2 } else { 0 };
    let m = (lo + shift).div_euclid(WORD);
    (m == (hi + shift).div_euclid(WORD)).then_some(m * WORD)
}

/// The value of sum `terms` in payload `rec` when it reads no vector (one channel).
fn scalar(terms: &[Term], rec: &[u8]) -> Option<i128> {
    sums(terms, &Passes::default(), &[], rec, 1)
        .ok()?
        .first()
        .copied()
}

/// `terms` as (the terms that do not read the group ids, those that do); `None` where
/// a vector reads them or is multiplied by them (then no part is a group's scalar).
fn split(terms: &[Term], simd: u32) -> Option<(Vec<Term>, Vec<Term>)> {
    let (mut rest, mut group) = (Vec::new(), Vec::new());
    for t in terms {
        let vector = t.bytes > 0;
        if vector && group_id_bytes(t.offset, t.bytes.saturating_mul(simd)) {
            return None;
        }
        if t.factors.iter().any(|&(o, n)| group_id_bytes(o, n)) {
            if vector {
                return None;
            }
            group.push(t.clone());
        } else {
            rest.push(t.clone());
        }
    }
    Some((rest, group))
}

/// The least and greatest sum of `terms` over channels `moff..moff + n` of every
/// thread of `bases` (`None`: no such channel; `Err`: a value the host refuses).
fn extent(
    terms: &[Term],
    bases: &[ThreadImage],
    (moff, n): (usize, usize),
) -> Result<Option<(i128, i128)>, ()> {
    let mut out: Option<(i128, i128)> = None;
    for &(rec, lanes) in bases {
        let to = lanes.min(moff + n);
        if to <= moff {
            continue;
        }
        let v = sums(terms, &Passes::default(), &[], rec, to).map_err(|_| ())?;
        for &x in &v[moff..] {
            out = Some(out.map_or((x, x), |(lo, hi)| (lo.min(x), hi.max(x))));
        }
    }
    Ok(out)
}

impl RunsWhere {
    /// `x` as the compare reads the 32-bit word.
    fn word(&self, x: i128) -> i128 {
        let u = x.rem_euclid(WORD);
        if self.signed && u >= WORD / 2 {
            u - WORD
        } else {
            u
        }
    }

    /// The compare's result for form value `x` (a word) against bound `b`.
    fn set(&self, x: i128, b: i128) -> bool {
        match self.rel {
            2 => x > b,
            3 => x >= b,
            4 => x < b,
            _ => x <= b,
        }
    }

    /// Which of a thread's `lanes` dispatched channels (payload `rec`) go through;
    /// `None` where the payload does not give the values.
    fn through(&self, rec: &[u8], lanes: usize) -> Option<Vec<bool>> {
        let v = sums(&self.terms, &Passes::default(), &[], rec, lanes).ok()?;
        let b = self.word(scalar(&self.bound, rec)? + i128::from(self.bound_konst));
        Some(
            v.iter()
                .map(|&x| {
                    self.set(self.word(x + i128::from(self.konst)), b) == self.through_when_set
                })
                .collect(),
        )
    }
}

impl BtiBound {
    /// Whether an address register value `v` (reduced to a word) addresses inside an
    /// entry of `size` bytes.
    fn inside(&self, v: i128, size: u32) -> bool {
        let a = v * i128::from(self.scale) + i128::from(self.offset);
        a >= 0 && a + i128::from(self.bytes) <= i128::from(size)
    }

    /// Whether every dispatched channel of a thread (payload `rec`, `lanes` dispatched)
    /// that runs the access addresses bytes inside an entry of `size` bytes.
    pub fn holds(&self, rec: &[u8], lanes: usize, size: u32) -> bool {
        let Ok(offs) = sums(&self.terms, &Passes::default(), &[], rec, lanes) else {
            return false;
        };
        let runs = match &self.runs_where {
            None => vec![true; lanes],
            Some(r) => match r.through(rec, lanes) {
                Some(t) => t,
                None => return false,
            },
        };
        let from = self.moff as usize;
        (from..lanes.min(from + self.n as usize)).all(|c| {
            !runs[c] || self.inside((offs[c] + i128::from(self.konst)).rem_euclid(WORD), size)
        })
    }

    /// Why a channel of a launch may address outside an entry of `size` bytes: the
    /// threads of each of `groups`, whose payloads are `bases` (one group's, with their
    /// dispatched channels) with the group's ids set. `exact` counts the threads
    /// evaluated one by one, over every access of the launch.
    pub fn unheld_in(
        &self,
        bases: &[ThreadImage],
        groups: impl Iterator<Item = [u32; 3]>,
        size: u32,
        simd: u32,
        exact: &mut u64,
    ) -> Option<String> {
        let leaves = || {
            Some(format!(
                "an address through binding-table entry {} may leave its {size} bytes",
                self.bti
            ))
        };
        let &(first, _) = bases.first()?;
        let span = (self.moff as usize, self.n as usize);
        // Each form as the rest's extent over one group's channels and the group's
        // part (`Ok(None)`: no split, the groups are evaluated one thread at a time;
        // `Ok(Some(None))`: no channel of a group runs the access).
        let parts = |terms: &[Term]| -> Result<Option<Option<Extent>>, ()> {
            let Some((rest, group)) = split(terms, simd) else {
                return Ok(None);
            };
            Ok(Some(extent(&rest, bases, span)?.map(|e| (e, group))))
        };
        let address = match parts(&self.terms) {
            Ok(Some(None)) => return None,
            Ok(a) => a.flatten(),
            Err(()) => return leaves(),
        };
        let guard = match &self.runs_where {
            None => None,
            Some(r) => match parts(&r.terms) {
                Ok(p) => Some((r, p.flatten())),
                Err(()) => return leaves(),
            },
        };
        let mut image = first.to_vec();
        // Whether the group of payload `image` holds (`None`: not known from the parts).
        let by_parts = |image: &[u8]| -> Option<bool> {
            // Whether its channels all go through the guard; `None` where some may and
            // some not, or the values wrap between the ends.
            let through = match &guard {
                None => true,
                Some((r, p)) => {
                    let ((lo, hi), group) = p.as_ref()?;
                    let t = scalar(group, image)? + i128::from(r.konst);
                    let b = r.word(scalar(&r.bound, image)? + i128::from(r.bound_konst));
                    let base = window(lo + t, hi + t, r.signed)?;
                    let (a, z) = (r.set(lo + t - base, b), r.set(hi + t - base, b));
                    (a == z).then_some(a == r.through_when_set)?
                }
            };
            if !through {
                return Some(true);
            }
            let ((lo, hi), group) = address.as_ref()?;
            let s = scalar(group, image)? + i128::from(self.konst);
            let base = window(lo + s, hi + s, false)?;
            Some(self.inside(lo + s - base, size) && self.inside(hi + s - base, size))
        };
        for g in groups {
            set_group_ids(&mut image, g);
            match by_parts(&image) {
                Some(true) => continue,
                Some(false) => return leaves(),
                None => {}
            }
            *exact += bases.len() as u64;
            if *exact > EXACT_THREADS_MAX {
                return Some(format!(
                    "over {EXACT_THREADS_MAX} threads' addresses through binding-table \
                     entry {} would be checked one by one",
                    self.bti
                ));
            }
            for &(rec, lanes) in bases {
                let mut rec = rec.to_vec();
                set_group_ids(&mut rec, g);
                if !self.holds(&rec, lanes, size) {
                    return leaves();
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The local ids (2 bytes a channel at payload byte 64) times `coef`.
    fn ids(coef: i64) -> Term {
        Term {
            offset: 64,
            bytes: 2,
            signed: false,
            factors: Vec::new(),
            pass: Vec::new(),
            coef,
        }
    }

    /// Two threads of a group of 13 channels (8 + 5): local ids at byte 64, the local
    /// size at byte 100, `n` at byte 96.
    fn group(n: u32) -> Vec<(Vec<u8>, usize)> {
        [(0u16..8, 8), (8u16..13, 5)]
            .into_iter()
            .map(|(ids, lanes)| {
                let mut rec = vec![0u8; 104];
                for (c, v) in ids.enumerate() {
                    rec[64 + 2 * c..66 + 2 * c].copy_from_slice(&v.to_le_bytes());
                }
                rec[96..100].copy_from_slice(&n.to_le_bytes());
                rec[100..104].copy_from_slice(&13u32.to_le_bytes());
                (rec, lanes)
            })
            .collect()
    }

    /// Every channel of every group, one at a time (the check before the split).
    fn every_channel(b: &BtiBound, bases: &[ThreadImage], groups: u32, size: u32) -> bool {
        (0..groups).all(|x| {
            bases.iter().all(|&(rec, lanes)| {
                let mut rec = rec.to_vec();
                set_group_ids(&mut rec, [x, 0, 0]);
                b.holds(&rec, lanes, size)
            })
        })
    }

    #[test]
    fn the_split_check_agrees_with_every_channel() {
        // Channel i = group * 13 + local id reads word i + konst (entry of `size`
        // bytes), behind `i < n` or not; groups 0..10.
        let gid = |coef| Term::scalar(vec![(4, 4), (100, 4)], coef);
        let guard = |n_coef, rel| RunsWhere {
            terms: vec![ids(1), gid(1)],
            konst: 0,
            bound: vec![Term::scalar(vec![(96, 4)], n_coef)],
            bound_konst: 0,
            signed: true,
            rel,
            through_when_set: true,
        };
        let mut cut = 0;
        for n in [0u32, 1, 64, 100, 129, 130, 131, 200] {
            let images = group(n);
            let bases: Vec<ThreadImage> = images.iter().map(|(r, l)| (&r[..], *l)).collect();
            for guarded in [None, Some(4), Some(2)] {
                for konst in [-3i64, 0, 5] {
                    for size in [0u32, 4 * 100, 4 * 130, 4 * 135, 4 * 140] {
                        let b = BtiBound {
                            bti: 1,
                            terms: vec![ids(1), gid(1)],
                            konst,
                            scale: 4,
                            offset: 0,
                            bytes: 4,
                            moff: 0,
                            n: 8,
                            runs_where: guarded.map(|rel| guard(1, rel)),
                        };
                        let groups = (0..10).map(|x| [x, 0, 0]);
                        let mut exact = 0;
                        let split = b.unheld_in(&bases, groups, size, 8, &mut exact);
                        let every = every_channel(&b, &bases, 10, size);
                        assert_eq!(
                            split.is_none(),
                            every,
                            "n {n} guard {guarded:?} konst {konst} size {size}: {split:?}"
                        );
                        // At most the group the guard cuts, and groups whose addresses
                        // wrap (konst -3 in group 0), one thread at a time.
                        assert!(exact <= 2 * bases.len() as u64, "{exact} threads");
                        cut = cut.max(exact);
                    }
                }
            }
        }
        assert!(cut > 0, "some group was evaluated one thread at a time");
    }

    #[test]
    fn too_many_cut_groups_are_not_checked() {
        // The guard `local id < n` cuts every group: each is evaluated thread by
        // thread until the budget runs out.
        let images = group(3);
        let bases: Vec<ThreadImage> = images.iter().map(|(r, l)| (&r[..], *l)).collect();
        let b = BtiBound {
            bti: 1,
            terms: vec![ids(1)],
            konst: 0,
            scale: 4,
            offset: 0,
            bytes: 4,
            moff: 0,
            n: 8,
            runs_where: Some(RunsWhere {
                terms: vec![ids(1)],
                konst: 0,
                bound: vec![Term::scalar(vec![(96, 4)], 1)],
                bound_konst: 0,
                signed: false,
                rel: 4,
                through_when_set: true,
            }),
        };
        let mut exact = 0;
        let few = (0..4).map(|x| [x, 0, 0]);
        assert_eq!(b.unheld_in(&bases, few, 64, 8, &mut exact), None);
        assert_eq!(exact, 8, "every thread of the four groups");
        let (mut exact, many) = (0, (0..EXACT_THREADS_MAX as u32).map(|x| [x, 0, 0]));
        let why = b
            .unheld_in(&bases, many, 64, 8, &mut exact)
            .expect("over the budget");
        assert!(why.contains("one by one"), "{why}");
        assert_eq!(
            exact,
            EXACT_THREADS_MAX + 2,
            "it stops at the group past the budget"
        );
    }
}
