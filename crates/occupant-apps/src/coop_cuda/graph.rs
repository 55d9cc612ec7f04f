//! The graph applications cc, pagerank, color, mis (`graph.cu`), bc (`bc.cu`) and
//! sssp-worklist (`sssp_worklist.cu`) as cooperative kernels on CUDA: the phases of the CUDA
//! graph apps (`apps::cuda`, [`GRAPH_APPS_CU`]) in the cooperative phase loop, every global
//! barrier a resizing barrier, `rounds` runs per launch, each checked on the device against the
//! sequential reference.

use super::bfs::BarrierMode;
use super::kernel::CoopKernel;
use crate::apps::cuda::{CudaInput, GRAPH_APPS_CU};
use crate::apps::{reference, AppKind, AppOutput, AppParams};
use crate::graph::Csr;
use occupant::cuda::coop::{CoopConfig, Scheduler};
use occupant::cuda::{Arg, CompileOptions, DeviceBuffer, Gpu, Module};
use occupant::{Error, Result};

/// The cooperative graph kernels (`coop_cc`, `coop_pagerank`, `coop_color`, `coop_mis`,
/// `coop_bc`, `coop_sssp_worklist`); compile after [`GRAPH_APPS_CU`] with `-DOCC_APP_HOST_LOOP`
/// (see [`coop_graph_source`]).
pub const GRAPH_CU: &str = concat!(
    include_str!("loop.cuh"),
    include_str!("graph.cu"),
    include_str!("bc.cu"),
    include_str!("sssp_worklist.cu")
);

/// The graph applications this module runs cooperatively.
pub const COOP_GRAPH_APPS: [AppKind; 6] = [
    AppKind::Cc,
    AppKind::PageRank,
    AppKind::Color,
    AppKind::Mis,
    AppKind::Bc,
    AppKind::SsspWorklist,
];

/// bc's tolerance, relative to max(|reference score|, 1): [`verify`](crate::apps::verify)'s.
const BC_REL_TOL: f64 = 1e-9;

/// The sequential reference on the device, in the type the app's check compares with.
enum Expect {
    /// Labels (cc), colours (color), membership as 0/1 (mis).
    U32(DeviceBuffer<u32>),
    /// Ranks (pagerank, absolute tolerance) or scores (bc, relative tolerance).
    F64(DeviceBuffer<f64>, f64),
    /// Distances (sssp-worklist).
    U64(DeviceBuffer<u64>),
}

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
    /// The source of bc and sssp-worklist (every round the same).
    source: u32,
    expect: Expect,
    checks: DeviceBuffer<u32>,
    iters: DeviceBuffer<u32>,
}

impl GpuGraphApp {
    /// Prepares `app` on `g` (the graph apps' [`CudaInput`]), compiles the kernels and computes
    /// the sequential reference (bc and sssp-worklist from `p.source`). [`Error::Input`] for
    /// another app, an empty graph, 0 rounds or a source outside the graph;
    /// [`Error::Unsupported`] for bc on a graph whose shortest-path counts overflow `f64`.
    pub fn new(gpu: &Gpu, app: AppKind, g: &Csr, p: &AppParams, rounds: u32) -> Result<Self> {
        let n = g.num_vertices();
        let sourced = matches!(app, AppKind::Bc | AppKind::SsspWorklist);
        if !COOP_GRAPH_APPS.contains(&app) || n == 0 || rounds == 0 || (sourced && p.source >= n) {
            return Err(Error::Input(format!(
                "cooperative graph app: {app} on {n} vertices, {rounds} rounds, source {} (apps: cc, pagerank, color, mis, bc, sssp-worklist; a non-empty graph; rounds ≥ 1; bc and sssp-worklist: a source in the graph)",
                p.source
            )));
        }
        let input = CudaInput::prepare(gpu, app, g, p)?;
        let module = gpu.compile(
            "coop_graph.cu",
            &coop_graph_source(),
            &CompileOptions::default().option("-DOCC_APP_HOST_LOOP"),
        )?;
        let expect = match reference(app, g, p) {
            AppOutput::Labels(v) | AppOutput::Colors(v) => Expect::U32(gpu.upload(&v)?),
            AppOutput::InSet(v) => {
                Expect::U32(gpu.upload(&v.iter().map(|&b| u32::from(b)).collect::<Vec<_>>())?)
            }
            // verify()'s tolerance: both runs are this close to the fixed point.
            AppOutput::Ranks(v) => Expect::F64(
                gpu.upload(&v)?,
                2.0 * p.tolerance / (1.0 - p.damping).max(1e-12) + 1e-12,
            ),
            AppOutput::Scores(v) => {
                if let Some(x) = v.iter().position(|x| !x.is_finite()) {
                    return Err(Error::Unsupported(format!(
                        "cooperative bc: the shortest-path counts of this graph overflow f64 (vertex {x} has score {}); use a graph with fewer shortest paths",
                        v[x]
                    )));
                }
                Expect::F64(gpu.upload(&v)?, BC_REL_TOL)
            }
            AppOutput::Distances(v) => Expect::U64(gpu.upload(&v)?),
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
            source: p.source,
            expect,
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
            AppKind::Bc => "coop_bc",
            AppKind::SsspWorklist => "coop_sssp_worklist",
            _ => "coop_mis",
        }
    }

    fn start(&mut self, mode: BarrierMode, cfg: &CoopConfig) -> Result<Scheduler<'_>> {
        let zero = vec![0u32; self.rounds as usize];
        self.checks.copy_from(&zero)?;
        self.iters.copy_from(&zero)?;
        let mut args = self.input.args(self.input.bound());
        args.push(Arg::from(self.rounds));
        if self.app == AppKind::Bc {
            args.push(Arg::from(self.source));
        }
        match &self.expect {
            Expect::U32(e) => args.push(Arg::from(e)),
            Expect::F64(e, tol) => args.extend([Arg::from(e), Arg::from(*tol)]),
            Expect::U64(e) => args.push(Arg::from(e)),
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
