//! The compiled CUDA programs of the applications: the host-loop module (no watchdog), the
//! graph-while module (the host-loop kernels and the kernels that end a CUDA graph WHILE
//! node's iteration) and the device-loop program (persistent, occupancy-API and, with the
//! toolkit headers, cooperative).

use super::runner::BLOCK_THREADS;
use occupant::cuda::sync::BarrierKind;
use occupant::cuda::{CompileOptions, DeviceInfo, Gpu, Module, PersistentProgram};
use occupant::{Error, Result};
use std::path::PathBuf;

/// The kernels of every application: `graph_apps.cu` followed by `bc.cu` and
/// `sssp_worklist.cu` (one program; the later files use the first one's load balancing,
/// flags and device loop).
pub const GRAPH_APPS_CU: &str = concat!(
    include_str!("graph_apps.cu"),
    "\n",
    include_str!("bc.cu"),
    "\n",
    include_str!("sssp_worklist.cu")
);

/// The device loops' barrier polls sleep `missing << APP_POLL_PAUSE_SHIFT` ns (at least 64, at
/// most 1000) after a poll that saw `missing` arrivals still to come (`OCC_POLL_PAUSE_SHIFT` in
/// replica_barrier.cuh; lean, replica and relay). The apps' phases end with skewed arrivals:
/// ~1000 early blocks polling the arrival line at full rate slowed the stragglers' arrivals, and
/// the lean barrier, the fastest when every block arrives at once, lost to grid.sync inside bfs,
/// sssp and cc (stencil cc 0.89×). Throttled, on an H100 (1056 × 256, shift 0–3 alike; 1 kept):
/// persistent / grid.sync 1.011–1.075 on grid 2048² and stencil 1000² bfs/sssp/cc, stencil cc
/// 0.98 (`bench/results/nvidia-h100/apps/pause-af76a46/`).
pub const APP_POLL_PAUSE_SHIFT: u32 = 1;

/// The two programs every CUDA variant runs from.
#[derive(Clone)]
pub struct AppPrograms {
    /// Host-loop kernels (`-DOCC_APP_HOST_LOOP`): multi-kernel and graph variants.
    pub host: Module,
    /// Device-loop kernels with `occ::PersistentKernel` (persistent, occupancy-api and, when
    /// [`AppPrograms::cooperative`], cooperative).
    pub device: PersistentProgram,
    /// Whether the cooperative kernels were compiled (they need `cooperative_groups.h`).
    pub cooperative: bool,
    /// The host-loop kernels plus `app_advance_while` / `pagerank_advance_while`
    /// (`-DOCC_APP_GRAPH_WHILE`, graph-while variant), or why they could not be compiled or
    /// loaded (the other variants do not need them).
    pub graph_while: std::result::Result<Module, String>,
    /// The `__launch_bounds__` minimum of resident blocks per SM the device-loop kernels were
    /// compiled with (0: none).
    pub min_blocks_per_sm: u32,
}

/// The resident blocks per SM the device-loop kernels ask for by default on `info`'s device
/// ([`min_blocks_for`] of its limits).
pub fn default_min_blocks_per_sm(info: &DeviceInfo) -> u32 {
    min_blocks_for(
        info.max_threads_per_sm,
        info.max_blocks_per_sm,
        info.registers_per_sm,
    )
}

/// The most blocks of [`BLOCK_THREADS`] threads an SM with these limits holds (threads per SM
/// / block, at most the blocks-per-SM limit), but no more than leave every thread 32
/// registers. On an H100: min(2048 / 256, 32, 65536 / (256 · 32)) = 8, the setting the H100
/// measurements found best (`bench/results/nvidia-h100/apps/min-blocks-per-sm-8/`): without
/// it, ptxas gives the persistent kernels 34–39 registers (1–2 resident blocks per SM fewer);
/// with it, 32 and no spills (`occ::PersistentKernel` keeps its barrier in shared memory).
///
/// ```
/// use occupant_apps::apps::cuda::min_blocks_for;
/// assert_eq!(min_blocks_for(2048, 32, 65536), 8); // H100, H200
/// assert_eq!(min_blocks_for(1536, 16, 65536), 6); // sm_86
/// assert_eq!(min_blocks_for(2048, 32, 32768), 4);
/// ```
pub fn min_blocks_for(threads_per_sm: u32, blocks_per_sm: u32, registers_per_sm: u32) -> u32 {
    let threads = BLOCK_THREADS as u32;
    (threads_per_sm / threads)
        .min(blocks_per_sm)
        .min(registers_per_sm / (threads * 32))
        .max(1)
}

/// The CUDA toolkit's include folder holding `cooperative_groups.h` (`$CUDA_HOME`,
/// `$CUDA_PATH`, `/usr/local/cuda`), if any.
pub fn toolkit_include() -> Option<PathBuf> {
    let mut roots: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .collect();
    roots.push("/usr/local/cuda".into());
    roots
        .into_iter()
        .map(|r| r.join("include"))
        .find(|i| i.join("cooperative_groups.h").is_file())
}

impl AppPrograms {
    /// Compiles both programs for `gpu`; the device loop with `barrier` (default: the fastest
    /// measured on the device for its blocks at full occupancy,
    /// [`occupant::cuda::persistent_barrier_for_block`]).
    pub fn compile(gpu: &Gpu, barrier: Option<BarrierKind>) -> Result<AppPrograms> {
        Self::compile_with(gpu, barrier, None)
    }

    /// The same; the device-loop kernels are compiled with `__launch_bounds__(256, k)`
    /// (`-DOCC_APP_MIN_BLOCKS=k`), which caps their registers so that k blocks fit on an SM:
    /// k = `min_blocks_per_sm`, or [`default_min_blocks_per_sm`] when None; `Some(0)` compiles
    /// them without launch bounds. `OCCUPANT_APP_DEFINES` (space-separated NVRTC options, e.g.
    /// `-DOCC_APP_MIN_BLOCKS=4`) is added to the device-loop program's options, for experiments.
    pub fn compile_with(
        gpu: &Gpu,
        barrier: Option<BarrierKind>,
        min_blocks_per_sm: Option<u32>,
    ) -> Result<AppPrograms> {
        let host = gpu.compile(
            "graph_apps.cu[host-loop]",
            GRAPH_APPS_CU,
            &CompileOptions::default().option("-DOCC_APP_HOST_LOOP"),
        )?;
        let graph_while = gpu
            .compile(
                "graph_apps.cu[graph-while]",
                GRAPH_APPS_CU,
                &CompileOptions::default()
                    .option("-DOCC_APP_HOST_LOOP")
                    .option("-DOCC_APP_GRAPH_WHILE"),
            )
            .map_err(|e| e.to_string());
        let min_blocks = min_blocks_per_sm.unwrap_or_else(|| default_min_blocks_per_sm(gpu.info()));
        // Extra defines for the device-loop program (experiments, e.g. `-DOCC_APP_MIN_BLOCKS=4`),
        // separated by spaces.
        let extra = std::env::var("OCCUPANT_APP_DEFINES").unwrap_or_default();
        let mut opts = CompileOptions::default();
        // The extra defines' OCC_APP_MIN_BLOCKS replaces the default one (a second -D of the
        // same macro would be a redefinition).
        if min_blocks > 0 && !extra.contains("OCC_APP_MIN_BLOCKS") {
            opts = opts.option(format!("-DOCC_APP_MIN_BLOCKS={min_blocks}"));
        }
        // The apps' loops poll their barrier throttled (APP_POLL_PAUSE_SHIFT), unless the extra
        // defines set it.
        if !extra.contains("OCC_POLL_PAUSE_SHIFT") {
            opts = opts.option(format!("-DOCC_POLL_PAUSE_SHIFT={APP_POLL_PAUSE_SHIFT}"));
        }
        // Ungated, as the apps were measured (the library's default sleeps only while more
        // arrivals are missing than the GPU has SMs).
        if !extra.contains("OCC_POLL_PAUSE_GATE") {
            opts = opts.option("-DOCC_POLL_PAUSE_GATE=0");
        }
        for d in extra.split_whitespace() {
            opts = opts.option(d);
        }
        let inc = toolkit_include();
        if let Some(inc) = &inc {
            opts = opts
                .option("-DOCC_APP_COOPERATIVE")
                .option(format!("-I{}", inc.display()));
            if inc.join("cccl").is_dir() {
                opts = opts.option(format!("-I{}", inc.join("cccl").display()));
            }
        }
        let device = match barrier {
            Some(kind) => PersistentProgram::compile_with_barrier(
                gpu,
                kind,
                "graph_apps.cu",
                GRAPH_APPS_CU,
                &opts,
            )?,
            None => PersistentProgram::compile_for_block(
                gpu,
                BLOCK_THREADS,
                "graph_apps.cu",
                GRAPH_APPS_CU,
                &opts,
            )?,
        };
        Ok(AppPrograms {
            host,
            device,
            cooperative: inc.is_some(),
            graph_while,
            min_blocks_per_sm: min_blocks,
        })
    }

    /// The graph-while module, or [`Error::NoDevice`] saying why there is none.
    pub fn graph_while(&self) -> Result<&Module> {
        self.graph_while.as_ref().map_err(|e| Error::NoDevice {
            reason: format!("the graph-while kernels could not be compiled or loaded: {e}"),
        })
    }
}
