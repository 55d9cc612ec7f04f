//! Test-and-set spin mutex, with and without backoff (seed 004 Alg. 1–2).

use super::atomic::{AtomicU32, Ordering};
use super::backoff::{Backoff, BackoffConfig};
use super::mutex::RawMutex;
use crate::cpu::Wait;

/// Test-and-set spin lock (seed 004 Alg. 2): `lock` swaps 1 into the word until it reads 0;
/// `unlock` stores 0. Unfair: whichever waiter swaps first after an unlock wins.
///
/// With `backoff` set (the twin of the GPU's `occ::sync::SpinBackoffMutex`), a failed first
/// swap turns the lock into test-and-test-and-set: the word is polled with relaxed loads while
/// it is held and swapped only when it reads free, and a lost swap is followed by a pause that
/// grows linearly and wraps (seed 004 "spin-lock with backoff").
///
/// Ordering: the winning swap is `Acquire` and the unlocking store `Release`, so everything
/// done inside one critical section happens before everything in the next.
///
/// ```
/// use occupant::cpu::sync::{RawMutex, SpinMutex, SpinWait};
/// let m = SpinMutex::new();
/// m.lock(&SpinWait::default());
/// m.unlock();
/// ```
#[derive(Debug)]
pub struct SpinMutex {
    word: AtomicU32,
    backoff: Option<BackoffConfig>,
}

impl SpinMutex {
    /// An unlocked spin mutex without backoff.
    pub fn new() -> Self {
        Self {
            word: AtomicU32::new(0),
            backoff: None,
        }
    }

    /// An unlocked spin mutex that backs off after each failed attempt.
    pub fn with_backoff(cfg: BackoffConfig) -> Self {
        Self {
            word: AtomicU32::new(0),
            backoff: Some(cfg),
        }
    }

    /// The backoff configuration, if any.
    pub fn backoff(&self) -> Option<BackoffConfig> {
        self.backoff
    }

    /// One test-and-set attempt: `true` if it acquired the lock.
    pub fn try_lock(&self) -> bool {
        #[cfg(not(loom))]
        return self.word.swap(1, Ordering::Acquire) == 0;
        // Under loom the attempt is a compare-and-swap 0 -> 1. Why: C11 lets a failed swap be
        // ordered before the unlocking store in modification order forever, and loom's
        // read-modify-writes keep reading their own previous 1, so a test-and-set loop never
        // terminates in the model (hardware makes the store visible eventually). What is
        // checked is the same: a failed swap reads 1 and writes 1 right after another 1 in
        // modification order, without release, so it changes no value and creates no
        // happens-before edge; a failed CAS reads 1 and writes nothing. A winning swap and a
        // winning CAS both read 0 from the unlocking store (or the initial value) and are
        // `Acquire`. So the models' mutual-exclusion and data-race results hold for the swap.
        #[cfg(loom)]
        return self
            .word
            .compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
            .is_ok();
    }
}

impl Default for SpinMutex {
    fn default() -> Self {
        Self::new()
    }
}

impl RawMutex for SpinMutex {
    fn lock<W: Wait>(&self, waiter: &W) {
        match self.backoff {
            None => waiter.spin_until("spin_mutex", || self.try_lock()),
            Some(cfg) => {
                if self.try_lock() {
                    return;
                }
                let mut b = Backoff::new(cfg);
                waiter.spin_until("spin_backoff_mutex", || {
                    // Held: poll without writing the word.
                    if self.word.load(Ordering::Relaxed) != 0 {
                        return false;
                    }
                    let got = self.try_lock();
                    if !got {
                        b.pause(); // lost the race to another waiter
                    }
                    got
                });
            }
        }
    }

    fn unlock(&self) {
        self.word.store(0, Ordering::Release);
    }
}
