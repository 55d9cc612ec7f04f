//! Cooperative BFS on CUDA (`bfs.cu`): the graph on the GPU, the launch in each barrier mode,
//! and the verification against a sequential BFS.

use crate::graph::Csr;
use occupant::cuda::coop::{CoopConfig, Scheduler};
use occupant::cuda::{CompileOptions, DeviceBuffer, Gpu, Module};
use occupant::{Error, Result};
use serde::Serialize;
use std::collections::VecDeque;

/// The kernel source (`coop_bfs`): the phase loop (`loop.cuh`), the frontier rounds
/// (`frontier.cuh`) and the BFS expansion (`bfs.cu`).
pub const BFS_CU: &str = concat!(
    include_str!("loop.cuh"),
    include_str!("frontier.cuh"),
    include_str!("bfs.cu")
);
/// The SSSP kernel source (`coop_sssp`, frontier-based Bellman-Ford): the same loop and rounds
/// with the SSSP relaxation (`sssp.cu`).
pub const SSSP_CU: &str = concat!(
    include_str!("loop.cuh"),
    include_str!("frontier.cuh"),
    include_str!("sssp.cu")
);

/// The cooperative graph application.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum App {
    /// Breadth-first search (`bfs.cu`).
    Bfs,
    /// Single-source shortest paths over the edge weights (`sssp.cu`).
    Sssp,
}

impl App {
    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            App::Bfs => "bfs",
            App::Sssp => "sssp",
        }
    }
}

/// Sequential Dijkstra from `src` over `g`'s weights: (vertices reached, sum of distances);
/// `None` when the graph has no weights.
///
/// ```
/// use occupant_apps::coop_cuda::sssp_reference;
/// use occupant_apps::graph::Csr;
/// let g = Csr::from_edges(3, &[(0, 1), (1, 2), (0, 2)], Some(&[2, 3, 9]))?;
/// assert_eq!(sssp_reference(&g, 0), Some((3, 0 + 2 + 5)));
/// # Ok::<(), occupant_apps::graph::CsrError>(())
/// ```
pub fn sssp_reference(g: &Csr, src: u32) -> Option<(u64, u64)> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    g.weights()?;
    let n = g.num_vertices() as usize;
    let mut dist = vec![u64::MAX; n];
    let mut heap = BinaryHeap::new();
    dist[src as usize] = 0;
    heap.push(Reverse((0u64, src)));
    while let Some(Reverse((d, v))) = heap.pop() {
        if d > dist[v as usize] {
            continue;
        }
        let ws = g.edge_weights(v)?;
        for (&u, &w) in g.neighbours(v).iter().zip(ws) {
            let nd = d + u64::from(w);
            if nd < dist[u as usize] {
                dist[u as usize] = nd;
                heap.push(Reverse((nd, u)));
            }
        }
    }
    let reached = dist.iter().filter(|&&d| d != u64::MAX);
    Some((reached.clone().count() as u64, reached.sum()))
}

/// How the BFS kernel synchronises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BarrierMode {
    /// The persistent baseline: a fixed grid, no scheduler interaction.
    Persistent,
    /// Cooperative, every barrier a resizing barrier (regular variant, seed 000 §4.2).
    Regular,
    /// Cooperative, resizing barriers of the `query` variant.
    Query,
}

impl BarrierMode {
    /// The kernel's `mode` argument.
    pub fn code(self) -> u32 {
        match self {
            Self::Persistent => 0,
            Self::Regular => 1,
            Self::Query => 2,
        }
    }

    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Persistent => "persistent",
            Self::Regular => "regular",
            Self::Query => "query",
        }
    }
}

/// How a cooperative graph kernel hands out the items of a phase (loop.cuh's `for_each_item`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Distribution {
    /// By participating id: thread `g.id * blockDim + t` takes items tid, tid + threads, ...
    /// (fixed within an interval); the slowest group sets the pace of the barrier.
    Static,
    /// The first sweep as [`Distribution::Static`], the rest in chunks claimed from a counter
    /// per interval, so a slow group (one sharing its SM with another kernel) takes fewer.
    #[default]
    Dynamic,
}

impl Distribution {
    /// The bit it adds to the kernel's `mode` argument (`OCC_APP_DYNAMIC`).
    pub fn mode_bit(self) -> u32 {
        match self {
            Self::Static => 0,
            Self::Dynamic => 4,
        }
    }

    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Static => "static",
            Self::Dynamic => "dynamic",
        }
    }
}

/// Further choices of the BFS/SSSP launches (kernel mode bits; every combination gives the same
/// results, checked by [`GpuBfs::wrong_rounds`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Tuning {
    /// Spread the interval's thread ids a warp at a time over the groups (loop.cuh
    /// `OCC_APP_SPREAD`): a small phase (a grid BFS level) runs on the first warp of many
    /// groups instead of on groups 0..7, so it no longer depends on the SMs where a launch put
    /// its first groups.
    pub spread: bool,
    /// BFS only: expand four edges at a time with one warp-aggregated queue claim
    /// (bfs.cu `BfsEdge::batch`, mode bit `OCC_APP_BODY_BIT`); SSSP ignores it.
    pub batch: bool,
    /// BFS only, with `batch`: load the graph and the distances with an L2 `evict_last`
    /// policy (bfs.cu `OCC_BFS_KEEP`), so that with L2 set aside for persisting lines
    /// (`Gpu::set_persisting_l2`) they stay while another kernel streams through L2.
    pub keep: bool,
    /// For comparisons: the dynamic distribution's claim counters in the line of the queue
    /// lengths, as before `i12-corun` (loop.cuh `OCC_APP_CLAIMS_NEAR`; group 0 zeroes one in
    /// every interval, a store into the line every group reads and every push increments).
    pub near_claims: bool,
}

impl Tuning {
    /// None of them: the kernel before `i12-corun`.
    pub const PLAIN: Tuning = Tuning {
        spread: false,
        batch: false,
        keep: false,
        near_claims: false,
    };
    /// `spread` and `batch`: the BFS's default since `i12-corun` (on an H100 the grid BFS
    /// alone took 238–241 ms instead of 404–545 ms, and its co-run slowdowns fell below the
    /// goals; `bench/results/nvidia-h100/coop/`).
    pub const CORUN: Tuning = Tuning {
        spread: true,
        batch: true,
        keep: false,
        near_claims: false,
    };

    /// The bits it adds to the kernel's `mode` argument.
    ///
    /// ```
    /// use occupant_apps::coop_cuda::Tuning;
    /// assert_eq!(Tuning::default().mode_bits(), 0);
    /// assert_eq!(Tuning::CORUN.mode_bits(), 8 | 16);
    /// assert_eq!(Tuning { keep: true, ..Tuning::CORUN }.mode_bits(), 8 | 16 | 32);
    /// assert_eq!(Tuning { near_claims: true, ..Tuning::PLAIN }.mode_bits(), 64);
    /// ```
    pub fn mode_bits(self) -> u32 {
        (if self.spread { 8 } else { 0 })
            | (if self.batch { 16 } else { 0 })
            | (if self.keep { 32 } else { 0 })
            | (if self.near_claims { 64 } else { 0 })
    }

    /// Short name: `plain`, `spread`, `batch`, `spread+batch`, with `+keep`; `+near` for
    /// `near_claims`.
    pub fn name(self) -> String {
        let mut s = match (self.spread, self.batch) {
            (false, false) => "plain",
            (true, false) => "spread",
            (false, true) => "batch",
            (true, true) => "spread+batch",
        }
        .to_string();
        if self.keep {
            s.push_str("+keep");
        }
        if self.near_claims {
            s.push_str("+near");
        }
        s
    }
}

/// Sequential BFS from `src`: (vertices reached, sum of their distances).
///
/// ```
/// use occupant_apps::coop_cuda::bfs_reference;
/// use occupant_apps::graph::Csr;
/// let g = Csr::from_edges(4, &[(0, 1), (1, 2), (0, 2)], None)?;
/// assert_eq!(bfs_reference(&g, 0), (3, 0 + 1 + 1));
/// # Ok::<(), occupant_apps::graph::CsrError>(())
/// ```
pub fn bfs_reference(g: &Csr, src: u32) -> (u64, u64) {
    let n = g.num_vertices() as usize;
    let mut dist = vec![u32::MAX; n];
    let mut q = VecDeque::new();
    dist[src as usize] = 0;
    q.push_back(src);
    let (mut reached, mut sum) = (0u64, 0u64);
    while let Some(v) = q.pop_front() {
        let d = dist[v as usize];
        reached += 1;
        sum += u64::from(d);
        for &u in g.neighbours(v) {
            if dist[u as usize] == u32::MAX {
                dist[u as usize] = d + 1;
                q.push_back(u);
            }
        }
    }
    (reached, sum)
}

/// Words of the `lens` buffer: the three queue lengths (frontier.cuh), a spare, and the two
/// claim counters of the dynamic distribution (lens[32], lens[33]; loop.cuh) — 128 bytes
/// apart, so that group 0's store to a claim counter in every interval does not hit the line
/// of the queue lengths (the hottest line of a grid BFS level).
const LENS: usize = 64;

/// A graph and a set of BFS traversals on the GPU, ready to launch as a cooperative kernel.
pub struct GpuBfs {
    app: App,
    module: Module,
    weights: DeviceBuffer<u32>,
    inq: DeviceBuffer<u32>,
    offsets: DeviceBuffer<u32>,
    targets: DeviceBuffer<u32>,
    sources: DeviceBuffer<u32>,
    dist: DeviceBuffer<u32>,
    fa: DeviceBuffer<u32>,
    fb: DeviceBuffer<u32>,
    lens: DeviceBuffer<u32>,
    checks: DeviceBuffer<u64>,
    distribution: Distribution,
    tuning: Tuning,
    n: u32,
    num_sources: u32,
    rounds: u32,
    expected: Vec<(u64, u64)>,
}

impl GpuBfs {
    /// Uploads `graph`, compiles the kernel, and computes the expected result of every source
    /// sequentially. `rounds` traversals, round r from `sources[r % sources.len()]`.
    pub fn new(gpu: &Gpu, graph: &Csr, sources: &[u32], rounds: u32) -> Result<GpuBfs> {
        Self::with_app(gpu, graph, sources, rounds, App::Bfs)
    }

    /// The same for `app` ([`App::Sssp`] needs edge weights: [`Error::Input`] without).
    pub fn with_app(
        gpu: &Gpu,
        graph: &Csr,
        sources: &[u32],
        rounds: u32,
        app: App,
    ) -> Result<GpuBfs> {
        Self::with_options(gpu, graph, sources, rounds, app, &CompileOptions::default())
    }

    /// The same, compiled with `options` (e.g. `-DOCC_COOP_POLL_PAUSE_SHIFT=5`).
    pub fn with_options(
        gpu: &Gpu,
        graph: &Csr,
        sources: &[u32],
        rounds: u32,
        app: App,
        options: &CompileOptions,
    ) -> Result<GpuBfs> {
        let n = graph.num_vertices();
        if n == 0 || sources.is_empty() || sources.iter().any(|&s| s >= n) || rounds == 0 {
            return Err(Error::Input(format!(
                "cooperative BFS needs a non-empty graph, sources in 0..{n} and rounds ≥ 1 ({} sources, {rounds} rounds)",
                sources.len()
            )));
        }
        let (module, expected, weights) = match app {
            App::Bfs => (
                gpu.compile("coop_bfs.cu", BFS_CU, options)?,
                sources.iter().map(|&s| bfs_reference(graph, s)).collect(),
                gpu.alloc_zeroed(1)?,
            ),
            App::Sssp => {
                let w = graph.weights().ok_or_else(|| {
                    Error::Input("cooperative SSSP needs a weighted graph".into())
                })?;
                (
                    gpu.compile("coop_sssp.cu", SSSP_CU, options)?,
                    sources
                        .iter()
                        .map(|&s| sssp_reference(graph, s).unwrap_or((0, 0)))
                        .collect(),
                    if w.is_empty() {
                        gpu.alloc_zeroed(1)?
                    } else {
                        gpu.upload(w)?
                    },
                )
            }
        };
        let targets = if graph.targets().is_empty() {
            gpu.alloc_zeroed(1)?
        } else {
            gpu.upload(graph.targets())?
        };
        Ok(GpuBfs {
            app,
            weights,
            inq: gpu.alloc_zeroed(n as usize)?,
            offsets: gpu.upload(graph.offsets())?,
            targets,
            sources: gpu.upload(sources)?,
            dist: gpu.alloc_zeroed(n as usize)?,
            fa: gpu.alloc_zeroed(n as usize)?,
            fb: gpu.alloc_zeroed(n as usize)?,
            lens: gpu.alloc_zeroed(LENS)?,
            checks: gpu.alloc_zeroed(2 * rounds as usize)?,
            distribution: Distribution::default(),
            tuning: if app == App::Bfs {
                Tuning::CORUN
            } else {
                Tuning::PLAIN
            },
            module,
            n,
            num_sources: sources.len() as u32,
            rounds,
            expected,
        })
    }

    /// The compiled module.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The application.
    pub fn app(&self) -> App {
        self.app
    }

    /// The kernel's name (`coop_bfs` or `coop_sssp`).
    pub fn kernel(&self) -> &'static str {
        match self.app {
            App::Bfs => "coop_bfs",
            App::Sssp => "coop_sssp",
        }
    }

    /// How the launches hand out each phase's items (default [`Distribution::Dynamic`]).
    pub fn set_distribution(&mut self, d: Distribution) {
        self.distribution = d;
    }

    /// The distribution of the next launches.
    pub fn distribution(&self) -> Distribution {
        self.distribution
    }

    /// The further choices of the next launches (default: [`Tuning::CORUN`] for the BFS,
    /// [`Tuning::PLAIN`] for SSSP, whose `spread` is unmeasured).
    pub fn set_tuning(&mut self, t: Tuning) {
        self.tuning = t;
    }

    /// The further choices of the next launches.
    pub fn tuning(&self) -> Tuning {
        self.tuning
    }

    /// Zeroes the per-round checks and the claim counters and launches the kernel under a
    /// scheduler.
    pub fn start(&mut self, mode: BarrierMode, cfg: &CoopConfig) -> Result<Scheduler<'_>> {
        self.checks
            .copy_from(&vec![0u64; 2 * self.rounds as usize])?;
        self.lens.copy_from(&[0u32; LENS])?;
        let kernel = self.kernel();
        let base = occupant::args![
            &self.offsets,
            &self.targets,
            self.n,
            &self.sources,
            self.num_sources,
            self.rounds,
            &self.dist,
            &self.fa,
            &self.fb,
            &self.lens,
            &self.checks,
            mode.code() | self.distribution.mode_bit() | self.tuning.mode_bits()
        ];
        let mut args = base.to_vec();
        if self.app == App::Sssp {
            args.extend(occupant::args![&self.weights, &self.inq]);
        }
        Scheduler::start(&self.module, kernel, cfg, &args)
    }

    /// Traversals per launch.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// Rounds whose (reached, distance sum) differ from the sequential BFS.
    pub fn wrong_rounds(&self) -> Result<u32> {
        let c = self.checks.to_vec()?;
        Ok((0..self.rounds as usize)
            .filter(|&r| {
                let want = self.expected[r % self.expected.len()];
                (c[2 * r], c[2 * r + 1]) != want
            })
            .count() as u32)
    }
}
