//! Running one application on one prepared input in one CUDA variant.

use super::device_graph::{
    tile_cost_prefix_with, DeviceGraph, DEFAULT_HEAVY_DEGREE, PR_STATIC_PERCENT, TILE_COST,
};
use super::programs::AppPrograms;
use super::trace::BarrierTrace;
use crate::apps::prep::{priorities, weights_or_unit};
use crate::apps::{AppKind, AppOutput, AppParams, RunReport, Variant};
use crate::graph::Csr;
use occupant::cuda::{Arg, DeviceBuffer, Gpu, LaunchConfig, LaunchMode, PinnedScalar};
use occupant::{Error, Result};
use std::time::Instant;

mod bc;
mod worklist;

/// Threads per block of every CUDA application kernel.
pub const BLOCK_THREADS: usize = 256;

/// Control words (`ctl` in graph_apps.cu): flags 0..3; iteration, done, iterations at 32..35
/// (their own 128-byte line); the device loops' tile claim counters at
/// 64..67, a line of their own.
const K_DONE: usize = 33;
const K_ITERS: usize = 34;
const CTL_WORDS: usize = 96;

/// Iterations captured per CUDA graph (the loop body unrolled; replays after the end are
/// no-ops), and the most replays queued between two reads of the `done` word.
const GRAPH_UNROLL: usize = 8;
const GRAPH_MAX_BATCH: u64 = 16;

/// Iterations per run of the graph-while variant's body: one body run costs ≈ 3 µs on an H100
/// besides its kernels (`while_graph_loops_on_the_device`: 5.4 µs per run of two tiny kernels),
/// which a body of one iteration paid every iteration (stencil bfs: 10.0 vs the unrolled graph's
/// 7.3 µs per iteration); unrolled as the graph variant is, the two differ only in how the loop
/// ends (a WHILE node vs the host reading `done` between batches of replays).
const WHILE_UNROLL: usize = 8;

/// The CUDA applications (every [`AppKind`]; bc and sssp-worklist live in `bc.cu` and
/// `sssp_worklist.cu`).
pub const CUDA_APPS: [AppKind; 8] = [
    AppKind::Bfs,
    AppKind::Sssp,
    AppKind::Cc,
    AppKind::PageRank,
    AppKind::Color,
    AppKind::Mis,
    AppKind::Bc,
    AppKind::SsspWorklist,
];

/// Per-application device state, allocated once per input and re-initialised before each run
/// (one per input: the size difference of the variants does not matter).
#[allow(clippy::large_enum_variant)]
enum State {
    Bfs {
        level: DeviceBuffer<u32>,
        init: Vec<u32>,
    },
    Sssp {
        dist: DeviceBuffer<u64>,
        stamp: DeviceBuffer<u32>,
        init_dist: Vec<u64>,
        init_stamp: Vec<u32>,
    },
    Cc {
        label: DeviceBuffer<u32>,
        stamp: DeviceBuffer<u32>,
        init_label: Vec<u32>,
    },
    /// color (state: colour, undecided = u32::MAX) and mis (state: 0 undecided, 1 in, 2 out).
    Rounds {
        state: DeviceBuffer<u32>,
        prio: DeviceBuffer<u32>,
        lost: DeviceBuffer<u32>,
        init_state: Vec<u32>,
        init_lost: Vec<u32>,
    },
    PageRank {
        rank: DeviceBuffer<f64>,
        contrib: DeviceBuffer<f64>,
        inv_deg: DeviceBuffer<f64>,
        acc: DeviceBuffer<f64>,
        /// L1 change of the ranks, per iteration mod 3.
        l1: DeviceBuffer<f64>,
        /// Prefix sums of the tiles' costs ([`tile_cost_prefix_with`]): the device loops' split.
        tile_cost: DeviceBuffer<u64>,
        init_rank: Vec<f64>,
        init_contrib: Vec<f64>,
        base: f64,
        damping: f64,
        tolerance: f64,
    },
    Bc(bc::BcState),
    Worklist(worklist::WorklistState),
}

/// One application's input on the GPU: the graph it runs on (the input, its undirected
/// version for cc, its transpose for pagerank) and its state. Prepare once, run many times.
pub struct CudaInput {
    gpu: Gpu,
    app: AppKind,
    params: AppParams,
    graph: DeviceGraph,
    input_vertices: u32,
    input_edges: u64,
    state: State,
    ctl: DeviceBuffer<u32>,
    flag: PinnedScalar<u32>,
    l1: PinnedScalar<f64>,
}

impl CudaInput {
    /// Prepares `app` on `g`: builds the graph the app runs on, uploads it and allocates the
    /// state. [`Error::Input`] for an application not ported to CUDA yet.
    pub fn prepare(gpu: &Gpu, app: AppKind, g: &Csr, p: &AppParams) -> Result<CudaInput> {
        let n = g.num_vertices();
        let nu = n as usize;
        let (graph, state) = match app {
            AppKind::Bfs => {
                let mut init = vec![u32::MAX; nu];
                if p.source < n {
                    init[p.source as usize] = 0;
                }
                (
                    DeviceGraph::upload(gpu, g, None, DEFAULT_HEAVY_DEGREE)?,
                    State::Bfs {
                        level: gpu.alloc_zeroed(nu)?,
                        init,
                    },
                )
            }
            AppKind::Sssp => {
                let w = weights_or_unit(g);
                let mut init_dist = vec![u64::MAX; nu];
                let mut init_stamp = vec![u32::MAX; nu];
                if p.source < n {
                    init_dist[p.source as usize] = 0;
                    init_stamp[p.source as usize] = 0;
                }
                (
                    DeviceGraph::upload(gpu, g, Some(&w), DEFAULT_HEAVY_DEGREE)?,
                    State::Sssp {
                        dist: gpu.alloc_zeroed(nu)?,
                        stamp: gpu.alloc_zeroed(nu)?,
                        init_dist,
                        init_stamp,
                    },
                )
            }
            AppKind::Cc => {
                // Connectivity is all cc reads: the parallel symmetrisation (self-loops and
                // duplicates dropped) has the components of prep::undirected.
                let u = g
                    .symmetrized(true, true)
                    .map_err(|e| Error::Input(format!("cc: symmetrising the input: {e}")))?;
                (
                    DeviceGraph::upload(gpu, &u, None, DEFAULT_HEAVY_DEGREE)?,
                    State::Cc {
                        label: gpu.alloc_zeroed(nu)?,
                        stamp: gpu.alloc_zeroed(nu)?,
                        init_label: (0..n).collect(),
                    },
                )
            }
            AppKind::PageRank => {
                let t = g.transpose(); // parallel; keeps duplicate edges
                let inv: Vec<f64> = (0..n)
                    .map(|u| match g.degree(u) {
                        0 => 0.0,
                        d => 1.0 / f64::from(d),
                    })
                    .collect();
                let r0 = if n == 0 { 0.0 } else { 1.0 / f64::from(n) };
                let mut init_contrib: Vec<f64> = inv.iter().map(|&i| r0 * i).collect();
                init_contrib.resize(2 * nu, 0.0);
                let dg = DeviceGraph::upload(gpu, &t, None, DEFAULT_HEAVY_DEGREE)?;
                let acc = gpu.alloc_zeroed(dg.heavy_vertices() as usize)?;
                let tile_cost = gpu.upload(&tile_cost_prefix_with(
                    &t,
                    DEFAULT_HEAVY_DEGREE,
                    tile_cost()?,
                    static_percent()?,
                ))?;
                (
                    dg,
                    State::PageRank {
                        rank: gpu.alloc_zeroed(nu)?,
                        contrib: gpu.alloc_zeroed(2 * nu)?,
                        inv_deg: if inv.is_empty() {
                            gpu.alloc_zeroed(1)?
                        } else {
                            gpu.upload(&inv)?
                        },
                        acc,
                        l1: gpu.alloc_zeroed(3)?,
                        tile_cost,
                        init_rank: vec![r0; nu],
                        init_contrib,
                        base: if n == 0 {
                            0.0
                        } else {
                            (1.0 - p.damping) / f64::from(n)
                        },
                        damping: p.damping,
                        tolerance: p.tolerance,
                    },
                )
            }
            AppKind::Color | AppKind::Mis => {
                // The neighbour sets of prep::undirected (self-loops and duplicates dropped).
                let u = g
                    .symmetrized(true, true)
                    .map_err(|e| Error::Input(format!("{app}: symmetrising the input: {e}")))?;
                let undecided = if app == AppKind::Color { u32::MAX } else { 0 };
                let prio = priorities(n, p.seed);
                (
                    DeviceGraph::upload(gpu, &u, None, DEFAULT_HEAVY_DEGREE)?,
                    State::Rounds {
                        state: gpu.alloc_zeroed(nu)?,
                        prio: if prio.is_empty() {
                            gpu.alloc_zeroed(1)?
                        } else {
                            gpu.upload(&prio)?
                        },
                        lost: gpu.alloc_zeroed(nu)?,
                        init_state: vec![undecided; nu],
                        init_lost: vec![u32::MAX; nu],
                    },
                )
            }
            AppKind::Bc => {
                let (dg, st) = bc::BcState::prepare(gpu, g, p)?;
                (dg, State::Bc(st))
            }
            AppKind::SsspWorklist => {
                let (dg, st) = worklist::WorklistState::prepare(gpu, g, p)?;
                (dg, State::Worklist(st))
            }
        };
        Ok(CudaInput {
            gpu: gpu.clone(),
            app,
            params: *p,
            graph,
            input_vertices: n,
            input_edges: g.num_edges() as u64,
            state,
            ctl: gpu.alloc_zeroed(CTL_WORDS)?,
            flag: gpu.pinned_scalar()?,
            l1: gpu.pinned_scalar()?,
        })
    }

    /// The graph the application runs on, as uploaded.
    pub fn device_graph(&self) -> &DeviceGraph {
        &self.graph
    }

    /// The application.
    pub fn app(&self) -> AppKind {
        self.app
    }

    /// Writes the initial state and clears the control words; waits until done.
    fn reset(&mut self) -> Result<()> {
        match &mut self.state {
            State::Bfs { level, init } => level.copy_from(init)?,
            State::Sssp {
                dist,
                stamp,
                init_dist,
                init_stamp,
            } => {
                dist.copy_from(init_dist)?;
                stamp.copy_from(init_stamp)?;
            }
            State::Cc {
                label,
                stamp,
                init_label,
            } => {
                label.copy_from(init_label)?;
                stamp.zero()?;
            }
            State::Rounds {
                state,
                lost,
                init_state,
                init_lost,
                ..
            } => {
                state.copy_from(init_state)?;
                lost.copy_from(init_lost)?;
            }
            State::PageRank {
                rank,
                contrib,
                acc,
                l1,
                init_rank,
                init_contrib,
                ..
            } => {
                rank.copy_from(init_rank)?;
                contrib.copy_from(init_contrib)?;
                acc.zero()?;
                l1.zero()?;
            }
            State::Bc(st) => st.reset()?,
            State::Worklist(st) => st.reset()?,
        }
        self.ctl.zero()?;
        self.gpu.synchronize()
    }

    /// The kernel-name prefix.
    fn prefix(&self) -> &'static str {
        match self.app {
            AppKind::Bfs => "bfs",
            AppKind::Sssp => "sssp",
            AppKind::Cc => "cc",
            AppKind::Color => "color",
            AppKind::Mis => "mis",
            AppKind::Bc => "bc",
            AppKind::SsspWorklist => "sssp_worklist",
            _ => "pagerank",
        }
    }

    /// Phases per iteration (kernels `<prefix>_step` or `pagerank_step0/1`).
    fn step_kernels(&self) -> Vec<&'static str> {
        match self.app {
            AppKind::Bfs => vec!["bfs_step"],
            AppKind::Sssp => vec!["sssp_step"],
            AppKind::Cc => vec!["cc_step"],
            AppKind::Color => vec!["color_step0", "color_step1"],
            AppKind::Mis => vec!["mis_step0", "mis_step1", "mis_step2"],
            AppKind::Bc => vec!["bc_step"],
            AppKind::SsspWorklist => vec!["sssp_worklist_step"],
            _ if self.graph.heavy_vertices() == 0 => vec!["pagerank_step0"],
            _ => vec!["pagerank_step0", "pagerank_step1"],
        }
    }

    /// The most iterations a run may take: max_iterations for pagerank, n + 2 for the others
    /// (they converge within n + 1).
    pub(crate) fn bound(&self) -> u32 {
        match self.app {
            AppKind::PageRank => self.params.max_iterations.max(1),
            // Forward to the deepest level F < n, then F backward steps.
            AppKind::Bc => self.input_vertices.saturating_mul(2).saturating_add(2),
            _ => self.input_vertices.saturating_add(2),
        }
    }

    /// Kernel arguments: the graph, the state, ctl, `it` (or max_iterations), the scalars.
    pub(crate) fn args(&self, it: u32) -> Vec<Arg<'_>> {
        let mut a = self.graph.args();
        let mut tail = Vec::new();
        match &self.state {
            State::Bfs { level, .. } => a.push(Arg::from(level)),
            State::Sssp { dist, stamp, .. } => {
                a.push(Arg::from(dist));
                a.push(Arg::from(stamp));
            }
            State::Cc { label, stamp, .. } => {
                a.push(Arg::from(label));
                a.push(Arg::from(stamp));
            }
            State::Rounds {
                state, prio, lost, ..
            } => {
                a.push(Arg::from(state));
                a.push(Arg::from(prio));
                a.push(Arg::from(lost));
            }
            State::PageRank {
                rank,
                contrib,
                inv_deg,
                acc,
                l1,
                tile_cost,
                base,
                damping,
                tolerance,
                ..
            } => {
                a.extend([
                    Arg::from(rank),
                    Arg::from(contrib),
                    Arg::from(inv_deg),
                    Arg::from(acc),
                    Arg::from(l1),
                    Arg::from(tile_cost),
                ]);
                tail.extend([Arg::from(*base), Arg::from(*damping), Arg::from(*tolerance)]);
            }
            State::Bc(st) => st.args(&mut a),
            State::Worklist(st) => st.args(&mut a),
        }
        a.push(Arg::from(&self.ctl));
        a.push(Arg::from(it));
        a.extend(tail);
        a
    }

    /// The result, read back.
    pub(crate) fn output(&self) -> Result<AppOutput> {
        let n = self.input_vertices as usize;
        fn take<T>(mut v: Vec<T>, n: usize) -> Vec<T> {
            v.truncate(n);
            v
        }
        Ok(match &self.state {
            State::Bfs { level, .. } => AppOutput::Levels(take(level.to_vec()?, n)),
            State::Sssp { dist, .. } => AppOutput::Distances(take(dist.to_vec()?, n)),
            State::Cc { label, .. } => AppOutput::Labels(take(label.to_vec()?, n)),
            State::PageRank { rank, .. } => AppOutput::Ranks(take(rank.to_vec()?, n)),
            State::Rounds { state, .. } if self.app == AppKind::Color => {
                AppOutput::Colors(take(state.to_vec()?, n))
            }
            State::Rounds { state, .. } => AppOutput::InSet(
                take(state.to_vec()?, n)
                    .into_iter()
                    .map(|s| s == 1)
                    .collect(),
            ),
            State::Bc(st) => st.output(n)?,
            State::Worklist(st) => st.output(n)?,
        })
    }

    /// Runs the application once in `variant` (state re-initialised first) and returns its
    /// output and report (`graph` left empty: the caller names the input; `verified` None).
    pub fn run(&mut self, progs: &AppPrograms, variant: Variant) -> Result<(AppOutput, RunReport)> {
        if !variant.is_cuda() {
            return Err(Error::Input(format!(
                "{} is not a CUDA variant",
                variant.name()
            )));
        }
        self.reset()?;
        let mut participants = None;
        let mut barrier_trace = None;
        let (iterations, secs) = if self.input_vertices == 0 {
            (0, 0.0)
        } else {
            match variant {
                Variant::CudaMultiKernel if self.app == AppKind::SsspWorklist => {
                    worklist::multi_kernel(self, progs)?
                }
                Variant::CudaMultiKernel => self.multi_kernel(progs)?,
                Variant::CudaGraph => self.graph_replay(progs)?,
                Variant::CudaGraphWhile => self.graph_while(progs)?,
                _ => {
                    let (it, s, p) = self.device_loop(progs, variant)?;
                    participants = p;
                    barrier_trace = BarrierTrace::read(progs.device.module())?;
                    (it, s)
                }
            }
        };
        if self.app != AppKind::PageRank && iterations >= self.bound() {
            return Err(Error::Input(format!(
                "{} did not converge within {} iterations",
                self.app,
                self.bound()
            )));
        }
        let out = self.output()?;
        let report = RunReport {
            app: self.app.name().to_string(),
            backend: "cuda".into(),
            variant: variant.name().to_string(),
            graph: String::new(),
            vertices: self.input_vertices,
            edges: self.input_edges,
            iterations,
            time_ms: secs * 1e3,
            edges_per_s: if secs > 0.0 {
                self.input_edges as f64 / secs
            } else {
                0.0
            },
            participants,
            reached: Some(out.reached()),
            verified: None,
            barrier_trace,
        };
        Ok((out, report))
    }

    /// Host loop: one launch per phase, the iteration's flag read back after it.
    fn multi_kernel(&self, progs: &AppPrograms) -> Result<(u32, f64)> {
        let tiles = self.input_vertices.div_ceil(32) as usize;
        let blocks = tiles.div_ceil(BLOCK_THREADS / 32).max(1);
        let cfg = LaunchConfig::plain(blocks, BLOCK_THREADS);
        let kernels = self.step_kernels();
        let bound = self.bound();
        let t0 = Instant::now();
        let mut it = 0u32;
        loop {
            let args = self.args(it);
            for k in &kernels {
                progs.host.enqueue(k, &cfg, &args)?;
            }
            let converged = self.converged(it)?;
            it += 1;
            if converged || it >= bound {
                break;
            }
        }
        Ok((it, t0.elapsed().as_secs_f64()))
    }

    /// Whether iteration `it` ended the run (its flag stayed clear; pagerank: its L1 change is
    /// at most the tolerance), read back.
    fn converged(&self, it: u32) -> Result<bool> {
        let slot = (it % 3) as usize;
        match &self.state {
            State::PageRank { l1, tolerance, .. } => Ok(self.l1.read(l1, slot)? <= *tolerance),
            _ => Ok(self.flag.read(&self.ctl, slot)? == 0),
        }
    }

    /// The loop body (phases + app_advance) captured once as a CUDA graph — unrolled
    /// [`GRAPH_UNROLL`] times — and replayed in batches of up to [`GRAPH_MAX_BATCH`]; `done` is
    /// read back after each batch (iterations after the end return at once).
    fn graph_replay(&self, progs: &AppPrograms) -> Result<(u32, f64)> {
        let tiles = self.input_vertices.div_ceil(32) as usize;
        let blocks = tiles.div_ceil(BLOCK_THREADS / 32).max(1);
        let cfg = LaunchConfig::plain(blocks, BLOCK_THREADS);
        let kernels = self.step_kernels();
        let bound = self.bound();
        let args = self.args(u32::MAX);
        let (adv_kernel, adv) = self.advance_args(false);
        let graph = self.gpu.capture(|| {
            for _ in 0..GRAPH_UNROLL {
                for k in &kernels {
                    progs.host.enqueue(k, &cfg, &args)?;
                }
                progs
                    .host
                    .enqueue(adv_kernel, &LaunchConfig::plain(1, 32), &adv)?;
            }
            Ok(())
        })?;
        let t0 = Instant::now();
        let mut batch = 1u64;
        let mut launched = 0u64;
        loop {
            for _ in 0..batch {
                graph.launch()?;
            }
            launched += batch;
            if self.flag.read(&self.ctl, K_DONE)? != 0 {
                break;
            }
            if launched * GRAPH_UNROLL as u64 > u64::from(bound) + 64 {
                return Err(Error::Input(format!(
                    "graph variant: no end after {launched} replays"
                )));
            }
            batch = (batch * 2).min(GRAPH_MAX_BATCH);
        }
        let secs = t0.elapsed().as_secs_f64();
        Ok((self.flag.read(&self.ctl, K_ITERS)?, secs))
    }

    /// The kernel ending an iteration of the graph variants (`app_advance` /
    /// `pagerank_advance`; with `while_node`, the `_while` kernel that also sets the WHILE
    /// node's condition — its handle is the last argument, added by the caller) and its
    /// arguments.
    fn advance_args(&self, while_node: bool) -> (&'static str, Vec<Arg<'_>>) {
        let bound = self.bound();
        match &self.state {
            State::PageRank { l1, tolerance, .. } => (
                if while_node {
                    "pagerank_advance_while"
                } else {
                    "pagerank_advance"
                },
                vec![
                    Arg::from(&self.ctl),
                    Arg::from(l1),
                    Arg::from(bound),
                    Arg::from(*tolerance),
                ],
            ),
            _ => (
                if while_node {
                    "app_advance_while"
                } else {
                    "app_advance"
                },
                vec![Arg::from(&self.ctl), Arg::from(bound)],
            ),
        }
    }

    /// The loop body (phases + advance, [`WHILE_UNROLL`] times; the last advance is the
    /// `_while` kernel, which sets the condition) captured once as the body of a CUDA graph
    /// WHILE node ([`occupant::cuda::WhileGraph`]) and launched once: the device repeats it
    /// until the run is done, with no host round trip (iterations after the end return at
    /// once). The loop ends by construction: the advance kernel clears the condition at the
    /// bound.
    fn graph_while(&self, progs: &AppPrograms) -> Result<(u32, f64)> {
        let module = progs.graph_while()?;
        let tiles = self.input_vertices.div_ceil(32) as usize;
        let blocks = tiles.div_ceil(BLOCK_THREADS / 32).max(1);
        let cfg = LaunchConfig::plain(blocks, BLOCK_THREADS);
        let kernels = self.step_kernels();
        let args = self.args(u32::MAX);
        let (adv_kernel, adv) = self.advance_args(false);
        let (while_kernel, mut adv_while) = self.advance_args(true);
        let one = LaunchConfig::plain(1, 32);
        let graph = self.gpu.capture_while(|cond| {
            adv_while.push(Arg::from(cond.raw()));
            for i in 0..WHILE_UNROLL {
                for k in &kernels {
                    module.enqueue(k, &cfg, &args)?;
                }
                if i + 1 < WHILE_UNROLL {
                    module.enqueue(adv_kernel, &one, &adv)?;
                } else {
                    module.enqueue(while_kernel, &one, &adv_while)?;
                }
            }
            Ok(())
        })?;
        let t0 = Instant::now();
        graph.launch()?;
        self.gpu.synchronize()?;
        let secs = t0.elapsed().as_secs_f64();
        if self.flag.read(&self.ctl, K_DONE)? == 0 {
            return Err(Error::Input(
                "graph-while variant: the loop ended before the run was done".into(),
            ));
        }
        Ok((self.flag.read(&self.ctl, K_ITERS)?, secs))
    }

    /// One launch running every iteration on the device (persistent, occupancy-api,
    /// cooperative).
    fn device_loop(
        &self,
        progs: &AppPrograms,
        variant: Variant,
    ) -> Result<(u32, f64, Option<u32>)> {
        let bound = self.bound();
        let args = self.args(bound);
        let name = |suffix: &str| format!("{}_{suffix}", self.prefix());
        let module = progs.device.module();
        let (secs, participants) = match variant {
            Variant::CudaPersistent => {
                let r = progs
                    .device
                    .launch(&name("persistent"), BLOCK_THREADS, &args)?;
                (r.elapsed_us * 1e-6, Some(r.participants))
            }
            Variant::CudaCooperative => {
                if !progs.cooperative {
                    return Err(Error::NoDevice {
                        reason: "the cooperative variant needs the CUDA toolkit headers (cooperative_groups.h); set CUDA_HOME".into(),
                    });
                }
                let r = module.launch(
                    &name("cooperative"),
                    &LaunchConfig::new(LaunchMode::Cooperative, BLOCK_THREADS),
                    &args,
                )?;
                (r.elapsed_us * 1e-6, None)
            }
            _ => {
                let k = name("occupancy");
                let per_sm = module.max_active_blocks_per_sm(&k, BLOCK_THREADS as u32, 0)?;
                let blocks = (per_sm * self.gpu.info().sm_count) as usize;
                let barrier: DeviceBuffer<u32> = self
                    .gpu
                    .alloc_zeroed(progs.device.barrier().state_words(blocks))?;
                let mut a = vec![Arg::from(&barrier)];
                a.extend(args.iter().copied());
                let r = module.launch(
                    &k,
                    &LaunchConfig::new(LaunchMode::OccupancyApi, BLOCK_THREADS),
                    &a,
                )?;
                (r.elapsed_us * 1e-6, None)
            }
        };
        let iterations = self.flag.read(&self.ctl, K_ITERS)?;
        Ok((iterations, secs, participants))
    }
}

/// Runs `app` on `g` in the CUDA `variant` once: compiles (cached), prepares, runs. For
/// repeated runs keep an [`AppPrograms`] and a [`CudaInput`] instead.
pub fn run_cuda(
    gpu: &Gpu,
    app: AppKind,
    variant: Variant,
    g: &Csr,
    p: &AppParams,
) -> Result<(AppOutput, RunReport)> {
    let progs = AppPrograms::compile(gpu, None)?;
    let mut input = CudaInput::prepare(gpu, app, g, p)?;
    input.run(&progs, variant)
}

/// The fixed cost of a tile in pagerank's split: [`TILE_COST`], or `OCCUPANT_APP_TILE_COST`
/// when set (experiments).
fn tile_cost() -> Result<u64> {
    experiment_setting(
        "OCCUPANT_APP_TILE_COST",
        TILE_COST,
        |c| c >= 1,
        "a whole number of edges, at least 1 (a tile of zero cost would not belong to exactly \
         one warp's range)",
    )
}

/// The statically split share of pagerank's tile cost: [`PR_STATIC_PERCENT`], or
/// `OCCUPANT_APP_PR_STATIC` when set (experiments).
fn static_percent() -> Result<u32> {
    experiment_setting(
        "OCCUPANT_APP_PR_STATIC",
        PR_STATIC_PERCENT,
        |p| p <= 100,
        "a percentage from 0 to 100 (the share of pagerank's tile cost split statically)",
    )
}

/// The environment variable `name` read as a number `valid` accepts, or `default` when unset;
/// an input error naming the variable, what was `expected` and the default otherwise.
fn experiment_setting<T>(
    name: &str,
    default: T,
    valid: impl Fn(T) -> bool,
    expected: &str,
) -> Result<T>
where
    T: std::str::FromStr + std::fmt::Display + Copy,
{
    match std::env::var(name) {
        Err(_) => Ok(default),
        Ok(v) => match v.trim().parse::<T>() {
            Ok(x) if valid(x) => Ok(x),
            _ => Err(Error::Input(format!(
                "{name}={v}: expected {expected}; default {default}"
            ))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::experiment_setting;

    /// Unset: the default; a valid number: it; anything else: an error that names the variable,
    /// what it expects and the default. (Each case its own variable: tests run in parallel.)
    #[test]
    fn experiment_settings_take_valid_numbers_and_name_the_rest() {
        let get = |name: &str| experiment_setting(name, 16u64, |c| c >= 1, "at least 1");
        assert_eq!(get("OCCUPANT_TEST_SETTING_UNSET").unwrap(), 16);
        std::env::set_var("OCCUPANT_TEST_SETTING_SEVEN", " 7 ");
        assert_eq!(get("OCCUPANT_TEST_SETTING_SEVEN").unwrap(), 7);
        for (name, value) in [
            ("OCCUPANT_TEST_SETTING_ZERO", "0"),
            ("OCCUPANT_TEST_SETTING_WORD", "many"),
        ] {
            std::env::set_var(name, value);
            let e = get(name).unwrap_err().to_string();
            assert!(e.contains(&format!("{name}={value}")), "{e}");
            assert!(e.contains("expected at least 1; default 16"), "{e}");
        }
    }
}
