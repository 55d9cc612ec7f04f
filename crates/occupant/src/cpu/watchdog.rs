//! Per-launch watchdog state and the CPU wait policy ([`CpuWaiter`]).

use super::rng::SplitMix;
use super::wait::Wait;
use crate::model::{Error, WaitSite};
use crossbeam_utils::Backoff;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Why a work-item is being unwound by the executor (the panic payload of internal unwinds).
#[derive(Debug)]
pub(crate) enum Unwind {
    /// The launch was aborted (a wait expired or another group failed).
    Abort,
    /// Work-items of the group did not meet at the same barrier.
    Divergence(String),
}

/// Raises an internal unwind without running the panic hook (nothing is printed).
pub(crate) fn unwind(why: Unwind) -> ! {
    std::panic::resume_unwind(Box::new(why))
}

/// What every group of one launch shares: the abort flag, the first failure, and where groups
/// were waiting when the launch was aborted.
pub(crate) struct LaunchState {
    abort: AtomicBool,
    timeout: Duration,
    failure: Mutex<Option<Error>>,
    waiting: Mutex<Vec<WaitSite>>,
    adversarial: bool,
}

impl LaunchState {
    pub(crate) fn new(timeout: Duration, adversarial: bool) -> Self {
        Self {
            abort: AtomicBool::new(false),
            timeout,
            failure: Mutex::new(None),
            waiting: Mutex::new(Vec::new()),
            adversarial,
        }
    }

    #[inline]
    pub(crate) fn aborted(&self) -> bool {
        self.abort.load(Ordering::Relaxed)
    }

    #[inline]
    pub(crate) fn adversarial(&self) -> bool {
        self.adversarial
    }

    /// The watchdog's wait timeout of this launch.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Records `err` if it is the launch's first failure, and aborts every group.
    pub(crate) fn fail(&self, err: Error) {
        let mut f = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        if f.is_none() {
            *f = Some(err);
        }
        self.abort.store(true, Ordering::Relaxed);
    }

    fn note_waiting(&self, group: usize, primitive: &str) {
        self.waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(WaitSite {
                group,
                primitive: primitive.to_string(),
            });
    }

    /// The launch's outcome: `Ok` or its first failure, completed with the waiting groups.
    pub(crate) fn into_result(self, not_started: usize) -> Result<(), Error> {
        let failure = self.failure.into_inner().unwrap_or_else(|p| p.into_inner());
        match failure {
            None => Ok(()),
            Some(Error::Deadlock {
                primitive,
                timeout_ms,
                ..
            }) => {
                let mut waiting = self.waiting.into_inner().unwrap_or_else(|p| p.into_inner());
                waiting.sort_by_key(|w| w.group);
                Err(Error::Deadlock {
                    primitive,
                    waiting,
                    not_started,
                    timeout_ms,
                })
            }
            Some(e) => Err(e),
        }
    }
}

/// The CPU backend's wait policy, one per work-group: spins with `crossbeam_utils::Backoff`,
/// then yields the thread; watches the launch's abort flag and the watchdog deadline.
///
/// When a wait lasts longer than the watchdog's timeout, the launch is aborted with
/// [`Error::Deadlock`]; every other waiting group sees the abort flag and leaves too. Leaving
/// means unwinding the work-item, so [`Wait::spin_until`] returns only when its condition holds.
pub struct CpuWaiter<'a> {
    state: &'a LaunchState,
    group: usize,
    rng: Option<SplitMix>,
}

impl<'a> CpuWaiter<'a> {
    pub(crate) fn new(state: &'a LaunchState, group: usize, seed: Option<u64>) -> Self {
        Self {
            state,
            group,
            rng: seed.map(|s| SplitMix::new(s ^ (group as u64).wrapping_mul(0x2545_F491))),
        }
    }

    /// Linear id of the group this waiter belongs to.
    pub fn group(&self) -> usize {
        self.group
    }

    /// Under the adversarial model, sometimes yields the thread (called at barriers and waits).
    pub(crate) fn maybe_perturb(&self) {
        if let Some(rng) = &self.rng {
            match rng.below(16) {
                0 => std::thread::sleep(Duration::from_micros(rng.below(50))),
                1..=3 => std::thread::yield_now(),
                _ => {}
            }
        }
    }

    /// Leaves the work-item if the launch was aborted.
    pub(crate) fn check_abort(&self, primitive: &str) {
        if self.state.aborted() {
            self.state.note_waiting(self.group, primitive);
            unwind(Unwind::Abort);
        }
    }
}

impl Wait for CpuWaiter<'_> {
    fn spin_until<F: FnMut() -> bool>(&self, primitive: &'static str, mut cond: F) {
        if cond() {
            return;
        }
        let backoff = Backoff::new();
        let mut started: Option<Instant> = None;
        loop {
            if cond() {
                return;
            }
            self.check_abort(primitive);
            if self.state.adversarial() {
                self.maybe_perturb();
            }
            if !backoff.is_completed() {
                backoff.snooze();
                continue;
            }
            // Past the spinning phase: give the core away, and watch the deadline.
            std::thread::yield_now();
            let now = Instant::now();
            let since = *started.get_or_insert(now);
            if now.duration_since(since) > self.state.timeout {
                self.state.fail(Error::Deadlock {
                    primitive: primitive.to_string(),
                    waiting: Vec::new(),
                    not_started: 0,
                    timeout_ms: self.state.timeout.as_millis() as u64,
                });
                self.check_abort(primitive);
            }
        }
    }
}
