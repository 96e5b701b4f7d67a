//! The vISA → WGSL translator. It knows nothing of wgpu: its output is WGSL text and
//! the facts the driver needs to bind it ([`Module`]); `backend::gpu` runs it.
//!
//! Mapping (docs/design.md, "GPU path"): one invocation runs one vISA SIMD thread, a
//! workgroup runs one vISA thread group (so SLM is `var<workgroup>` and a vISA
//! `barrier` is a workgroup barrier), and the thread's channels are a loop inside each
//! instruction. The thread's GRF image is an invocation-private array laid out exactly
//! as the interpreter lays it out. Control flow is the interpreter's min-PC scheme:
//! every channel has a program counter (a basic-block index); the thread runs the
//! block at the smallest one with the channels that sit there. Blocks are the arms of
//! one `switch` inside a loop: the host never round-trips per block.
//!
//! Barriers are reached uniformly by construction: a thread that reaches a vISA
//! barrier returns from its block loop, and the only `workgroupBarrier` calls are in
//! `main`'s round loop, whose exit condition every invocation reads from the same
//! workgroup words after the round's barrier (three in turn: runtime.wgsl, `wg_live`).
//! The result never depends on the subgroup size, and no subgroup operation is used.

mod aggregated_atomics;
mod alt_mode;
mod alu;
pub mod atomic_ops;
mod blocks;
pub mod budget;
mod dpas;
pub mod driver_folds;
mod exchange;
mod fast_map;
mod fences;
mod grf_rows;
pub mod grf_split;
mod indirect_operands;
mod inline_calls;
mod lane_emit;
pub mod lane_memory;
pub mod lane_passes;
pub mod lanes;
mod literal;
mod local_registers;
#[cfg(feature = "gpu")]
pub mod lower64;
mod message;
mod nan_blind;
mod operand;
pub use operand::special_float;
mod plain_meetings;
pub mod prune;
mod scalar_slots;
pub mod simt;
mod straight_rows;
pub mod table_form;
pub mod tidy;
mod wg_uniform;
pub mod workgroup_memory;

use crate::interp::prepare::{PField, PInst, Prepared};
use crate::ir::PredCombine;
use crate::isa::Opcode;
use std::collections::HashMap;
use std::fmt::Write;

/// The kernel-independent WGSL runtime, included at build time.
pub const RUNTIME: &str = include_str!("../../shaders/runtime.wgsl");
/// The soft-double library on u64 bits: exact DF `mad` on any adapter (`dfma`), and the
/// f64 emulation of [`lower64`].
pub const SOFT_F64: &str = include_str!("../../shaders/soft_f64.wgsl");
/// The 64-bit integer library on u32 pairs ([`lower64`]).
pub const SOFT_I64: &str = include_str!("../../shaders/soft_i64.wgsl");

/// Images for typed messages (appended for kernels that have them).
pub const IMAGE_RUNTIME: &str = include_str!("../../shaders/image.wgsl");
/// DPAS (`dpas_run`), appended to modules that call it.
pub const DPAS_RUNTIME: &str = include_str!("../../shaders/dpas.wgsl");
/// The native 64-bit atomics ([`native_atomic64`]).
pub const ATOMIC64_NATIVE: &str = include_str!("../../shaders/atomic64_native.wgsl");

/// The comment the kernel's code carries before each 64-bit atomic.
pub(crate) const ATOMIC64_MARK: &str = "// atomic64: 64-bit atomic";
/// The comment after [`ATOMIC64_MARK`] where the atomic may address SLM: the host then
/// moves the SLM into the heap on devices with native 64-bit atomics
/// (`backend::gpu`, `place_workgroup_memory`).
pub const ATOMIC64_SLM_MARK: &str = "// atomic64: may address SLM";

/// The runtime's `atomic64` (the split form), one line so that it can be swapped.
const ATOMIC64_SPLIT: &str = "fn atomic64(space: u32, w: u32, op: u32, s0: u64, s1: u64) -> u64 { return atomic64_split(space, w, op, s0, s1); }";

/// `wgsl` with exact 64-bit atomics on the heap: the runtime's split `atomic64`
/// replaced by shaders/atomic64_native.wgsl, which binds the heap a second time at
/// [`binding::HEAP64`] as `atomic<u64>` words (the device needs
/// SHADER_INT64_ATOMIC_ALL_OPS). `None` when the kernel has no 64-bit atomic (the
/// binding would then be unused and must not be bound).
pub fn native_atomic64(wgsl: &str) -> Option<String> {
    if !has_split_atomic64(wgsl) {
        return None;
    }
    Some(wgsl.replacen(ATOMIC64_SPLIT, ATOMIC64_NATIVE, 1))
}

/// Whether `wgsl` has 64-bit atomics in the split form [`native_atomic64`] replaces.
pub fn has_split_atomic64(wgsl: &str) -> bool {
    wgsl.contains(ATOMIC64_MARK) && wgsl.contains(ATOMIC64_SPLIT)
}

/// The line of a thread-mapping module that keeps the code saving and restoring
/// threads for sliced runs (see [`unsliced`]).
const SLICED_SWITCH: &str = "const K_SLICED: bool = true; // translate::unsliced\n";

/// `wgsl` (a thread-mapping module) for a run in one pass: the code that saves and
/// restores threads (sliced runs, never taken otherwise) compiled out. llvmpipe spends
/// ~1.5 s of a first dispatch compiling it (slm_reduce: pipeline + first dispatch
/// 7.0 -> 5.4 s). `None`: the module has no such switch (straight and lane modules,
/// probes).
pub fn unsliced(wgsl: &str) -> Option<String> {
    wgsl.contains(SLICED_SWITCH)
        .then(|| wgsl.replacen(SLICED_SWITCH, "const K_SLICED: bool = false;\n", 1))
}

/// The runtime a kernel's code needs: the soft-double library first (functions may
/// only call functions defined before them) when it calls `dfma`.
pub(crate) fn runtime_for(kernel: &str) -> String {
    let s = runtime_pieces(kernel);
    if kernel.contains(GRF_IN_STATE_MARK) {
        grf_in_state(&s)
    } else {
        s
    }
}

/// The most GRF words a module keeps in an invocation-private array (8 KiB) where the
/// driver limits them. NVIDIA's Vulkan driver (580, H200, stop 34) refused all eight
/// modules of the test set with 2,650 or more words of private arrays (`vkCreateComputePipelines`
/// failed; wgpu reports a lost device) and compiled the 87 thread-mapping ones up to 3,312;
/// the two tried so failed alike with three quarters of their code cut out, and six with their
/// float switches off (docs/design.md, "Private memory"). Over this a lane form that
/// reaches the GRF array is not used (anywhere: llvmpipe ran `long_arith`'s 7,928
/// words straight 10 times slower than the thread mapping), and the host runs the
/// thread mapping with its GRF in `state` ([`Target::grf_in_state`]) on such drivers
/// (on llvmpipe that form ran 2-3 times slower: `stack_calls`, 2,320 words).
pub const PRIVATE_GRF_WORDS_MAX: u32 = 2048;

/// Why a lane-form module `m` (GRF of `grf_words`) is not used: it reaches the
/// invocation-private GRF array `g` and that is over [`PRIVATE_GRF_WORDS_MAX`].
fn private_grf_too_large(m: &Module, grf_words: u32) -> Option<String> {
    // A straight module's compact image (`grf_rows.rs`) where it has one.
    let words = m
        .straight
        .as_ref()
        .and_then(|s| s.image_words)
        .unwrap_or(grf_words.div_ceil(4) * 4);
    (words > PRIVATE_GRF_WORDS_MAX && prune::reaches_identifier(&m.wgsl, m.entry_point, "g"))
        .then(|| {
            format!(
                "each invocation would keep the GRF ({words} words) in private memory, over the {PRIVATE_GRF_WORDS_MAX} that drivers compile"
            )
        })
}

/// The line that marks a thread-mapping module whose GRF lives in `state` (see
/// [`grf_in_state`]).
const GRF_IN_STATE_MARK: &str = "const K_GRF_IN_STATE: bool = true;";

/// `wgsl` (the runtime, or a whole module) with the thread's GRF image, predicates
/// and address registers in the `state` buffer, in the thread's own record (`g0`,
/// `p0`, `a0`: set by `main`), instead of invocation-private arrays. llvmpipe
/// compiles large private arrays slowly (`private_array_dynamic`, 3,720 GRF words:
/// 67 s of compiling for the runtime alone, 9 s with the GRF in memory), and what
/// lives in `state` needs no copy when a sliced run saves the thread.
pub(crate) fn grf_in_state(wgsl: &str) -> String {
    let mut s = wgsl.to_string();
    for (decl, base) in [
        ("var<private> g: array<u32, K_GRF_QUADS * 4u>;", "g0"),
        ("var<private> ar: array<u32, K_NADDR>;", "a0"),
        ("var<private> pr: array<u32, K_NPRED>;", "p0"),
    ] {
        s = s.replacen(decl, &format!("var<private> {base}: u32;"), 1);
    }
    for f in ["save_grf", "restore_grf", "save_flags", "restore_flags"] {
        let head = format!("\nfn {f}(o: u32) {{");
        if let Some(start) = s.find(&head) {
            if let Some(len) = s[start..].find("\n}\n") {
                s.replace_range(start..start + len + 3, &format!("{head}}}\n"));
            }
        }
    }
    state_indices(&s)
}

/// The register arrays' accesses of `text` (a runtime or a kernel's code) as `state`
/// accesses (see [`grf_in_state`]).
fn state_indices(text: &str) -> String {
    let mut s = text.to_string();
    for (array, base) in [("g", "g0"), ("ar", "a0"), ("pr", "p0")] {
        s = index_into_state(&s, array, base);
    }
    s
}

/// Every `name[i]` of `text` (not part of a longer name) as `state[base + (i)]`.
fn index_into_state(text: &str, name: &str, base: &str) -> String {
    let open = format!("{name}[");
    let mut out = String::with_capacity(text.len() + 4096);
    let mut rest = text;
    while let Some(k) = rest.find(&open) {
        let before = rest[..k].chars().next_back();
        out.push_str(&rest[..k]);
        rest = &rest[k + open.len()..];
        let index_end = rest
            .char_indices()
            .scan(1i32, |depth, (j, c)| {
                *depth += match c {
                    '[' => 1,
                    ']' => -1,
                    _ => 0,
                };
                Some((j, *depth))
            })
            .find(|&(_, d)| d == 0)
            .map(|(j, _)| j);
        match index_end {
            Some(j) if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') => {
                out.push_str(&format!("state[{base} + ({})]", &rest[..j]));
                rest = &rest[j + 1..];
            }
            _ => out.push_str(&open),
        }
    }
    out.push_str(rest);
    out
}

/// The runtime pieces `kernel` calls.
fn runtime_pieces(kernel: &str) -> String {
    let mut s = if [
        "dfma(",
        "ddiv(",
        "dsqrt(",
        "dadd_rm(",
        "dmul_rm(",
        "dfma_rm(",
        "ddiv_rm(",
        "dsqrt_rm(",
    ]
    .iter()
    .any(|f| kernel.contains(f))
    {
        format!("{SOFT_F64}\n{RUNTIME}")
    } else {
        RUNTIME.to_string()
    };
    s = atomic_ops::for_kernel(&s, kernel);
    if [
        "img_read(",
        "img_write(",
        "img_sample(",
        "img_gather4(",
        "img_ld(",
        "img_inside(",
        "img_block_",
        "img_atomic(",
    ]
    .iter()
    .any(|f| kernel.contains(f))
    {
        s.push('\n');
        s.push_str(IMAGE_RUNTIME);
    }
    if kernel.contains("dpas_run(") {
        s.push('\n');
        s.push_str(DPAS_RUNTIME);
    }
    s
}

/// The runtime text whose loop costs the budget counts: `runtime_for` and the image
/// runtime, whose calls the kernel's blocks (emitted after the costs are taken) may make.
pub(crate) fn cost_runtime(kernel: &str) -> String {
    let mut s = runtime_for(kernel);
    if !s.contains("fn img_find(") {
        s.push('\n');
        s.push_str(IMAGE_RUNTIME);
    }
    if !s.contains("fn dpas_run(") {
        s.push('\n');
        s.push_str(DPAS_RUNTIME);
    }
    s
}

/// The text of the runtime's function `name` (runtime.wgsl or lanes.wgsl; for tests
/// that run runtime pieces on their own).
pub fn runtime_function(name: &str) -> Option<&'static str> {
    [
        RUNTIME,
        lane_emit::LANES_RUNTIME,
        IMAGE_RUNTIME,
        DPAS_RUNTIME,
    ]
    .into_iter()
    .find_map(|text| {
        let start = text.find(&format!("\nfn {name}("))? + 1;
        // A one-line function (`fn f(..) -> T { return ..; }`) ends with its line.
        let line = &text[start..start + text[start..].find('\n')? + 1];
        if line.trim_end().ends_with('}') {
            return Some(line);
        }
        let end = text[start..].find("\n}\n")? + start + 3;
        Some(&text[start..end])
    })
}

/// Binding numbers of the generated module (group 0).
pub mod binding {
    pub const CFG: u32 = 0;
    pub const PAYLOAD: u32 = 1;
    pub const HEAP: u32 = 2;
    pub const SCRATCH: u32 = 3;
    pub const STAT: u32 = 4;
    pub const STATE: u32 = 5;
    /// `cfg`'s words before [`super::cfg::ALLOC`] again, as a uniform (`cfh`).
    pub const HEAD: u32 = 6;
    /// The heap again, as 64-bit atomic words (only with [`super::native_atomic64`]).
    pub const HEAP64: u32 = 7;
    pub const CHUNK: u32 = 8;
    /// Storage buffers of a module (bindings 0..=STATE; HEAP64 is one more).
    pub const STORAGE: u32 = STATE + 1;
}

/// Word offsets in the `cfg` buffer (mirrors the `CFG_*` constants of runtime.wgsl).
pub mod cfg {
    pub const THREADS: usize = 0;
    pub const GROUPS: usize = 1;
    pub const PAYLOAD_WORDS: usize = 4;
    pub const STEP_LIMIT: usize = 5;
    pub const SCRATCH_WORDS: usize = 6;
    pub const NALLOC: usize = 7;
    pub const EDGE_BUDGET: usize = 8;
    pub const PROBE: usize = 9;
    pub const SLICED: usize = 10;
    /// Probe modules: stop each thread after this many instructions (0: never).
    pub const STOP_STEPS: usize = 11;
    /// Straight modules: record the blocks each invocation ran (in `state`).
    pub const COUNT: usize = 12;
    /// Where the image tables start (shaders/image.wgsl), and how many images.
    pub const IMAGES: usize = 13;
    pub const NIMAGES: usize = 14;
    /// Where the sampler table starts (a count, then a code per sampler).
    pub const SAMPLERS: usize = 15;
    pub const BTI: usize = 16;
    /// Where the table form's table starts (`table_form.rs`).
    pub const TABLE: usize = 272;
    /// Straight modules: the heap word index of a word no allocation holds, where
    /// `bti_st4` sends stores out of bounds.
    pub const TRASH: usize = 273;
    /// Always 0 (`zero_word` of runtime.wgsl: a value no compiler can fold).
    pub const ZERO: usize = 274;
    /// The heap word where the groups' SLM starts when it lives in the heap.
    pub const GSLM: usize = 275;
    /// 256 entries of two words: the bound allocation's size in bytes (0 = unbound) and
    /// its heap byte offset, so that a binding-table access reads its span at a
    /// constant index.
    pub const BTI_SPAN: usize = 276;
    /// Straight modules: 4 words per placed flat base (`lane_memory::FLAT_BASES`):
    /// the base's allocation as `ALLOC` has it (size 0: the pointer lies in none).
    pub const FLAT_SPAN: usize = 788;
    /// Straight modules' owner tags (`lane_memory::Conditions::owned_scratch`,
    /// `owned_flat`): the `scratch` buffer word where the scratch space's tags start,
    /// then one word per placed flat base where its allocation's tags start.
    pub const OWNED: usize = 916;
    pub const ALLOC: usize = 949;
}

/// Runtime error codes the shader reports in `stat[0]` (`ERR_*` of runtime.wgsl).
pub mod runtime_error {
    pub const STEP_LIMIT: u32 = 1;
    pub const SWITCH_RANGE: u32 = 2;
    pub const CALL_DEPTH: u32 = 3;
    pub const DRIVER_LOOPS: u32 = 4;
    pub const NO_PROGRESS: u32 = 5;
    /// A straight module's lane ran past the loop budget or the step limit it was
    /// given (the host then runs the thread mapping, which can resume in passes).
    pub const STRAIGHT_STOPPED: u32 = 6;
    pub const NOT_IMAGE: u32 = 7;
    pub const SAMPLER: u32 = 8;
    pub const LINEAR_INT: u32 = 9;
    /// A straight module's unplaced atomic reached an allocation another instruction
    /// addresses (`lane_memory::Conditions::flat_unplaced`): the host runs the thread
    /// mapping instead.
    pub const STRAIGHT_ALIAS: u32 = 10;
    /// A straight module's branch-free access met a case it leaves out (an unaligned
    /// word): the host runs the thread mapping instead.
    pub const STRAIGHT_SLOW: u32 = 11;
    /// A typed atomic on an image whose format takes none (`ImageDesc::atomic_refusal`).
    pub const IMAGE_ATOMIC: u32 = 12;
    /// An atomic's compare-and-swap loop or 64-bit lock retried past its bound (or
    /// the driver's loop limiter stopped it): that operation did not happen.
    pub const ATOMIC_CONTENDED: u32 = 13;
    /// gather4 on an image that is not 2D (or a 2D array).
    pub const GATHER4_DIMS: u32 = 14;
    /// A straight module reached a GRF word its compact image left out
    /// (`translate::grf_rows`): the host runs the thread mapping instead.
    pub const STRAIGHT_GRF: u32 = 15;
    /// Two channels of a straight module touched one word of private memory whose
    /// accesses carry owner tags (`lane_memory::Conditions::owned_scratch`,
    /// `owned_flat`): the host runs the thread mapping instead.
    pub const STRAIGHT_SHARED: u32 = 16;
}

/// Thread status words of the `state` buffer (`ST_*` of runtime.wgsl).
pub mod status {
    pub const DONE: u32 = 3;
    pub const STOPPED: u32 = 4;
}

/// Bytes of the `stat` buffer: 16 counter words, the 1024 lock words of the 64-bit
/// atomics' split form (`STAT_LOCKS`, `N_LOCKS` of runtime.wgsl), then the 256
/// binding-table entries' append counters (`STAT_APPEND`).
pub const STAT_BYTES: u64 = 4 * (16 + 1024 + 256);

/// Word offsets in the `stat` buffer (`STAT_*` of runtime.wgsl).
pub mod stat {
    pub const ERROR: usize = 0;
    pub const ERROR_AT: usize = 1;
    pub const YIELDED: usize = 8;
    /// Straight lanes' reports (`hand_over` in runtime.wgsl): `(code << 24) | at`.
    pub const HANDOVER: usize = 9;
    /// 1: a speculative F32 operation met a denormal (`ftz_missed` in runtime.wgsl).
    pub const FTZ_MISS: usize = 10;
}

/// What the translation depends on besides the kernel: the launch's group shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// SIMD threads per group: the workgroup size.
    pub threads_per_group: u32,
    /// Bytes of shared local memory per group.
    pub slm_bytes: u32,
    /// Map channels to invocations (lane mode) where the kernel allows it.
    pub lanes: bool,
    /// Lane mode: the straight form where the kernel allows it (`simt.rs`).
    pub straight: bool,
    /// A probe module (thread mapping): threads stop before the instruction past
    /// `cfh(CFG_STOP_STEPS)` executed ones, with their state saved
    /// (`visa-emu validate` localizes the first differing instruction with it).
    pub probe: bool,
    /// Thread mapping: the table form (`table_form.rs`: each instruction shape
    /// compiled once, the numbers in `cfg`); `None` lets the kernel's size decide.
    pub table: Option<bool>,
    /// Payload byte offset from which every thread's payload is the same (the OpenCL
    /// ABI's cross-thread data): `init` reads those words at one address for all
    /// invocations instead of each from its thread's record (a gather on llvmpipe).
    pub shared_payload_from: Option<u32>,
    /// Where the payload holds the local ids and how the launch numbers them, when the
    /// host checked that every thread's ids follow it: straight modules then compute
    /// each channel's ids instead of loading them (a gather on llvmpipe).
    pub local_ids: Option<LocalIdLayout>,
    /// Thread mapping: the GRF in `state` rather than in an invocation-private array
    /// whatever the kernel's size (for drivers that fail to compile large private
    /// arrays: [`PRIVATE_GRF_WORDS_MAX`]).
    pub grf_in_state: bool,
    /// Every channel of every thread of the launch is dispatched (the local size a
    /// multiple of the SIMD width): straight modules then meet with plain barriers
    /// where every invocation provably arrives together (`wg_uniform`).
    pub full_lanes: bool,
    /// Straight modules: binding-table accesses whose every channel's address the host
    /// proves inside the entry skip the shader's bounds check
    /// (`lane_memory::Conditions::bti_bounds`); off for a launch that proof fails.
    pub prove_bounds: bool,
    /// Straight modules: IGC's aggregated atomics written back per channel
    /// (`aggregated_atomics`); off only in tests of the meetings their trees need.
    pub split_atomics: bool,
    /// Lane mode with `straight`: where the straight form is refused, write the
    /// scheduled lane form (or, where the kernel has none, the thread mapping) all the
    /// same. Off, the translation stops there with a module that is no lane mapping
    /// ([`Module::lanes`] false, no text): `auto` runs the thread mapping, which the
    /// host translates anyway, and private_array_large's refused lane translation had
    /// taken 1.6 s of its 2.1 s.
    pub scheduled_fallback: bool,
    /// The payload byte offset of the pointer to the work-items' private memory (the
    /// ABI's private base): straight modules may tag its words with their owners
    /// (`lane_memory::Owned`).
    pub private_base: Option<u32>,
}

/// The local ids' place in the payload: `offsets[d]`, one `uw` per lane, dimension d's
/// ids (`None`: the kernel reads none), for work-groups of `local` items numbered x
/// fastest, thread `t`'s channel `c` being item `t * SIMD + c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LocalIdLayout {
    pub offsets: [Option<u32>; 3],
    pub local: [u32; 3],
}

/// Workgroup memory the straight form's meetings and the group's SLM may take
/// together (`exchange.rs`): WebGPU's guaranteed `maxComputeWorkgroupStorageSize`.
const EXCHANGE_BYTES_MAX: u32 = 16384;

/// A translated kernel.
#[derive(Clone, Debug)]
pub struct Module {
    pub wgsl: String,
    pub entry_point: &'static str,
    pub workgroup_size: u32,
    /// Basic blocks the kernel was split into.
    pub blocks: usize,
    /// First instruction index of each block (to name the block of a runtime error).
    pub block_starts: Vec<usize>,
    /// Sliced runs: the loop back-edges a pass needs at least (the costliest block plus
    /// saving and restoring a thread); a budget below it cannot make progress.
    pub max_block_cost: u64,
    /// The part of `max_block_cost` spent restoring (or initializing) and saving.
    pub state_cost: u64,
    /// When no block can run twice: an upper bound of the loop back-edges a whole
    /// thread takes, so a driver's cap that covers it needs no slicing.
    pub unsliced_cost: Option<u64>,
    /// Sliced runs: words of one thread's saved state, and of one group's SLM.
    pub state_words: u32,
    pub slm_words: u32,
    /// Lane mode: a workgroup per vISA thread, an invocation per channel
    /// (`lanes.rs`); else one invocation per thread.
    pub lanes: bool,
    /// Why lane mode was asked for and not taken.
    pub why_not_lanes: Option<String>,
    /// Word offset of the GRF image in a thread's saved state.
    pub state_grf_offset: u32,
    /// The straight form of the lane mapping (`simt.rs`): what counting needs.
    pub straight: Option<simt::Straight>,
    /// Lane mode: why the straight form did not apply.
    pub why_not_straight: Option<String>,
    /// The table form's words (`table_form::Tables::words`), which the host appends to
    /// `cfg` at `cfg[CFG_TABLE]`; empty for every other form.
    pub table: Vec<u32>,
    /// The table form: how many instruction shapes it compiled.
    pub shapes: Option<usize>,
    /// Thread mapping: the GRF images live in the `state` buffer, which every run
    /// then needs (`state_words` per thread), sliced or not.
    pub grf_in_state: bool,
}

impl Module {
    /// The lane translation's answer where the straight form was refused and no
    /// fallback was asked for ([`Target::scheduled_fallback`]): no text, no lane mapping.
    fn no_lanes(tpg: u32, why_not_lanes: Option<String>, why_not_straight: String) -> Module {
        Module {
            wgsl: String::new(),
            entry_point: "main",
            workgroup_size: tpg,
            blocks: 0,
            block_starts: Vec::new(),
            max_block_cost: 0,
            state_cost: 0,
            unsliced_cost: None,
            state_words: 0,
            slm_words: 0,
            lanes: false,
            why_not_lanes,
            state_grf_offset: 0,
            straight: None,
            why_not_straight: Some(why_not_straight),
            table: Vec::new(),
            shapes: None,
            grf_in_state: false,
        }
    }

    /// How the module maps a vISA thread: `threads`, `lanes` (scheduled) or
    /// `straight` (the lane mapping without a scheduler, `simt.rs`).
    pub fn mapping(&self) -> &'static str {
        match (self.lanes, &self.straight) {
            (true, Some(_)) => "straight",
            (true, None) => "lanes",
            _ => "threads",
        }
    }

    /// A thread-mapping module's GRF words in its invocation-private array (0 with
    /// the GRF in `state`, and for lane modules, which [`PRIVATE_GRF_WORDS_MAX`]
    /// bounds already).
    pub fn private_grf_words(&self) -> u32 {
        if self.lanes || self.grf_in_state {
            0
        } else {
            self.state_words - self.state_grf_offset
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TranslateError {
    #[error("instruction {index} ({op}): not translatable: {what}")]
    Unsupported {
        index: usize,
        op: &'static str,
        what: String,
    },
    #[error("the launch needs {threads} threads per group; a workgroup holds at most 1024")]
    GroupTooLarge { threads: u32 },
    #[error("generated WGSL without a loop bound (translator bug): {0}")]
    Budget(budget::UnboundedLoop),
}

/// The lane vectors an emitter holds in registers (`lanes::Plan::promoted`), in the
/// plan's order, shared by its scratch copies and looked up by hash: each part
/// `straight_rows::parts_as_one` tries is emitted on a copy, and copying and searching
/// private_array_large's thousands of vectors was a tenth of its translation.
#[derive(Clone, Default)]
pub struct Promoted(std::rc::Rc<PromotedVectors>);

/// [`Promoted`]'s vectors, as a list and as a set.
#[derive(Default)]
pub struct PromotedVectors {
    list: Vec<(u32, u32)>,
    set: fast_map::FastSet<(u32, u32)>,
}

impl Promoted {
    fn new(vectors: &[(u32, u32)]) -> Self {
        Promoted(std::rc::Rc::new(PromotedVectors {
            list: vectors.to_vec(),
            set: vectors.iter().copied().collect(),
        }))
    }

    /// Whether the lane vector `(base, element bytes)` is held in registers.
    pub fn contains(&self, v: &(u32, u32)) -> bool {
        self.0.set.contains(v)
    }
}

impl std::ops::Deref for Promoted {
    type Target = [(u32, u32)];
    fn deref(&self) -> &[(u32, u32)] {
        &self.0.list
    }
}

/// Indented WGSL text under construction.
#[derive(Clone)]
pub struct Emit {
    out: String,
    depth: usize,
    /// GRF offset of %cr0.
    pub cr0: u32,
    /// The value %cr0 holds at the current instruction, where the translator knows it
    /// (straight modules: `simt::cr0_values`); float code then folds its mode bits.
    pub cr0_value: Option<u32>,
    /// Lane mode, per-lane instruction: element loops run the invocation's element
    /// only (`li`, bound before the instruction).
    pub lane_elems: bool,
    /// Lane mode: the instruction's mask offset, and the lane vectors held in
    /// registers (`lanes::Plan::promoted`).
    pub moff: u32,
    pub promoted: Promoted,
    /// The binding-table index the current message's surface operand names, where the
    /// translator knows it (straight modules: `lane_memory`'s resolution).
    pub surface_bti: Option<u32>,
    /// Straight modules: binding-table indices whose allocations the current unplaced
    /// flat atomic or load must not touch (`lane_memory::Conditions::flat_unplaced`).
    pub avoid_btis: Vec<u32>,
    /// Straight modules: the placed base of the current flat access
    /// (`lane_memory::Conditions::flat_placed`).
    pub flat_base: Option<u32>,
    /// Straight modules: the current flat atomic provably stays in its base's
    /// allocation (`lane_memory::Conditions::flat_proven`): no check.
    pub flat_proven: bool,
    /// Straight modules: the current access's memory carries owner tags
    /// (`lane_memory::Conditions::owned_at`): its address claims the words it touches.
    pub claim: Option<lane_memory::Owned>,
    /// Straight modules: the current instruction's indirect operands reach a
    /// variable laid out per channel whose rows live in a private array
    /// (`indirect_operands::RowArrays`).
    pub column: Option<indirect_operands::HeldRows>,
    /// Straight modules: where the rows of variables laid out per channel live.
    pub row_arrays: indirect_operands::RowArrays,
    /// Straight modules: every lane keeps only its own address-register elements
    /// (`indirect_operands::lane_held`), element `x` of lane `l` in
    /// `al[x - l + AL_SHIFT]`, a constant index at every access.
    pub lane_ar: bool,
    /// The channel whose copy holds the current indirect destination's address
    /// element (`indirect_operands::dst_channel`).
    pub dst_lane: Option<u32>,
    /// Straight modules: the one channel the current per-lane instruction runs for
    /// (`lanes::single_lane`): its scalar sources read that lane's registers.
    pub only_lane: Option<u32>,
    /// Straight modules: the text a known predicate's bits take in the current
    /// instruction's channel enable (`straight_rows::Rows::one_lane_group`'s
    /// placeholder), instead of their value.
    pub pred_bits_text: Option<String>,
    /// Straight modules: the current binding-table access is inside its entry for
    /// every channel (`lane_memory::Conditions::bti_proven`): no check.
    pub bti_proven: bool,
    /// A straight module: a run it cannot finish exactly hands the launch to the
    /// thread mapping, so its accesses may take branch-free forms that leave rare
    /// cases (`bti_ld4`) to that fallback.
    pub straight: bool,
    /// A straight per-lane instruction without a predicate: its enabled channels
    /// (`ce`, from the invocation's own bit) hold exactly the lane's element when it
    /// lies in the instruction's range, so the element test is the range test alone.
    pub own_lane: bool,
    /// A message of one element: `i` is 0 wherever its code binds it.
    pub one_elem: bool,
    /// Straight modules: the instruction's float result may keep the adapter's NaN
    /// bits (`nan_blind::blind_results`).
    pub nan_blind: bool,
    /// The kernel may set %cr0's ALT bit (`alt_mode::first_alt_write`): float code
    /// then follows ALT mode where `cr` has it.
    pub alt_mode: bool,
    /// The plain thread mapping: its loops over a thread's channels are written out,
    /// one block per channel of this width ([`each_channel`]).
    pub channels_written_out: Option<u32>,
}

/// `body` for every channel `c` of a thread: a loop, or where `written_out` gives the
/// width, one block per channel. naga guards every loop with a counter whose constant
/// start Mesa's NIR peels one iteration a round (docs/design.md, "naga's forced loop
/// bounding stays on"); written out, atomic_cmpxchg_mul's plain module took 25 rounds
/// instead of 38 and 1.8 s of pipeline creation on lavapipe instead of 2.8, its first
/// dispatch (LLVM) unchanged. The table form keeps the loop: its few block ends are
/// shared, and unrolled there they cost its LLVM compile more.
fn each_channel(written_out: Option<u32>, body: &str) -> String {
    match written_out {
        Some(n) => (0..n)
            .map(|c| format!("{{ let c = {c}u; {body} }}"))
            .collect::<Vec<_>>()
            .join(" "),
        None => format!("for (var c = 0u; c < K_SIMD; c++) {{ {body} }}"),
    }
}

/// [`each_channel`] for the channels enabled in `em`: where a block end moves them.
pub(super) fn each_enabled_channel(written_out: Option<u32>, body: &str) -> String {
    each_channel(
        written_out,
        &format!("if ((em & (1u << c)) != 0u) {{ {body} }}"),
    )
}

impl Emit {
    fn new(cr0: u32, alt_mode: bool) -> Emit {
        Emit {
            out: String::new(),
            depth: 0,
            cr0,
            alt_mode,
            cr0_value: None,
            lane_elems: false,
            moff: 0,
            promoted: Promoted::default(),
            surface_bti: None,
            avoid_btis: Vec::new(),
            flat_base: None,
            flat_proven: false,
            claim: None,
            column: None,
            row_arrays: Default::default(),
            lane_ar: false,
            only_lane: None,
            pred_bits_text: None,
            dst_lane: None,
            bti_proven: false,
            straight: false,
            nan_blind: false,
            own_lane: false,
            one_elem: false,
            channels_written_out: None,
        }
    }

    /// Declare the lane vectors the plan keeps in registers (each invocation's own
    /// element) and address them from now on.
    pub fn declare_lane_registers(&mut self, promoted: &[(u32, u32)]) {
        for &(base, e) in promoted {
            let ty = if e >= 8 { "u64" } else { "u32" };
            self.line(&format!("var<private> {}: {ty};", lanes::register(base)));
        }
        self.promoted = Promoted::new(promoted);
    }

    /// The register of a per-lane access of element `i` at `at + i * stride` (`len`
    /// bytes), and the part of the lane's element it touches, where the plan keeps
    /// that lane vector in registers.
    pub fn lane_reg(&self, at: u32, stride: u32, len: u32) -> Option<(String, lanes::LanePart)> {
        if !self.lane_elems {
            return None;
        }
        lanes::lane_part(at, stride, len, self.moff)
            .filter(|p| self.promoted.contains(&(p.base, p.elem)))
            .map(|p| (lanes::register(p.base), p))
    }

    /// Open a loop over the `n` elements of an instruction (in a per-lane
    /// instruction: the invocation's element only, one iteration at most).
    pub fn open_elems(&mut self, n: u32) {
        if self.lane_elems {
            self.line("// loop-bound: 1");
            self.open(&format!("for (var i = li; i < {n}u; i = {n}u)"));
        } else {
            self.open(&format!("for (var i = 0u; i < {n}u; i++)"));
        }
    }

    /// [`Emit::open_elems`] over the elements whose bit is set in `enabled`. A
    /// per-lane instruction opens an `if` on its own element, not a loop: llvmpipe
    /// pays a one-iteration loop around every instruction (saxpy over 1M items,
    /// straight mapping: 24 -> 16 GPU ms).
    pub fn open_enabled_elems(&mut self, n: u32, enabled: &str) {
        if self.lane_elems && self.own_lane && enabled == "ce" {
            self.open(&format!("if (li < {n}u)"));
            self.line("let i = li;");
        } else if self.lane_elems {
            self.open(&format!("if (li < {n}u && ({enabled} & (1u << li)) != 0u)"));
            self.line("let i = li;");
        } else if n == 1 {
            self.open(&format!("if (({enabled} & 1u) != 0u)"));
            self.line("let i = 0u;");
        } else {
            self.open_elems(n);
            self.line(&format!(
                "if (({enabled} & (1u << i)) == 0u) {{ continue; }}"
            ));
        }
    }

    /// An empty buffer with this one's settings, for text the caller may discard.
    pub fn scratch(&self) -> Emit {
        Emit {
            out: String::new(),
            depth: self.depth,
            cr0: self.cr0,
            cr0_value: self.cr0_value,
            lane_elems: self.lane_elems,
            moff: self.moff,
            promoted: self.promoted.clone(),
            surface_bti: self.surface_bti,
            avoid_btis: self.avoid_btis.clone(),
            flat_base: self.flat_base,
            flat_proven: self.flat_proven,
            claim: self.claim,
            column: self.column.clone(),
            row_arrays: self.row_arrays.clone(),
            lane_ar: self.lane_ar,
            only_lane: self.only_lane,
            pred_bits_text: self.pred_bits_text.clone(),
            dst_lane: self.dst_lane,
            bti_proven: self.bti_proven,
            straight: self.straight,
            own_lane: self.own_lane,
            one_elem: self.one_elem,
            nan_blind: self.nan_blind,
            alt_mode: self.alt_mode,
            channels_written_out: self.channels_written_out,
        }
    }

    pub fn line(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    pub fn open(&mut self, head: &str) {
        self.line(&format!("{head} {{"));
        self.depth += 1;
    }

    pub fn close(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        self.line("}");
    }
}

/// The WGSL call computing EvaluateChEn of `inst` over the execution mask `em`.
pub fn chen_expr(inst: &PInst, em: &str) -> String {
    let n = inst.exec.size as u32;
    let off = inst.exec.mask.channel_offset();
    let (pbits, has, comb, inv) = match inst.pred {
        Some(p) => (
            format!("pr[{}u]", p.id.0),
            true,
            match p.combine {
                PredCombine::Sequential => 0,
                PredCombine::Any => 1,
                PredCombine::All => 2,
            },
            p.inverse,
        ),
        None => ("0u".into(), false, 0, false),
    };
    format!(
        "chen({em}, {n}u, {off}u, {}, {pbits}, {has}, {comb}u, {inv})",
        inst.exec.mask.no_mask
    )
}

fn is_nop(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Label | Subroutine | Loc | File | Lifetime | Fence | LscFence | Wait | Yield | CacheFlush
    )
}

fn is_message(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Gather4Scaled
            | Scatter4Scaled
            | GatherScaled
            | ScatterScaled
            | Gather
            | Scatter
            | OwordLd
            | OwordLdUnaligned
            | OwordSt
            | DwordAtomic
            | SvmAtomic
            | SvmGather4Scaled
            | SvmScatter4Scaled
            | SvmBlockLd
            | SvmBlockSt
            | SvmGather
            | SvmScatter
            | LscUntyped
            | D3Load
            | D3Sample
            | D3Sample4
            | Gather4Typed
            | Scatter4Typed
            | TypedAtomic
            | LscTyped
            | QwGather
            | QwScatter
            | MediaLd
            | MediaSt
    )
}

/// Translate a prepared kernel for a launch shape.
pub fn translate(p: &Prepared, target: &Target) -> Result<Module, TranslateError> {
    let tpg = target.threads_per_group.max(1);
    if tpg > 1024 {
        return Err(TranslateError::GroupTooLarge { threads: tpg });
    }
    let alt = alt_mode::first_alt_write(p).is_some();
    let cfg_blocks = blocks::split(&p.insts);
    let depth = call_depth(p);
    let mut em = Emit::new(p.pre.cr0, alt);
    // The kernel as the straight form reads it: subroutine calls written out at their
    // call sites (`inline_calls`), aggregated atomics per channel (`aggregated_atomics`,
    // whose registers come after the kernel's). The thread mapping keeps it as it is.
    let straight_input = (target.lanes && !target.probe && target.straight).then(|| {
        let inlined = inline_calls::inline(p)?;
        let split = target
            .split_atomics
            .then(|| aggregated_atomics::split(inlined.as_ref().unwrap_or(p)))
            .flatten();
        Ok::<_, String>(split.or(inlined))
    });
    let grf_total = match &straight_input {
        Some(Ok(Some(sp))) => sp.layout.total.max(p.layout.total),
        _ => p.layout.total,
    };
    let grf_words = grf_total.div_ceil(4).max(1);
    // A kernel without SLM messages gets no SLM array: adapters with 32 KiB of
    // workgroup memory (GL, Metal) then run it too.
    let slm_words = if lanes::uses_slm(p) {
        target.slm_bytes.div_ceil(4).max(1)
    } else {
        1
    };
    let nsurf = surface_slots(p);
    em.line(&format!("const K_GRF_WORDS: u32 = {grf_words}u;"));
    em.line(&format!(
        "const K_GRF_QUADS: u32 = {}u;",
        grf_words.div_ceil(4)
    ));
    em.line(&format!("const K_SLM_WORDS: u32 = {slm_words}u;"));
    em.line(&format!("const K_NADDR: u32 = {}u;", p.addr_total.max(1)));
    em.line(&format!(
        "const K_NPRED: u32 = {}u;",
        p.kernel.preds.len().max(1)
    ));
    em.line(&format!("const K_NSURF: u32 = {nsurf}u;"));
    em.line(&format!("const K_SIMD: u32 = {}u;", p.simd));
    em.line(&format!("const K_DEPTH: u32 = {depth}u;"));
    em.line(&format!("const K_TPG: u32 = {tpg}u;"));
    em.line(&format!(
        "const K_SLM_PER_THREAD: u32 = {}u;",
        slm_words.div_ceil(4).div_ceil(tpg)
    ));
    let consts: HashMap<String, u64> = [
        ("K_GRF_WORDS", grf_words as u64),
        ("K_GRF_QUADS", grf_words.div_ceil(4) as u64),
        ("K_SLM_WORDS", slm_words as u64),
        ("K_NADDR", p.addr_total.max(1) as u64),
        ("K_NPRED", p.kernel.preds.len().max(1) as u64),
        ("K_NSURF", nsurf as u64),
        ("K_SIMD", p.simd as u64),
        ("K_DEPTH", depth as u64),
        ("K_TPG", tpg as u64),
        (
            "K_SLM_PER_THREAD",
            slm_words.div_ceil(4).div_ceil(tpg) as u64,
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let mut why_not_straight_here = None;
    let why_not_lanes = if target.lanes && !target.probe {
        // Straight where no channel meets another (a group's threads may share SLM and
        // barriers when the whole group fits one workgroup: `simt::check`), else the
        // scheduled form.
        // Subroutine calls are written out at their call sites for the straight form
        // (`inline_calls`); the thread mapping keeps them.
        let inlined = straight_input.unwrap_or(Ok(None));
        let sp = inlined.as_ref().ok().and_then(Option::as_ref).unwrap_or(p);
        let why_not_straight = match (
            target.straight,
            inlined.as_ref().err(),
            lanes::ineligible_straight(sp),
        ) {
            (false, _, _) => "not asked for".to_string(),
            (true, Some(why), _) => why.clone(),
            (true, None, Some(why)) => why,
            (true, None, None) => {
                let sp_blocks = blocks::split(&sp.insts);
                let straight = lanes::plan(sp, &sp_blocks, true);
                match fences::fit(
                    sp,
                    &sp_blocks,
                    straight,
                    tpg,
                    target.slm_bytes,
                    EXCHANGE_BYTES_MAX,
                    target.private_base,
                ) {
                    Ok(f) => {
                        match simt::translate(
                            f.p.as_ref().unwrap_or(sp),
                            tpg,
                            em.clone(),
                            consts.clone(),
                            &f.plan,
                            f.launch,
                            target,
                            f.exchanges.as_ref(),
                        ) {
                            Ok(m) => match private_grf_too_large(&m, grf_words) {
                                None => return Ok(m),
                                Some(why) => why,
                            },
                            Err(e) => e.to_string(),
                        }
                    }
                    Err(why) => why,
                }
            }
        };
        let ineligible = lanes::ineligible(p, tpg, target.slm_bytes);
        if target.straight && !target.scheduled_fallback {
            return Ok(Module::no_lanes(tpg, ineligible, why_not_straight));
        }
        match ineligible {
            None => {
                let plan = lanes::plan(p, &cfg_blocks, false);
                let mut m = lane_emit::translate(
                    p,
                    tpg,
                    em.clone(),
                    consts.clone(),
                    &plan,
                    target.shared_payload_from,
                )?;
                match private_grf_too_large(&m, grf_words) {
                    None => {
                        m.why_not_straight = Some(why_not_straight);
                        return Ok(m);
                    }
                    Some(why) => {
                        why_not_straight_here = Some(why_not_straight);
                        Some(why)
                    }
                }
            }
            why => {
                why_not_straight_here = Some(why_not_straight);
                why
            }
        }
    } else {
        None
    };
    // Large kernels: the table form (`table_form.rs`), with the GRF in `state`; the
    // GRF in `state` too where the host asks (see `PRIVATE_GRF_WORDS_MAX`).
    let large = !target.probe
        && target
            .table
            .unwrap_or(p.insts.len() >= table_form::AUTO_MIN_INSTRUCTIONS);
    let in_state = large || (!target.probe && target.grf_in_state);
    if in_state {
        em.line(GRF_IN_STATE_MARK);
    }
    em.line("");
    // Not `full_lanes` here: with the lane count a constant, the table form of
    // noinline_calls (tgllp SIMD16) ran out of lavapipe's loop budget, which the probe
    // reported; why is not known (docs/design.md, "Full launches").
    emit_init(
        &mut em,
        p,
        target.shared_payload_from,
        None,
        true,
        &[],
        false,
    );
    // The runtime's functions and `init` (the blocks come next).
    let costs =
        budget::Costs::of_functions(&format!("{}\n{}", cost_runtime(&em.out), em.out), &consts);
    let cost = |f: &str| costs.function(f).map_err(TranslateError::Budget);
    // What a pass spends outside blocks: restoring (or initializing) before the first,
    // saving after the last, and a little for `main`'s round loop.
    let start_cost = cost("restore_state")? + cost("restore_slm")? + cost("init")?;
    let save_cost = cost("save_state")? + cost("save_slm")? + 64;
    // One plan for both block splits below (it reads the kernel's own blocks).
    let kernel_plan = lanes::plan_kernel(p);
    let cr0_of = |b: &blocks::Blocks| {
        simt::cr0_values(
            p,
            &kernel_plan,
            b,
            b.ranges[simt::prefix_blocks(p, b) - 1].end,
        )
    };
    let build_tables = |b: &blocks::Blocks, cr0_at: &[Option<u32>]| {
        let mut inst_text = |k: usize, next: &str| {
            let mut e = Emit::new(p.pre.cr0, alt);
            e.cr0_value = cr0_at[k];
            let ended = emit_inst(&mut e, p, &p.insts[k], b, next)?;
            Ok((e.out, ended))
        };
        table_form::Tables::build(p, b, &costs, &mut inst_text)
    };
    let mut cfg_blocks = cfg_blocks;
    let mut cr0_at = cr0_of(&cfg_blocks);
    let tables = if large {
        let mut tables = build_tables(&cfg_blocks, &cr0_at)?;
        // Blocks short enough that each fits a driver's capped pass with room to
        // spare, every shape paying for the others' masked loops (`Tables::build`).
        if let Some(max) = tables
            .as_ref()
            .and_then(|t| t.insts_per_block_within(table_form::BLOCK_COST_CAP))
        {
            cfg_blocks = blocks::split_at_most(&p.insts, max);
            cr0_at = cr0_of(&cfg_blocks);
            tables = build_tables(&cfg_blocks, &cr0_at)?;
        }
        tables
    } else {
        None
    };
    // The plain form writes its loops over channels out (`each_channel`).
    if tables.is_none() {
        em.channels_written_out = Some(p.simd);
    }
    let (max_block_cost, all_blocks_cost) = match &tables {
        Some(t) => t.emit_run_thread(&mut em, p, save_cost)?,
        None => emit_block_loop(
            &mut em,
            p,
            &cfg_blocks,
            &costs,
            save_cost,
            &mut |em, range, next| {
                let mut ended = false;
                let len = range.len();
                let first = range.start;
                for (j, inst) in p.insts[range].iter().enumerate() {
                    em.cr0_value = cr0_at[first + j];
                    if target.probe {
                        // Probes: stop before the instruction that would be one too many
                        // (`steps` already counts the whole block).
                        em.line(&format!(
                        "if (cfh(CFG_STOP_STEPS) != 0u && steps - {}u >= cfh(CFG_STOP_STEPS)) {{ return 3u; }}",
                        len - j
                    ));
                    }
                    em.open("");
                    em.line(&format!("// [{}] {}", inst.index, inst.op.spec_name()));
                    ended = emit_inst(em, p, inst, &cfg_blocks, next)?;
                    em.cr0_value = None;
                    em.close();
                }
                Ok(ended)
            },
        )?,
    };
    emit_main(&mut em, tpg, start_cost, in_state, !target.probe);
    // `runtime_for` moved the runtime's registers into `state` (the marker); the
    // kernel's own code follows.
    let mut wgsl = runtime_for(&em.out);
    wgsl.push_str("\n// ---- kernel ----\n");
    wgsl.push_str(&if in_state {
        state_indices(&em.out)
    } else {
        em.out
    });
    Ok(Module {
        wgsl,
        entry_point: "main",
        workgroup_size: tpg,
        blocks: cfg_blocks.ranges.len(),
        max_block_cost: max_block_cost + start_cost + save_cost,
        state_cost: start_cost + save_cost,
        // Each block at most once, plus `main`'s rounds (one per barrier block).
        unsliced_cost: blocks::acyclic(&p.insts)
            .then(|| start_cost + all_blocks_cost + 2 * (cfg_blocks.ranges.len() as u64 + 1)),
        state_words: state_layout(p).1,
        slm_words,
        lanes: false,
        why_not_lanes,
        state_grf_offset: state_layout(p).0,
        straight: None,
        why_not_straight: why_not_straight_here,
        grf_in_state: in_state,
        shapes: tables.as_ref().map(|t| t.shape_count()),
        table: tables.map(|t| t.words).unwrap_or_default(),
        block_starts: cfg_blocks
            .ranges
            .iter()
            .map(|r| p.insts[r.start].index)
            .collect(),
    })
}

/// Emits one block's instructions (the instruction range, the next block's index);
/// returns whether the last instruction set the channel PCs itself.
type BlockBody<'a> =
    dyn FnMut(&mut Emit, std::ops::Range<usize>, &str) -> Result<bool, TranslateError> + 'a;

/// `run_thread`, shared by both mappings: the min-PC block loop (every channel's PC is
/// a block; the thread runs the block at the smallest with the channels there), the
/// watchdog, and in sliced runs the check that ends a pass before a block that might
/// not fit its loop budget (`save_cost`: saving the state afterwards). Returns the
/// costliest block's and all blocks' loop back-edges.
fn emit_block_loop(
    em: &mut Emit,
    p: &Prepared,
    cfg_blocks: &blocks::Blocks,
    costs: &budget::Costs,
    save_cost: u64,
    body: &mut BlockBody,
) -> Result<(u64, u64), TranslateError> {
    em.open("fn run_thread() -> u32");
    em.open("loop");
    emit_pick_block(em);
    let head_cost = block_head_cost(p);
    // (where its pass check goes, its own cost, the loops it costs when masked, at)
    let mut arms: Vec<(usize, u64, u64, usize)> = Vec::new();
    em.open("switch pc");
    for (b, range) in cfg_blocks.ranges.iter().enumerate() {
        let len = range.end - range.start;
        let at = p.insts[range.start].index;
        em.open(&format!("case {b}u:"));
        let body_at = em.out.len();
        em.line(&format!(
            "// instructions {at}..{}",
            p.insts[range.end - 1].index
        ));
        emit_block_accounting(em, &format!("{len}u"), &format!("{at}u"));
        let next_block = cfg_blocks.block_expr(range.end as u32);
        if !body(em, range.clone(), &next_block)? {
            let end =
                each_enabled_channel(em.channels_written_out, &format!("pcs[c] = {next_block};"));
            em.line(&end);
        }
        let own = head_cost
            + costs
                .block(&em.out[body_at..])
                .map_err(TranslateError::Budget)?;
        arms.push((body_at, own, costs.masked(&em.out[body_at..]), at));
        em.close();
    }
    // Sliced runs: end the pass before a block that might not fit in its budget (every
    // lane of the lane mapping computes the same: they stop together). llvmpipe runs
    // every arm of the switch masked, and a loop in an arm nobody took still costs a
    // back-edge (`budget::Costs::masked`), so a block also pays for the other arms'
    // loops, as in the table form. Checks go in from the last arm so that the earlier
    // positions stay valid.
    let masked_all: u64 = arms.iter().map(|a| a.2).sum();
    let (mut max_block_cost, mut all_blocks_cost) = (0u64, 0u64);
    let pad = "    ".repeat(em.depth + 1);
    for &(body_at, own, masked, at) in arms.iter().rev() {
        let cost = own + masked_all - masked;
        max_block_cost = max_block_cost.max(cost);
        all_blocks_cost += cost;
        em.out.insert_str(
            body_at,
            &pass_check(&pad, &format!("{cost}u"), save_cost, &format!("{at}u")),
        );
    }
    em.line("default: { return 0u; }");
    em.close();
    em.close();
    em.line("return 0u;");
    em.close();
    Ok((max_block_cost, all_blocks_cost))
}

/// The head of `run_thread`'s loop: the smallest channel PC (a block), its channels
/// as `em`, and the return from a subroutine frame or the thread when none is left.
fn emit_pick_block(em: &mut Emit) {
    em.line("var pc = IDLE;");
    let lanes = em.channels_written_out;
    em.line(&each_channel(lanes, "pc = min(pc, pcs[c]);"));
    em.open("if (pc == IDLE)");
    em.open("if (depth > 0u)");
    em.line("depth = depth - 1u;");
    em.line("pcs = frames[depth];");
    em.line("edges = edges + 1u;");
    em.line("continue;");
    em.close();
    em.line("return 0u;");
    em.close();
    em.line("var em = 0u;");
    em.line(&each_channel(
        lanes,
        "if (pcs[c] == pc) { em = em | (1u << c); }",
    ));
}

/// What every block pays besides its own code: the loop's back-edge, the two scans of
/// [`emit_pick_block`], the probe.
fn block_head_cost(p: &Prepared) -> u64 {
    1 + 2 * p.simd as u64 + 2
}

/// A block's instruction and channel-operation counts and the step-limit watchdog.
fn emit_block_accounting(em: &mut Emit, len: &str, at: &str) {
    em.line(&format!("steps = steps + {len};"));
    em.line(&format!(
        "let cc = {len} * countOneBits(em); chans = chans + cc; if (chans < cc) {{ chans_hi = chans_hi + 1u; }}"
    ));
    em.line(&format!(
        "if (steps > cfh(CFG_STEP_LIMIT)) {{ fail(ERR_STEP_LIMIT, {at}); return 0u; }}"
    ));
}

/// Sliced runs: end the pass before a block that might not fit in its budget (every
/// lane of the lane mapping computes the same: they stop together).
fn pass_check(pad: &str, cost: &str, save_cost: u64, at: &str) -> String {
    format!(
        "{pad}if (cfh(CFG_PROBE) != 0u && loops_exhausted()) {{ fail(ERR_DRIVER_LOOPS, {at}); return 0u; }}\n\
         {pad}if (cfh(CFG_SLICED) != 0u) {{\n\
         {pad}    if ({cost} + {save_cost}u > cfh(CFG_EDGE_BUDGET) - edges) {{\n\
         {pad}        if (ran == 0u) {{ fail(ERR_NO_PROGRESS, {at}); return 0u; }}\n\
         {pad}        return 2u;\n\
         {pad}    }}\n\
         {pad}    edges = edges + {cost};\n\
         {pad}}}\n\
         {pad}ran = ran + 1u;\n"
    )
}

/// Call-frame depth of the thread state: 8 where the kernel calls subroutines.
fn call_depth(p: &Prepared) -> u32 {
    if p.insts.iter().any(|i| i.op == Opcode::Call) {
        8
    } else {
        1
    }
}

/// Surface variables the thread state holds.
fn surface_slots(p: &Prepared) -> u32 {
    p.kernel.surfaces.len().max(8) as u32
}

/// A thread's saved state (`save_state_at` of runtime.wgsl, `K_STATE_WORDS`): the
/// word offset of its GRF image and its size in words.
fn state_layout(p: &Prepared) -> (u32, u32) {
    let grf_at = 5
        + 32
        + 32 * call_depth(p)
        + p.kernel.preds.len().max(1) as u32
        + p.addr_total.max(1)
        + surface_slots(p);
    (
        grf_at,
        grf_at + 4 * p.layout.total.div_ceil(4).max(1).div_ceil(4),
    )
}

/// One instruction; returns true when it set the channel PCs itself.
fn emit_inst(
    em: &mut Emit,
    p: &Prepared,
    inst: &PInst,
    cfg: &blocks::Blocks,
    next_block: &str,
) -> Result<bool, TranslateError> {
    let at = em.out.len();
    let r = emit_inst_text(em, p, inst, cfg, next_block);
    let tidied = tidy::instruction(&em.out[at..]);
    em.out.truncate(at);
    em.out.push_str(&tidied);
    r
}

/// [`emit_inst`] before [`tidy::instruction`].
fn emit_inst_text(
    em: &mut Emit,
    p: &Prepared,
    inst: &PInst,
    cfg: &blocks::Blocks,
    next_block: &str,
) -> Result<bool, TranslateError> {
    use Opcode::*;
    let unsupported = |what: &str| TranslateError::Unsupported {
        index: inst.index,
        op: inst.op.spec_name(),
        what: what.to_string(),
    };
    let block_of = |t: u32| cfg.block_expr(t);
    let target = blocks::target_of(inst);
    let off = inst.exec.mask.channel_offset();
    let lanes = em.channels_written_out;
    let each = |body: &str| each_enabled_channel(lanes, body);
    match inst.op {
        op if is_nop(op) => Ok(false),
        Barrier | Sbarrier | Nbarrier => {
            em.line(&each(&format!("pcs[c] = {next_block};")));
            em.line("return 1u;");
            Ok(true)
        }
        Goto | Jmp => {
            if inst.exec.size == 1 {
                if inst.pred.is_none() {
                    em.line("let taken = em;");
                } else {
                    em.line(&format!(
                        "let taken = select(0u, em, ({} & 1u) != 0u);",
                        chen_expr(inst, "1u")
                    ));
                }
            } else {
                em.line(&format!(
                    "let taken = ({} << {off}u) & em;",
                    chen_expr(inst, &format!("((em >> {off}u) << {off}u)"))
                ));
            }
            em.line(&each(&format!(
                "pcs[c] = select({next_block}, {}, (taken & (1u << c)) != 0u);",
                block_of(target)
            )));
            Ok(true)
        }
        Call => {
            if inst.exec.size == 1 && inst.pred.is_none() {
                em.line("let callees = em;");
            } else {
                em.line(&format!(
                    "let callees = ({} << {off}u) & em;",
                    chen_expr(inst, "em")
                ));
            }
            em.open("if (depth >= K_DEPTH)");
            em.line(&format!(
                "fail(ERR_CALL_DEPTH, {}u); return 0u;",
                inst.index
            ));
            em.close();
            em.line("var saved = pcs;");
            em.line(&each(&format!("saved[c] = {next_block};")));
            em.line("frames[depth] = saved;");
            em.line("depth = depth + 1u;");
            em.line(&each_channel(
                lanes,
                &format!(
                    "pcs[c] = select(IDLE, {}, (callees & (1u << c)) != 0u);",
                    block_of(target)
                ),
            ));
            Ok(true)
        }
        Ret | Fret => {
            if inst.exec.size == 1 && inst.pred.is_none() {
                em.line("let leaving = em;");
            } else {
                em.line(&format!(
                    "let leaving = ({} << {off}u) & em;",
                    chen_expr(inst, "em")
                ));
            }
            em.line(&each(&format!(
                "pcs[c] = select({next_block}, IDLE, (leaving & (1u << c)) != 0u);"
            )));
            Ok(true)
        }
        Switchjmp => {
            let idx = match inst.fields.get(2) {
                Some(PField::Src(s)) => {
                    let e = operand::src_elem(s, 1, Some(0));
                    operand::num(&e).as_int()
                }
                _ => "0li".into(),
            };
            let targets = match inst.fields.get(3) {
                Some(PField::Targets(t)) => t.clone(),
                _ => Vec::new(),
            };
            em.line("let i = 0u;");
            em.line(&format!("let k = bitcast<u64>({idx});"));
            em.line("var t = IDLE;");
            // WGSL switches on 32-bit integers only: out-of-range 64-bit indices stay IDLE.
            // Unsigned, one compare: lavapipe (Mesa 22.3) answers signed compares of a
            // sign-extended D with a literal wrong (docs/design.md).
            em.open(&format!("if (k < {}lu)", targets.len()));
            em.open("switch i32(k)");
            for (j, t) in targets.iter().enumerate() {
                em.line(&format!("case {j}i: {{ t = {}; }}", block_of(*t)));
            }
            em.line("default: {}");
            em.close();
            em.close();
            em.open("if (t == IDLE)");
            em.line(&format!(
                "fail(ERR_SWITCH_RANGE, {}u); return 0u;",
                inst.index
            ));
            em.close();
            em.line(&each("pcs[c] = t;"));
            Ok(true)
        }
        // ir::link turns fcall/ifcall/faddr/fret into call/switchjmp/mov/ret first.
        Fcall | Ifcall | Faddr => Err(unsupported(
            "stack functions reach the translator only through ir::link",
        )),
        Fccall => Err(unsupported(
            "FCCALL (a CM construct IGC's OpenCL output never uses) is not emulated",
        )),
        SampleUnorm => Err(unsupported(
            "unorm sampling (SAMPLE_UNORM, media sampler hardware) is not emulated; \
             sample_lz, sample_l, gather4, sampler-less image reads and typed messages run",
        )),
        Avs | VmeIme | VmeSic | VmeFbr | VmeIdm | Info | RtWrite | RtRead | UrbWrite | RawSend
        | RawSends => Err(unsupported("Intel fixed-function hardware; not emulated")),
        Dpas => {
            dpas::emit(em, inst, p.grf_bytes)?;
            Ok(false)
        }
        Dpasw => Err(unsupported(
            "DPASW reads half of Src2 from the fused partner thread's registers (EU fusion)",
        )),
        op if is_message(op) => {
            message::emit(em, inst, p.grf_bytes)?;
            Ok(false)
        }
        _ => {
            alu::emit(em, inst, p.grf_bytes)?;
            Ok(false)
        }
    }
}

/// A thread's payload: binding 1 holds the payload of each thread of work-group 0
/// (`cfh(CFG_PAYLOAD_WORDS)` words each, the last one its lane count); the payload of
/// thread `t` of any other group differs only in the group id words r0.1, r0.6 and r0.7
/// (`abi::launch::Prepared::payload`), which each invocation puts in. One small upload
/// per launch instead of a record per thread of the dispatch.
const PAYLOAD_RUNTIME: &str = r#"
var<private> pl_t: u32;
var<private> pl_grp: vec3<u32>;
// The thread's lane count (`init` reads it once: a per-thread load is a gather on
// llvmpipe).
var<private> pl_n: u32;

fn pl_lanes() -> u32 {
    let pw = cfh(CFG_PAYLOAD_WORDS);
    return payload[pl_t * pw + pw - 1u];
}

// Word `o / 4` of the thread's payload.
fn pl_word(o: u32) -> u32 {
    let pw = cfh(CFG_PAYLOAD_WORDS);
    if (o >= (pw - 1u) * 4u) { return 0u; }
    let w = payload[pl_t * pw + (o >> 2u)];
    let k = o >> 2u;
    return select(select(select(w, pl_grp.z, k == 7u), pl_grp.y, k == 6u), pl_grp.x, k == 1u);
}

// Word `o / 4` of the payload part every thread shares (`Target::shared_payload_from`):
// one address for all invocations (saxpy over 1M items 10.7 -> 9.2 GPU ms on lavapipe).
// Selected, not branched: a load under a branch is a masked gather on llvmpipe.
fn pl_shared(o: u32) -> u32 {
    let w = payload[o >> 2u];
    return select(0u, w, o < (cfh(CFG_PAYLOAD_WORDS) - 1u) * 4u);
}

fn pl_byte(o: u32) -> u32 {
    return (pl_word(o & ~3u) >> ((o & 3u) * 8u)) & 0xffu;
}
"#;

/// `init`: a thread's first GRF image, exactly as `interp::thread::Thread::new`.
/// `reads` (lane modules, from `lanes::Plan::image_reads`): the GRF words the kernel
/// reads from the image; payload words nobody reads are not copied (the straight
/// form's invocations each fill their thread's image, so this is most of a short
/// kernel's memory traffic). `channel_pcs`: the module schedules blocks by per-channel
/// PCs (`pcs`); the straight form has none, and its 32-word initialization tripled
/// llvmpipe's pipeline creation of saxpy (63 -> 190 ms).
fn emit_init(
    em: &mut Emit,
    p: &Prepared,
    shared_from: Option<u32>,
    reads: Option<&[bool]>,
    channel_pcs: bool,
    singles: &[bool],
    full_lanes: bool,
) {
    em.out.push_str(PAYLOAD_RUNTIME);
    em.open("fn init(tid: u32, t: u32, grp: vec3<u32>)");
    em.line("pl_t = t;");
    em.line("pl_grp = grp;");
    let word_fn = |poff: u32| match shared_from {
        Some(from) if poff >= from => "pl_shared",
        _ => "pl_word",
    };
    // Whole words where both sides are word-aligned (the usual case), else bytes.
    let copy = |em: &mut Emit, goff: u32, poff: u32, size: u32| {
        let words = if goff.is_multiple_of(4) && poff.is_multiple_of(4) {
            size / 4
        } else {
            0
        };
        let read = |k: u32| reads.is_none_or(|r| r.get((goff / 4 + k) as usize) != Some(&false));
        // A word in a register (`scalar_slots`) is copied on its own, by a statement
        // the rewrite can find.
        let single = |k: u32| singles.get((goff / 4 + k) as usize) == Some(&true);
        let mut k = 0;
        while k < words {
            if !read(k) {
                k += 1;
                continue;
            }
            let run = if single(k) {
                1
            } else {
                (k..words).take_while(|&j| read(j) && !single(j)).count() as u32
            };
            let (g0, p0) = (goff + 4 * k, poff + 4 * k);
            if run <= 4 {
                // Short runs as plain statements: llvmpipe compiles each loop, however
                // short (saxpy's pipeline creation 65 -> 46 ms).
                for j in 0..run {
                    let f = word_fn(p0 + 4 * j);
                    em.line(&format!("gs32({}u, {f}({}u));", g0 + 4 * j, p0 + 4 * j));
                }
            } else {
                let f = word_fn(p0);
                em.line(&format!(
                    "for (var k = 0u; k < {run}u; k++) {{ gs32({g0}u + 4u * k, {f}({p0}u + 4u * k)); }}"
                ));
            }
            k += run;
        }
        let done = 4 * words;
        // A 1- or 2-byte input in a register (`scalar_slots`): one statement the
        // rewrite can find.
        if scalar_slots::copied_whole(goff, size) && single(0) {
            let v = if size == 1 {
                format!("pl_byte({poff}u)")
            } else {
                format!("pl_byte({poff}u) | (pl_byte({}u) << 8u)", poff + 1)
            };
            em.line(&format!("gst({goff}u, {size}u, u64({v}));"));
            return;
        }
        if done < size {
            em.line(&format!(
                "for (var b = {done}u; b < {size}u; b++) {{ gsb({goff}u + b, pl_byte({poff}u + b)); }}"
            ));
        }
    };
    for &(goff, poff, size) in &p.inputs {
        copy(em, goff, poff, size);
    }
    copy(em, p.pre.r0, 0, p.grf_bytes);
    // The launch's words, where some instruction reads them.
    let wanted = |o: u32| reads.is_none_or(|r| r.get((o / 4) as usize) != Some(&false));
    for d in 0..3 {
        if wanted(p.pre.group_id[d]) {
            em.line(&format!("gs32({}u, grp[{d}]);", p.pre.group_id[d]));
        }
    }
    // Every thread of the launch dispatched with all its channels (`Target::full_lanes`,
    // straight modules): the count is the width, not a load per invocation (saxpy over
    // 1M items on lavapipe: 2.34-2.43x -> 2.17-2.32x its hand-written WGSL's GPU time).
    em.line(if full_lanes {
        "let lanes = K_SIMD;"
    } else {
        "let lanes = pl_lanes();"
    });
    em.line("pl_n = lanes;");
    if wanted(p.pre.sr0 + 8) {
        if full_lanes {
            // A shift by a constant 32 would not validate even where it is not taken.
            let all = if p.simd >= 32 {
                u32::MAX
            } else {
                (1u32 << p.simd) - 1
            };
            em.line(&format!("gs32({}u, {all:#x}u);", p.pre.sr0 + 8));
        } else {
            em.line("var dmask = 0xffffffffu;");
            em.line("if (lanes < 32u) { dmask = (1u << lanes) - 1u; }");
            em.line(&format!("gs32({}u, dmask);", p.pre.sr0 + 8));
        }
    }
    // sr0.0 and %hw_id: the thread's own private-memory slot (see Thread::new).
    if wanted(p.pre.sr0) || wanted(p.pre.hw_id) {
        em.line("let wb3 = (tid & 7u) | ((tid & ~7u) << 1u);");
        em.line("let slot = (wb3 & 0x3fu) | ((wb3 & ~0x3fu) << 1u);");
    }
    if wanted(p.pre.sr0) {
        em.line(&format!("gs32({}u, slot);", p.pre.sr0));
    }
    if wanted(p.pre.hw_id) {
        em.line(&format!("gs32({}u, tid);", p.pre.hw_id));
    }
    if channel_pcs {
        // One constructor, not a loop that NIR peels an iteration a round (see
        // `save_state_at` in runtime.wgsl).
        let pcs = (0..32)
            .map(|c| format!("select(IDLE, 0u, {c}u < live)"))
            .collect::<Vec<_>>()
            .join(", ");
        em.line("let live = min(lanes, K_SIMD);");
        em.line(&format!("pcs = array<u32, 32>({pcs});"));
    }
    // Unset surface variables; one constructor, not a loop (llvmpipe's pipeline
    // creation of saxpy 86 -> 64 ms).
    let unset = vec!["0xffffffffu"; surface_slots(p) as usize].join(", ");
    em.line(&format!("sv = array<u32, K_NSURF>({unset});"));
    em.line("scratch_base = tid * cfh(CFG_SCRATCH_WORDS);");
    em.close();
}

/// `main`: rounds of "every live thread runs to its next barrier or its end", each
/// closed by workgroup barriers in uniform control flow. In a sliced run a thread may
/// also stop before a block (its pass's loop budget is spent): its group then saves
/// every thread and its SLM, and the host's next pass restores and resumes them.
fn emit_main(em: &mut Emit, tpg: u32, start_cost: u64, grf_in_state: bool, switchable: bool) {
    let mut s = String::new();
    // Probe modules stop threads and save them whatever the run; the others may have
    // the saving compiled out ([`unsliced`]).
    s.push_str(if switchable {
        SLICED_SWITCH
    } else {
        "const K_SLICED: bool = true;\n"
    });
    let grf = if grf_in_state {
        "\n    g0 = tid * K_STATE_WORDS + K_STATE_GRF;\n    p0 = tid * K_STATE_WORDS + K_STATE_PRED;\n    a0 = p0 + K_NPRED;"
    } else {
        ""
    };
    let _ = write!(
        s,
        r#"
@compute @workgroup_size({tpg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    keep_bindings();
    zero_word = cfh(CFG_ZERO);
    let grp = wid + chunk.xyz;
    let group = (grp.z * cfh(CFG_GROUPS + 1u) + grp.y) * cfh(CFG_GROUPS) + grp.x;
    let tid = group * cfh(CFG_THREADS) + t;{grf}
    let sliced = cfh(CFG_SLICED) != 0u;
    // Restoring (or initializing) costs loop iterations too.
    edges = {start_cost}u;
    var status = ST_FRESH;
    if (K_SLICED && sliced) {{
        status = restore_state(tid);
        // Every thread restores its share: the group's SLM lives on while any runs.
        restore_slm(group, t);
    }}
    if (status == ST_FRESH) {{
        init(tid, t, grp);
        status = ST_RUNNING;
    }} else {{
        scratch_base = tid * cfh(CFG_SCRATCH_WORDS);
    }}
    workgroupBarrier();
    loop {{
        edges = edges + 1u;
        let next = (wg_round + 1u) % 3u;
        atomicStore(&wg_live[next], 0u);
        atomicStore(&wg_yield[next], 0u);
        if (status == ST_RUNNING) {{
            let r = run_thread();
            if (r == 0u) {{
                status = ST_DONE;
                count64(STAT_INSTS_LO, steps);
                count64(STAT_CHAN_LO, chans);
                atomicAdd(&stat[STAT_CHAN_HI], chans_hi);
            }} else if (r == 1u) {{
                status = ST_BARRIER;
            }} else if (r == 3u) {{
                // A probe's stop: the state at exactly cfh(CFG_STOP_STEPS) instructions.
                status = ST_STOPPED;
                if (K_SLICED) {{ save_state(tid, ST_STOPPED); }}
            }} else {{
                atomicAdd(&wg_yield[wg_round], 1u);
            }}
        }}
        if (status == ST_BARRIER) {{ atomicAdd(&wg_live[wg_round], 1u); }}
        storageBarrier();
        workgroupBarrier();
        // Every invocation reads the same words (see their declaration).
        let stop = atomicLoad(&wg_yield[wg_round]);
        let go = atomicLoad(&wg_live[wg_round]);
        wg_round = next;
        if (stop != 0u) {{
            if (K_SLICED) {{
                save_state(tid, status);
                save_slm(group, t);
            }}
            if (t == 0u) {{ atomicAdd(&stat[STAT_YIELDED], 1u); }}
            break;
        }}
        if (go == 0u) {{
            // Finished: a later pass must not start the thread again.
            if (sliced && status != ST_STOPPED) {{ state[tid * K_STATE_WORDS] = ST_DONE; }}
            break;
        }}
        if (status == ST_BARRIER) {{ status = ST_RUNNING; }}
    }}
    // The limiter's cut is sticky: once spent, every loop (this one too) stops after
    // one iteration. A cut anywhere above (the block loop of `run_thread`, this
    // function's rounds) ends here, so a one-pass run cannot return cut-short results.
    if (cfh(CFG_PROBE) != 0u && loops_exhausted()) {{ fail(ERR_DRIVER_LOOPS, 0xffffffffu); }}
    flush_oob();
}}
"#
    );
    em.out.push_str(&s);
}

/// Parse and validate WGSL with naga, with the capabilities the generated code uses
/// (64-bit integers and floats). Returns naga's message on failure.
#[cfg(feature = "gpu")]
pub fn validate_wgsl(wgsl: &str) -> Result<(), String> {
    parse_valid_wgsl(wgsl).map(|_| ())
}

/// [`validate_wgsl`], keeping the parsed module (for callers that inspect it too:
/// parsing is most of naga's time).
#[cfg(feature = "gpu")]
pub fn parse_valid_wgsl(wgsl: &str) -> Result<naga::Module, String> {
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| e.emit_to_string(wgsl))?;
    let caps = naga::valid::Capabilities::SHADER_INT64
        | naga::valid::Capabilities::FLOAT64
        | naga::valid::Capabilities::SHADER_INT64_ATOMIC_ALL_OPS;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| e.emit_to_string(wgsl))?;
    Ok(module)
}

/// A one-function kernel `k` of SIMD `simd` with `decls` and `body` (a `ret` after it),
/// parsed and prepared: the translator's unit tests' kernels.
#[cfg(test)]
pub(crate) fn test_kernel(decls: &str, simd: u32, body: &str) -> Prepared {
    let text = format!(
        ".version 4.1\n.kernel \"k\"\n{decls}.kernel_attr SimdSize={simd}\n{body}ret (M1, 1)\n"
    );
    let k = crate::decode::text::parse_visaasm(&text, 32).expect("parses");
    crate::interp::prepare(&k, "k").expect("prepares")
}
