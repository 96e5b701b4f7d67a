//! Register-indirect operands in the straight form: `r[A0(i), imm]`, whose address
//! registers `addr_add A0 &V X` point into a variable V.
//!
//! Sources (IGC's sub-group shuffles with a lane chosen at run time, its broadcasts
//! from a computed lane): each straight invocation keeps its own copy of the address
//! registers (`ar`) and of the GRF image. An indirect source reads some byte of V that
//! any lane may have written, so the plan counts it as reading all of V ([`targets`]):
//! V's words then stay in the image and a meeting passes the other lanes' words before
//! the read (`exchange.rs`), as for any register read across channels. The address
//! registers it reads must hold the vISA thread's values in the reading copy
//! ([`refusal`]): written by instructions every invocation runs whole, or by per-lane
//! instructions whose element `i` is channel `i`'s and read by the same channel only.
//! An address outside V at run time (the thread mapping would read another variable
//! there, which the copy may not hold) hands the launch to the thread mapping
//! ([`check`], `slow_at`).
//!
//! Destinations (IGC's private arrays indexed at run time, kept in registers:
//! `t[j] += s` in private_array_dynamic SIMD32 is one `(Pk) mov (M1, 8) r[A4(k),0]<1>`
//! per channel k, each enabled for channel k alone by a `setp` of `1 << k`): a write
//! may reach any of V's bytes, and a lane's copy holds only its own. Where V's bytes
//! are laid out per channel ([`Column`]: rows of lane vectors, every byte written per
//! lane by its own channel's direct writes), the plan counts the write as touching the
//! writing lane's column of V, and so every indirect read of V ([`columns`]); the
//! run-time check then also hands the launch over where an access leaves the lane's
//! column, or where an enabled channel would use an address element its copy does not
//! hold ([`dst_channel`]).

use super::lanes::{Plan, Run};
use crate::interp::prepare::{Dst, PField, PInst, Prepared, Src};
use crate::isa::Opcode;
use std::fmt::Write as _;

/// What the indirect operands of one instruction may reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// No indirect operand.
    None,
    /// GRF bytes `[lo, hi)`: the variables their address registers point into.
    Known(u32, u32),
    /// An address register whose writers the translator cannot trace.
    Unknown,
}

/// The address-register elements an indirect source reads for `n` elements.
fn elements(s: &Src, n: u32) -> Option<(u32, u32)> {
    match s {
        Src::Indirect {
            addr, vs: None, w, ..
        } => Some((*addr, addr + n.div_ceil((*w).max(1)))),
        Src::Indirect { addr, .. } => Some((*addr, addr + 1)),
        _ => None,
    }
}

/// The address-register element an indirect destination reads (one for all of its
/// elements: the 1x1 form is the only one vISA has for destinations).
fn dst_element(inst: &PInst) -> Option<u32> {
    inst.fields.iter().find_map(|f| match f {
        PField::Dst(Dst::Indirect { addr, .. }) => Some(*addr),
        _ => None,
    })
}

/// The address-register elements instruction `inst` writes.
fn written(inst: &PInst) -> Option<(u32, u32)> {
    inst.fields.iter().find_map(|f| match f {
        PField::Dst(Dst::Addr { base }) => Some((*base, base + inst.exec.size as u32)),
        _ => None,
    })
}

/// The GRF bytes of the widest variable holding byte `off` (a root, not a view).
fn variable_at(p: &Prepared, off: u32) -> Option<(u32, u32)> {
    p.layout
        .offsets
        .iter()
        .zip(&p.layout.sizes)
        .filter(|&(&o, &s)| o <= off && off < o + s)
        .max_by_key(|&(_, &s)| s)
        .map(|(&o, &s)| (o, o + s))
}

/// The variable an address writer points into: `addr_add A &V X`.
fn pointee(p: &Prepared, w: &PInst) -> Option<(u32, u32)> {
    if w.op != Opcode::AddrAdd {
        return None;
    }
    let (_, srcs, _) = w.alu_operands();
    match srcs.first() {
        Some(Src::AddrOf { off }) => variable_at(p, *off),
        _ => None,
    }
}

/// Per instruction, what its indirect operands may reach.
pub fn targets(p: &Prepared) -> Vec<Target> {
    let writers: Vec<(usize, (u32, u32))> = p
        .insts
        .iter()
        .enumerate()
        .filter_map(|(k, i)| written(i).map(|e| (k, e)))
        .collect();
    p.insts
        .iter()
        .map(|inst| {
            let (_, srcs, _) = inst.alu_operands();
            let mut out = Target::None;
            let read = srcs
                .iter()
                .filter_map(|s| elements(s, inst.exec.size as u32));
            let dst = dst_element(inst).map(|a| (a, a + 1));
            for (a, b) in read.chain(dst) {
                let mut reached = writers
                    .iter()
                    .filter(|(_, (x, y))| *x < b && a < *y)
                    .map(|&(w, _)| pointee(p, &p.insts[w]));
                let first = reached.next().flatten();
                let one = first.filter(|v| reached.all(|o| o == Some(*v)));
                out = match (out, one) {
                    (Target::Unknown, _) | (_, None) => Target::Unknown,
                    (Target::None, Some((lo, hi))) => Target::Known(lo, hi),
                    (Target::Known(l, h), Some((lo, hi))) => Target::Known(l.min(lo), h.max(hi)),
                };
            }
            out
        })
        .collect()
}

/// Why the straight form cannot take the kernel's indirect operands, before any plan:
/// a predicated source (a predicated destination is checked where it is enabled), or
/// an address the translator cannot trace to one variable.
pub fn untraced(p: &Prepared) -> Option<String> {
    let targets = targets(p);
    p.insts.iter().zip(&targets).find_map(|(inst, t)| {
        let at = inst.index;
        let (_, srcs, _) = inst.alu_operands();
        let reads = srcs.iter().any(|s| matches!(s, Src::Indirect { .. }));
        match t {
            Target::None => None,
            Target::Unknown => Some(format!(
                "indirect operand at instruction {at}: its address registers do not point \
                 into one traced variable"
            )),
            Target::Known(..) if inst.pred.is_some() && reads => {
                Some(format!("indirect operand at instruction {at}: predicated"))
            }
            Target::Known(..) => None,
        }
    })
}

/// A variable laid out per channel: rows of `period` bytes from `lo` to `hi`, in each
/// row channel `lane0 + c`'s `elem` bytes at `c * elem` (a SIMD16 half of IGC's
/// private array: 16 dwords a row, one row per array element).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    pub lo: u32,
    pub hi: u32,
    pub period: u32,
    pub elem: u32,
    pub lane0: u32,
}

impl Column {
    /// The bytes of lane `l`'s column, one range per row.
    pub fn of_lane(&self, l: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let at = l.wrapping_sub(self.lane0).wrapping_mul(self.elem);
        (self.lo..self.hi)
            .step_by(self.period as usize)
            .filter(move |_| at < self.period)
            .map(move |r| (r + at, r + at + self.elem))
    }

    /// The lane vector `(base, elem)` of the row starting at byte `row`: lane `c`'s
    /// element at `base + c * elem` (`lanes::lane_vector`'s form).
    pub fn vector(&self, row: u32) -> Option<(u32, u32)> {
        row.checked_sub(self.lane0 * self.elem)
            .map(|b| (b, self.elem))
    }

    /// Whether every row's lane vector is one the plan keeps in registers
    /// (`promoted`: `lanes::Plan::promoted`); else all live in the image, or the
    /// straight form refuses ([`Column::split`]).
    pub fn in_registers(&self, promoted: &[(u32, u32)]) -> bool {
        self.row_vectors()
            .all(|v| v.is_some_and(|v| promoted.contains(&v)))
    }

    /// Each row's lane vector.
    fn row_vectors(&self) -> impl Iterator<Item = Option<(u32, u32)>> + '_ {
        (self.lo..self.hi)
            .step_by(self.period as usize)
            .map(|r| self.vector(r))
    }

    /// Rows of the variable.
    pub fn rows(&self) -> u32 {
        (self.hi - self.lo) / self.period
    }

    /// Whether some row, not all, lives in a register (no access form reaches both).
    pub fn split(&self, promoted: &[(u32, u32)]) -> bool {
        let held = self
            .row_vectors()
            .filter(|v| v.is_some_and(|v| promoted.contains(&v)))
            .count() as u32;
        held != 0 && held != self.rows()
    }

    /// V's layout from `owner` (`lanes::Plan::owner`: per byte, its one writing lane
    /// + 1), where every byte of `[lo, hi)` is its column's channel's.
    pub fn of(owner: &[u32], (lo, hi): (u32, u32)) -> Option<Column> {
        let at = |j: u32| owner.get((lo + j) as usize).copied().unwrap_or(0);
        let first = at(0);
        if first == 0 || first == u32::MAX || hi <= lo {
            return None;
        }
        let elem = (0..hi - lo).take_while(|&j| at(j) == first).count() as u32;
        let mut period = elem;
        while period < hi - lo && at(period) == first + period / elem {
            period += elem;
        }
        let c = Column {
            lo,
            hi,
            period,
            elem,
            lane0: first - 1,
        };
        let regular = (hi - lo).is_multiple_of(period)
            && (0..hi - lo).all(|j| at(j) == c.lane0 + (j % period) / elem + 1);
        regular.then_some(c)
    }
}

/// A variable an indirect destination writes (its bytes) and its per-channel layout.
pub type Written = ((u32, u32), Option<Column>);

/// The variables indirect destinations write (their [`Target`]s), each with its
/// per-channel layout where it has one (`None`: the straight form refuses the write).
/// `owner` comes from a plan that leaves indirect destinations out.
pub fn columns(p: &Prepared, targets: &[Target], owner: &[u32]) -> Vec<Written> {
    let mut out: Vec<Written> = Vec::new();
    for (inst, t) in p.insts.iter().zip(targets) {
        if let (Some(_), Target::Known(lo, hi)) = (dst_element(inst), t) {
            if !out.iter().any(|(r, _)| *r == (*lo, *hi)) {
                out.push(((*lo, *hi), Column::of(owner, (*lo, *hi))));
            }
        }
    }
    out
}

/// `text` (a straight module) with the lane-held address elements (`al`, every index
/// a literal) as one private per element it names: WGSL zero-initializes a private
/// array, which lavapipe (Mesa 22.3) writes out as a store per element, and
/// `nir_opt_copy_prop_vars` then compares every access with each of them.
/// private_array_dynamic tgllp SIMD32 names 22 of its 736 elements: pipeline creation
/// 1.24-1.32 → 0.90-1.03 s (compiled alone, Mesa's cache off). The text as it is
/// where some index is not a literal or an access comes before the declaration.
pub fn held_address_scalars(text: &str) -> String {
    const DECL: &str = "var<private> al: array<u32, ";
    let scalars = || {
        let uses = super::grf_split::indices(text, "al")?;
        let elems: Vec<u32> = (uses.iter())
            .map(|&(s, e)| super::literal::u32_literal(&text[s + 3..e - 1]))
            .collect::<Option<_>>()?;
        let decl_start = text.find(DECL)?;
        let decl_end = decl_start + text[decl_start..].find(";\n")? + 2;
        let declared: String = (elems.iter().collect::<std::collections::BTreeSet<_>>())
            .into_iter()
            .map(|x| format!("var<private> al_{x}: u32;\n"))
            .collect();
        let edits: Vec<_> = (uses.into_iter().zip(&elems))
            .map(|(span, x)| (span, format!("al_{x}")))
            .collect();
        super::grf_split::redeclared(text, (decl_start, decl_end), &declared, &edits)
    };
    scalars().unwrap_or_else(|| text.to_string())
}

/// Whether every lane of a straight module keeps only its own address-register
/// elements (`Emit::lane_ar`): every instruction that writes or reads them runs per
/// lane, reads the lane's own elements (sources element for element, destinations
/// where [`dst_channel`] names the channel and the check holds the lane to it), and
/// none reads them as values. llvmpipe lowers each run-time index into the whole
/// `ar` array (every address variable's elements) to a chain of selects:
/// private_array_dynamic SIMD32, 254 indirect operands, took 8 s to create.
pub fn lane_held(p: &Prepared, plan: &Plan) -> bool {
    let mut any = false;
    for (k, inst) in p.insts.iter().enumerate() {
        let per_lane = plan.run[k] == Run::PerLane;
        for f in &inst.fields {
            let ok = match f {
                PField::Dst(Dst::Addr { .. }) => per_lane,
                PField::Src(Src::Addr { .. }) => false,
                PField::Src(Src::Indirect { vs, w, .. }) => per_lane && vs.is_none() && *w == 1,
                PField::Dst(Dst::Indirect { .. }) => {
                    per_lane && matches!(dst_channel(p, plan, k), Ok(Some(_)))
                }
                _ => continue,
            };
            if !ok {
                return false;
            }
            any = true;
        }
    }
    any
}

/// The channel whose copy holds the address element an indirect destination of
/// instruction `k` reads (`None`: every copy, written whole), or why none does.
pub fn dst_channel(p: &Prepared, plan: &Plan, k: usize) -> Result<Option<u32>, String> {
    let Some(a) = dst_element(&p.insts[k]) else {
        return Ok(None);
    };
    let mut channel = None;
    for (j, w) in p.insts.iter().enumerate() {
        let Some((x, _)) = written(w).filter(|&(x, y)| x <= a && a < y) else {
            continue;
        };
        match plan.run[j] {
            Run::Uniform => {}
            Run::PerLane => {
                let c = a - x + w.exec.mask.channel_offset();
                if channel.is_some_and(|o| o != c) {
                    return Err("its address register is written per channel by several".into());
                }
                channel = Some(c);
            }
            Run::Lane0 => return Err("its address register is written by one lane".into()),
        }
    }
    Ok(channel)
}

/// Why the straight form cannot read the kernel's indirect sources with its plan:
/// address registers a copy does not hold as the thread does.
pub fn refusal(p: &Prepared, plan: &Plan) -> Option<String> {
    // Address registers read as values (`addr_add A0 A0 ..`, a move out of one) may
    // read any element: every copy holds them all only where none is written per lane.
    let per_lane_writes =
        (0..p.insts.len()).any(|j| plan.run[j] != Run::Uniform && written(&p.insts[j]).is_some());
    for (k, inst) in p.insts.iter().enumerate() {
        let at = inst.index;
        let reads_value = inst
            .fields
            .iter()
            .any(|f| matches!(f, PField::Src(Src::Addr { .. })));
        if reads_value && per_lane_writes {
            return Some(format!(
                "an address register read as a value at instruction {at}, while \
                 address registers are written per channel"
            ));
        }
        if dst_element(inst).is_some() {
            let why =
                |what: &str| Some(format!("indirect destination at instruction {at}: {what}"));
            if plan.run[k] != Run::PerLane {
                return why("written for the whole thread");
            }
            if let Err(e) = dst_channel(p, plan, k) {
                return why(&e);
            }
            if plan.column(plan.indirect[k]).is_none() {
                return why("its variable's bytes are not laid out per channel");
            }
        }
        let (_, srcs, _) = inst.alu_operands();
        let n = inst.exec.size as u32;
        let moff = inst.exec.mask.channel_offset();
        for s in srcs {
            let Some((a, b)) = elements(s, n) else {
                continue;
            };
            let why = |what: &str| Some(format!("indirect operand at instruction {at}: {what}"));
            if plan.run[k] == Run::PerLane && own_elements_before(p, plan, k, s, (a, b)) {
                continue;
            }
            if plan.run[k] == Run::Uniform && !inst.exec.mask.no_mask {
                return why("read for the whole thread under the execution mask");
            }
            let writers = (0..p.insts.len())
                .filter(|&j| written(&p.insts[j]).is_some_and(|(x, y)| x < b && a < y));
            for j in writers {
                match plan.run[j] {
                    Run::Uniform => {}
                    Run::PerLane => {
                        // Element i of the writer is channel moff_w + i's, and the
                        // reader's channel moff + i reads element a + i.
                        let w = &p.insts[j];
                        let Some((base, _)) = written(w) else {
                            continue;
                        };
                        let per_element = matches!(s, Src::Indirect { vs: None, w: 1, .. });
                        let same = base as i64 - w.exec.mask.channel_offset() as i64
                            == a as i64 - moff as i64;
                        if plan.run[k] != Run::PerLane || !per_element || !same {
                            return why(
                                "its address registers are written per channel for other channels",
                            );
                        }
                    }
                    Run::Lane0 => return why("its address registers are written by one lane"),
                }
            }
        }
    }
    None
}

/// Where a straight module keeps the rows of its variables laid out per channel,
/// lane vectors the plan keeps in registers: in private arrays that the indirect
/// accesses index at run time, each invocation its own. As one register per row
/// (each indirect store a select per row) llvmpipe created private_array_dynamic
/// SIMD32's pipeline in 1.4 s, not 1.2 s. Rows of several variables may be one lane
/// vector (IGC's SIMD32 halves: the first half's last row and the second half's first
/// row share `(base, 4)`, lanes 0-15 the one, 16-31 the other): rows at one stride
/// whose bases are a whole number of strides apart share an array, row `r` at
/// `(base - first) / stride`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowArrays {
    pub arrays: Vec<RowArray>,
    /// The rows' lane vector bases (only these registers move into the arrays).
    pub rows: Vec<u32>,
}

/// One array of [`RowArrays`]: its first row's lane vector base, the stride between
/// rows, element bytes and rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowArray {
    pub base: u32,
    pub period: u32,
    pub elem: u32,
    pub rows: u32,
}

impl RowArray {
    /// Whether rows of `c` from lane vector base `first` on fall on this array's
    /// stride (the array may have to grow to hold them).
    fn fits(&self, c: &Column, first: u32) -> bool {
        self.period == c.period
            && self.elem == c.elem
            && first.abs_diff(self.base).is_multiple_of(c.period)
    }

    /// The base one past the last row.
    fn end(&self) -> u32 {
        self.base + self.rows * self.period
    }
}

/// One variable's rows in a [`RowArrays`] array: the array's name, the index of the
/// variable's first row, and the variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldRows {
    pub array: String,
    pub first: u32,
    pub column: Column,
}

impl HeldRows {
    /// The element at the `i32` byte address `a` (in the lane's column, as the
    /// run-time check holds it), as a u64 expression.
    pub fn read(&self, a: &str) -> String {
        let at = self.index(a);
        if self.column.elem >= 8 {
            format!("{}[{at}]", self.array)
        } else {
            format!("u64({}[{at}])", self.array)
        }
    }

    /// The store of `v` (a u64 expression) as the element at `a`.
    pub fn write(&self, a: &str, v: &str) -> String {
        let c = &self.column;
        let val = if c.elem >= 8 {
            v.to_string()
        } else {
            format!("u32(({v}) & {}lu)", (1u64 << (8 * c.elem)) - 1)
        };
        format!("{}[{}] = {val};", self.array, self.index(a))
    }

    fn index(&self, a: &str) -> String {
        let c = &self.column;
        format!("{}u + u32({a} - {}) / {}u", self.first, c.lo, c.period)
    }
}

impl RowArrays {
    /// The arrays of the plan's variables whose rows all live in registers.
    pub fn of(plan: &Plan) -> RowArrays {
        let mut arrays: Vec<RowArray> = Vec::new();
        let mut rows = Vec::new();
        for c in plan.columns.iter().filter_map(|x| x.1) {
            if !c.in_registers(&plan.promoted) {
                continue;
            }
            let Some((first, _)) = c.vector(c.lo) else {
                continue;
            };
            rows.extend(c.row_vectors().flatten().map(|v| v.0));
            let end = first + c.rows() * c.period;
            match arrays.iter_mut().find(|a| a.fits(&c, first)) {
                Some(a) => {
                    let end = a.end().max(end);
                    a.base = a.base.min(first);
                    a.rows = (end - a.base) / a.period;
                }
                None => arrays.push(RowArray {
                    base: first,
                    period: c.period,
                    elem: c.elem,
                    rows: c.rows(),
                }),
            }
        }
        RowArrays { arrays, rows }
    }

    /// Where `c`'s rows are (`None`: in the image).
    pub fn held(&self, c: Column) -> Option<HeldRows> {
        let (first, _) = c.vector(c.lo)?;
        self.arrays
            .iter()
            .find(|a| a.fits(&c, first))
            .filter(|a| first >= a.base && first < a.end())
            .map(|a| HeldRows {
                array: format!("rows{}", a.base),
                first: (first - a.base) / a.period,
                column: c,
            })
    }

    /// `text` (a straight module) with the rows' registers as array elements.
    pub fn apply(&self, text: &str) -> String {
        let mut out = text.to_string();
        let mut decls = String::new();
        for &RowArray {
            base,
            period,
            elem,
            rows,
        } in &self.arrays
        {
            let ty = if elem >= 8 { "u64" } else { "u32" };
            let _ = writeln!(decls, "var<private> rows{base}: array<{ty}, {rows}u>;");
            for r in 0..rows {
                if !self.rows.contains(&(base + r * period)) {
                    continue;
                }
                let reg = super::lanes::register(base + r * period);
                out = out.replace(&format!("var<private> {reg}: {ty};\n"), "");
                out = replace_name(&out, &reg, &format!("rows{base}[{r}u]"));
            }
        }
        decls + &out
    }
}

/// `text` with every whole-word `name` (not part of a longer name) as `with`.
fn replace_name(text: &str, name: &str, with: &str) -> String {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(name) {
        let whole =
            !word(rest[..at].chars().next_back()) && !word(rest[at + name.len()..].chars().next());
        out.push_str(&rest[..at]);
        out.push_str(if whole { with } else { name });
        rest = &rest[at + name.len()..];
    }
    out.push_str(rest);
    out
}

/// Whether the address elements `[a, b)` that per-lane reader `k` reads through `s`
/// were all last written, in straight-line code before it, by one unpredicated
/// per-lane writer whose element for each reading channel is that channel's (IGC's
/// SIMD32 shuffle: `addr_add (M1, 16) A0 ..`, its read, then `addr_add (M5, 16) A0 ..`
/// for the other half, each copy's `A0` then holding what its own channel wrote).
fn own_elements_before(p: &Prepared, plan: &Plan, k: usize, s: &Src, (a, b): (u32, u32)) -> bool {
    if !matches!(s, Src::Indirect { vs: None, w: 1, .. }) {
        return false;
    }
    let moff = p.insts[k].exec.mask.channel_offset();
    for j in (0..k).rev() {
        let w = &p.insts[j];
        if super::blocks::joins_or_leaves(w.op) {
            return false;
        }
        let Some((x, y)) = written(w) else {
            continue;
        };
        if y <= a || b <= x {
            continue;
        }
        return plan.run[j] == Run::PerLane
            && w.pred.is_none()
            && x <= a
            && b <= y
            && x as i64 - w.exec.mask.channel_offset() as i64 == a as i64 - moff as i64;
    }
    false
}

/// WGSL that hands the launch to the thread mapping (`slow_at`) where an indirect
/// operand of `inst` (run per lane as channel `li`, or whole) addresses bytes outside
/// `[lo, hi)`, or outside the lane's column of a variable laid out per channel, or
/// where an enabled channel other than `channel` would use its destination's
/// address element (`dst_channel`).
pub fn check(
    em: &super::Emit,
    inst: &PInst,
    run: Run,
    (lo, hi): (u32, u32),
    column: Option<Column>,
    channel: Option<u32>,
) -> String {
    let (dsts, srcs, _) = inst.alu_operands();
    let n = inst.exec.size as u32;
    let mut tests = Vec::new();
    let dst = dsts.iter().find_map(|d| match d {
        Dst::Indirect {
            addr, imm, ty, hs, ..
        } => Some((
            format!(
                "i32({}) + {imm} + i32(i * {}u)",
                super::operand::dst_address_register(em, *addr),
                hs * ty.size()
            ),
            ty.size(),
        )),
        _ => None,
    });
    let read = srcs
        .iter()
        .filter_map(|s| match (super::operand::indirect_address_at(em, s), s) {
            (Some(a), Src::Indirect { ty, .. }) => Some((a, ty.size())),
            _ => None,
        });
    for (a, size) in read.chain(dst.clone()) {
        let mut off = format!("a < {lo} || a + {size} > {hi}");
        if let Some(c) = column.filter(|_| run == Run::PerLane) {
            // The lane's own bytes: its column in the row, within one element.
            let _ = write!(
                off,
                " || (u32(a - {lo}) % {p}u) / {e}u != lane - {l0}u || u32(a - {lo}) % {e}u + {size}u > {e}u",
                p = c.period,
                e = c.elem,
                l0 = c.lane0
            );
        }
        tests.push(format!(
            "{{ let a = {a}; if ({off}) {{ slow_at = {}u; }} }}",
            inst.index + 1
        ));
    }
    if let (Some(c), Some(_)) = (channel, &dst) {
        tests.push(format!(
            "if (lane != {c}u) {{ slow_at = {}u; }}",
            inst.index + 1
        ));
    }
    let body = tests.join(" ");
    // A predicated destination's disabled channels address nothing.
    let guard = if dst.is_some() {
        format!(" && (({}) & (1u << i)) != 0u", super::chen_expr(inst, "em"))
    } else {
        String::new()
    };
    if run == Run::PerLane {
        format!("{{ let i = li; if (i < {n}u{guard}) {{ {body} }} }}")
    } else {
        format!("for (var i = 0u; i < {n}u; i++) {{ if (true{guard}) {{ {body} }} }}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn held_address_elements_become_one_private_each() {
        let text = "var<private> al: array<u32, 736u>;\nfn f() {\n    al[96u] = 3u;\n    let a = i32(al[32u]) + i32(al[96u]);\n    sal[2u] = 1u;\n}\n";
        let out = super::held_address_scalars(text);
        assert_eq!(
            out,
            "var<private> al_32: u32;\nvar<private> al_96: u32;\nfn f() {\n    al_96 = 3u;\n    let a = i32(al_32) + i32(al_96);\n    sal[2u] = 1u;\n}\n"
        );
        // An index known only at run time keeps the array.
        let dynamic =
            "var<private> al: array<u32, 40u>;\nfn f() {\n    al[k] = 3u;\n    al[33u] = 1u;\n}\n";
        assert_eq!(super::held_address_scalars(dynamic), dynamic);
    }

    use super::*;

    fn prepared(body: &str) -> Prepared {
        super::super::test_kernel(
            ".decl V0032 v_type=G type=d num_elts=16 align=hword\n\
             .decl V0033 v_type=G type=d num_elts=16 align=hword\n\
             .decl V0034 v_type=G type=uw num_elts=16 align=hword\n\
             .decl V0035 v_type=G type=d num_elts=16 align=hword\n\
             .decl A0 v_type=A num_elts=16\n\
             .decl P1 v_type=P num_elts=16\n\
             .decl P2 v_type=P num_elts=16\n",
            16,
            body,
        )
    }

    fn straight_plan(p: &Prepared) -> Plan {
        super::super::lanes::plan(p, &super::super::blocks::split(&p.insts), true)
    }

    /// IGC's shuffle: the read may reach any byte of V0033 (64 bytes), and each
    /// channel reads the address element it wrote.
    #[test]
    fn a_shuffle_reads_the_variable_its_addresses_point_into() {
        let p = prepared(
            "mov (M1, 16) V0033(0,0)<1> V0032(0,0)<1;1,0>\n\
             addr_add (M1, 16) A0(0)<1> &V0033 V0034(0,0)<1;1,0>\n\
             mov (M1, 16) V0035(0,0)<1> r[A0(0),0]<1,0>:d\n",
        );
        let v0033 = match p.insts[0].fields.iter().find_map(|f| match f {
            PField::Dst(Dst::Direct { off, .. }) => Some(*off),
            _ => None,
        }) {
            Some(o) => o,
            None => panic!("a direct destination"),
        };
        let t = targets(&p);
        assert_eq!(t[2], Target::Known(v0033, v0033 + 64));
        assert_eq!((t[0], t[1]), (Target::None, Target::None));
        assert_eq!(untraced(&p), None);
        let plan = straight_plan(&p);
        assert_eq!((plan.run[1], plan.run[2]), (Run::PerLane, Run::PerLane));
        assert_eq!(refusal(&p, &plan), None);
        // The runtime check names the instruction and the variable's bytes.
        let mut em = super::super::Emit::new(p.pre.cr0, false);
        em.lane_elems = true;
        let c = check(
            &em,
            &p.insts[2],
            Run::PerLane,
            (v0033, v0033 + 64),
            None,
            None,
        );
        assert!(c.contains(&format!("a + 4 > {}", v0033 + 64)), "{c}");
        assert!(c.contains("slow_at = 3u"), "{c}");
    }

    /// Channels 8-15 reading the elements channels 0-7 wrote; an address register no
    /// `addr_add` of a variable wrote; an address register read as a value.
    #[test]
    fn address_registers_a_copy_does_not_hold_are_refused() {
        let other = prepared(
            "addr_add (M1, 8) A0(0)<1> &V0033 V0034(0,0)<1;1,0>\n\
             mov (M3, 8) V0035(0,0)<1> r[A0(0),0]<1,0>:d\n",
        );
        let why = refusal(&other, &straight_plan(&other)).expect("refused");
        assert!(why.contains("for other channels"), "{why}");
        let untraced_read = prepared("mov (M1, 16) V0035(0,0)<1> r[A0(0),0]<1,0>:d\n");
        assert_eq!(targets(&untraced_read)[0], Target::Unknown);
        assert!(untraced(&untraced_read).is_some());
        let as_value = prepared(
            "addr_add (M1, 16) A0(0)<1> &V0033 V0034(0,0)<1;1,0>\n\
             addr_add (M1_NM, 1) A0(0)<1> A0(0)<1> 0x4:uw\n\
             mov (M1, 16) V0035(0,0)<1> r[A0(0),0]<1,0>:d\n",
        );
        let why = refusal(&as_value, &straight_plan(&as_value)).expect("refused");
        assert!(why.contains("as a value"), "{why}");
    }

    /// IGC's private array in registers: rows of 16 lane dwords, filled per lane,
    /// then stored to by one channel per move (a one-hot `setp` before each). The
    /// plan reads the layout off the direct writes, keeps each store to its lane's
    /// column (no byte crosses lanes), and the check holds the lane to its column and
    /// to the address element its copy holds.
    #[test]
    fn one_channel_stores_write_their_lanes_column() {
        let p = prepared(
            "mov (M1, 16) V0033(0,0)<1> V0032(0,0)<1;1,0>\n\
             addr_add (M1, 16) A0(0)<1> &V0033 V0034(0,0)<1;1,0>\n\
             setp (M1_NM, 16) P1 0x1:ud\n\
             (P1) mov (M1, 8) r[A0(0),0]<1>:d V0035(0,0)<0;1,0>\n\
             setp (M1_NM, 16) P2 0x2:ud\n\
             (P2) mov (M1, 8) r[A0(1),0]<1>:d V0035(0,1)<0;1,0>\n",
        );
        assert_eq!(untraced(&p), None);
        let plan = straight_plan(&p);
        assert_eq!((plan.run[3], plan.run[5]), (Run::PerLane, Run::PerLane));
        assert_eq!(plan.known_preds[3], (0xffff, 1));
        assert!(
            plan.cross.iter().all(|c| c.0.is_empty()),
            "no byte crosses lanes"
        );
        let Target::Known(lo, hi) = plan.indirect[3] else {
            panic!("a traced destination");
        };
        let c = plan.column(plan.indirect[3]).expect("laid out per channel");
        assert_eq!((c.lo, c.hi, c.period, c.elem, c.lane0), (lo, hi, 64, 4, 0));
        assert_eq!(c.of_lane(1).collect::<Vec<_>>(), vec![(lo + 4, lo + 8)]);
        assert_eq!(refusal(&p, &plan), None);
        assert_eq!(dst_channel(&p, &plan, 5), Ok(Some(1)));
        assert!(lane_held(&p, &plan));
        let mut em = super::super::Emit::new(p.pre.cr0, false);
        em.lane_elems = true;
        em.lane_ar = true;
        em.dst_lane = Some(1);
        let text = check(&em, &p.insts[5], Run::PerLane, (lo, hi), Some(c), Some(1));
        assert!(text.contains("/ 4u != lane - 0u"), "{text}");
        assert!(text.contains("if (lane != 1u)"), "{text}");
        // Element 1 of A0 is lane 1's: `al[1 - 1 + AL_SHIFT]`.
        assert!(text.contains("al[32u]"), "{text}");
    }

    /// A layout is per channel only where every byte is its column's lane's.
    #[test]
    fn columns_need_every_byte_in_its_lanes_column() {
        // Two rows of 4 lanes' dwords.
        let lanes: Vec<u32> = (0..32u32).map(|b| (b % 16) / 4 + 1).collect();
        let c = Column::of(&lanes, (0, 32)).expect("regular");
        assert_eq!((c.period, c.elem, c.lane0, c.rows()), (16, 4, 0, 2));
        // Lanes 4-7 of a SIMD8 half.
        let upper: Vec<u32> = lanes.iter().map(|o| o + 4).collect();
        assert_eq!(Column::of(&upper, (0, 32)).map(|c| c.lane0), Some(4));
        let mut hole = lanes.clone();
        hole[20] = 0;
        assert_eq!(Column::of(&hole, (0, 32)), None);
        let mut shared = lanes;
        shared[5] = u32::MAX;
        assert_eq!(Column::of(&shared, (0, 32)), None);
    }
}
