//! The geometry of LSC_UNTYPED's 2D block messages (`lsc_load_block2d`,
//! `lsc_store_block2d`), read once for the interpreter and the translator.
//!
//! The page's LOAD_BLOCK2D pseudo-code lays each block out in the GRF as rows of
//! `round_up_pow2(minor)` elements (the minor axis is X, or Y when transposed), VNNI
//! packing `4 / sizeof(T)` consecutive major-axis elements into each dword, blocks
//! a whole number of GRFs apart, padding zero. [`Block2d::source`] inverts that: which
//! element of the block a GRF element holds. Where the page and the hardware IGC
//! targets differ, this follows IGC (docs/design.md, "2D block messages"): the surface
//! width, height and pitch are all minus-one encoded (IGC's builtins pass
//! `pitch - 1`), elements outside the surface read zero and are not written (the
//! 2D block messages clip; the page's pseudo-code does not say), and the store reads
//! the GRF row-major like the load (the page's STORE_BLOCK2D indexes it column-major,
//! which would transpose a block that a load and a store of the same shape copy).

use super::prepare::PInst;
use super::thread::fint;
use crate::isa::syntax::LSC_ORDER_TRANSPOSE;

/// One 2D block message's shape, from its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Block2d {
    pub load: bool,
    /// Bytes of one element (d8 .. d64).
    pub elem: u32,
    pub blocks: u32,
    pub width: u32,
    pub height: u32,
    pub transpose: bool,
    /// Elements of one major-axis run packed into a dword (1 without VNNI).
    pub pack: u32,
    /// GRF elements from one row of a block to the next (a power of two).
    pub row_pitch: u32,
    /// GRF elements from one block to the next (whole GRFs).
    pub block_pitch: u32,
}

impl Block2d {
    /// Read and check a block2d message; the error says what is wrong.
    pub fn of(inst: &PInst, grf_bytes: u32) -> Result<Block2d, String> {
        let load = fint(inst, "LscSubOp") == 0x03;
        let elem = match fint(inst, "DataSize") {
            1 => 1,
            2 => 2,
            3 => 4,
            4 => 8,
            d => return Err(format!("block2d data size code {d} (d8, d16, d32 or d64)")),
        };
        let transpose = fint(inst, "DataOrder") == LSC_ORDER_TRANSPOSE;
        let vnni = fint(inst, "VNNI") != 0;
        let (blocks, width, height) = (
            fint(inst, "Blocks") as u32,
            fint(inst, "BlockWidth") as u32,
            fint(inst, "BlockHeight") as u32,
        );
        if blocks == 0 || width == 0 || height == 0 {
            return Err("a block2d shape with a zero dimension".into());
        }
        if !load && (blocks != 1 || transpose || vnni) {
            return Err("a block2d store of more than one block, transposed or VNNI".into());
        }
        if vnni && elem == 8 {
            return Err("a VNNI-transformed block2d of 64-bit elements".into());
        }
        let pack = if vnni { 4 / elem } else { 1 };
        let (minor, major) = if transpose {
            (height, width)
        } else {
            (width, height)
        };
        if major % pack != 0 {
            return Err(format!(
                "a VNNI block2d whose {} ({major}) is not a multiple of {pack}",
                if transpose { "width" } else { "height" }
            ));
        }
        let row_pitch = minor.next_power_of_two();
        let per_grf = grf_bytes / elem;
        let block_pitch = (row_pitch * major).div_ceil(per_grf) * per_grf;
        let bytes = blocks as u64 * block_pitch as u64 * elem as u64;
        // The GRF file holds 256 registers at most; a bigger block is a malformed one
        // (and would make the emulation loop for nothing).
        if bytes > 256 * grf_bytes as u64 {
            return Err(format!(
                "a block2d of {bytes} bytes, more than the GRF file's {}",
                256 * grf_bytes
            ));
        }
        Ok(Block2d {
            load,
            elem,
            blocks,
            width,
            height,
            transpose,
            pack,
            row_pitch,
            block_pitch,
        })
    }

    /// GRF elements the message reads or writes.
    pub fn grf_elems(&self) -> u32 {
        self.blocks * self.block_pitch
    }

    /// The block element (y, x) that GRF element `g` of a block holds, or `None`
    /// for padding.
    pub fn source(&self, g: u32) -> Option<(u32, u32)> {
        let run = self.row_pitch * self.pack;
        let (q, k) = (g / run, g % run);
        let minor = k / self.pack;
        let major = q * self.pack + k % self.pack;
        let (minor_n, major_n) = if self.transpose {
            (self.height, self.width)
        } else {
            (self.width, self.height)
        };
        if minor >= minor_n || major >= major_n {
            return None;
        }
        Some(if self.transpose {
            (minor, major)
        } else {
            (major, minor)
        })
    }
}

/// The run-time operands: the surface (width, height and pitch minus-one encoded,
/// as written) and the block's position in elements and rows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Surface2d {
    pub base: u64,
    pub width: u32,
    pub height: u32,
    pub pitch: u32,
    pub x: i32,
    pub y: i32,
}

impl Surface2d {
    /// The address of element (`col`, `row`) of block `b`'s origin plus (x, y), or
    /// `None` outside the surface.
    pub fn address(&self, shape: &Block2d, b: u32, y: u32, x: u32) -> Option<u64> {
        let col = self.x as i64 + (b * shape.width + x) as i64;
        let row = self.y as i64 + y as i64;
        let e = shape.elem as i64;
        let inside = col >= 0
            && (col + 1) * e <= self.width as i64 + 1
            && row >= 0
            && row <= self.height as i64;
        inside.then(|| {
            self.base
                .wrapping_add((row * (self.pitch as i64 + 1) + col * e) as u64)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(elem: u32, w: u32, h: u32, transpose: bool, pack: u32) -> Block2d {
        let (minor, major) = if transpose { (h, w) } else { (w, h) };
        let row_pitch = minor.next_power_of_two();
        let per = 64 / elem;
        Block2d {
            load: true,
            elem,
            blocks: 1,
            width: w,
            height: h,
            transpose,
            pack,
            row_pitch,
            block_pitch: (row_pitch * major).div_ceil(per) * per,
        }
    }

    /// The page's four loops, run forward: every (y, x) lands where `source` says.
    #[test]
    fn source_inverts_the_pages_layouts() {
        for (elem, w, h, t, pack) in [
            (2, 16, 8, false, 1),
            (2, 12, 5, false, 1),
            (2, 16, 8, false, 2),
            (1, 8, 8, false, 4),
            (4, 8, 16, true, 1),
            (4, 3, 7, true, 1),
            (2, 8, 6, true, 2),
        ] {
            let s = shape(elem, w, h, t, pack);
            let rp = s.row_pitch;
            let mut grf = vec![None; s.block_pitch as usize];
            match (t, pack > 1) {
                (false, false) => {
                    for y in 0..h {
                        for x in 0..w {
                            grf[(y * rp + x) as usize] = Some((y, x));
                        }
                    }
                }
                (false, true) => {
                    for y in (0..h).step_by(pack as usize) {
                        for x in 0..w {
                            for i in 0..pack {
                                grf[(y * rp + x * pack + i) as usize] = Some((y + i, x));
                            }
                        }
                    }
                }
                (true, false) => {
                    for x in 0..w {
                        for y in 0..h {
                            grf[(x * rp + y) as usize] = Some((y, x));
                        }
                    }
                }
                (true, true) => {
                    for x in (0..w).step_by(pack as usize) {
                        for y in 0..h {
                            for i in 0..pack {
                                grf[(x * rp + y * pack + i) as usize] = Some((y, x + i));
                            }
                        }
                    }
                }
            }
            for (g, want) in grf.iter().enumerate() {
                assert_eq!(
                    s.source(g as u32),
                    *want,
                    "{elem} {w}x{h} t={t} pack={pack} g={g}"
                );
            }
        }
    }

    #[test]
    fn surfaces_clip_in_bytes_and_rows() {
        let s = shape(2, 16, 8, false, 1);
        // 10 bytes wide (5 elements), 3 rows, 32-byte pitch, block at (3, 1).
        let surf = Surface2d {
            base: 0x1000,
            width: 9,
            height: 2,
            pitch: 31,
            x: 3,
            y: 1,
        };
        assert_eq!(surf.address(&s, 0, 0, 0), Some(0x1000 + 32 + 6));
        assert_eq!(surf.address(&s, 0, 0, 1), Some(0x1000 + 32 + 8));
        assert_eq!(surf.address(&s, 0, 0, 2), None);
        assert_eq!(surf.address(&s, 0, 1, 0), Some(0x1000 + 64 + 6));
        assert_eq!(surf.address(&s, 0, 2, 0), None);
        let left = Surface2d { x: -1, ..surf };
        assert_eq!(left.address(&s, 0, 0, 0), None);
        assert_eq!(left.address(&s, 0, 0, 1), Some(0x1000 + 32));
    }
}
