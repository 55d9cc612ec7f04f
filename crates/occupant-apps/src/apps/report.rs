//! The summary of one application run.

use serde::Serialize;

/// What one run of an application did, for the CLI's summary and JSON.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// Application name ([`AppKind::name`](super::AppKind::name)).
    pub app: String,
    /// `"cpu"` or `"cuda"`.
    pub backend: String,
    /// Variant name ([`Variant::name`](super::Variant::name)).
    pub variant: String,
    /// The input (file path or generator spec).
    pub graph: String,
    /// Vertices of the input.
    pub vertices: u32,
    /// Directed edges of the input.
    pub edges: u64,
    /// Iterations (phases separated by a launch or a barrier) until convergence.
    pub iterations: u32,
    /// Wall time of the computation in milliseconds (preparation and copies excluded).
    pub time_ms: f64,
    /// `edges / time` (edges of the input per second of computation).
    pub edges_per_s: f64,
    /// Participating groups of a persistent run (discovery's count); `None` for the others.
    pub participants: Option<u32>,
    /// Vertices with a finite result (bfs, sssp: reached from the source).
    pub reached: Option<u64>,
    /// Whether the output matched the reference (`None`: not checked).
    pub verified: Option<bool>,
}
