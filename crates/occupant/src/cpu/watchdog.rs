//! Per-launch watchdog state and the CPU wait policy ([`CpuWaiter`]).

use super::rng::SplitMix;
use super::wait::Wait;
use crate::model::{Error, WaitSite};
use crossbeam_utils::Backoff;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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

/// What every group of one launch shares: the abort flag, the progress counter, the first
/// failure, and where groups were waiting when the launch was aborted.
pub(crate) struct LaunchState {
    abort: AtomicBool,
    /// Waits of the launch that ended because their condition came true (bumped by
    /// [`progressed`](Self::progressed)); a [`Deadline`] restarts whenever it moves.
    progress: AtomicU64,
    timeout: Duration,
    failure: Mutex<Option<Error>>,
    waiting: Mutex<Vec<WaitSite>>,
    adversarial: bool,
}

impl LaunchState {
    pub(crate) fn new(timeout: Duration, adversarial: bool) -> Self {
        Self {
            abort: AtomicBool::new(false),
            progress: AtomicU64::new(0),
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

    /// Records that a wait of this launch ended with its condition true (it had to wait: its
    /// first check failed). Every waiting [`Deadline`] of the launch starts over.
    #[inline]
    pub(crate) fn progressed(&self) {
        self.progress.fetch_add(1, Ordering::Relaxed);
    }

    /// Fails the launch with [`Error::Deadlock`] in `primitive` (the waits that see the abort
    /// flag record where they were).
    pub(crate) fn fail_deadlock(&self, primitive: &str) {
        self.fail(Error::Deadlock {
            primitive: primitive.to_string(),
            waiting: Vec::new(),
            not_started: 0,
            timeout_ms: self.timeout.as_millis() as u64,
        });
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

/// The watchdog's deadline of one wait: it expires when the launch went the whole timeout
/// without progress — no wait of the launch ended because its condition came true — not when
/// this wait alone lasted the timeout. A long legitimate wait (a master joining a region of a
/// thousand team barriers, a group at the end of a chain of waits) goes on while others get
/// through theirs; a deadlock, where nobody gets through, is still reported one timeout after
/// the last progress.
pub(crate) struct Deadline<'a> {
    state: &'a LaunchState,
    seen: u64,
    since: Instant,
}

impl<'a> Deadline<'a> {
    /// A deadline that starts now.
    pub(crate) fn new(state: &'a LaunchState) -> Self {
        Self {
            state,
            seen: state.progress.load(Ordering::Relaxed),
            since: Instant::now(),
        }
    }

    /// Whether the launch made no progress for longer than the timeout since this deadline
    /// started or last saw progress (seeing progress restarts it).
    pub(crate) fn expired(&mut self) -> bool {
        let p = self.state.progress.load(Ordering::Relaxed);
        let now = Instant::now();
        if p != self.seen {
            self.seen = p;
            self.since = now;
            return false;
        }
        now.duration_since(self.since) > self.state.timeout
    }
}

/// The CPU backend's wait policy, one per work-group: spins with `crossbeam_utils::Backoff`,
/// then yields the thread; watches the launch's abort flag and the watchdog deadline.
///
/// When a wait sees the launch go longer than the watchdog's timeout without progress (no
/// wait of the launch ended: a deadline that restarts on progress), the launch is aborted with
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

impl CpuWaiter<'_> {
    /// [`Wait::spin_until`]; a wait that had to wait and ends counts as the launch's progress
    /// when `progress` is set.
    fn spin<F: FnMut() -> bool>(&self, primitive: &'static str, progress: bool, mut cond: F) {
        if cond() {
            return;
        }
        let backoff = Backoff::new();
        let mut deadline: Option<Deadline<'_>> = None;
        loop {
            if cond() {
                if progress {
                    self.state.progressed();
                }
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
            if deadline
                .get_or_insert_with(|| Deadline::new(self.state))
                .expired()
            {
                self.state.fail_deadlock(primitive);
                self.check_abort(primitive);
            }
        }
    }
}

impl Wait for CpuWaiter<'_> {
    fn spin_until<F: FnMut() -> bool>(&self, primitive: &'static str, cond: F) {
        self.spin(primitive, true, cond)
    }

    /// A retry after a failed attempt is no progress: a lock-free loop that keeps failing must
    /// not keep the launch's deadlines alive.
    fn pause(&self, primitive: &'static str) {
        let mut first = true;
        self.spin(primitive, false, || !std::mem::replace(&mut first, false));
    }
}
