//! The cooperative scheduler of the CPU backend: runs one cooperative kernel on a set of
//! compute units and lends them to other launches submitted meanwhile.

use super::core::{BeginError, Churn, CoopCore, CoopStats, Units};
use super::exit::CoopExit;
use super::item::{CoopItem, KernelShared};
use super::HostMsg;
use crate::cpu::{ExecModel, Executor, Launch, LaunchReport, WorkItem};
use crate::model::coop::{Entry, ResizeVariant};
use crate::model::{Error, NDRange, Result, Watchdog};
use serde::Serialize;
use std::ops::Range;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Settings of a [`CoopScheduler`].
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CoopConfig {
    /// The execution model: it sets the compute units the scheduler manages
    /// (`OccupancyBound { n }`: `n`; `Serialized`: 1; `Fair`: one per group of the kernel;
    /// `Adversarial`: like `Fair`, with random kills and forks ([`Churn`]) seeded by the model's
    /// seed and random delays at every cooperative operation).
    pub model: ExecModel,
    /// Compute units, overriding the model's (for `Fair`/`Adversarial`: the most groups).
    pub capacity: Option<usize>,
    /// Watchdog of the kernel's waits and of other launches.
    pub watchdog: Watchdog,
    /// How long a launch may wait for the units it asked for (and a cooperative kernel for
    /// its first unit) before the scheduler gives up with an error.
    pub gather_timeout: Duration,
    /// Random kills and forks (testing); `None`: kill only when a launch needs units, fork
    /// whenever units are free.
    pub churn: Option<Churn>,
    /// The resizing barrier's implementation.
    pub variant: ResizeVariant,
}

impl Default for CoopConfig {
    fn default() -> Self {
        Self {
            model: ExecModel::default(),
            capacity: None,
            watchdog: Watchdog::default(),
            gather_timeout: Duration::from_secs(2),
            churn: None,
            variant: ResizeVariant::Regular,
        }
    }
}

impl CoopConfig {
    /// The default settings under `model`.
    pub fn new(model: ExecModel) -> Self {
        Self {
            model,
            ..Self::default()
        }
    }
}

/// What a cooperative launch did.
#[derive(Debug, Clone, Serialize)]
pub struct CoopReport {
    /// `N`, the groups asked for.
    pub limit: usize,
    /// Groups it started with.
    pub initial_groups: usize,
    /// Kills, forks, barriers, fewest and most active groups.
    pub stats: CoopStats,
    /// Executor launches it took (the initial groups, then one per fork).
    pub waves: usize,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// What a launch run through the scheduler beside a cooperative kernel did.
#[derive(Debug, Clone, Serialize)]
pub struct OtherReport {
    /// Compute units it ran on.
    pub units: usize,
    /// Of those, how many were held by the cooperative kernel when the request was made (the
    /// rest were free): the groups the kernel had to give up.
    pub taken: usize,
    /// From the request to the moment the units were free (the seed's gather time).
    pub gather: Duration,
    /// Its execution time on those units.
    pub exec: Duration,
}

/// Runs a cooperative kernel on the CPU executor and lends its compute units to other launches.
///
/// The scheduler manages `capacity` compute units (see [`CoopConfig::model`]). A cooperative
/// kernel ([`launch`](Self::launch)) starts with as many groups as units are free (at most the
/// `N` it asks for); a launch submitted meanwhile from another thread
/// ([`launch_other`](Self::launch_other)) asks for units: the kernel gives them up at
/// `offer_kill` and resizing barriers, the launch runs on them and gives them back, and the
/// kernel's next `request_fork` (or resizing barrier) regrows it. A launch that cannot gather its
/// units within [`CoopConfig::gather_timeout`] fails with [`Error::Resource`]; nothing hangs.
///
/// ```
/// use occupant::cpu::coop::{CoopConfig, CoopScheduler};
/// use occupant::cpu::{ExecModel, Executor, GlobalBuffer};
/// use occupant::model::coop::Entry;
/// use std::sync::atomic::Ordering;
///
/// let exec = Executor::default();
/// let sched = CoopScheduler::new(&exec, CoopConfig::new(ExecModel::OccupancyBound { compute_units: 4 }));
/// let next = GlobalBuffer::<u32>::new(1); // a shared task counter
/// let done = GlobalBuffer::<u32>::new(1000);
/// let report = sched.launch(4, 1, |coop, entry: Entry<()>| {
///     loop {
///         coop.offer_kill(); // may end this group: the tasks are shared, nothing is lost
///         coop.request_fork(&());
///         let t = next.fetch_add(0, 1, Ordering::Relaxed) as usize;
///         if t >= 1000 { return; }
///         done.set(t, 1);
///     }
/// }).unwrap();
/// assert!(done.to_vec().iter().all(|&d| d == 1));
/// assert_eq!(report.initial_groups, 4);
/// ```
pub struct CoopScheduler<'e> {
    exec: &'e Executor,
    core: Arc<CoopCore>,
    config: CoopConfig,
}

impl<'e> CoopScheduler<'e> {
    /// A scheduler over `exec`'s compute units.
    pub fn new(exec: &'e Executor, config: CoopConfig) -> Self {
        let capacity = config.capacity.unwrap_or(match config.model {
            ExecModel::OccupancyBound { compute_units } => compute_units,
            ExecModel::Serialized => 1,
            ExecModel::Fair | ExecModel::Adversarial { .. } => exec.config().max_fair_groups,
        });
        let churn = config.churn.or(match config.model {
            ExecModel::Adversarial { seed } => Some(Churn {
                seed,
                kill_per_mille: 200,
            }),
            _ => None,
        });
        Self {
            exec,
            core: Arc::new(CoopCore::new(capacity, churn)),
            config,
        }
    }

    /// The scheduler's settings.
    pub fn config(&self) -> &CoopConfig {
        &self.config
    }

    /// Its compute units now.
    pub fn units(&self) -> Units {
        self.core.units()
    }

    /// The running kernel's counters so far (kills, forks, barriers).
    pub fn stats(&self) -> CoopStats {
        self.core.stats()
    }

    /// Launches a cooperative kernel of at most `groups` groups of `local` work-items and
    /// waits for it to end.
    ///
    /// `kernel(coop, entry)` runs once per group: launched groups get [`Entry::Launch`],
    /// forked ones [`Entry::Fork`]/[`Entry::Resize`] with the transmitted value (type `T`).
    /// Fails with [`Error::InvalidLaunch`] if another cooperative kernel runs on this
    /// scheduler, [`Error::Resource`] if no unit frees up in time, and with the first error of
    /// any of its groups (deadlock, panic, divergence); the executor stays usable.
    pub fn launch<T, F>(&self, groups: usize, local: usize, kernel: F) -> Result<CoopReport>
    where
        T: Clone + Send + Sync,
        F: Fn(&CoopItem<'_, '_, T>, Entry<T>) + Sync,
    {
        NDRange::groups(groups, local)?.check_local_limit(self.exec.config().max_local_size)?;
        let t0 = Instant::now();
        let initial = self.begin(groups)?;
        let (tx, rx) = channel::<HostMsg<T>>();
        let shared = KernelShared {
            core: self.core.clone(),
            host: tx.clone(),
            variant: self.config.variant,
            perturb: matches!(self.config.model, ExecModel::Adversarial { .. }),
        };
        let mut waves = 0;
        let mut first_error: Option<Error> = None;
        std::thread::scope(|s| {
            let mut running = 0usize;
            let mut start = |ids: Range<usize>, entry: Entry<T>, m: usize| {
                let (shared, kernel, tx) = (&shared, &kernel, tx.clone());
                let spawned = std::thread::Builder::new()
                    .name(format!("occupant-coop-wave{waves}"))
                    .spawn_scoped(s, move || {
                        let r = self.run_wave(shared, kernel, ids, entry, m, local);
                        let _ = tx.send(HostMsg::Done(r));
                    });
                waves += 1;
                spawned.is_ok()
            };
            if start(0..initial, Entry::Launch, initial) {
                running += 1;
            } else {
                first_error = Some(Error::Resource("could not start a host thread".into()));
            }
            while running > 0 {
                let Ok(msg) = rx.recv() else { break };
                match msg {
                    HostMsg::Fork(ids, entry, m) => {
                        if start(ids.clone(), entry, m) {
                            running += 1;
                        } else {
                            first_error.get_or_insert(Error::Resource(format!(
                                "could not start a host thread for forked groups {ids:?}"
                            )));
                            self.core.abort();
                        }
                    }
                    HostMsg::Done(r) => {
                        running -= 1;
                        if let Err(e) = r {
                            first_error.get_or_insert(e);
                            self.core.abort();
                        }
                    }
                }
            }
        });
        let stats = self.core.end_kernel();
        if let Some(e) = first_error {
            return Err(e);
        }
        Ok(CoopReport {
            limit: groups,
            initial_groups: initial,
            stats,
            waves,
            elapsed: t0.elapsed(),
        })
    }

    /// Starts a kernel on the core, waiting (up to the gather timeout) for a free unit.
    fn begin(&self, groups: usize) -> Result<usize> {
        let deadline = Instant::now() + self.config.gather_timeout;
        loop {
            match self.core.begin_kernel(groups) {
                Ok(m) => return Ok(m),
                Err(BeginError::Busy) => {
                    return Err(Error::InvalidLaunch(
                        "a cooperative kernel is already running on this scheduler".into(),
                    ))
                }
                Err(BeginError::NoUnits) if Instant::now() >= deadline => {
                    return Err(Error::Resource(format!(
                        "no compute unit became free for the cooperative kernel within {} ms (other launches hold all {})",
                        self.config.gather_timeout.as_millis(),
                        self.core.units().capacity
                    )))
                }
                Err(BeginError::NoUnits) => std::thread::sleep(Duration::from_micros(50)),
            }
        }
    }

    /// One executor launch of groups `ids` of the kernel, one compute unit per group.
    fn run_wave<T, F>(
        &self,
        shared: &KernelShared<T>,
        kernel: &F,
        ids: Range<usize>,
        entry: Entry<T>,
        m: usize,
        local: usize,
    ) -> Result<LaunchReport>
    where
        T: Clone + Send + Sync,
        F: Fn(&CoopItem<'_, '_, T>, Entry<T>) + Sync,
    {
        let k = ids.len();
        let done: Vec<AtomicUsize> = (0..k).map(|_| AtomicUsize::new(0)).collect();
        let launch = Launch::new(NDRange::groups(k, local)?)
            .model(ExecModel::OccupancyBound { compute_units: k })
            .watchdog(self.config.watchdog);
        let r = self.exec.launch_with(
            &launch,
            || (),
            |item: &WorkItem<'_>, _: &()| {
                let j = item.group_linear_id();
                let coop = CoopItem {
                    item,
                    shared,
                    id: ids.start + j,
                    m: std::cell::Cell::new(m),
                };
                let normal = match catch_unwind(AssertUnwindSafe(|| kernel(&coop, entry.clone()))) {
                    Ok(()) => true,
                    Err(p) => match p.downcast::<CoopExit>() {
                        Ok(_) => false,
                        Err(p) => resume_unwind(p),
                    },
                };
                if normal && done[j].fetch_add(1, Ordering::AcqRel) + 1 == item.local_count() {
                    shared.core.finish(ids.start + j);
                }
            },
        );
        if r.is_err() {
            // Its groups will not reach any barrier: stop the others' waits.
            shared.core.abort();
        }
        r
    }

    /// Runs `kernel` over `range` on `units` compute units taken from the running cooperative
    /// kernel (or free ones), then gives them back. Call it from another thread while
    /// [`launch`](Self::launch) runs (or with no cooperative kernel: it then runs at once).
    ///
    /// Fails with [`Error::InvalidLaunch`] for 0 units or more than the scheduler has, and
    /// with [`Error::Resource`] if the units cannot be gathered within
    /// [`CoopConfig::gather_timeout`] (a cooperative kernel that never offers groups back, or
    /// one that needs them all: group 0 is never killed). The kernel is not harmed by a failed
    /// request.
    pub fn launch_other<F>(&self, units: usize, range: NDRange, kernel: F) -> Result<OtherReport>
    where
        F: Fn(&WorkItem<'_>) + Sync,
    {
        let capacity = self.core.units().capacity;
        if units == 0 || units > capacity {
            return Err(Error::InvalidLaunch(format!(
                "asked for {units} compute units; the cooperative scheduler has {capacity} (and keeps one for group 0 of a running cooperative kernel)"
            )));
        }
        let t0 = Instant::now();
        let before = self.core.units();
        let free = before
            .capacity
            .saturating_sub(before.held + before.lent + before.wanted);
        self.core.request_units(units);
        let deadline = t0 + self.config.gather_timeout;
        let mut spins = 0u32;
        while !self.core.try_claim(units) {
            if Instant::now() >= deadline {
                self.core.cancel(units);
                let u = self.core.units();
                return Err(Error::Resource(format!(
                    "the cooperative scheduler could not gather {units} compute unit(s) within {} ms: the cooperative kernel holds {} of {} and did not give them back at offer_kill or a resizing barrier (group 0 is never killed)",
                    self.config.gather_timeout.as_millis(),
                    u.held,
                    u.capacity
                )));
            }
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else if spins < 256 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(20));
            }
        }
        let gather = t0.elapsed();
        let t1 = Instant::now();
        let launch = Launch::new(range)
            .model(ExecModel::OccupancyBound {
                compute_units: units,
            })
            .watchdog(self.config.watchdog);
        let r = self
            .exec
            .launch_with(&launch, || (), |item, _: &()| kernel(item));
        let exec = t1.elapsed();
        self.core.give_back(units);
        r?;
        Ok(OtherReport {
            units,
            taken: units.saturating_sub(free),
            gather,
            exec,
        })
    }
}
