//! Sense-reversing atomic-counter barrier (the centralised barrier of seed 004 §5).

use super::atomic::{AtomicBool, AtomicUsize, Ordering};
use crate::cpu::Wait;

/// A centralised, sense-reversing barrier: each arriving representative flips its group's local
/// sense and increments one shared counter; the last to arrive resets the counter and publishes
/// the new sense, for which the others spin.
///
/// Ordering: the increment is `AcqRel` (so the last arrival acquires every earlier arrival
/// through the counter's release sequence), the sense is published with `Release` and polled
/// with `Acquire`. The counter reset is ordered before the sense store, so the next episode's
/// increments, which follow an acquire of the new sense, see it.
///
/// ```
/// use occupant::cpu::sync::{AtomicBarrier, SpinWait};
/// let b = AtomicBarrier::new(2);
/// b.wait(0, 1, &SpinWait::default());
/// b.wait(0, 1, &SpinWait::default());
/// ```
#[derive(Debug)]
pub struct AtomicBarrier {
    count: AtomicUsize,
    sense: AtomicBool,
    /// Each group's local sense; only that group's representative touches its entry.
    local: Vec<AtomicBool>,
}

impl AtomicBarrier {
    /// A barrier for up to `capacity` participating groups (at least 1).
    pub fn new(capacity: usize) -> Self {
        Self {
            count: AtomicUsize::new(0),
            sense: AtomicBool::new(false),
            local: (0..capacity.max(1))
                .map(|_| AtomicBool::new(false))
                .collect(),
        }
    }

    /// The largest number of groups this barrier can synchronise.
    pub fn capacity(&self) -> usize {
        self.local.len()
    }

    /// The barrier for one representative of participating group `p_group_id` among
    /// `p_num_groups` (at most [`capacity`](Self::capacity)).
    pub fn wait<W: Wait>(&self, p_group_id: usize, p_num_groups: usize, waiter: &W) {
        debug_assert!(p_num_groups <= self.capacity() && p_group_id < p_num_groups);
        let my = !self.local[p_group_id].load(Ordering::Relaxed);
        self.local[p_group_id].store(my, Ordering::Relaxed);
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == p_num_groups {
            self.count.store(0, Ordering::Relaxed);
            self.sense.store(my, Ordering::Release);
        } else {
            waiter.spin_until("atomic_barrier", || {
                self.sense.load(Ordering::Acquire) == my
            });
        }
    }
}
