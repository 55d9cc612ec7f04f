//! Barabási–Albert preferential-attachment graphs.

use super::{check_edges, check_weight, random_weight, GenError};
use crate::graph::progress;
use crate::graph::rng::stream;
use crate::graph::EdgeList;
use rand::RngExt;

/// Parameters of [`barabasi_albert`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaParams {
    /// Vertices (more than `m`).
    pub n: u32,
    /// Edges each new vertex brings (at least 1).
    pub m: u32,
    /// Weights are uniform in `1..=max_weight`.
    pub max_weight: u32,
    /// Seed.
    pub seed: u64,
}

/// An undirected Barabási–Albert graph: vertices `m..n` arrive in turn and each joins `m`
/// distinct earlier vertices chosen with probability proportional to their degree (vertex `m`
/// joins `0..m`). `(n - m) · m` edges, no self-loops or duplicates; power-law degrees.
/// Sequential (each step depends on the previous ones): O(n · m).
///
/// ```
/// use occupant_apps::graph::gen::{barabasi_albert, BaParams};
/// let el = barabasi_albert(&BaParams { n: 50, m: 3, max_weight: 5, seed: 2 })?;
/// assert_eq!(el.edges.len(), 47 * 3);
/// # Ok::<(), occupant_apps::graph::gen::GenError>(())
/// ```
pub fn barabasi_albert(p: &BaParams) -> Result<EdgeList, GenError> {
    const G: &str = "ba";
    check_weight(G, p.max_weight)?;
    if p.m == 0 || p.n <= p.m {
        return Err(GenError::new(
            G,
            format!("need 1 <= m < n, got n = {}, m = {}", p.n, p.m),
        ));
    }
    let total = u64::from(p.n - p.m) * u64::from(p.m);
    check_edges(G, total, 2)?;
    let mut rng = stream(p.seed, 0);
    let mut edges = Vec::with_capacity(total as usize);
    let mut weights = Vec::with_capacity(total as usize);
    // Every edge endpoint once: a uniform pick from it is a degree-proportional pick.
    let mut endpoints: Vec<u32> = Vec::with_capacity(2 * total as usize);
    let mut targets: Vec<u32> = (0..p.m).collect();
    let bar = progress::bar(total, "ba");
    for source in p.m..p.n {
        if source % 65536 == 0 {
            bar.set_position(u64::from(source - p.m) * u64::from(p.m));
        }
        for &t in &targets {
            edges.push((source, t));
            weights.push(random_weight(&mut rng, p.max_weight));
            endpoints.push(t);
            endpoints.push(source);
        }
        targets.clear();
        while targets.len() < p.m as usize {
            let t = endpoints[rng.random_range(0..endpoints.len())];
            if !targets.contains(&t) {
                targets.push(t);
            }
        }
    }
    bar.finish_and_clear();
    Ok(EdgeList {
        num_vertices: p.n,
        edges,
        weights: Some(weights),
        undirected: true,
    })
}
