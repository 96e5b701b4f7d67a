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

/// The value of `const name: u32 = Nu;` in `wgsl`.
pub fn u32_const(wgsl: &str, name: &str) -> Option<u64> {
    u32_consts(wgsl).get(name).copied()
}

/// The declaration of the group's SLM (runtime.wgsl).
const SLM_DECL: &str = "var<workgroup> slm: array<atomic<u32>, K_SLM_WORDS + 1u + K_SLM_LOCKS>;";

/// Where every entry point computes its group's index.
const GROUP_LINE: &str =
    "let group = (grp.z * cfh(CFG_GROUPS + 1u) + grp.y) * cfh(CFG_GROUPS) + grp.x;";

/// `wgsl` with the group's SLM moved out of workgroup memory into the heap: each group
/// owns [`GROUP_SLM_STRIDE`] words from heap word `cfh(CFG_GSLM)` on, found
/// through `slm_base`, which each entry point sets from its group index. For groups
/// whose SLM is over the adapter's workgroup memory (NVIDIA 48 KiB, lavapipe, Metal and
/// GL 32 KiB, against Intel's 64 KiB), and for kernels with 64-bit SLM atomics where the
/// device has native 64-bit atomics (lock-free there); every barrier of the generated code is already a
/// storage barrier too, so the accesses stay ordered. `None` when the module has no
/// SLM array or an entry point whose group index the rewrite cannot find.
pub fn slm_in_heap(wgsl: &str) -> Option<String> {
    if !wgsl.contains(SLM_DECL) || !wgsl.contains(GROUP_LINE) {
        return None;
    }
    let base = format!("{GROUP_LINE}\n    slm_base = cfh(CFG_GSLM) + group * {GROUP_SLM_STRIDE};");
    Some(
        wgsl.replace(SLM_DECL, "")
            .replace("&slm[", "&heap[slm_base + ")
            .replace(GROUP_LINE, &base)
            .replace(SLM_IN_HEAP_OFF, "const K_SLM_IN_HEAP: bool = true;"),
    )
}

/// Heap words each group's SLM takes once moved ([`slm_in_heap`]): its words, the
/// out-of-bounds word and the locks, rounded up to even so that every group starts on
/// an 8-byte boundary (the host starts the region on one) and the native 64-bit atomics
/// reach its aligned words as `atomic<u64>` (shaders/atomic64_native.wgsl).
const GROUP_SLM_STRIDE: &str = "((K_SLM_WORDS + 2u + K_SLM_LOCKS) & ~1u)";

/// [`GROUP_SLM_STRIDE`] for the host, from the module's constants.
pub fn group_slm_stride(slm_words: u64, locks: u64) -> u64 {
    (slm_words + 2 + locks) & !1
}

/// The runtime's switch that tells the native 64-bit atomics the SLM is in the heap.
const SLM_IN_HEAP_OFF: &str = "const K_SLM_IN_HEAP: bool = false;";

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
            let v = value.trim().strip_suffix(';')?.trim();
            Some((name.trim(), u64::from(super::literal::u32_literal(v)?)))
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
            // `16u` as the translator writes it, `16` or `16i` as naga's writer may.
            t.trim_end_matches(['u', 'i'])
                .parse()
                .ok()
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
    fn slm_in_heap_moves_every_access_and_sets_the_base_per_group() {
        let wgsl = format!(
            "{SLM_DECL}\nfn f(w: u32) -> u32 {{ return atomicLoad(&slm[w + 1u]); }}\nfn main() {{\n    {GROUP_LINE}\n}}\n"
        );
        let moved = slm_in_heap(&wgsl).unwrap();
        assert!(!moved.contains("var<workgroup>"), "{moved}");
        assert!(
            moved.contains("atomicLoad(&heap[slm_base + w + 1u])"),
            "{moved}"
        );
        assert!(
            moved.contains("slm_base = cfh(CFG_GSLM) + group *"),
            "{moved}"
        );
        assert_eq!(workgroup_bytes(&moved), Some(0));
        assert_eq!(slm_in_heap("fn main() {}"), None);
        // The native 64-bit atomics learn that SLM words are heap words.
        let with_switch = format!("{SLM_IN_HEAP_OFF}\n{wgsl}");
        assert!(slm_in_heap(&with_switch)
            .unwrap()
            .contains("const K_SLM_IN_HEAP: bool = true;"));
    }

    #[test]
    fn groups_start_their_slm_on_8_byte_boundaries() {
        // Odd and even SLM sizes: every stride is even and holds the SLM, the
        // out-of-bounds word and the locks.
        for words in [0u64, 1, 2, 5, 256, 4095] {
            let s = group_slm_stride(words, 16);
            assert_eq!(s % 2, 0, "{words} words");
            assert!(s > words + 16, "{words} words");
        }
        assert!(GROUP_SLM_STRIDE.contains("& ~1u"));
    }

    #[test]
    fn an_unknown_type_or_length_makes_the_total_unknown() {
        assert_eq!(workgroup_bytes("var<workgroup> v: vec4<f32>;"), None);
        assert_eq!(
            workgroup_bytes("var<workgroup> a: array<u32, K_MISSING>;"),
            None
        );
        assert_eq!(workgroup_bytes("var<private> a: array<u32, 9>;"), Some(0));
        assert_eq!(
            workgroup_bytes("var<workgroup> a: array<atomic<u32>, 273>;"),
            Some(4 * 273)
        );
    }
}
