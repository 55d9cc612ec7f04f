//! Host-side preparation shared by every backend: the undirected graph of colour, MIS and cc,
//! the transpose PageRank pulls over, the vertex priorities of colour and MIS, edge weights.

use crate::graph::rng::splitmix64;
use crate::graph::Csr;
use std::borrow::Cow;

/// The undirected simple-enough graph colour, MIS and cc run on: every edge in both
/// directions, self-loops dropped (a self-loop would make a proper colouring impossible and
/// a vertex never independent). Returns the input itself (duplicate edges and all: they
/// change no result) when it already is symmetric without self-loops; otherwise builds the
/// symmetric closure without duplicates. Weights are dropped.
///
/// ```
/// use occupant_apps::apps::undirected;
/// use occupant_apps::graph::Csr;
/// let g = Csr::from_edges(3, &[(0, 1), (1, 1), (2, 0)], None)?;
/// let u = undirected(&g);
/// assert_eq!(u.neighbours(0), &[1, 2]);
/// assert_eq!(u.neighbours(1), &[0]);
/// assert_eq!(u.neighbours(2), &[0]);
/// # Ok::<(), occupant_apps::graph::CsrError>(())
/// ```
pub fn undirected(g: &Csr) -> Cow<'_, Csr> {
    if is_symmetric_loop_free(g) {
        return Cow::Borrowed(g);
    }
    let n = g.num_vertices();
    let mut edges = Vec::with_capacity(g.num_edges() * 2);
    for u in 0..n {
        for &v in g.neighbours(u) {
            if u != v {
                edges.push((u, v));
                edges.push((v, u));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    Cow::Owned(Csr::from_edges(n, &edges, None).expect("ids come from a valid graph"))
}

/// Whether every edge `u -> v` has a twin `v -> u` (as a multiset) and no edge is a self-loop.
pub fn is_symmetric_loop_free(g: &Csr) -> bool {
    let n = g.num_vertices();
    let mut fwd = Vec::with_capacity(g.num_edges());
    for u in 0..n {
        for &v in g.neighbours(u) {
            if u == v {
                return false;
            }
            fwd.push((u, v));
        }
    }
    let mut rev: Vec<(u32, u32)> = fwd.iter().map(|&(u, v)| (v, u)).collect();
    fwd.sort_unstable();
    rev.sort_unstable();
    fwd == rev
}

/// The transpose of `g` (in-edges as out-edges), weights dropped: PageRank pulls over it.
pub fn transpose(g: &Csr) -> Csr {
    let n = g.num_vertices();
    let mut edges = Vec::with_capacity(g.num_edges());
    for u in 0..n {
        for &v in g.neighbours(u) {
            edges.push((v, u));
        }
    }
    Csr::from_edges(n, &edges, None).expect("ids come from a valid graph")
}

/// The random priority of vertex `v` for colour and MIS (seeded, reproducible on every
/// backend). Vertices compare by `(priority, id)`, so ties are impossible: see [`beats`].
pub fn priority(seed: u64, v: u32) -> u32 {
    (splitmix64(seed ^ splitmix64(u64::from(v))) >> 32) as u32
}

/// The priorities of every vertex ([`priority`]).
pub fn priorities(n: u32, seed: u64) -> Vec<u32> {
    (0..n).map(|v| priority(seed, v)).collect()
}

/// Whether vertex `u` (priority `pu`) beats vertex `v` (priority `pv`): larger priority, ties
/// to the larger id. A strict total order, so two neighbours never both win.
pub fn beats(pu: u32, u: u32, pv: u32, v: u32) -> bool {
    (pu, u) > (pv, v)
}

/// The edge weights sssp uses: the graph's, or 1 on every edge of an unweighted graph.
pub fn weights_or_unit(g: &Csr) -> Cow<'_, [u32]> {
    match g.weights() {
        Some(w) => Cow::Borrowed(w),
        None => Cow::Owned(vec![1; g.num_edges()]),
    }
}
