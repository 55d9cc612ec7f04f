//! The graph applications cc, pagerank, color and mis as cooperative kernels on CUDA
//! (`graph.cu`): the phases of the CUDA graph apps (`apps::cuda`, `graph_apps.cu`) in the
//! cooperative phase loop, every global barrier a resizing barrier, `rounds` runs per launch,
//! each checked on the device against the sequential reference.

use super::bfs::BarrierMode;
use super::kernel::CoopKernel;
use crate::apps::cuda::{CudaInput, GRAPH_APPS_CU};
use crate::apps::{reference, AppKind, AppOutput, AppParams};
use crate::graph::Csr;
use occupant::cuda::coop::{CoopConfig, Scheduler};
use occupant::cuda::{Arg, CompileOptions, DeviceBuffer, Gpu, Module};
use occupant::{Error, Result};

/// The cooperative graph kernels (`coop_cc`, `coop_pagerank`, `coop_color`, `coop_mis`); compile
/// after [`GRAPH_APPS_CU`] with `-DOCC_APP_HOST_LOOP` (see [`coop_graph_source`]).
pub const GRAPH_CU: &str = concat!(include_str!("loop.cuh"), include_str!("graph.cu"));

/// The graph applications this module runs cooperatively.
pub const COOP_GRAPH_APPS: [AppKind; 4] =
    [AppKind::Cc, AppKind::PageRank, AppKind::Color, AppKind::Mis];

/// The whole source of the cooperative graph kernels: the graph apps' phases, then
/// [`GRAPH_CU`]. Compile it with `-DOCC_APP_HOST_LOOP`.
pub fn coop_graph_source() -> String {
    format!("{GRAPH_APPS_CU}\n{GRAPH_CU}")
}

/// One of [`COOP_GRAPH_APPS`] on one graph, on the GPU, with its sequential reference.
pub struct GpuGraphApp {
    app: AppKind,
    input: CudaInput,
    module: Module,
    rounds: u32,
    expect_u32: DeviceBuffer<u32>,
    expect_f64: DeviceBuffer<f64>,
    check_tol: f64,
    checks: DeviceBuffer<u32>,
    iters: DeviceBuffer<u32>,
}

impl GpuGraphApp {
    /// Prepares `app` on `g` (the graph apps' [`CudaInput`]), compiles the kernels and computes
    /// the sequential reference. [`Error::Input`] for another app, an empty graph or 0 rounds.
    pub fn new(gpu: &Gpu, app: AppKind, g: &Csr, p: &AppParams, rounds: u32) -> Result<Self> {
        if !COOP_GRAPH_APPS.contains(&app) || g.num_vertices() == 0 || rounds == 0 {
            return Err(Error::Input(format!(
                "cooperative graph app: {app} on {} vertices, {rounds} rounds (apps: cc, pagerank, color, mis; a non-empty graph; rounds ≥ 1)",
                g.num_vertices()
            )));
        }
        let input = CudaInput::prepare(gpu, app, g, p)?;
        let module = gpu.compile(
            "coop_graph.cu",
            &coop_graph_source(),
            &CompileOptions::default().option("-DOCC_APP_HOST_LOOP"),
        )?;
        let (expect_u32, expect_f64) = match reference(app, g, p) {
            AppOutput::Labels(v) | AppOutput::Colors(v) => (gpu.upload(&v)?, gpu.alloc_zeroed(1)?),
            AppOutput::InSet(v) => (
                gpu.upload(&v.iter().map(|&b| u32::from(b)).collect::<Vec<_>>())?,
                gpu.alloc_zeroed(1)?,
            ),
            AppOutput::Ranks(v) => (gpu.alloc_zeroed(1)?, gpu.upload(&v)?),
            other => {
                return Err(Error::Input(format!(
                    "cooperative {app}: unexpected reference {}",
                    other.what()
                )))
            }
        };
        Ok(GpuGraphApp {
            app,
            input,
            module,
            rounds,
            expect_u32,
            expect_f64,
            // verify()'s tolerance: both runs are this close to the fixed point.
            check_tol: 2.0 * p.tolerance / (1.0 - p.damping).max(1e-12) + 1e-12,
            checks: gpu.alloc_zeroed(rounds as usize)?,
            iters: gpu.alloc_zeroed(rounds as usize)?,
        })
    }

    /// The application.
    pub fn app(&self) -> AppKind {
        self.app
    }

    /// Iterations of every round of the last launch.
    pub fn iterations(&self) -> Result<Vec<u32>> {
        self.iters.to_vec()
    }

    /// The result of the last round of the last launch.
    pub fn output(&self) -> Result<AppOutput> {
        self.input.output()
    }
}

impl CoopKernel for GpuGraphApp {
    fn name(&self) -> &'static str {
        self.app.name()
    }

    fn module(&self) -> &Module {
        &self.module
    }

    fn kernel(&self) -> &'static str {
        match self.app {
            AppKind::Cc => "coop_cc",
            AppKind::PageRank => "coop_pagerank",
            AppKind::Color => "coop_color",
            _ => "coop_mis",
        }
    }

    fn start(&mut self, mode: BarrierMode, cfg: &CoopConfig) -> Result<Scheduler<'_>> {
        let zero = vec![0u32; self.rounds as usize];
        self.checks.copy_from(&zero)?;
        self.iters.copy_from(&zero)?;
        let mut args = self.input.args(self.input.bound());
        args.push(Arg::from(self.rounds));
        if self.app == AppKind::PageRank {
            args.push(Arg::from(&self.expect_f64));
            args.push(Arg::from(self.check_tol));
        } else {
            args.push(Arg::from(&self.expect_u32));
        }
        args.extend([
            Arg::from(&self.checks),
            Arg::from(&self.iters),
            Arg::from(mode.code()),
        ]);
        Scheduler::start(&self.module, self.kernel(), cfg, &args)
    }

    fn wrong_rounds(&self) -> Result<u32> {
        let checks = self.checks.to_vec()?;
        let iters = self.iters.to_vec()?;
        let bound = self.input.bound();
        Ok(checks
            .iter()
            .zip(&iters)
            .filter(|&(&bad, &it)| {
                bad != 0 || it == 0 || (self.app != AppKind::PageRank && it >= bound)
            })
            .count() as u32)
    }

    fn rounds(&self) -> u32 {
        self.rounds
    }
}
