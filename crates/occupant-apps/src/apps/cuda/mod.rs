//! The CUDA applications (issue 10): bfs, sssp (Bellman-Ford), cc, pagerank, color, mis
//! (`graph_apps.cu`), bc (`bc.cu`) and sssp-worklist (`sssp_worklist.cu`), each in the CUDA
//! [`Variant`](crate::apps::Variant)s — multi-kernel, graph, graph-while (a CUDA graph WHILE
//! conditional node: the loop runs on the device), cooperative, occupancy-api and persistent —
//! over one kernel body per phase.
//!
//! ```no_run
//! use occupant::cuda::Gpu;
//! use occupant_apps::apps::cuda::run_cuda;
//! use occupant_apps::apps::{verify, AppKind, AppParams, Variant};
//! use occupant_apps::graph::GraphSpec;
//! let gpu = Gpu::open(0)?;
//! let g = "grid:64x64".parse::<GraphSpec>().unwrap().csr().unwrap();
//! let p = AppParams::default();
//! let (out, report) = run_cuda(&gpu, AppKind::Bfs, Variant::CudaPersistent, &g, &p)?;
//! assert!(verify(AppKind::Bfs, &g, &p, &out).is_ok());
//! println!("{} iterations, {:.3} ms", report.iterations, report.time_ms);
//! # Ok::<(), occupant::Error>(())
//! ```

pub mod bench;
mod device_graph;
mod placement;
mod programs;
mod runner;
mod trace;

pub use bench::{
    bench_cuda, bench_source, load_inputs, matches, CudaBenchOptions, CudaBenchResults,
    PreparedInfo, CUDA_INPUTS, CUDA_QUICK_INPUTS,
};
pub use device_graph::{
    tile_cost_prefix, tile_cost_prefix_with, DeviceGraph, HeavySplit, CHUNK, DEFAULT_HEAVY_DEGREE,
    PR_CLAIM_TILES, PR_STATIC_PERCENT, PR_TAIL_MIN_COST, TILE_COST,
};
pub use placement::{placement_study, PlacedRuns, PlacementStudy};
pub use programs::{
    default_min_blocks_per_sm, min_blocks_for, toolkit_include, AppPrograms, APP_POLL_PAUSE_SHIFT,
    GRAPH_APPS_CU,
};
pub use runner::{run_cuda, CudaInput, BLOCK_THREADS, CUDA_APPS};
pub use trace::BarrierTrace;
