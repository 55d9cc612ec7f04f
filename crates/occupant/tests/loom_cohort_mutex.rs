//! Loom model of the cohort lock (`occupant::cpu::sync::CohortMutex`, the CPU twin of
//! `occ::sync::CohortMutex`): 2–3 loom threads, in one cohort (local hand-offs, the global lock
//! passed along) and in two cohorts (global hand-offs), each taking the lock once or twice; a
//! non-atomic read-modify-write inside the critical section must never race (loom reports any
//! access not ordered by happens-before) nor lose an update.
//!
//! Run with `scripts/loom.sh` (`RUSTFLAGS="--cfg loom" cargo test --release --test
//! loom_cohort_mutex`).
#![cfg(loom)]

mod loom_common;
use loom_common::{builder, LoomWait};

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;
use occupant::cpu::sync::{CohortMutex, RawMutex};

/// `cohort_of[t]` is thread t's cohort; each thread takes the lock `rounds` times.
fn check_cohort(cohort_of: &'static [usize], cohorts: usize, rounds: usize, bound: usize) {
    builder(bound).check(move || {
        let m = Arc::new(CohortMutex::new(cohorts));
        let data = Arc::new(UnsafeCell::new(0usize));
        let inside = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = cohort_of
            .iter()
            .map(|&c| {
                let (m, data, inside) = (m.clone(), data.clone(), inside.clone());
                thread::spawn(move || {
                    for _ in 0..rounds {
                        m.lock_in(c, &LoomWait);
                        assert_eq!(inside.fetch_add(1, Ordering::Relaxed), 0, "two holders");
                        let v = data.with(|p| unsafe { *p });
                        data.with_mut(|p| unsafe { *p = v + 1 });
                        inside.fetch_sub(1, Ordering::Relaxed);
                        m.unlock();
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(
            data.with(|p| unsafe { *p }),
            cohort_of.len() * rounds,
            "lost update"
        );
    });
}

#[test]
fn cohort_mutex_one_cohort_passes_locally() {
    check_cohort(&[0, 0], 1, 2, 3);
}

#[test]
fn cohort_mutex_two_cohorts_hand_off_globally() {
    check_cohort(&[0, 1], 2, 2, 3);
}

#[test]
fn cohort_mutex_three_threads_two_cohorts() {
    check_cohort(&[0, 0, 1], 2, 1, 3);
}
