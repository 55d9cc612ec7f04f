//! Spin-lock semaphore, with and without backoff (seed 004 Alg. 4).

use super::atomic::{AtomicU64, Ordering};
use super::backoff::{Backoff, BackoffConfig};
use super::semaphore::RawSemaphore;
use crate::cpu::Wait;

/// Spin-lock semaphore (seed 004 Alg. 4). One word `S` holds the free slots plus one; 0 means
/// "locked by someone updating it". `wait` swaps 0 in: reading `v > 1` takes a slot (stores
/// `v - 1`), reading 1 means full (stores 1 back and retries), reading 0 retries. `post` swaps 0
/// in until it reads `v > 0` and stores `v + 1`.
///
/// With `backoff`, `wait` pauses after every failed attempt; `post` never backs off (seed 004:
/// posts should proceed aggressively).
///
/// Ordering: the swap is `Acquire`, the stores `Release`: each update of `S` is published to the
/// next one that reads it, so a `post` happens before the `wait` that takes its slot.
///
/// ```
/// use occupant::cpu::sync::{RawSemaphore, SpinSemaphore, SpinWait};
/// let s = SpinSemaphore::new(2);
/// let w = SpinWait::default();
/// s.wait(&w);
/// s.wait(&w);
/// assert!(!s.try_wait());
/// s.post(&w);
/// assert!(s.try_wait());
/// ```
#[derive(Debug)]
pub struct SpinSemaphore {
    s: AtomicU64,
    initial: u32,
    backoff: Option<BackoffConfig>,
}

enum Attempt {
    Acquired,
    Full,
    Busy,
}

impl SpinSemaphore {
    /// A semaphore with `initial` free slots, without backoff.
    pub fn new(initial: u32) -> Self {
        Self {
            s: AtomicU64::new(u64::from(initial) + 1),
            initial,
            backoff: None,
        }
    }

    /// A semaphore with `initial` free slots whose `wait` backs off after a failed attempt.
    pub fn with_backoff(initial: u32, cfg: BackoffConfig) -> Self {
        Self {
            backoff: Some(cfg),
            ..Self::new(initial)
        }
    }

    /// The initial number of free slots.
    pub fn initial(&self) -> u32 {
        self.initial
    }

    /// `swap(0)` on the word, as seed 004 does, except under loom (see below).
    #[cfg(not(loom))]
    fn swap_zero(&self, _take_from: u64) -> u64 {
        self.s.swap(0, Ordering::Acquire)
    }

    /// Under loom: a `swap(0)` that does not write when it reads a value below `take_from`
    /// (0 = busy, and for `wait` 1 = full), built from compare-and-swaps. Loom lets a spinning
    /// swap read its own earlier write forever (see `SpinMutex::try_lock`); a failed CAS writes
    /// nothing. The skipped writes are value-neutral: a busy swap writes 0 over 0, and a full
    /// `wait` writes 0 and then 1 back, so no value or happens-before edge that a slot depends
    /// on is lost, and the models' results hold for the plain swap.
    #[cfg(loom)]
    fn swap_zero(&self, take_from: u64) -> u64 {
        let mut expected = take_from;
        loop {
            match self
                .s
                .compare_exchange(expected, 0, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(v) => return v,
                Err(v) if v < take_from => return v,
                Err(v) => expected = v,
            }
        }
    }

    fn attempt(&self) -> Attempt {
        match self.swap_zero(2) {
            0 => Attempt::Busy,
            1 => {
                // Full: put the 1 back (under loom `swap_zero` did not take it).
                #[cfg(not(loom))]
                self.s.store(1, Ordering::Release);
                Attempt::Full
            }
            v => {
                self.s.store(v - 1, Ordering::Release);
                Attempt::Acquired
            }
        }
    }

    /// One attempt to take a slot: `true` if taken. May fail spuriously while another group is
    /// updating the semaphore.
    pub fn try_wait(&self) -> bool {
        matches!(self.attempt(), Attempt::Acquired)
    }
}

impl RawSemaphore for SpinSemaphore {
    fn wait<W: Wait>(&self, waiter: &W) {
        match self.backoff {
            None => waiter.spin_until("spin_semaphore", || {
                matches!(self.attempt(), Attempt::Acquired)
            }),
            Some(cfg) => {
                let mut b = Backoff::new(cfg);
                waiter.spin_until("spin_backoff_semaphore", || {
                    let got = matches!(self.attempt(), Attempt::Acquired);
                    if !got {
                        b.pause();
                    }
                    got
                });
            }
        }
    }

    fn post<W: Wait>(&self, waiter: &W) {
        waiter.spin_until("spin_semaphore_post", || match self.swap_zero(1) {
            0 => false,
            v => {
                self.s.store(v + 1, Ordering::Release);
                true
            }
        });
    }
}
