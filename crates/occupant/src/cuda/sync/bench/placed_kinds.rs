//! Every barrier kind at its fastest place beside the placed default, in one launch shape
//! (`occupant bench placement --every-kind`): whether
//! [`Barrier::with_default_kind_placed`](super::super::Barrier::with_default_kind_placed)
//! gives the fastest kind once each kind sits where this GPU serves it fastest. The shape
//! table's figures are each one place's, and a place moves a kind by 4-14 % on an H200, so a
//! default chosen from them alone can lose to a kind that places better.

use super::super::kinds::BarrierKind;
use super::super::run::run_grid_sync_with;
use super::super::BarrierPlaces;
use super::placement::placed_raw;
use crate::cuda::Gpu;
use crate::model::Result;
use serde::Serialize;

/// One kind placed by its own probe and re-timed at its chosen place.
#[derive(Debug, Clone, Serialize)]
pub struct PlacedKindRun {
    /// The kind (for the default: the kind its probe chose).
    pub kind: String,
    /// The probe (every place of the kind's own allocation; for the default, every kind it
    /// probed in [`BarrierPlaces::kinds`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub places: Option<BarrierPlaces>,
    /// Nanoseconds per barrier at the chosen place, the best of two separate launches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ns: Option<f64>,
    /// Why the kind did not run in this shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Every kind placed in one shape, the placed default and `grid.sync()`.
#[derive(Debug, Clone, Serialize)]
pub struct PlacedKindsRow {
    /// Blocks launched.
    pub blocks: usize,
    /// Threads per block.
    pub block_threads: usize,
    /// Barriers per re-timing launch (and grid.sync's).
    pub rounds: u32,
    /// Each kind, placed alone.
    pub kinds: Vec<PlacedKindRun>,
    /// The placed default (placed among the kinds the device's table cannot tell apart).
    pub default: PlacedKindRun,
    /// `grid.sync()` in the same shape and rounds (best of two launches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid_sync_ns: Option<f64>,
}

impl PlacedKindsRow {
    /// The fastest kind placed alone (re-timed).
    pub fn best(&self) -> Option<&PlacedKindRun> {
        self.kinds.iter().filter(|k| k.ns.is_some()).min_by(|a, b| {
            a.ns.unwrap_or(f64::INFINITY)
                .total_cmp(&b.ns.unwrap_or(f64::INFINITY))
        })
    }

    /// The placed default's time over the fastest placed kind's (1.00: the default is the
    /// fastest; the re-timed figures of separate placements differ by ~1 % run to run).
    pub fn default_over_best(&self) -> Option<f64> {
        Some(self.default.ns? / self.best()?.ns?)
    }

    /// One line: shape, the default and the best kind, re-timed, and grid.sync.
    pub fn line(&self) -> String {
        let ns = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.0} ns"));
        let best = self.best();
        let others: Vec<String> = self
            .kinds
            .iter()
            .map(|k| match (&k.ns, &k.error) {
                (Some(v), _) => format!("{} {v:.0}", k.kind),
                (None, Some(_)) => format!("{} failed", k.kind),
                (None, None) => format!("{} -", k.kind),
            })
            .collect();
        format!(
            "{}x{} every kind placed: default {} {}, best {} {} (default / best {}); grid.sync {}{}; kinds: {}",
            self.blocks,
            self.block_threads,
            self.default.kind,
            ns(self.default.ns),
            best.map_or("-", |b| b.kind.as_str()),
            ns(best.and_then(|b| b.ns)),
            self.default_over_best()
                .map_or("-".into(), |r| format!("{r:.3}")),
            ns(self.grid_sync_ns),
            match (self.default.ns, self.grid_sync_ns) {
                (Some(d), Some(g)) => format!(" (default / grid.sync {:.3})", d / g),
                _ => String::new(),
            },
            others.join(", ")
        )
    }
}

fn run_of(
    gpu: &Gpu,
    kinds: &[BarrierKind],
    blocks: usize,
    block_threads: usize,
    rounds: u32,
) -> PlacedKindRun {
    match placed_raw(gpu, kinds, blocks, block_threads, rounds) {
        Ok((places, kind, ns)) => PlacedKindRun {
            kind: kind.name().into(),
            places: Some(places),
            ns,
            error: None,
        },
        Err(e) => PlacedKindRun {
            kind: kinds.first().map_or("-", |k| k.name()).into(),
            places: None,
            ns: None,
            error: Some(e.to_string()),
        },
    }
}

/// Places each of `kinds` alone ([`Barrier::placed`](super::super::Barrier::placed)) and the
/// default among `default_kinds`
/// ([`Barrier::placed_among`](super::super::Barrier::placed_among), what
/// `with_default_kind_placed` does with
/// [`MachineAbstraction::barrier_candidates`](super::super::MachineAbstraction::barrier_candidates)),
/// in a launch of `blocks` blocks of `block_threads` threads; re-times each at its chosen
/// place (two launches of `rounds` barriers), and `grid.sync()` beside them. A kind that
/// cannot run the shape is recorded with its error; `progress` gets a line per kind.
pub fn placed_kinds(
    gpu: &Gpu,
    kinds: &[BarrierKind],
    default_kinds: &[BarrierKind],
    blocks: usize,
    block_threads: usize,
    rounds: u32,
    progress: &mut dyn FnMut(&str),
) -> Result<PlacedKindsRow> {
    let rounds = rounds.max(1);
    let mut runs = Vec::with_capacity(kinds.len());
    for &k in kinds {
        let r = run_of(gpu, &[k], blocks, block_threads, rounds);
        progress(&format!(
            "  {blocks}x{block_threads} {k}: {}",
            r.ns.map_or_else(
                || r.error.clone().unwrap_or_else(|| "-".into()),
                |v| format!("{v:.0} ns")
            )
        ));
        runs.push(r);
    }
    let default = run_of(gpu, default_kinds, blocks, block_threads, rounds);
    let grid_sync_ns = (0..2)
        .filter_map(|_| run_grid_sync_with(gpu, blocks, block_threads, rounds, &[]).ok())
        .reduce(f64::min);
    Ok(PlacedKindsRow {
        blocks,
        block_threads,
        rounds,
        kinds: runs,
        default,
        grid_sync_ns,
    })
}
