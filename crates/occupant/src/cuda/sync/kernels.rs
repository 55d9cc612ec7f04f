//! The CUDA sources of the primitives' test and benchmark kernels, and their compilation.

use super::super::{CompileOptions, Gpu, Module};
use crate::model::Result;

/// Barrier kernels (`barrier_xf`, `barrier_atomic`, `barrier_hierarchical`, `barrier_naive`).
pub const BARRIER_CU: &str = include_str!("../kernels/barrier.cu");
/// `grid_sync_bench`: the cooperative-groups grid.sync() comparator.
pub const GRID_SYNC_CU: &str = include_str!("../kernels/grid_sync.cu");
/// Mutex kernels (`mutex_spin`, `mutex_spin_backoff`, `mutex_ticket`, `mutex_ticket_backoff`).
pub const MUTEX_CU: &str = include_str!("../kernels/mutex.cu");
/// Semaphore kernels (`sem_spin`, `sem_spin_backoff`, `sem_sleeping`).
pub const SEMAPHORE_CU: &str = include_str!("../kernels/semaphore.cu");
/// `discovery_probe`.
pub const DISCOVERY_CU: &str = include_str!("../kernels/discovery.cu");
/// `memory_bench`: the twelve memory-system microbenchmarks.
pub const MEMORY_BENCH_CU: &str = include_str!("../kernels/memory_bench.cu");

/// Compiles `source` for `gpu`, with a compile-time cluster size when `cluster > 1`
/// (`-DOCC_CLUSTER_SIZE=k`; the kernels then carry `__cluster_dims__(k, 1, 1)`).
pub fn compile(gpu: &Gpu, name: &str, source: &str, cluster: u32) -> Result<Module> {
    let mut opts = CompileOptions::default();
    let mut full = name.to_string();
    if cluster > 1 {
        opts = opts.option(format!("-DOCC_CLUSTER_SIZE={cluster}"));
        full = format!("{name}[cluster={cluster}]");
    }
    gpu.compile(&full, source, &opts)
}
