//! The vISA → WGSL translator (issue 4). Not written yet: the GPU path today is only
//! the `host/` driver, which runs WGSL; docs/design.md says what is planned.
