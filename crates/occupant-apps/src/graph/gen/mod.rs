//! Seeded, deterministic graph generators. Each returns an [`EdgeList`](super::EdgeList) with
//! weights uniform in `1..=max_weight` (unit weights for the stencil), the same for a given set
//! of parameters and seed whatever the number of threads.

mod barabasi_albert;
mod erdos_renyi;
mod geometric;
mod grid;
mod rmat;

pub use barabasi_albert::{barabasi_albert, BaParams};
pub use erdos_renyi::{erdos_renyi, ErParams, ErSize};
pub use geometric::{geometric, GeoParams};
pub use grid::{grid, stencil, GridParams};
pub use rmat::{rmat, RmatParams};

use super::rng::GraphRng;
use rand::RngExt;

/// Edges and their weights, as produced by one parallel task.
pub(crate) type WeightedEdges = (Vec<(u32, u32)>, Vec<u32>);

/// Concatenates the tasks' edges in task order.
pub(crate) fn concat(parts: Vec<WeightedEdges>) -> WeightedEdges {
    let total: usize = parts.iter().map(|p| p.0.len()).sum();
    let mut edges = Vec::with_capacity(total);
    let mut weights = Vec::with_capacity(total);
    for (es, ws) in parts {
        edges.extend_from_slice(&es);
        weights.extend_from_slice(&ws);
    }
    (edges, weights)
}

/// Why a generator refused its parameters.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{generator}: {message}")]
pub struct GenError {
    /// The generator (`rmat`, `grid`, ...).
    pub generator: &'static str,
    /// What is wrong with the parameters.
    pub message: String,
}

impl GenError {
    pub(crate) fn new(generator: &'static str, message: impl Into<String>) -> Self {
        GenError {
            generator,
            message: message.into(),
        }
    }
}

/// A weight uniform in `1..=max_weight` (`max_weight` ≥ 1).
pub(crate) fn random_weight(rng: &mut GraphRng, max_weight: u32) -> u32 {
    rng.random_range(1..=max_weight.max(1))
}

/// Checks `max_weight` ≥ 1.
pub(crate) fn check_weight(generator: &'static str, max_weight: u32) -> Result<(), GenError> {
    if max_weight == 0 {
        return Err(GenError::new(generator, "max weight must be at least 1"));
    }
    Ok(())
}

/// Checks an edge count fits the CSR's `u32` offsets once stored in `directions` directions.
pub(crate) fn check_edges(
    generator: &'static str,
    edges: u64,
    directions: u64,
) -> Result<(), GenError> {
    if edges.saturating_mul(directions) > u64::from(u32::MAX) {
        return Err(GenError::new(
            generator,
            format!(
                "{edges} edges ({} stored) exceed the {} edges a CSR graph holds",
                edges.saturating_mul(directions),
                u32::MAX
            ),
        ));
    }
    Ok(())
}
