//! The multitasking experiment of seed 000 §5 on the CPU backend: a cooperative app
//! (work stealing: octree, game; resizing barriers: bfs, sssp) runs on a [`CoopScheduler`] of
//! `units` compute units while another thread requests a
//! matrix multiplication every `P` ms on a share of the units (the kernel gives them up at
//! `offer_kill` or a resizing barrier, gets them back by `request_fork` or at a resizing
//! barrier). The matmul is sized to take `E` ms on all
//! the units. Measured per request: gather time (request → units free), execution time,
//! response time, period met; per run: the app's slowdown against running alone, the
//! overhead of the cooperative app against its persistent (non-cooperative) version, and the
//! kernel-level preemption model `P / (P − D)` of seed 000 §5.5.

use super::graph::{self, GraphApp};
use super::steal::{RunInfo, Runner};
use super::{game, octree};
use crate::apps::{run_cpu_with, AppParams, CpuOptions, Variant};
use crate::graph::Csr;
use occupant::cpu::coop::{CoopConfig, CoopReport, CoopScheduler};
use occupant::cpu::{ExecModel, Executor, GlobalBuffer, WorkItem};
use occupant::model::coop::ResizeVariant;
use occupant::{Error, NDRange, Result};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A periodic workload (seed 000 §5.2): the other work is requested every `period_ms` and
/// takes `exec_ms` on all the units.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Workload {
    /// light, medium, heavy.
    pub name: &'static str,
    /// P, ms.
    pub period_ms: f64,
    /// E, ms.
    pub exec_ms: f64,
}

/// light P=70 E=3, medium P=40 E=3, heavy P=40 E=10 (ms).
pub const WORKLOADS: [Workload; 3] = [
    Workload {
        name: "light",
        period_ms: 70.0,
        exec_ms: 3.0,
    },
    Workload {
        name: "medium",
        period_ms: 40.0,
        exec_ms: 3.0,
    },
    Workload {
        name: "heavy",
        period_ms: 40.0,
        exec_ms: 10.0,
    },
];

impl Workload {
    /// `light`, `medium` or `heavy`.
    pub fn parse(s: &str) -> Result<Workload> {
        WORKLOADS
            .iter()
            .find(|w| w.name == s)
            .copied()
            .ok_or_else(|| Error::Input(format!("workload `{s}`: expected light, medium or heavy")))
    }
}

/// The share of the units the other work asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Share {
    /// One unit.
    One,
    /// A quarter.
    Quarter,
    /// Half.
    Half,
    /// All but one.
    AllButOne,
}

impl Share {
    /// Every share, smallest first.
    pub const ALL: [Share; 4] = [Share::One, Share::Quarter, Share::Half, Share::AllButOne];

    /// Units out of `n`.
    ///
    /// ```
    /// use occupant_apps::coop::multitask::Share;
    /// assert_eq!(Share::ALL.map(|s| s.units(8)), [1, 2, 4, 7]);
    /// ```
    pub fn units(self, n: usize) -> usize {
        match self {
            Share::One => 1,
            Share::Quarter => (n / 4).max(1),
            Share::Half => (n / 2).max(1),
            Share::AllButOne => n.saturating_sub(1).max(1),
        }
    }

    /// Groups out of `n` (the CUDA runner's unit is a block).
    ///
    /// ```
    /// use occupant_apps::coop::multitask::Share;
    /// assert_eq!(Share::ALL.map(|s| s.groups(264)), [1, 66, 132, 263]);
    /// ```
    pub fn groups(self, n: u32) -> u32 {
        self.units(n as usize) as u32
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Share::One => "one",
            Share::Quarter => "quarter",
            Share::Half => "half",
            Share::AllButOne => "all_but_one",
        }
    }

    /// Parses `1|quarter|half|all-but-one`.
    pub fn parse(s: &str) -> Result<Share> {
        match s {
            "1" | "one" => Ok(Share::One),
            "quarter" => Ok(Share::Quarter),
            "half" => Ok(Share::Half),
            "all-but-one" | "all_but_one" => Ok(Share::AllButOne),
            _ => Err(Error::Input(format!(
                "share `{s}`: expected 1, quarter, half or all-but-one"
            ))),
        }
    }
}

/// The cooperative app of the experiment.
#[derive(Debug, Clone, Serialize)]
pub enum App {
    /// Octree partitioning.
    Octree(octree::OctreeParams),
    /// Connect-four search from the empty board.
    Game(game::GameParams),
    /// A graph app in cooperative form (resizing barriers).
    Graph {
        /// bfs or sssp.
        app: GraphApp,
        /// The graph's name (file or generator spec).
        graph_name: String,
        /// The graph.
        #[serde(skip)]
        graph: Arc<Csr>,
        /// Source vertex.
        source: u32,
    },
}

impl App {
    /// `octree`, `game`, `bfs` or `sssp`.
    pub fn name(&self) -> &'static str {
        match self {
            App::Octree(_) => "octree",
            App::Game(_) => "game",
            App::Graph {
                app: GraphApp::Bfs, ..
            } => "bfs",
            App::Graph {
                app: GraphApp::Sssp,
                ..
            } => "sssp",
        }
    }

    /// Whether the app synchronises with resizing barriers (the regular and `query` variants
    /// then differ).
    pub fn uses_barriers(&self) -> bool {
        matches!(self, App::Graph { .. })
    }

    /// A graph app (`bfs` or `sssp`) on `graph` from `source`.
    pub fn graph(name: &str, graph: Csr, graph_name: String, source: u32) -> Result<App> {
        let app = match name {
            "bfs" => GraphApp::Bfs,
            "sssp" => GraphApp::Sssp,
            "octree" | "game" => {
                return Err(Error::Input(format!(
                    "app `{name}` takes no graph: the graph apps are bfs and sssp"
                )))
            }
            _ => {
                return Err(Error::Input(format!(
                    "no cooperative CPU app `{name}`: the CPU's are octree, game, bfs and sssp \
                     (cc, pagerank, color and mis run with --backend cuda on a GPU)"
                )))
            }
        };
        if source >= graph.num_vertices() {
            return Err(Error::Input(format!(
                "source vertex {source} is not in the graph (vertices 0..{})",
                graph.num_vertices()
            )));
        }
        Ok(App::Graph {
            app,
            graph_name,
            graph: Arc::new(graph),
            source,
        })
    }

    /// Parses `octree` or `game` with default sizes for the experiment (about a second on a
    /// few cores); `bfs`/`sssp` need a graph ([`App::graph`]).
    pub fn parse(s: &str) -> Result<App> {
        match s {
            "octree" => Ok(App::Octree(octree::OctreeParams {
                points: 1_500_000,
                max_points: 8,
                ..Default::default()
            })),
            "game" => Ok(App::Game(game::GameParams {
                depth: 12,
                split: 5,
            })),
            "bfs" | "sssp" => Err(Error::Input(format!(
                "app `{s}` needs a graph (--graph FILE or --gen SPEC)"
            ))),
            _ => Err(Error::Input(format!(
                "app `{s}`: expected octree, game, bfs or sssp"
            ))),
        }
    }

    /// Runs the app once with `runner` and checks it against its sequential reference
    /// (computed once by the caller: `reference`).
    fn run(&self, runner: &Runner<'_, '_>, reference: &Reference) -> Result<RunInfo> {
        match (self, reference) {
            (App::Octree(p), Reference::Octree(r)) => {
                let run = octree::build(p, runner)?;
                octree::verify(p, &run.leaves, r).map_err(|e| {
                    Error::Input(format!("octree result wrong in the experiment: {e}"))
                })?;
                Ok(run.info)
            }
            (App::Game(p), Reference::Game(r)) => {
                let run = game::search(&game::Position::new(), p, runner)?;
                if &run.value != r {
                    return Err(Error::Input(format!(
                        "game result wrong in the experiment: {:?} vs {:?}",
                        run.value, r
                    )));
                }
                Ok(run.info)
            }
            (
                App::Graph {
                    app, graph, source, ..
                },
                Reference::Graph,
            ) => {
                let t0 = Instant::now();
                let (out, coop) = match runner {
                    Runner::Cooperative { scheduler, groups } => {
                        let (out, rep) = graph::run(*app, graph, *source, scheduler, *groups)?;
                        (out, Some(rep))
                    }
                    Runner::Persistent { executor, groups } => {
                        let p = AppParams {
                            source: *source,
                            ..AppParams::default()
                        };
                        let opts = CpuOptions {
                            groups: Some(*groups),
                            local_size: 1,
                        };
                        let (out, _) = run_cpu_with(
                            executor,
                            app.kind(),
                            Variant::CpuPersistent,
                            graph,
                            &p,
                            &opts,
                        )?;
                        (out, None)
                    }
                };
                let elapsed = t0.elapsed();
                graph::check(*app, graph, *source, &out).map_err(|e| {
                    Error::Input(format!(
                        "{} result wrong in the experiment: {e}",
                        self.name()
                    ))
                })?;
                Ok(RunInfo { elapsed, coop })
            }
            _ => unreachable!("reference of another app"),
        }
    }

    fn reference(&self) -> Reference {
        match self {
            App::Octree(p) => Reference::Octree(octree::sequential(p)),
            App::Game(p) => Reference::Game(game::sequential(&game::Position::new(), p)),
            App::Graph { .. } => Reference::Graph,
        }
    }
}

enum Reference {
    Octree(Vec<octree::Leaf>),
    Game(game::GameValue),
    /// Graph apps are checked by `graph::check` (the sequential reference, per run).
    Graph,
}

/// One request of the other work.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Request {
    /// Units it ran on.
    pub units: usize,
    /// Of those, units the cooperative kernel held at the request (it had to give them up;
    /// 0 when the kernel had not regrown since the previous request).
    pub taken: usize,
    /// Request → units free, µs.
    pub gather_us: f64,
    /// Its execution time on those units, µs.
    pub exec_us: f64,
    /// Request → done, µs.
    pub response_us: f64,
    /// Done before the next request was due.
    pub period_met: bool,
}

/// One co-run: the app with the periodic other work on one share.
#[derive(Debug, Clone, Serialize)]
pub struct CoRun {
    /// The resizing barrier's variant (graph apps; `regular` for the work-stealing apps,
    /// which use no barrier).
    pub barrier: ResizeVariant,
    /// The workload.
    pub workload: Workload,
    /// The share.
    pub share: Share,
    /// Units the other work asked for.
    pub units: usize,
    /// Every request made while the app ran.
    pub requests: Vec<Request>,
    /// Requests that failed to gather their units in time (the scheduler's error).
    pub failed_requests: usize,
    /// The app's mean time per run in the co-run, µs.
    pub corun_us: f64,
    /// App runs in the co-run (back to back until the co-run's minimum length).
    pub app_runs: usize,
    /// Groups killed over all runs of the co-run.
    pub kills: usize,
    /// Groups forked over all runs of the co-run.
    pub forked_groups: usize,
    /// corun / cooperative alone.
    pub slowdown: f64,
    /// The kernel-level preemption model's slowdown P / (P − D), D = median exec.
    pub preemption_model: f64,
    /// Requests done within their period / requests.
    pub period_met_fraction: f64,
    /// Mean time between consecutive requests, ms.
    pub achieved_period_ms: f64,
    /// Median gather, µs (every request).
    pub median_gather_us: f64,
    /// Median gather of the requests for which the kernel had to give up units, µs.
    pub median_gather_taken_us: f64,
    /// Requests for which the kernel had to give up units.
    pub requests_taken: usize,
    /// Median execution of the other work, µs.
    pub median_exec_us: f64,
    /// The last cooperative launch's report (kills, forks).
    pub report: Option<CoopReport>,
}

/// What [`run`] measured.
#[derive(Debug, Clone, Serialize)]
pub struct MultitaskResult {
    /// `cpu (<cores> cores)`.
    pub device: String,
    /// The app.
    pub app: App,
    /// Compute units of the scheduler (= groups of the app).
    pub units: usize,
    /// Matmul size n (n×n), sized to take E ms on all units, per workload name.
    pub matmul_n: Vec<(String, usize, f64)>,
    /// The persistent (non-cooperative) app alone, µs (median of `repeats`).
    pub persistent_us: f64,
    /// The cooperative app alone (no other work), µs (median of `repeats`).
    pub cooperative_alone_us: f64,
    /// cooperative alone / persistent.
    pub overhead: f64,
    /// Every co-run.
    pub coruns: Vec<CoRun>,
}

impl MultitaskResult {
    /// The results as a text table: the app alone (persistent, cooperative, overhead), the
    /// matmul sizes, then one row per co-run (what `occupant multitask` prints).
    pub fn table(&self) -> String {
        use std::fmt::Write;
        let r = self;
        // Writing into a String cannot fail.
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} on {} ({} units): persistent {:.1} ms, cooperative alone {:.1} ms, overhead {:.3}",
            r.app.name(),
            r.device,
            r.units,
            r.persistent_us / 1e3,
            r.cooperative_alone_us / 1e3,
            r.overhead
        );
        for (w, n, ms) in &r.matmul_n {
            let _ = writeln!(out, "matmul for {w}: n = {n}, {ms:.2} ms on all units");
        }
        let _ = writeln!(
            out,
            "{:<7} {:<8} {:<12} {:>5} {:>5} {:>5} {:>12} {:>16} {:>11} {:>10} {:>11} {:>9} {:>9} {:>6} {:>6}",
            "load",
            "barrier",
            "share",
            "units",
            "runs",
            "reqs",
            "gather_med",
            "taken_gather",
            "exec_med",
            "period_ok",
            "period_ms",
            "slowdown",
            "P/(P-D)",
            "kills",
            "forks"
        );
        for c in &r.coruns {
            let (k, f) = (c.kills, c.forked_groups);
            let _ = writeln!(
            out,
                "{:<7} {:<8} {:<12} {:>5} {:>5} {:>5} {:>10.0}µs {:>9.0}µs({:>3}) {:>9.0}µs {:>9.0}% {:>11.1} {:>9.3} {:>9.3} {:>6} {:>6}",
                c.workload.name,
                c.barrier.to_string(),
                c.share.name(),
                c.units,
                c.app_runs,
                c.requests.len(),
                c.median_gather_us,
                c.median_gather_taken_us,
                c.requests_taken,
                c.median_exec_us,
                c.period_met_fraction * 100.0,
                c.achieved_period_ms,
                c.slowdown,
                c.preemption_model,
                k,
                f
            );
        }
        out
    }
}

/// The median of `v` (0 when empty): the model's.
pub use occupant::model::median;

/// The other work: `C = A·B` (n×n, f32), rows strided over the groups (one per unit).
pub struct Matmul {
    n: usize,
    a: Vec<f32>,
    b: Vec<f32>,
    c: GlobalBuffer<u32>,
}

impl Matmul {
    /// Matrices of size `n`.
    pub fn new(n: usize) -> Self {
        let a = (0..n * n).map(|i| (i % 7) as f32 * 0.5).collect();
        let b = (0..n * n).map(|i| (i % 5) as f32 * 0.25).collect();
        Self {
            n,
            a,
            b,
            c: GlobalBuffer::new(n * n),
        }
    }

    /// The kernel body: group g of G computes rows g, g+G, …
    pub fn kernel(&self, item: &WorkItem<'_>) {
        let (n, g, groups) = (self.n, item.group_linear_id(), item.group_count());
        let mut row = vec![0f32; n];
        for i in (g..n).step_by(groups) {
            row.iter_mut().for_each(|x| *x = 0.0);
            for k in 0..n {
                let aik = self.a[i * n + k];
                let bk = &self.b[k * n..(k + 1) * n];
                for (x, &bkj) in row.iter_mut().zip(bk) {
                    *x += aik * bkj;
                }
            }
            for (j, &x) in row.iter().enumerate() {
                self.c.set(i * n + j, x.to_bits());
            }
        }
    }

    /// Runs it alone on `units` units; returns its time.
    pub fn time_alone(&self, exec: &Executor, units: usize) -> Result<Duration> {
        let launch = occupant::cpu::Launch::new(NDRange::groups(units, 1)?).model(
            ExecModel::OccupancyBound {
                compute_units: units,
            },
        );
        let t0 = Instant::now();
        exec.launch_with(&launch, || (), |item, _: &()| self.kernel(item))?;
        Ok(t0.elapsed())
    }

    /// The size that takes about `exec_ms` on `units` units: times two sizes (median of 5
    /// each), fits `t = a + b·n³` (a: the launch's fixed cost), solves for `exec_ms` and
    /// measures the result (median of 5). Returns (n, measured ms).
    pub fn calibrate(exec: &Executor, units: usize, exec_ms: f64) -> Result<(usize, f64)> {
        let time = |n: usize| -> Result<f64> {
            let m = Matmul::new(n);
            let t: Vec<f64> = (0..5)
                .map(|_| m.time_alone(exec, units).map(|d| d.as_secs_f64() * 1e3))
                .collect::<Result<_>>()?;
            Ok(median(&t))
        };
        let (n1, n2) = (160usize, 320usize);
        let (t1, t2) = (time(n1)?, time(n2)?);
        // On a loaded host the two timings can be noisy: the slope is at least half of what
        // the larger size alone implies.
        let b = ((t2 - t1) / ((n2.pow(3) - n1.pow(3)) as f64)).max(t2 / n2.pow(3) as f64 / 2.0);
        let a = (t1 - b * n1.pow(3) as f64).max(0.0);
        let size = |ms: f64, b: f64| {
            ((((ms - a).max(ms * 0.1) / b).cbrt() / 8.0).round() as usize * 8).clamp(16, 2048)
        };
        let mut n = size(exec_ms, b);
        let mut t = time(n)?;
        // One correction if the result is far off (more than 2× either way).
        if t > 2.0 * exec_ms || t < exec_ms / 2.0 {
            n = ((n as f64 * (exec_ms / t.max(1e-3)).cbrt() / 8.0).round() as usize * 8)
                .clamp(16, 2048);
            t = time(n)?;
        }
        Ok((n, t))
    }
}

/// Of the app's runs in a co-run: kernel time, runs, the last report, (kills, forked groups).
type AppRuns = (Duration, usize, Option<CoopReport>, (usize, usize));

/// Settings of [`run`].
#[derive(Debug, Clone)]
pub struct MultitaskConfig {
    /// The app.
    pub app: App,
    /// Workloads to run.
    pub workloads: Vec<Workload>,
    /// Shares to run.
    pub shares: Vec<Share>,
    /// Compute units of the scheduler (= the app's groups).
    pub units: usize,
    /// Timed runs of the app alone (persistent and cooperative), median taken.
    pub repeats: usize,
    /// How long a request may wait for its units.
    pub gather_timeout: Duration,
    /// Least kernel time of a co-run (the app runs back to back until it is covered).
    pub min_corun: Duration,
    /// Resizing-barrier variants to run (graph apps; the work-stealing apps use no barrier
    /// and run once, recorded as `regular`).
    pub variants: Vec<ResizeVariant>,
}

/// Runs the experiment: the app alone (persistent and cooperative), then one co-run per
/// workload × share. Every app run is checked against the sequential reference.
pub fn run(cfg: &MultitaskConfig, progress: &dyn Fn(&str)) -> Result<MultitaskResult> {
    if cfg.units < 2 {
        return Err(Error::Input(
            "multitask needs at least 2 compute units (group 0 of the app keeps one)".into(),
        ));
    }
    let exec = Executor::default();
    let reference = cfg.app.reference();
    let scheduler = |variant: ResizeVariant| {
        CoopScheduler::new(
            &exec,
            CoopConfig {
                gather_timeout: cfg.gather_timeout,
                variant,
                ..CoopConfig::new(ExecModel::OccupancyBound {
                    compute_units: cfg.units,
                })
            },
        )
    };
    let mut persistent = Vec::new();
    let mut coop_alone = Vec::new();
    for r in 0..cfg.repeats.max(1) {
        progress(&format!("{} alone, run {}", cfg.app.name(), r + 1));
        let p = cfg.app.run(
            &Runner::Persistent {
                executor: &exec,
                groups: cfg.units,
            },
            &reference,
        )?;
        persistent.push(p.elapsed.as_secs_f64() * 1e6);
        let sched = scheduler(ResizeVariant::Regular);
        let c = cfg.app.run(
            &Runner::Cooperative {
                scheduler: &sched,
                groups: cfg.units,
            },
            &reference,
        )?;
        coop_alone.push(c.elapsed.as_secs_f64() * 1e6);
    }
    let persistent_us = median(&persistent);
    let cooperative_alone_us = median(&coop_alone);
    let mut matmul_n = Vec::new();
    let mut coruns = Vec::new();
    for w in &cfg.workloads {
        progress(&format!("calibrating the matmul to {} ms", w.exec_ms));
        let (n, ms) = Matmul::calibrate(&exec, cfg.units, w.exec_ms)?;
        matmul_n.push((w.name.to_string(), n, ms));
        let mm = Matmul::new(n);
        let variants = if cfg.app.uses_barriers() && !cfg.variants.is_empty() {
            cfg.variants.clone()
        } else {
            vec![ResizeVariant::Regular]
        };
        for &share in &cfg.shares {
            for &variant in &variants {
                progress(&format!("co-run {} / {} / {variant}", w.name, share.name()));
                let sched = scheduler(variant);
                let mut c = corun(
                    &sched,
                    cfg,
                    &reference,
                    &mm,
                    *w,
                    share,
                    cooperative_alone_us,
                )?;
                c.barrier = variant;
                coruns.push(c);
            }
        }
    }
    Ok(MultitaskResult {
        device: format!("cpu ({} cores)", occupant::cpu::available_cores()),
        app: cfg.app.clone(),
        units: cfg.units,
        matmul_n,
        persistent_us,
        cooperative_alone_us,
        overhead: cooperative_alone_us / persistent_us,
        coruns,
    })
}

fn corun(
    sched: &CoopScheduler<'_>,
    cfg: &MultitaskConfig,
    reference: &Reference,
    mm: &Matmul,
    w: Workload,
    share: Share,
    alone_us: f64,
) -> Result<CoRun> {
    let units = share.units(cfg.units);
    let period = Duration::from_secs_f64(w.period_ms / 1e3);
    let running = AtomicBool::new(true);
    let mut requests = Vec::new();
    let mut starts = Vec::new();
    let mut failed = 0;
    let (app, other_err) = std::thread::scope(|s| {
        // The app runs back to back until `min_corun` of kernel time is covered.
        let app = s.spawn(|| -> Result<AppRuns> {
            let r = (|| {
                let (mut total, mut runs, mut last) = (Duration::ZERO, 0, None);
                let mut kf = (0, 0);
                while total < cfg.min_corun || runs == 0 {
                    let info = cfg.app.run(
                        &Runner::Cooperative {
                            scheduler: sched,
                            groups: cfg.units,
                        },
                        reference,
                    )?;
                    total += info.elapsed;
                    runs += 1;
                    if let Some(c) = &info.coop {
                        kf.0 += c.stats.kills;
                        kf.1 += c.stats.forked_groups;
                    }
                    last = info.coop;
                }
                Ok((total, runs, last, kf))
            })();
            running.store(false, Ordering::Release);
            r
        });
        let mut due = Instant::now();
        let mut err = None;
        while running.load(Ordering::Acquire) {
            // Requests are made only while the cooperative kernel runs (not while the app
            // sets up or checks its result between runs).
            if !sched.units().running {
                std::thread::sleep(Duration::from_micros(100));
                continue;
            }
            let now = Instant::now();
            if now < due {
                std::thread::sleep((due - now).min(Duration::from_millis(1)));
                continue;
            }
            let t0 = Instant::now();
            starts.push(t0);
            match sched.launch_other(units, NDRange::groups(units, 1).unwrap(), |item| {
                mm.kernel(item)
            }) {
                Ok(r) => {
                    let response = t0.elapsed();
                    requests.push(Request {
                        units,
                        taken: r.taken,
                        gather_us: r.gather.as_secs_f64() * 1e6,
                        exec_us: r.exec.as_secs_f64() * 1e6,
                        response_us: response.as_secs_f64() * 1e6,
                        period_met: response <= period,
                    });
                }
                Err(Error::Resource(_)) => failed += 1,
                Err(e) => {
                    err = Some(e);
                    break;
                }
            }
            due = t0 + period;
        }
        (app.join(), err)
    });
    if let Some(e) = other_err {
        return Err(e);
    }
    let (total, runs, report, (kills, forked_groups)) =
        app.map_err(|_| Error::Resource("the app's host thread panicked".into()))??;
    let corun_us = total.as_secs_f64() * 1e6 / runs as f64;
    let gathers: Vec<f64> = requests.iter().map(|r| r.gather_us).collect();
    let taken: Vec<f64> = requests
        .iter()
        .filter(|r| r.taken > 0)
        .map(|r| r.gather_us)
        .collect();
    let execs: Vec<f64> = requests.iter().map(|r| r.exec_us).collect();
    let d = median(&execs) / 1e3;
    let achieved_period_ms = if starts.len() > 1 {
        (starts[starts.len() - 1] - starts[0]).as_secs_f64() * 1e3 / (starts.len() - 1) as f64
    } else {
        0.0
    };
    let n = requests.len().max(1) as f64;
    Ok(CoRun {
        barrier: ResizeVariant::Regular,
        workload: w,
        share,
        units,
        period_met_fraction: requests.iter().filter(|r| r.period_met).count() as f64 / n,
        median_gather_us: median(&gathers),
        median_gather_taken_us: median(&taken),
        requests_taken: taken.len(),
        median_exec_us: median(&execs),
        requests,
        failed_requests: failed,
        corun_us,
        slowdown: corun_us / alone_us,
        preemption_model: if d < w.period_ms {
            w.period_ms / (w.period_ms - d)
        } else {
            f64::INFINITY
        },
        achieved_period_ms,
        app_runs: runs,
        kills,
        forked_groups,
        report,
    })
}
