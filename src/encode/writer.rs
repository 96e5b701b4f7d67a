//! A little-endian byte sink and an object's string pool.

#[derive(Default)]
pub struct Writer {
    out: Vec<u8>,
}

impl Writer {
    pub fn len(&self) -> usize {
        self.out.len()
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }

    pub fn u8(&mut self, v: u8) {
        self.out.push(v);
    }

    pub fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }

    pub fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }

    /// The low `n` bytes of `v` (the caller checked that the rest are zero).
    pub fn uint(&mut self, v: u64, n: u8) {
        self.bytes(&v.to_le_bytes()[..n as usize]);
    }

    pub fn finish(self) -> Vec<u8> {
        self.out
    }
}

/// An object's strings, entry 0 the empty string (4_visa_header, "String Pool").
pub struct Pool {
    strings: Vec<String>,
    /// The first name the NUL-separated pool cannot hold.
    bad: Option<String>,
}

impl Default for Pool {
    fn default() -> Pool {
        Pool {
            strings: vec![String::new()],
            bad: None,
        }
    }
}

impl Pool {
    /// The index of `s`, added on first use.
    pub fn index(&mut self, s: &str) -> u32 {
        if s.contains('\0') && self.bad.is_none() {
            self.bad = Some(s.escape_debug().to_string());
        }
        match self.strings.iter().position(|t| t == s) {
            Some(i) => i as u32,
            None => {
                self.strings.push(s.to_string());
                self.strings.len() as u32 - 1
            }
        }
    }

    /// `UD string_count` and the NUL-terminated strings.
    pub fn finish(self) -> Result<Vec<u8>, String> {
        if let Some(b) = self.bad {
            return Err(format!("the name \"{b}\" contains a NUL byte"));
        }
        let mut w = Writer::default();
        w.u32(self.strings.len() as u32);
        for s in &self.strings {
            w.bytes(s.as_bytes());
            w.u8(0);
        }
        Ok(w.finish())
    }
}
