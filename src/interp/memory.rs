//! The memory a kernel sees: allocations at 64-bit base addresses (buffers, private
//! memory, constant surfaces), a binding table (BTI -> allocation), and per-group SLM.
//! Out-of-bounds reads return zero and writes are dropped (the pages' rule); each is
//! counted so the run can report it. No access ever touches another allocation.

use crate::abi::image::{ImageDesc, SamplerState};
use std::collections::HashMap;

#[derive(Clone, Debug)]
pub struct Allocation {
    pub base: u64,
    pub data: Vec<u8>,
    pub name: String,
}

#[derive(Clone, Debug, Default)]
pub struct Memory {
    allocs: Vec<Allocation>,
    bti: HashMap<u32, usize>,
    /// Binding-table entries that are images, with their descriptors.
    images: HashMap<u32, ImageDesc>,
    /// The kernel's sampler states, by sampler index.
    samplers: Vec<SamplerState>,
    /// Reads and writes that hit no allocation.
    pub oob_reads: u64,
    pub oob_writes: u64,
    /// The append counter of each binding-table surface (`lsc_apndctr_atomic_*`): the
    /// hidden counter its surface state points to, zero at launch.
    append_counters: HashMap<u32, u32>,
}

/// Where an access lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// A 64-bit flat (stateless, SVM) address.
    Flat,
    /// Byte offset into the surface bound at this BTI.
    Bti(u32),
    /// Byte offset into the group's shared local memory.
    Slm,
    /// Byte offset into the thread's scratch space (`%scratch`, T5).
    Scratch,
}

/// IGC tags shared-local addresses with bit 28 (the corpus' kernels address their
/// own `__local` variables at 0x10000000 through `%slm`/`.slm` messages); the data
/// port decodes only the offset bits below it, so SLM offsets are taken modulo 2^28.
fn slm_offset(space: Space, addr: u64) -> u64 {
    if space == Space::Slm {
        addr & 0x0fff_ffff
    } else {
        addr
    }
}

/// A handle to an allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocId(pub usize);

impl Memory {
    pub fn new() -> Memory {
        Memory::default()
    }

    /// Add an allocation. Its range must not overlap another one.
    pub fn add(&mut self, name: &str, base: u64, data: Vec<u8>) -> AllocId {
        self.allocs.push(Allocation {
            base,
            data,
            name: name.to_string(),
        });
        AllocId(self.allocs.len() - 1)
    }

    pub fn bind(&mut self, bti: u32, a: AllocId) {
        self.bti.insert(bti, a.0);
    }

    /// Bind an image: typed messages on `bti` address texels of `desc`.
    pub fn bind_image(&mut self, bti: u32, a: AllocId, desc: ImageDesc) {
        self.bind(bti, a);
        self.images.insert(bti, desc);
    }

    pub fn set_samplers(&mut self, s: Vec<SamplerState>) {
        self.samplers = s;
    }

    /// The kernel's sampler states, by sampler index.
    pub fn samplers(&self) -> &[SamplerState] {
        &self.samplers
    }

    /// Every bound image, by binding-table index.
    pub fn images(&self) -> Vec<(u32, ImageDesc)> {
        let mut v: Vec<(u32, ImageDesc)> = self.images.iter().map(|(b, d)| (*b, *d)).collect();
        v.sort_by_key(|(b, _)| *b);
        v
    }

    pub fn sampler(&self, index: u16) -> Option<SamplerState> {
        self.samplers.get(index as usize).copied()
    }

    pub fn image(&self, bti: u32) -> Option<ImageDesc> {
        self.images.get(&bti).copied()
    }

    /// `ld`'s texel (u, v, r) moved by the `_aoffimmi` offsets `off` along the image's
    /// axes (not an array's layer), wrapping in i32 as the GPU's `img_ld`.
    pub fn texel_load(&mut self, bti: u32, c: [u32; 3], off: [i32; 3]) -> Option<[u32; 4]> {
        let d = self.image(bti)?;
        let axes = d.dims as usize - d.array as usize;
        let mut c = c;
        for (a, x) in c.iter_mut().enumerate().take(axes) {
            *x = (*x as i32).wrapping_add(off[a]) as u32;
        }
        self.texel_read(bti, c[0], c[1], c[2])
    }

    /// The texel at (u, v, r) of the image at `bti` in register form (RGBA, missing
    /// channels 0 and alpha 1); zeros outside the image (counted as out of bounds).
    pub fn texel_read(&mut self, bti: u32, u: u32, v: u32, r: u32) -> Option<[u32; 4]> {
        let d = self.image(bti)?;
        let Some(off) = d.texel_offset(u, v, r) else {
            self.oob_reads += 1;
            return Some([0; 4]);
        };
        let cb = d.ty.bytes() as u64;
        let mut out = [0, 0, 0, d.ty.one()];
        for (c, slot) in out.iter_mut().enumerate() {
            if let Some(pos) = d.order.position(c as u32) {
                let raw = self.read(Space::Bti(bti), &[], off + pos as u64 * cb, cb as usize);
                *slot = d.ty.load(raw as u32);
            }
        }
        Some(out)
    }

    /// A sample through `s` at coordinates `c` (f32 bits) of the image at `bti`:
    /// nearest, the addressed texel or the border color; linear, the blend of the taps
    /// (`SamplerState::linear_taps`; the caller refuses integer images); `off` the
    /// `_aoffimmi` texel offsets.
    pub fn texel_sample(
        &mut self,
        bti: u32,
        s: &SamplerState,
        c: [u32; 3],
        off: [i32; 3],
    ) -> Option<[u32; 4]> {
        let d = self.image(bti)?;
        if s.linear {
            let taps = s.linear_taps(&d, c, off);
            let mut texels = [[0u32; 4]; 8];
            for (t, &(at, _)) in texels.iter_mut().zip(&taps.taps[..taps.len]) {
                *t = match at {
                    Some([u, v, r]) => self.texel_read(bti, u, v, r)?,
                    None => d.border(),
                };
            }
            return Some(taps.blend(&texels[..taps.len]));
        }
        match s.texel(&d, c, off) {
            Some([u, v, r]) => self.texel_read(bti, u, v, r),
            None => Some(d.border()),
        }
    }

    /// gather4 through `s` at coordinates `c` (f32 bits) of the 2D image (or 2D array)
    /// at `bti`: channel `ch` of the four texels a bilinear sample would blend
    /// (`SamplerState::linear_taps`, whatever the sampler's filter), returned as the
    /// page's R = lower left (i0, j1), G = lower right (i1, j1), B = upper right
    /// (i1, j0), A = upper left (i0, j0); a tap outside under border addressing reads
    /// the border color's channel.
    pub fn texel_gather4(
        &mut self,
        bti: u32,
        s: &SamplerState,
        c: [u32; 3],
        off: [i32; 3],
        ch: usize,
    ) -> Option<[u32; 4]> {
        let d = self.image(bti)?;
        let taps = s.linear_taps(&d, c, off);
        let mut out = [0u32; 4];
        for (slot, k) in out.iter_mut().zip([2, 3, 1, 0]) {
            *slot = match taps.taps[k].0 {
                Some([u, v, r]) => self.texel_read(bti, u, v, r)?[ch],
                None => d.border()[ch],
            };
        }
        Some(out)
    }

    /// Byte `x` of row `y` of the image at `bti` for a media block read: outside the
    /// image the nearest edge texel's byte (the hardware clamps media block reads to
    /// the surface; the pages call it format-defined). `None`: no image there.
    pub fn media_byte(&mut self, bti: u32, x: i32, y: i32) -> Option<u8> {
        let d = self.image(bti)?;
        let tb = d.texel_bytes() as i64;
        let px = (x as i64).div_euclid(tb).clamp(0, d.width as i64 - 1);
        let row = (y as i64).clamp(0, d.height as i64 - 1);
        let off = (row * d.width as i64 + px) * tb + (x as i64).rem_euclid(tb);
        Some(self.read(Space::Bti(bti), &[], off as u64, 1) as u8)
    }

    /// Write byte `x` of row `y` of the image at `bti` (media block write); dropped and
    /// counted outside the image.
    pub fn media_byte_write(&mut self, bti: u32, x: i32, y: i32, v: u8) {
        let Some(d) = self.image(bti) else { return };
        let row_bytes = d.width as i64 * d.texel_bytes() as i64;
        if x < 0 || y < 0 || x as i64 >= row_bytes || y as u32 >= d.height {
            self.oob_writes += 1;
            return;
        }
        let off = y as u64 * row_bytes as u64 + x as u64;
        self.write(Space::Bti(bti), &mut [], off, 1, v as u64);
    }

    /// Write the channels of `mask` (RGBA bits) of texel (u, v, r), converted to the
    /// image's format; dropped outside the image.
    pub fn texel_write(&mut self, bti: u32, (u, v, r): (u32, u32, u32), mask: u32, val: [u32; 4]) {
        let Some(d) = self.image(bti) else { return };
        let Some(off) = d.texel_offset(u, v, r) else {
            self.oob_writes += 1;
            return;
        };
        let cb = d.ty.bytes() as u64;
        for (c, &x) in val.iter().enumerate() {
            if let (true, Some(pos)) = (mask & (1 << c) != 0, d.order.position(c as u32)) {
                let raw = d.ty.store(x) as u64;
                self.write(
                    Space::Bti(bti),
                    &mut [],
                    off + pos as u64 * cb,
                    cb as usize,
                    raw,
                );
            }
        }
    }

    pub fn get(&self, a: AllocId) -> &[u8] {
        &self.allocs[a.0].data
    }

    pub fn allocations(&self) -> &[Allocation] {
        &self.allocs
    }

    fn locate(&self, space: Space, addr: u64, len: usize) -> Option<(usize, usize)> {
        match space {
            Space::Flat => {
                let i = self
                    .allocs
                    .iter()
                    .position(|a| addr >= a.base && addr - a.base < a.data.len() as u64)?;
                let off = (addr - self.allocs[i].base) as usize;
                (off + len <= self.allocs[i].data.len()).then_some((i, off))
            }
            Space::Bti(b) => {
                let i = *self.bti.get(&b)?;
                let off = usize::try_from(addr).ok()?;
                (off.checked_add(len)? <= self.allocs[i].data.len()).then_some((i, off))
            }
            Space::Slm | Space::Scratch => None,
        }
    }

    /// Whether `len` bytes at `addr` lie in memory the launch bound (`lsc_load_status`:
    /// the emulator's notion of a valid page). `local` is the SLM or scratch space.
    pub fn valid(&self, space: Space, local: &[u8], addr: u64, len: usize) -> bool {
        let addr = slm_offset(space, addr);
        if matches!(space, Space::Slm | Space::Scratch) {
            return addr
                .checked_add(len as u64)
                .is_some_and(|e| e <= local.len() as u64);
        }
        self.locate(space, addr, len).is_some()
    }

    /// Add `delta` (wrapping) to the append counter of surface `bti`; the old value.
    pub fn append_counter_add(&mut self, bti: u32, delta: u32) -> u32 {
        let c = self.append_counters.entry(bti).or_insert(0);
        let old = *c;
        *c = old.wrapping_add(delta);
        old
    }

    /// Read `len` (<= 8) bytes little-endian; zero when out of bounds.
    pub fn read(&mut self, space: Space, slm: &[u8], addr: u64, len: usize) -> u64 {
        let addr = slm_offset(space, addr);
        let bytes = if matches!(space, Space::Slm | Space::Scratch) {
            usize::try_from(addr)
                .ok()
                .and_then(|a| slm.get(a..a.checked_add(len)?))
        } else {
            self.locate(space, addr, len)
                .map(|(i, off)| &self.allocs[i].data[off..off + len])
        };
        match bytes {
            Some(b) => {
                let mut v = [0u8; 8];
                v[..len].copy_from_slice(b);
                u64::from_le_bytes(v)
            }
            None => {
                if self.oob_reads == 0 && std::env::var_os("VISA_TRACE_OOB").is_some() {
                    eprintln!("first out-of-bounds read: {space:?} {addr:#x} ({len} bytes)");
                }
                self.oob_reads += 1;
                0
            }
        }
    }

    /// Write the low `len` bytes of `value`; dropped when out of bounds.
    pub fn write(&mut self, space: Space, slm: &mut [u8], addr: u64, len: usize, value: u64) {
        let addr = slm_offset(space, addr);
        let bytes = value.to_le_bytes();
        let target = if matches!(space, Space::Slm | Space::Scratch) {
            usize::try_from(addr)
                .ok()
                .and_then(|a| slm.get_mut(a..a.checked_add(len)?))
        } else {
            match self.locate(space, addr, len) {
                Some((i, off)) => Some(&mut self.allocs[i].data[off..off + len]),
                None => None,
            }
        };
        match target {
            Some(t) => t.copy_from_slice(&bytes[..len]),
            None => {
                if self.oob_writes == 0 && std::env::var_os("VISA_TRACE_OOB").is_some() {
                    eprintln!("first out-of-bounds write: {space:?} {addr:#x} ({len} bytes)");
                }
                self.oob_writes += 1;
            }
        }
    }
}

/// The atomic operations shared by DWORD_ATOMIC, SVM_ATOMIC, TYPED_ATOMIC and the LSC
/// atomics, on an element of `bits` bits. Returns the new value, or `None` when the
/// op leaves memory unchanged (a failed compare-exchange).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    Sub,
    Inc,
    Dec,
    UMin,
    UMax,
    Xchg,
    CmpXchg,
    And,
    Or,
    Xor,
    IMin,
    IMax,
    PreDec,
    FMax,
    FMin,
    FCmpWr,
    FAdd,
    FSub,
    Load,
    Store,
}

impl AtomicOp {
    /// The legacy encoding (DWORD/SVM/TYPED_ATOMIC Op bits 0-4).
    pub fn from_legacy(code: u64) -> Option<AtomicOp> {
        use AtomicOp::*;
        Some(match code & 0x1f {
            0 => Add,
            1 => Sub,
            2 => Inc,
            3 => Dec,
            4 => UMin,
            5 => UMax,
            6 => Xchg,
            7 => CmpXchg,
            8 => And,
            9 => Or,
            10 => Xor,
            11 => IMin,
            12 => IMax,
            13 => PreDec,
            16 => FMax,
            17 => FMin,
            18 => FCmpWr,
            // Past the pages' table (which ends at FCMPWR): IGC's VISAAtomicOps has
            // ATOMIC_FADD = 0x13 and ATOMIC_FSUB = 0x14, and it emits `svm_atomic.fsub`
            // on tgllp for OpenCL's float atomic_fetch_sub (own case float_atomics).
            19 => FAdd,
            20 => FSub,
            _ => return None,
        })
    }

    /// The LSC sub-op encoding (0x08..0x1a).
    pub fn from_lsc(subop: u64) -> Option<AtomicOp> {
        use AtomicOp::*;
        Some(match subop {
            0x08 => Inc,
            0x09 => Dec,
            0x0a => Load,
            0x0b => Store,
            0x0c => Add,
            0x0d => Sub,
            0x0e => IMin,
            0x0f => IMax,
            0x10 => UMin,
            0x11 => UMax,
            0x12 => CmpXchg,
            0x13 => FAdd,
            0x14 => FSub,
            0x15 => FMin,
            0x16 => FMax,
            0x17 => FCmpWr,
            0x18 => And,
            0x19 => Or,
            0x1a => Xor,
            _ => return None,
        })
    }

    /// What the operation writes back to the destination: the old value, except PREDEC's
    /// new one (DWORD_ATOMIC's table: "PREDEC: new = old - 1 ... New value").
    pub fn returned(self, old: u64, bits: u32) -> u64 {
        match self {
            AtomicOp::PreDec if bits == 64 => old.wrapping_sub(1),
            AtomicOp::PreDec => old.wrapping_sub(1) & ((1u64 << bits) - 1),
            _ => old,
        }
    }

    /// New memory value from the old one and the sources (`s0` the operand, `s1` the
    /// compare-exchange's new value). `bits` is 16, 32 or 64.
    pub fn apply(self, old: u64, s0: u64, s1: u64, bits: u32) -> Option<u64> {
        use AtomicOp::*;
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let sx = |v: u64| -> i64 { ((v << (64 - bits)) as i64) >> (64 - bits) };
        let fl = |v: u64| -> f64 {
            match bits {
                64 => f64::from_bits(v),
                16 => half::f16::from_bits(v as u16).to_f64(),
                _ => f32::from_bits(v as u32) as f64,
            }
        };
        // A NaN result is the canonical NaN, as float arithmetic's (`alu::canonical_nan`).
        let tf = |f: f64| -> u64 {
            match bits {
                _ if f.is_nan() => {
                    use crate::ir::DataType::{DF, F, HF};
                    let t = match bits {
                        64 => DF,
                        16 => HF,
                        _ => F,
                    };
                    super::alu::default_nan(t).unwrap_or_default()
                }
                64 => f.to_bits(),
                16 => half::f16::from_f64(f).to_bits() as u64,
                _ => (f as f32).to_bits() as u64,
            }
        };
        let (old, s0, s1) = (old & mask, s0 & mask, s1 & mask);
        let new = match self {
            Add => old.wrapping_add(s0),
            Sub => old.wrapping_sub(s0),
            Inc => old.wrapping_add(1),
            Dec | PreDec => old.wrapping_sub(1),
            UMin => old.min(s0),
            UMax => old.max(s0),
            IMin => sx(old).min(sx(s0)) as u64,
            IMax => sx(old).max(sx(s0)) as u64,
            Xchg | Store => s0,
            Load => return None,
            // Legacy CMPXCHG: src0 is the compare value, src1 the new value.
            CmpXchg => {
                if old == s0 {
                    s1
                } else {
                    return None;
                }
            }
            FCmpWr => {
                if fl(old) == fl(s0) {
                    s1
                } else {
                    return None;
                }
            }
            And => old & s0,
            Or => old | s0,
            Xor => old ^ s0,
            FMax => tf(super::alu::fmin_max(fl(old), fl(s0), true)),
            FMin => tf(super::alu::fmin_max(fl(old), fl(s0), false)),
            FAdd => tf(fl(old) + fl(s0)),
            FSub => tf(fl(old) - fl(s0)),
        };
        Some(new & mask)
    }
}

#[cfg(test)]
mod tests {

    /// IGC's legacy FADD (0x13) and FSUB (0x14), past the pages' table, with LSC's
    /// float semantics: 1.5 + 2.25, 1.5 - 2.25, inf - inf is the default NaN.
    #[test]
    fn legacy_float_add_and_subtract_follow_igcs_codes() {
        use super::AtomicOp::*;
        assert_eq!(super::AtomicOp::from_legacy(0x13), Some(FAdd));
        assert_eq!(super::AtomicOp::from_legacy(0x14), Some(FSub));
        assert_eq!(super::AtomicOp::from_legacy(0x15), None);
        let f = |x: f32| x.to_bits() as u64;
        assert_eq!(FAdd.apply(f(1.5), f(2.25), 0, 32), Some(f(3.75)));
        assert_eq!(FSub.apply(f(1.5), f(2.25), 0, 32), Some(f(-0.75)));
        assert_eq!(
            FSub.apply(f(f32::INFINITY), f(f32::INFINITY), 0, 32),
            Some(0x7fc0_0000)
        );
        let text = crate::isa::syntax::ATOMIC_OP;
        assert_eq!(text.name(0x13), Some("fadd"));
        assert_eq!(text.name(0x14), Some("fsub"));
    }

    /// PREDEC writes back the new value (DWORD_ATOMIC's table), every other op the old.
    #[test]
    fn predec_returns_the_new_value() {
        use super::AtomicOp::*;
        assert_eq!(PreDec.apply(5, 0, 0, 32), Some(4));
        assert_eq!(PreDec.returned(5, 32), 4);
        assert_eq!(PreDec.returned(0, 16), 0xffff);
        assert_eq!(PreDec.returned(0, 64), u64::MAX);
        assert_eq!(Dec.returned(5, 32), 5);
        assert_eq!(Add.returned(7, 32), 7);
    }

    /// Media blocks: reads outside the image return the nearest edge texel's byte (the
    /// same byte of the texel), writes outside it are dropped and counted.
    #[test]
    fn media_blocks_clamp_reads_and_drop_writes() {
        use crate::abi::image::{ChannelOrder, ChannelType};
        let mut m = Memory::new();
        let data: Vec<u8> = (0..2 * 3 * 2).collect(); // 3x2 texels of 2 bytes
        let a = m.add("img", 0x1000, data);
        let desc = ImageDesc {
            dims: 2,
            array: false,
            width: 3,
            height: 2,
            depth: 1,
            order: ChannelOrder::RG,
            ty: ChannelType::UnsignedInt8,
        };
        m.bind_image(7, a, desc);
        assert_eq!(m.media_byte(7, 3, 1), Some(9));
        assert_eq!(m.media_byte(7, 6, 0), Some(4)); // past the right edge: last texel, byte 0
        assert_eq!(m.media_byte(7, 7, 5), Some(11)); // and below the bottom: last row
        assert_eq!(m.media_byte(7, -1, -3), Some(1)); // left of texel 0: its byte 1
        assert_eq!(m.media_byte(8, 0, 0), None);
        m.media_byte_write(7, 5, 1, 0xaa);
        m.media_byte_write(7, 6, 1, 0xbb);
        m.media_byte_write(7, 0, 2, 0xcc);
        assert_eq!(m.get(a)[11], 0xaa);
        assert_eq!(m.oob_writes, 2);
    }

    use super::*;

    #[test]
    fn out_of_bounds_reads_zero_and_drops_writes() {
        let mut m = Memory::new();
        let a = m.add("a", 0x1000, vec![1, 2, 3, 4]);
        m.add("b", 0x1004, vec![9; 4]);
        m.bind(3, a);
        let mut slm = vec![0u8; 8];
        assert_eq!(m.read(Space::Flat, &slm, 0x1000, 4), 0x04030201);
        // Straddles a and b: out of bounds, not a mix of both.
        assert_eq!(m.read(Space::Flat, &slm, 0x1002, 4), 0);
        assert_eq!(m.oob_reads, 1);
        m.write(Space::Bti(3), &mut slm, 2, 4, 0xffff_ffff);
        assert_eq!(m.get(a), &[1, 2, 3, 4]);
        assert_eq!(m.oob_writes, 1);
        m.write(Space::Slm, &mut slm, 4, 4, 0xaabbccdd);
        assert_eq!(m.read(Space::Slm, &slm, 4, 4), 0xaabbccdd);
        assert_eq!(m.read(Space::Slm, &slm, 6, 4), 0);
    }

    #[test]
    fn atomics() {
        use AtomicOp::*;
        assert_eq!(Add.apply(0xffff_ffff, 1, 0, 32), Some(0));
        assert_eq!(
            IMin.apply(5, (-3i32) as u32 as u64, 0, 32),
            Some((-3i32) as u32 as u64)
        );
        assert_eq!(UMin.apply(5, (-3i32) as u32 as u64, 0, 32), Some(5));
        assert_eq!(CmpXchg.apply(7, 7, 9, 32), Some(9));
        assert_eq!(CmpXchg.apply(7, 8, 9, 32), None);
        assert_eq!(Add.apply(u64::MAX, 2, 0, 64), Some(1));
        assert_eq!(
            FAdd.apply(1.5f32.to_bits() as u64, 2.0f32.to_bits() as u64, 0, 32),
            Some(3.5f32.to_bits() as u64)
        );
    }
}
