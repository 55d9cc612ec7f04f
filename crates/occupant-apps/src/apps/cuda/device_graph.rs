//! A [`Csr`] graph in device memory, with the heavy-vertex split the kernels balance load by.

use crate::graph::Csr;
use occupant::cuda::{Arg, DeviceBuffer, Gpu};
use occupant::Result;

/// Edges per heavy chunk (`kChunk` in graph_apps.cu).
pub const CHUNK: u32 = 256;

/// Default degree above which a vertex's edges are split over the whole grid.
pub const DEFAULT_HEAVY_DEGREE: u32 = 256;

/// A CSR graph uploaded for the CUDA applications: offsets, targets, weights (or a dummy), and
/// the vertices of degree above `heavy_degree` with the prefix sums of their degrees and the
/// owner of every chunk of [`CHUNK`] of their edges.
pub struct DeviceGraph {
    n: u32,
    edges: u64,
    heavy: u32,
    heavy_degree: u32,
    heavy_edges: u64,
    off: DeviceBuffer<u32>,
    col: DeviceBuffer<u32>,
    wt: DeviceBuffer<u32>,
    hv: DeviceBuffer<u32>,
    hoff: DeviceBuffer<u32>,
    hchunk: DeviceBuffer<u32>,
}

fn upload_or_one(gpu: &Gpu, data: &[u32]) -> Result<DeviceBuffer<u32>> {
    if data.is_empty() {
        gpu.alloc_zeroed(1)
    } else {
        gpu.upload(data)
    }
}

impl DeviceGraph {
    /// Uploads `g` with `weights` (one per edge; `None`: no weights) and splits the vertices of
    /// degree above `heavy_degree` (at least [`CHUNK`]). [`occupant::Error::Input`] when the
    /// graph has 2^32 or more edges or the weights do not match the edges.
    pub fn upload(
        gpu: &Gpu,
        g: &Csr,
        weights: Option<&[u32]>,
        heavy_degree: u32,
    ) -> Result<DeviceGraph> {
        let heavy_degree = heavy_degree.max(CHUNK);
        if g.num_edges() >= u32::MAX as usize {
            return Err(occupant::Error::Input(format!(
                "the CUDA applications take graphs of fewer than 2^32 edges, this one has {}",
                g.num_edges()
            )));
        }
        if let Some(w) = weights {
            if w.len() != g.num_edges() {
                return Err(occupant::Error::Input(format!(
                    "{} weights for {} edges",
                    w.len(),
                    g.num_edges()
                )));
            }
        }
        let n = g.num_vertices();
        let hv: Vec<u32> = (0..n).filter(|&v| g.degree(v) > heavy_degree).collect();
        let mut hoff = Vec::with_capacity(hv.len() + 1);
        let mut total = 0u32;
        hoff.push(0);
        for &v in &hv {
            total += g.degree(v);
            hoff.push(total);
        }
        let chunks = total.div_ceil(CHUNK);
        let mut hchunk = Vec::with_capacity(chunks as usize);
        let mut h = 0usize;
        for c in 0..chunks {
            let first = c * CHUNK;
            while hoff[h + 1] <= first {
                h += 1;
            }
            hchunk.push(h as u32);
        }
        Ok(DeviceGraph {
            n,
            edges: g.num_edges() as u64,
            heavy: hv.len() as u32,
            heavy_degree,
            heavy_edges: u64::from(total),
            off: upload_or_one(gpu, g.offsets())?,
            col: upload_or_one(gpu, g.targets())?,
            wt: upload_or_one(gpu, weights.unwrap_or(&[]))?,
            hv: upload_or_one(gpu, &hv)?,
            hoff: upload_or_one(gpu, &hoff)?,
            hchunk: upload_or_one(gpu, &hchunk)?,
        })
    }

    /// Vertices.
    pub fn num_vertices(&self) -> u32 {
        self.n
    }

    /// Edges.
    pub fn num_edges(&self) -> u64 {
        self.edges
    }

    /// Vertices of degree above [`DeviceGraph::heavy_degree`].
    pub fn heavy_vertices(&self) -> u32 {
        self.heavy
    }

    /// Edges of the heavy vertices.
    pub fn heavy_edges(&self) -> u64 {
        self.heavy_edges
    }

    /// The degree above which a vertex is heavy.
    pub fn heavy_degree(&self) -> u32 {
        self.heavy_degree
    }

    /// The kernels' graph parameters (`GRAPH_PARAMS` in graph_apps.cu).
    pub(crate) fn args(&self) -> Vec<Arg<'_>> {
        vec![
            Arg::from(&self.off),
            Arg::from(&self.col),
            Arg::from(&self.wt),
            Arg::from(&self.hv),
            Arg::from(&self.hoff),
            Arg::from(&self.hchunk),
            Arg::from(self.n),
            Arg::from(self.heavy),
            Arg::from(self.heavy_degree),
        ]
    }
}
