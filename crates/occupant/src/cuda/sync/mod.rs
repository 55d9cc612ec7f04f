//! Synchronisation primitives of the CUDA backend: occupancy discovery, inter-block barriers,
//! mutexes and semaphores (device library: `src/cuda/device/*.cuh`, `#include
//! <occupant_sync.cuh>`), the machine abstraction that picks each primitive's default per
//! device, and the runners behind the GPU tests and `occupant bench … --backend cuda`.
//!
//! The names mirror the CPU backend's `occupant::cpu::sync`: [`BarrierKind`], [`MutexKind`],
//! [`SemaphoreKind`], [`Barrier`], [`Mutex`], [`Semaphore`].

pub mod bench;
mod kernels;
mod kinds;
mod machine;
mod objects;
mod placed_barrier;
mod placed_mutex;
mod places;
pub mod run;
mod shapes;

pub use kernels::{
    compile, compile_grid_sync, compile_with, BARRIER_CU, DISCOVERY_CU, GRID_SYNC_CU,
    MEMORY_BENCH_CU, MUTEX_CU, SEMAPHORE_CU,
};
pub use kinds::{
    combining_state_words, flat_combining_state_words, BarrierKind, DiscoveryMethod, MutexKind,
    SemaphoreKind, COMBINING_CAPACITY, FLAT_COMBINING_CAPACITY, LAZY_COMBINING_CAPACITY,
    LAZY_COMBINING_STATE_WORDS,
};
pub use machine::{
    results_dir_name, slug, Access, Characteristics, Defaults, MachineAbstraction, MemoryTiming,
    ATOMIC_COSTLY, CONTENTION_COSTLY, HOLDS_LINE_THRESHOLD,
};
pub use objects::{Barrier, Mutex, Semaphore};
pub use placed_barrier::{
    BarrierPlaces, BARRIER_PLACES, BARRIER_PLACE_ROUNDS, BARRIER_PLACE_SWEEPS,
};
pub use placed_mutex::MUTEX_PLACE_PAIRS;
pub use places::{Places, ProbedKind, PLACES, PLACE_SWEEPS};
pub use shapes::{builtin_shape_table, PLACED_KINDS, PLACED_KIND_TIE, SKEWED_TIE};
