//! Erdős–Rényi random graphs, G(n, p) and G(n, m).

use super::{check_edges, check_weight, concat, random_weight, GenError, WeightedEdges};
use crate::graph::progress;
use crate::graph::rng::stream;
use crate::graph::EdgeList;
use rand::RngExt;
use rayon::prelude::*;

/// The size parameter of [`erdos_renyi`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ErSize {
    /// G(n, p): each unordered pair is an edge with probability `p`.
    Probability(f64),
    /// G(n, m): `m` edges with uniformly random distinct endpoints (duplicates possible;
    /// remove them when building if needed).
    Edges(u64),
}

/// Parameters of [`erdos_renyi`].
#[derive(Clone, Debug, PartialEq)]
pub struct ErParams {
    /// Vertices.
    pub n: u32,
    /// `p` or `m`.
    pub size: ErSize,
    /// Weights are uniform in `1..=max_weight`.
    pub max_weight: u32,
    /// Seed.
    pub seed: u64,
}

/// Rows (G(n, p)) or edges (G(n, m)) per independently seeded chunk.
const CHUNK: u64 = 1 << 12;

/// An undirected Erdős–Rényi graph without self-loops. G(n, p) uses geometric skipping
/// (Batagelj–Brandes), so the cost is linear in `n + m`; both forms are generated in parallel.
///
/// ```
/// use occupant_apps::graph::gen::{erdos_renyi, ErParams, ErSize};
/// let el = erdos_renyi(&ErParams { n: 100, size: ErSize::Edges(300), max_weight: 10, seed: 1 })?;
/// assert_eq!(el.edges.len(), 300);
/// assert!(el.edges.iter().all(|&(u, v)| u != v));
/// # Ok::<(), occupant_apps::graph::gen::GenError>(())
/// ```
pub fn erdos_renyi(p: &ErParams) -> Result<EdgeList, GenError> {
    const G: &str = "er";
    check_weight(G, p.max_weight)?;
    if p.n == 0 {
        return Err(GenError::new(G, "n must be at least 1"));
    }
    let n = u64::from(p.n);
    let bar = progress::bar(
        match p.size {
            ErSize::Probability(_) => n,
            ErSize::Edges(m) => m,
        },
        "er",
    );
    let chunks: Vec<WeightedEdges> = match p.size {
        ErSize::Probability(prob) => {
            if !(0.0..=1.0).contains(&prob) {
                return Err(GenError::new(G, format!("p = {prob} is outside [0, 1]")));
            }
            let expected = prob * (n as f64) * (n as f64 - 1.0) / 2.0;
            check_edges(G, expected as u64, 2)?;
            (0..n.div_ceil(CHUNK))
                .into_par_iter()
                .map(|c| {
                    let mut rng = stream(p.seed, c);
                    let mut es = Vec::new();
                    let mut ws = Vec::new();
                    let log_q = (1.0 - prob).ln();
                    for v in c * CHUNK..((c + 1) * CHUNK).min(n) {
                        if prob <= 0.0 {
                            break;
                        }
                        // Pairs (v, w) with w < v, visited with geometric gaps.
                        let mut w: i64 = -1;
                        loop {
                            let skip = if prob >= 1.0 {
                                0
                            } else {
                                let r: f64 = rng.random::<f64>();
                                ((1.0 - r).ln() / log_q).floor() as i64
                            };
                            w = w.saturating_add(1).saturating_add(skip.max(0));
                            if w >= v as i64 {
                                break;
                            }
                            es.push((v as u32, w as u32));
                            ws.push(random_weight(&mut rng, p.max_weight));
                        }
                    }
                    bar.inc(CHUNK);
                    (es, ws)
                })
                .collect()
        }
        ErSize::Edges(m) => {
            if p.n < 2 && m > 0 {
                return Err(GenError::new(G, "edges without self-loops need n >= 2"));
            }
            check_edges(G, m, 2)?;
            (0..m.div_ceil(CHUNK))
                .into_par_iter()
                .map(|c| {
                    let mut rng = stream(p.seed, c);
                    let k = (m - c * CHUNK).min(CHUNK) as usize;
                    let mut es = Vec::with_capacity(k);
                    let mut ws = Vec::with_capacity(k);
                    for _ in 0..k {
                        let u = rng.random_range(0..p.n);
                        let mut v = rng.random_range(0..p.n - 1);
                        if v >= u {
                            v += 1;
                        }
                        es.push((u, v));
                        ws.push(random_weight(&mut rng, p.max_weight));
                    }
                    bar.inc(k as u64);
                    (es, ws)
                })
                .collect()
        }
    };
    bar.finish_and_clear();
    let (edges, weights) = concat(chunks);
    check_edges(G, edges.len() as u64, 2)?;
    Ok(EdgeList {
        num_vertices: p.n,
        edges,
        weights: Some(weights),
        undirected: true,
    })
}
