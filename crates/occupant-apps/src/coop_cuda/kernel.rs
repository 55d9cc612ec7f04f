//! [`CoopKernel`]: what the multitasking runner and the tests need of a cooperative application
//! on CUDA — its module and kernel, a launch under a scheduler, and the check of its results.

use super::bfs::{BarrierMode, Distribution, GpuBfs, Tuning};
use occupant::cuda::coop::{CoopConfig, Scheduler};
use occupant::cuda::Module;
use occupant::Result;

/// A cooperative application on the GPU, ready to launch again and again (each launch runs
/// its whole work; its results are checked against a sequential reference afterwards).
pub trait CoopKernel {
    /// The application's name (`bfs`, `cc`, `octree`, ...).
    fn name(&self) -> &'static str;
    /// The compiled module.
    fn module(&self) -> &Module;
    /// The kernel's name in [`CoopKernel::module`].
    fn kernel(&self) -> &'static str;
    /// Resets the results and launches the kernel under a scheduler: [`BarrierMode::Persistent`]
    /// runs it without the scheduler's kills and forks (the persistent baseline), the others
    /// cooperatively (graph apps: with that resizing-barrier variant; work-stealing apps:
    /// `offer_kill`/`request_fork` before every task, the variant does not matter).
    fn start(&mut self, mode: BarrierMode, cfg: &CoopConfig) -> Result<Scheduler<'_>>;
    /// Rounds (repetitions of the work inside one launch) whose result differed from the
    /// sequential reference, after [`Scheduler::finish`]. Must be 0.
    fn wrong_rounds(&self) -> Result<u32>;
    /// Rounds per launch.
    fn rounds(&self) -> u32;
    /// Sets how the next launches hand out each phase's items; false when the application
    /// has only the static split (then nothing changes).
    fn set_distribution(&mut self, d: Distribution) -> bool {
        d == Distribution::Static
    }
    /// Sets the further choices of the next launches ([`Tuning`]: BFS/SSSP only); false when
    /// the application has none (then nothing changes).
    fn set_tuning(&mut self, t: Tuning) -> bool {
        t == Tuning::default()
    }
    /// The further choices of the next launches ([`Tuning::PLAIN`] for the apps without any).
    fn tuning(&self) -> Tuning {
        Tuning::PLAIN
    }
}

impl CoopKernel for GpuBfs {
    fn name(&self) -> &'static str {
        self.app().name()
    }
    fn module(&self) -> &Module {
        GpuBfs::module(self)
    }
    fn kernel(&self) -> &'static str {
        GpuBfs::kernel(self)
    }
    fn start(&mut self, mode: BarrierMode, cfg: &CoopConfig) -> Result<Scheduler<'_>> {
        GpuBfs::start(self, mode, cfg)
    }
    fn wrong_rounds(&self) -> Result<u32> {
        GpuBfs::wrong_rounds(self)
    }
    fn rounds(&self) -> u32 {
        GpuBfs::rounds(self)
    }
    fn set_distribution(&mut self, d: Distribution) -> bool {
        GpuBfs::set_distribution(self, d);
        true
    }
    fn set_tuning(&mut self, t: Tuning) -> bool {
        GpuBfs::set_tuning(self, t);
        true
    }
    fn tuning(&self) -> Tuning {
        GpuBfs::tuning(self)
    }
}

/// Every application `occupant multitask --backend cuda --app A` runs.
pub const COOP_CUDA_APPS: [&str; 10] = [
    "bfs",
    "sssp",
    "cc",
    "pagerank",
    "color",
    "mis",
    "bc",
    "sssp-worklist",
    "octree",
    "game",
];

/// How [`coop_app`] sizes an application.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AppSize {
    /// Rounds per launch: traversals (bfs, sssp), runs (cc, pagerank, color, mis; bc and
    /// sssp-worklist, each from the first source), point-set
    /// instances (octree), roots (game: 49 distinct positions, repeated beyond).
    pub rounds: u32,
    /// Octree points.
    pub points: usize,
    /// Game depth in plies (tasks down to [`game_split`] plies).
    pub depth: u32,
}

/// The plies a game search of `depth` expands as tasks: min(4, depth) (what the H100 runs
/// measured; below them a task searches depth − 4 plies, at depth 10 about 12 ms — the game's
/// gather time, see `bench/results/nvidia-h100/coop/run-623ac75-apps/`).
///
/// ```
/// use occupant_apps::coop_cuda::game_split;
/// assert_eq!((game_split(3), game_split(10)), (3, 4));
/// ```
pub fn game_split(depth: u32) -> u32 {
    depth.min(4)
}

/// Builds application `name` (one of [`COOP_CUDA_APPS`]) on the GPU: the graph apps on
/// `graph` (bfs and sssp from `sources`, bc and sssp-worklist from the first of them, or vertex 0
/// when there is none; [`Error::Input`](occupant::Error::Input) without a graph), octree and
/// game from `size`.
pub fn coop_app(
    gpu: &occupant::cuda::Gpu,
    name: &str,
    graph: Option<&crate::graph::Csr>,
    sources: &[u32],
    size: AppSize,
) -> Result<Box<dyn CoopKernel>> {
    use crate::apps::{AppKind, AppParams};
    use crate::coop::game::GameParams;
    use crate::coop::octree::OctreeParams;
    let need = || {
        graph.ok_or_else(|| {
            occupant::Error::Input(format!(
                "cooperative {name} needs a graph (--graph or --gen)"
            ))
        })
    };
    Ok(match name {
        "bfs" => Box::new(GpuBfs::new(gpu, need()?, sources, size.rounds)?),
        "sssp" => Box::new(GpuBfs::with_app(
            gpu,
            need()?,
            sources,
            size.rounds,
            super::bfs::App::Sssp,
        )?),
        "cc" | "pagerank" | "color" | "mis" | "bc" | "sssp-worklist" => {
            let kind = AppKind::parse(name).expect("a graph app's name");
            let params = AppParams {
                source: sources.first().copied().unwrap_or(0),
                ..AppParams::default()
            };
            Box::new(super::graph::GpuGraphApp::new(
                gpu,
                kind,
                need()?,
                &params,
                size.rounds,
            )?)
        }
        "octree" => Box::new(super::octree::GpuOctree::new(
            gpu,
            &OctreeParams {
                points: size.points,
                ..OctreeParams::default()
            },
            size.rounds,
        )?),
        "game" => Box::new(super::game::GpuGame::new(
            gpu,
            &GameParams {
                depth: size.depth,
                split: game_split(size.depth),
            },
            size.rounds,
        )?),
        other => {
            return Err(occupant::Error::Input(format!(
                "no cooperative CUDA app `{other}` (apps: {})",
                COOP_CUDA_APPS.join(", ")
            )))
        }
    })
}
