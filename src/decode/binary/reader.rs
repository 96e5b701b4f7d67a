//! A bounds-checked little-endian cursor: every read says what it was reading, and a
//! short input is an error at its offset, never a panic.

use super::BinaryError;

pub struct Reader<'a> {
    pub bytes: &'a [u8],
    pub pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8], pos: usize) -> Reader<'a> {
        Reader { bytes, pos }
    }

    pub fn fail(&self, message: impl Into<String>) -> BinaryError {
        BinaryError {
            offset: self.pos,
            message: message.into(),
        }
    }

    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], BinaryError> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.bytes.len());
        match end {
            Some(e) => {
                let s = &self.bytes[self.pos..e];
                self.pos = e;
                Ok(s)
            }
            None => Err(self.fail(format!(
                "expected {what} ({n} bytes) but the input ends at byte {:#x}",
                self.bytes.len()
            ))),
        }
    }

    /// The next byte, not consumed.
    pub fn peek_u8(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, BinaryError> {
        Ok(self.take(1, what)?[0])
    }

    pub fn u16(&mut self, what: &str) -> Result<u16, BinaryError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self, what: &str) -> Result<u32, BinaryError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn uint(&mut self, n: u8, what: &str) -> Result<u64, BinaryError> {
        let b = self.take(n as usize, what)?;
        let mut v = [0u8; 8];
        v[..b.len()].copy_from_slice(b);
        Ok(u64::from_le_bytes(v))
    }

    /// A count that must leave room for at least `min_item` bytes per item, so that a
    /// hostile count cannot make us allocate more than the input could describe.
    pub fn count(&mut self, width: u8, min_item: usize, what: &str) -> Result<usize, BinaryError> {
        let at = self.pos;
        let n = self.uint(width, what)? as usize;
        let left = self.bytes.len().saturating_sub(self.pos);
        if n.saturating_mul(min_item.max(1)) > left {
            return Err(BinaryError {
                offset: at,
                message: format!("{what} is {n}, but only {left} bytes remain"),
            });
        }
        Ok(n)
    }
}
