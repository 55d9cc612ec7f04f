//! Where a barrier's line lives and what it costs: [`barrier_placement`] runs the placement
//! probe of a [`PersistentProgram`] (the barrier of one kind at every candidate place, in one
//! launch shape) beside `grid.sync()` timed the same way in the same shape
//! (`occupant bench placement`; docs/PERSISTENT.md "Where the barrier lives").

use super::super::kinds::BarrierKind;
use super::super::run::{
    run_barrier_at, run_barrier_with, run_grid_sync_with, run_mutex, run_mutex_at,
};
use super::super::{Barrier, BarrierPlaces, Mutex, MutexKind, Places};
use super::PlotSeries;
use crate::cuda::persistent::Placement;
use crate::cuda::{Gpu, LaunchConfig, LaunchMode, PersistentProgram, PERSISTENT_POLL_PAUSE_SHIFT};
use crate::model::{LaunchShape, Result, Watchdog};
use serde::Serialize;

/// A program with nothing but the placement probe (every `PersistentProgram` module has it).
const PROBE_ONLY_CU: &str = "#include <occupant.cuh>\n";

/// One shape's placement probe and the vendor's barrier beside it.
#[derive(Debug, Clone, Serialize)]
pub struct BarrierPlacementRow {
    /// Barrier kind.
    pub kind: String,
    /// Blocks launched.
    pub blocks: usize,
    /// Threads per block.
    pub block_threads: usize,
    /// The probe: every candidate place and the chosen one.
    pub placement: Placement,
    /// The raw kind in the same shape and rounds (the primitives benchmark's kernel: the
    /// barrier object in registers, state in its own allocation), ns per barrier, best of two
    /// launches: what `occ::PersistentKernel`'s wrapper and state add is the difference.
    pub raw_ns: Option<f64>,
    /// The same compiled with the polls' throttle persistent programs use
    /// (`-DOCC_POLL_PAUSE_SHIFT=`[`PERSISTENT_POLL_PAUSE_SHIFT`]).
    pub raw_throttled_ns: Option<f64>,
    /// The raw barrier placed by [`Barrier::placed_among`] (each kind's probe over its own
    /// allocation's places, [`BarrierPlaces::kinds`] what each reached), when it ran (not with
    /// `defines`: the probe compiles the library's kinds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_places: Option<BarrierPlaces>,
    /// The kind the placed raw barrier chose.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_placed_kind: Option<String>,
    /// The placed raw barrier re-timed at its chosen place in two separate launches of `rounds`
    /// barriers (the best): whether the probe's choice holds outside the probe.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_placed_ns: Option<f64>,
    /// Why the placed raw kind did not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_placed_error: Option<String>,
    /// `grid.sync()` in the same shape, ns per barrier (the best of two launches, each the
    /// median over blocks of the probe's rounds);
    /// `None` when it could not run (no toolkit headers, or the shape cannot launch
    /// cooperatively), with the reason in `grid_sync_error`.
    pub grid_sync_ns: Option<f64>,
    /// Why `grid.sync()` did not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid_sync_error: Option<String>,
}

impl BarrierPlacementRow {
    /// The probe as a plot line: x the candidate place (1 = the first), y ns per barrier;
    /// labelled with the shape and kind.
    pub fn plot_series(&self) -> PlotSeries {
        let points = self
            .placement
            .candidates
            .iter()
            .enumerate()
            .map(|(i, c)| ((i + 1) as f64, c.ns_per_barrier))
            .collect();
        (
            format!("{}x{} {}", self.blocks, self.block_threads, self.kind),
            points,
        )
    }
    /// The chosen place over `grid.sync()` (< 1: ours is faster).
    pub fn chosen_over_grid_sync(&self) -> Option<f64> {
        self.grid_sync_ns.map(|g| self.placement.chosen_ns() / g)
    }
    /// One line: shape, first / median / chosen / slowest place, the raw kind, grid.sync and
    /// the ratio.
    pub fn line(&self) -> String {
        let p = &self.placement;
        let ns = |v: Option<f64>| {
            v.map(|g| format!("{g:.0} ns"))
                .unwrap_or_else(|| "-".into())
        };
        format!(
            "{}x{} {} ({} rounds): {} blocks took part; first {:.0} ns, median {:.0}, chosen {:.0} (offset {}{}), slowest {:.0}; raw kind {}, throttled {}{}; grid.sync {}{}",
            self.blocks,
            self.block_threads,
            self.kind,
            p.rounds,
            p.participants,
            p.first_ns(),
            p.median_ns(),
            p.chosen_ns(),
            p.candidates[p.chosen].offset_bytes,
            match (p.no_pause_ns, p.no_pause) {
                (Some(ns), true) => format!("; no pause: {ns:.0} ns, kept"),
                (Some(ns), false) => format!("; no pause: {ns:.0} ns"),
                (None, _) => String::new(),
            },
            p.slowest_ns(),
            ns(self.raw_ns),
            ns(self.raw_throttled_ns),
            match (&self.raw_places, &self.raw_placed_error) {
                (Some(r), _) => format!(
                    ", placed {} (of {}; median place {:.0}, chosen {:.0}) {}{}",
                    self.raw_placed_kind.as_deref().unwrap_or("?"),
                    r.kinds
                        .iter()
                        .map(|k| format!("{} {:.0}", k.kind, k.chosen_ns))
                        .collect::<Vec<_>>()
                        .join(", "),
                    r.median_ns(),
                    r.chosen_ns(),
                    ns(self.raw_placed_ns),
                    match (self.raw_placed_ns, self.grid_sync_ns) {
                        (Some(p), Some(g)) => format!(" ({:.3}x grid.sync)", p / g),
                        _ => String::new(),
                    }
                ),
                (None, Some(e)) => format!(", placed: {e}"),
                (None, None) => String::new(),
            },
            ns(self.grid_sync_ns),
            self.chosen_over_grid_sync()
                .map(|r| format!(" (chosen / grid.sync {r:.3})"))
                .unwrap_or_default()
        )
    }
}

/// Probes barrier `kind` at every candidate place in a launch of `blocks` blocks of
/// `block_threads` threads (discovery with the occupancy API's hint, as a persistent program
/// launches), `rounds` barriers per place, then times the raw kind (plain and throttled), the
/// raw barrier placed among `placed_kinds` ([`Barrier::placed_among`]; empty: `kind` alone)
/// and `grid.sync()` in the same shape and rounds.
pub fn barrier_placement(
    gpu: &Gpu,
    kind: BarrierKind,
    placed_kinds: &[BarrierKind],
    blocks: usize,
    block_threads: usize,
    rounds: u32,
) -> Result<BarrierPlacementRow> {
    barrier_placement_with(gpu, kind, placed_kinds, blocks, block_threads, rounds, &[])
}

/// [`barrier_placement`] with preprocessor definitions (`NAME` or `NAME=VALUE`, experiments:
/// e.g. `OCC_LEAN_DELAY_CYCLES=0`) for the probe and the raw kind alike (the placed raw
/// barrier then does not run).
#[allow(clippy::too_many_arguments)]
pub fn barrier_placement_with(
    gpu: &Gpu,
    kind: BarrierKind,
    placed_kinds: &[BarrierKind],
    blocks: usize,
    block_threads: usize,
    rounds: u32,
    defines: &[String],
) -> Result<BarrierPlacementRow> {
    let rounds = rounds.max(1);
    let defs: Vec<String> = defines.iter().map(|d| format!("-D{d}")).collect();
    let mut opts = crate::cuda::CompileOptions::default();
    for d in &defs {
        opts = opts.option(d.clone());
    }
    let prog = PersistentProgram::compile_with_barrier(
        gpu,
        kind,
        "placement_probe.cu",
        PROBE_ONLY_CU,
        &opts,
    )?;
    let cfg = LaunchConfig::new(LaunchMode::Discovery, block_threads).grid(blocks);
    let placement =
        prog.probe_placement_with_rounds("occ_persistent_placement_probe", &cfg, rounds)?;
    let throttle = format!("-DOCC_POLL_PAUSE_SHIFT={PERSISTENT_POLL_PAUSE_SHIFT}");
    let raw = |extra: &[&str]| -> Option<f64> {
        (0..2)
            .filter_map(|_| {
                run_barrier_with(
                    gpu,
                    kind,
                    blocks,
                    block_threads,
                    1,
                    rounds,
                    false,
                    Watchdog::default(),
                    extra,
                )
                .ok()
                .map(|r| r.ns_per_barrier)
            })
            .reduce(f64::min)
    };
    let plain: Vec<&str> = defs.iter().map(String::as_str).collect();
    let mut throttled = plain.clone();
    throttled.push(throttle.as_str());
    let raw_ns = raw(&plain);
    let raw_throttled_ns = raw(&throttled);
    let placed_kinds = if placed_kinds.is_empty() {
        std::slice::from_ref(&kind)
    } else {
        placed_kinds
    };
    let (raw_places, raw_placed_kind, raw_placed_ns, raw_placed_error) = if defines.is_empty() {
        match placed_raw(gpu, placed_kinds, blocks, block_threads, rounds) {
            Ok((p, k, ns)) => (Some(p), Some(k.name().to_string()), ns, None),
            Err(e) => (None, None, None, Some(e.to_string())),
        }
    } else {
        (None, None, None, None)
    };
    let mut grid_sync_ns = None;
    let mut grid_sync_error = None;
    for _ in 0..2 {
        match run_grid_sync_with(gpu, blocks, block_threads, rounds, &plain) {
            Ok(ns) => grid_sync_ns = Some(grid_sync_ns.map_or(ns, |g: f64| g.min(ns))),
            Err(e) => {
                grid_sync_error = Some(e.to_string());
                break;
            }
        }
    }
    Ok(BarrierPlacementRow {
        kind: kind.name().into(),
        blocks,
        block_threads,
        placement,
        raw_ns,
        raw_throttled_ns,
        raw_places,
        raw_placed_kind,
        raw_placed_ns,
        raw_placed_error,
        grid_sync_ns,
        grid_sync_error,
    })
}

/// [`Barrier::placed_among`] `kinds` in the shape, then its chosen kind and place re-timed in
/// two launches of `rounds` barriers (the best; `None` if neither ran).
pub(super) fn placed_raw(
    gpu: &Gpu,
    kinds: &[BarrierKind],
    blocks: usize,
    block_threads: usize,
    rounds: u32,
) -> Result<(BarrierPlaces, BarrierKind, Option<f64>)> {
    let mut b = Barrier::placed_among(gpu, kinds, LaunchShape::new(blocks, block_threads))?;
    let kind = b.kind();
    let places = b.places().cloned().ok_or_else(|| {
        crate::model::Error::InvalidLaunch("the placement probe did not run".into())
    })?;
    let at = b.state().device_ptr() + 4 * b.offset_words() as u64;
    let mut best: Option<f64> = None;
    for _ in 0..2 {
        b.reset()?;
        let r = run_barrier_at(
            gpu,
            kind,
            blocks,
            block_threads,
            rounds,
            at,
            Watchdog::default(),
        )?;
        best = Some(best.map_or(r.ns_per_barrier, |v| v.min(r.ns_per_barrier)));
    }
    b.reset()?;
    Ok((places, kind, best))
}

/// A lock in one contention: [`Mutex::placed_among`]'s probe, and its choice against
/// [`Mutex::new`]'s allocation (one place) of the same kind in the same launches.
#[derive(Debug, Clone, Serialize)]
pub struct MutexPlacementRow {
    /// Mutex kind (the probe's choice when it probed several: see [`Places::kinds`]).
    pub kind: String,
    /// Contending blocks.
    pub blocks: usize,
    /// Threads per block.
    pub block_threads: usize,
    /// Lock/unlock pairs per launch, all blocks together (a counter increment inside).
    pub pairs: u32,
    /// The probe (`None` for a kind that uses clusters: not probed).
    pub places: Option<Places>,
    /// Mops/s at the chosen place, the best of two launches.
    pub placed_mops: f64,
    /// Mops/s with the state in an allocation of its own (`Mutex::new`), the best of two
    /// launches interleaved with the placed ones.
    pub unplaced_mops: f64,
}

impl MutexPlacementRow {
    /// One line: contention, kind, the probe's median and chosen place, placed vs unplaced.
    pub fn line(&self) -> String {
        let probe = self
            .places
            .as_ref()
            .map(|p| {
                let others = if p.kinds.len() > 1 {
                    let v: Vec<String> = p
                        .kinds
                        .iter()
                        .map(|k| format!("{} {:.3}", k.kind, 1e3 / k.chosen_ns))
                        .collect();
                    format!(
                        "kinds probed (Mops/s at their best place): {}; ",
                        v.join(", ")
                    )
                } else {
                    String::new()
                };
                format!(
                    "probe: {others}median place {:.3} Mops/s, chosen {:.3} (place {}, {:.0} ms); ",
                    1e3 / p.median_ns(),
                    1e3 / p.chosen_ns(),
                    p.chosen,
                    p.probe_ms
                )
            })
            .unwrap_or_else(|| "not probed (a cluster kind); ".into());
        format!(
            "mutex {} blocks x {} {}: {probe}placed {:.3} Mops/s, unplaced {:.3} ({:.2}x)",
            self.blocks,
            self.block_threads,
            self.kind,
            self.placed_mops,
            self.unplaced_mops,
            self.placed_mops / self.unplaced_mops.max(f64::MIN_POSITIVE)
        )
    }
}

/// [`Mutex::placed_among`] `kinds` with `blocks` contending blocks of `block_threads`
/// threads, then its chosen kind and place and an unplaced lock of that kind
/// ([`Mutex::new`]'s allocation) timed in turn, twice each, `pairs` lock/unlock pairs per
/// launch (at least one per block).
pub fn mutex_placement(
    gpu: &Gpu,
    kinds: &[MutexKind],
    blocks: usize,
    block_threads: usize,
    pairs: u32,
) -> Result<MutexPlacementRow> {
    let blocks = blocks.max(1);
    let iters = (pairs / blocks as u32).max(1);
    let mut m = Mutex::placed_among(gpu, kinds, LaunchShape::new(blocks, block_threads))?;
    let kind = m.kind();
    let wd = Watchdog::default();
    let (mut placed, mut unplaced) = (0.0f64, 0.0f64);
    for _ in 0..2 {
        m.reset()?;
        let at = (m.state(), m.offset_words());
        let r = run_mutex_at(gpu, kind, blocks, block_threads, iters, true, at, wd)?;
        placed = placed.max(r.mops);
        let r = run_mutex(gpu, kind, blocks, block_threads, iters, true, wd)?;
        unplaced = unplaced.max(r.mops);
    }
    m.reset()?;
    Ok(MutexPlacementRow {
        kind: kind.name().into(),
        blocks,
        block_threads,
        pairs: iters * blocks as u32,
        places: m.places().cloned(),
        placed_mops: placed,
        unplaced_mops: unplaced,
    })
}
