//! The CUDA sources of the primitives' test and benchmark kernels, and their compilation.

use super::super::{CompileOptions, Gpu, Module};
use crate::model::Result;

/// Barrier kernels (`barrier_xf`, `barrier_atomic`, `barrier_hierarchical`, `barrier_naive`).
pub const BARRIER_CU: &str = include_str!("../kernels/barrier.cu");
/// `grid_sync_bench`: the comparator, cooperative_groups' `grid.sync()` (needs the CUDA
/// toolkit's headers at run time, see [`compile_grid_sync`]; kept out of the `.cu` files that
/// CI compiles without a toolkit). `times[2b]`, `times[2b+1]`: %globaltimer around `rounds` syncs.
/// With `-DOCC_BENCH_SKEW_CYCLES=S`, thread 0 of block b spins the same seeded pseudo-random
/// number of cycles before each sync as participant b of the barrier kernels (kernels/barrier.cu,
/// skewed arrivals).
pub const GRID_SYNC_CU: &str = r#"#include <occupant.cuh>
#include <cooperative_groups.h>
#ifndef OCC_BENCH_SKEW_CYCLES
#define OCC_BENCH_SKEW_CYCLES 0
#endif
#ifndef OCC_BENCH_SKEW_SEED
#define OCC_BENCH_SKEW_SEED 0x2545F491u
#endif
__device__ __forceinline__ void bench_skew(unsigned g, unsigned r) {
  if (OCC_BENCH_SKEW_CYCLES <= 0) return;
  unsigned h = g * 0x9E3779B1u ^ (r + 1u) * 0x85EBCA77u ^ (unsigned)OCC_BENCH_SKEW_SEED;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  h ^= h >> 15;
  const long long d = (long long)(h % (unsigned)(OCC_BENCH_SKEW_CYCLES > 0 ? OCC_BENCH_SKEW_CYCLES : 1));
  const long long c0 = clock64();
  while (clock64() - c0 < d) {
  }
}
extern "C" __global__ void grid_sync_bench(unsigned rounds, unsigned long long* times) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  grid.sync();
  const unsigned long long t0 = occ::globaltimer();
  for (unsigned r = 0; r < rounds; ++r) {
    if (OCC_BENCH_SKEW_CYCLES > 0 && threadIdx.x == 0) bench_skew(blockIdx.x, r);
    grid.sync();
  }
  const unsigned long long t1 = occ::globaltimer();
  if (threadIdx.x == 0) {
    times[2 * blockIdx.x] = t0;
    times[2 * blockIdx.x + 1] = t1;
  }
}
"#;
/// Mutex kernels (`mutex_spin`, `mutex_spin_backoff`, `mutex_ticket`, `mutex_ticket_backoff`).
pub const MUTEX_CU: &str = include_str!("../kernels/mutex.cu");
/// Semaphore kernels (`sem_spin`, `sem_spin_backoff`, `sem_sleeping`).
pub const SEMAPHORE_CU: &str = include_str!("../kernels/semaphore.cu");
/// `discovery_probe`.
pub const DISCOVERY_CU: &str = include_str!("../kernels/discovery.cu");
/// `memory_bench`: the twelve memory-system microbenchmarks.
pub const MEMORY_BENCH_CU: &str = include_str!("../kernels/memory_bench.cu");

/// Compiles `source` for `gpu`, with a compile-time cluster size when `cluster > 1`
/// (`-DOCC_CLUSTER_SIZE=k`; the kernels then carry `__cluster_dims__(k, 1, 1)`), and at most
/// `max_registers` registers per thread when given (`-maxrregcount`).
pub fn compile(
    gpu: &Gpu,
    name: &str,
    source: &str,
    cluster: u32,
    max_registers: Option<u32>,
) -> Result<Module> {
    compile_with(gpu, name, source, cluster, max_registers, &[])
}

/// [`compile`] with further NVRTC options (e.g. `-DOCC_BARRIER_LAB`), which also name the
/// module (the compile cache tells the variants apart).
pub fn compile_with(
    gpu: &Gpu,
    name: &str,
    source: &str,
    cluster: u32,
    max_registers: Option<u32>,
    extra: &[&str],
) -> Result<Module> {
    let mut opts = CompileOptions::default();
    let mut full = name.to_string();
    for o in extra {
        opts = opts.option(o.to_string());
        full = format!("{full}[{o}]");
    }
    if cluster > 1 {
        opts = opts.option(format!("-DOCC_CLUSTER_SIZE={cluster}"));
        full = format!("{full}[cluster={cluster}]");
    }
    if let Some(r) = max_registers {
        opts = opts.option(format!("-maxrregcount={r}"));
        full = format!("{full}[regs={r}]");
    }
    gpu.compile(&full, source, &opts)
}

/// Registers per thread that let any block size fill an SM (65536 / 2048 threads): kernels
/// compiled with this cap reach the hardware's resident-block bound at every block size.
pub const FULL_OCCUPANCY_REGISTERS: u32 = 32;

/// Compiles [`GRID_SYNC_CU`] with the CUDA toolkit's include folders (`$CUDA_HOME/include`,
/// `$CUDA_PATH/include` or `/usr/local/cuda/include`, and its `cccl` subfolder).
pub fn compile_grid_sync(gpu: &Gpu) -> Result<Module> {
    compile_grid_sync_with(gpu, &[])
}

/// [`compile_grid_sync`] with further NVRTC options (e.g. `-DOCC_BENCH_SKEW_CYCLES=4000`), which
/// also name the module.
pub fn compile_grid_sync_with(gpu: &Gpu, extra: &[&str]) -> Result<Module> {
    let mut roots: Vec<std::path::PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .map(std::path::PathBuf::from)
        .collect();
    roots.push("/usr/local/cuda".into());
    let inc = roots
        .into_iter()
        .map(|r| r.join("include"))
        .find(|i| i.join("cooperative_groups.h").is_file())
        .ok_or_else(|| crate::Error::NoDevice {
            reason: "the grid.sync() comparator needs the CUDA toolkit headers (cooperative_groups.h); set CUDA_HOME".into(),
        })?;
    let mut opts = CompileOptions::default().option(format!("-I{}", inc.display()));
    if inc.join("cccl").is_dir() {
        opts = opts.option(format!("-I{}", inc.join("cccl").display()));
    }
    let mut name = "occupant_grid_sync.cu".to_string();
    for o in extra {
        opts = opts.option(o.to_string());
        name = format!("{name}[{o}]");
    }
    gpu.compile(&name, GRID_SYNC_CU, &opts)
}
