//! Cooperative kernels on CUDA (seed 000): the applications of seed 000 Table 1 as cooperative
//! kernels of `occupant::cuda::coop` — the graph apps with every global barrier a resizing
//! barrier (regular and `query` variants, and the persistent baseline): BFS and SSSP
//! ([`GpuBfs`]), cc, pagerank, color, mis, bc and sssp-worklist ([`GpuGraphApp`]), all one
//! phase loop (`loop.cuh`) with the apps as bodies; the work-stealing apps with `offer_kill` /
//! `request_fork` before every task: octree partitioning ([`GpuOctree`]) and connect-four
//! search ([`GpuGame`]); each verified against its sequential reference ([`CoopKernel`]). And the
//! multitasking experiments ([`Multitasker`], [`run_multitask`]) that run another kernel — a
//! matrix multiplication of ours compiled by NVRTC — in the groups the scheduler
//! (`occupant::cuda::coop::Scheduler`) takes from it.

mod bfs;
mod game;
mod graph;
mod kernel;
mod multitask;
mod octree;
mod overhead;
mod steal;
mod sweep;

pub use bfs::{
    bfs_reference, sssp_reference, App, BarrierMode, Distribution, GpuBfs, Tuning, BFS_CU, SSSP_CU,
};
pub use game::{combine_nodes, game_root, GpuGame, GAME_CU, MAX_GAME_DEPTH};
pub use graph::{coop_graph_source, GpuGraphApp, COOP_GRAPH_APPS, GRAPH_CU};
pub use kernel::{coop_app, game_split, AppSize, CoopKernel, COOP_CUDA_APPS};
pub use multitask::{
    median, progress, run_multitask, run_multitask_kernel, Calibration, CoRun, MultitaskResult,
    Multitasker, PairedBlock, PairedCoRun, Request, Share, Spread, Workload, FIT_FRACTION,
    WORKLOADS,
};
pub use octree::{decode_leaves, GpuOctree, OCTREE_CU};
pub use overhead::{coop_overhead, overhead_summary, CoopOverhead};
pub use sweep::{run_multitask_sweep, sweep_figures, sweep_sources, MultitaskSweep, SweepPanel};
