//! The CPU backend's primitives benchmark (seed 004 §6 on the CPU): operations per second of
//! every barrier, mutex and semaphore implementation against the number of groups, and the
//! shape table ([`ShapeTable`]) the CPU backend's shape-aware defaults are made from.
//! `occupant bench primitives --backend cpu` is a thin layer over [`run_primitives`].
//!
//! Each launch runs under the fair model (every group has its own thread, so a barrier over all
//! launched groups is safe, as after discovery, which finds every compute unit), aligns the
//! groups with a barrier and times the primitive loop inside the kernel: from the first group's
//! start to the last one's end. One operation is one barrier episode (all groups pass), one
//! lock+unlock by one group, or one wait+post by one group.
//!
//! ```
//! use occupant::cpu::sync::{run_primitives, PrimitivesConfig};
//!
//! let config = PrimitivesConfig { groups: vec![2], local_size: 2, iters: 20, runs: 1,
//!                                 semaphore_values: vec![1] };
//! let report = run_primitives(&config, |_, _| {})?;
//! assert!(report.points.iter().all(|p| p.ops_per_sec.mean > 0.0));
//! let table = report.shape_table();
//! # Ok::<(), occupant::Error>(())
//! ```

use super::{Barrier, BarrierKind, Mutex, MutexKind, Participation, Semaphore, SemaphoreKind};
use crate::cpu::{available_cores, ExecModel, Executor, GlobalBuffer, Launch};
use crate::model::{LaunchShape, ShapeClass, ShapeTable, Summary, Watchdog};
use crate::{Error, NDRange, Result};
use serde::Serialize;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// One primitive implementation the benchmark measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Primitive {
    /// A barrier over every launched group.
    Barrier {
        /// Which barrier.
        implementation: BarrierKind,
    },
    /// A mutex every group takes in turn.
    Mutex {
        /// Which mutex.
        implementation: MutexKind,
    },
    /// A semaphore every group waits on and posts.
    Semaphore {
        /// Which semaphore.
        implementation: SemaphoreKind,
        /// Its initial value.
        initial: u32,
    },
}

impl Primitive {
    /// Every barrier and mutex kind, then every semaphore kind with each initial value.
    pub fn all(semaphore_values: &[u32]) -> Vec<Primitive> {
        let mut prims: Vec<Primitive> = BarrierKind::ALL
            .into_iter()
            .map(|implementation| Primitive::Barrier { implementation })
            .collect();
        prims.extend(
            MutexKind::ALL
                .into_iter()
                .map(|implementation| Primitive::Mutex { implementation }),
        );
        for &initial in semaphore_values {
            prims.extend(SemaphoreKind::ALL.into_iter().map(|implementation| {
                Primitive::Semaphore {
                    implementation,
                    initial,
                }
            }));
        }
        prims
    }

    /// "barrier", "mutex" or "semaphore".
    pub fn class_name(&self) -> &'static str {
        match self {
            Primitive::Barrier { .. } => "barrier",
            Primitive::Mutex { .. } => "mutex",
            Primitive::Semaphore { .. } => "semaphore",
        }
    }

    /// The implementation's name (semaphores with their initial value).
    pub fn label(&self) -> String {
        match self {
            Primitive::Barrier { implementation } => format!("{implementation}"),
            Primitive::Mutex { implementation } => format!("{implementation}"),
            Primitive::Semaphore {
                implementation,
                initial,
            } => format!("{implementation} ({initial})"),
        }
    }
}

/// What the benchmark runs.
#[derive(Debug, Clone, Serialize)]
pub struct PrimitivesConfig {
    /// Group counts (each ≥ 1).
    pub groups: Vec<usize>,
    /// Work-items per group (≥ 1).
    pub local_size: usize,
    /// Operations per group (barrier: episodes) per run.
    pub iters: u32,
    /// Runs per point (≥ 1).
    pub runs: usize,
    /// Semaphore initial values (seed 004 uses 1, 2, 10, 120).
    pub semaphore_values: Vec<u32>,
}

/// One (primitive, group count) point.
#[derive(Debug, Clone, Serialize)]
pub struct PrimitivePoint {
    /// The primitive.
    pub primitive: Primitive,
    /// Groups launched.
    pub groups: usize,
    /// Operations of each run.
    pub ops_per_run: Vec<u64>,
    /// Operations per second over the runs.
    pub ops_per_sec: Summary,
}

/// The benchmark's result.
#[derive(Debug, Clone, Serialize)]
pub struct PrimitivesReport {
    /// "bench primitives".
    pub experiment: &'static str,
    /// "cpu".
    pub backend: &'static str,
    /// Cores of the host.
    pub host_cores: usize,
    /// Work-items per group.
    pub local_size: usize,
    /// Operations per group per run.
    pub iters: u32,
    /// Runs per point.
    pub runs: usize,
    /// How the time was taken.
    pub timing: &'static str,
    /// Every measured point, primitive by primitive.
    pub points: Vec<PrimitivePoint>,
}

impl PrimitivesReport {
    /// The barrier and mutex costs (ns per operation) as a shape table: what the CPU backend's
    /// shape-aware defaults are made from (`occupant::cpu::sync::cpu_shape_table`).
    pub fn shape_table(&self) -> ShapeTable {
        let mut t = ShapeTable::new(&format!(
            "CPU executor, fair model, {} host cores",
            self.host_cores
        ));
        for p in &self.points {
            let shape = LaunchShape::new(p.groups, self.local_size);
            let rate = p.ops_per_sec.mean;
            // Barrier: one operation is one episode of all groups; mutex: one lock+unlock.
            let (class, kind) = match p.primitive {
                Primitive::Barrier { implementation } => {
                    (ShapeClass::Barrier, implementation.name())
                }
                Primitive::Mutex { implementation } => (ShapeClass::Mutex, implementation.name()),
                Primitive::Semaphore { .. } => continue,
            };
            if rate > 0.0 {
                t.record(class, kind, shape, 1e9 / rate);
            }
        }
        t
    }
}

/// Runs every primitive of [`Primitive::all`] at every group count of `config`, `runs` times;
/// `progress(primitive, groups)` is called after each run. A mutex that loses an update is an
/// error; so is a launch that deadlocks (the watchdog's 10 s deadline).
pub fn run_primitives(
    config: &PrimitivesConfig,
    mut progress: impl FnMut(&Primitive, usize),
) -> Result<PrimitivesReport> {
    let runs = config.runs.max(1);
    let mut points = vec![];
    for prim in Primitive::all(&config.semaphore_values) {
        for &groups in config.groups.iter().filter(|&&g| g > 0) {
            let (mut ops_per_run, mut rates) = (vec![], vec![]);
            for _ in 0..runs {
                let (ops, secs) = measure(prim, groups, config)?;
                ops_per_run.push(ops);
                rates.push(if secs > 0.0 { ops as f64 / secs } else { 0.0 });
                progress(&prim, groups);
            }
            points.push(PrimitivePoint {
                primitive: prim,
                groups,
                ops_per_run,
                ops_per_sec: Summary::of(&rates),
            });
        }
    }
    Ok(PrimitivesReport {
        experiment: "bench primitives",
        backend: "cpu",
        host_cores: available_cores(),
        local_size: config.local_size,
        iters: config.iters,
        runs,
        timing: "fair model (one thread per group), inside the kernel: first group's start to last group's end, after an aligning XF barrier",
        points,
    })
}

/// One timed launch: (operations, seconds).
fn measure(prim: Primitive, groups: usize, config: &PrimitivesConfig) -> Result<(u64, f64)> {
    let model = ExecModel::Fair;
    let range = NDRange::groups(groups, config.local_size.max(1))?;
    let launch = Launch::new(range)
        .model(model)
        .watchdog(Watchdog::default().with_timeout(Duration::from_secs(10)));
    let start_bar = Barrier::with_default_kind(groups);
    let barrier = match prim {
        Primitive::Barrier { implementation } => Barrier::new(implementation, groups),
        _ => Barrier::with_default_kind(1),
    };
    let mutex = match prim {
        Primitive::Mutex { implementation } => Mutex::new(implementation),
        _ => Mutex::default(),
    };
    let sem = match prim {
        Primitive::Semaphore {
            implementation,
            initial,
        } => Semaphore::new(implementation, initial),
        _ => Semaphore::with_default_kind(1),
    };
    let counter = GlobalBuffer::<u64>::new(1);
    let starts = GlobalBuffer::<u64>::filled(groups, u64::MAX);
    let ends = GlobalBuffer::<u64>::new(groups);
    let base = Instant::now();
    let iters = config.iters;
    Executor::new(model).launch_with(
        &launch,
        || (),
        |item, _| {
            let p = Participation::native(item);
            start_bar.wait_group(item, &p);
            let rep = item.local_linear_id() == 0;
            if rep {
                starts.set(p.p_group_id(), base.elapsed().as_nanos() as u64);
            }
            match prim {
                Primitive::Barrier { .. } => {
                    for _ in 0..iters {
                        barrier.wait_group(item, &p);
                    }
                }
                Primitive::Mutex { .. } => {
                    for _ in 0..iters {
                        mutex.lock_group(item);
                        if rep {
                            counter.store(0, counter.load(0, Relaxed) + 1, Relaxed);
                        }
                        mutex.unlock_group(item);
                    }
                }
                Primitive::Semaphore { .. } => {
                    for _ in 0..iters {
                        sem.wait_group(item);
                        sem.post_group(item);
                    }
                }
            }
            if rep {
                ends.set(p.p_group_id(), base.elapsed().as_nanos() as u64);
            }
        },
    )?;
    if let Primitive::Mutex { implementation } = prim {
        let expect = u64::from(iters) * groups as u64;
        if counter.get(0) != expect {
            return Err(Error::Backend {
                backend: "cpu",
                call: "bench primitives".into(),
                message: format!(
                    "mutex {implementation} lost updates: {} of {expect}",
                    counter.get(0)
                ),
            });
        }
    }
    let t0 = starts.to_vec().into_iter().min().unwrap_or(0);
    let t1 = ends.to_vec().into_iter().max().unwrap_or(0);
    let ops = match prim {
        Primitive::Barrier { .. } => u64::from(iters),
        _ => u64::from(iters) * groups as u64,
    };
    Ok((ops, t1.saturating_sub(t0) as f64 * 1e-9))
}
