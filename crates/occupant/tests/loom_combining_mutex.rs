//! Loom model of the combining lock (`occupant::cpu::sync::CombiningMutex`, the CPU twin of
//! `occ::sync::CombiningMutex<Op>`): 2–3 loom threads each apply a plain (non-atomic,
//! loom-tracked) read-modify-write of the lock's data once or twice. Loom reports any access to
//! the data, a request's argument or its handed-back result that is not ordered by
//! happens-before; the returned values (the count before each increment) must all differ, and
//! a final request must see every update. With a batch of one and turns of two requests the
//! batch and turn boundaries are explored too. The tail exchange is relaxed (flags carry the
//! tag of the node's use, so a flag of an earlier use is told apart): the models explore every
//! order of the exchanges. Weakening the hand-back (dropping the release fence before the
//! DONE/COMBINE flag stores) or the publication (a relaxed link store) makes all six models
//! fail.
//!
//! Run with `scripts/loom.sh` (`RUSTFLAGS="--cfg loom" cargo test --release --test
//! loom_combining_mutex`).
#![cfg(loom)]

mod loom_common;

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;
use loom_common::{builder, LoomWait};
use occupant::cpu::sync::{CombiningMutex, COMBINING_BATCH, COMBINING_BOUND};

/// `threads` threads apply an increment `rounds` times each; the combiner serves at most
/// `turn` requests a turn, `batch` per release fence.
fn check(threads: usize, rounds: usize, preemptions: usize, turn: usize, batch: usize) {
    builder(preemptions).check(move || {
        let m = Arc::new(
            CombiningMutex::new(threads, 0usize, |c: &mut usize, add: usize| {
                let before = *c;
                *c = before + add;
                before
            })
            .with_bound(turn)
            .with_batch(batch),
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
    check(2, 1, 3, COMBINING_BOUND, COMBINING_BATCH);
}

#[test]
fn two_threads_twice() {
    check(2, 2, 3, COMBINING_BOUND, COMBINING_BATCH);
}

#[test]
fn three_threads_once() {
    check(3, 1, 3, COMBINING_BOUND, COMBINING_BATCH);
}

/// A batch of one: a release fence per request, several batches per turn.
#[test]
fn three_threads_once_batch_of_one() {
    check(3, 1, 3, COMBINING_BOUND, 1);
}

/// A turn bound of two: the combiner passes the role to a published, unserved request.
#[test]
fn three_threads_once_turns_of_two() {
    check(3, 1, 3, 2, 1);
}

#[test]
fn three_threads_twice() {
    check(3, 2, 2, COMBINING_BOUND, COMBINING_BATCH);
}
