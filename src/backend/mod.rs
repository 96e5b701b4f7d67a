//! Execution backends behind one interface: the CPU reference interpreter and the GPU
//! path (translator output run by the `host/` driver).

pub mod cpu;
#[cfg(feature = "gpu")]
pub mod gpu;
#[cfg(feature = "gpu")]
pub mod localize;
#[cfg(feature = "gpu")]
pub mod select;
