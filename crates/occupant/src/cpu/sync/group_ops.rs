//! Block semantics (seed 004 §3) on the CPU executor: one representative work-item (local id 0)
//! performs the inter-group operation, the rest of its group waits at a workgroup barrier.
//!
//! Every work-item of a group must call these functions (they contain workgroup barriers),
//! like OpenCL's `barrier()`.

use super::barrier::{Barrier, Inner};
use super::discovery::Discovery;
use super::environment::Participation;
use super::mutex::{Mutex, RawMutex};
use super::semaphore::{RawSemaphore, Semaphore};
use crate::cpu::WorkItem;

const NONE: u64 = u64::MAX;

fn is_representative(item: &WorkItem<'_>) -> bool {
    item.local_linear_id() == 0
}

impl Discovery {
    /// Runs discovery for `item`'s group: the representative runs the protocol, the result is
    /// broadcast to the group. `None`: the group does not participate and must return from the
    /// kernel at once. Every work-item of the group must call it. The quiescent protocol uses
    /// the executor's occupancy hint ([`WorkItem::occupancy_hint`]) unless the discovery has
    /// its own ([`Discovery::with_occupancy_hint`]).
    ///
    /// ```
    /// use occupant::cpu::sync::Discovery;
    /// use occupant::cpu::{ExecModel, Executor, GlobalBuffer};
    /// use occupant::NDRange;
    /// let range = NDRange::groups(8, 4).unwrap();
    /// let d = Discovery::with_default_kind(range.group_count());
    /// let seen = GlobalBuffer::<u32>::new(8 * 4);
    /// Executor::new(ExecModel::OccupancyBound { compute_units: 2 })
    ///     .launch(range, |item| {
    ///         let Some(p) = d.discover_group(item) else { return };
    ///         seen.set(p.p_global_id(), 1);
    ///     })
    ///     .unwrap();
    /// let n = d.count();
    /// assert_eq!(n, 2); // both compute units
    /// assert_eq!(seen.to_vec().iter().sum::<u32>() as usize, n * 4);
    /// ```
    pub fn discover_group(&self, item: &WorkItem<'_>) -> Option<Participation> {
        let (id, count) = if is_representative(item) {
            match self.discover_with_hint(
                item.group_linear_id(),
                item.occupancy_hint(),
                item.waiter(),
            ) {
                Some(d) => (d.p_group_id as u64, d.p_num_groups as u64),
                None => (NONE, NONE),
            }
        } else {
            (NONE, NONE)
        };
        let id = item.broadcast(0, id);
        if id == NONE {
            return None;
        }
        let count = item.broadcast(0, count);
        Some(Participation::new(
            id as usize,
            count as usize,
            item.local_linear_id(),
            item.local_count(),
        ))
    }
}

impl Barrier {
    /// The inter-group barrier for `item`'s group among the participants of `env`: returns
    /// when every work-item of every participating group has reached it; every write before it
    /// happens before every read after it. Every work-item of the group must call it.
    ///
    /// For the XF barrier the master group (participant 0) spreads its slaves over its
    /// work-items, as in seed 001 Fig. 2; otherwise the representative does the inter-group
    /// part between two workgroup barriers.
    pub fn wait_group(&self, item: &WorkItem<'_>, env: &Participation) {
        let (g, n) = (env.p_group_id(), env.p_num_groups());
        match &self.inner {
            Inner::Xf(xf) if g == 0 => {
                let stride = item.local_count();
                let mut s = 1 + item.local_linear_id();
                while s < n {
                    xf.master_wait_arrival(s, item.waiter());
                    s += stride;
                }
                item.barrier();
                let mut s = 1 + item.local_linear_id();
                while s < n {
                    xf.master_release(s);
                    s += stride;
                }
            }
            Inner::Xf(xf) => {
                item.barrier();
                if is_representative(item) {
                    xf.slave_arrive(g);
                    xf.slave_wait_release(g, item.waiter());
                }
                item.barrier();
            }
            Inner::Atomic(b) => {
                item.barrier();
                if is_representative(item) {
                    b.wait(g, n, item.waiter());
                }
                item.barrier();
            }
            Inner::Tree(b) => {
                item.barrier();
                if is_representative(item) {
                    b.wait(g, n, item.waiter());
                }
                item.barrier();
            }
        }
    }
}

impl Mutex {
    /// Acquires the mutex for `item`'s whole group (the representative locks, then the group
    /// meets at a workgroup barrier). Every work-item of the group must call it.
    pub fn lock_group(&self, item: &WorkItem<'_>) {
        if is_representative(item) {
            self.lock(item.waiter());
        }
        item.barrier();
    }

    /// Releases the mutex held by `item`'s group, once every work-item of the group is done
    /// with the critical section. Every work-item of the group must call it.
    pub fn unlock_group(&self, item: &WorkItem<'_>) {
        item.barrier();
        if is_representative(item) {
            self.unlock();
        }
    }

    /// Runs `critical` in every work-item of `item`'s group while the group holds the mutex.
    ///
    /// ```
    /// use occupant::cpu::sync::{Mutex, MutexKind};
    /// use occupant::cpu::{ExecModel, Executor, GlobalBuffer};
    /// use occupant::NDRange;
    /// use std::sync::atomic::Ordering::Relaxed;
    /// let m = Mutex::new(MutexKind::Ticket);
    /// let total = GlobalBuffer::<u64>::new(1);
    /// Executor::new(ExecModel::Fair)
    ///     .launch(NDRange::groups(4, 8).unwrap(), |item| {
    ///         m.critical_group(item, || {
    ///             let v = total.load(0, Relaxed); // not atomic: safe only under the lock
    ///             total.store(0, v + 1, Relaxed);
    ///         });
    ///     })
    ///     .unwrap();
    /// assert_eq!(total.get(0), 32);
    /// ```
    pub fn critical_group<R>(&self, item: &WorkItem<'_>, critical: impl FnOnce() -> R) -> R {
        self.lock_group(item);
        let r = critical();
        self.unlock_group(item);
        r
    }
}

impl Semaphore {
    /// Takes a slot for `item`'s whole group. Every work-item of the group must call it.
    pub fn wait_group(&self, item: &WorkItem<'_>) {
        if is_representative(item) {
            self.wait(item.waiter());
        }
        item.barrier();
    }

    /// Returns the slot of `item`'s group once every work-item is done with it. Every
    /// work-item of the group must call it.
    pub fn post_group(&self, item: &WorkItem<'_>) {
        item.barrier();
        if is_representative(item) {
            self.post(item.waiter());
        }
    }
}
