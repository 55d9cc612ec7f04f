//! The CUDA backend (cudarc with dynamic loading; NVRTC-compiled device code).
//!
//! Building never needs CUDA: the driver (`libcuda`) and NVRTC are found at run time
//! ([`probe`]), and every entry point returns [`Error::NoDevice`](crate::Error::NoDevice) instead
//! of panicking when one is missing. Kernels are CUDA C++ that `#include <occupant.cuh>`, the
//! embedded device library of `src/cuda/device/` ([`HEADERS`]); [`Gpu::compile`] compiles them
//! with NVRTC (cached in memory and on disk) and [`Module::launch`] runs them in one of the
//! [`LaunchMode`]s, with the device watchdog turning a hung wait into
//! [`Error::Deadlock`](crate::Error::Deadlock).
//!
//! ```no_run
//! use occupant::cuda::{CompileOptions, Gpu, LaunchConfig};
//! let gpu = Gpu::open(0)?;
//! let src = r#"#include <occupant.cuh>
//! extern "C" __global__ void inc(unsigned* p) { occ::atomic_add_relaxed(p, 1u); }"#;
//! let m = gpu.compile("inc.cu", src, &CompileOptions::default())?;
//! let counter = gpu.alloc_zeroed::<u32>(1)?;
//! let report = m.launch("inc", &LaunchConfig::plain(4, 32), &occupant::args![&counter])?;
//! assert_eq!(counter.to_vec()?[0], 128);
//! # Ok::<(), occupant::Error>(())
//! ```

mod args;
mod buffer;
mod cache;
mod compile;
pub mod coop;
pub mod forkjoin;
mod gpu;
mod graph_while;
mod headers;
mod host_loop;
mod info;
mod kernel_limits;
mod launch;
mod module;
mod persistent;
pub mod probe;
pub mod sync;
mod watchdog;

pub use args::Arg;
pub use buffer::{DeviceBuffer, DeviceCopy};
pub use cache::{clear_memory_cache, compile_cached, disk_cache_dir, CacheHit};
pub use compile::{
    compile_uncached, nvrtc_version, CompileOptions, Compiled, ImageKind, DEFAULT_ARCH,
};
pub use gpu::Gpu;
pub use graph_while::{ConditionHandle, WhileGraph, CONDITIONAL_NODES_DRIVER};
pub use headers::{header, HEADERS, UMBRELLA};
pub use host_loop::{LaunchGraph, PinnedScalar};
pub use info::DeviceInfo;
pub use launch::{LaunchConfig, LaunchMode, LaunchReport};
pub use module::{KernelAttributes, Module};
pub use persistent::{
    persistent_barrier_for_block, persistent_supports, PersistentProgram, PersistentReport,
    Placement, PlacementTiming, PERSISTENT_MAX_GROUPS, PERSISTENT_PLACEMENTS,
    PERSISTENT_PLACEMENT_STRIDE_WORDS, PERSISTENT_POLL_PAUSE_SHIFT, PLACEMENT_PROBE_ROUNDS,
};
pub use watchdog::{primitive_name, Control, CONTROL_BYTES, PRIMITIVES};

/// The kernels the backend's own tests and benchmarks launch (`kernels/selftest.cu`).
pub const SELFTEST_CU: &str = include_str!("kernels/selftest.cu");

/// Opens device 0 and returns its description, or the one-line reason there is none.
///
/// ```
/// match occupant::cuda::probe_device() {
///     Ok(info) => println!("{info}"),
///     Err(e) => println!("{e}"),
/// }
/// ```
pub fn probe_device() -> crate::Result<DeviceInfo> {
    Gpu::open(0).map(|g| g.info().clone())
}
