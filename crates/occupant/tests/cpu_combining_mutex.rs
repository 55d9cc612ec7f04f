//! The combining lock (`occupant::cpu::sync::CombiningMutex`, the CPU twin of
//! `occ::sync::CombiningMutex<Op>`) under every execution model: occupancy-bound (1, 2, 4, 16,
//! 64 compute units), serialized, fair and adversarial. Each group's representative applies a
//! plain (non-atomic) increment of the lock's data `ITERS` times; every returned value (the
//! count before) must be distinct and the final count exact: a lost update or a result handed
//! to the wrong caller shows in both.
#![cfg(not(loom))]

use occupant::cpu::sync::{CombiningMutex, SpinWait, COMBINING_BATCH, COMBINING_BOUND};
use occupant::cpu::{ExecModel, Executor, GlobalBuffer, Launch};
use occupant::model::Watchdog;
use occupant::NDRange;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

const GROUPS: usize = 6;
const LOCAL: usize = 4;
const ITERS: usize = 5;

fn models() -> Vec<ExecModel> {
    let mut m: Vec<ExecModel> = [1, 2, 4, 16, 64]
        .into_iter()
        .map(|compute_units| ExecModel::OccupancyBound { compute_units })
        .collect();
    m.push(ExecModel::Serialized);
    m.push(ExecModel::Fair);
    m.extend((1..=3).map(|seed| ExecModel::Adversarial { seed }));
    m
}

#[test]
fn combining_mutex_counts_exactly_under_every_model() {
    for model in models() {
        let exec = Executor::new(model);
        let m = CombiningMutex::new(GROUPS, 0u64, |count: &mut u64, add: u64| {
            let before = *count;
            *count = before + add;
            before
        });
        let seen = GlobalBuffer::<u64>::new(GROUPS * ITERS);
        let launch = Launch::new(NDRange::groups(GROUPS, LOCAL).unwrap())
            .model(model)
            .watchdog(Watchdog::default().with_timeout(Duration::from_secs(5)));
        exec.launch_with(
            &launch,
            || (),
            |item, _| {
                if item.local_linear_id() != 0 {
                    return;
                }
                for _ in 0..ITERS {
                    let before = m.apply(item.group_linear_id(), 1, item.waiter()).unwrap();
                    seen.fetch_add(before as usize, 1, Relaxed);
                }
            },
        )
        .unwrap_or_else(|e| panic!("{model}: {e}"));
        let w = SpinWait::default();
        assert_eq!(
            m.apply(0, 0, &w).unwrap(),
            (GROUPS * ITERS) as u64,
            "{model}: lost update"
        );
        for v in 0..GROUPS * ITERS {
            assert_eq!(
                seen.get(v),
                1,
                "{model}: value {v} returned {} times",
                seen.get(v)
            );
        }
    }
}

/// Eight threads, turns of 3 requests in batches of 2 (so turns end at the bound, mid-batch
/// and at an unpublished node), then the defaults: every request logged once, each caller's
/// results increasing.
#[test]
fn many_threads_short_turns_and_default_turns() {
    for (bound, batch) in [(3, 2), (1, 1), (COMBINING_BOUND, COMBINING_BATCH)] {
        many_threads(bound, batch);
    }
}

fn many_threads(bound: usize, batch: usize) {
    let threads = 8;
    let iters = 500;
    let m = CombiningMutex::new(threads, Vec::<usize>::new(), |log: &mut Vec<usize>, p| {
        log.push(p);
        log.len()
    })
    .with_bound(bound)
    .with_batch(batch);
    let w = SpinWait::default();
    std::thread::scope(|s| {
        for p in 0..threads {
            let (m, w) = (&m, &w);
            s.spawn(move || {
                let mut last = 0;
                for _ in 0..iters {
                    let n = m.apply(p, p, w).unwrap();
                    assert!(n > last, "results out of order for one caller");
                    last = n;
                }
            });
        }
    });
    let mut m = m;
    m.with_data(|log| {
        assert_eq!(log.len(), threads * iters);
        for p in 0..threads {
            assert_eq!(log.iter().filter(|&&x| x == p).count(), iters);
        }
    });
}

#[test]
fn bad_participants_are_errors() {
    let m = CombiningMutex::new(2, 0u32, |c: &mut u32, a: u32| {
        *c += a;
        *c
    });
    let w = SpinWait::default();
    assert!(matches!(m.apply(2, 1, &w), Err(occupant::Error::Input(_))));
    assert_eq!(m.apply(1, 1, &w).unwrap(), 1);
    assert_eq!(m.participants(), 2);
}
