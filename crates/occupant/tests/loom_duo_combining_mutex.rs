//! Loom model of the small-grid combining lock (`occupant::cpu::sync::DuoCombiningMutex`, the
//! CPU twin of `occ::sync::DuoCombiningMutex<Op>`): 2–3 loom threads each apply a plain
//! (non-atomic, loom-tracked) read-modify-write of the lock's data once or twice. Loom reports
//! any access to the data, a request's argument or its handed-back result that is not ordered
//! by happens-before; the returned values (the count before each increment) must all differ,
//! and a final request must see every update. The role atomic and every slot access are
//! relaxed, ordered by the fences the GPU code has (release before a request's number, before
//! the results and the unlock; acquire after the role atomic, the slot reads and the result
//! read). The others' request numbers are read BEFORE the role atomic (hints, possibly stale)
//! and served without a second read: the served numbers in the role word make a stale hint
//! look served. Patience 2: a waiter takes a free role only at its second look.
//!
//! Run with `scripts/loom.sh` (`RUSTFLAGS="--cfg loom" cargo test --release --test
//! loom_duo_combining_mutex`).
#![cfg(loom)]

mod loom_common;

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;
use loom_common::{builder, LoomWait};
use occupant::cpu::sync::DuoCombiningMutex;

/// `threads` threads apply an increment `rounds` times each.
fn check(threads: usize, rounds: usize, preemptions: usize, patience: u32) {
    builder(preemptions).check(move || {
        let m = Arc::new(
            DuoCombiningMutex::new(threads, 0usize, |c: &mut usize, add: usize| {
                let before = *c;
                *c = before + add;
                before
            })
            .with_patience(patience),
        );
        let seen: Arc<Vec<AtomicUsize>> =
            Arc::new((0..threads * rounds).map(|_| AtomicUsize::new(0)).collect());
        let handles: Vec<_> = (1..threads)
            .map(|p| {
                let (m, seen) = (m.clone(), seen.clone());
                thread::spawn(move || {
                    for _ in 0..rounds {
                        let before = m.apply(p, 1, &LoomWait).unwrap();
                        seen[before].fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for _ in 0..rounds {
            let before = m.apply(0, 1, &LoomWait).unwrap();
            seen[before].fetch_add(1, Ordering::Relaxed);
        }
        for h in handles {
            h.join().unwrap();
        }
        let n = threads * rounds;
        assert_eq!(m.apply(0, 0, &LoomWait).unwrap(), n, "lost update");
        for (v, s) in seen.iter().enumerate() {
            assert_eq!(
                s.load(Ordering::Relaxed),
                1,
                "count {v} returned twice or never"
            );
        }
    });
}

#[test]
fn two_threads_once() {
    check(2, 1, 3, 1);
}

/// Twice: the second request of a served participant is published first (delegated), and a
/// hint read before the role atomic may show the first (served) request.
#[test]
fn two_threads_twice() {
    check(2, 2, 3, 1);
}

#[test]
fn two_threads_twice_patience_two() {
    check(2, 2, 2, 2);
}

#[test]
fn three_threads_once() {
    check(3, 1, 3, 1);
}

#[test]
fn three_threads_twice() {
    check(3, 2, 2, 1);
}
