//! Loom model of the MCS cohort lock (`occupant::cpu::sync::McsCohortMutex`, the CPU twin of
//! `occ::sync::McsCohortMutex` and `occ::sync::LazyCohortMutex`): 2–3 loom threads as members
//! of one cohort (local hand-offs through the MCS queue, the global lock passed along, parking)
//! and of two cohorts (global hand-offs, a parked lock taken back when another cohort waits),
//! each taking the lock once or twice. A non-atomic read-modify-write inside the critical
//! section must never race (loom reports any access not ordered by happens-before) nor lose an
//! update. The last member of a cohort to finish releases a parked lock, as the device object's
//! destructor does after its cluster barrier.
//!
//! Run with `scripts/loom.sh` (`RUSTFLAGS="--cfg loom" cargo test --release --test
//! loom_mcs_cohort_mutex`).
#![cfg(loom)]

mod loom_common;
use loom_common::{builder, LoomWait};

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;
use occupant::cpu::sync::McsCohortMutex;

/// `who[t]` = (cohort, member) of thread t; each thread takes the lock `rounds` times.
fn check(lazy: bool, who: &'static [(usize, usize)], rounds: usize, bound: usize) {
    let cohorts = who.iter().map(|w| w.0).max().unwrap_or(0) + 1;
    let members = who.iter().map(|w| w.1).max().unwrap_or(0) + 1;
    builder(bound).check(move || {
        let m = Arc::new(if lazy {
            McsCohortMutex::lazy(cohorts, members)
        } else {
            McsCohortMutex::new(cohorts, members)
        });
        let data = Arc::new(UnsafeCell::new(0usize));
        let inside = Arc::new(AtomicUsize::new(0));
        let done = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let handles: Vec<_> = who
            .iter()
            .map(|&(c, r)| {
                let (m, data, inside, done) =
                    (m.clone(), data.clone(), inside.clone(), done.clone());
                let in_cohort = who.iter().filter(|w| w.0 == c).count();
                thread::spawn(move || {
                    for _ in 0..rounds {
                        m.lock(c, r, &LoomWait);
                        assert_eq!(inside.fetch_add(1, Ordering::Relaxed), 0, "two holders");
                        let v = data.with(|p| unsafe { *p });
                        data.with_mut(|p| unsafe { *p = v + 1 });
                        inside.fetch_sub(1, Ordering::Relaxed);
                        m.unlock(c, r, &LoomWait);
                    }
                    if done[c].fetch_add(1, Ordering::AcqRel) + 1 == in_cohort {
                        m.release_parked(c);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(
            data.with(|p| unsafe { *p }),
            who.len() * rounds,
            "lost update"
        );
    });
}

#[test]
fn mcs_cohort_one_cohort_passes_locally() {
    check(false, &[(0, 0), (0, 1)], 2, 3);
}

#[test]
fn mcs_cohort_two_cohorts_hand_off_globally() {
    check(false, &[(0, 0), (1, 0)], 2, 3);
}

#[test]
fn mcs_cohort_three_members_two_cohorts() {
    check(false, &[(0, 0), (0, 1), (1, 0)], 1, 2);
}

#[test]
fn lazy_cohort_one_cohort_parks_and_passes() {
    check(true, &[(0, 0), (0, 1)], 2, 3);
}

#[test]
fn lazy_cohort_two_cohorts_take_a_parked_lock_back() {
    check(true, &[(0, 0), (1, 0)], 2, 3);
}

#[test]
fn lazy_cohort_three_members_two_cohorts() {
    check(true, &[(0, 0), (0, 1), (1, 0)], 1, 2);
}
