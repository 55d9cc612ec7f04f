//! A start gate for a launch's compute units: they begin taking groups together, as the SMs of a
//! GPU do when a kernel launches, instead of one by one as their threads happen to be spawned
//! (which let the first group finish a discovery protocol before the second unit existed).
//!
//! Units spin (then yield) on the gate rather than sleep on a condition variable, so that the
//! units running on distinct cores all leave within nanoseconds of the opening.

use crossbeam_utils::Backoff;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

#[derive(Default)]
pub(crate) struct StartGate {
    arrived: AtomicUsize,
    open: AtomicBool,
}

impl StartGate {
    /// Called by each compute unit first: waits until the gate opens. The launching thread
    /// opens it right after every unit arrived (see `open_when_arrived`), so this ends.
    pub(crate) fn arrive_and_wait(&self) {
        self.arrived.fetch_add(1, Ordering::Release);
        let backoff = Backoff::new();
        while !self.open.load(Ordering::Acquire) {
            backoff.snooze();
        }
    }

    /// Called by the launching thread once `units` threads were spawned (all that will be):
    /// waits until they have all arrived, then opens the gate. Spawned threads always run, so
    /// this wait ends.
    pub(crate) fn open_when_arrived(&self, units: usize) {
        let backoff = Backoff::new();
        while self.arrived.load(Ordering::Acquire) < units {
            backoff.snooze();
        }
        self.open.store(true, Ordering::Release);
    }
}
