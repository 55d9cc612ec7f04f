//! Graph apps in cooperative form (seed 000 Fig. 4): level-synchronous BFS and round-based
//! SSSP (Bellman-Ford relaxation of the vertices improved in the previous round) whose every
//! global barrier is a `resizing_global_barrier` — regular or `query` variant, chosen by the
//! scheduler's [`CoopConfig::variant`](occupant::cpu::coop::CoopConfig). The transmitted value
//! is the step to run next; vertices are strided in chunks over the active groups (`num_groups()`
//! after the barrier, the same for every group). Results are checked with
//! [`crate::apps::verify`] against the sequential references.

use crate::apps::prep::weights_or_unit;
use crate::apps::{verify, AppKind, AppOutput, AppParams};
use crate::graph::Csr;
use occupant::cpu::coop::{CoopReport, CoopScheduler};
use occupant::cpu::GlobalBuffer;
use occupant::model::coop::Entry;
use occupant::{Error, Result};
use std::sync::atomic::Ordering;

const INF: u32 = u32::MAX;
/// Vertices per chunk of the strided loop.
const CHUNK: usize = 256;

/// The cooperative graph apps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum GraphApp {
    /// Breadth-first search levels.
    Bfs,
    /// Single-source shortest paths.
    Sssp,
}

impl GraphApp {
    /// The matching [`AppKind`] (for references and checks).
    pub fn kind(self) -> AppKind {
        match self {
            GraphApp::Bfs => AppKind::Bfs,
            GraphApp::Sssp => AppKind::Sssp,
        }
    }
}

/// Runs `app` from `source` on `g` as a cooperative kernel of `groups` groups on `sched`.
/// Returns the per-vertex output (checked by the caller with [`check`]) and the launch report.
///
/// ```
/// use occupant::cpu::coop::{CoopConfig, CoopScheduler};
/// use occupant::cpu::{ExecModel, Executor};
/// use occupant::model::coop::ResizeVariant;
/// use occupant_apps::coop::graph::{check, run, GraphApp};
/// use occupant_apps::graph::Csr;
///
/// let g = Csr::from_edges(5, &[(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)], None).unwrap();
/// let exec = Executor::default();
/// let cfg = CoopConfig { variant: ResizeVariant::Query, ..CoopConfig::new(ExecModel::Adversarial { seed: 2 }) };
/// let sched = CoopScheduler::new(&exec, cfg);
/// let (out, _) = run(GraphApp::Bfs, &g, 0, &sched, 4).unwrap();
/// check(GraphApp::Bfs, &g, 0, &out).unwrap();
/// ```
pub fn run(
    app: GraphApp,
    g: &Csr,
    source: u32,
    sched: &CoopScheduler<'_>,
    groups: usize,
) -> Result<(AppOutput, CoopReport)> {
    let n = g.num_vertices() as usize;
    if source as usize >= n {
        return Err(Error::Input(format!(
            "source vertex {source} is not in the graph (vertices 0..{n})"
        )));
    }
    let (offsets, targets) = (g.offsets(), g.targets());
    let chunks = n.div_ceil(CHUNK);
    let chunk = |c: usize| c * CHUNK..((c + 1) * CHUNK).min(n);
    // changed[s]: step s changed something (one flag per step: never reset, so one barrier
    // per step suffices). At most n steps for both apps (sssp: rounds of Bellman-Ford).
    let changed = GlobalBuffer::<u32>::new(n + 2);
    match app {
        GraphApp::Bfs => {
            let level = GlobalBuffer::filled(n, INF);
            level.set(source as usize, 0);
            let report = sched.launch(groups, 1, |coop, entry: Entry<u32>| {
                let mut s = entry.transmitted().unwrap_or(0);
                loop {
                    // Right after a barrier (or at launch): did the previous step change anything?
                    if s > 0 && changed.get(s as usize - 1) == 0 {
                        return;
                    }
                    if s as usize > n {
                        panic!("bfs did not settle within {n} steps");
                    }
                    let (m, id) = (coop.num_groups(), coop.group_id());
                    for c in (id..chunks).step_by(m) {
                        for v in chunk(c) {
                            if level.get(v) != s {
                                continue;
                            }
                            for &t in &targets[offsets[v] as usize..offsets[v + 1] as usize] {
                                if level.get(t as usize) == INF {
                                    level.set(t as usize, s + 1);
                                    changed.set(s as usize, 1);
                                }
                            }
                        }
                    }
                    s += 1;
                    coop.resizing_global_barrier(&s);
                }
            })?;
            Ok((AppOutput::Levels(level.to_vec()), report))
        }
        GraphApp::Sssp => {
            let w = weights_or_unit(g);
            let dist = GlobalBuffer::<u64>::filled(n, u64::MAX);
            // stamp[v] = s + 1: relax v in step s (its dist improved in step s − 1; the source
            // at step 0); 0: never reached.
            let stamp = GlobalBuffer::<u32>::new(n);
            dist.set(source as usize, 0);
            stamp.set(source as usize, 1);
            let report = sched.launch(groups, 1, |coop, entry: Entry<u32>| {
                let mut s = entry.transmitted().unwrap_or(0);
                loop {
                    if s > 0 && changed.get(s as usize - 1) == 0 {
                        return;
                    }
                    if s as usize > n + 1 {
                        panic!("sssp did not settle within {} rounds", n + 1);
                    }
                    let (m, id) = (coop.num_groups(), coop.group_id());
                    for c in (id..chunks).step_by(m) {
                        for v in chunk(c) {
                            // Improved in the previous step (or the source at step 0); an
                            // improvement made during this step is relaxed in the next.
                            if stamp.get(v) != s + 1 {
                                continue;
                            }
                            let d = dist.get(v);
                            for e in offsets[v] as usize..offsets[v + 1] as usize {
                                let t = targets[e] as usize;
                                let nd = d + u64::from(w[e]);
                                if nd < dist.atomic(t).fetch_min(nd, Ordering::Relaxed) {
                                    stamp.set(t, s + 2);
                                    changed.set(s as usize, 1);
                                }
                            }
                        }
                    }
                    s += 1;
                    coop.resizing_global_barrier(&s);
                }
            })?;
            Ok((AppOutput::Distances(dist.to_vec()), report))
        }
    }
}

/// Checks an output against the sequential reference (BFS levels by a queue, Dijkstra).
pub fn check(
    app: GraphApp,
    g: &Csr,
    source: u32,
    out: &AppOutput,
) -> std::result::Result<(), String> {
    let p = AppParams {
        source,
        ..AppParams::default()
    };
    verify(app.kind(), g, &p, out)
}
