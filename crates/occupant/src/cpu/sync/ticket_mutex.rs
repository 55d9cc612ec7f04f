//! Ticket (fetch-and-add) mutex, with and without backoff (seed 004 Alg. 3).

use super::atomic::{AtomicU64, Ordering};
use super::backoff::{Backoff, BackoffConfig};
use super::mutex::RawMutex;
use crate::cpu::Wait;

/// A ticket taken from a [`TicketMutex`]: the lock is granted in ticket order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ticket(pub u64);

/// Fetch-and-add mutex (seed 004 Alg. 3): `lock` takes a ticket with one atomic increment and
/// waits until `turn` equals it; `unlock` advances `turn` with a plain (non-RMW) store, since
/// only the holder writes it. Fair: first come, first served.
///
/// Ordering: the waiting load of `turn` is `Acquire` and the unlocking store `Release`; the
/// ticket increment only has to be atomic (`Relaxed`).
///
/// ```
/// use occupant::cpu::sync::{RawMutex, SpinWait, TicketMutex};
/// let m = TicketMutex::new();
/// let t = m.take_ticket();
/// m.wait_turn(t, &SpinWait::default());
/// m.unlock();
/// assert_eq!(m.take_ticket().0, 1);
/// ```
#[derive(Debug)]
pub struct TicketMutex {
    ticket: AtomicU64,
    turn: AtomicU64,
    backoff: Option<BackoffConfig>,
}

impl TicketMutex {
    /// An unlocked ticket mutex without backoff.
    pub fn new() -> Self {
        Self {
            ticket: AtomicU64::new(0),
            turn: AtomicU64::new(0),
            backoff: None,
        }
    }

    /// An unlocked ticket mutex whose waiters back off between polls of `turn`.
    pub fn with_backoff(cfg: BackoffConfig) -> Self {
        Self {
            backoff: Some(cfg),
            ..Self::new()
        }
    }

    /// The backoff configuration, if any.
    pub fn backoff(&self) -> Option<BackoffConfig> {
        self.backoff
    }

    /// Takes the next ticket (the first half of `lock`).
    pub fn take_ticket(&self) -> Ticket {
        Ticket(self.ticket.fetch_add(1, Ordering::Relaxed))
    }

    /// Waits until `ticket` is served (the second half of `lock`); afterwards the caller holds
    /// the lock.
    pub fn wait_turn<W: Wait>(&self, ticket: Ticket, waiter: &W) {
        match self.backoff {
            None => waiter.spin_until("ticket_mutex", || {
                self.turn.load(Ordering::Acquire) == ticket.0
            }),
            Some(cfg) => {
                let mut b = Backoff::new(cfg);
                waiter.spin_until("ticket_backoff_mutex", || {
                    let mine = self.turn.load(Ordering::Acquire) == ticket.0;
                    if !mine {
                        b.pause();
                    }
                    mine
                });
            }
        }
    }
}

impl Default for TicketMutex {
    fn default() -> Self {
        Self::new()
    }
}

impl RawMutex for TicketMutex {
    fn lock<W: Wait>(&self, waiter: &W) {
        let t = self.take_ticket();
        self.wait_turn(t, waiter);
    }

    fn unlock(&self) {
        // Only the holder writes `turn`, so a load and a store suffice (seed 004: "in unlock(),
        // we do not use any atomics").
        let t = self.turn.load(Ordering::Relaxed);
        self.turn.store(t + 1, Ordering::Release);
    }
}
