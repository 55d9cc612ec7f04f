//! The mutex API: one type, [`Mutex`], whose implementation is a run-time parameter
//! ([`MutexKind`]), so that code using it does not change when the implementation does
//! (seed 004 §5, "API").

use super::backoff::BackoffConfig;
use super::cohort_mutex::{CohortMutex, COHORTS};
use super::spin_mutex::SpinMutex;
use super::ticket_mutex::TicketMutex;
use crate::cpu::Wait;
use serde::Serialize;
use std::fmt;

/// An inter-group mutual-exclusion lock, operated by one representative work-item per group.
///
/// Every wait goes through the caller's [`Wait`] policy, so a lock that is never released ends
/// the launch with a deadlock error instead of hanging.
pub trait RawMutex: Send + Sync {
    /// Acquires the lock, waiting through `waiter`.
    fn lock<W: Wait>(&self, waiter: &W);
    /// Releases the lock; the caller must hold it.
    fn unlock(&self);
}

/// The mutex implementations (seed 004 Alg. 1–3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MutexKind {
    /// Test-and-set spin lock ([`SpinMutex::new`]); unfair.
    Spin,
    /// Test-and-set spin lock with linear backoff ([`SpinMutex::with_backoff`]).
    SpinBackoff,
    /// Fetch-and-add ticket lock ([`TicketMutex::new`]); fair (FIFO).
    Ticket,
    /// Ticket lock with backoff while waiting for its turn ([`TicketMutex::with_backoff`]).
    TicketBackoff,
    /// Cohort lock ([`CohortMutex`], [`COHORTS`] cohorts by OS thread): the lock is handed
    /// within a cohort before it is released globally.
    Cohort,
}

impl MutexKind {
    /// Every kind, in the order of seed 004.
    pub const ALL: [MutexKind; 5] = [
        MutexKind::Spin,
        MutexKind::SpinBackoff,
        MutexKind::Ticket,
        MutexKind::TicketBackoff,
        MutexKind::Cohort,
    ];

    /// The short name used in reports, e.g. `"ticket_backoff"`.
    pub fn name(self) -> &'static str {
        match self {
            MutexKind::Spin => "spin",
            MutexKind::SpinBackoff => "spin_backoff",
            MutexKind::Ticket => "ticket",
            MutexKind::TicketBackoff => "ticket_backoff",
            MutexKind::Cohort => "cohort",
        }
    }

    /// Parses a name as printed by [`MutexKind::name`].
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

impl Default for MutexKind {
    /// [`MutexKind::Ticket`]: fair, one atomic per acquisition, and on the CPU backend (where
    /// waiters are cheap to poll) backoff buys little; see `bench/results/cpu-*/` for the data.
    fn default() -> Self {
        MutexKind::Ticket
    }
}

impl fmt::Display for MutexKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug)]
enum Inner {
    Spin(SpinMutex),
    Ticket(TicketMutex),
    Cohort(Box<CohortMutex>),
}

/// An inter-group mutex whose implementation is chosen at construction.
///
/// ```
/// use occupant::cpu::sync::{Mutex, MutexKind, RawMutex, SpinWait};
/// let w = SpinWait::default();
/// for kind in MutexKind::ALL {
///     let m = Mutex::new(kind);
///     m.lock(&w);
///     m.unlock();
///     assert_eq!(m.kind(), kind);
/// }
/// ```
#[derive(Debug)]
pub struct Mutex {
    kind: MutexKind,
    inner: Inner,
}

impl Mutex {
    /// An unlocked mutex of `kind`, with the default backoff where the kind backs off.
    pub fn new(kind: MutexKind) -> Self {
        Self::with_backoff(kind, BackoffConfig::default())
    }

    /// An unlocked mutex of `kind`; `backoff` is used by the backoff kinds only.
    pub fn with_backoff(kind: MutexKind, backoff: BackoffConfig) -> Self {
        let inner = match kind {
            MutexKind::Spin => Inner::Spin(SpinMutex::new()),
            MutexKind::SpinBackoff => Inner::Spin(SpinMutex::with_backoff(backoff)),
            MutexKind::Ticket => Inner::Ticket(TicketMutex::new()),
            MutexKind::TicketBackoff => Inner::Ticket(TicketMutex::with_backoff(backoff)),
            MutexKind::Cohort => Inner::Cohort(Box::new(CohortMutex::new(COHORTS))),
        };
        Self { kind, inner }
    }

    /// The implementation in use.
    pub fn kind(&self) -> MutexKind {
        self.kind
    }
}

impl Default for Mutex {
    /// A mutex of the default kind ([`MutexKind::default`]).
    fn default() -> Self {
        Self::new(MutexKind::default())
    }
}

impl RawMutex for Mutex {
    fn lock<W: Wait>(&self, waiter: &W) {
        match &self.inner {
            Inner::Spin(m) => m.lock(waiter),
            Inner::Ticket(m) => m.lock(waiter),
            Inner::Cohort(m) => m.lock(waiter),
        }
    }

    fn unlock(&self) {
        match &self.inner {
            Inner::Spin(m) => m.unlock(),
            Inner::Ticket(m) => m.unlock(),
            Inner::Cohort(m) => m.unlock(),
        }
    }
}
