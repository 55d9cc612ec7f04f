//! Random geometric graphs with optional long shortcuts: road-like inputs.

use super::{check_edges, check_weight, concat, GenError, WeightedEdges};
use crate::graph::rng::stream;
use crate::graph::EdgeList;
use rand::RngExt;
use rayon::prelude::*;

/// Parameters of [`geometric`].
#[derive(Clone, Debug, PartialEq)]
pub struct GeoParams {
    /// Vertices (points in the unit square).
    pub n: u32,
    /// Target mean degree: the connection radius is `sqrt(degree / (π n))`.
    pub degree: f64,
    /// Extra random long-range edges ("highways"), as a fraction of `n`.
    pub shortcuts: f64,
    /// An edge of length equal to the radius weighs `max_weight`; shorter ones proportionally
    /// less (at least 1). Shortcuts weigh half their length's worth (faster roads).
    pub max_weight: u32,
    /// Seed.
    pub seed: u64,
}

/// Points per independently seeded chunk.
const CHUNK: u32 = 1 << 14;

/// An undirected random geometric graph: `n` uniform points in the unit square, an edge
/// between every two points closer than the radius, weighted by length; plus
/// `shortcuts · n` edges between uniformly random pairs. Vertices are numbered cell by cell
/// (spatial locality, as in real road networks). High diameter (≈ `1/radius` hops) like a
/// road network; the shortcuts lower it as highways do. Parallel over grid cells.
///
/// ```
/// use occupant_apps::graph::gen::{geometric, GeoParams};
/// let p = GeoParams { n: 1000, degree: 6.0, shortcuts: 0.01, max_weight: 100, seed: 7 };
/// let el = geometric(&p)?;
/// assert_eq!(el.num_vertices, 1000);
/// assert_eq!(el, geometric(&p)?);
/// # Ok::<(), occupant_apps::graph::gen::GenError>(())
/// ```
pub fn geometric(p: &GeoParams) -> Result<EdgeList, GenError> {
    const G: &str = "geo";
    check_weight(G, p.max_weight)?;
    if p.n == 0 {
        return Err(GenError::new(G, "n must be at least 1"));
    }
    if !(p.degree.is_finite() && p.degree > 0.0) {
        return Err(GenError::new(G, format!("degree {} must be > 0", p.degree)));
    }
    if !(p.shortcuts.is_finite() && p.shortcuts >= 0.0) {
        return Err(GenError::new(
            G,
            format!("shortcuts {} must be >= 0", p.shortcuts),
        ));
    }
    let n = p.n as usize;
    let expected = (p.degree * n as f64 / 2.0 + p.shortcuts * n as f64) * 1.5;
    check_edges(G, expected as u64, 2)?;
    let radius = (p.degree / (std::f64::consts::PI * n as f64))
        .sqrt()
        .min(1.0);
    // Cells at least `radius` wide (so neighbours lie in the 3x3 block), about one per point at most.
    let cells = ((1.0 / radius).floor() as usize).clamp(1, (n as f64).sqrt() as usize + 1);
    let cell_of = |x: f64, y: f64| {
        let cx = ((x * cells as f64) as usize).min(cells - 1);
        let cy = ((y * cells as f64) as usize).min(cells - 1);
        cy * cells + cx
    };

    // Points, then numbered by cell (counting sort; stable within a cell).
    let mut raw = vec![(0.0f64, 0.0f64); n];
    raw.par_chunks_mut(CHUNK as usize)
        .enumerate()
        .for_each(|(c, pts)| {
            let mut rng = stream(p.seed, c as u64);
            for pt in pts {
                *pt = (rng.random::<f64>(), rng.random::<f64>());
            }
        });
    let mut start = vec![0usize; cells * cells + 1];
    for &(x, y) in &raw {
        start[cell_of(x, y) + 1] += 1;
    }
    for i in 0..cells * cells {
        start[i + 1] += start[i];
    }
    let mut next = start.clone();
    let mut pts = vec![(0.0f64, 0.0f64); n];
    for &(x, y) in &raw {
        let c = cell_of(x, y);
        pts[next[c]] = (x, y);
        next[c] += 1;
    }
    drop(raw);
    drop(next);

    let r2 = radius * radius;
    let weigh = |d2: f64, factor: f64| -> u32 {
        let w = (d2.sqrt() / radius * p.max_weight as f64 * factor).ceil();
        w.clamp(1.0, u32::MAX as f64) as u32
    };
    // Near edges: each pair once, from the lower-numbered point.
    let rows: Vec<WeightedEdges> = (0..cells)
        .into_par_iter()
        .map(|cy| {
            let mut es = Vec::new();
            let mut ws = Vec::new();
            for cx in 0..cells {
                let c = cy * cells + cx;
                for i in start[c]..start[c + 1] {
                    let (x, y) = pts[i];
                    for ny in cy.saturating_sub(1)..=(cy + 1).min(cells - 1) {
                        for nx in cx.saturating_sub(1)..=(cx + 1).min(cells - 1) {
                            let nc = ny * cells + nx;
                            let lo = start[nc].max(i + 1);
                            let hi = start[nc + 1].max(lo);
                            for (j, &(u, v)) in pts.iter().enumerate().take(hi).skip(lo) {
                                let d2 = (u - x) * (u - x) + (v - y) * (v - y);
                                if d2 <= r2 {
                                    es.push((i as u32, j as u32));
                                    ws.push(weigh(d2, 1.0));
                                }
                            }
                        }
                    }
                }
            }
            (es, ws)
        })
        .collect();
    let shortcuts = (p.shortcuts * n as f64).round() as u64;
    let (mut edges, mut weights) = concat(rows);
    if n >= 2 {
        let mut rng = stream(p.seed, u64::MAX - 1);
        for _ in 0..shortcuts {
            let a = rng.random_range(0..p.n);
            let mut b = rng.random_range(0..p.n - 1);
            if b >= a {
                b += 1;
            }
            let (x, y) = pts[a as usize];
            let (u, v) = pts[b as usize];
            edges.push((a, b));
            weights.push(weigh((u - x) * (u - x) + (v - y) * (v - y), 0.5));
        }
    }
    check_edges(G, edges.len() as u64, 2)?;
    Ok(EdgeList {
        num_vertices: p.n,
        edges,
        weights: Some(weights),
        undirected: true,
    })
}
