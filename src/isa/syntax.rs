//! The text spellings of enumerated fields, shared by the `.visaasm` parser and the
//! printer so that each spelling is written once.

/// Spelling <-> code tables for enumerated integer fields.
pub struct Names(pub &'static [(&'static str, u64)]);

impl Names {
    pub fn code(&self, s: &str) -> Option<u64> {
        self.0
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(s))
            .map(|(_, c)| *c)
    }

    pub fn name(&self, code: u64) -> Option<&'static str> {
        self.0.iter().find(|(_, c)| *c == code).map(|(n, _)| *n)
    }
}

/// CMP Rel_op.
pub const REL_OP: Names = Names(&[
    ("eq", 0),
    ("ne", 1),
    ("gt", 2),
    ("ge", 3),
    ("lt", 4),
    ("le", 5),
]);

/// DPAS/DPASW operand precisions (W, A), DPAS page's table.
pub const PRECISION: Names = Names(&[
    ("u1", 1),
    ("s1", 2),
    ("u2", 3),
    ("s2", 4),
    ("u4", 5),
    ("s4", 6),
    ("u8", 7),
    ("s8", 8),
    ("bf", 9),
    ("hf", 10),
    ("tf32", 11),
]);

/// DWORD_ATOMIC / SVM_ATOMIC / TYPED_ATOMIC Op (bits 0-4).
pub const ATOMIC_OP: Names = Names(&[
    ("add", 0),
    ("sub", 1),
    ("inc", 2),
    ("dec", 3),
    ("min", 4),
    ("max", 5),
    ("xchg", 6),
    ("cmpxchg", 7),
    ("and", 8),
    ("or", 9),
    ("xor", 10),
    // IGC prints the signed min/max as minsint/maxsint; the spec's names parse too.
    ("minsint", 11),
    ("maxsint", 12),
    ("imin", 11),
    ("imax", 12),
    ("predec", 13),
    ("fmax", 16),
    ("fmin", 17),
    ("fcmpwr", 18),
    // Not on the pages; IGC's VISAAtomicOps (see `AtomicOp::from_legacy`).
    ("fadd", 19),
    ("fsub", 20),
]);

/// LSC_UNTYPED LscSubOp: the text mnemonic is the symbol.
pub const LSC_SUBOP: Names = Names(&[
    ("lsc_load", 0x00),
    ("lsc_load_strided", 0x01),
    ("lsc_load_quad", 0x02),
    ("lsc_load_block2d", 0x03),
    ("lsc_store", 0x04),
    ("lsc_store_strided", 0x05),
    ("lsc_store_quad", 0x06),
    ("lsc_store_block2d", 0x07),
    ("lsc_atomic_iinc", 0x08),
    ("lsc_atomic_idec", 0x09),
    ("lsc_atomic_load", 0x0A),
    ("lsc_atomic_store", 0x0B),
    ("lsc_atomic_iadd", 0x0C),
    ("lsc_atomic_isub", 0x0D),
    ("lsc_atomic_smin", 0x0E),
    ("lsc_atomic_smax", 0x0F),
    ("lsc_atomic_umin", 0x10),
    ("lsc_atomic_umax", 0x11),
    ("lsc_atomic_icas", 0x12),
    ("lsc_atomic_fadd", 0x13),
    ("lsc_atomic_fsub", 0x14),
    ("lsc_atomic_fmin", 0x15),
    ("lsc_atomic_fmax", 0x16),
    ("lsc_atomic_fcas", 0x17),
    ("lsc_atomic_and", 0x18),
    ("lsc_atomic_or", 0x19),
    ("lsc_atomic_xor", 0x1A),
    ("lsc_load_status", 0x1B),
    ("lsc_store_uncompressed", 0x1C),
    ("lsc_apndctr_atomic_add", 0x28),
    ("lsc_apndctr_atomic_sub", 0x29),
]);

/// LSC SFID.
pub const LSC_SFID: Names = Names(&[("ugm", 0), ("ugml", 1), ("tgm", 2), ("slm", 3)]);

/// LSC caching options (L1 and L3 share the spelling).
pub const LSC_CACHE: Names = Names(&[
    ("df", 0),
    ("uc", 1),
    ("ca", 2),
    ("wb", 3),
    ("wt", 4),
    ("st", 5),
    ("ri", 6),
]);

/// LSC address model.
pub const LSC_ADDR_TYPE: Names =
    Names(&[("flat", 1), ("bss", 2), ("ss", 3), ("bti", 4), ("arg", 5)]);

/// LSC address size.
pub const LSC_ADDR_SIZE: Names = Names(&[("a16", 1), ("a32", 2), ("a64", 3)]);

/// LSC data size. IGC prints d8u32/d16u32 as `d8c32`/`d16c32`; both spellings parse.
pub const LSC_DATA_SIZE: Names = Names(&[
    ("d8", 1),
    ("d16", 2),
    ("d32", 3),
    ("d64", 4),
    ("d8c32", 5),
    ("d16c32", 6),
    ("d16c32h", 7),
    ("d8u32", 5),
    ("d16u32", 6),
    ("d16u32h", 7),
]);

/// LSC vector size (DataElemsPerAddr): code -> element count.
pub const LSC_VECTOR: Names = Names(&[
    ("1", 1),
    ("2", 2),
    ("3", 3),
    ("4", 4),
    ("8", 5),
    ("16", 6),
    ("32", 7),
    ("64", 8),
]);

/// LSC fence operation.
pub const LSC_FENCE_OP: Names = Names(&[
    ("none", 0),
    ("evict", 1),
    ("invalidate", 2),
    ("discard", 3),
    ("clean", 4),
    ("flushl3", 5),
]);

/// LSC fence scope.
pub const LSC_SCOPE: Names = Names(&[
    ("group", 0),
    ("local", 1),
    ("tile", 2),
    ("gpu", 3),
    ("gpus", 4),
    ("system", 5),
    ("sysacq", 6),
]);

/// LSC data order: non-transposed (1) or transposed (2, the `t` suffix).
pub const LSC_ORDER_NONTRANSPOSE: u64 = 1;
pub const LSC_ORDER_TRANSPOSE: u64 = 2;

/// Letters of the FENCE mask bits 0..4 and 6 (bit 5 selects local vs global).
pub const FENCE_FLAGS: &[(&str, u8)] =
    &[("E", 0), ("I", 1), ("S", 2), ("C", 3), ("R", 4), ("L1", 6)];

/// RGBA channel-mask letters (bit 0 = R).
pub const CHANNELS: &[char] = &['R', 'G', 'B', 'A'];

/// Owords of OWORD_LD/ST Size codes.
pub fn owords_from_code(code: u64) -> Option<u64> {
    (code <= 4).then(|| 1u64 << code)
}

pub fn oword_code(owords: u64) -> Option<u64> {
    (owords.is_power_of_two() && owords <= 16).then(|| owords.trailing_zeros() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_bijective_per_code_where_it_matters() {
        for t in [
            &REL_OP, &ATOMIC_OP, &PRECISION, &LSC_SUBOP, &LSC_SFID, &LSC_CACHE, &LSC_SCOPE,
        ] {
            for (n, c) in t.0 {
                assert_eq!(t.code(n), Some(*c));
                assert_eq!(t.code(t.name(*c).unwrap()), Some(*c));
            }
        }
        assert_eq!(LSC_DATA_SIZE.name(5), Some("d8c32"));
        assert_eq!(LSC_DATA_SIZE.code("d8u32"), Some(5));
        assert_eq!(oword_code(4), Some(2));
        assert_eq!(owords_from_code(2), Some(4));
    }
}
