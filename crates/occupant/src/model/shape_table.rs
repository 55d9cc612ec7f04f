//! Shape-aware defaults: which implementation of a primitive is fastest depends on the launch
//! shape (participating groups, work-items per group, cluster size), not only on the device.
//! A [`ShapeTable`] holds measured costs per (primitive, kind, shape); [`ShapeTable::best`]
//! answers with the fastest kind at the shape asked for: measured there, or estimated from the
//! nearest measured shapes ([`ShapeTable::estimated_ranking`]).
//! Both backends keep one: the CUDA backend with the device's machine abstraction
//! (`occupant::cuda::sync::MachineAbstraction::shapes`), the CPU backend built in
//! (`occupant::cpu::sync::cpu_shape_table`).
//!
//! ```
//! use occupant::model::{LaunchShape, ShapeClass, ShapeTable};
//! let mut t = ShapeTable::new("example");
//! t.record(ShapeClass::Barrier, "atomic", LaunchShape::new(132, 128), 1100.0);
//! t.record(ShapeClass::Barrier, "spread", LaunchShape::new(132, 128), 950.0);
//! t.record(ShapeClass::Barrier, "atomic", LaunchShape::new(2112, 128), 3300.0);
//! t.record(ShapeClass::Barrier, "gather", LaunchShape::new(2112, 128), 1400.0);
//! assert_eq!(t.best(ShapeClass::Barrier, LaunchShape::new(120, 128)).unwrap().0, "spread");
//! assert_eq!(t.best(ShapeClass::Barrier, LaunchShape::new(1900, 128)).unwrap().0, "gather");
//! assert!(t.best(ShapeClass::Mutex, LaunchShape::new(1, 128)).is_none());
//! ```

use serde::{Deserialize, Serialize};

/// Measured shapes a cost estimate between them takes into account
/// ([`ShapeTable::estimated_ranking`]).
pub const NEIGHBOURS: usize = 4;

/// How much more a factor of two in participants counts than one in block size
/// ([`LaunchShape::distance`]).
pub const PARTICIPANT_WEIGHT: f64 = 3.0;

/// |log2(a / b)| (counts below 1 taken as 1): a factor of two either way is 1.
fn log_ratio(a: usize, b: usize) -> f64 {
    ((a.max(1) as f64) / (b.max(1) as f64)).log2().abs()
}

/// A launch shape, as far as a primitive's speed depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LaunchShape {
    /// Groups (blocks) taking part: barrier participants, contending groups of a mutex.
    pub participants: usize,
    /// Work-items (threads) per group.
    pub block_threads: usize,
    /// Groups per thread-block cluster (1: no clusters).
    pub cluster: u32,
}

impl LaunchShape {
    /// `participants` groups of `block_threads` work-items, no clusters.
    pub fn new(participants: usize, block_threads: usize) -> Self {
        Self {
            participants,
            block_threads,
            cluster: 1,
        }
    }

    /// The same in clusters of `cluster` groups.
    pub fn with_cluster(self, cluster: u32) -> Self {
        Self {
            cluster: cluster.max(1),
            ..self
        }
    }

    /// Distance between shapes: [`PARTICIPANT_WEIGHT`] × the log-ratio of participants plus
    /// the log-ratio of block sizes (a factor of two in participants counts 3, in block size
    /// 1); shapes with another cluster size are farther than any shape with the same one.
    /// Participants weigh more because which barrier is fastest follows the arrivals: across
    /// the H200's 51 measured shapes, the kind predicted for each shape from the others
    /// ([`ShapeTable::estimated_ranking`], leave-one-out) was at most 1.03× the best there
    /// with weight 3 (mean 1.001), and up to 1.14× (mean 1.006) with weight 1
    /// (`bench/results/nvidia-h200/i11-primitives/2026-11-28-s10-lean-eager/`).
    pub fn distance(&self, other: &LaunchShape) -> f64 {
        let d = PARTICIPANT_WEIGHT * log_ratio(self.participants, other.participants)
            + log_ratio(self.block_threads, other.block_threads);
        if self.cluster.max(1) == other.cluster.max(1) {
            d
        } else {
            d + 1000.0
        }
    }

    /// Which of `a` and `b` is nearer to this shape: the smaller [`distance`](Self::distance),
    /// and at equal distance the one with the nearer participant count (a barrier's cost
    /// follows the arrivals more than the block size), then the smaller shape, so that the
    /// choice never depends on the order of the measurements.
    ///
    /// ```
    /// use occupant::model::LaunchShape;
    /// use std::cmp::Ordering;
    /// let q = LaunchShape::new(1056, 128);
    /// let (more, wider) = (LaunchShape::new(2112, 128), LaunchShape::new(1056, 1024));
    /// assert_eq!(q.distance(&more), q.distance(&wider)); // 3: twice the blocks, 8x the threads
    /// assert_eq!(q.nearer(&wider, &more), Ordering::Less);
    /// assert_eq!(q.nearer(&more, &wider), Ordering::Greater);
    /// assert_eq!(q.nearer(&LaunchShape::new(1056, 256), &more), Ordering::Less);
    /// ```
    pub fn nearer(&self, a: &LaunchShape, b: &LaunchShape) -> std::cmp::Ordering {
        let lr = |s: &LaunchShape| log_ratio(self.participants, s.participants);
        self.distance(a)
            .total_cmp(&self.distance(b))
            .then(lr(a).total_cmp(&lr(b)))
            .then((a.participants, a.block_threads, a.cluster).cmp(&(
                b.participants,
                b.block_threads,
                b.cluster,
            )))
    }
}

impl std::fmt::Display for LaunchShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.participants, self.block_threads)?;
        if self.cluster > 1 {
            write!(f, " (cluster {})", self.cluster)?;
        }
        Ok(())
    }
}

/// The primitive a measurement is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeClass {
    /// Inter-group barriers: ns per barrier.
    Barrier,
    /// Mutexes: ns per lock/unlock pair over the whole launch (1000 / Mops/s).
    Mutex,
    /// Inter-group barriers under skewed arrivals (the groups reach each barrier at different
    /// times, as in a persistent loop whose groups finish their work unevenly): ns per barrier,
    /// the arrivals' delays included (`occupant bench primitives --skew-ns`). Persistent
    /// kernels choose their barrier from this class where it was measured.
    BarrierSkewed,
}

/// One measured cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShapeMeasurement {
    /// The primitive.
    pub class: ShapeClass,
    /// The implementation's short name (the backend's `…Kind::name()`).
    pub kind: String,
    /// The shape it was measured at.
    pub shape: LaunchShape,
    /// Its cost in ns per operation (lower is faster).
    pub ns_per_op: f64,
}

/// Measured costs by primitive, kind and shape. See the module documentation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ShapeTable {
    /// Where it was measured (device name, or the CPU executor and host).
    pub measured_on: String,
    /// The measurements.
    pub measurements: Vec<ShapeMeasurement>,
    /// The device's compute units (SMs), where known: a shape with more participants than
    /// that and one with at most that many are in different regimes (some groups share a
    /// unit), and an estimate for one never uses the other's measurements
    /// ([`estimated_ranking`](Self::estimated_ranking)). On an H200, 160 × 1024 sits
    /// nearest 132 × 1024, where replica is fastest, but replica is 1.24× the best there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_units: Option<usize>,
}

impl ShapeTable {
    /// An empty table for `measured_on`.
    pub fn new(measured_on: &str) -> Self {
        Self {
            measured_on: measured_on.to_string(),
            measurements: Vec::new(),
            compute_units: None,
        }
    }

    /// The same, for a device of `units` compute units (see
    /// [`compute_units`](Self::compute_units)).
    ///
    /// ```
    /// use occupant::model::{LaunchShape, ShapeClass, ShapeTable};
    /// let mut t = ShapeTable::new("GPU");
    /// let (one, two) = (LaunchShape::new(132, 1024), LaunchShape::new(264, 1024));
    /// t.record(ShapeClass::Barrier, "replica", one, 900.0);
    /// t.record(ShapeClass::Barrier, "lean_eager", one, 985.0);
    /// t.record(ShapeClass::Barrier, "replica", two, 1480.0);
    /// t.record(ShapeClass::Barrier, "lean_eager", two, 1030.0);
    /// let q = LaunchShape::new(160, 1024); // 28 SMs hold two blocks
    /// assert_eq!(t.best(ShapeClass::Barrier, q).unwrap().0, "replica");
    /// let t = t.with_compute_units(132);
    /// assert_eq!(t.best(ShapeClass::Barrier, q).unwrap().0, "lean_eager");
    /// assert_eq!(t.best(ShapeClass::Barrier, LaunchShape::new(100, 1024)).unwrap().0, "replica");
    /// ```
    pub fn with_compute_units(mut self, units: usize) -> Self {
        self.compute_units = Some(units);
        self
    }

    /// Whether `shape` has more participants than the device has compute units.
    fn crowded(&self, shape: &LaunchShape) -> bool {
        self.compute_units.is_some_and(|u| shape.participants > u)
    }

    /// [`LaunchShape::nearer`] for this table: a shape in the regime of `shape`
    /// ([`compute_units`](Self::compute_units)) before any other.
    fn nearer(&self, shape: LaunchShape, a: &LaunchShape, b: &LaunchShape) -> std::cmp::Ordering {
        let other = |s: &LaunchShape| self.crowded(s) != self.crowded(&shape);
        other(a).cmp(&other(b)).then(shape.nearer(a, b))
    }

    /// True when nothing was measured.
    pub fn is_empty(&self) -> bool {
        self.measurements.is_empty()
    }

    /// Records a cost (replacing an earlier one of the same class, kind and shape). Costs that
    /// are not positive and finite are ignored.
    pub fn record(&mut self, class: ShapeClass, kind: &str, shape: LaunchShape, ns_per_op: f64) {
        if !(ns_per_op > 0.0 && ns_per_op.is_finite()) {
            return;
        }
        self.measurements
            .retain(|m| !(m.class == class && m.kind == kind && m.shape == shape));
        self.measurements.push(ShapeMeasurement {
            class,
            kind: kind.to_string(),
            shape,
            ns_per_op,
        });
    }

    /// The measured shape of `class` nearest to `shape` ([`LaunchShape::distance`]).
    pub fn nearest_shape(&self, class: ShapeClass, shape: LaunchShape) -> Option<LaunchShape> {
        self.measurements
            .iter()
            .filter(|m| m.class == class)
            .map(|m| m.shape)
            .min_by(|a, b| self.nearer(shape, a, b))
    }

    /// Every kind measured at exactly `shape`, fastest first.
    pub fn ranking(&self, class: ShapeClass, shape: LaunchShape) -> Vec<(&str, f64)> {
        let mut v: Vec<(&str, f64)> = self
            .measurements
            .iter()
            .filter(|m| m.class == class && m.shape == shape)
            .map(|m| (m.kind.as_str(), m.ns_per_op))
            .collect();
        v.sort_by(|a, b| a.1.total_cmp(&b.1));
        v
    }

    /// The kinds `allowed` accepts, fastest first, with their cost estimated at `shape`:
    /// where the table measured `shape`, the measured costs; elsewhere each kind measured at
    /// the nearest measured shape ([`LaunchShape::nearer`]), its cost there and at the other
    /// [`NEIGHBOURS`] − 1 nearest measured shapes (same cluster size and regime,
    /// [`compute_units`](Self::compute_units)) where it was measured,
    /// averaged with weights 1 / distance², so that a shape between two measured ones takes
    /// both into account. On an H200, 1452 × 64 lies between 1056 × 64, where lean_pause is
    /// fastest, and 2112 × 64, where relay is: the nearest alone chose lean_pause, 1.15× relay's
    /// time there.
    ///
    /// ```
    /// use occupant::model::{LaunchShape, ShapeClass, ShapeTable};
    /// let mut t = ShapeTable::new("example");
    /// let (small, large) = (LaunchShape::new(1056, 64), LaunchShape::new(2112, 64));
    /// t.record(ShapeClass::Barrier, "lean_pause", small, 1480.0);
    /// t.record(ShapeClass::Barrier, "relay", small, 1850.0);
    /// t.record(ShapeClass::Barrier, "lean_pause", large, 3400.0);
    /// t.record(ShapeClass::Barrier, "relay", large, 2050.0);
    /// let r = t.estimated_ranking(ShapeClass::Barrier, LaunchShape::new(1452, 64), |_| true);
    /// assert_eq!(r[0].0, "relay"); // the nearest shape alone says lean_pause
    /// let r = t.estimated_ranking(ShapeClass::Barrier, small, |_| true);
    /// assert_eq!(r, vec![("lean_pause", 1480.0), ("relay", 1850.0)]); // measured: as measured
    /// ```
    pub fn estimated_ranking(
        &self,
        class: ShapeClass,
        shape: LaunchShape,
        allowed: impl Fn(&str) -> bool,
    ) -> Vec<(&str, f64)> {
        let mut shapes: Vec<LaunchShape> = self
            .measurements
            .iter()
            .filter(|m| m.class == class && allowed(&m.kind))
            .map(|m| m.shape)
            .collect();
        shapes.sort_by(|a, b| self.nearer(shape, a, b));
        shapes.dedup();
        let Some(&nearest) = shapes.first() else {
            return Vec::new();
        };
        let exact = |(k, _): &(&str, f64)| allowed(k);
        if shape.distance(&nearest) == 0.0 {
            return self
                .ranking(class, nearest)
                .into_iter()
                .filter(exact)
                .collect();
        }
        let near: Vec<LaunchShape> = shapes
            .into_iter()
            .filter(|s| {
                s.cluster.max(1) == nearest.cluster.max(1)
                    && self.crowded(s) == self.crowded(&nearest)
            })
            .take(NEIGHBOURS)
            .collect();
        let mut v: Vec<(&str, f64)> = self
            .ranking(class, nearest)
            .into_iter()
            .filter(exact)
            .map(|(kind, _)| {
                let (mut sum, mut weights) = (0.0, 0.0);
                for m in self
                    .measurements
                    .iter()
                    .filter(|m| m.class == class && m.kind == kind && near.contains(&m.shape))
                {
                    let w = 1.0 / shape.distance(&m.shape).powi(2);
                    sum += w * m.ns_per_op;
                    weights += w;
                }
                (kind, sum / weights)
            })
            .collect();
        v.sort_by(|a, b| a.1.total_cmp(&b.1));
        v
    }

    /// The fastest of the kinds `allowed` accepts (e.g. the kinds a backend knows) at `shape`,
    /// by [`estimated_ranking`](Self::estimated_ranking), with its estimated cost. None when
    /// nothing fits.
    pub fn best_where(
        &self,
        class: ShapeClass,
        shape: LaunchShape,
        allowed: impl Fn(&str) -> bool,
    ) -> Option<(&str, f64)> {
        self.estimated_ranking(class, shape, allowed)
            .into_iter()
            .next()
    }

    /// The fastest kind at `shape` (see [`best_where`](Self::best_where)).
    pub fn best(&self, class: ShapeClass, shape: LaunchShape) -> Option<(&str, f64)> {
        self.best_where(class, shape, |_| true)
    }

    /// Parses a table from JSON.
    pub fn from_json(text: &str) -> crate::Result<Self> {
        serde_json::from_str(text)
            .map_err(|e| crate::Error::Input(format!("not a shape table: {e}")))
    }
}
