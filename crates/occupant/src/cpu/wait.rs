//! The one wait policy of the CPU backend: every spin loop goes through [`Wait::spin_until`].

/// A wait policy: spins until a condition holds, backing off, while a watchdog watches a
/// deadline and the launch's abort flag.
///
/// On the CPU executor the implementation is [`CpuWaiter`](crate::cpu::CpuWaiter): when the
/// deadline passes or another group's wait expired, `spin_until` does not return — it unwinds
/// the work-item and the launch returns [`Error::Deadlock`](crate::Error::Deadlock). Loom models
/// use a waiter that yields to the model checker instead.
pub trait Wait {
    /// Spins until `cond()` returns `true`. `primitive` names the wait site in deadlock reports.
    fn spin_until<F: FnMut() -> bool>(&self, primitive: &'static str, cond: F);

    /// Called by primitives between retries of a failed attempt (e.g. a lost compare-and-swap),
    /// where there is no condition to poll; counts toward the same deadline as `spin_until`.
    fn pause(&self, primitive: &'static str) {
        let mut first = true;
        self.spin_until(primitive, || !std::mem::replace(&mut first, false));
    }
}
