//! The primitives benchmark of the CUDA backend (`occupant bench primitives --backend cuda`
//! is its argument and output layer): barrier latency in every launch shape with the vendor's
//! `grid.sync()` and the naive counter barrier in the same run, the barrier lab (the barrier
//! designs' parameters, see [`BARRIER_LAB`](super::run::BARRIER_LAB)), mutex throughput from
//! one block to full occupancy, and spinning vs sleeping semaphores. Every measurement of a
//! library kind goes into a [`ShapeTable`], which the shape-aware defaults load
//! ([`store_shape_table`]).
//!
//! ```no_run
//! use occupant::cuda::sync::bench::{run_primitives, PrimitivesConfig};
//! let gpu = occupant::cuda::Gpu::open(0)?;
//! let cfg = PrimitivesConfig { mutexes: false, semaphores: false, ..Default::default() };
//! let report = run_primitives(&gpu, &cfg, &mut |line| println!("{line}"));
//! for s in &report.barrier_summary {
//!     println!("{}: best {:?}, grid.sync {:?} ns", s.shape, s.best, s.grid_sync_ns);
//! }
//! # Ok::<(), occupant::Error>(())
//! ```

mod barrier;
mod contention;
mod placed_kinds;
mod placement;
mod report_series;

pub use barrier::{
    barrier_shapes, standard_barrier_shapes, BarrierPoint, BenchShape, ShapeSummary,
};
pub use contention::mutex_label;
pub use placed_kinds::{placed_kinds, PlacedKindRun, PlacedKindsRow};
pub use placement::{
    barrier_placement, barrier_placement_with, mutex_placement, BarrierPlacementRow,
    MutexPlacementRow,
};
pub use report_series::PlotSeries;

use super::machine::{results_dir_name, MachineAbstraction};
use super::run::{MutexRun, SemaphoreRun};
use crate::cuda::{DeviceInfo, Gpu};
use crate::model::{Error, Result, ShapeTable, Watchdog};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What to measure.
#[derive(Debug, Clone)]
pub struct PrimitivesConfig {
    /// Barriers timed per configuration.
    pub rounds: u32,
    /// Lock/unlock (wait/post) pairs per mutex (semaphore) configuration, in total.
    pub ops: u32,
    /// Time the barriers (every kind, grid.sync(), the naive counter) in every shape.
    pub barriers: bool,
    /// Also time the barrier lab's variants in every shape.
    pub barrier_lab: bool,
    /// With the lab, also its cluster-launch designs and probes (clusters of 2 to 16).
    pub barrier_lab_clusters: bool,
    /// With the lab, only these of its variants and probes
    /// ([`BARRIER_LAB`](super::run::BARRIER_LAB), [`BARRIER_LAB_PROBES`](super::run::BARRIER_LAB_PROBES));
    /// empty: every one. Check names with [`check_lab_variants`].
    pub lab_variants: Vec<String>,
    /// Time the mutexes.
    pub mutexes: bool,
    /// Time the semaphores.
    pub semaphores: bool,
    /// The deadline of every wait.
    pub watchdog: Watchdog,
    /// Skewed arrivals: before each timed barrier every block waits a seeded pseudo-random
    /// delay, uniform in [0, skew_ns) ns ([`skew_option`](super::run::skew_option)); the
    /// barrier kinds' times then go into the table as
    /// [`ShapeClass::BarrierSkewed`](crate::model::ShapeClass::BarrierSkewed), the class
    /// persistent kernels choose from, and the kinds are timed as persistent kernels run them:
    /// with the polls' throttle
    /// ([`PERSISTENT_POLL_PAUSE_SHIFT`](crate::cuda::PERSISTENT_POLL_PAUSE_SHIFT)). 0: all
    /// blocks arrive together ([`ShapeClass::Barrier`](crate::model::ShapeClass)).
    pub skew_ns: u32,
    /// The barrier shapes to measure ([`BenchShape::parse`]); empty: [`barrier_shapes`], the
    /// built-in list. Other shapes check the shape-aware default where no table has measured
    /// (each shape's summary compares the built-in table's pick with the best of the run).
    pub shapes: Vec<BenchShape>,
    /// Launches of each barrier design per shape, interleaved (every design once, then again),
    /// launch i with our kinds' state at candidate place i
    /// ([`run_barrier_placed`](crate::cuda::sync::run::run_barrier_placed)): the figures and
    /// the table's entries are their medians (at least 1).
    pub runs: u32,
}

impl PrimitivesConfig {
    /// The barrier shapes this configuration measures on `info`'s device.
    pub fn barrier_shapes(&self, info: &DeviceInfo) -> Vec<BenchShape> {
        if self.shapes.is_empty() {
            barrier_shapes(info)
        } else {
            self.shapes.clone()
        }
    }
}

impl Default for PrimitivesConfig {
    fn default() -> Self {
        PrimitivesConfig {
            rounds: 20_000,
            ops: 200_000,
            barriers: true,
            barrier_lab: false,
            barrier_lab_clusters: false,
            lab_variants: Vec::new(),
            mutexes: true,
            semaphores: true,
            watchdog: Watchdog::default().with_timeout(Duration::from_secs(5)),
            skew_ns: 0,
            shapes: Vec::new(),
            runs: 1,
        }
    }
}

/// Everything one run measured (`primitives.json`).
#[derive(Debug, Clone, Serialize)]
pub struct PrimitivesReport {
    /// The device.
    pub device: DeviceInfo,
    /// Every barrier design in every shape.
    pub barrier: Vec<BarrierPoint>,
    /// Per shape: the best of ours, grid.sync(), the defaults.
    pub barrier_summary: Vec<ShapeSummary>,
    /// The barrier lab's variants in every shape (empty unless asked for).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub barrier_lab: Vec<BarrierPoint>,
    /// Every mutex at every contention.
    pub mutex: Vec<MutexRun>,
    /// Every semaphore.
    pub semaphore: Vec<SemaphoreRun>,
    /// The library kinds' measurements, by shape: where the shape-aware defaults come from.
    pub shape_table: ShapeTable,
}

/// Runs the benchmark; `log` receives one line per result as it comes.
pub fn run_primitives(
    gpu: &Gpu,
    cfg: &PrimitivesConfig,
    log: &mut dyn FnMut(&str),
) -> PrimitivesReport {
    let info = gpu.info().clone();
    let units = info.sm_count as usize;
    let mut table = ShapeTable::new(&info.name).with_compute_units(units);
    let shapes = cfg.barrier_shapes(&info);
    let mut report = PrimitivesReport {
        device: info,
        barrier: Vec::new(),
        barrier_summary: Vec::new(),
        barrier_lab: Vec::new(),
        mutex: Vec::new(),
        semaphore: Vec::new(),
        shape_table: ShapeTable::new(&gpu.info().name).with_compute_units(units),
    };
    if cfg.barriers {
        report.barrier = barrier::measure(gpu, cfg, &shapes, &mut table, log);
    }
    if cfg.barrier_lab {
        report.barrier_lab = barrier::measure_lab(gpu, cfg, &shapes, log);
    }
    if cfg.mutexes {
        report.mutex = contention::measure_mutexes(gpu, cfg, &mut table, log);
    }
    if cfg.semaphores {
        report.semaphore = contention::measure_semaphores(gpu, cfg, log);
    }
    if cfg.barriers {
        let class = barrier::class_of(cfg);
        report.barrier_summary = barrier::summarise(&report.barrier, &shapes, &table, class, log);
    }
    report.shape_table = table;
    report
}

/// Checks lab variant names ([`PrimitivesConfig::lab_variants`]): an error naming the first
/// unknown one and listing the known ones.
///
/// ```
/// use occupant::cuda::sync::bench::check_lab_variants;
/// assert!(check_lab_variants(&["lab_relay_relaxed_f64".into()]).is_ok());
/// assert!(check_lab_variants(&["lab_nothing".into()]).is_err());
/// ```
pub fn check_lab_variants(names: &[String]) -> Result<()> {
    use super::run::{BARRIER_LAB, BARRIER_LAB_PROBES};
    let known = || BARRIER_LAB.iter().chain(BARRIER_LAB_PROBES);
    match names.iter().find(|n| !known().any(|k| k == n)) {
        None => Ok(()),
        Some(n) => Err(Error::Input(format!(
            "no barrier lab variant `{n}` (known: {})",
            known().copied().collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// `new` with the measurements of `old` at the (class, shape) points `new` has none of: a
/// run replaces what it measured and keeps the rest (a run with skewed arrivals measures only
/// [`ShapeClass::BarrierSkewed`](crate::model::ShapeClass) and keeps the stored barrier and
/// mutex entries; a run of a few shapes, [`PrimitivesConfig::shapes`], adds them and keeps the
/// other shapes).
///
/// ```
/// use occupant::cuda::sync::bench::merge_tables;
/// use occupant::model::{LaunchShape, ShapeClass, ShapeTable};
/// let (a, b) = (LaunchShape::new(132, 128), LaunchShape::new(396, 128));
/// let mut old = ShapeTable::new("GPU");
/// old.record(ShapeClass::Barrier, "lean", a, 900.0);
/// old.record(ShapeClass::Barrier, "relay", a, 1900.0);
/// old.record(ShapeClass::Barrier, "lean", b, 1200.0);
/// let mut new = ShapeTable::new("GPU");
/// new.record(ShapeClass::Barrier, "lean", b, 1100.0);
/// let t = merge_tables(&old, &new);
/// assert_eq!(t.measurements.len(), 3); // a's two kept, b's replaced
/// assert!(t.measurements.iter().all(|m| m.shape != b || m.ns_per_op == 1100.0));
/// ```
pub fn merge_tables(old: &ShapeTable, new: &ShapeTable) -> ShapeTable {
    let mut t = new.clone();
    t.compute_units = new.compute_units.or(old.compute_units);
    for m in &old.measurements {
        if !new
            .measurements
            .iter()
            .any(|n| n.class == m.class && n.shape == m.shape)
        {
            t.measurements.push(m.clone());
        }
    }
    t
}

/// The shape table already in `path`, for a run of `device` to be merged into
/// ([`merge_tables`]: `occupant bench primitives --shape-table` on an existing file, e.g. a
/// built-in table gaining a run with skewed arrivals): `None` where there is no such file; an
/// error naming the file where it cannot be read, is not a shape table, or was measured on
/// another kind of device (by results folder name: merging would mix two GPUs' times).
///
/// ```
/// use occupant::cuda::sync::bench::read_shape_table_file;
/// let dir = std::env::temp_dir().join(format!("occ-doc-shapes-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let f = dir.join("t.json");
/// assert!(read_shape_table_file(&f, "NVIDIA H200")?.is_none());
/// std::fs::write(&f, r#"{"measured_on": "NVIDIA H200", "measurements": []}"#)?;
/// assert!(read_shape_table_file(&f, "NVIDIA H200")?.is_some());
/// assert!(read_shape_table_file(&f, "NVIDIA H100 80GB HBM3").is_err());
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_shape_table_file(path: &Path, device: &str) -> Result<Option<ShapeTable>> {
    let text = match std::fs::read_to_string(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::Io(format!("reading {}: {e}", path.display()))),
        Ok(t) => t,
    };
    let table = ShapeTable::from_json(&text).map_err(|e| {
        Error::Input(format!(
            "{}: {e}; a run is merged into an existing shape table: remove the file or name \
             another",
            path.display()
        ))
    })?;
    if results_dir_name(&table.measured_on) != results_dir_name(device) {
        return Err(Error::Input(format!(
            "{} holds a shape table measured on {}, and this device is {device}: merging would \
             mix two GPUs' times; name another file",
            path.display(),
            table.measured_on
        )));
    }
    Ok(Some(table))
}

/// Writes `new` to `path` as JSON, merged into `existing` (the table
/// [`read_shape_table_file`] found there before the run) per class and shape
/// ([`merge_tables`]): `occupant bench primitives --shape-table`. Returns how many of
/// `existing`'s measurements were kept (0 without one).
///
/// ```
/// use occupant::cuda::sync::bench::write_shape_table_file;
/// use occupant::model::ShapeTable;
/// let f = std::env::temp_dir().join(format!("occ-doc-write-{}.json", std::process::id()));
/// let t = ShapeTable::from_json(r#"{"measured_on": "NVIDIA H200", "measurements": []}"#)?;
/// assert_eq!(write_shape_table_file(&f, None, &t)?, 0);
/// assert!(std::fs::read_to_string(&f)?.contains("NVIDIA H200"));
/// std::fs::remove_file(&f)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_shape_table_file(
    path: &Path,
    existing: Option<&ShapeTable>,
    new: &ShapeTable,
) -> Result<usize> {
    let table = match existing {
        Some(old) => merge_tables(old, new),
        None => new.clone(),
    };
    let text = serde_json::to_string_pretty(&table)
        .map_err(|e| Error::Io(format!("serialising the shape table: {e}")))?;
    std::fs::write(path, text)
        .map_err(|e| Error::Io(format!("writing {}: {e}", path.display())))?;
    Ok(table.measurements.len() - new.measurements.len())
}

/// Stores `table` with the device's machine abstraction
/// ([`MachineAbstraction::store_path`]), where the shape-aware defaults of this device load
/// it from (measuring the abstraction first if none is stored). Returns the file written.
pub fn store_shape_table(gpu: &Gpu, table: &ShapeTable) -> Result<PathBuf> {
    let mut m = MachineAbstraction::for_gpu(gpu)?;
    m.shapes = merge_tables(&m.shapes, table);
    let p = MachineAbstraction::store_path(&gpu.info().name).ok_or_else(|| {
        crate::Error::Io(
            "no folder to store the machine abstraction in (set OCCUPANT_MACHINE_DIR)".into(),
        )
    })?;
    m.save(&p)?;
    Ok(p)
}
