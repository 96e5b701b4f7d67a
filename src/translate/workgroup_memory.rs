//! How much workgroup memory a generated module declares, read off its text.
//!
//! Drivers do not all refuse a pipeline whose `var<workgroup>` total is over the
//! adapter's limit: NVIDIA's Vulkan driver compiled one with 64 KiB against its
//! 48 KiB and then never started a workgroup of it (the dispatch hung). The host
//! compares this total with the limit before it creates the pipeline.
//!
//! The scan knows the declarations the translator and the runtime write: scalars of
//! 4 bytes and `array<scalar, N>` whose `N` sums literals and `const` names of the
//! module. Anything else makes the total unknown (`None`), never a guess.

use std::collections::HashMap;

/// Bytes of every `var<workgroup>` of `wgsl`, or `None` when one has a type or an
/// array length the scan does not know.
pub fn workgroup_bytes(wgsl: &str) -> Option<u64> {
    let consts = u32_consts(wgsl);
    let mut total = 0u64;
    for line in wgsl.lines() {
        let Some(rest) = line.trim_start().strip_prefix("var<workgroup>") else {
            continue;
        };
        let ty = rest.split_once(':')?.1.trim().strip_suffix(';')?.trim();
        total += type_bytes(ty, &consts)?;
    }
    Some(total)
}

/// `const NAME: u32 = Nu;` lines.
fn u32_consts(wgsl: &str) -> HashMap<&str, u64> {
    wgsl.lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix("const ")?;
            let (name, rest) = rest.split_once(':')?;
            let (ty, value) = rest.split_once('=')?;
            if ty.trim() != "u32" {
                return None;
            }
            let v = value.trim().strip_suffix(';')?.trim().strip_suffix('u')?;
            Some((name.trim(), v.parse().ok()?))
        })
        .collect()
}

fn type_bytes(ty: &str, consts: &HashMap<&str, u64>) -> Option<u64> {
    match ty {
        "u32" | "i32" | "f32" | "atomic<u32>" | "atomic<i32>" => return Some(4),
        _ => {}
    }
    let inner = ty.strip_prefix("array<")?.strip_suffix('>')?;
    let (elem, len) = inner.rsplit_once(',')?;
    let n = len
        .split('+')
        .map(|t| {
            let t = t.trim();
            t.strip_suffix('u')
                .and_then(|d| d.parse().ok())
                .or_else(|| consts.get(t).copied())
        })
        .sum::<Option<u64>>()?;
    Some(type_bytes(elem.trim(), consts)? * n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_scalars_and_arrays_sized_by_constants() {
        let wgsl = "const K_SLM_WORDS: u32 = 256u;\nconst K_SLM_LOCKS: u32 = 16u;\n\
            var<workgroup> slm: array<atomic<u32>, K_SLM_WORDS + 1u + K_SLM_LOCKS>;\n\
            var<workgroup> go: u32;\n    var<workgroup> live: atomic<u32>;\n";
        assert_eq!(workgroup_bytes(wgsl), Some(4 * (256 + 1 + 16) + 8));
    }

    #[test]
    fn an_unknown_type_or_length_makes_the_total_unknown() {
        assert_eq!(workgroup_bytes("var<workgroup> v: vec4<f32>;"), None);
        assert_eq!(
            workgroup_bytes("var<workgroup> a: array<u32, K_MISSING>;"),
            None
        );
        assert_eq!(workgroup_bytes("var<private> a: array<u32, 9>;"), Some(0));
    }
}
