//! The wgpu driver of visa-emu. It runs WGSL compute programs that the translator
//! (`visa_emu::translate`) generated, binds buffers, dispatches and reads back.
//! It knows nothing of vISA: its inputs are plain WGSL text and byte buffers.
