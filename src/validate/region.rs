//! The region rules of 5_operands ("General Restrictions on Region Parameters") for a
//! direct operand, as pure functions of the operand and its variable.

use crate::ir::Region;

/// Which of the spec's numbered region rules an operand breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegionRule {
    /// Rule 1: Width must be 1, 2, 4, 8 or 16.
    Width(u8),
    /// Rule 2: VertStride must be 0, 1, 2, 4, 8, 16 or 32.
    VertStride(u8),
    /// Rule 3: HorzStride must be 0, 1, 2 or 4.
    HorzStride(u8),
    /// Rule 4: ExecSize must be >= Width.
    WidthOverExecSize { width: u8, exec_size: u8 },
    /// Rule 5: a destination's HorzStride must not be 0.
    DstHorzStrideZero,
    /// Rule 6: the elements may not span more than two adjacent GRFs.
    SpansGrfs { first: u32, last: u32 },
    /// Every element accessed must lie inside the variable.
    OutOfVariable { last_byte: u32, var_bytes: u32 },
    /// A Null region parameter where one is required (direct operands).
    Null,
}

impl std::fmt::Display for RegionRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegionRule::Width(w) => write!(f, "region rule 1: Width {w} is not one of 1,2,4,8,16"),
            RegionRule::VertStride(v) => {
                write!(
                    f,
                    "region rule 2: VertStride {v} is not one of 0,1,2,4,8,16,32"
                )
            }
            RegionRule::HorzStride(h) => {
                write!(f, "region rule 3: HorzStride {h} is not one of 0,1,2,4")
            }
            RegionRule::WidthOverExecSize { width, exec_size } => write!(
                f,
                "region rule 4: ExecSize {exec_size} must be >= Width {width}"
            ),
            RegionRule::DstHorzStrideZero => {
                write!(f, "region rule 5: a destination's HorzStride must not be 0")
            }
            RegionRule::SpansGrfs { first, last } => write!(
                f,
                "region rule 6: elements span GRFs {first}..={last}, more than two adjacent GRFs"
            ),
            RegionRule::OutOfVariable {
                last_byte,
                var_bytes,
            } => write!(
                f,
                "operand reaches byte {last_byte} of a {var_bytes}-byte variable"
            ),
            RegionRule::Null => write!(f, "a direct operand may not use a Null region parameter"),
        }
    }
}

/// Byte offsets (from the variable's start) of the elements a direct source region
/// reads, in channel order: the 5_operands pseudo-code.
pub fn source_offsets(
    region: Region,
    exec_size: u8,
    elem: u32,
    grf_bytes: u32,
    row: u8,
    col: u8,
) -> Option<Vec<u32>> {
    let (vs, w, hs) = (region.vstride?, region.width?, region.hstride?);
    let base = row as u32 * grf_bytes + col as u32 * elem;
    let w = w.max(1) as u32;
    Some(
        (0..exec_size as u32)
            .map(|i| base + ((i / w) * vs as u32 + (i % w) * hs as u32) * elem)
            .collect(),
    )
}

/// Byte offsets a destination `<HorzStride>` writes.
pub fn dest_offsets(
    hstride: u8,
    exec_size: u8,
    elem: u32,
    grf_bytes: u32,
    row: u8,
    col: u8,
) -> Vec<u32> {
    let base = row as u32 * grf_bytes + col as u32 * elem;
    (0..exec_size as u32)
        .map(|i| base + i * hstride as u32 * elem)
        .collect()
}

/// Check a direct operand. `var_bytes` is the size of the variable (or of the alias
/// view) the operand addresses; `var_grf_offset` is where the variable starts inside its
/// first GRF, for rule 6.
#[allow(clippy::too_many_arguments)]
pub fn check_direct(
    region: Region,
    is_dst: bool,
    exec_size: u8,
    elem: u32,
    grf_bytes: u32,
    row: u8,
    col: u8,
    var_bytes: u32,
    var_grf_offset: u32,
) -> Vec<RegionRule> {
    let mut out = Vec::new();
    let offsets = if is_dst {
        let Some(hs) = region.hstride else {
            return vec![RegionRule::Null];
        };
        if hs == 0 && exec_size > 1 {
            out.push(RegionRule::DstHorzStrideZero);
        }
        if !matches!(hs, 0 | 1 | 2 | 4) {
            out.push(RegionRule::HorzStride(hs));
        }
        dest_offsets(hs, exec_size, elem, grf_bytes, row, col)
    } else {
        let (Some(vs), Some(w), Some(hs)) = (region.vstride, region.width, region.hstride) else {
            return vec![RegionRule::Null];
        };
        if !matches!(w, 1 | 2 | 4 | 8 | 16) {
            out.push(RegionRule::Width(w));
        }
        if !matches!(vs, 0 | 1 | 2 | 4 | 8 | 16 | 32) {
            out.push(RegionRule::VertStride(vs));
        }
        if !matches!(hs, 0 | 1 | 2 | 4) {
            out.push(RegionRule::HorzStride(hs));
        }
        if exec_size < w {
            out.push(RegionRule::WidthOverExecSize {
                width: w,
                exec_size,
            });
        }
        source_offsets(region, exec_size, elem, grf_bytes, row, col).unwrap_or_default()
    };
    if let (Some(&lo), Some(&hi)) = (offsets.iter().min(), offsets.iter().max()) {
        let last = hi + elem - 1;
        if last >= var_bytes {
            out.push(RegionRule::OutOfVariable {
                last_byte: last,
                var_bytes,
            });
        }
        let first_grf = (var_grf_offset + lo) / grf_bytes;
        let last_grf = (var_grf_offset + last) / grf_bytes;
        if last_grf > first_grf + 1 {
            out.push(RegionRule::SpansGrfs {
                first: first_grf,
                last: last_grf,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(vs: u8, w: u8, hs: u8) -> Region {
        Region {
            vstride: Some(vs),
            width: Some(w),
            hstride: Some(hs),
        }
    }

    #[test]
    fn spec_region_example_offsets() {
        // <8;4,2> over 8 dwords: rows of 4 elements stepping by 2, next row 8 on.
        let o = source_offsets(r(8, 4, 2), 8, 4, 32, 0, 0).unwrap();
        assert_eq!(o, vec![0, 8, 16, 24, 32, 40, 48, 56]);
        // scalar
        let o = source_offsets(Region::SCALAR, 4, 4, 32, 1, 3).unwrap();
        assert_eq!(o, vec![44; 4]);
    }

    #[test]
    fn each_rule_fires() {
        let ok = check_direct(r(1, 1, 0), false, 16, 4, 32, 0, 0, 64, 0);
        assert!(ok.is_empty(), "{ok:?}");
        assert!(
            check_direct(r(8, 3, 1), false, 8, 4, 32, 0, 0, 512, 0).contains(&RegionRule::Width(3))
        );
        assert!(check_direct(r(3, 1, 0), false, 8, 4, 32, 0, 0, 512, 0)
            .contains(&RegionRule::VertStride(3)));
        assert!(check_direct(r(8, 8, 3), false, 8, 4, 32, 0, 0, 512, 0)
            .contains(&RegionRule::HorzStride(3)));
        assert!(
            check_direct(r(16, 16, 1), false, 8, 4, 32, 0, 0, 512, 0).contains(
                &RegionRule::WidthOverExecSize {
                    width: 16,
                    exec_size: 8
                }
            )
        );
        assert!(check_direct(r(0, 1, 0), true, 8, 4, 32, 0, 0, 512, 0)
            .contains(&RegionRule::DstHorzStrideZero));
        // 16 dwords with stride 2 = 128 bytes = 4 GRFs
        assert!(matches!(
            check_direct(r(0, 1, 2), true, 16, 4, 32, 0, 0, 512, 0)[..],
            [RegionRule::SpansGrfs { first: 0, last: 3 }]
        ));
        assert!(matches!(
            check_direct(r(1, 1, 0), false, 16, 4, 32, 0, 0, 32, 0)[..],
            [RegionRule::OutOfVariable { .. }]
        ));
    }

    #[test]
    fn a_64_byte_grf_allows_wider_spans() {
        let v = check_direct(r(0, 1, 2), true, 16, 4, 64, 0, 0, 512, 0);
        assert!(v.is_empty(), "{v:?}");
    }
}
