//! The CUDA backend (cudarc with dynamic loading; NVRTC-compiled device code).
//!
//! Building never needs CUDA: the driver (`libcuda`) and NVRTC are found at run time
//! ([`probe`]), and every entry point returns [`Error::NoDevice`](crate::Error::NoDevice) instead
//! of panicking when one is missing. Kernels are CUDA C++ that `#include <occupant.cuh>`, the
//! embedded device library of `src/cuda/device/` ([`HEADERS`]).

mod compile;
mod headers;
pub mod probe;

pub use compile::{
    compile_uncached, nvrtc_version, CompileOptions, Compiled, ImageKind, DEFAULT_ARCH,
};
pub use headers::{header, HEADERS, UMBRELLA};
