//! The compressed-sparse-row graph every application reads.

/// A directed graph in compressed sparse row form, with optional `u32` edge weights.
///
/// Vertex ids are `u32` (`0..num_vertices()`); the out-edges of vertex `v` are
/// `targets[offsets[v] as usize..offsets[v + 1] as usize]` (and the same range of `weights`).
/// Undirected graphs store each edge in both directions. Offsets are `u32`, so a graph holds at
/// most `u32::MAX` edges; larger inputs are rejected with [`CsrError::TooManyEdges`].
///
/// ```
/// use occupant_apps::graph::Csr;
/// // 0 -> 1, 0 -> 2, 2 -> 1
/// let g = Csr::from_edges(3, &[(0, 1), (0, 2), (2, 1)], None)?;
/// assert_eq!(g.neighbours(0), &[1, 2]);
/// assert_eq!(g.num_edges(), 3);
/// # Ok::<(), occupant_apps::graph::CsrError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr {
    offsets: Vec<u32>,
    targets: Vec<u32>,
    weights: Option<Vec<u32>>,
}

/// Why a CSR graph could not be built.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CsrError {
    /// An edge names a vertex outside `0..num_vertices`.
    #[error("edge {index} ({src} -> {dst}) names a vertex outside 0..{num_vertices}")]
    VertexOutOfRange {
        /// Position of the edge in the input.
        index: usize,
        /// Its source.
        src: u32,
        /// Its target.
        dst: u32,
        /// The number of vertices.
        num_vertices: u32,
    },
    /// More edges than `u32` offsets can address.
    #[error("{edges} edges: a CSR graph holds at most {} edges", u32::MAX)]
    TooManyEdges {
        /// The number of edges asked for.
        edges: usize,
    },
    /// Weights were given but not one per edge.
    #[error("{weights} weights for {edges} edges")]
    WeightCount {
        /// Number of weights.
        weights: usize,
        /// Number of edges.
        edges: usize,
    },
    /// The arrays do not form a CSR graph.
    #[error("malformed CSR arrays: {0}")]
    Malformed(String),
}

impl Csr {
    /// Builds a graph from an edge list (counting sort by source; edges of one source keep their
    /// input order). `weights`, if given, has one entry per edge.
    pub fn from_edges(
        num_vertices: u32,
        edges: &[(u32, u32)],
        weights: Option<&[u32]>,
    ) -> Result<Self, CsrError> {
        if edges.len() > u32::MAX as usize {
            return Err(CsrError::TooManyEdges { edges: edges.len() });
        }
        if let Some(w) = weights {
            if w.len() != edges.len() {
                return Err(CsrError::WeightCount {
                    weights: w.len(),
                    edges: edges.len(),
                });
            }
        }
        let mut offsets = vec![0u32; num_vertices as usize + 1];
        for (index, &(src, dst)) in edges.iter().enumerate() {
            if src >= num_vertices || dst >= num_vertices {
                return Err(CsrError::VertexOutOfRange {
                    index,
                    src,
                    dst,
                    num_vertices,
                });
            }
            offsets[src as usize + 1] += 1;
        }
        for v in 0..num_vertices as usize {
            offsets[v + 1] += offsets[v];
        }
        let mut next = offsets.clone();
        let mut targets = vec![0u32; edges.len()];
        let mut out_weights = weights.map(|_| vec![0u32; edges.len()]);
        for (i, &(src, dst)) in edges.iter().enumerate() {
            let slot = next[src as usize] as usize;
            next[src as usize] += 1;
            targets[slot] = dst;
            if let (Some(out), Some(w)) = (out_weights.as_mut(), weights) {
                out[slot] = w[i];
            }
        }
        Ok(Csr {
            offsets,
            targets,
            weights: out_weights,
        })
    }

    /// Wraps CSR arrays after checking them: `offsets` has `num_vertices + 1` non-decreasing
    /// entries starting at 0 and ending at `targets.len()`, every target is a vertex, and
    /// `weights` (if any) has one entry per edge.
    pub fn from_parts(
        offsets: Vec<u32>,
        targets: Vec<u32>,
        weights: Option<Vec<u32>>,
    ) -> Result<Self, CsrError> {
        let Some((&first, &last)) = offsets.first().zip(offsets.last()) else {
            return Err(CsrError::Malformed("offsets is empty".into()));
        };
        if first != 0 || last as usize != targets.len() {
            return Err(CsrError::Malformed(format!(
                "offsets run from {first} to {last}, expected 0 to {}",
                targets.len()
            )));
        }
        if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
            return Err(CsrError::Malformed(format!(
                "offsets decrease at vertex {i}"
            )));
        }
        let n = (offsets.len() - 1) as u32;
        if let Some(index) = targets.iter().position(|&t| t >= n) {
            let src = offsets.partition_point(|&o| o as usize <= index) as u32 - 1;
            return Err(CsrError::VertexOutOfRange {
                index,
                src,
                dst: targets[index],
                num_vertices: n,
            });
        }
        if let Some(w) = &weights {
            if w.len() != targets.len() {
                return Err(CsrError::WeightCount {
                    weights: w.len(),
                    edges: targets.len(),
                });
            }
        }
        Ok(Csr {
            offsets,
            targets,
            weights,
        })
    }

    /// Wraps arrays the caller has built correctly (the parallel builder).
    pub(super) fn from_raw(
        offsets: Vec<u32>,
        targets: Vec<u32>,
        weights: Option<Vec<u32>>,
    ) -> Self {
        debug_assert_eq!(*offsets.last().unwrap() as usize, targets.len());
        Csr {
            offsets,
            targets,
            weights,
        }
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> u32 {
        (self.offsets.len() - 1) as u32
    }

    /// Number of (directed) edges.
    pub fn num_edges(&self) -> usize {
        self.targets.len()
    }

    /// The out-neighbours of `v`.
    pub fn neighbours(&self, v: u32) -> &[u32] {
        &self.targets[self.edge_range(v)]
    }

    /// The weights of `v`'s out-edges, if the graph is weighted.
    pub fn edge_weights(&self, v: u32) -> Option<&[u32]> {
        let r = self.edge_range(v);
        self.weights.as_ref().map(|w| &w[r])
    }

    /// The positions of `v`'s out-edges in [`Csr::targets`].
    pub fn edge_range(&self, v: u32) -> std::ops::Range<usize> {
        self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize
    }

    /// Out-degree of `v`.
    pub fn degree(&self, v: u32) -> u32 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }

    /// The offsets array (`num_vertices + 1` entries).
    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    /// The targets array (one entry per edge).
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// The weights array, if the graph is weighted (one entry per edge).
    pub fn weights(&self) -> Option<&[u32]> {
        self.weights.as_deref()
    }
}
