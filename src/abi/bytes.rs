//! Bounds-checked little-endian reads of a part of `kernel.bin` that knows where it lies
//! in the file, so that every error names an absolute byte offset.

use super::error::{AbiError, BinProblem};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Bytes<'a> {
    pub data: &'a [u8],
    /// Offset of `data[0]` in the file.
    pub base: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8], base: usize) -> Bytes<'a> {
        Bytes { data, base }
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    fn get(&self, at: usize, len: usize, what: &'static str) -> Result<&'a [u8], AbiError> {
        at.checked_add(len)
            .and_then(|end| self.data.get(at..end))
            .ok_or_else(|| {
                AbiError::bin(
                    self.base.saturating_add(at.min(self.data.len())),
                    BinProblem::Truncated { what },
                )
            })
    }

    pub fn u16(&self, at: usize, what: &'static str) -> Result<u16, AbiError> {
        let s = self.get(at, 2, what)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }

    pub fn u32(&self, at: usize, what: &'static str) -> Result<u32, AbiError> {
        let s = self.get(at, 4, what)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }

    pub fn u64(&self, at: usize, what: &'static str) -> Result<u64, AbiError> {
        let lo = self.u32(at, what)? as u64;
        let hi = self.u32(at.saturating_add(4), what)? as u64;
        Ok(lo | hi << 32)
    }

    /// `len` bytes from `at`.
    pub fn bytes(&self, at: usize, len: usize, what: &'static str) -> Result<&'a [u8], AbiError> {
        self.get(at, len, what)
    }

    /// `len` bytes from `at`, as a view that keeps its file offset.
    pub fn slice(&self, at: usize, len: usize, what: &'static str) -> Result<Bytes<'a>, AbiError> {
        let data = self.get(at, len, what)?;
        Ok(Bytes {
            data,
            base: self.base + at,
        })
    }

    /// Offset of `at` in the file.
    pub fn file_offset(&self, at: usize) -> usize {
        self.base.saturating_add(at)
    }
}

/// A `u32`/`u64` count from the file as a `usize` for slicing (fits on 64-bit hosts; on
/// 32-bit hosts an impossible size becomes `usize::MAX`, which the slice check rejects).
pub(crate) fn size(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}
