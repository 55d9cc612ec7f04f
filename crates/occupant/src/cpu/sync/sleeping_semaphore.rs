//! Sleeping (fetch-and-add) semaphore (seed 004 Alg. 5).

use super::atomic::{AtomicU64, Ordering};
use super::semaphore::RawSemaphore;
use crate::cpu::Wait;

/// Fetch-and-add semaphore (seed 004 Alg. 5): `wait` increments `count`; if the old value was
/// below the capacity it has a slot at once (one atomic), otherwise it takes a ticket and waits,
/// polling with plain loads, until `turn > ticket`. `post` decrements `count`; if waiters were
/// queued (old value above the capacity) it advances `turn`, handing its slot to the oldest.
/// Fair (FIFO among waiters) and at most two atomics per operation.
///
/// Ordering: the `count` updates are `AcqRel` (a direct admission synchronises with the post
/// that freed the slot through `count`'s release sequence); `turn` is advanced with `Release`
/// and polled with `Acquire`.
///
/// ```
/// use occupant::cpu::sync::{RawSemaphore, SleepingSemaphore, SpinWait};
/// let s = SleepingSemaphore::new(1);
/// let w = SpinWait::default();
/// s.wait(&w);
/// s.post(&w);
/// s.wait(&w);
/// assert_eq!(s.capacity(), 1);
/// ```
#[derive(Debug)]
pub struct SleepingSemaphore {
    count: AtomicU64,
    ticket: AtomicU64,
    turn: AtomicU64,
    capacity: u64,
}

impl SleepingSemaphore {
    /// A semaphore with `initial` free slots.
    pub fn new(initial: u32) -> Self {
        Self {
            count: AtomicU64::new(0),
            ticket: AtomicU64::new(0),
            turn: AtomicU64::new(0),
            capacity: u64::from(initial),
        }
    }

    /// The number of slots (the initial value).
    pub fn capacity(&self) -> u64 {
        self.capacity
    }
}

impl RawSemaphore for SleepingSemaphore {
    fn wait<W: Wait>(&self, waiter: &W) {
        let old = self.count.fetch_add(1, Ordering::AcqRel);
        if old < self.capacity {
            return;
        }
        let ticket = self.ticket.fetch_add(1, Ordering::Relaxed);
        waiter.spin_until("sleeping_semaphore", || {
            self.turn.load(Ordering::Acquire) > ticket
        });
    }

    fn post<W: Wait>(&self, _waiter: &W) {
        let old = self.count.fetch_sub(1, Ordering::AcqRel);
        if old > self.capacity {
            self.turn.fetch_add(1, Ordering::Release);
        }
    }
}
