//! The `u32` literals the translator writes into WGSL (`12u`, `0x7bu`), read back by
//! the passes that rewrite module text.

/// The value of a whole `u32` literal: decimal or `0x` hex digits and the `u` suffix,
/// nothing else (no sign, no spaces).
pub fn u32_literal(s: &str) -> Option<u32> {
    let digits = s.strip_suffix('u')?;
    let (digits, radix) = match digits.strip_prefix("0x") {
        Some(hex) => (hex, 16),
        None => (digits, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u32::from_str_radix(digits, radix).ok()
}

#[cfg(test)]
mod tests {
    use super::u32_literal;

    #[test]
    fn whole_literals_only() {
        assert_eq!(u32_literal("12u"), Some(12));
        assert_eq!(u32_literal("0x7bu"), Some(123));
        assert_eq!(u32_literal("4294967295u"), Some(u32::MAX));
        for bad in [
            "12",
            "u",
            "+12u",
            "-1u",
            " 12u",
            "4294967296u",
            "0xu",
            "1_0u",
            "12lu",
        ] {
            assert_eq!(u32_literal(bad), None, "{bad}");
        }
    }
}
