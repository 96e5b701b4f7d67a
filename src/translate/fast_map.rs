//! Hash maps keyed by small integers, for the translator's analyses.
//!
//! std's SipHash guards against keys an attacker picks; the translator's keys are
//! register offsets and instruction numbers of one kernel, asked for per byte of
//! every access (`lanes::promote`: a third of its time went to hashing).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// rustc's FxHash: one rotate, xor and multiply per word.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }
    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A [`HashMap`] hashed with [`FxHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// A [`HashSet`] hashed with [`FxHasher`].
pub type FastSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_differ_in_any_part_stay_apart() {
        let mut m: FastMap<(u32, u32), u32> = FastMap::default();
        for a in 0..64u32 {
            for b in [1u32, 2, 4, 8] {
                m.insert((a, b), a * 10 + b);
            }
        }
        assert_eq!(m.len(), 256);
        assert_eq!(m.get(&(7, 4)), Some(&74));
        assert_eq!(m.get(&(4, 7)), None);
        let mut h1 = FxHasher::default();
        h1.write(b"abcdefghi");
        let mut h2 = FxHasher::default();
        h2.write(b"abcdefghj");
        assert_ne!(h1.finish(), h2.finish());
    }
}
