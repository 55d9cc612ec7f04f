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

/// The vertices of degree above a threshold (at least [`CHUNK`]), the prefix sums of their
/// degrees (`hoff`, one more entry than `hv`) and, for every chunk of [`CHUNK`] of their edges,
/// the index in `hv` of the vertex holding the chunk's first edge (`hchunk`). Since every heavy
/// vertex has more than [`CHUNK`] edges, a chunk spans at most two heavy vertices.
///
/// ```
/// use occupant_apps::apps::cuda::HeavySplit;
/// use occupant_apps::graph::Csr;
/// let edges: Vec<(u32, u32)> = (0..600).map(|i| (1, i % 3)).chain([(0, 2)]).collect();
/// let g = Csr::from_edges(3, &edges, None).unwrap();
/// let s = HeavySplit::of(&g, 256);
/// assert_eq!((s.hv, s.hoff, s.hchunk), (vec![1], vec![0, 600], vec![0, 0, 0]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeavySplit {
    /// The heavy vertices, in increasing order.
    pub hv: Vec<u32>,
    /// Prefix sums of their degrees (`hv.len() + 1` entries, from 0).
    pub hoff: Vec<u32>,
    /// Per chunk of heavy edge slots: the index in `hv` of the vertex holding its first slot.
    pub hchunk: Vec<u32>,
}

impl HeavySplit {
    /// The split of `g` at `heavy_degree` (raised to [`CHUNK`]).
    pub fn of(g: &Csr, heavy_degree: u32) -> HeavySplit {
        let heavy_degree = heavy_degree.max(CHUNK);
        let hv: Vec<u32> = (0..g.num_vertices())
            .filter(|&v| g.degree(v) > heavy_degree)
            .collect();
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
        HeavySplit { hv, hoff, hchunk }
    }
}

/// Fixed cost of a tile of 32 vertices, in edges, in [`tile_cost_prefix`] (loading their
/// offsets, the prefix sum over their degrees, storing their results). Measured on an H100
/// (pagerank, persistent / multi-kernel, `bench/results/nvidia-h100/apps/i10-tilecost/`):
/// BA-4M 0.989 / 0.966 / 0.978 / 0.968 / 0.950–0.964 / 0.941 at 0 / 8 / 16 / 24 / 48 / 128,
/// R-MAT 22 1.031 at 16 and 1.020 at 48: the edges' cost dominates; 16 keeps the split
/// strictly increasing (every tile in exactly one range) with a small weight per tile.
pub const TILE_COST: u64 = 16;

/// The share of pagerank's tile cost that its device loops split statically, in percent
/// ([`tile_cost_prefix`]); the rest, the highest tiles, the warps claim in chunks of equal cost
/// once their share and their heavy chunks are done. Measured on an H200 (BA-4M, persistent /
/// multi-kernel, `bench/results/nvidia-h200/apps/2026-11-28-pr-tail/`): a static split of all
/// the cost left the warps 6 % behind the host loop's hardware-scheduled blocks, because the
/// cost estimate misses where the ranks sit in the caches; a claimed tail absorbs the error.
/// The kernels claim only where the warps have at least [`PR_TAIL_MIN_COST`] of light tile
/// cost each; elsewhere every tile is static.
pub const PR_STATIC_PERCENT: u32 = 50;

/// The light tile cost per warp (~edges) from which pagerank's device loops claim the tail
/// ([`PR_STATIC_PERCENT`]; `OCC_APP_PR_TAIL_MIN_COST` in graph_apps.cu, whose default this
/// is): every claim is an atomic on one counter and every warp claims once too often per
/// iteration, ~40 us per iteration on R-MAT 20 on an H200 (1140 per warp at 8448 warps: 0.90x
/// the host loop with the tail, 1.05x without), while BA-4M (3952) goes from 0.94x to 0.99x.
pub const PR_TAIL_MIN_COST: u64 = 2048;

/// The tail's claims, in tiles of average cost ([`tile_cost_prefix`]): few enough claims that
/// one counter's atomics stay off the critical path (chunks of 1 tile cost 25-33 % on the
/// edge phases, 2 measured slower than 8 here), small enough to even the warps out.
pub const PR_CLAIM_TILES: u64 = 8;

/// The split of pagerank's device loops (`pr_phase0` in graph_apps.cu): the prefix sums of the
/// costs of the tiles of 32 vertices (`ceil(n / 32) + 1` entries from 0), then two more: the
/// cost of a chunk of [`CHUNK`] heavy edge slots and the number of chunks; then the claimed
/// tail: its number of claims K and K + 1 tile boundaries (the first is where the static part
/// ends, the last is the number of tiles). A tile costs its light edges (those of vertices of
/// degree at most `heavy_degree`, raised to [`CHUNK`] as [`HeavySplit::of`] does) plus
/// [`TILE_COST`]; a chunk [`CHUNK`] plus [`TILE_COST`]. The tile prefix is strictly increasing,
/// so every tile belongs to exactly one warp's range. The heavy chunks go to the warps
/// grid-stride (warp w gets chunks w, w + W, ...), and each warp's share of the static tiles
/// (those before the first [`PR_STATIC_PERCENT`] % of the cost) is the equal share of those
/// tiles and the chunks together less its chunks' cost (the first warps, one chunk each on
/// BA-4M, had had ~7 % more than the others; on an H200 the cooperative and occupancy-API
/// loops went from 14.47 / 14.50 to 14.10 / 14.07 ms there). The tail's claims each cover
/// [`PR_CLAIM_TILES`] tiles' average cost (more tiles where they are light). Graphs without
/// heavy vertices (no claim counter in the kernels) split every tile statically.
///
/// ```
/// use occupant_apps::apps::cuda::{tile_cost_prefix, CHUNK, TILE_COST};
/// use occupant_apps::graph::Csr;
/// // 40 vertices: vertex 0 has 600 edges (heavy), vertex 33 has 5.
/// let edges: Vec<(u32, u32)> = (0..600).map(|i| (0, i % 40)).chain((0..5).map(|i| (33, i))).collect();
/// let g = Csr::from_edges(40, &edges, None).unwrap();
/// let t = TILE_COST;
/// // Tiles 0 and 1 (cost t and t + 5), a chunk's cost, 3 chunks; 60 % of the cost is only
/// // reached with tile 1, so both tiles are static: no claims, the static part ends at tile 2.
/// let p = tile_cost_prefix(&g, 256);
/// assert_eq!(p, vec![0, t, 2 * t + 5, u64::from(CHUNK) + t, 3, 0, 2]);
/// ```
pub fn tile_cost_prefix(g: &Csr, heavy_degree: u32) -> Vec<u64> {
    tile_cost_prefix_with(g, heavy_degree, TILE_COST, PR_STATIC_PERCENT)
}

/// [`tile_cost_prefix`] with `tile_cost` instead of [`TILE_COST`] and `static_percent` (at
/// most 100) instead of [`PR_STATIC_PERCENT`] (for experiments: the apps read them from
/// `OCCUPANT_APP_TILE_COST` and `OCCUPANT_APP_PR_STATIC` when set).
pub fn tile_cost_prefix_with(
    g: &Csr,
    heavy_degree: u32,
    tile_cost: u64,
    static_percent: u32,
) -> Vec<u64> {
    // At least 1: strictly increasing even over tiles without light edges.
    let tile_cost = tile_cost.max(1);
    let heavy_degree = heavy_degree.max(CHUNK);
    let n = g.num_vertices();
    let tiles = n.div_ceil(32) as usize;
    let mut prefix = Vec::with_capacity(tiles + 8);
    let mut total = 0u64;
    prefix.push(0);
    for tile in 0..tiles as u32 {
        let light: u64 = (tile * 32..(tile * 32 + 32).min(n))
            .map(|v| g.degree(v))
            .filter(|&d| d <= heavy_degree)
            .map(u64::from)
            .sum();
        total += light + tile_cost;
        prefix.push(total);
    }
    let heavy_slots: u64 = (0..n)
        .map(|v| g.degree(v))
        .filter(|&d| d > heavy_degree)
        .map(u64::from)
        .sum();
    prefix.push(u64::from(CHUNK) + tile_cost);
    prefix.push(heavy_slots.div_ceil(u64::from(CHUNK)));
    let tail = claimed_tail(&prefix[..=tiles], static_percent.min(100));
    prefix.push(tail.len() as u64 - 1);
    prefix.extend(tail.iter().map(|&t| t as u64));
    prefix
}

/// The boundaries of the claimed tail over the tile prefix `p` (tiles + 1 entries): from the
/// first tile whose prefix reaches `static_percent` % of the cost to the last tile, cut where
/// a claim's cost reaches [`PR_CLAIM_TILES`] average tiles.
fn claimed_tail(p: &[u64], static_percent: u32) -> Vec<usize> {
    let tiles = p.len() - 1;
    let total = p[tiles];
    let split = (u128::from(total) * u128::from(static_percent) / 100) as u64;
    let first = p.partition_point(|&e| e < split).min(tiles);
    let quantum = (PR_CLAIM_TILES * total / (tiles.max(1) as u64)).max(1);
    let mut cuts = vec![first];
    let mut at = first;
    while at < tiles {
        let next = p[at..].partition_point(|&e| e < p[at] + quantum) + at;
        at = next.clamp(at + 1, tiles);
        cuts.push(at);
    }
    cuts
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
        let HeavySplit { hv, hoff, hchunk } = HeavySplit::of(g, heavy_degree);
        let total = *hoff.last().expect("hoff starts with 0");
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// The tile costs count every light edge once and no heavy one, and grow strictly (so
    /// pr_phase0's ranges cover every tile exactly once); the last entry is a chunk's cost.
    #[test]
    fn tile_costs_count_the_light_edges_of_every_tile() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        for _ in 0..40 {
            let n = rng.random_range(1..200u32);
            let mut edges = Vec::new();
            for u in 0..n {
                let d = match rng.random_range(0..3) {
                    0 => rng.random_range(0..4),
                    1 => rng.random_range(250..400),
                    _ => 0,
                };
                edges.extend((0..d).map(|i| (u, i % n)));
            }
            let g = Csr::from_edges(n, &edges, None).unwrap();
            let p = tile_cost_prefix(&g, 100); // raised to CHUNK = 256
            let tiles = n.div_ceil(32) as usize;
            let claims = p[tiles + 3] as usize;
            assert_eq!(p.len(), tiles + 5 + claims);
            assert_eq!(p[0], 0);
            assert!(p[..=tiles].windows(2).all(|w| w[1] > w[0]));
            let light: u64 = (0..n)
                .map(|v| g.degree(v))
                .filter(|&d| d <= CHUNK)
                .map(u64::from)
                .sum();
            assert_eq!(p[tiles], light + TILE_COST * tiles as u64);
            assert_eq!(p[tiles + 1], u64::from(CHUNK) + TILE_COST);
            let chunks = HeavySplit::of(&g, 100).hchunk.len() as u64;
            assert_eq!(p[tiles + 2], chunks);
        }
    }

    /// The kernels' default threshold is this constant.
    #[test]
    fn the_kernels_claim_from_the_documented_cost_per_warp() {
        let define = format!("#define OCC_APP_PR_TAIL_MIN_COST {PR_TAIL_MIN_COST}\n");
        assert!(super::super::GRAPH_APPS_CU.contains(&define));
    }

    /// The claimed tail starts at the first tile whose prefix reaches the static share, ends at
    /// the last tile, and cuts it into claims of at least the quantum (but the last) that
    /// overshoot it by less than one tile.
    #[test]
    fn the_claimed_tail_covers_the_tiles_past_the_static_share_once() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        for _ in 0..60 {
            let n = rng.random_range(1..3000u32);
            let edges: Vec<(u32, u32)> = (0..rng.random_range(0..20000u32))
                .map(|_| {
                    let u = rng.random_range(0..n).min(rng.random_range(0..n));
                    (u, rng.random_range(0..n))
                })
                .collect();
            let g = Csr::from_edges(n, &edges, None).unwrap();
            let percent = [0, 1, 50, 60, 99, 100, 150][rng.random_range(0..7)];
            let p = tile_cost_prefix_with(&g, 256, TILE_COST, percent);
            let tiles = n.div_ceil(32) as usize;
            let claims = p[tiles + 3] as usize;
            let cuts: Vec<usize> = p[tiles + 4..].iter().map(|&c| c as usize).collect();
            assert_eq!(cuts.len(), claims + 1);
            assert_eq!(*cuts.last().unwrap(), tiles);
            assert!(cuts.windows(2).all(|w| w[0] < w[1]));
            let split = p[tiles] * u64::from(percent.min(100)) / 100;
            let first = cuts[0];
            assert!(p[first] >= split || first == tiles);
            assert!(first == 0 || p[first - 1] < split);
            let quantum = (PR_CLAIM_TILES * p[tiles] / tiles as u64).max(1);
            let widest = p[..=tiles].windows(2).map(|w| w[1] - w[0]).max().unwrap();
            for (i, w) in cuts.windows(2).enumerate() {
                let cost = p[w[1]] - p[w[0]];
                assert!(cost < quantum + widest);
                assert!(cost >= quantum || i + 1 == claims);
            }
            if percent >= 100 {
                assert_eq!((claims, first), (0, tiles));
            }
        }
    }

    /// Every heavy edge slot is covered once, by the chunk's owner or the next heavy vertex,
    /// exactly as the kernels' `heavy_edges` walks it.
    #[test]
    fn chunks_cover_every_heavy_edge_once() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        for _ in 0..40 {
            let n = rng.random_range(1..40u32);
            let mut edges = Vec::new();
            for u in 0..n {
                let d = match rng.random_range(0..4) {
                    0 => rng.random_range(0..5),
                    1 => rng.random_range(250..260),
                    2 => rng.random_range(257..1200),
                    _ => rng.random_range(0..300),
                };
                edges.extend((0..d).map(|i| (u, i % n)));
            }
            let g = Csr::from_edges(n, &edges, None).unwrap();
            let s = HeavySplit::of(&g, 256);
            let total = *s.hoff.last().unwrap();
            let mut seen = vec![0u32; total as usize];
            for (c, &h0) in s.hchunk.iter().enumerate() {
                let first = c as u32 * CHUNK;
                let end0 = s.hoff[h0 as usize + 1];
                assert!(s.hoff[h0 as usize] <= first && first < end0);
                for k in first..(first + CHUNK).min(total) {
                    let h = if k < end0 { h0 } else { h0 + 1 };
                    assert!(s.hoff[h as usize] <= k && k < s.hoff[h as usize + 1]);
                    seen[k as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&x| x == 1));
            for (i, &v) in s.hv.iter().enumerate() {
                assert_eq!(s.hoff[i + 1] - s.hoff[i], g.degree(v));
                assert!(g.degree(v) > 256);
            }
        }
    }
}
