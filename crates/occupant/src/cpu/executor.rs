//! The CPU executor: work-groups on a pool of compute units (OS threads).

use super::exec_model::ExecModel;
use super::group::{self, Group, GroupInfo, StackSource, UnitCoroutines};
use super::group_body::{GroupBody, GroupOutcome};
use super::launch::Launch;
use super::memory::LocalMemory;
use super::quiet_panics::{self, RunningKernel};
use super::rng::permutation;
use super::stack_pool::StackPool;
use super::start_gate::StartGate;
use super::unit_threads::{UnitThreads, MAX_KEPT};
use super::watchdog::{CpuWaiter, LaunchState, Unwind};
use super::work_item::WorkItem;
use crate::model::{delinearize, Error, NDRange, Result, Watchdog};
use serde::Serialize;
use std::any::Any;
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Settings of a CPU executor.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ExecutorConfig {
    /// Default execution model of launches.
    pub model: ExecModel,
    /// Default watchdog of launches.
    pub watchdog: Watchdog,
    /// Bytes of each work-item coroutine stack (a guard page is added below it).
    pub stack_size: usize,
    /// Bytes of each compute unit's thread stack (work-item 0 of each group runs on it).
    pub thread_stack_size: usize,
    /// Most work-items per group.
    pub max_local_size: usize,
    /// Most bytes of local memory per group.
    pub local_mem_limit: usize,
    /// Most groups a `Fair` launch may have (it spawns one thread per group).
    pub max_fair_groups: usize,
    /// Most compute units (OS threads) one launch may start, under any model. Every thread
    /// needs a stack and a signal stack from the OS; far past this (e.g. 100 000 threads, or
    /// the process's memory-map limit) the OS refuses and the Rust runtime aborts the process,
    /// so a launch that would exceed it fails with [`Error::InvalidLaunch`] instead.
    pub max_compute_units: usize,
}

impl Default for ExecutorConfig {
    fn default() -> Self {
        Self {
            model: ExecModel::default(),
            watchdog: Watchdog::default(),
            stack_size: 128 * 1024,
            thread_stack_size: 2 * 1024 * 1024,
            max_local_size: 4096,
            local_mem_limit: 64 * 1024,
            max_fair_groups: 4096,
            max_compute_units: 4096,
        }
    }
}

/// What a launch did.
#[derive(Debug, Clone, Serialize)]
pub struct LaunchReport {
    /// The execution model it ran under.
    pub model: ExecModel,
    /// Groups launched.
    pub groups: usize,
    /// Work-items per group.
    pub local_size: usize,
    /// Compute units (threads) used.
    pub compute_units: usize,
    /// Groups whose work-items became coroutines (they reached a barrier).
    pub coroutine_groups: usize,
    /// Coroutine stacks newly mapped by this launch (the rest came from the pools).
    pub stacks_allocated: usize,
    /// Wall-clock time of the launch.
    pub elapsed: Duration,
}

/// Runs kernels on the CPU in the OpenCL/CUDA execution model.
///
/// A panic in a kernel fails the launch with [`Error::KernelPanic`] (group, work-item,
/// message) and is not printed: the executor's panic hook keeps its compute units' panics off
/// stderr and passes every other panic to the previous hook; set
/// [`OCCUPANT_SHOW_KERNEL_PANICS=1`](crate::cpu::SHOW_KERNEL_PANICS_ENV) to print them too.
///
/// ```
/// use occupant::cpu::{Executor, ExecModel, GlobalBuffer, LocalArray, Launch};
/// use occupant::NDRange;
///
/// // Sum 16 values per group with a tree reduction in local memory.
/// let out = GlobalBuffer::<u32>::new(4);
/// let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
/// let launch = Launch::new(NDRange::d1(64, 16).unwrap());
/// exec.launch_with(&launch, || LocalArray::<u32>::new(16), |item, local| {
///     let l = item.local_linear_id();
///     local.set(l, item.global_linear_id() as u32);
///     let mut stride = 8;
///     while stride > 0 {
///         item.barrier();
///         if l < stride {
///             local.set(l, local.get(l) + local.get(l + stride));
///         }
///         stride /= 2;
///     }
///     if l == 0 {
///         out.set(item.group_linear_id(), local.get(0));
///     }
/// }).unwrap();
/// assert_eq!(out.get(0), (0..16).sum::<u32>());
/// ```
pub struct Executor {
    config: ExecutorConfig,
    pools: Mutex<Vec<StackPool>>,
    stacks_allocated: AtomicUsize,
    /// Compute-unit threads kept for the next launch (joined when the executor drops).
    unit_threads: Mutex<UnitThreads>,
}

impl Default for Executor {
    fn default() -> Self {
        Self::with_config(ExecutorConfig::default())
    }
}

impl Executor {
    /// An executor whose launches run under `model` by default.
    ///
    /// Never fails: a model that cannot run (zero compute units, more compute units than
    /// [`ExecutorConfig::max_compute_units`]) makes each launch return
    /// [`Error::InvalidLaunch`] before it starts anything.
    ///
    /// ```
    /// use occupant::cpu::{ExecModel, Executor};
    /// use occupant::{Error, NDRange};
    /// let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 100_000 });
    /// let e = exec.launch(NDRange::groups(200_000, 1).unwrap(), |_| {}).unwrap_err();
    /// assert!(matches!(e, Error::InvalidLaunch(ref m) if m.contains("max_compute_units")), "{e}");
    /// // A launch with fewer groups needs fewer threads and runs.
    /// exec.launch(NDRange::groups(8, 1).unwrap(), |_| {}).unwrap();
    /// ```
    pub fn new(model: ExecModel) -> Self {
        Self::with_config(ExecutorConfig {
            model,
            ..ExecutorConfig::default()
        })
    }

    /// An executor with explicit settings.
    pub fn with_config(config: ExecutorConfig) -> Self {
        Self {
            config,
            pools: Mutex::new(Vec::new()),
            stacks_allocated: AtomicUsize::new(0),
            unit_threads: Mutex::new(UnitThreads::default()),
        }
    }

    /// The executor's settings.
    pub fn config(&self) -> &ExecutorConfig {
        &self.config
    }

    /// Coroutine stacks mapped so far by this executor (they are reused, never freed until drop).
    pub fn stacks_allocated(&self) -> usize {
        self.stacks_allocated.load(Ordering::Relaxed)
    }

    /// Launches `kernel` over `range` without local memory, under the executor's defaults.
    pub fn launch<F>(&self, range: NDRange, kernel: F) -> Result<LaunchReport>
    where
        F: Fn(&WorkItem<'_>) + Sync,
    {
        self.launch_with(&Launch::new(range), || (), |item, _: &()| kernel(item))
    }

    /// Launches `kernel`; each group gets local memory made by `init`.
    ///
    /// Fails before running anything on an invalid shape, too much local memory or more
    /// compute units than [`ExecutorConfig::max_compute_units`]; fails after
    /// running with [`Error::Deadlock`], [`Error::BarrierDivergence`] or
    /// [`Error::KernelPanic`]. The executor stays usable after any failure.
    pub fn launch_with<L, I, F>(&self, launch: &Launch, init: I, kernel: F) -> Result<LaunchReport>
    where
        L: LocalMemory,
        I: Fn() -> L + Sync,
        F: Fn(&WorkItem<'_>, &L) + Sync,
    {
        self.launch_body(launch, &init, &CoroutineBody(&kernel))
    }

    /// Runs `body` once per group of `launch` on the executor's compute units: the launch
    /// machinery (validation, execution models, local memory, watchdog, failures) shared by the
    /// coroutine form ([`launch_with`](Self::launch_with)) and the phased form
    /// ([`launch_phased`](Self::launch_phased)).
    pub(crate) fn launch_body<L, I, B>(
        &self,
        launch: &Launch,
        init: &I,
        body: &B,
    ) -> Result<LaunchReport>
    where
        L: LocalMemory,
        I: Fn() -> L + Sync,
        B: GroupBody<L>,
    {
        let range = launch.range;
        let model = launch.model.unwrap_or(self.config.model);
        let watchdog = launch.watchdog.unwrap_or(self.config.watchdog);
        range.check_local_limit(self.config.max_local_size)?;
        if let ExecModel::OccupancyBound { compute_units: 0 } = model {
            return Err(Error::InvalidLaunch(
                "an occupancy-bound model needs at least one compute unit".into(),
            ));
        }
        let groups = range.group_count();
        if model == ExecModel::Fair && groups > self.config.max_fair_groups {
            return Err(Error::InvalidLaunch(format!(
                "the fair model runs one thread per group; {groups} groups exceed its limit of {} (use an occupancy-bound model)",
                self.config.max_fair_groups
            )));
        }
        let units = model.concurrency(groups);
        if units > self.config.max_compute_units {
            return Err(Error::InvalidLaunch(format!(
                "{model} with {groups} groups would start {units} compute units (OS threads), above the executor's limit of {} (ExecutorConfig::max_compute_units); use fewer compute units",
                self.config.max_compute_units
            )));
        }
        quiet_panics::install_hook();
        let bytes = catch_unwind(AssertUnwindSafe(|| {
            let _kernel = RunningKernel::enter();
            init().local_bytes()
        }))
        .map_err(|p| Error::KernelPanic {
            group: 0,
            local: 0,
            message: format!("local memory init panicked: {}", panic_message(&*p)),
        })?;
        if bytes > self.config.local_mem_limit {
            return Err(Error::LocalMemoryTooLarge {
                requested: bytes,
                limit: self.config.local_mem_limit,
            });
        }

        let seed = match model {
            ExecModel::Adversarial { seed } => Some(seed),
            _ => None,
        };
        let order: Option<Vec<usize>> = seed.map(|s| permutation(groups, s));
        let state = LaunchState::new(watchdog.timeout, seed.is_some());
        let next = AtomicUsize::new(0);
        let batch =
            if launch.independent_groups && matches!(model, ExecModel::OccupancyBound { .. }) {
                (groups / units.saturating_mul(16)).max(1)
            } else {
                1
            };
        let started = AtomicUsize::new(0);
        let coroutine_groups = AtomicUsize::new(0);
        let allocated_before = self.stacks_allocated();
        let t0 = Instant::now();

        let run = LaunchRun {
            exec: self,
            range,
            state: &state,
            seed,
            init,
            body,
            coroutine_groups: &coroutine_groups,
            units,
        };
        let gate = StartGate::default();
        // What compute unit `unit` does: take groups until none is left.
        let unit_loop = |unit: usize| {
            let (run, next, started, order, gate) = (&run, &next, &started, &order, &gate);
            let fixed = (model == ExecModel::Fair).then_some(unit);
            let _kernel = RunningKernel::enter();
            let mut pool = self.take_pool();
            gate.arrive_and_wait();
            // Counted here and added once: a shared counter per group would be
            // one more contended read-modify-write per group.
            let mut started_here = 0;
            // Groups claimed but not started yet: `batch` at a time (see
            // `Launch::independent_groups`), otherwise one.
            let (mut cur, mut end) = (0, 0);
            let mut unit = B::Unit::default();
            loop {
                if run.state.aborted() {
                    break;
                }
                let i = match fixed {
                    Some(u) => u,
                    None => {
                        if cur == end {
                            cur = next.fetch_add(batch, Ordering::Relaxed);
                            end = cur.saturating_add(batch).min(groups);
                        }
                        cur += 1;
                        cur - 1
                    }
                };
                if i >= groups {
                    break;
                }
                started_here += 1;
                let g = order.as_ref().map_or(i, |o| o[i]);
                run.group(g, &mut pool, &mut unit);
                if fixed.is_some() {
                    break;
                }
            }
            run.body.finish_unit(unit, &mut pool);
            started.fetch_add(started_here, Ordering::Relaxed);
            self.give_pool(pool);
        };
        // Small launches run on the executor's kept threads (see `unit_threads`), unless
        // another launch holds them.
        let kept = if units <= MAX_KEPT {
            self.unit_threads.try_lock().ok()
        } else {
            None
        };
        let ran_on_kept = kept.is_some_and(|mut threads| {
            threads
                .run(units, self.config.thread_stack_size, &unit_loop, || {
                    gate.open_when_arrived(units)
                })
                .is_ok()
        });
        if !ran_on_kept {
            std::thread::scope(|s| {
                let mut spawned_units = 0;
                for unit in 0..units {
                    let unit_loop = &unit_loop;
                    let spawned = std::thread::Builder::new()
                        .name(format!("occupant-cu{unit}"))
                        .stack_size(self.config.thread_stack_size)
                        .spawn_scoped(s, move || unit_loop(unit));
                    match spawned {
                        Ok(_) => spawned_units += 1,
                        Err(e) => {
                            state.fail(Error::Resource(format!(
                                "could not start compute unit {unit} of {units}: {e}"
                            )));
                            break;
                        }
                    }
                }
                gate.open_when_arrived(spawned_units);
            });
        }

        let elapsed = t0.elapsed();
        let not_started = groups.saturating_sub(started.load(Ordering::Relaxed));
        state.into_result(not_started)?;
        Ok(LaunchReport {
            model,
            groups,
            local_size: range.local_count(),
            compute_units: units,
            coroutine_groups: coroutine_groups.load(Ordering::Relaxed),
            stacks_allocated: self.stacks_allocated() - allocated_before,
            elapsed,
        })
    }

    fn take_pool(&self) -> StackPool {
        self.pools
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop()
            .unwrap_or_default()
    }

    fn give_pool(&self, pool: StackPool) {
        self.pools
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(pool);
    }
}

/// What the compute units of one launch share.
struct LaunchRun<'a, I, B> {
    exec: &'a Executor,
    range: NDRange,
    state: &'a LaunchState,
    seed: Option<u64>,
    init: &'a I,
    body: &'a B,
    coroutine_groups: &'a AtomicUsize,
    /// Compute units of the launch: the most groups occupant at once.
    units: usize,
}

impl<L, I, B> LaunchRun<'_, I, B>
where
    L: LocalMemory,
    I: Fn() -> L + Sync,
    B: GroupBody<L>,
{
    /// Runs group `g` on this compute unit, turning its failure into the launch's.
    fn group(&self, g: usize, pool: &mut StackPool, unit: &mut B::Unit) {
        let num_groups = self.range.num_groups();
        // 1-D launches skip the divisions (they are a visible part of a small group's cost).
        let group_ids = if num_groups[1] == 1 && num_groups[2] == 1 {
            [g, 0, 0]
        } else {
            delinearize(g, num_groups)
        };
        let info = GroupInfo {
            range: self.range,
            group_linear: g,
            group_ids,
            global_base: std::array::from_fn(|d| group_ids[d] * self.range.local_size()[d]),
            global_size: self.range.global_size(),
            group_count: self.range.group_count(),
            local_count: self.range.local_count(),
            occupancy_hint: self.units,
            waiter: CpuWaiter::new(self.state, g, self.seed),
            state: self.state,
            adversarial: self.seed.is_some(),
            broadcast: Cell::new(0),
            current: Cell::new(0),
        };
        if info.adversarial {
            info.waiter.maybe_perturb();
        }
        let local = match catch_unwind(AssertUnwindSafe(self.init)) {
            Ok(l) => l,
            Err(p) => {
                self.state.fail(Error::KernelPanic {
                    group: g,
                    local: 0,
                    message: format!("local memory init panicked: {}", panic_message(&*p)),
                });
                return;
            }
        };
        let stacks = StackSource {
            pool,
            size: self.exec.config.stack_size,
            allocated: &self.exec.stacks_allocated,
        };
        let GroupOutcome {
            result: outcome,
            coroutines,
            current,
        } = self.body.run_group(unit, info, &local, stacks);
        if coroutines {
            self.coroutine_groups.fetch_add(1, Ordering::Relaxed);
        }
        if let Err(payload) = outcome {
            match payload.downcast::<Unwind>() {
                Ok(why) => match *why {
                    Unwind::Abort => {}
                    Unwind::Divergence(detail) => self
                        .state
                        .fail(Error::BarrierDivergence { group: g, detail }),
                },
                Err(p) => self.state.fail(Error::KernelPanic {
                    group: g,
                    local: current,
                    message: panic_message(&*p),
                }),
            }
        }
    }
}

/// The coroutine form: each group runs its work-items as [`Group`] does (a plain loop until
/// the first barrier, coroutines after it), on coroutines its compute unit keeps across groups.
struct CoroutineBody<'k, F>(&'k F);

impl<L, F> GroupBody<L> for CoroutineBody<'_, F>
where
    L: LocalMemory,
    F: Fn(&WorkItem<'_>, &L) + Sync,
{
    /// The compute unit's coroutines, reused by its groups (see [`group`]).
    type Unit = UnitCoroutines;

    fn run_group(
        &self,
        unit: &mut UnitCoroutines,
        info: GroupInfo<'_>,
        local: &L,
        stacks: StackSource<'_>,
    ) -> GroupOutcome {
        let group = Group::new(info, self.0, local, stacks, std::mem::take(unit));
        let result = catch_unwind(AssertUnwindSafe(|| group.run()));
        let coroutines = group.release(result.is_ok(), unit);
        GroupOutcome {
            result,
            coroutines,
            current: group.info.current.get(),
        }
    }

    fn finish_unit(&self, unit: UnitCoroutines, pool: &mut StackPool) {
        group::finish_unit(unit, pool);
    }
}

/// The text of a panic payload.
pub(crate) fn panic_message(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}
