//! The persistent-kernel API of the CPU backend: "discover, then loop with barriers" in one
//! call, the same shape as the CUDA backend's `PersistentProgram` / `occ::Persistent`.
//!
//! [`Executor::launch_persistent`] launches a kernel in discovery mode: every group runs the
//! default occupancy discovery ([`Discovery::with_default_kind`], which finds every compute
//! unit), the groups that are not co-occupant leave at once, and the participants run the
//! kernel with a [`Persistent`] handle that bundles their participating ids and the default
//! inter-group barrier ([`Barrier::with_default_kind`]) sized for them. The call returns a
//! [`PersistentReport`]: how many groups took part and how long the launch took.
//!
//! ```
//! use occupant::cpu::{ExecModel, Executor, GlobalBuffer};
//! use occupant::NDRange;
//!
//! let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
//! let n = 1000;
//! let data = GlobalBuffer::<u32>::new(n);
//! // Ten phases over `data`, separated by inter-group barriers: no launch per phase.
//! let report = exec
//!     .launch_persistent(NDRange::groups(8, 4)?, |p| {
//!         for _ in 0..10 {
//!             let mut i = p.p_global_id();
//!             while i < n {
//!                 data.set(i, data.get(i) + 1);
//!                 i += p.p_global_size();
//!             }
//!             p.barrier(); // every write above is visible to every participant below
//!         }
//!     })?;
//! assert_eq!(report.participants, 2); // one group per compute unit took part
//! assert!(data.to_vec().iter().all(|&x| x == 10));
//! # Ok::<(), occupant::Error>(())
//! ```
//!
//! The participants are co-occupant (discovery's guarantee), so the barrier cannot deadlock
//! under any execution model; under [`ExecModel::Serialized`](crate::cpu::ExecModel::Serialized)
//! one group takes part and does all the work.

use super::exec_model::{available_cores, ExecModel};
use super::executor::{Executor, LaunchReport};
use super::launch::Launch;
use super::sync::{Barrier, BarrierKind, Discovery, Participation};
use super::work_item::WorkItem;
use crate::model::{NDRange, Result};
use serde::Serialize;

/// What a persistent launch did ([`Executor::launch_persistent`]).
#[derive(Debug, Clone, Serialize)]
pub struct PersistentReport {
    /// Groups that took part (discovery's count).
    pub participants: u32,
    /// Groups launched.
    pub launched: usize,
    /// The barrier [`Persistent::barrier`] used.
    pub barrier: BarrierKind,
    /// Wall time of the launch (discovery included), µs.
    pub elapsed_us: f64,
    /// The underlying launch.
    pub launch: LaunchReport,
}

/// The kernel's handle in a persistent launch: the work-item, its participating ids and the
/// default inter-group barrier among the participants.
///
/// Only participating groups see one. Use the `p_*` ids (not the work-item's native ids) to
/// share out work: they are contiguous over the participants.
pub struct Persistent<'k, 'w> {
    item: &'k WorkItem<'w>,
    env: Participation,
    barrier: &'k Barrier,
}

impl<'k, 'w> Persistent<'k, 'w> {
    /// The work-item (native ids, workgroup barrier, wait policy).
    #[inline]
    pub fn item(&self) -> &'k WorkItem<'w> {
        self.item
    }

    /// The group's participating id, in `0..p_num_groups()`.
    #[inline]
    pub fn p_group_id(&self) -> usize {
        self.env.p_group_id()
    }

    /// The number of participating groups.
    #[inline]
    pub fn p_num_groups(&self) -> usize {
        self.env.p_num_groups()
    }

    /// The work-item's id among all participating work-items.
    #[inline]
    pub fn p_global_id(&self) -> usize {
        self.env.p_global_id()
    }

    /// The number of participating work-items.
    #[inline]
    pub fn p_global_size(&self) -> usize {
        self.env.p_global_size()
    }

    /// The work-item's local (in-group) id.
    #[inline]
    pub fn local_id(&self) -> usize {
        self.env.local_id()
    }

    /// Work-items per group.
    #[inline]
    pub fn local_size(&self) -> usize {
        self.env.local_size()
    }

    /// The participation (ids) as a value, for the `cpu::sync` group operations.
    #[inline]
    pub fn participation(&self) -> &Participation {
        &self.env
    }

    /// The inter-group barrier among the participants: returns when every work-item of every
    /// participating group has reached it; every write before it happens before every read
    /// after it. Every work-item of the group must call it, the same number of times.
    #[inline]
    pub fn barrier(&self) {
        self.barrier.wait_group(self.item, &self.env);
    }
}

impl Executor {
    /// A launch shape for a persistent kernel: groups of `local_size` work-items, one group
    /// per compute unit of the executor's model (occupancy-bound: its `compute_units`;
    /// otherwise the machine's cores — discovery keeps those that run together, e.g. one
    /// under [`ExecModel::Serialized`]).
    ///
    /// ```
    /// use occupant::cpu::{ExecModel, Executor};
    /// let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 3 });
    /// let range = exec.persistent_range(8)?;
    /// assert_eq!((range.group_count(), range.local_count()), (3, 8));
    /// let r = exec.launch_persistent(range, |p| p.barrier())?;
    /// assert_eq!(r.participants, 3);
    /// # Ok::<(), occupant::Error>(())
    /// ```
    pub fn persistent_range(&self, local_size: usize) -> Result<NDRange> {
        let groups = match self.config().model {
            ExecModel::OccupancyBound { compute_units } => compute_units,
            _ => available_cores(),
        };
        NDRange::groups(groups, local_size)
    }

    /// Launches `kernel` as a persistent kernel: occupancy discovery by every group (the
    /// default, quiescent protocol with the executor's occupancy hint), then `kernel` in each
    /// participating group with a [`Persistent`] handle carrying the default barrier sized for
    /// the launch. Groups that do not participate return at once without running `kernel`.
    ///
    /// Launch as many groups as can be occupant or more (e.g. the model's compute units, or
    /// twice that): discovery keeps those that run together. Errors are those of
    /// [`Executor::launch_with`] (a barrier wait past the watchdog is
    /// [`Error::Deadlock`](crate::Error::Deadlock)).
    ///
    /// ```
    /// use occupant::cpu::{ExecModel, Executor, GlobalBuffer, Launch};
    /// use occupant::NDRange;
    /// let exec = Executor::new(ExecModel::Fair);
    /// let sum = GlobalBuffer::<u64>::new(1);
    /// let launch = Launch::new(NDRange::groups(3, 2)?).model(ExecModel::Serialized);
    /// let r = exec.launch_persistent(launch, |p| {
    ///     sum.fetch_add(0, p.p_global_id() as u64, std::sync::atomic::Ordering::Relaxed);
    ///     p.barrier();
    /// })?;
    /// assert_eq!(r.participants, 1); // serialized: one group at a time
    /// assert_eq!(sum.get(0), 1); // work-items 0 and 1 of the single participant
    /// # Ok::<(), occupant::Error>(())
    /// ```
    pub fn launch_persistent<F>(
        &self,
        launch: impl Into<Launch>,
        kernel: F,
    ) -> Result<PersistentReport>
    where
        F: Fn(&Persistent<'_, '_>) + Sync,
    {
        let launch = launch.into();
        let groups = launch.range.group_count();
        let discovery = Discovery::with_default_kind(groups);
        let barrier = Barrier::with_default_kind(groups);
        let report = self.launch_with(
            &launch,
            || (),
            |item, _: &()| {
                let Some(env) = discovery.discover_group(item) else {
                    return;
                };
                kernel(&Persistent {
                    item,
                    env,
                    barrier: &barrier,
                });
            },
        )?;
        Ok(PersistentReport {
            participants: discovery.count() as u32,
            launched: groups,
            barrier: barrier.kind(),
            elapsed_us: report.elapsed.as_secs_f64() * 1e6,
            launch: report,
        })
    }
}
