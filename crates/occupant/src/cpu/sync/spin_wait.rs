//! A stand-alone wait policy for host threads (outside the executor): spins with a growing
//! backoff and gives up at a deadline.

use crate::cpu::Wait;
use std::time::{Duration, Instant};

/// A [`Wait`] policy for plain OS threads: spins, then yields to the OS, and panics with the
/// primitive's name when one wait lasts longer than `timeout` (so a broken protocol fails a
/// test instead of hanging it).
///
/// Inside kernels use the executor's waiter (`item.waiter()`), which turns an expired wait into
/// [`Error::Deadlock`](crate::Error::Deadlock) instead of a panic.
///
/// ```
/// use occupant::cpu::{sync::SpinWait, Wait};
/// let w = SpinWait::default();
/// let mut n = 0;
/// w.spin_until("example", || { n += 1; n == 3 });
/// assert_eq!(n, 3);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SpinWait {
    /// The longest a single `spin_until` may last.
    pub timeout: Duration,
}

impl Default for SpinWait {
    /// The [`Watchdog`](crate::model::Watchdog) default timeout.
    fn default() -> Self {
        Self {
            timeout: crate::model::Watchdog::default().timeout,
        }
    }
}

impl Wait for SpinWait {
    fn spin_until<F: FnMut() -> bool>(&self, primitive: &'static str, mut cond: F) {
        let start = Instant::now();
        let backoff = crossbeam_utils::Backoff::new();
        while !cond() {
            backoff.snooze();
            if backoff.is_completed() && start.elapsed() > self.timeout {
                panic!(
                    "SpinWait: wait in {primitive} exceeded {} ms",
                    self.timeout.as_millis()
                );
            }
        }
    }
}
