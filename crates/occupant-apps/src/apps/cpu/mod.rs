//! The applications on the CPU executor, in both CPU variants: `multi-launch` (one executor
//! launch per step, the host reads a "changed" flag in between) and `persistent` (one
//! [`Executor::launch_persistent`]: discovery, then the default barrier between steps). Both
//! variants run the same steps with the same number of workers (`groups × local_size`), so
//! they differ only in how steps are separated.
//!
//! ```
//! use occupant::cpu::{ExecModel, Executor};
//! use occupant_apps::apps::{run_cpu, verify, AppKind, AppParams, Variant};
//! use occupant_apps::graph::GraphSpec;
//!
//! let g = "grid:20x20".parse::<GraphSpec>().unwrap().csr().unwrap();
//! let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
//! let p = AppParams::default();
//! let (out, report) = run_cpu(&exec, AppKind::Bfs, Variant::CpuPersistent, &g, &p)?;
//! assert_eq!(report.participants, Some(2));
//! assert_eq!(report.iterations, 39); // 38 levels beyond the source, one step finding nothing
//! assert!(verify(AppKind::Bfs, &g, &p, &out).is_ok());
//! # Ok::<(), occupant::Error>(())
//! ```

mod bc;
mod bfs;
mod cc;
mod color;
mod mis;
mod pagerank;
mod runner;
mod sssp;
mod steps;
mod worklist;

use super::prep::{priorities, transpose, undirected, weights_or_unit};
use super::{AppKind, AppOutput, AppParams, RunReport, Variant};
use crate::graph::Csr;
use occupant::cpu::Executor;
use occupant::{Error, Result};
use runner::StepsRun;
use steps::Steps;

/// How a CPU run is shaped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuOptions {
    /// Groups per launch (`None`: one per compute unit of the executor's model — its
    /// `compute_units` when occupancy-bound, the machine's cores otherwise). The persistent
    /// variant launches this many and keeps those discovery finds co-occupant.
    pub groups: Option<usize>,
    /// Work-items per group (default 1: a group is one worker on its compute unit's thread,
    /// the cheapest shape on a CPU).
    pub local_size: usize,
}

impl Default for CpuOptions {
    fn default() -> Self {
        Self {
            groups: None,
            local_size: 1,
        }
    }
}

impl CpuOptions {
    /// The groups a launch on `exec` gets ([`Executor::persistent_range`]'s by default).
    pub fn groups_for(&self, exec: &Executor) -> usize {
        self.groups
            .unwrap_or_else(|| exec.persistent_range(1).map_or(1, |r| r.group_count()))
    }
}

/// Runs `app` on `g` in the CPU `variant` with the default [`CpuOptions`], and returns its
/// per-vertex output and report (`graph` in the report is empty: the caller names the input).
///
/// Errors: a CUDA variant, a source vertex outside the graph for the applications that read
/// one, bc path counts that overflow `f64`, and the executor's errors.
pub fn run_cpu(
    exec: &Executor,
    app: AppKind,
    variant: Variant,
    g: &Csr,
    p: &AppParams,
) -> Result<(AppOutput, RunReport)> {
    run_cpu_with(exec, app, variant, g, p, &CpuOptions::default())
}

/// [`run_cpu`] with explicit [`CpuOptions`].
pub fn run_cpu_with(
    exec: &Executor,
    app: AppKind,
    variant: Variant,
    g: &Csr,
    p: &AppParams,
    opts: &CpuOptions,
) -> Result<(AppOutput, RunReport)> {
    if variant.is_cuda() {
        return Err(Error::Input(format!(
            "{variant} is a CUDA variant; the CPU variants are {}",
            Variant::names(false)
        )));
    }
    let n = g.num_vertices();
    if app.uses_source() && p.source >= n {
        return Err(Error::Input(format!(
            "source vertex {} is not in the graph (vertices 0..{n})",
            p.source
        )));
    }
    if opts.local_size == 0 {
        return Err(Error::Input("local size must be at least 1".into()));
    }
    let groups = opts.groups_for(exec);
    let (out, r) = match app {
        AppKind::Bfs => {
            let k = bfs::Bfs::new(g, p.source);
            let r = go(exec, app, variant, &k, groups, opts)?;
            (k.output(), r)
        }
        AppKind::Sssp => {
            let w = weights_or_unit(g);
            let k = sssp::Sssp::new(g, &w, p.source);
            let r = go(exec, app, variant, &k, groups, opts)?;
            (k.output(), r)
        }
        AppKind::SsspWorklist => {
            let w = weights_or_unit(g);
            let k = worklist::SsspWorklist::new(g, &w, p.source);
            let r = go(exec, app, variant, &k, groups, opts)?;
            (k.output(), r)
        }
        AppKind::Color => {
            let u = undirected(g);
            let prio = priorities(n, p.seed);
            let k = color::Color::new(&u, &prio);
            let r = go(exec, app, variant, &k, groups, opts)?;
            (k.output(), r)
        }
        AppKind::Mis => {
            let u = undirected(g);
            let prio = priorities(n, p.seed);
            let k = mis::Mis::new(&u, &prio);
            let r = go(exec, app, variant, &k, groups, opts)?;
            (k.output(), r)
        }
        AppKind::Bc => {
            let k = bc::Bc::new(g, p.source);
            let r = go(exec, app, variant, &k, groups, opts)?;
            let out = k.output();
            if let AppOutput::Scores(s) = &out {
                if let Some(v) = s.iter().position(|x| !x.is_finite()) {
                    return Err(Error::Unsupported(format!(
                        "bc: the shortest-path counts of this graph overflow f64 (vertex {v} has score {}); use a graph with fewer shortest paths (fewer BFS levels)",
                        s[v]
                    )));
                }
            }
            (out, r)
        }
        AppKind::PageRank => {
            let t = transpose(g);
            let k = pagerank::PageRank::new(g, &t, p);
            let r = go(exec, app, variant, &k, groups, opts)?;
            (k.output(r.steps), r)
        }
        AppKind::Cc => {
            let u = undirected(g);
            let k = cc::Cc::new(&u);
            let r = go(exec, app, variant, &k, groups, opts)?;
            (k.output(), r)
        }
    };
    let secs = r.elapsed.as_secs_f64();
    let edges = g.num_edges() as u64;
    let report = RunReport {
        app: app.name().to_string(),
        backend: "cpu".to_string(),
        variant: variant.name().to_string(),
        graph: String::new(),
        vertices: n,
        edges,
        iterations: r.steps,
        time_ms: secs * 1e3,
        edges_per_s: if secs > 0.0 { edges as f64 / secs } else { 0.0 },
        participants: r.participants,
        reached: matches!(out, AppOutput::Levels(_) | AppOutput::Distances(_))
            .then(|| out.reached()),
        verified: None,
        barrier_trace: None,
    };
    Ok((out, report))
}

fn go<K: Steps>(
    exec: &Executor,
    app: AppKind,
    variant: Variant,
    k: &K,
    groups: usize,
    opts: &CpuOptions,
) -> Result<StepsRun> {
    match variant {
        Variant::CpuPersistent => runner::persistent(exec, app.name(), k, groups, opts.local_size),
        _ => runner::multi_launch(exec, app.name(), k, groups, opts.local_size),
    }
}
