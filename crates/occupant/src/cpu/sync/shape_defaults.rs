//! Shape-aware defaults on the CPU backend: the built-in [`ShapeTable`] (measured on the CPU
//! executor with `occupant bench primitives --backend cpu --shape-table …`, committed as
//! `src/cpu/sync/shape_table.json` with its results under `bench/results/cpu-2core/`) picks the
//! fastest measured barrier and mutex for a launch shape, as the CUDA backend's machine
//! abstraction does per device.
//!
//! ```
//! use occupant::cpu::sync::{cpu_shape_table, Barrier, BarrierKind, Mutex};
//! use occupant::model::LaunchShape;
//! let shape = LaunchShape::new(8, 4);
//! let b = Barrier::with_default_kind_for(shape);
//! assert!(BarrierKind::ALL.contains(&b.kind()));
//! assert_eq!(b.capacity(), 8);
//! let m = Mutex::with_default_kind_for(shape);
//! assert!(!cpu_shape_table().is_empty());
//! # let _ = m;
//! ```

use super::barrier::{Barrier, BarrierKind};
use super::mutex::{Mutex, MutexKind};
use crate::model::{LaunchShape, ShapeClass, ShapeTable};

const TABLE: &str = include_str!("shape_table.json");

/// The CPU backend's built-in shape table (empty if it cannot be read, which a unit test
/// rules out).
pub fn cpu_shape_table() -> ShapeTable {
    ShapeTable::from_json(TABLE).unwrap_or_default()
}

impl BarrierKind {
    /// The fastest kind measured on the CPU executor at the measured shape nearest to `shape`
    /// (else [`BarrierKind::default`]).
    pub fn default_for(shape: LaunchShape) -> Self {
        cpu_shape_table()
            .best_where(ShapeClass::Barrier, shape, |k| {
                BarrierKind::parse(k).is_some()
            })
            .and_then(|(k, _)| BarrierKind::parse(k))
            .unwrap_or_default()
    }
}

impl MutexKind {
    /// The fastest kind measured on the CPU executor at the measured shape nearest to `shape`
    /// (contending groups, work-items per group; else [`MutexKind::default`]).
    pub fn default_for(shape: LaunchShape) -> Self {
        cpu_shape_table()
            .best_where(ShapeClass::Mutex, shape, |k| MutexKind::parse(k).is_some())
            .and_then(|(k, _)| MutexKind::parse(k))
            .unwrap_or_default()
    }
}

impl Barrier {
    /// A barrier of the fastest kind for `shape` ([`BarrierKind::default_for`]), for up to
    /// `shape.participants` groups.
    pub fn with_default_kind_for(shape: LaunchShape) -> Self {
        Self::new(BarrierKind::default_for(shape), shape.participants.max(1))
    }
}

impl Mutex {
    /// A mutex of the fastest kind for `shape` ([`MutexKind::default_for`]).
    pub fn with_default_kind_for(shape: LaunchShape) -> Self {
        Self::new(MutexKind::default_for(shape))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_table_parses_and_names_known_kinds() {
        let t = cpu_shape_table();
        assert!(!t.is_empty());
        for m in &t.measurements {
            match m.class {
                ShapeClass::Barrier | ShapeClass::BarrierSkewed => {
                    assert!(BarrierKind::parse(&m.kind).is_some(), "{}", m.kind)
                }
                ShapeClass::Mutex => assert!(MutexKind::parse(&m.kind).is_some(), "{}", m.kind),
            }
        }
    }

    #[test]
    fn the_default_is_the_fastest_at_the_nearest_shape() {
        let t = cpu_shape_table();
        for m in t
            .measurements
            .iter()
            .filter(|m| m.class == ShapeClass::Barrier)
        {
            let best = t.ranking(ShapeClass::Barrier, m.shape)[0].0;
            assert_eq!(BarrierKind::default_for(m.shape).name(), best);
        }
    }
}
