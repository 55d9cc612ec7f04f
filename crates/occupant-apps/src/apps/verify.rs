//! Sequential references and the checks every run is verified with.

use super::prep::{beats, priorities, transpose, undirected, weights_or_unit};
use super::{AppKind, AppOutput, AppParams};
use crate::graph::Csr;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The sequential reference result of `app` on `g`.
///
/// bfs: levels by a queue; sssp and sssp-worklist: Dijkstra (unit weights on an unweighted
/// graph); color and mis: the max-based / Luby algorithms run round by round (deterministic
/// given [`AppParams::seed`]); bc: Brandes from [`AppParams::source`]; pagerank: the same
/// Jacobi iteration as the kernels; cc: the smallest vertex id of each component (union-find).
/// A source outside the graph gives every vertex unreachable.
///
/// ```
/// use occupant_apps::apps::{reference, AppKind, AppOutput, AppParams};
/// use occupant_apps::graph::Csr;
/// let g = Csr::from_edges(3, &[(0, 1), (1, 2)], None)?;
/// let out = reference(AppKind::Bfs, &g, &AppParams::default());
/// assert_eq!(out, AppOutput::Levels(vec![0, 1, 2]));
/// # Ok::<(), occupant_apps::graph::CsrError>(())
/// ```
pub fn reference(app: AppKind, g: &Csr, p: &AppParams) -> AppOutput {
    match app {
        AppKind::Bfs => AppOutput::Levels(bfs_levels(g, p.source)),
        AppKind::Sssp | AppKind::SsspWorklist => AppOutput::Distances(dijkstra(g, p.source)),
        AppKind::Color => AppOutput::Colors(color_reference(&undirected(g), p.seed)),
        AppKind::Mis => AppOutput::InSet(mis_reference(&undirected(g), p.seed)),
        AppKind::Bc => AppOutput::Scores(brandes(g, p.source)),
        AppKind::PageRank => AppOutput::Ranks(pagerank_reference(g, p)),
        AppKind::Cc => AppOutput::Labels(components(&undirected(g))),
    }
}

/// Checks `out` for `app` on `g`: exact equality with the reference for bfs, sssp,
/// sssp-worklist and cc; a proper colouring of every vertex for color; an independent and
/// maximal set for mis (both on [`undirected`]`(g)`); for bc a relative error of at most 1e-9
/// against the reference; for pagerank an error of at most `2·tolerance/(1 − damping)` per
/// vertex (both runs are that close to the fixed point). The error names the first bad vertex.
///
/// ```
/// use occupant_apps::apps::{verify, AppKind, AppOutput, AppParams};
/// use occupant_apps::graph::Csr;
/// let g = Csr::from_edges(2, &[(0, 1), (1, 0)], None)?;
/// let p = AppParams::default();
/// assert!(verify(AppKind::Color, &g, &p, &AppOutput::Colors(vec![0, 1])).is_ok());
/// assert!(verify(AppKind::Color, &g, &p, &AppOutput::Colors(vec![1, 1])).is_err());
/// # Ok::<(), occupant_apps::graph::CsrError>(())
/// ```
pub fn verify(app: AppKind, g: &Csr, p: &AppParams, out: &AppOutput) -> Result<(), String> {
    let n = g.num_vertices() as usize;
    if out.len() != n {
        return Err(format!(
            "{app}: {} {} for {n} vertices",
            out.len(),
            out.what()
        ));
    }
    match (app, out) {
        (AppKind::Bfs, AppOutput::Levels(got)) => {
            exact(app, "level", &bfs_levels(g, p.source), got, u32::MAX)
        }
        (AppKind::Sssp | AppKind::SsspWorklist, AppOutput::Distances(got)) => {
            exact(app, "distance", &dijkstra(g, p.source), got, u64::MAX)
        }
        (AppKind::Cc, AppOutput::Labels(got)) => {
            exact(app, "label", &components(&undirected(g)), got, u32::MAX)
        }
        (AppKind::Color, AppOutput::Colors(c)) => check_coloring(&undirected(g), c),
        (AppKind::Mis, AppOutput::InSet(s)) => check_mis(&undirected(g), s),
        (AppKind::Bc, AppOutput::Scores(got)) => {
            let want = brandes(g, p.source);
            for (v, (&w, &x)) in want.iter().zip(got).enumerate() {
                let tol = 1e-9 * w.abs().max(1.0);
                let close = (w - x).abs() <= tol; // false for NaN
                if !close {
                    return Err(format!(
                        "bc: vertex {v} has score {x:e}, the reference {w:e} (tolerance {tol:e})"
                    ));
                }
            }
            Ok(())
        }
        (AppKind::PageRank, AppOutput::Ranks(got)) => {
            let want = pagerank_reference(g, p);
            let tol = 2.0 * p.tolerance / (1.0 - p.damping).max(1e-12) + 1e-12;
            for (v, (&w, &x)) in want.iter().zip(got).enumerate() {
                let close = (w - x).abs() <= tol; // false for NaN
                if !close {
                    return Err(format!(
                        "pagerank: vertex {v} has rank {x:e}, the reference {w:e} (tolerance {tol:e})"
                    ));
                }
            }
            Ok(())
        }
        (app, out) => Err(format!("{app} does not produce {}", out.what())),
    }
}

fn exact<T: PartialEq + Copy + std::fmt::Display>(
    app: AppKind,
    what: &str,
    want: &[T],
    got: &[T],
    inf: T,
) -> Result<(), String> {
    let show = |x: T| {
        if x == inf {
            "inf".to_string()
        } else {
            x.to_string()
        }
    };
    match want.iter().zip(got).position(|(w, g)| w != g) {
        None => Ok(()),
        Some(v) => Err(format!(
            "{app}: vertex {v} has {what} {}, the reference {}",
            show(got[v]),
            show(want[v])
        )),
    }
}

fn check_coloring(u: &Csr, colors: &[u32]) -> Result<(), String> {
    for v in 0..u.num_vertices() {
        if colors[v as usize] == u32::MAX {
            return Err(format!("color: vertex {v} is not coloured"));
        }
        for &w in u.neighbours(v) {
            if colors[v as usize] == colors[w as usize] {
                return Err(format!(
                    "color: neighbours {v} and {w} both have colour {}",
                    colors[v as usize]
                ));
            }
        }
    }
    Ok(())
}

fn check_mis(u: &Csr, in_set: &[bool]) -> Result<(), String> {
    for v in 0..u.num_vertices() {
        let nbrs = u.neighbours(v);
        if in_set[v as usize] {
            if let Some(&w) = nbrs.iter().find(|&&w| in_set[w as usize]) {
                return Err(format!(
                    "mis: neighbours {v} and {w} are both in the set (not independent)"
                ));
            }
        } else if !nbrs.iter().any(|&w| in_set[w as usize]) {
            return Err(format!(
                "mis: vertex {v} and none of its neighbours is in the set (not maximal)"
            ));
        }
    }
    Ok(())
}

/// BFS levels from `source` (`u32::MAX` = unreachable).
pub(crate) fn bfs_levels(g: &Csr, source: u32) -> Vec<u32> {
    let n = g.num_vertices();
    let mut level = vec![u32::MAX; n as usize];
    if source >= n {
        return level;
    }
    level[source as usize] = 0;
    let mut queue = VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        for &v in g.neighbours(u) {
            if level[v as usize] == u32::MAX {
                level[v as usize] = level[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    level
}

fn dijkstra(g: &Csr, source: u32) -> Vec<u64> {
    let n = g.num_vertices();
    let mut dist = vec![u64::MAX; n as usize];
    if source >= n {
        return dist;
    }
    let w = weights_or_unit(g);
    dist[source as usize] = 0;
    let mut heap = BinaryHeap::from([Reverse((0u64, source))]);
    while let Some(Reverse((d, u))) = heap.pop() {
        if d > dist[u as usize] {
            continue;
        }
        for e in g.edge_range(u) {
            let v = g.targets()[e];
            let nd = d + u64::from(w[e]);
            if nd < dist[v as usize] {
                dist[v as usize] = nd;
                heap.push(Reverse((nd, v)));
            }
        }
    }
    dist
}

fn color_reference(u: &Csr, seed: u64) -> Vec<u32> {
    let n = u.num_vertices();
    let prio = priorities(n, seed);
    let mut color = vec![u32::MAX; n as usize];
    let mut left = n as usize;
    let mut round = 0;
    while left > 0 {
        let winners: Vec<u32> = (0..n)
            .filter(|&v| {
                color[v as usize] == u32::MAX
                    && u.neighbours(v).iter().all(|&w| {
                        color[w as usize] != u32::MAX
                            || !beats(prio[w as usize], w, prio[v as usize], v)
                    })
            })
            .collect();
        for &v in &winners {
            color[v as usize] = round;
        }
        left -= winners.len();
        round += 1;
    }
    color
}

fn mis_reference(u: &Csr, seed: u64) -> Vec<bool> {
    #[derive(Clone, Copy, PartialEq)]
    enum S {
        Undecided,
        In,
        Out,
    }
    let n = u.num_vertices();
    let prio = priorities(n, seed);
    let mut s = vec![S::Undecided; n as usize];
    while s.contains(&S::Undecided) {
        let winners: Vec<u32> = (0..n)
            .filter(|&v| {
                s[v as usize] == S::Undecided
                    && u.neighbours(v).iter().all(|&w| {
                        s[w as usize] == S::Out || !beats(prio[w as usize], w, prio[v as usize], v)
                    })
            })
            .collect();
        for &v in &winners {
            s[v as usize] = S::In;
        }
        for v in 0..n as usize {
            if s[v] == S::Undecided
                && u.neighbours(v as u32)
                    .iter()
                    .any(|&w| s[w as usize] == S::In)
            {
                s[v] = S::Out;
            }
        }
    }
    s.into_iter().map(|x| x == S::In).collect()
}

/// Brandes' dependencies of every vertex on shortest paths from `source` (unweighted; the
/// source's own score is 0).
fn brandes(g: &Csr, source: u32) -> Vec<f64> {
    let n = g.num_vertices();
    let mut delta = vec![0.0f64; n as usize];
    if source >= n {
        return delta;
    }
    let level = bfs_levels(g, source);
    let mut sigma = vec![0.0f64; n as usize];
    sigma[source as usize] = 1.0;
    let mut order: Vec<u32> = (0..n).filter(|&v| level[v as usize] != u32::MAX).collect();
    order.sort_by_key(|&v| level[v as usize]);
    for &v in &order {
        for &w in g.neighbours(v) {
            if level[w as usize] == level[v as usize] + 1 {
                sigma[w as usize] += sigma[v as usize];
            }
        }
    }
    for &v in order.iter().rev() {
        let mut d = 0.0;
        for &w in g.neighbours(v) {
            if level[w as usize] == level[v as usize] + 1 {
                d += sigma[v as usize] / sigma[w as usize] * (1.0 + delta[w as usize]);
            }
        }
        delta[v as usize] = d;
    }
    delta[source as usize] = 0.0;
    delta
}

/// PageRank by the kernels' Jacobi iteration: `r'(v) = (1 − d)/n + d·Σ_{u→v} r(u)/deg(u)`
/// from `r = 1/n`, until the ranks move by at most the tolerance in L1 norm (`Σ|r' − r|`) or
/// `max_iterations`.
fn pagerank_reference(g: &Csr, p: &AppParams) -> Vec<f64> {
    let n = g.num_vertices() as usize;
    if n == 0 {
        return Vec::new();
    }
    let t = transpose(g);
    let inv_deg: Vec<f64> = (0..n as u32)
        .map(|u| match g.degree(u) {
            0 => 0.0,
            d => 1.0 / f64::from(d),
        })
        .collect();
    let base = (1.0 - p.damping) / n as f64;
    let mut rank = vec![1.0 / n as f64; n];
    let mut next = vec![0.0; n];
    for _ in 0..p.max_iterations {
        let mut moved = 0.0;
        for v in 0..n {
            let sum: f64 = t
                .neighbours(v as u32)
                .iter()
                .map(|&u| rank[u as usize] * inv_deg[u as usize])
                .sum();
            next[v] = base + p.damping * sum;
            moved += (next[v] - rank[v]).abs();
        }
        std::mem::swap(&mut rank, &mut next);
        if moved <= p.tolerance {
            break;
        }
    }
    rank
}

/// The smallest vertex id of each vertex's component in the undirected graph `u`.
fn components(u: &Csr) -> Vec<u32> {
    let n = u.num_vertices();
    let mut parent: Vec<u32> = (0..n).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    for v in 0..n {
        for &w in u.neighbours(v) {
            let (a, b) = (find(&mut parent, v), find(&mut parent, w));
            // The root is the smallest id of the set.
            if a < b {
                parent[b as usize] = a;
            } else if b < a {
                parent[a as usize] = b;
            }
        }
    }
    (0..n).map(|v| find(&mut parent, v)).collect()
}
