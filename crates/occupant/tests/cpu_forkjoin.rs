//! Semantics of fork-join regions (occupant::cpu::forkjoin), under every execution model: the
//! same checks as the CUDA kernel `fj_semantics` (src/cuda/kernels/forkjoin_tests.cu), whose
//! GPU test (tests/gpu_forkjoin.rs) compares with the same expected values.

use occupant::cpu::forkjoin::{run, Team, Thread};
use occupant::cpu::{ExecModel, Executor, GlobalBuffer, Launch};
use occupant::model::forkjoin::{expected_semantics as expected, SEMANTICS_CHECKS as CHECKS};
use occupant::model::Watchdog;
use occupant::{Error, NDRange};
use std::cell::Cell;
use std::time::{Duration, Instant};

const HITS: usize = 100;

fn models() -> Vec<ExecModel> {
    vec![
        ExecModel::OccupancyBound { compute_units: 2 },
        ExecModel::OccupancyBound { compute_units: 1 },
        ExecModel::Serialized,
        ExecModel::Fair,
        ExecModel::Adversarial { seed: 1 },
        ExecModel::Adversarial { seed: 2 },
    ]
}

/// The CPU twin of `fj_semantics`, check for check.
fn semantics(
    item: &occupant::cpu::WorkItem<'_>,
    team: &Team,
    out: &GlobalBuffer<i64>,
    hits: &GlobalBuffer<u32>,
    n_small: usize,
) {
    let g = item.group_linear_id();
    let o = |i: usize, v: i64| out.set(g * CHECKS + i, v);
    let h0 = g * 3 * HITS;
    run(item, team, |m| {
        let all = m.max_threads();
        // 1. values shared in and out
        let share = |base: i64, n: usize| {
            let sum = Cell::new(0i64);
            let seen = Cell::new(0usize);
            m.parallel(n, |t| {
                sum.set(sum.get() + base + t.thread_num() as i64);
                t.master(|| seen.set(t.num_threads()));
            });
            (sum.get(), seen.get() as i64)
        };
        let (s, seen) = share(100, all);
        o(0, s);
        o(1, seen);
        o(2, share(7, n_small).0);
        // 2. reductions of every type
        let r: [Cell<i64>; 6] = Default::default();
        m.parallel(n_small, |t: &Thread<'_>| {
            let i = t.thread_num();
            let a = t.reduce_sum(i as i32);
            let b = t.reduce_min(i as i32 - 7);
            let c = t.reduce_max(i as u32 * 3);
            let d = t.reduce_sum(0.5f32);
            let e = t.reduce_max(i as f64 * 0.25);
            let f = t.reduce_sum((i as u64) << 33);
            t.master(|| {
                r[0].set(a as i64);
                r[1].set(b as i64);
                r[2].set(c as i64);
                r[3].set((d * 2.0) as i64);
                r[4].set((e * 4.0) as i64);
                r[5].set((f >> 33) as i64);
            });
        });
        for (k, v) in r.iter().enumerate() {
            o(3 + k, v.get());
        }
        // 3. barriers, through an array on the data-sharing stack
        let mk = m.mark();
        let slots = m.push::<i32>(all).expect("the shared stack holds it");
        let checksum = Cell::new(0i64);
        m.parallel(n_small, |t| {
            let (n, i) = (t.num_threads(), t.thread_num());
            let mut acc = 0i64;
            for round in 0..3 {
                slots.set(i, i as i32 * 10 + round);
                t.barrier();
                acc += slots.get((i + 1) % n) as i64;
                t.barrier();
            }
            let total = t.reduce_sum(acc);
            t.master(|| checksum.set(total));
        });
        o(9, checksum.get());
        m.release(mk);
        // 4. worksharing
        m.parallel(all, |t| {
            let hit = |k: i64| {
                hits.fetch_add(h0 + k as usize, 1, std::sync::atomic::Ordering::Relaxed);
            };
            let len = HITS as i64;
            t.for_static(0, len, &hit);
            t.for_static_chunk(0, len, 3, |i| hit(len + i));
            t.for_dynamic(0, len, 5, |i| hit(2 * len + i));
            t.for_dynamic(0, len, 2, |i| hit(2 * len + i));
        });
        // 5. single
        let count = Cell::new(0i64);
        m.parallel(n_small, |t| {
            for _ in 0..4 {
                t.single(|| count.set(count.get() + 1));
            }
        });
        o(10, count.get());
        // 6. nested regions run serially
        let (inner_sum, inner_level) = (Cell::new(0i64), Cell::new(0i64));
        m.parallel(all, |t| {
            let (threads, level) = (Cell::new(0u32), Cell::new(0u32));
            t.parallel(8, |inn| {
                threads.set(inn.num_threads() as u32);
                level.set(inn.level() as u32);
                let mut s = 0i32;
                inn.for_static(0, 10, |i| s += i as i32);
                inn.barrier();
                if inn.reduce_sum(s) != 45 {
                    threads.set(1000);
                }
            });
            let a = t.reduce_sum(threads.get());
            let b = t.reduce_max(level.get());
            t.master(|| {
                inner_sum.set(a as i64);
                inner_level.set(b as i64);
            });
        });
        o(11, inner_sum.get());
        o(12, inner_level.get());
        // 7. the data-sharing stack spills to the global area
        let len = 1000usize;
        let big = m.push::<i32>(len);
        let sum = Cell::new(-1i64);
        if let Some(big) = &big {
            assert!(big.spilled());
            m.parallel(all, |t| {
                t.for_static(0, len as i64, |i| big.set(i as usize, i as i32));
                let mut s = 0i64;
                t.for_static_nowait(0, len as i64, |i| s += big.get(len - 1 - i as usize) as i64);
                let s = t.reduce_sum(s);
                t.master(|| sum.set(s));
            });
        }
        o(13, sum.get());
        o(14, (m.spilled_bytes() >= len * 4) as i64);
        // 8. the `if` clause, false: the master alone
        let (solo_sum, solo_n) = (Cell::new(0i64), Cell::new(0i64));
        m.parallel_if(false, all, |t| {
            solo_sum.set(solo_sum.get() + 5 + t.thread_num() as i64);
            t.master(|| solo_n.set(t.num_threads() as i64));
        });
        o(15, solo_sum.get() * 1000 + solo_n.get());
        // 9. `parallel reduction`: every thread returns a value, folded at the join
        o(
            16,
            m.parallel_sum(n_small, |t| 3i64 + t.thread_num() as i64),
        );
        o(
            17,
            (m.parallel_max(all, |t| t.thread_num() as f64 * 0.5) * 2.0) as i64,
        );
        o(
            18,
            m.parallel_min(n_small, |t| 10i32 - t.thread_num() as i32) as i64,
        );
        // 10. a region larger than the CUDA descriptor's inline bytes (there: on the stack)
        let vals: [i32; 20] = std::array::from_fn(|i| i as i32);
        let big = m.parallel_sum(n_small, |_| vals.iter().map(|&v| v as u32).sum::<u32>());
        o(19, big as i64);
    });
}

fn check(model: ExecModel, warps: usize, n_small: usize) {
    let groups = 2;
    let local = 32 * (warps + 1);
    let out = GlobalBuffer::<i64>::new(groups * CHECKS);
    let hits = GlobalBuffer::<u32>::new(groups * 3 * HITS);
    let launch = Launch::new(NDRange::d1(groups * local, local).unwrap())
        .model(model)
        .watchdog(Watchdog::default().with_timeout(Duration::from_secs(10)));
    Executor::default()
        .launch_with(
            &launch,
            || Team::new(512, 8192),
            |item, team| semantics(item, team, &out, &hits, n_small),
        )
        .unwrap_or_else(|e| panic!("{model}: {e}"));
    let all = 32 * warps as i64;
    let want = expected(all, n_small as i64);
    let got = out.to_vec();
    for g in 0..groups {
        assert_eq!(
            &got[g * CHECKS..(g + 1) * CHECKS],
            &want[..],
            "{model}, group {g}"
        );
    }
    let h = hits.to_vec();
    for g in 0..groups {
        for (k, &v) in h[g * 3 * HITS..(g + 1) * 3 * HITS].iter().enumerate() {
            assert_eq!(
                v,
                if k < 2 * HITS { 1 } else { 2 },
                "{model}, group {g}, hit {k}"
            );
        }
    }
}

#[test]
fn every_construct_under_every_model() {
    for model in models() {
        check(model, 2, 40);
    }
}

#[test]
fn widest_and_narrowest_teams() {
    check(ExecModel::Serialized, 1, 7);
    check(ExecModel::OccupancyBound { compute_units: 2 }, 31, 40);
}

fn launch_one(
    local: usize,
    timeout_ms: u64,
    body: impl Fn(&Thread<'_>) + Sync,
) -> Result<(), Error> {
    let launch = Launch::new(NDRange::d1(local, local).unwrap())
        .model(ExecModel::Serialized)
        .watchdog(Watchdog::default().with_timeout(Duration::from_millis(timeout_ms)));
    Executor::default()
        .launch_with(
            &launch,
            || Team::new(256, 0),
            |item, team| {
                run(item, team, |m| m.parallel(m.max_threads(), &body));
            },
        )
        .map(|_| ())
}

#[test]
fn a_thread_that_skips_a_barrier_is_a_deadlock_not_a_hang() {
    let e = launch_one(96, 200, |t| {
        if t.thread_num() != 3 {
            t.barrier();
        }
    })
    .unwrap_err();
    assert!(
        matches!(e, Error::Deadlock { ref primitive, .. } if primitive == "fork-join"),
        "{e}"
    );
}

/// Thread 0 of the region works `step` before each of `rounds` team barriers (every thread
/// passes them); then, with `skip`, thread 3 skips one more barrier that the others wait at.
fn long_region(rounds: usize, step: Duration, skip: bool) -> impl Fn(&Thread<'_>) + Sync {
    move |t| {
        for _ in 0..rounds {
            if t.thread_num() == 0 {
                std::thread::sleep(step);
            }
            t.barrier();
        }
        if skip && t.thread_num() != 3 {
            t.barrier();
        }
    }
}

#[test]
fn a_long_join_that_makes_progress_is_not_a_deadlock() {
    // The master's join (and the idle lanes' wait for the end) lasts 40 x 10 ms = 400 ms,
    // four times the 100 ms timeout, while the team gets through a barrier every 10 ms: the
    // watchdog restarts on progress (`occupant bench forkjoin --backend cpu` at 992 workers).
    let t0 = Instant::now();
    launch_one(96, 100, long_region(40, Duration::from_millis(10), false)).unwrap();
    assert!(t0.elapsed() >= Duration::from_millis(400));
    // Many short regions over 4 timeouts: the master warp's idle lanes wait the whole launch.
    let launch = Launch::new(NDRange::d1(96, 96).unwrap())
        .model(ExecModel::OccupancyBound { compute_units: 1 })
        .watchdog(Watchdog::default().with_timeout(Duration::from_millis(100)));
    let t0 = Instant::now();
    Executor::default()
        .launch_with(
            &launch,
            || Team::new(256, 0),
            |item, team| {
                run(item, team, |m| {
                    for _ in 0..40 {
                        m.parallel(m.max_threads(), |t| {
                            if t.thread_num() == 1 {
                                std::thread::sleep(Duration::from_millis(10));
                            }
                        });
                    }
                })
            },
        )
        .unwrap();
    assert!(t0.elapsed() >= Duration::from_millis(400));
}

#[test]
fn a_deadlock_after_progress_is_still_reported() {
    // 300 ms of progress, then thread 3 skips a barrier: reported ~100 ms after it.
    let t0 = Instant::now();
    let e = launch_one(96, 100, long_region(30, Duration::from_millis(10), true)).unwrap_err();
    let took = t0.elapsed();
    assert!(
        matches!(e, Error::Deadlock { ref primitive, .. } if primitive == "fork-join"),
        "{e}"
    );
    assert!(
        took >= Duration::from_millis(400),
        "reported after {took:?}"
    );
    assert!(took < Duration::from_secs(5), "reported after {took:?}");
    let msg = e.to_string();
    assert!(msg.contains("every thread of a parallel region"), "{msg}");
    assert!(!msg.contains("use occupancy discovery"), "{msg}");
}

#[test]
fn unequal_barrier_counts_are_reported() {
    // Every thread arrives at the first barrier, thread 0 passes a second one alone: the team
    // barrier counts arrivals, so it would wait; with one thread it is the mismatch that shows.
    let e = launch_one(64, 200, |t| {
        t.barrier();
        if t.thread_num() == 0 && t.num_threads() == 32 {
            t.parallel(1, |inner| inner.barrier());
        }
        t.reduce_sum(1u32);
    });
    assert!(e.is_ok(), "a nested region's barriers are its own: {e:?}");
    let e = launch_one(64, 200, |t| {
        if t.thread_num() % 2 == 0 {
            t.barrier();
            t.barrier();
        } else {
            t.barrier();
        }
    })
    .unwrap_err();
    assert!(
        matches!(e, Error::Deadlock { .. } | Error::BarrierDivergence { .. }),
        "{e}"
    );
}

#[test]
fn a_bad_group_shape_is_an_error() {
    let e = Executor::default()
        .launch_with(
            &Launch::new(NDRange::d1(48, 48).unwrap()),
            || Team::new(64, 0),
            |item, team| {
                run(item, team, |_| {});
            },
        )
        .unwrap_err();
    assert!(matches!(e, Error::InvalidLaunch(_)), "{e}");
}

#[test]
fn the_stack_reports_full() {
    let r = Executor::default().launch_with(
        &Launch::new(NDRange::d1(64, 64).unwrap()),
        || Team::new(64, 64),
        |item, team| {
            run(item, team, |m| {
                let a = m.push::<u64>(8).unwrap();
                assert!(!a.spilled());
                let b = m.push::<u64>(8).unwrap();
                assert!(b.spilled());
                assert!(m.push::<u64>(1).is_none());
                let mk = m.mark();
                m.release((0, 0));
                assert_eq!(m.push::<u64>(8).map(|a| a.spilled()), Some(false));
                let _ = mk;
            });
        },
    );
    r.unwrap();
}
