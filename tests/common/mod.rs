//! Shared by the GPU tests: the interpreter and a GPU run must agree byte for byte and
//! in executed instructions and channel operations.

use visa_emu::backend::{cpu::VariantRun, gpu::GpuRun};

/// Panics with the first disagreement between the interpreter's run and the GPU's.
pub fn assert_same_run(name: &str, cpu: &VariantRun, g: &GpuRun) {
    assert_eq!(cpu.buffers.len(), g.buffers.len(), "{name}: buffer count");
    for ((n, a), (_, b)) in cpu.buffers.iter().zip(&g.buffers) {
        let first = a.iter().zip(b).position(|(x, y)| x != y);
        assert!(
            first.is_none() && a.len() == b.len(),
            "{name}: buffer {n} differs at byte {first:?} ({} words differ)",
            a.chunks(4).zip(b.chunks(4)).filter(|(x, y)| x != y).count()
        );
    }
    assert_eq!(
        cpu.stats.instructions, g.instructions,
        "{name}: instructions"
    );
    assert_eq!(cpu.stats.channel_ops, g.channel_ops, "{name}: channel-ops");
}
