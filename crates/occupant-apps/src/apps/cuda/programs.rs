//! The compiled CUDA programs of the applications: the host-loop module (no watchdog) and the
//! device-loop program (persistent, occupancy-API and, with the toolkit headers, cooperative).

use occupant::cuda::sync::BarrierKind;
use occupant::cuda::{CompileOptions, Gpu, Module, PersistentProgram};
use occupant::Result;
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
    /// Compiles both programs for `gpu`; the device loop with `barrier` (default: the device's
    /// default barrier, from its machine abstraction).
    pub fn compile(gpu: &Gpu, barrier: Option<BarrierKind>) -> Result<AppPrograms> {
        Self::compile_with(gpu, barrier, None)
    }

    /// The same; with `min_blocks_per_sm`, the device-loop kernels are compiled with
    /// `__launch_bounds__(256, min_blocks_per_sm)` (`-DOCC_APP_MIN_BLOCKS`), which caps their
    /// registers so that that many blocks fit on an SM.
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
        let mut opts = CompileOptions::default();
        if let Some(k) = min_blocks_per_sm {
            opts = opts.option(format!("-DOCC_APP_MIN_BLOCKS={k}"));
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
            None => PersistentProgram::compile(gpu, "graph_apps.cu", GRAPH_APPS_CU, &opts)?,
        };
        Ok(AppPrograms {
            host,
            device,
            cooperative: inc.is_some(),
        })
    }
}
