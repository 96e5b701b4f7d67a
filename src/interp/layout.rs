//! Placement of general variables in a thread's GRF bytes, by IGC's rules: a variable
//! of one GRF or more starts on a GRF boundary; a smaller one never crosses a GRF
//! boundary; both honour the declared alignment. Aliases are views into their base.

use crate::ir::{Kernel, PredefinedVar, VarId};

/// Byte offset of every variable (aliases resolved) and the total size.
#[derive(Clone, Debug)]
pub struct Layout {
    pub offsets: Vec<u32>,
    pub sizes: Vec<u32>,
    pub total: u32,
    pub grf_bytes: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    #[error("variable {name}: alias chain is circular or longer than 16 links")]
    AliasLoop { name: String },
    #[error("variable {name}: alias base V{base} does not exist")]
    AliasBase { name: String, base: u32 },
    #[error("variable {name}: alias view of {size} bytes at offset {offset} runs past its {base_size}-byte base")]
    AliasRange {
        name: String,
        offset: u32,
        size: u32,
        base_size: u32,
    },
}

impl Layout {
    pub fn new(k: &Kernel, grf_bytes: u32) -> Result<Layout, LayoutError> {
        let n = k.vars.len();
        let mut offsets = vec![u32::MAX; n];
        // %arg and %retval are 32 and 12 GRFs (4_visa_header: 256/512 and 96/192 UD,
        // by GRF size).
        let sizes: Vec<u32> = k
            .vars
            .iter()
            .map(|v| match v.predefined {
                Some(PredefinedVar::Arg) => 32 * grf_bytes,
                Some(PredefinedVar::RetVal) => 12 * grf_bytes,
                _ => v.byte_size(),
            })
            .collect();
        let mut cursor = 0u32;
        // Storage for every non-alias variable.
        for (i, v) in k.vars.iter().enumerate() {
            if v.alias.is_some() {
                continue;
            }
            let size = sizes[i].max(1);
            let align = v.align.bytes(grf_bytes).max(v.ty.size()).max(1);
            let mut off = cursor.div_ceil(align) * align;
            // A GRF or larger: GRF-aligned. Smaller: must not cross a GRF boundary.
            if size >= grf_bytes || off / grf_bytes != (off + size - 1) / grf_bytes {
                off = off.div_ceil(grf_bytes) * grf_bytes;
            }
            offsets[i] = off;
            cursor = off + size;
        }
        // Aliases: base offset + alias offset, following chains.
        for i in 0..n {
            if offsets[i] != u32::MAX {
                continue;
            }
            let mut total = 0u32;
            let mut cur = i;
            let mut hops = 0;
            while let Some((base, off)) = k.vars[cur].alias {
                total += off;
                let b = base.0 as usize;
                if b >= n {
                    return Err(LayoutError::AliasBase {
                        name: k.vars[i].name.clone(),
                        base: base.0,
                    });
                }
                cur = b;
                hops += 1;
                if hops > 16 {
                    return Err(LayoutError::AliasLoop {
                        name: k.vars[i].name.clone(),
                    });
                }
            }
            if total + sizes[i] > sizes[cur].max(total + sizes[i]) {
                return Err(LayoutError::AliasRange {
                    name: k.vars[i].name.clone(),
                    offset: total,
                    size: sizes[i],
                    base_size: sizes[cur],
                });
            }
            offsets[i] = offsets[cur] + total;
        }
        // Room for the widest region overrun a kernel may legally make (two GRFs).
        let total = (cursor.div_ceil(grf_bytes) + 2) * grf_bytes;
        Ok(Layout {
            offsets,
            sizes,
            total,
            grf_bytes,
        })
    }

    pub fn offset(&self, v: VarId) -> u32 {
        self.offsets.get(v.0 as usize).copied().unwrap_or(0)
    }
}
