//! Shape-aware defaults on the CUDA backend: the machine abstraction's [`ShapeTable`] picks
//! the fastest measured barrier and mutex for a launch shape (participants, block size,
//! cluster size), and the front types take it with `with_default_kind_for(gpu, shape)`.
//!
//! Where the table comes from, first found wins: the device's stored machine abstraction
//! (`MachineAbstraction::store_path`, written by `occupant bench primitives --backend cuda`),
//! then the table built into the library for the device's kind (`shapes/<gpu>.json`, measured
//! on such a GPU and committed with its results under `bench/results/<gpu>/`); with neither,
//! the per-device default of [`Defaults`](super::Defaults).
//!
//! ```
//! use occupant::cuda::sync::{builtin_shape_table, BarrierKind, MachineAbstraction};
//! use occupant::model::{LaunchShape, ShapeClass, ShapeTable};
//! # use occupant::cuda::sync::{Access, MemoryTiming};
//! # let timings: Vec<MemoryTiming> = [true, false].iter().flat_map(|&c| occupant::cuda::sync::Access::ALL.iter().map(move |&a| MemoryTiming { access: a, contentious: c, total_ns: 100.0, ns_per_access: 0.1 })).collect();
//! let mut m = MachineAbstraction::from_timings("Some GPU", (9, 0), 132, 1056, 1000, timings)?;
//! m.shapes.record(ShapeClass::Barrier, "spread", LaunchShape::new(2112, 128), 1400.0);
//! m.shapes.record(ShapeClass::Barrier, "atomic", LaunchShape::new(2112, 128), 3300.0);
//! assert_eq!(m.barrier_for(LaunchShape::new(2000, 128)), BarrierKind::Spread);
//! let _ = builtin_shape_table("NVIDIA H100 80GB HBM3"); // Some where one was measured
//! # Ok::<(), occupant::Error>(())
//! ```

use super::kinds::{BarrierKind, MutexKind};
use super::machine::{results_dir_name, MachineAbstraction};
use super::objects::{Barrier, Mutex};
use crate::cuda::Gpu;
use crate::model::{LaunchShape, Result, ShapeClass, ShapeTable};

/// The shape tables built into the library: (results folder name of the GPU, JSON), every
/// `shapes/<name>.json` (see build.rs; `occupant bench primitives --backend cuda
/// --shape-table src/cuda/sync/shapes/<name>.json` writes one for a new device).
const BUILTIN: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/shape_tables.rs"));

/// The built-in shape table for a device name (matched by its results folder name, e.g.
/// `nvidia-h100`), if the library has one.
pub fn builtin_shape_table(device: &str) -> Option<ShapeTable> {
    let key = results_dir_name(device);
    BUILTIN
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, json)| ShapeTable::from_json(json).ok())
}

/// Skewed-arrival times within this factor of the fastest count as a tie
/// ([`MachineAbstraction::skewed_barrier_for_where`]): run-to-run noise of the skewed benchmark
/// is ~1 % (H100 and H200, i11-misses rounds 3 and 4).
pub const SKEWED_TIE: f64 = 1.02;

/// Kinds whose measured (or estimated) time is within this factor of the fastest's at a shape
/// are probed at every place by the placed defaults ([`Barrier::with_default_kind_placed`],
/// [`Mutex::with_default_kind_placed`]): the table's figures are each one place's, and the
/// place of a primitive's state moves its time by 4-14 % on an H200, more than the gap
/// between such kinds.
pub const PLACED_KIND_TIE: f64 = 1.06;

/// At most this many kinds are probed by the placed defaults (the fastest first): each costs a
/// probe (~70-230 ms on an H200).
pub const PLACED_KINDS: usize = 3;

/// The kinds of `ranking` (fastest first) within [`PLACED_KIND_TIE`] of the first, at most
/// [`PLACED_KINDS`], parsed; `fallback` when none parses.
fn tied_kinds<K: Copy>(
    ranking: &[(&str, f64)],
    parse: impl Fn(&str) -> Option<K>,
    fallback: K,
) -> Vec<K> {
    let Some(&(_, best)) = ranking.first() else {
        return vec![fallback];
    };
    let v: Vec<K> = ranking
        .iter()
        .filter(|(_, ns)| *ns <= best * PLACED_KIND_TIE)
        .filter_map(|(k, _)| parse(k))
        .take(PLACED_KINDS)
        .collect();
    if v.is_empty() {
        vec![fallback]
    } else {
        v
    }
}

impl MachineAbstraction {
    /// Fills an empty shape table from the built-in one of the device's kind, and gives a
    /// table without one the device's SM count (`ShapeTable::compute_units`).
    pub fn with_builtin_shapes(mut self) -> Self {
        if self.shapes.is_empty() {
            if let Some(t) = builtin_shape_table(&self.device) {
                self.shapes = t;
            }
        }
        if self.shapes.compute_units.is_none() {
            self.shapes.compute_units = Some(self.sm_count as usize);
        }
        self
    }

    /// The default barrier for `shape`: the fastest measured at the nearest measured shape
    /// (kinds that use thread-block clusters only for shapes with the same cluster size), else
    /// the device default.
    pub fn barrier_for(&self, shape: LaunchShape) -> BarrierKind {
        self.shapes
            .best_where(ShapeClass::Barrier, shape, |k| {
                BarrierKind::parse(k).is_some()
            })
            .and_then(|(k, _)| BarrierKind::parse(k))
            .unwrap_or(self.defaults.barrier)
    }

    /// The fastest measured kind among those `allowed` accepts at the nearest measured shape
    /// (kinds that use thread-block clusters only for shapes with the same cluster size);
    /// None without a measurement of one.
    pub fn barrier_for_where(
        &self,
        shape: LaunchShape,
        allowed: impl Fn(BarrierKind) -> bool,
    ) -> Option<BarrierKind> {
        self.shapes
            .best_where(ShapeClass::Barrier, shape, |k| {
                BarrierKind::parse(k).is_some_and(&allowed)
            })
            .and_then(|(k, _)| BarrierKind::parse(k))
    }

    /// The fastest kind among those `allowed` accepts under skewed arrivals
    /// ([`ShapeClass::BarrierSkewed`], `occupant bench primitives --skew-ns`) at the nearest
    /// measured shape — of the kinds within [`SKEWED_TIE`] of that fastest, the one fastest
    /// when every block arrives together (a tie under skew is decided by the aligned
    /// measurements) —; else, where the table has no skewed measurement of such a kind, as
    /// [`MachineAbstraction::barrier_for_where`]. Persistent kernels choose with it: their
    /// blocks reach each barrier as their work ends, not together.
    pub fn skewed_barrier_for_where(
        &self,
        shape: LaunchShape,
        allowed: impl Fn(BarrierKind) -> bool,
    ) -> Option<BarrierKind> {
        let ok = |k: &str| BarrierKind::parse(k).is_some_and(&allowed);
        let ranking = self
            .shapes
            .estimated_ranking(ShapeClass::BarrierSkewed, shape, ok);
        let Some(&(best, best_ns)) = ranking.first() else {
            return self.barrier_for_where(shape, allowed);
        };
        let ties: Vec<&str> = ranking
            .iter()
            .filter(|(_, ns)| *ns <= best_ns * SKEWED_TIE)
            .map(|(k, _)| *k)
            .collect();
        let pick = self
            .shapes
            .best_where(ShapeClass::Barrier, shape, |k| ties.contains(&k))
            .map_or(best, |(k, _)| k);
        BarrierKind::parse(pick)
    }

    /// The barriers the placed default probes for `shape`: [`MachineAbstraction::barrier_for`]'s
    /// kind first, then the kinds estimated within [`PLACED_KIND_TIE`] of it, at most
    /// [`PLACED_KINDS`] in all.
    ///
    /// ```
    /// # use occupant::cuda::sync::{Access, MemoryTiming, BarrierKind, MachineAbstraction};
    /// # use occupant::model::{LaunchShape, ShapeClass};
    /// # let timings: Vec<MemoryTiming> = [true, false].iter().flat_map(|&c| Access::ALL.iter().map(move |&a| MemoryTiming { access: a, contentious: c, total_ns: 100.0, ns_per_access: 0.1 })).collect();
    /// let mut m = MachineAbstraction::from_timings("Some GPU", (9, 0), 132, 1056, 1000, timings)?;
    /// let shape = LaunchShape::new(132, 256);
    /// m.shapes.record(ShapeClass::Barrier, "lean_eager", shape, 862.0);
    /// m.shapes.record(ShapeClass::Barrier, "replica", shape, 865.0);
    /// m.shapes.record(ShapeClass::Barrier, "gather", shape, 1100.0);
    /// assert_eq!(m.barrier_candidates(shape), [BarrierKind::LeanEager, BarrierKind::Replica]);
    /// # Ok::<(), occupant::Error>(())
    /// ```
    pub fn barrier_candidates(&self, shape: LaunchShape) -> Vec<BarrierKind> {
        let ranking = self
            .shapes
            .estimated_ranking(ShapeClass::Barrier, shape, |k| {
                BarrierKind::parse(k).is_some()
            });
        tied_kinds(&ranking, BarrierKind::parse, self.defaults.barrier)
    }

    /// The locks the placed default probes for `shape`, as
    /// [`MachineAbstraction::barrier_candidates`]: [`MachineAbstraction::mutex_for`]'s kind
    /// first.
    pub fn mutex_candidates(&self, shape: LaunchShape) -> Vec<MutexKind> {
        let ranking = self
            .shapes
            .estimated_ranking(ShapeClass::Mutex, shape, |k| {
                MutexKind::parse(k).is_some_and(MutexKind::is_lock)
            });
        tied_kinds(&ranking, MutexKind::parse, self.defaults.mutex)
    }

    /// The default mutex for `shape` (contending blocks, block size, cluster size), as
    /// [`MachineAbstraction::barrier_for`].
    pub fn mutex_for(&self, shape: LaunchShape) -> MutexKind {
        self.shapes
            .best_where(ShapeClass::Mutex, shape, |k| {
                MutexKind::parse(k).is_some_and(MutexKind::is_lock)
            })
            .and_then(|(k, _)| MutexKind::parse(k))
            .unwrap_or(self.defaults.mutex)
    }
}

impl Barrier {
    /// With the fastest kind measured on this device for `shape` (participants, block size,
    /// cluster size; see [`MachineAbstraction::barrier_for`]), sized for `shape.participants`.
    /// Its state lands wherever the allocation does; [`Barrier::with_default_kind_placed`]
    /// also probes where this GPU serves it fastest (up to ~10 % on an H200, a few ms).
    pub fn with_default_kind_for(gpu: &Gpu, shape: LaunchShape) -> Result<Self> {
        let kind = MachineAbstraction::for_gpu(gpu)?.barrier_for(shape);
        Self::new(gpu, kind, shape.participants.max(1))
    }
}

impl Mutex {
    /// With the fastest kind measured on this device for `shape` (contending blocks, block
    /// size, cluster size; see [`MachineAbstraction::mutex_for`]). Construct the device object
    /// in every thread of the block (the cohort kind needs it; every kind allows it). Its state
    /// lands wherever the allocation does; [`Mutex::with_default_kind_placed`] also probes
    /// where this GPU hands the lock over fastest (up to +21 % at 1-2 blocks on an H200).
    pub fn with_default_kind_for(gpu: &Gpu, shape: LaunchShape) -> Result<Self> {
        let kind = MachineAbstraction::for_gpu(gpu)?.mutex_for(shape);
        Self::new(gpu, kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::sync::bench::merge_tables;
    use crate::cuda::sync::{Access, MemoryTiming};

    fn machine() -> MachineAbstraction {
        let timings: Vec<MemoryTiming> = [true, false]
            .iter()
            .flat_map(|&c| {
                Access::ALL.iter().map(move |&a| MemoryTiming {
                    access: a,
                    contentious: c,
                    total_ns: 100.0,
                    ns_per_access: 0.1,
                })
            })
            .collect();
        MachineAbstraction::from_timings("Some GPU", (9, 0), 132, 1056, 1000, timings).unwrap()
    }

    #[test]
    fn persistent_kernels_choose_from_the_skewed_measurements_where_there_are_some() {
        let mut m = machine();
        let shape = LaunchShape::new(1056, 256);
        m.shapes
            .record(ShapeClass::Barrier, "lean_pause", shape, 1720.0);
        m.shapes.record(ShapeClass::Barrier, "relay", shape, 2050.0);
        let any = |_: BarrierKind| true;
        // No skewed measurement: the aligned one.
        assert_eq!(
            m.skewed_barrier_for_where(shape, any),
            Some(BarrierKind::LeanPause)
        );
        let mut skewed = ShapeTable::new("Some GPU");
        skewed.record(ShapeClass::BarrierSkewed, "relay", shape, 4890.0);
        skewed.record(ShapeClass::BarrierSkewed, "lean", shape, 4618.0);
        m.shapes = merge_tables(&m.shapes, &skewed);
        assert_eq!(
            m.skewed_barrier_for_where(shape, any),
            Some(BarrierKind::Lean)
        );
        assert_eq!(
            m.skewed_barrier_for_where(shape, |k| k != BarrierKind::Lean),
            Some(BarrierKind::Relay)
        );
        // A tie under skew (within SKEWED_TIE) goes to the aligned measurements' choice.
        let mut tie = ShapeTable::new("Some GPU");
        tie.record(ShapeClass::BarrierSkewed, "lean", shape, 4607.0);
        tie.record(ShapeClass::BarrierSkewed, "lean_pause", shape, 4641.0);
        tie.record(ShapeClass::BarrierSkewed, "relay", shape, 4890.0);
        let mut t = m.clone();
        t.shapes = merge_tables(&m.shapes, &tie);
        t.shapes.record(ShapeClass::Barrier, "lean", shape, 1887.0);
        assert_eq!(
            t.skewed_barrier_for_where(shape, any),
            Some(BarrierKind::LeanPause)
        );
        // The aligned choice is unchanged, and a merge keeps the other class.
        assert_eq!(m.barrier_for(shape), BarrierKind::LeanPause);
        let aligned = ShapeTable::new("Some GPU");
        let t = merge_tables(&m.shapes, &aligned);
        assert_eq!(t.measurements.len(), m.shapes.measurements.len());
    }

    #[test]
    fn placed_defaults_probe_the_kinds_the_table_cannot_tell_apart() {
        let mut m = machine();
        let shape = LaunchShape::new(132, 256);
        for (k, ns) in [
            ("lean", 870.0),
            ("lean_eager", 862.0),
            ("replica", 865.0),
            ("lean_pause", 871.0),
            ("gather", 1100.0),
        ] {
            m.shapes.record(ShapeClass::Barrier, k, shape, ns);
        }
        let c = m.barrier_candidates(shape);
        assert_eq!(c[0], m.barrier_for(shape), "the plain default comes first");
        assert_eq!(
            c,
            [
                BarrierKind::LeanEager,
                BarrierKind::Replica,
                BarrierKind::Lean
            ],
            "within the tie, at most PLACED_KINDS"
        );
        let far = LaunchShape::new(2112, 128);
        m.shapes.record(ShapeClass::Barrier, "relay", far, 2000.0);
        m.shapes.record(ShapeClass::Barrier, "spread", far, 2400.0);
        assert_eq!(m.barrier_candidates(far), [BarrierKind::Relay]);
        let empty = MachineAbstraction {
            shapes: ShapeTable::new("none"),
            ..machine()
        };
        assert_eq!(empty.barrier_candidates(shape), [empty.defaults.barrier]);
        assert_eq!(empty.mutex_candidates(shape), [empty.defaults.mutex]);
    }
}
