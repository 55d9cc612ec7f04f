//! Cooperative kernels on CUDA (seed 000): a cooperative BFS whose every global barrier is a
//! resizing barrier ([`GpuBfs`], regular and `query` variants, and the persistent baseline),
//! and the multitasking experiments ([`Multitasker`], [`run_multitask`]) that run another
//! kernel — a matrix multiplication of ours compiled by NVRTC — in the groups the scheduler
//! (`occupant::cuda::coop::Scheduler`) takes from it.

mod bfs;
mod multitask;

pub use bfs::{bfs_reference, sssp_reference, App, BarrierMode, GpuBfs, BFS_CU, SSSP_CU};
pub use multitask::{
    median, run_multitask, CoRun, MultitaskResult, Multitasker, Request, Share, Workload, WORKLOADS,
};
