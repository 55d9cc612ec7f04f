//! # occupant
//!
//! Blocking synchronisation on GPUs that never deadlocks and can share the GPU.
//!
//! A kernel is launched over an [`model::NDRange`] of work-groups. GPUs run groups under the
//! *occupancy-bound* execution model: a started group keeps its compute unit until it ends, so a
//! spin barrier across more groups than can be resident at once hangs. occupant finds the
//! co-occupant groups at run time (occupancy discovery) and gives them barriers, mutexes and
//! semaphores whose every wait is watched by a deadline: a deadlock becomes an
//! [`Error::Deadlock`], never a hang.
//!
//! Backends: [`cpu`] (coroutine work-items on a pool of compute units, with selectable
//! execution models as a test bench for forward progress) and [`cuda`] (NVRTC-compiled CUDA C++
//! with an embedded device library, loaded at run time).

#![warn(missing_docs)]

pub mod cpu;
pub mod cuda;
pub mod model;

pub use model::{Error, NDRange, Result};
