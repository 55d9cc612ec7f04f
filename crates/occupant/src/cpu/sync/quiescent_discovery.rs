//! Lock-free occupancy discovery that closes the poll when the occupancy hint is reached or
//! arrivals have stopped (CUDA twin: `DiscoveryMethod::Quiescent` in `device/discovery.cuh`).

use super::atomic::{AtomicUsize, Ordering};
use super::discovery::Discovered;
use crate::cpu::Wait;
use std::time::{Duration, Instant};

/// Bit of [`QuiescentDiscovery`]'s word that means "the poll is closed"; the other bits count
/// the groups that arrived.
const CLOSED: usize = 1 << (usize::BITS - 1);

/// The quiescent discovery protocol, run by one representative per group.
///
/// Each group adds one to a word whose top bit means "closed" and whose other bits count
/// arrivals; the old value is its participating id, and a set closed bit means it does not
/// participate. The first arrival (id 0) is the closer: it watches the count until it reaches
/// the occupancy hint (the most groups the launch can keep occupant; 0 = unknown) or has not
/// grown for the quiet period, then sets the closed bit with one more atomic add; the count at
/// that moment is the number of participants, which it publishes (release) to the others
/// waiting for it (acquire).
///
/// Safety does not depend on the hint or the quiet period: a participant arrived before the
/// poll closed and waits for the published count, and the closer is running until it closes,
/// so at the moment of closing every participant is occupant — they are co-occupant, whenever
/// the closer decides to close. The hint only makes the close early and complete: the CPU
/// executor's hint is exact (its compute units for the launch), so the closer waits exactly
/// until every compute unit has a participant.
///
/// ```
/// use occupant::cpu::sync::{QuiescentDiscovery, SpinWait};
/// use std::time::Duration;
/// let d = QuiescentDiscovery::new(Duration::from_millis(1));
/// let w = SpinWait::default();
/// let first = d.discover(1, &w).unwrap(); // hint 1: closes at once
/// assert_eq!((first.p_group_id, first.p_num_groups), (0, 1));
/// assert!(d.discover(1, &w).is_none()); // the poll is closed
/// assert_eq!(d.count(), 1);
/// ```
#[derive(Debug)]
pub struct QuiescentDiscovery {
    word: AtomicUsize,
    /// The number of participants, published by the closer; 0 until then.
    n: AtomicUsize,
    quiet: Duration,
}

impl QuiescentDiscovery {
    /// A fresh instance (poll open, nobody arrived) whose closer, without a reachable hint,
    /// closes once no group has arrived for `quiet`.
    pub fn new(quiet: Duration) -> Self {
        Self {
            word: AtomicUsize::new(0),
            n: AtomicUsize::new(0),
            quiet,
        }
    }

    /// The quiet period.
    pub fn quiet(&self) -> Duration {
        self.quiet
    }

    /// Runs the protocol for one group's representative, with `hint` the most groups that can
    /// be occupant at once (0 = unknown): `Some` if the group participates, `None` if it must
    /// exit at once.
    pub fn discover<W: Wait>(&self, hint: usize, waiter: &W) -> Option<Discovered> {
        let old = self.word.fetch_add(1, Ordering::AcqRel);
        if old & CLOSED != 0 {
            return None;
        }
        let p_group_id = old;
        let p_num_groups = if p_group_id == 0 {
            self.close(hint, waiter)
        } else {
            let mut n = 0;
            waiter.spin_until("discovery", || {
                n = self.n.load(Ordering::Acquire);
                n != 0
            });
            n
        };
        Some(Discovered {
            p_group_id,
            p_num_groups,
        })
    }

    /// The closer's part: wait for the hint or the quiet period, close, publish the count.
    fn close<W: Wait>(&self, hint: usize, waiter: &W) -> usize {
        let mut last = 0;
        let mut t_last = Instant::now();
        waiter.spin_until("discovery", || {
            let c = self.word.load(Ordering::Relaxed);
            if hint != 0 && c >= hint {
                return true;
            }
            let now = Instant::now();
            if c != last {
                last = c;
                t_last = now;
                return false;
            }
            now.duration_since(t_last) >= self.quiet
        });
        let n = self.word.fetch_add(CLOSED, Ordering::AcqRel) & !CLOSED;
        self.n.store(n, Ordering::Release);
        n
    }

    /// The number of participants once the poll has closed (0 before).
    pub fn count(&self) -> usize {
        self.n.load(Ordering::Acquire)
    }
}
