//! The semaphore API: one type, [`Semaphore`], whose implementation is a run-time parameter
//! ([`SemaphoreKind`]) (seed 004 §5, "API").

use super::backoff::BackoffConfig;
use super::sleeping_semaphore::SleepingSemaphore;
use super::spin_semaphore::SpinSemaphore;
use crate::cpu::Wait;
use serde::Serialize;
use std::fmt;

/// An inter-group counting semaphore, operated by one representative work-item per group: at
/// most its initial value of groups are between `wait` and `post` at once.
pub trait RawSemaphore: Send + Sync {
    /// Takes a slot, waiting through `waiter` while none is free.
    fn wait<W: Wait>(&self, waiter: &W);
    /// Returns a slot. Some implementations wait briefly (through `waiter`) for exclusive
    /// access to the semaphore's word.
    fn post<W: Wait>(&self, waiter: &W);
}

/// The semaphore implementations (seed 004 Alg. 4–5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SemaphoreKind {
    /// Spin-lock semaphore ([`SpinSemaphore::new`]).
    Spin,
    /// Spin-lock semaphore with backoff in `wait` ([`SpinSemaphore::with_backoff`]).
    SpinBackoff,
    /// Fetch-and-add "sleeping" semaphore ([`SleepingSemaphore`]); fair.
    Sleeping,
}

impl SemaphoreKind {
    /// Every kind, in the order of seed 004.
    pub const ALL: [SemaphoreKind; 3] = [
        SemaphoreKind::Spin,
        SemaphoreKind::SpinBackoff,
        SemaphoreKind::Sleeping,
    ];

    /// The short name used in reports, e.g. `"sleeping"`.
    pub fn name(self) -> &'static str {
        match self {
            SemaphoreKind::Spin => "spin",
            SemaphoreKind::SpinBackoff => "spin_backoff",
            SemaphoreKind::Sleeping => "sleeping",
        }
    }

    /// Parses a name as printed by [`SemaphoreKind::name`].
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

impl Default for SemaphoreKind {
    /// [`SemaphoreKind::Sleeping`]: fair, and a wait on a free slot costs one atomic.
    fn default() -> Self {
        SemaphoreKind::Sleeping
    }
}

impl fmt::Display for SemaphoreKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug)]
enum Inner {
    Spin(SpinSemaphore),
    Sleeping(SleepingSemaphore),
}

/// An inter-group semaphore whose implementation is chosen at construction.
///
/// ```
/// use occupant::cpu::sync::{RawSemaphore, Semaphore, SemaphoreKind, SpinWait};
/// let w = SpinWait::default();
/// for kind in SemaphoreKind::ALL {
///     let s = Semaphore::new(kind, 2);
///     s.wait(&w);
///     s.wait(&w);
///     s.post(&w);
///     s.post(&w);
///     assert_eq!(s.initial(), 2);
/// }
/// ```
#[derive(Debug)]
pub struct Semaphore {
    kind: SemaphoreKind,
    initial: u32,
    inner: Inner,
}

impl Semaphore {
    /// A semaphore of `kind` with `initial` free slots (default backoff where it backs off).
    pub fn new(kind: SemaphoreKind, initial: u32) -> Self {
        Self::with_backoff(kind, initial, BackoffConfig::default())
    }

    /// A semaphore of `kind` with `initial` free slots; `backoff` is used by backoff kinds only.
    pub fn with_backoff(kind: SemaphoreKind, initial: u32, backoff: BackoffConfig) -> Self {
        let inner = match kind {
            SemaphoreKind::Spin => Inner::Spin(SpinSemaphore::new(initial)),
            SemaphoreKind::SpinBackoff => {
                Inner::Spin(SpinSemaphore::with_backoff(initial, backoff))
            }
            SemaphoreKind::Sleeping => Inner::Sleeping(SleepingSemaphore::new(initial)),
        };
        Self {
            kind,
            initial,
            inner,
        }
    }

    /// A semaphore of the default kind ([`SemaphoreKind::default`]).
    pub fn with_default_kind(initial: u32) -> Self {
        Self::new(SemaphoreKind::default(), initial)
    }

    /// The implementation in use.
    pub fn kind(&self) -> SemaphoreKind {
        self.kind
    }

    /// The initial number of free slots.
    pub fn initial(&self) -> u32 {
        self.initial
    }
}

impl RawSemaphore for Semaphore {
    fn wait<W: Wait>(&self, waiter: &W) {
        match &self.inner {
            Inner::Spin(s) => s.wait(waiter),
            Inner::Sleeping(s) => s.wait(waiter),
        }
    }

    fn post<W: Wait>(&self, waiter: &W) {
        match &self.inner {
            Inner::Spin(s) => s.post(waiter),
            Inner::Sleeping(s) => s.post(waiter),
        }
    }
}
