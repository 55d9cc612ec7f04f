//! What a placement probe measures, shared by [`Barrier::placed`](super::Barrier::placed) and
//! [`Mutex::placed`](super::Mutex::placed): a primitive's cost at [`PLACES`] candidate places of
//! its own allocation, [`PLACE_SWEEPS`] interleaved sweeps, the fastest kept.

use crate::cuda::PERSISTENT_PLACEMENT_STRIDE_WORDS;
use crate::model::{Error, Result};
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
    /// cached, included; every kind's probe when several were timed).
    pub probe_ms: f64,
    /// Every kind the probe timed, fastest chosen place first: one, unless the object was
    /// made by `placed_among` or `with_default_kind_placed`, which time the kinds the
    /// device's measurements cannot tell apart and keep the fastest at its fastest place.
    pub kinds: Vec<ProbedKind>,
}

/// One kind a placement probe timed: its fastest and its median place.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbedKind {
    /// The kind's name.
    pub kind: String,
    /// Nanoseconds at its fastest place.
    pub chosen_ns: f64,
    /// Nanoseconds at its median place.
    pub median_ns: f64,
}

impl ProbedKind {
    /// What a probe of `kind` measured in `places`.
    pub(super) fn of(kind: &str, places: &Places) -> Self {
        ProbedKind {
            kind: kind.to_string(),
            chosen_ns: places.chosen_ns(),
            median_ns: places.median_ns(),
        }
    }
}

/// Places an object of each of `kinds` (duplicates once) with `place`, and keeps the one whose
/// chosen place is fastest, its [`Places::kinds`] listing every kind probed, fastest first, and
/// its [`Places::probe_ms`] the probes' total (`places` reaches an object's measurements; an
/// object without them, from a shape the probe skips, counts as slowest). A kind whose probe
/// fails is passed over while another succeeds; when all fail, the first error comes back.
/// `what` names the caller in the error for an empty `kinds`.
pub(super) fn place_each<K: Copy + PartialEq, T>(
    what: &str,
    kinds: &[K],
    mut place: impl FnMut(K) -> Result<T>,
    places: impl Fn(&mut T) -> Option<&mut Places>,
) -> Result<T> {
    if kinds.is_empty() {
        return Err(Error::InvalidLaunch(format!(
            "{what}: no kind to place (give at least one)"
        )));
    }
    let mut placed = Vec::new();
    let mut first_error = None;
    for (i, &kind) in kinds.iter().enumerate() {
        if kinds[..i].contains(&kind) {
            continue;
        }
        match place(kind) {
            Ok(t) => placed.push(t),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    let mut kinds = Vec::new();
    let mut total_ms = 0.0;
    let mut costs = Vec::with_capacity(placed.len());
    for p in placed.iter_mut() {
        match places(p) {
            Some(pl) => {
                kinds.extend(pl.kinds.iter().cloned());
                total_ms += pl.probe_ms;
                costs.push(pl.chosen_ns());
            }
            None => costs.push(f64::INFINITY),
        }
    }
    let Some(best) = (0..costs.len()).min_by(|&x, &y| costs[x].total_cmp(&costs[y])) else {
        return Err(first_error
            .unwrap_or_else(|| Error::InvalidLaunch(format!("{what}: no kind was placed"))));
    };
    let mut chosen = placed.swap_remove(best);
    if let Some(pl) = places(&mut chosen) {
        kinds.sort_by(|a, b| a.chosen_ns.total_cmp(&b.chosen_ns));
        pl.kinds = kinds;
        pl.probe_ms = total_ms;
    }
    Ok(chosen)
}

impl Places {
    /// These measurements as one kind's probe: [`Places::kinds`] becomes that kind alone.
    pub(super) fn of_kind(mut self, kind: &str) -> Self {
        self.kinds = vec![ProbedKind::of(kind, &self)];
        self
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn places(kind: &str, ns: &[f64]) -> Places {
        let chosen = (0..ns.len())
            .min_by(|&x, &y| ns[x].total_cmp(&ns[y]))
            .unwrap();
        Places {
            blocks: 1,
            block_threads: 32,
            participants: 1,
            rounds: 1,
            stride_words: 1,
            ns: ns.to_vec(),
            chosen,
            probe_ms: 10.0,
            kinds: Vec::new(),
        }
        .of_kind(kind)
    }

    #[test]
    fn the_kind_fastest_at_its_best_place_wins_and_lists_every_kind() {
        // "a" has the better median, "b" the better best place: "b" wins.
        let table = [
            ("a", vec![900.0, 905.0, 910.0]),
            ("b", vec![880.0, 990.0, 995.0]),
        ];
        let got = place_each(
            "test",
            &[0usize, 1, 0],
            |i| Ok((table[i].0, Some(places(table[i].0, &table[i].1)))),
            |t| t.1.as_mut(),
        )
        .unwrap();
        assert_eq!(got.0, "b");
        let p = got.1.unwrap();
        assert_eq!(p.chosen_ns(), 880.0);
        let kinds: Vec<&str> = p.kinds.iter().map(|k| k.kind.as_str()).collect();
        assert_eq!(
            kinds,
            ["b", "a"],
            "duplicates are probed once, fastest first"
        );
        assert_eq!(p.probe_ms, 20.0);
    }

    #[test]
    fn failures_are_passed_over_and_reported_when_nothing_was_placed() {
        let fail = |_| Err(Error::InvalidLaunch("cannot launch".into()));
        let got = place_each(
            "test",
            &[0usize, 1],
            |i: usize| {
                if i == 0 {
                    fail(i)
                } else {
                    Ok(Some(places("b", &[5.0])))
                }
            },
            |t| t.as_mut(),
        )
        .unwrap();
        assert_eq!(got.unwrap().kinds[0].kind, "b");
        let e = place_each("test", &[0usize, 1], fail, |t: &mut Option<Places>| {
            t.as_mut()
        });
        assert!(e.unwrap_err().to_string().contains("cannot launch"));
        let e = place_each("Barrier::placed_among", &[] as &[usize], fail, |t| {
            t.as_mut()
        });
        assert!(e.unwrap_err().to_string().contains("no kind to place"));
    }

    #[test]
    fn unprobed_objects_lose_to_probed_ones_and_the_first_wins_among_them() {
        let got = place_each(
            "test",
            &[0usize, 1, 2],
            |i| {
                Ok((
                    i,
                    if i == 2 {
                        Some(places("c", &[7.0]))
                    } else {
                        None
                    },
                ))
            },
            |t| t.1.as_mut(),
        )
        .unwrap();
        assert_eq!(got.0, 2);
        let got = place_each("test", &[0usize, 1], |i| Ok((i, None)), |t| t.1.as_mut()).unwrap();
        assert_eq!(got.0, 0);
    }
}
