//! R-MAT / Kronecker graphs (Chakrabarti et al.; Graph500's generator parameters).

use super::{check_edges, check_weight, random_weight, GenError};
use crate::graph::progress;
use crate::graph::rng::stream;
use crate::graph::EdgeList;
use rand::RngExt;
use rayon::prelude::*;

/// Parameters of [`rmat`].
#[derive(Clone, Debug, PartialEq)]
pub struct RmatParams {
    /// `2^scale` vertices (at most 31).
    pub scale: u32,
    /// `edge_factor · 2^scale` directed edges.
    pub edge_factor: u32,
    /// Probability of the top-left quadrant at each level (Graph500: 0.57).
    pub a: f64,
    /// Top-right (Graph500: 0.19).
    pub b: f64,
    /// Bottom-left (Graph500: 0.19); bottom-right gets `1 - a - b - c`.
    pub c: f64,
    /// Randomly relabel vertices (as Graph500 does) so that degree is not correlated with id.
    pub permute: bool,
    /// Weights are uniform in `1..=max_weight`.
    pub max_weight: u32,
    /// Seed.
    pub seed: u64,
}

impl Default for RmatParams {
    /// Graph500: a = 0.57, b = c = 0.19, edge factor 16, permuted; scale 16, weights 1..=255.
    fn default() -> Self {
        RmatParams {
            scale: 16,
            edge_factor: 16,
            a: 0.57,
            b: 0.19,
            c: 0.19,
            permute: true,
            max_weight: 255,
            seed: 1,
        }
    }
}

/// Edges per independently seeded chunk.
const CHUNK: usize = 1 << 16;

/// A directed R-MAT graph: `edge_factor · 2^scale` edges, each placed by `scale` recursive
/// quadrant choices with probabilities `a, b, c, d`. Self-loops and duplicate edges occur (as
/// in Graph500); remove them when building the CSR if an application needs a simple graph.
/// Generated in parallel.
///
/// ```
/// use occupant_apps::graph::gen::{rmat, RmatParams};
/// let el = rmat(&RmatParams { scale: 8, seed: 3, ..Default::default() })?;
/// assert_eq!((el.num_vertices, el.edges.len()), (256, 16 * 256));
/// assert_eq!(el, rmat(&RmatParams { scale: 8, seed: 3, ..Default::default() })?);
/// # Ok::<(), occupant_apps::graph::gen::GenError>(())
/// ```
pub fn rmat(p: &RmatParams) -> Result<EdgeList, GenError> {
    const G: &str = "rmat";
    if p.scale == 0 || p.scale > 31 {
        return Err(GenError::new(
            G,
            format!("scale {} is outside 1..=31", p.scale),
        ));
    }
    let probs_ok =
        [p.a, p.b, p.c].iter().all(|x| x.is_finite() && *x >= 0.0) && p.a + p.b + p.c <= 1.0;
    if !probs_ok {
        return Err(GenError::new(
            G,
            format!(
                "a={}, b={}, c={} must be non-negative with a+b+c <= 1",
                p.a, p.b, p.c
            ),
        ));
    }
    check_weight(G, p.max_weight)?;
    let n: u64 = 1 << p.scale;
    let m = n * u64::from(p.edge_factor);
    check_edges(G, m, 1)?;
    let m = m as usize;
    let to_u32 = |x: f64| (x * 4_294_967_296.0).min(4_294_967_295.0) as u64;
    let ta = to_u32(p.a);
    let tab = to_u32(p.a + p.b);
    let tabc = to_u32(p.a + p.b + p.c);

    let bar = progress::bar(m as u64, "rmat");
    let mut edges = vec![(0u32, 0u32); m];
    let mut weights = vec![0u32; m];
    edges
        .par_chunks_mut(CHUNK)
        .zip(weights.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(c, (es, ws))| {
            let mut rng = stream(p.seed, c as u64);
            for (e, w) in es.iter_mut().zip(ws.iter_mut()) {
                let (mut s, mut d) = (0u32, 0u32);
                let mut bits = 0u64;
                for level in 0..p.scale {
                    // One 64-bit draw serves two levels.
                    if level % 2 == 0 {
                        bits = rng.random::<u64>();
                    }
                    let r = if level % 2 == 0 {
                        bits & 0xffff_ffff
                    } else {
                        bits >> 32
                    };
                    let (bs, bd) = if r < ta {
                        (0, 0)
                    } else if r < tab {
                        (0, 1)
                    } else if r < tabc {
                        (1, 0)
                    } else {
                        (1, 1)
                    };
                    s = (s << 1) | bs;
                    d = (d << 1) | bd;
                }
                *e = (s, d);
                *w = random_weight(&mut rng, p.max_weight);
            }
            bar.inc(es.len() as u64);
        });
    bar.finish_and_clear();
    if p.permute {
        let perm = permutation(n as u32, p.seed);
        edges.par_iter_mut().for_each(|e| {
            *e = (perm[e.0 as usize], perm[e.1 as usize]);
        });
    }
    Ok(EdgeList {
        num_vertices: n as u32,
        edges,
        weights: Some(weights),
        undirected: false,
    })
}

/// A uniformly random permutation of `0..n` (Fisher–Yates), determined by `seed`.
fn permutation(n: u32, seed: u64) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..n).collect();
    let mut rng = stream(seed, u64::MAX);
    for i in (1..n as usize).rev() {
        let j = rng.random_range(0..=i);
        perm.swap(i, j);
    }
    perm
}
