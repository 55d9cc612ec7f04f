//! Loom model of the lazy small-grid combining lock (`occupant::cpu::sync::LazyCombiningMutex`,
//! the CPU twin of `occ::sync::LazyCombiningMutex<Op>`): 2–3 loom threads each apply a plain
//! (non-atomic, loom-tracked) read-modify-write of the lock's data once or twice. Loom reports
//! any access to the data, a request's argument or its handed-back result that is not ordered
//! by happens-before; the returned values (the count before each increment) must all differ,
//! and a final request must see every update. The role atomic and every slot access are
//! relaxed, ordered by the fences the GPU code has (release before a request's number, before
//! the results and the unlock; acquire after the role atomic, the slot reads and the result
//! read). The others' request numbers are read BEFORE the role atomic (hints, possibly stale)
//! and served without a second read: the served numbers in the role word make a stale hint
//! look served. The holder keeps the role between its calls and gives it up in release() (each
//! thread after its requests, as the GPU object's destructor) or after `hold` calls in a row
//! (`_hold_one`: after every call). Patience 2: a waiter takes a free role at its second look.
//! Dropping the release fence before the results makes five of the six models fail (loom
//! reports the result read as a data race).
//!
//! Run with `scripts/loom.sh` (`RUSTFLAGS="--cfg loom" cargo test --release --test
//! loom_lazy_combining_mutex`).
#![cfg(loom)]

mod loom_common;

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;
use loom_common::{builder, LoomWait};
use occupant::cpu::sync::LazyCombiningMutex;

/// `threads` threads apply an increment `rounds` times each.
fn check(threads: usize, rounds: usize, preemptions: usize, patience: u32, hold: u32) {
    builder(preemptions).check(move || {
        let m = Arc::new(
            LazyCombiningMutex::new(threads, 0usize, |c: &mut usize, add: usize| {
                let before = *c;
                *c = before + add;
                before
            })
            .with_patience(patience)
            .with_hold(hold),
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
                    m.release(p);
                })
            })
            .collect();
        for _ in 0..rounds {
            let before = m.apply(0, 1, &LoomWait).unwrap();
            seen[before].fetch_add(1, Ordering::Relaxed);
        }
        m.release(0);
        for h in handles {
            h.join().unwrap();
        }
        let n = threads * rounds;
        assert_eq!(m.apply(0, 0, &LoomWait).unwrap(), n, "lost update");
        m.release(0);
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
    check(2, 1, 3, 1, 0);
}

/// Twice: the second request of a served participant is published first (delegated), and a
/// hint read before the role atomic may show the first (served) request.
#[test]
fn two_threads_twice() {
    check(2, 2, 3, 1, 0);
}

#[test]
fn two_threads_twice_patience_two() {
    check(2, 2, 2, 2, 0);
}

#[test]
fn three_threads_once() {
    check(3, 1, 3, 1, 0);
}

#[test]
fn three_threads_twice() {
    check(3, 2, 2, 1, 0);
}

/// The holder gives the role up after every call (hold 1): the role moves at every request.
#[test]
fn two_threads_twice_hold_one() {
    check(2, 2, 3, 1, 1);
}
