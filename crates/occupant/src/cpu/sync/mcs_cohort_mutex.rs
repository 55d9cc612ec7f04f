//! MCS cohort lock: the CPU twin of the CUDA backend's `occ::sync::McsCohortMutex` and
//! `occ::sync::LazyCohortMutex` (`src/cuda/device/mcs_cohort_mutex.cuh`), whose cohorts are
//! thread-block clusters and whose members are the blocks of a cluster there; here both are
//! indices the caller gives.
//!
//! The same states and orderings as the device code, word for word (each device
//! `atom.<sem>.cluster` is an atomic with that ordering here), so that the loom model
//! (`tests/loom_mcs_cohort_mutex.rs`) checks the protocol that runs on the GPU.

use super::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use crate::cpu::Wait;
use crossbeam_utils::CachePadded;

/// Critical sections a cohort runs with the global lock before it looks whether another
/// cohort waits (`OCC_COHORT_PASSES` on the GPU).
pub const MCS_COHORT_PASSES: u32 = 32;

/// `tail`: the cohort does not hold the global lock and nobody queues.
const FREE: u32 = 0;
/// `tail`: the cohort holds the global lock and nobody queues (lazy only).
const PARKED: u32 = 1;

/// A member's queue node (in its own shared memory on the GPU).
#[derive(Debug)]
struct Node {
    /// 0: wait; else the hand-off: high word `1 | has_global << 1 | passes << 2`, low word
    /// the global ticket held.
    go: AtomicU64,
    /// 0: no successor; else the successor's member index + 1.
    next: AtomicU32,
}

/// A cohort's queue tail and parked session (rank 0's shared memory on the GPU).
#[derive(Debug)]
struct Cohort {
    /// FREE, PARKED, or the last queued member + 2.
    tail: AtomicU32,
    /// The parked session's global ticket.
    pgt: AtomicU32,
    /// The parked session's pass count.
    ppass: AtomicU32,
}

/// What the holder keeps between `lock` and `unlock` (the device object's members, in the
/// registers of the block's representative on the GPU); only the member's thread touches it.
#[derive(Debug)]
struct Held {
    gt: AtomicU32,
    n: AtomicU32,
    want: AtomicU32,
    have_want: AtomicBool,
    /// Lazy with one member per cohort: this member holds the global lock parked.
    parked: AtomicBool,
}

/// A cohort lock with an MCS queue per cohort (each member spins on its own node; a hand-off
/// inside the cohort is one store into the successor's node) over a global ticket lock.
///
/// - [`McsCohortMutex::new`]: the cohort releases the global lock when its queue empties.
/// - [`McsCohortMutex::lazy`]: the cohort keeps the global lock *parked* when its queue
///   empties, unless another cohort has taken a global ticket, so an uncontended re-acquire
///   touches nothing shared with other cohorts. A parked lock goes back at the cohort's next
///   unlock that sees a waiter, or with [`McsCohortMutex::release_parked`] once no member uses
///   the lock any more (the device object's destructor). A member of a cohort that holds the
///   lock parked must not wait for a member of another cohort that waits for the lock.
///
/// With one member per cohort (the GPU's launch without clusters) the lazy lock has no queue:
/// a parked re-acquire and a park touch nothing shared but one relaxed load of the global
/// ticket counter per park, read at the next unlock (a waiter is seen within two critical
/// sections).
///
/// Fairness: FIFO inside a cohort and among cohorts (global ticket order); once another cohort
/// has taken a global ticket, the holding cohort runs at most [`MCS_COHORT_PASSES`] + 2 more
/// critical sections.
///
/// Each `(cohort, member)` pair is one queue node: at most one thread uses it at a time (the
/// block's representative on the GPU). Indices are taken modulo the sizes given to the
/// constructor. Checked by `tests/loom_mcs_cohort_mutex.rs`.
///
/// ```
/// use occupant::cpu::sync::{McsCohortMutex, SpinWait};
/// let w = SpinWait::default();
/// let m = McsCohortMutex::lazy(2, 4);
/// m.lock(1, 3, &w);
/// m.unlock(1, 3, &w); // parked: cohort 1 still holds the global lock
/// m.lock(1, 0, &w); // a local re-acquire
/// m.unlock(1, 0, &w);
/// m.release_parked(1); // no member of cohort 1 uses it any more
/// m.lock(0, 0, &w);
/// m.unlock(0, 0, &w);
/// ```
#[derive(Debug)]
pub struct McsCohortMutex {
    lazy: bool,
    members: usize,
    gticket: CachePadded<AtomicU32>,
    gturn: CachePadded<AtomicU32>,
    cohorts: Vec<CachePadded<Cohort>>,
    nodes: Vec<CachePadded<Node>>,
    held: Vec<CachePadded<Held>>,
}

impl McsCohortMutex {
    /// An unlocked MCS cohort mutex (releases the global lock when a cohort's queue empties)
    /// with `cohorts` cohorts of `members` members (each at least 1).
    pub fn new(cohorts: usize, members: usize) -> Self {
        Self::build(cohorts, members, false)
    }

    /// An unlocked lazy MCS cohort mutex (parks the global lock in an idle cohort).
    pub fn lazy(cohorts: usize, members: usize) -> Self {
        Self::build(cohorts, members, true)
    }

    fn build(cohorts: usize, members: usize, lazy: bool) -> Self {
        let cohorts = cohorts.max(1);
        let members = members.max(1);
        Self {
            lazy,
            members,
            gticket: CachePadded::new(AtomicU32::new(0)),
            gturn: CachePadded::new(AtomicU32::new(0)),
            cohorts: (0..cohorts)
                .map(|_| {
                    CachePadded::new(Cohort {
                        tail: AtomicU32::new(FREE),
                        pgt: AtomicU32::new(0),
                        ppass: AtomicU32::new(0),
                    })
                })
                .collect(),
            nodes: (0..cohorts * members)
                .map(|_| {
                    CachePadded::new(Node {
                        go: AtomicU64::new(0),
                        next: AtomicU32::new(0),
                    })
                })
                .collect(),
            held: (0..cohorts * members)
                .map(|_| {
                    CachePadded::new(Held {
                        gt: AtomicU32::new(0),
                        n: AtomicU32::new(0),
                        want: AtomicU32::new(0),
                        have_want: AtomicBool::new(false),
                        parked: AtomicBool::new(false),
                    })
                })
                .collect(),
        }
    }

    /// Whether the lock parks the global lock in an idle cohort.
    pub fn is_lazy(&self) -> bool {
        self.lazy
    }

    /// Number of cohorts.
    pub fn cohorts(&self) -> usize {
        self.cohorts.len()
    }

    /// Members per cohort.
    pub fn members(&self) -> usize {
        self.members
    }

    fn name(&self) -> &'static str {
        if self.lazy {
            "lazy_cohort_mutex"
        } else {
            "mcs_cohort_mutex"
        }
    }

    fn index(&self, cohort: usize, member: usize) -> (usize, usize) {
        let c = cohort % self.cohorts.len();
        (c, member % self.members)
    }

    /// Acquires the lock as member `member` of cohort `cohort`, waiting through `waiter`.
    pub fn lock<W: Wait>(&self, cohort: usize, member: usize, waiter: &W) {
        let (c, r) = self.index(cohort, member);
        let co = &self.cohorts[c];
        let me = &self.nodes[c * self.members + r];
        let h = &self.held[c * self.members + r];
        if self.lazy && self.members == 1 {
            // The cohort is one member: no queue; a parked re-acquire touches nothing shared
            // (the "wanted" load issued at the park is read at the next unlock).
            if !h.parked.swap(false, Ordering::Relaxed) {
                self.acquire_global(h, waiter);
                h.want
                    .store(self.gticket.load(Ordering::Relaxed), Ordering::Relaxed);
                h.have_want.store(true, Ordering::Relaxed);
            }
            return;
        }
        h.have_want.store(false, Ordering::Relaxed);
        let prev = co.tail.swap(r as u32 + 2, Ordering::AcqRel);
        if self.lazy && prev == PARKED {
            h.gt.store(co.pgt.load(Ordering::Relaxed), Ordering::Relaxed);
            h.n.store(co.ppass.load(Ordering::Relaxed), Ordering::Relaxed);
            // Issued before the critical section on the GPU, read at unlock.
            h.want
                .store(self.gticket.load(Ordering::Relaxed), Ordering::Relaxed);
            h.have_want.store(true, Ordering::Relaxed);
            return;
        }
        if prev == FREE {
            return self.acquire_global(h, waiter);
        }
        let pred = &self.nodes[c * self.members + (prev - 2) as usize];
        pred.next.store(r as u32 + 1, Ordering::Release);
        let mut g = 0u64;
        waiter.spin_until(self.name(), || {
            g = me.go.load(Ordering::Acquire);
            g != 0
        });
        me.go.store(0, Ordering::Relaxed);
        let hi = (g >> 32) as u32;
        if hi & 2 != 0 {
            h.gt.store(g as u32, Ordering::Relaxed);
            h.n.store(hi >> 2, Ordering::Relaxed);
        } else {
            self.acquire_global(h, waiter);
        }
    }

    fn acquire_global<W: Wait>(&self, h: &Held, waiter: &W) {
        let t = self.gticket.fetch_add(1, Ordering::Relaxed);
        waiter.spin_until(self.name(), || self.gturn.load(Ordering::Acquire) == t);
        h.gt.store(t, Ordering::Relaxed);
        h.n.store(0, Ordering::Relaxed);
    }

    /// Whether no other cohort has taken a global ticket since `gt` (the one held).
    fn unwanted(&self, h: &Held, gt: u32) -> bool {
        let t = if self.lazy && h.have_want.load(Ordering::Relaxed) {
            h.want.load(Ordering::Relaxed)
        } else {
            self.gticket.load(Ordering::Relaxed)
        };
        t == gt.wrapping_add(1)
    }

    /// Releases the lock held by member `member` of cohort `cohort` (it may wait, through
    /// `waiter`, for a member that is joining the queue to link itself).
    pub fn unlock<W: Wait>(&self, cohort: usize, member: usize, waiter: &W) {
        let (c, r) = self.index(cohort, member);
        let co = &self.cohorts[c];
        let me = &self.nodes[c * self.members + r];
        let h = &self.held[c * self.members + r];
        let gt = h.gt.load(Ordering::Relaxed);
        if self.lazy && self.members == 1 {
            // Park unless another cohort took a global ticket (seen by the load issued at the
            // last park or right after the global acquire); parking issues the next load.
            if h.want.load(Ordering::Relaxed) == gt.wrapping_add(1) {
                h.parked.store(true, Ordering::Relaxed);
                h.want
                    .store(self.gticket.load(Ordering::Relaxed), Ordering::Relaxed);
            } else {
                self.gturn.store(gt.wrapping_add(1), Ordering::Release);
            }
            return;
        }
        let mut n = h.n.load(Ordering::Relaxed) + 1;
        let mut nxt = me.next.load(Ordering::Acquire);
        // None: by the pass bound; Some(false): release the global lock; Some(true): keep it.
        let mut decided: Option<bool> = None;
        if nxt == 0 {
            let tail_me = r as u32 + 2;
            if self.lazy {
                if self.unwanted(h, gt) {
                    co.pgt.store(gt, Ordering::Relaxed);
                    co.ppass.store(0, Ordering::Relaxed);
                    if co
                        .tail
                        .compare_exchange(tail_me, PARKED, Ordering::Release, Ordering::Relaxed)
                        .is_ok()
                    {
                        return;
                    }
                    decided = Some(true);
                    n = 0;
                } else {
                    decided = Some(false);
                }
            }
            if decided != Some(true)
                && co
                    .tail
                    .compare_exchange(tail_me, FREE, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
            {
                self.gturn.store(gt.wrapping_add(1), Ordering::Release);
                return;
            }
            // A member joined the queue behind this one: wait until it has linked itself.
            waiter.spin_until(self.name(), || {
                nxt = me.next.load(Ordering::Acquire);
                nxt != 0
            });
        }
        me.next.store(0, Ordering::Relaxed);
        let with_global = match decided {
            Some(d) => d,
            None if n < MCS_COHORT_PASSES => true,
            None => {
                let keep = self.unwanted(h, gt);
                if keep {
                    n = 0;
                }
                keep
            }
        };
        let msg = if with_global {
            (u64::from(3 | (n << 2)) << 32) | u64::from(gt)
        } else {
            self.gturn.store(gt.wrapping_add(1), Ordering::Release);
            1u64 << 32
        };
        let succ = &self.nodes[c * self.members + (nxt - 1) as usize];
        succ.go.store(msg, Ordering::Release);
    }

    /// Releases the global lock if cohort `cohort` holds it parked (lazy only; a no-op
    /// otherwise). Call it once no member of the cohort uses the lock any more, after
    /// synchronising with all of them (the device object's destructor, after its cluster
    /// barrier).
    pub fn release_parked(&self, cohort: usize) {
        let c = cohort % self.cohorts.len();
        if self.lazy && self.members == 1 {
            let h = &self.held[c];
            if h.parked.swap(false, Ordering::Relaxed) {
                let gt = h.gt.load(Ordering::Relaxed);
                self.gturn.store(gt.wrapping_add(1), Ordering::Release);
            }
            return;
        }
        let co = &self.cohorts[c];
        if co
            .tail
            .compare_exchange(PARKED, FREE, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            let gt = co.pgt.load(Ordering::Relaxed);
            self.gturn.store(gt.wrapping_add(1), Ordering::Release);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::cpu::sync::SpinWait;
    use std::sync::atomic::AtomicUsize as StdUsize;
    use std::sync::Arc;

    /// `cohorts` x `members` threads, `rounds` critical sections each, a non-atomic
    /// read-modify-write inside: no lost update, never two holders; the last member of each
    /// cohort to finish releases a parked lock (the GPU destructor's cluster barrier).
    fn hammer(lazy: bool, cohorts: usize, members: usize, rounds: usize) {
        let m = Arc::new(if lazy {
            McsCohortMutex::lazy(cohorts, members)
        } else {
            McsCohortMutex::new(cohorts, members)
        });
        let data = Arc::new(StdUsize::new(0));
        let inside = Arc::new(StdUsize::new(0));
        let done: Arc<Vec<StdUsize>> = Arc::new((0..cohorts).map(|_| StdUsize::new(0)).collect());
        std::thread::scope(|s| {
            for c in 0..cohorts {
                for r in 0..members {
                    let (m, data, inside, done) =
                        (m.clone(), data.clone(), inside.clone(), done.clone());
                    s.spawn(move || {
                        let w = SpinWait::default();
                        for _ in 0..rounds {
                            m.lock(c, r, &w);
                            assert_eq!(inside.fetch_add(1, Ordering::Relaxed), 0);
                            let v = data.load(Ordering::Relaxed);
                            data.store(v + 1, Ordering::Relaxed);
                            inside.fetch_sub(1, Ordering::Relaxed);
                            m.unlock(c, r, &w);
                        }
                        if done[c].fetch_add(1, Ordering::AcqRel) + 1 == members {
                            m.release_parked(c);
                        }
                    });
                }
            }
        });
        assert_eq!(data.load(Ordering::Relaxed), cohorts * members * rounds);
    }

    #[test]
    fn mcs_cohort_counts_every_acquisition() {
        hammer(false, 2, 2, 2000);
        hammer(false, 1, 3, 2000);
        hammer(false, 3, 1, 2000);
    }

    #[test]
    fn lazy_cohort_counts_every_acquisition() {
        hammer(true, 2, 2, 2000);
        hammer(true, 1, 3, 2000);
        hammer(true, 3, 1, 2000);
    }

    #[test]
    fn lazy_parks_and_releases() {
        lazy_parks_and_releases_with(1);
        lazy_parks_and_releases_with(2);
    }

    fn lazy_parks_and_releases_with(members: usize) {
        let w = SpinWait::default();
        let m = McsCohortMutex::lazy(2, members);
        m.lock(0, 0, &w);
        m.unlock(0, 0, &w);
        // Parked: cohort 0 re-acquires without a global ticket.
        assert_eq!(m.gticket.load(Ordering::Relaxed), 1);
        m.lock(0, 0, &w);
        m.unlock(0, 0, &w);
        assert_eq!(m.gticket.load(Ordering::Relaxed), 1);
        m.release_parked(0);
        m.lock(1, 0, &w);
        m.unlock(1, 0, &w);
        m.release_parked(1);
        assert_eq!(m.gturn.load(Ordering::Relaxed), 2);
        assert!(m.is_lazy() && m.cohorts() == 2 && m.members() == members);
    }
}
