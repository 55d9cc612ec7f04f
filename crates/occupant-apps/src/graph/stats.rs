//! Graph statistics: sizes, degree distribution, self-loops, duplicates, isolated vertices,
//! connected components and an estimated diameter.

use super::Csr;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::VecDeque;
use std::fmt;

/// A summary of a graph ([`GraphStats::of`]); serialises to JSON.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GraphStats {
    /// Vertices.
    pub vertices: u32,
    /// Directed edges stored (an undirected edge counts twice).
    pub edges: usize,
    /// Whether edges carry weights.
    pub weighted: bool,
    /// Whether every edge `u -> v` has a reverse `v -> u` (an undirected graph).
    pub symmetric: bool,
    /// Edges `v -> v`.
    pub self_loops: usize,
    /// Edges that repeat an earlier (source, target) pair.
    pub duplicate_edges: usize,
    /// Vertices with no edge in or out.
    pub isolated_vertices: u32,
    /// Out-degree distribution.
    pub out_degree: DegreeStats,
    /// Weight range, if weighted.
    pub weights: Option<WeightStats>,
    /// Connected components of the undirected view (weakly connected components), isolated
    /// vertices included.
    pub components: u32,
    /// Vertices in the largest component.
    pub largest_component: u32,
    /// A lower bound on the diameter (in hops): the largest eccentricity found by repeated
    /// double-sweep BFS from the highest-degree vertex of the largest component, along
    /// out-edges (for a symmetric graph, the undirected diameter; exact on trees and grids).
    pub diameter_estimate: u32,
    /// BFS sweeps the estimate took.
    pub diameter_sweeps: u32,
}

/// Degree distribution.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DegreeStats {
    /// Smallest degree.
    pub min: u32,
    /// Largest degree.
    pub max: u32,
    /// Mean degree.
    pub mean: f64,
    /// Vertices per degree bucket `[lo, hi]`: `[0,0]`, `[1,1]`, `[2,3]`, `[4,7]`, ...
    /// (empty buckets above the largest degree are left out).
    pub histogram: Vec<DegreeBucket>,
}

/// One bucket of [`DegreeStats::histogram`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DegreeBucket {
    /// Smallest degree in the bucket.
    pub lo: u32,
    /// Largest degree in the bucket.
    pub hi: u32,
    /// Vertices whose degree is in `lo..=hi`.
    pub count: u32,
}

/// Weight range.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WeightStats {
    /// Smallest weight.
    pub min: u32,
    /// Largest weight.
    pub max: u32,
    /// Mean weight.
    pub mean: f64,
}

/// Sweeps of the diameter estimate at most.
const MAX_SWEEPS: u32 = 4;

impl GraphStats {
    /// Computes the statistics (parallel where it matters; components and BFS sweeps are
    /// sequential, O(n + m) each).
    ///
    /// ```
    /// use occupant_apps::graph::{GraphSpec, GraphStats};
    /// let g = "grid:20x10".parse::<GraphSpec>()?.csr()?;
    /// let s = GraphStats::of(&g);
    /// assert_eq!((s.vertices, s.edges, s.components), (200, 2 * (19 * 10 + 20 * 9), 1));
    /// assert_eq!(s.diameter_estimate, 19 + 9);
    /// assert_eq!((s.out_degree.min, s.out_degree.max), (2, 4));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of(g: &Csr) -> GraphStats {
        let n = g.num_vertices();
        let degs = || (0..n).into_par_iter().map(|v| g.degree(v));
        let (self_loops, duplicate_edges) = (0..n)
            .into_par_iter()
            .map(|v| {
                let nb = g.neighbours(v);
                let loops = nb.iter().filter(|&&t| t == v).count();
                let dups = if nb.windows(2).all(|w| w[0] <= w[1]) {
                    nb.windows(2).filter(|w| w[0] == w[1]).count()
                } else {
                    let mut s = nb.to_vec();
                    s.sort_unstable();
                    s.windows(2).filter(|w| w[0] == w[1]).count()
                };
                (loops, dups)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        let symmetric = g.is_symmetric();
        let (components, largest_component, start, isolated_vertices) = components(g);
        let max = degs().max().unwrap_or(0);
        let min = degs().min().unwrap_or(0);
        let mean = if n == 0 {
            0.0
        } else {
            g.num_edges() as f64 / f64::from(n)
        };
        let buckets = if max == 0 {
            1
        } else {
            2 + (31 - max.leading_zeros()) as usize
        };
        let mut counts = vec![0u32; buckets];
        for d in (0..n).map(|v| g.degree(v)) {
            counts[bucket(d)] += 1;
        }
        let histogram = counts
            .iter()
            .enumerate()
            .map(|(b, &count)| {
                let (lo, hi) = bucket_range(b);
                DegreeBucket { lo, hi, count }
            })
            .collect();
        let weights = g.weights().filter(|w| !w.is_empty()).map(|w| WeightStats {
            min: w.par_iter().copied().min().unwrap_or(0),
            max: w.par_iter().copied().max().unwrap_or(0),
            mean: w.par_iter().map(|&x| x as f64).sum::<f64>() / w.len() as f64,
        });
        let (diameter_estimate, diameter_sweeps) = match start {
            Some(s) => diameter_lower_bound(g, s),
            None => (0, 0),
        };
        GraphStats {
            vertices: n,
            edges: g.num_edges(),
            weighted: g.weights().is_some(),
            symmetric,
            self_loops,
            duplicate_edges,
            isolated_vertices,
            out_degree: DegreeStats {
                min,
                max,
                mean,
                histogram,
            },
            weights,
            components,
            largest_component,
            diameter_estimate,
            diameter_sweeps,
        }
    }
}

fn bucket(d: u32) -> usize {
    if d == 0 {
        0
    } else {
        1 + (31 - d.leading_zeros()) as usize
    }
}

fn bucket_range(b: usize) -> (u32, u32) {
    if b == 0 {
        (0, 0)
    } else {
        let lo = 1u32 << (b - 1);
        (lo, lo.saturating_mul(2).saturating_sub(1).max(lo))
    }
}

/// Weakly connected components (union-find over the edges): their count, the largest one's
/// size and highest-degree vertex, and the number of isolated vertices.
fn components(g: &Csr) -> (u32, u32, Option<u32>, u32) {
    let n = g.num_vertices();
    let mut parent: Vec<u32> = (0..n).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let up = parent[parent[x as usize] as usize];
            parent[x as usize] = up;
            x = up;
        }
        x
    }
    let mut touched = vec![false; n as usize];
    for v in 0..n {
        for &t in g.neighbours(v) {
            touched[v as usize] = true;
            touched[t as usize] = true;
            let (a, b) = (find(&mut parent, v), find(&mut parent, t));
            if a != b {
                // Union by index: the larger root joins the smaller.
                let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                parent[hi as usize] = lo;
            }
        }
    }
    let mut size = vec![0u32; n as usize];
    let mut count = 0u32;
    for v in 0..n {
        let r = find(&mut parent, v);
        parent[v as usize] = r;
        if size[r as usize] == 0 {
            count += 1;
        }
        size[r as usize] += 1;
    }
    let isolated = touched.iter().filter(|&&t| !t).count() as u32;
    let Some(root) = (0..n).max_by_key(|&v| (size[v as usize], std::cmp::Reverse(v))) else {
        return (0, 0, None, 0);
    };
    let hub = (0..n)
        .filter(|&v| parent[v as usize] == root)
        .max_by_key(|&v| (g.degree(v), std::cmp::Reverse(v)));
    (count, size[root as usize], hub, isolated)
}

/// Hop distances from `s` (`u32::MAX` unreached): returns the farthest vertex and its distance.
fn bfs_farthest(g: &Csr, s: u32, dist: &mut [u32]) -> (u32, u32) {
    dist.fill(u32::MAX);
    dist[s as usize] = 0;
    let mut queue = VecDeque::from([s]);
    let mut far = (s, 0);
    while let Some(v) = queue.pop_front() {
        let d = dist[v as usize];
        if d > far.1 {
            far = (v, d);
        }
        for &t in g.neighbours(v) {
            if dist[t as usize] == u32::MAX {
                dist[t as usize] = d + 1;
                queue.push_back(t);
            }
        }
    }
    far
}

/// Repeated double sweep: BFS from the farthest vertex of the previous BFS until the
/// eccentricity stops growing (at most [`MAX_SWEEPS`] BFS).
fn diameter_lower_bound(g: &Csr, start: u32) -> (u32, u32) {
    let mut dist = vec![0u32; g.num_vertices() as usize];
    let (mut from, mut best) = bfs_farthest(g, start, &mut dist);
    let mut sweeps = 1;
    while sweeps < MAX_SWEEPS {
        let (far, ecc) = bfs_farthest(g, from, &mut dist);
        sweeps += 1;
        if ecc <= best {
            best = best.max(ecc);
            break;
        }
        best = ecc;
        from = far;
    }
    (best, sweeps)
}

impl fmt::Display for GraphStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "vertices            {}", self.vertices)?;
        writeln!(
            f,
            "edges               {} ({}{})",
            self.edges,
            if self.symmetric {
                "symmetric"
            } else {
                "directed"
            },
            if self.weighted { ", weighted" } else { "" }
        )?;
        writeln!(f, "self-loops          {}", self.self_loops)?;
        writeln!(f, "duplicate edges     {}", self.duplicate_edges)?;
        writeln!(f, "isolated vertices   {}", self.isolated_vertices)?;
        let d = &self.out_degree;
        writeln!(
            f,
            "out-degree          min {} max {} mean {:.2}",
            d.min, d.max, d.mean
        )?;
        if let Some(w) = &self.weights {
            writeln!(
                f,
                "weights             min {} max {} mean {:.2}",
                w.min, w.max, w.mean
            )?;
        }
        writeln!(
            f,
            "components          {} (largest {} vertices)",
            self.components, self.largest_component
        )?;
        writeln!(
            f,
            "diameter            >= {} hops (double-sweep BFS, {} sweeps)",
            self.diameter_estimate, self.diameter_sweeps
        )?;
        writeln!(f, "degree histogram")?;
        for b in d.histogram.iter() {
            let range = if b.lo == b.hi {
                format!("{}", b.lo)
            } else {
                format!("{}-{}", b.lo, b.hi)
            };
            writeln!(f, "  {range:>14}  {}", b.count)?;
        }
        Ok(())
    }
}
