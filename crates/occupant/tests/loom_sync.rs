//! Loom models of every algorithm in `occupant::cpu::sync`: loom threads act as the
//! representatives of 2–3 work-groups and loom explores every interleaving (and every
//! reads-from choice the C11 model allows) of the very code the CPU backend runs.
//!
//! Run with `scripts/loom.sh` (`RUSTFLAGS="--cfg loom" cargo test --release --test loom_sync`).
#![cfg(loom)]

mod loom_common;
use loom_common::{builder, LoomWait};

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;
use occupant::cpu::sync::{
    AtomicBarrier, Discovery, MutexKind, RawMutex, RawSemaphore, Semaphore, SemaphoreKind,
    SleepingSemaphore, SpinMutex, SpinSemaphore, TicketMutex, XfBarrier,
};
use occupant::cpu::sync::{BackoffConfig, Mutex};

fn tiny_backoff() -> BackoffConfig {
    BackoffConfig {
        min: 1,
        max: 2,
        unit_spins: 0,
    }
}

// ---------------------------------------------------------------------------------------------
// Mutexes: mutual exclusion (a non-atomic read-modify-write inside the critical section: loom
// reports any access not ordered by happens-before as a data race) and no lost update.

fn check_mutex<M: RawMutex + 'static>(groups: usize, bound: usize, make: fn() -> M) {
    builder(bound).check(move || {
        let m = Arc::new(make());
        let data = Arc::new(UnsafeCell::new(0usize));
        let inside = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..groups)
            .map(|_| {
                let (m, data, inside) = (m.clone(), data.clone(), inside.clone());
                thread::spawn(move || {
                    m.lock(&LoomWait);
                    assert_eq!(inside.fetch_add(1, Ordering::Relaxed), 0, "two holders");
                    let v = data.with(|p| unsafe { *p });
                    data.with_mut(|p| unsafe { *p = v + 1 });
                    inside.fetch_sub(1, Ordering::Relaxed);
                    m.unlock();
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(data.with(|p| unsafe { *p }), groups, "lost update");
    });
}

#[test]
fn spin_mutex_excludes_1() {
    check_mutex(2, 3, SpinMutex::new);
}
#[test]
fn spin_mutex_excludes_2() {
    check_mutex(3, 2, SpinMutex::new);
}

#[test]
fn spin_backoff_mutex_excludes() {
    check_mutex(2, 3, || SpinMutex::with_backoff(tiny_backoff()));
}

#[test]
fn ticket_mutex_excludes_1() {
    check_mutex(2, 3, TicketMutex::new);
}
#[test]
fn ticket_mutex_excludes_2() {
    check_mutex(3, 2, TicketMutex::new);
}

#[test]
fn spin_backoff_mutex_excludes_3_groups() {
    check_mutex(3, 2, || SpinMutex::with_backoff(tiny_backoff()));
}

#[test]
fn ticket_backoff_mutex_excludes_3_groups() {
    check_mutex(3, 2, || TicketMutex::with_backoff(tiny_backoff()));
}

#[test]
fn ticket_backoff_mutex_excludes() {
    check_mutex(2, 3, || TicketMutex::with_backoff(tiny_backoff()));
}

#[test]
fn front_mutex_excludes_for_every_kind_1() {
    check_mutex(2, 2, || Mutex::new(MutexKind::Spin));
}
#[test]
fn front_mutex_excludes_for_every_kind_2() {
    check_mutex(2, 2, || Mutex::new(MutexKind::SpinBackoff));
}
#[test]
fn front_mutex_excludes_for_every_kind_3() {
    check_mutex(2, 2, || Mutex::new(MutexKind::Ticket));
}
#[test]
fn front_mutex_excludes_for_every_kind_4() {
    check_mutex(2, 2, || Mutex::new(MutexKind::TicketBackoff));
}

/// FIFO: the critical sections are entered in ticket order, whatever the interleaving.
fn check_ticket_fifo(groups: usize, bound: usize, make: fn() -> TicketMutex) {
    builder(bound).check(move || {
        let m = Arc::new(make());
        let log = Arc::new(UnsafeCell::new(Vec::new()));
        let handles: Vec<_> = (0..groups)
            .map(|_| {
                let (m, log) = (m.clone(), log.clone());
                thread::spawn(move || {
                    let t = m.take_ticket();
                    m.wait_turn(t, &LoomWait);
                    log.with_mut(|p| unsafe { (*p).push(t.0) });
                    m.unlock();
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let log = log.with(|p| unsafe { (*p).clone() });
        assert_eq!(log, (0..groups as u64).collect::<Vec<_>>(), "not FIFO");
    });
}

#[test]
fn ticket_mutex_is_fifo_1() {
    check_ticket_fifo(3, 3, TicketMutex::new);
}
#[test]
fn ticket_mutex_is_fifo_2() {
    check_ticket_fifo(3, 2, || TicketMutex::with_backoff(tiny_backoff()));
}

// ---------------------------------------------------------------------------------------------
// Semaphores: never more holders than the count; with count 1 also mutual exclusion with
// happens-before (non-atomic data).

fn check_semaphore<S: RawSemaphore + 'static>(
    groups: usize,
    count: usize,
    bound: usize,
    make: fn(u32) -> S,
) {
    builder(bound).check(move || {
        let s = Arc::new(make(count as u32));
        let inside = Arc::new(AtomicUsize::new(0));
        let data = Arc::new(UnsafeCell::new(0usize));
        let handles: Vec<_> = (0..groups)
            .map(|_| {
                let (s, inside, data) = (s.clone(), inside.clone(), data.clone());
                thread::spawn(move || {
                    s.wait(&LoomWait);
                    let before = inside.fetch_add(1, Ordering::Relaxed);
                    assert!(
                        before < count,
                        "semaphore admitted {} > {count}",
                        before + 1
                    );
                    if count == 1 {
                        let v = data.with(|p| unsafe { *p });
                        data.with_mut(|p| unsafe { *p = v + 1 });
                    }
                    inside.fetch_sub(1, Ordering::Relaxed);
                    s.post(&LoomWait);
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        if count == 1 {
            assert_eq!(data.with(|p| unsafe { *p }), groups, "lost update");
        }
    });
}

#[test]
fn spin_semaphore_bounds_holders_1() {
    check_semaphore(2, 1, 3, SpinSemaphore::new);
}
#[test]
fn spin_semaphore_bounds_holders_2() {
    check_semaphore(3, 2, 2, SpinSemaphore::new);
}

#[test]
fn spin_backoff_semaphore_bounds_holders_1() {
    check_semaphore(2, 1, 3, |n| SpinSemaphore::with_backoff(n, tiny_backoff()));
}
#[test]
fn spin_backoff_semaphore_bounds_holders_2() {
    check_semaphore(3, 2, 1, |n| SpinSemaphore::with_backoff(n, tiny_backoff()));
}

#[test]
fn sleeping_semaphore_bounds_holders_1() {
    check_semaphore(2, 1, 3, SleepingSemaphore::new);
}
#[test]
fn sleeping_semaphore_bounds_holders_2() {
    check_semaphore(3, 1, 3, SleepingSemaphore::new);
}
#[test]
fn sleeping_semaphore_bounds_holders_3() {
    check_semaphore(3, 2, 3, SleepingSemaphore::new);
}

#[test]
fn front_semaphore_bounds_holders_for_every_kind_1() {
    check_semaphore(2, 1, 2, |n| Semaphore::new(SemaphoreKind::Spin, n));
}
#[test]
fn front_semaphore_bounds_holders_for_every_kind_2() {
    check_semaphore(2, 1, 2, |n| Semaphore::new(SemaphoreKind::SpinBackoff, n));
}
#[test]
fn front_semaphore_bounds_holders_for_every_kind_3() {
    check_semaphore(2, 1, 2, |n| Semaphore::new(SemaphoreKind::Sleeping, n));
}

// ---------------------------------------------------------------------------------------------
// Barriers: every (non-atomic) write before an episode is visible to every read after it, in
// every group; and the reads of one episode happen before the writes after the next.

trait ModelBarrier: Send + Sync + 'static {
    fn new(groups: usize) -> Self;
    fn wait(&self, g: usize, n: usize);
}

impl ModelBarrier for XfBarrier {
    fn new(groups: usize) -> Self {
        XfBarrier::new(groups)
    }
    fn wait(&self, g: usize, n: usize) {
        XfBarrier::wait(self, g, n, &LoomWait)
    }
}

impl ModelBarrier for AtomicBarrier {
    fn new(groups: usize) -> Self {
        AtomicBarrier::new(groups)
    }
    fn wait(&self, g: usize, n: usize) {
        AtomicBarrier::wait(self, g, n, &LoomWait)
    }
}

fn check_barrier<B: ModelBarrier>(groups: usize, episodes: usize, bound: usize) {
    builder(bound).check(move || {
        let b = Arc::new(B::new(groups));
        let data: Arc<Vec<UnsafeCell<usize>>> =
            Arc::new((0..groups).map(|_| UnsafeCell::new(0)).collect());
        let handles: Vec<_> = (0..groups)
            .map(|g| {
                let (b, data) = (b.clone(), data.clone());
                thread::spawn(move || {
                    for e in 1..=episodes {
                        data[g].with_mut(|p| unsafe { *p = e });
                        b.wait(g, groups);
                        for (other, cell) in data.iter().enumerate() {
                            let v = cell.with(|p| unsafe { *p });
                            assert_eq!(v, e, "group {g} read stale data of group {other}");
                        }
                        if e < episodes {
                            // Separate this episode's reads from the next episode's writes.
                            b.wait(g, groups);
                        }
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    });
}

#[test]
fn xf_barrier_publishes_writes_1() {
    check_barrier::<XfBarrier>(2, 2, 3);
}
#[test]
fn xf_barrier_publishes_writes_2() {
    check_barrier::<XfBarrier>(3, 1, 3);
}

#[test]
fn xf_barrier_publishes_writes_3_groups_2_episodes() {
    check_barrier::<XfBarrier>(3, 2, 2);
}

#[test]
fn atomic_barrier_publishes_writes_3_groups_2_episodes() {
    check_barrier::<AtomicBarrier>(3, 2, 2);
}

#[test]
fn atomic_barrier_publishes_writes_1() {
    check_barrier::<AtomicBarrier>(2, 2, 3);
}
#[test]
fn atomic_barrier_publishes_writes_2() {
    check_barrier::<AtomicBarrier>(3, 1, 3);
}

// ---------------------------------------------------------------------------------------------
// Discovery: at least one participant; all participants see the same count; their ids are
// exactly 0..count-1; the host-visible id table agrees.

fn check_discovery(groups: usize, kind: MutexKind, delay: u32, bound: usize) {
    check_discovery_of(groups, bound, move || Discovery::new(groups, kind, delay));
}

/// The quiescent protocol with a quiet period of zero: the closer closes as soon as one poll
/// sees no new arrival, so loom explores closing after every possible set of arrivals;
/// `hint` (0 = none) lets it close as soon as that many groups arrived.
fn check_quiescent_discovery(groups: usize, hint: usize, bound: usize) {
    check_discovery_of(groups, bound, move || {
        Discovery::with_default_kind(groups)
            .with_occupancy_hint(hint)
            .with_quiet(std::time::Duration::ZERO)
    });
}

fn check_discovery_of(
    groups: usize,
    bound: usize,
    make: impl Fn() -> Discovery + Sync + Send + 'static,
) {
    builder(bound).check(move || {
        let d = Arc::new(make());
        let handles: Vec<_> = (0..groups)
            .map(|g| {
                let d = d.clone();
                thread::spawn(move || d.discover(g, &LoomWait))
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let parts: Vec<_> = results.iter().flatten().collect();
        assert!(!parts.is_empty(), "no participant");
        let count = parts[0].p_num_groups;
        assert!(
            parts.iter().all(|p| p.p_num_groups == count),
            "counts differ"
        );
        assert_eq!(
            parts.len(),
            count,
            "count is not the number of participants"
        );
        let mut ids: Vec<_> = parts.iter().map(|p| p.p_group_id).collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..count).collect::<Vec<_>>(), "ids not 0..count");
        assert_eq!(d.count(), count);
        let table = d.ids();
        for (g, r) in results.iter().enumerate() {
            let expect = r.map_or(occupant::cpu::sync::NON_PARTICIPATING, |p| p.p_group_id);
            assert_eq!(table[g], expect, "id table disagrees for group {g}");
        }
    });
}

#[test]
fn discovery_with_ticket_lock_1() {
    check_discovery(2, MutexKind::Ticket, 0, 3);
}
#[test]
fn discovery_with_ticket_lock_2() {
    check_discovery(3, MutexKind::Ticket, 0, 2);
}
#[test]
fn discovery_with_ticket_lock_3() {
    check_discovery(2, MutexKind::Ticket, 1, 2);
}

#[test]
fn discovery_3_groups_with_delay() {
    check_discovery(3, MutexKind::Ticket, 1, 2);
}

#[test]
fn discovery_with_spin_lock_1() {
    check_discovery(2, MutexKind::Spin, 0, 3);
}
#[test]
fn discovery_with_spin_lock_2() {
    check_discovery(3, MutexKind::Spin, 0, 2);
}
#[test]
fn discovery_with_spin_lock_3() {
    check_discovery(2, MutexKind::Spin, 1, 2);
}

#[test]
fn quiescent_discovery_without_hint_1() {
    check_quiescent_discovery(2, 0, 3);
}
#[test]
fn quiescent_discovery_without_hint_2() {
    check_quiescent_discovery(3, 0, 2);
}
#[test]
fn quiescent_discovery_with_exact_hint_1() {
    check_quiescent_discovery(2, 2, 3);
}
#[test]
fn quiescent_discovery_with_exact_hint_2() {
    check_quiescent_discovery(3, 3, 2);
}
#[test]
fn quiescent_discovery_with_small_hint() {
    check_quiescent_discovery(3, 2, 2);
}
#[test]
fn quiescent_discovery_with_large_hint() {
    check_quiescent_discovery(2, 5, 3);
}
