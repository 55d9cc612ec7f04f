//! Occupancy discovery (seed 001 §3, Fig. 3), with the mutex selectable and the delay
//! heuristic of seed 001 §5.4.

use super::atomic::{AtomicBool, AtomicUsize, Ordering};
use super::mutex::{Mutex, MutexKind, RawMutex};
use crate::cpu::Wait;

/// The result of discovery for one participating group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Discovered {
    /// The group's participating id, in `0..count` (seed 001: `M[get_group_id()]`).
    pub p_group_id: usize,
    /// The number of participating groups (seed 001: `count`, final once the poll closed).
    pub p_num_groups: usize,
}

/// Marks a group in [`Discovery::ids`] that did not take part.
pub const NON_PARTICIPATING: usize = usize::MAX;

/// The occupancy discovery protocol of seed 001 Fig. 3, run by one representative per group.
///
/// Polling phase (under the mutex): if the poll is open, record `M[group] = count`, increment
/// `count`; otherwise leave as non-participating. Closing phase (under the mutex): close the
/// poll if still open. A group participates iff it started the protocol before any group
/// finished it, so participants are co-occupant and, under the occupancy-bound execution
/// model, fairly scheduled.
///
/// `delay` is the heuristic of seed 001 §5.4: that many lock/unlock rounds on the mutex
/// between the phases, giving other occupant groups time to poll (with a ticket lock they
/// queue ahead of the closer).
///
/// Every variable is guarded by the mutex, so its accesses are `Relaxed`; `count` is read in
/// the closing phase, when the poll is closed and `count` can no longer change, so every
/// participant returns the same count.
///
/// ```
/// use occupant::cpu::sync::{Discovery, MutexKind, SpinWait};
/// let d = Discovery::new(4, MutexKind::Ticket, 0);
/// let w = SpinWait::default();
/// let first = d.discover(2, &w).unwrap();
/// assert_eq!((first.p_group_id, first.p_num_groups), (0, 1));
/// assert!(d.discover(0, &w).is_none()); // the poll is closed
/// ```
#[derive(Debug)]
pub struct Discovery {
    mutex: Mutex,
    poll_open: AtomicBool,
    count: AtomicUsize,
    ids: Vec<AtomicUsize>,
    delay: u32,
}

impl Discovery {
    /// A fresh protocol instance for a launch of `groups` groups (poll open, count 0), using a
    /// mutex of `mutex` kind and `delay` lock/unlock rounds between the phases.
    pub fn new(groups: usize, mutex: MutexKind, delay: u32) -> Self {
        Self::with_mutex(groups, Mutex::new(mutex), delay)
    }

    /// As [`Discovery::new`], with a mutex built by the caller (e.g. with its own backoff).
    pub fn with_mutex(groups: usize, mutex: Mutex, delay: u32) -> Self {
        Self {
            mutex,
            poll_open: AtomicBool::new(true),
            count: AtomicUsize::new(0),
            ids: (0..groups)
                .map(|_| AtomicUsize::new(NON_PARTICIPATING))
                .collect(),
            delay,
        }
    }

    /// The number of groups this instance was made for.
    pub fn groups(&self) -> usize {
        self.ids.len()
    }

    /// The mutex kind in use.
    pub fn mutex_kind(&self) -> MutexKind {
        self.mutex.kind()
    }

    /// The delay (lock/unlock rounds between polling and closing).
    pub fn delay(&self) -> u32 {
        self.delay
    }

    /// Runs the protocol for native group `group` (< [`groups`](Self::groups)): `Some` if it
    /// participates, `None` if it must exit at once.
    pub fn discover<W: Wait>(&self, group: usize, waiter: &W) -> Option<Discovered> {
        // Polling phase.
        self.mutex.lock(waiter);
        if !self.poll_open.load(Ordering::Relaxed) {
            self.mutex.unlock();
            return None;
        }
        let p_group_id = self.count.load(Ordering::Relaxed);
        self.ids[group].store(p_group_id, Ordering::Relaxed);
        self.count.store(p_group_id + 1, Ordering::Relaxed);
        self.mutex.unlock();

        // Delay heuristic (seed 001 §5.4).
        for _ in 0..self.delay {
            self.mutex.lock(waiter);
            self.mutex.unlock();
        }

        // Closing phase.
        self.mutex.lock(waiter);
        self.poll_open.store(false, Ordering::Relaxed);
        let p_num_groups = self.count.load(Ordering::Relaxed);
        self.mutex.unlock();
        Some(Discovered {
            p_group_id,
            p_num_groups,
        })
    }

    /// After the launch: each native group's participating id, or [`NON_PARTICIPATING`].
    /// Read it once the launch has returned (no group still running the protocol).
    pub fn ids(&self) -> Vec<usize> {
        self.ids.iter().map(|a| a.load(Ordering::Acquire)).collect()
    }

    /// After the launch: the number of participating groups.
    pub fn count(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }
}
