//! 2-D grids: road-like grids with random weights (high diameter) and the 5-point stencil.

use super::{check_edges, check_weight, concat, random_weight, GenError, WeightedEdges};
use crate::graph::rng::stream;
use crate::graph::EdgeList;
use rayon::prelude::*;

/// Parameters of [`grid`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridParams {
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Weights are uniform in `1..=max_weight`.
    pub max_weight: u32,
    /// Seed.
    pub seed: u64,
}

/// An undirected `width × height` grid: vertex `y·width + x` is joined to its right and lower
/// neighbours (4-neighbourhood), each edge with a weight uniform in `1..=max_weight` (the same
/// in both directions). Its diameter in hops is `width + height - 2`: a stand-in for road
/// networks, whose diameter is in the thousands.
///
/// ```
/// use occupant_apps::graph::gen::{grid, GridParams};
/// let el = grid(&GridParams { width: 4, height: 3, max_weight: 9, seed: 1 })?;
/// assert_eq!((el.num_vertices, el.edges.len()), (12, 3 * 3 + 4 * 2));
/// assert!(el.undirected);
/// # Ok::<(), occupant_apps::graph::gen::GenError>(())
/// ```
pub fn grid(p: &GridParams) -> Result<EdgeList, GenError> {
    check_weight("grid", p.max_weight)?;
    lattice("grid", p.width, p.height, Some((p.max_weight, p.seed)))
}

/// The graph of the 5-point stencil on a `width × height` grid (the shape of Pannotia's
/// ecology input): the 4-neighbour grid without the diagonal entries, unit weights.
///
/// ```
/// let el = occupant_apps::graph::gen::stencil(1000, 1000)?;
/// assert_eq!(el.num_vertices, 1_000_000);
/// # Ok::<(), occupant_apps::graph::gen::GenError>(())
/// ```
pub fn stencil(width: u32, height: u32) -> Result<EdgeList, GenError> {
    lattice("stencil", width, height, None)
}

fn lattice(
    g: &'static str,
    width: u32,
    height: u32,
    random: Option<(u32, u64)>,
) -> Result<EdgeList, GenError> {
    let n = u64::from(width) * u64::from(height);
    if n == 0 || n > u64::from(u32::MAX) {
        return Err(GenError::new(
            g,
            format!(
                "{width}x{height} = {n} vertices: need 1..={} vertices",
                u32::MAX
            ),
        ));
    }
    let (w, h) = (u64::from(width), u64::from(height));
    let m = (w - 1) * h + w * (h - 1);
    check_edges(g, m, 2)?;
    let rows: Vec<WeightedEdges> = (0..height)
        .into_par_iter()
        .map(|y| {
            let mut rng = random.map(|(_, seed)| stream(seed, u64::from(y)));
            let mut weight = || match (&mut rng, random) {
                (Some(r), Some((max, _))) => random_weight(r, max),
                _ => 1,
            };
            let mut es = Vec::with_capacity(2 * width as usize);
            let mut ws = Vec::with_capacity(2 * width as usize);
            let base = y * width;
            for x in 0..width {
                let v = base + x;
                if x + 1 < width {
                    es.push((v, v + 1));
                    ws.push(weight());
                }
                if y + 1 < height {
                    es.push((v, v + width));
                    ws.push(weight());
                }
            }
            (es, ws)
        })
        .collect();
    let (edges, weights) = concat(rows);
    Ok(EdgeList {
        num_vertices: n as u32,
        edges,
        weights: Some(weights),
        undirected: true,
    })
}
