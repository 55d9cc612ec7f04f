//! An edge list: what readers and generators produce before a CSR graph is built.

use super::build::BuildOptions;
use super::{Csr, CsrError};

/// A graph as a list of edges over vertices `0..num_vertices`, with optional `u32` weights.
///
/// When `undirected` is set, each listed edge `(u, v)` stands for both `u -> v` and `v -> u`
/// (as in a symmetric MatrixMarket file or an undirected generator); [`EdgeList::to_csr`]
/// then stores both directions.
///
/// ```
/// use occupant_apps::graph::{BuildOptions, EdgeList};
/// let el = EdgeList { num_vertices: 3, edges: vec![(0, 1), (1, 2)], weights: None, undirected: true };
/// let g = el.to_csr(&BuildOptions::default())?;
/// assert_eq!(g.num_edges(), 4);
/// assert_eq!(g.neighbours(1), &[0, 2]);
/// # Ok::<(), occupant_apps::graph::CsrError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct EdgeList {
    /// Number of vertices; every edge endpoint is below it.
    pub num_vertices: u32,
    /// The edges `(source, target)`.
    pub edges: Vec<(u32, u32)>,
    /// One weight per edge, if weighted.
    pub weights: Option<Vec<u32>>,
    /// Each edge stands for both directions.
    pub undirected: bool,
}

impl EdgeList {
    /// Builds the CSR graph (in parallel; see [`Csr::build`]). An undirected list is
    /// symmetrised whatever `options.symmetrize` says.
    pub fn to_csr(&self, options: &BuildOptions) -> Result<Csr, CsrError> {
        let opts = BuildOptions {
            symmetrize: options.symmetrize || self.undirected,
            ..*options
        };
        Csr::build(
            self.num_vertices,
            &self.edges,
            self.weights.as_deref(),
            &opts,
        )
    }

    /// The directed edge list of a CSR graph (edges in CSR order).
    pub fn from_csr(g: &Csr) -> Self {
        let mut edges = Vec::with_capacity(g.num_edges());
        for v in 0..g.num_vertices() {
            edges.extend(g.neighbours(v).iter().map(|&t| (v, t)));
        }
        EdgeList {
            num_vertices: g.num_vertices(),
            edges,
            weights: g.weights().map(<[u32]>::to_vec),
            undirected: false,
        }
    }

    /// Number of listed edges (an undirected edge counts once).
    pub fn len(&self) -> usize {
        self.edges.len()
    }

    /// Whether no edge is listed.
    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }
}
