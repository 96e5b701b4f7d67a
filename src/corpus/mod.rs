//! The corpus case-folder layout (see ../shared/corpus/README.md).

pub mod case;
pub mod compare;
pub mod paths;
