//! How the iterations of an application are separated.

use serde::Serialize;
use std::fmt;

/// One way of running an application: same algorithm and work per iteration, different ways
/// of separating iterations (issue 10, "Variants").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Variant {
    /// CPU: one executor launch per phase; the host reads a "changed" flag between launches.
    CpuMultiLaunch,
    /// CPU: one launch; occupancy discovery, then the default inter-group barrier between
    /// phases ([`occupant::cpu::Executor::launch_persistent`]).
    CpuPersistent,
    /// CUDA: host loop, one kernel launch per phase, a "changed" flag read back (Pannotia).
    CudaMultiKernel,
    /// CUDA: the loop body captured once as a CUDA graph and replayed.
    CudaGraph,
    /// CUDA: the loop body captured once as the body of a CUDA graph WHILE conditional node
    /// (CUDA 12.4+): the device tests the loop's condition, no host round trip per iteration.
    CudaGraphWhile,
    /// CUDA: `cudaLaunchCooperativeKernel` and `grid.sync()`.
    CudaCooperative,
    /// CUDA: the occupancy API's grid and a barrier without discovery (Lonestar-GPU).
    CudaOccupancyApi,
    /// CUDA: occupant's persistent kernel (discovery + the default barrier).
    CudaPersistent,
}

impl Variant {
    /// The CPU variants.
    pub const CPU: [Variant; 2] = [Variant::CpuMultiLaunch, Variant::CpuPersistent];
    /// The CUDA variants.
    pub const CUDA: [Variant; 6] = [
        Variant::CudaMultiKernel,
        Variant::CudaGraph,
        Variant::CudaGraphWhile,
        Variant::CudaCooperative,
        Variant::CudaOccupancyApi,
        Variant::CudaPersistent,
    ];

    /// The variant's name on the command line (unique within a backend; both backends have a
    /// `persistent`).
    ///
    /// ```
    /// use occupant_apps::apps::Variant;
    /// assert_eq!(Variant::parse(false, "persistent"), Some(Variant::CpuPersistent));
    /// assert_eq!(Variant::parse(true, "persistent"), Some(Variant::CudaPersistent));
    /// assert_eq!(Variant::parse(false, "graph"), None);
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Variant::CpuMultiLaunch => "multi-launch",
            Variant::CpuPersistent => "persistent",
            Variant::CudaMultiKernel => "multi-kernel",
            Variant::CudaGraph => "graph",
            Variant::CudaGraphWhile => "graph-while",
            Variant::CudaCooperative => "cooperative",
            Variant::CudaOccupancyApi => "occupancy-api",
            Variant::CudaPersistent => "persistent",
        }
    }

    /// Whether this is a CUDA variant.
    pub fn is_cuda(self) -> bool {
        !matches!(self, Variant::CpuMultiLaunch | Variant::CpuPersistent)
    }

    /// The CPU variant that computes the same thing the same way: the one-launch-per-step
    /// CUDA variants (multi-kernel, graph, graph-while) map to multi-launch, the one-launch
    /// ones (cooperative, occupancy-api, persistent) to persistent; a CPU variant is its own.
    /// Used when `--backend cuda` finds no GPU and a run falls back to the CPU.
    ///
    /// ```
    /// use occupant_apps::apps::Variant;
    /// assert_eq!(Variant::CudaGraphWhile.cpu_counterpart(), Variant::CpuMultiLaunch);
    /// assert_eq!(Variant::CudaCooperative.cpu_counterpart(), Variant::CpuPersistent);
    /// assert_eq!(Variant::CpuPersistent.cpu_counterpart(), Variant::CpuPersistent);
    /// ```
    pub fn cpu_counterpart(self) -> Variant {
        match self {
            Variant::CpuMultiLaunch
            | Variant::CudaMultiKernel
            | Variant::CudaGraph
            | Variant::CudaGraphWhile => Variant::CpuMultiLaunch,
            Variant::CpuPersistent
            | Variant::CudaCooperative
            | Variant::CudaOccupancyApi
            | Variant::CudaPersistent => Variant::CpuPersistent,
        }
    }

    /// The variants of one backend.
    pub fn of_backend(backend_is_cuda: bool) -> &'static [Variant] {
        if backend_is_cuda {
            &Self::CUDA
        } else {
            &Self::CPU
        }
    }

    /// The variant of the given backend named `s`.
    pub fn parse(backend_is_cuda: bool, s: &str) -> Option<Self> {
        Self::of_backend(backend_is_cuda)
            .iter()
            .copied()
            .find(|v| v.name() == s)
    }

    /// The names of one backend's variants, comma-separated (for error messages).
    pub fn names(backend_is_cuda: bool) -> String {
        Self::of_backend(backend_is_cuda)
            .iter()
            .map(|v| v.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
