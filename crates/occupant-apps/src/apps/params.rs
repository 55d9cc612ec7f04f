//! Application parameters.

use serde::Serialize;

/// Parameters of an application run; each application reads the ones it needs.
///
/// ```
/// use occupant_apps::apps::AppParams;
/// let p = AppParams { source: 3, ..AppParams::default() };
/// assert_eq!(p.damping, 0.85);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AppParams {
    /// Source vertex of bfs, sssp, sssp-worklist and bc.
    pub source: u32,
    /// PageRank stops when the ranks changed by at most this in L1 norm (`Σ|r' − r|`) in one
    /// iteration (default 1e-6).
    pub tolerance: f64,
    /// PageRank damping factor (default 0.85).
    pub damping: f64,
    /// Most PageRank iterations (default 10 000): PageRank stops there even if it has not
    /// reached the tolerance. The other applications always converge (bfs, sssp, cc and the
    /// worklist settle within `n + 1` iterations; colour and MIS decide at least one vertex per
    /// iteration) and are only cut off, with an error, past that bound.
    pub max_iterations: u32,
    /// Seed of the random vertex priorities of colour and MIS.
    pub seed: u64,
}

impl Default for AppParams {
    fn default() -> Self {
        Self {
            source: 0,
            tolerance: 1e-6,
            damping: 0.85,
            max_iterations: 10_000,
            seed: 1,
        }
    }
}
