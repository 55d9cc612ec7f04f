//! What a placement probe measures, shared by [`Barrier::placed`](super::Barrier::placed) and
//! [`Mutex::placed`](super::Mutex::placed): a primitive's cost at [`PLACES`] candidate places of
//! its own allocation, [`PLACE_SWEEPS`] interleaved sweeps, the fastest kept.

use crate::cuda::PERSISTENT_PLACEMENT_STRIDE_WORDS;
use crate::model::Result;
use serde::Serialize;

/// Candidate places a probe times.
pub const PLACES: usize = 16;

/// Sweeps over every place; a place's time is its fastest sweep.
pub const PLACE_SWEEPS: usize = 2;

/// Times `cost(place)` (ns; lower is better) at every place, [`PLACE_SWEEPS`] times,
/// interleaved: each place's best and the chosen (fastest) place.
pub(super) fn probe(mut cost: impl FnMut(usize) -> Result<f64>) -> Result<(Vec<f64>, usize)> {
    let mut ns = vec![f64::INFINITY; PLACES];
    for _ in 0..PLACE_SWEEPS {
        for (c, best) in ns.iter_mut().enumerate() {
            *best = best.min(cost(c)?);
        }
    }
    let chosen = (0..ns.len())
        .min_by(|&x, &y| ns[x].total_cmp(&ns[y]))
        .unwrap_or(0);
    Ok((ns, chosen))
}

/// What a placement probe measured and chose ([`Barrier::placed`](super::Barrier::placed),
/// [`Mutex::placed`](super::Mutex::placed)).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Places {
    /// Blocks launched by the probe (the shape's participants).
    pub blocks: usize,
    /// Threads per block.
    pub block_threads: usize,
    /// Blocks that took part (discovery keeps the co-resident ones).
    pub participants: usize,
    /// Barriers (a lock: lock/unlock pairs per block) timed per place and sweep.
    pub rounds: u32,
    /// Words between two candidate places.
    pub stride_words: usize,
    /// Nanoseconds per barrier (the median over blocks of each launch), or per lock/unlock
    /// pair of all blocks together (1000 / Mops/s), at each candidate place: the fastest sweep.
    pub ns: Vec<f64>,
    /// The chosen place (the fastest).
    pub chosen: usize,
    /// Wall time of the whole probe, milliseconds (compiling the benchmark kernel, when not
    /// cached, included).
    pub probe_ms: f64,
}

impl Places {
    /// Nanoseconds per barrier (lock/unlock pair) at the chosen place.
    pub fn chosen_ns(&self) -> f64 {
        self.ns[self.chosen]
    }
    /// Nanoseconds at the first place (where an unplaced state would start in the same
    /// allocation).
    pub fn first_ns(&self) -> f64 {
        self.ns[0]
    }
    /// The median place's nanoseconds per barrier (what a barrier placed by chance costs).
    pub fn median_ns(&self) -> f64 {
        let mut v = self.ns.clone();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }
}

/// Words between two candidate places for a state of `words` words: a multiple of the
/// persistent programs' stride (36 KiB + 128 bytes) that no state overlaps.
pub(super) fn stride_for(words: usize) -> usize {
    words.max(1).div_ceil(PERSISTENT_PLACEMENT_STRIDE_WORDS) * PERSISTENT_PLACEMENT_STRIDE_WORDS
}
