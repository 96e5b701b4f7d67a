//! visa-emu: decode Intel vISA kernels (binary `.isa` or `.visaasm` text), run them on
//! a CPU reference interpreter, or translate them to WGSL for any GPU that wgpu reaches.
//!
//! Map of the crate (see docs/design.md):
//! - [`isa`]: the static instruction knowledge (opcodes, the one operand-schema table).
//! - [`ir`]: the plain kernel IR (types, variables, regions, instructions). No wgpu.
//! - [`decode`]: `.isa` binary decoder and `.visaasm` text parser, both into [`ir`].
//! - [`print`]: IR -> `.visaasm` text.
//! - [`validate`]: structural checks of a kernel (region, type and range rules).
//! - [`abi`]: the OpenCL ABI of IGC (patch tokens of ocloc's `.bin`).
//! - [`corpus`]: the case-folder layout (case.json, inputs, expected, tolerances).
//! - [`interp`]: the CPU reference interpreter (the golden model).
//! - [`translate`]: IR -> WGSL (no wgpu either; `host/` runs what it emits).

pub mod abi;
pub mod backend;
pub mod cli;
pub mod corpus;
pub mod decode;
pub mod encode;
pub mod interp;
pub mod ir;
pub mod isa;
pub mod print;
pub mod translate;
pub mod validate;
