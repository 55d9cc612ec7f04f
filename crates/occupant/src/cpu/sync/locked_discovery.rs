//! Occupancy discovery as in seed 001 §3, Fig. 3: a polling and a closing phase, each a
//! critical section of an inter-group mutex, with the delay heuristic of seed 001 §5.4.

use super::atomic::{AtomicBool, AtomicUsize, Ordering};
use super::discovery::Discovered;
use super::mutex::{Mutex, RawMutex};
use crate::cpu::Wait;

/// The protocol of seed 001 Fig. 3, run by one representative per group.
///
/// Polling phase (under the mutex): if the poll is open, take `count` as the participating id
/// and increment it; otherwise leave as non-participating. Closing phase (under the mutex):
/// close the poll. A group participates iff it polled before any group closed, and no
/// participant leaves before the poll is closed, so participants are co-occupant.
///
/// `delay` is the heuristic of seed 001 §5.4: that many lock/unlock rounds on the mutex between
/// the phases, giving other occupant groups time to poll (with a ticket lock they queue ahead
/// of the closer).
///
/// Every variable is guarded by the mutex, so its accesses are `Relaxed`; `count` is read in
/// the closing phase, when the poll is closed and `count` can no longer change, so every
/// participant returns the same count.
///
/// ```
/// use occupant::cpu::sync::{LockedDiscovery, Mutex, MutexKind, SpinWait};
/// let d = LockedDiscovery::new(Mutex::new(MutexKind::Ticket), 0);
/// let w = SpinWait::default();
/// let first = d.discover(&w).unwrap();
/// assert_eq!((first.p_group_id, first.p_num_groups), (0, 1));
/// assert!(d.discover(&w).is_none()); // the poll is closed
/// ```
#[derive(Debug)]
pub struct LockedDiscovery {
    mutex: Mutex,
    poll_open: AtomicBool,
    count: AtomicUsize,
    delay: u32,
}

impl LockedDiscovery {
    /// A fresh instance (poll open, count 0) over `mutex`, with `delay` lock/unlock rounds
    /// between the phases.
    pub fn new(mutex: Mutex, delay: u32) -> Self {
        Self {
            mutex,
            poll_open: AtomicBool::new(true),
            count: AtomicUsize::new(0),
            delay,
        }
    }

    /// Runs the protocol for one group's representative: `Some` if the group participates,
    /// `None` if it must exit at once.
    pub fn discover<W: Wait>(&self, waiter: &W) -> Option<Discovered> {
        // Polling phase.
        self.mutex.lock(waiter);
        if !self.poll_open.load(Ordering::Relaxed) {
            self.mutex.unlock();
            return None;
        }
        let p_group_id = self.count.load(Ordering::Relaxed);
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

    /// The number of participants so far (final once every participant has returned).
    pub fn count(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }
}
