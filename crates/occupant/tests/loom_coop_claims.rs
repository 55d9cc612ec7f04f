//! Loom model of the dynamic work distribution of the cooperative phase loop
//! (occupant-apps `src/coop_cuda/loop.cuh`, `for_each_item` with a claims pointer): in the
//! interval that starts with barrier epoch e, groups claim chunks from counter `claims[e % 2]`
//! with relaxed read-modify-writes, and group 0 zeroes the other counter with a relaxed store;
//! the only ordering is the resizing barrier's. Loom threads are the groups (over the CPU
//! backend's `CoopCore`, the barrier the twin of the device one) and a scheduler that asks for
//! one group meanwhile, so the barrier between the two intervals may kill group 2.
//!
//! Checked: every chunk of both intervals is done exactly once (none lost, none done twice),
//! whether or not the kill happened; the survivors are `0..M`.
//!
//! Run with `scripts/loom.sh`.
#![cfg(loom)]

mod loom_common;
use loom_common::{builder, LoomWait};

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;
use occupant::cpu::coop::CoopCore;
use occupant::model::coop::{BarrierKind, ResizeVariant};

/// Loom's preemption bound (1 catches both seeded bugs, zeroing no counter or the wrong one,
/// in a fraction of bound 2's 300 s on a 2-core host).
const PREEMPTIONS: usize = 1;

/// Chunks per interval (more than one so that groups race for them).
const CHUNKS: usize = 2;

/// One group's interval: zero the next interval's counter (group 0), then claim chunks from
/// this interval's counter until they run out, counting each one done.
fn interval(id: usize, epoch: usize, claims: &[AtomicUsize; 2], done: &[AtomicUsize]) {
    if id == 0 {
        claims[(epoch + 1) % 2].store(0, Ordering::Relaxed);
    }
    loop {
        let c = claims[epoch % 2].fetch_add(1, Ordering::Relaxed);
        if c >= CHUNKS {
            return;
        }
        done[epoch * CHUNKS + c].fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn every_chunk_is_done_once_across_a_killing_resizing_barrier() {
    builder(PREEMPTIONS).check(|| {
        let core = Arc::new(CoopCore::new(3, None));
        assert_eq!(core.begin_kernel(3), Ok(3));
        // Interval 0 starts with both counters zero (the host zeroes them before a launch);
        // interval 1's counter holds a stale value, as after an earlier interval of the launch.
        let claims = Arc::new([AtomicUsize::new(0), AtomicUsize::new(7)]);
        let done: Arc<Vec<AtomicUsize>> =
            Arc::new((0..2 * CHUNKS).map(|_| AtomicUsize::new(0)).collect());
        let groups: Vec<_> = (0..3)
            .map(|id| {
                let (core, claims, done) = (core.clone(), claims.clone(), done.clone());
                thread::spawn(move || {
                    interval(id, 0, &claims, &done);
                    let gen = core.arrive(id, BarrierKind::Resizing(ResizeVariant::Query));
                    let r = core.wait_release(id, gen, &LoomWait).expect("not aborted");
                    if r.killed {
                        assert_ne!(id, 0, "group 0 killed");
                        return None;
                    }
                    interval(id, 1, &claims, &done);
                    Some(r.active)
                })
            })
            .collect();
        let sched = {
            let core = core.clone();
            thread::spawn(move || {
                core.request_units(1);
                if !core.try_claim(1) {
                    core.cancel(1);
                }
            })
        };
        let res: Vec<Option<usize>> = groups.into_iter().map(|h| h.join().unwrap()).collect();
        sched.join().unwrap();
        let survivors = res.iter().filter(|r| r.is_some()).count();
        for (id, m) in res.iter().enumerate() {
            if let Some(m) = m {
                assert_eq!(*m, survivors, "M after the barrier = survivors");
                assert!(id < *m, "ids not contiguous");
            }
        }
        for (i, d) in done.iter().enumerate() {
            assert_eq!(
                d.load(Ordering::Relaxed),
                1,
                "chunk {} of interval {} done {} times",
                i % CHUNKS,
                i / CHUNKS,
                d.load(Ordering::Relaxed)
            );
        }
    });
}
