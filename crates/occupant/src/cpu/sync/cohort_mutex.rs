//! Cohort lock: the CPU twin of the CUDA backend's `occ::sync::CohortMutex`
//! (`src/cuda/device/cohort_mutex.cuh`), whose cohorts are thread-block clusters there and
//! groups of callers here.

use super::atomic::{AtomicBool, AtomicUsize, Ordering};
use super::mutex::RawMutex;
use super::ticket_mutex::TicketMutex;
use crate::cpu::Wait;
use crossbeam_utils::CachePadded;

/// Consecutive local hand-offs after which a cohort releases the global lock (the fairness
/// bound of `OCC_COHORT_PASSES` on the GPU).
pub const COHORT_PASSES: usize = 32;

/// Cohorts of the front type's cohort mutex (`MutexKind::Cohort`): callers are spread over them
/// by OS thread, so the groups of one compute unit share a cohort.
pub const COHORTS: usize = 8;

#[derive(Debug)]
struct Local {
    ticket: AtomicUsize,
    turn: AtomicUsize,
    /// The holder got the global lock passed along with the local turn.
    gheld: AtomicBool,
    /// Local hand-offs in a row.
    passes: AtomicUsize,
}

/// A cohort lock (Dice, Marathe, Shavit): a ticket lock per cohort over a global ticket lock.
/// A holder that sees another member of its cohort waiting passes it the global lock together
/// with the local turn (at most [`COHORT_PASSES`] times in a row, so cohorts are served fairly
/// by the global ticket order); otherwise it releases the global lock, then the local turn.
///
/// Ordering: local and global turns are stored with `Release` and polled with `Acquire`; the
/// hand-off state (`gheld`, `passes`) is written before the releasing store of the local turn
/// and read after acquiring it; the ticket counters only need to be atomic (`Relaxed`).
/// Checked by `tests/loom_cohort_mutex.rs`.
///
/// ```
/// use occupant::cpu::sync::{CohortMutex, RawMutex, SpinWait};
/// let m = CohortMutex::new(2);
/// m.lock_in(1, &SpinWait::default());
/// m.unlock();
/// m.lock(&SpinWait::default()); // the cohort of the calling thread
/// m.unlock();
/// ```
#[derive(Debug)]
pub struct CohortMutex {
    global: TicketMutex,
    locals: Vec<CachePadded<Local>>,
    /// The cohort of the current holder (written and read only by the holder).
    holder: AtomicUsize,
}

impl CohortMutex {
    /// An unlocked cohort mutex with `cohorts` cohorts (at least 1).
    pub fn new(cohorts: usize) -> Self {
        Self {
            global: TicketMutex::new(),
            locals: (0..cohorts.max(1))
                .map(|_| {
                    CachePadded::new(Local {
                        ticket: AtomicUsize::new(0),
                        turn: AtomicUsize::new(0),
                        gheld: AtomicBool::new(false),
                        passes: AtomicUsize::new(0),
                    })
                })
                .collect(),
            holder: AtomicUsize::new(0),
        }
    }

    /// Number of cohorts.
    pub fn cohorts(&self) -> usize {
        self.locals.len()
    }

    /// Acquires the lock as a member of cohort `cohort` (taken modulo [`cohorts`](Self::cohorts)).
    pub fn lock_in<W: Wait>(&self, cohort: usize, waiter: &W) {
        let c = cohort % self.locals.len();
        let l = &self.locals[c];
        let my = l.ticket.fetch_add(1, Ordering::Relaxed);
        waiter.spin_until("cohort_mutex", || l.turn.load(Ordering::Acquire) == my);
        if !l.gheld.load(Ordering::Relaxed) {
            self.global.lock(waiter);
        }
        self.holder.store(c, Ordering::Relaxed);
    }
}

/// The calling OS thread's cohort index (threads numbered in order of first use).
fn thread_cohort() -> usize {
    use std::sync::atomic::{AtomicUsize as StdAtomic, Ordering as StdOrdering};
    static NEXT: StdAtomic = StdAtomic::new(0);
    thread_local! {
        static ID: usize = NEXT.fetch_add(1, StdOrdering::Relaxed);
    }
    ID.with(|id| *id)
}

impl RawMutex for CohortMutex {
    fn lock<W: Wait>(&self, waiter: &W) {
        self.lock_in(thread_cohort(), waiter);
    }

    fn unlock(&self) {
        let c = self.holder.load(Ordering::Relaxed);
        let l = &self.locals[c];
        // Only the holder writes the local turn, so it is the holder's ticket.
        let my = l.turn.load(Ordering::Relaxed);
        let waiting = l.ticket.load(Ordering::Relaxed) != my.wrapping_add(1);
        let passes = l.passes.load(Ordering::Relaxed);
        if waiting && passes < COHORT_PASSES {
            l.passes.store(passes + 1, Ordering::Relaxed);
            l.gheld.store(true, Ordering::Relaxed);
        } else {
            l.passes.store(0, Ordering::Relaxed);
            l.gheld.store(false, Ordering::Relaxed);
            self.global.unlock();
        }
        l.turn.store(my.wrapping_add(1), Ordering::Release);
    }
}
