//! Cooperative kernels on the CPU backend: the semantics under every execution model, with
//! random kills and forks (churn) and with real launches taking units away.

use occupant::cpu::coop::{Churn, CoopConfig, CoopScheduler};
use occupant::cpu::{ExecModel, Executor, GlobalBuffer};
use occupant::model::coop::{Entry, ResizeVariant};
use occupant::model::Watchdog;
use occupant::{Error, NDRange};
use std::sync::atomic::Ordering;
use std::time::Duration;

fn models() -> Vec<ExecModel> {
    vec![
        ExecModel::OccupancyBound { compute_units: 3 },
        ExecModel::OccupancyBound { compute_units: 8 },
        ExecModel::Fair,
        ExecModel::Serialized,
        ExecModel::Adversarial { seed: 1 },
        ExecModel::Adversarial { seed: 7 },
    ]
}

fn config(model: ExecModel, churn: Option<u64>, variant: ResizeVariant) -> CoopConfig {
    CoopConfig {
        churn: churn.map(|seed| Churn {
            seed,
            kill_per_mille: 250,
        }),
        variant,
        watchdog: Watchdog::default().with_timeout(Duration::from_secs(10)),
        ..CoopConfig::new(model)
    }
}

/// Work stealing from a shared counter with offer_kill/request_fork at every task: every task
/// is done exactly once and the kernel shrinks and regrows.
#[test]
fn shared_tasks_done_once_under_kills_and_forks() {
    let exec = Executor::default();
    let mut churn_kills = 0;
    for model in models() {
        for churn in [None, Some(3)] {
            let sched = CoopScheduler::new(&exec, config(model, churn, ResizeVariant::Regular));
            let tasks = 3000;
            let next = GlobalBuffer::<u32>::new(1);
            let done = GlobalBuffer::<u32>::new(tasks);
            let max_seen = GlobalBuffer::<u32>::new(1);
            let report = sched
                .launch(6, 2, |coop, entry: Entry<u32>| {
                    if let Entry::Fork(v) = &entry {
                        assert_eq!(*v, 0xC0FFEE, "transmitted value");
                    }
                    assert!(coop.group_id() < 6);
                    loop {
                        coop.offer_kill();
                        coop.request_fork(&0xC0FFEE);
                        // Block semantics: work-item 0 takes the task for the group.
                        let t = coop.item().broadcast(0, {
                            if coop.local_id() == 0 {
                                next.fetch_add(0, 1, Ordering::Relaxed) as u64
                            } else {
                                0
                            }
                        }) as usize;
                        if t >= tasks {
                            return;
                        }
                        let mut x = 0u64;
                        for k in 0..300u64 {
                            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(k));
                        }
                        if coop.local_id() == 0 {
                            done.fetch_add(t, 1 + (x == u64::MAX) as u32, Ordering::Relaxed);
                            max_seen
                                .atomic(0)
                                .fetch_max(coop.group_id() as u32, Ordering::Relaxed);
                        }
                    }
                })
                .unwrap_or_else(|e| panic!("{model} churn {churn:?}: {e}"));
            assert!(
                done.to_vec().iter().all(|&d| d == 1),
                "{model} churn {churn:?}: a task lost or done twice"
            );
            let expect_initial = match model {
                ExecModel::OccupancyBound { compute_units } => compute_units.min(6),
                ExecModel::Serialized => 1,
                _ => 6,
            };
            assert_eq!(report.initial_groups, expect_initial, "{model}");
            if churn.is_some() {
                churn_kills += report.stats.kills;
            }
            assert!(report.stats.max_active <= 6);
        }
    }
    // Whether a given run sees a kill depends on the host's scheduling; over all models it does.
    assert!(churn_kills > 0, "churn never killed");
}

/// A stride kernel over rounds with resizing barriers: in every round every element is
/// processed exactly once although groups leave and join at the barriers; forked groups get
/// group 0's transmitted round.
#[test]
fn resizing_barrier_rounds_cover_every_element_once() {
    let exec = Executor::default();
    let mut kills = 0;
    for model in models() {
        for variant in [ResizeVariant::Regular, ResizeVariant::Query] {
            for churn in [None, Some(11)] {
                let sched = CoopScheduler::new(&exec, config(model, churn, variant));
                let (rounds, n) = (25usize, 97usize);
                let marks = GlobalBuffer::<u32>::new(rounds * n);
                let report = sched
                    .launch(5, 1, |coop, entry: Entry<usize>| {
                        let mut r = entry.transmitted().unwrap_or(0);
                        while r < rounds {
                            let (m, id) = (coop.num_groups(), coop.group_id());
                            assert!(id < m, "id {id} outside 0..{m}");
                            for i in (id..n).step_by(m) {
                                marks.fetch_add(r * n + i, 1, Ordering::Relaxed);
                            }
                            r += 1;
                            coop.resizing_global_barrier(&r);
                        }
                    })
                    .unwrap_or_else(|e| panic!("{model} {variant} {churn:?}: {e}"));
                let bad = marks.to_vec().iter().filter(|&&m| m != 1).count();
                assert_eq!(
                    bad, 0,
                    "{model} {variant} churn {churn:?}: {bad} elements not processed exactly once"
                );
                assert!(report.stats.barriers >= rounds, "{report:?}");
                if churn.is_some() {
                    kills += report.stats.kills;
                }
            }
        }
    }
    assert!(kills > 0, "churn never killed at a resizing barrier");
}

/// Plain global barriers mixed with resizing ones, and work-groups of several work-items.
#[test]
fn global_barrier_orders_phases() {
    let exec = Executor::default();
    let sched = CoopScheduler::new(
        &exec,
        config(ExecModel::Fair, Some(5), ResizeVariant::Query),
    );
    let n = 40;
    let a = GlobalBuffer::<u32>::new(n);
    let b = GlobalBuffer::<u32>::new(n);
    sched
        .launch(4, 3, |coop, entry: Entry<usize>| {
            let mut r = entry.transmitted().unwrap_or(0);
            while r < 10 {
                let (m, g) = (coop.num_groups(), coop.global_id());
                let gs = m * coop.local_count();
                for i in (g..n).step_by(gs) {
                    a.set(i, r as u32 + 1);
                }
                coop.global_barrier();
                for i in (g..n).step_by(gs) {
                    // Read a neighbour written by another group before the barrier.
                    assert_eq!(a.get((i + 7) % n), r as u32 + 1);
                    b.fetch_add(i, 1, Ordering::Relaxed);
                }
                r += 1;
                coop.resizing_global_barrier(&r);
            }
        })
        .unwrap();
    assert!(b.to_vec().iter().all(|&x| x == 10));
}

/// Other launches take units from a running cooperative kernel and give them back; the kernel
/// stays correct and regrows.
#[test]
fn other_launches_take_and_return_units() {
    let exec = Executor::default();
    for variant in [ResizeVariant::Regular, ResizeVariant::Query] {
        let mut cfg = config(
            ExecModel::OccupancyBound { compute_units: 6 },
            None,
            variant,
        );
        cfg.gather_timeout = Duration::from_millis(300);
        let sched = CoopScheduler::new(&exec, cfg);
        let n = 64;
        let rounds = GlobalBuffer::<u32>::new(1);
        let stop = GlobalBuffer::<u32>::new(1);
        let marks = GlobalBuffer::<u32>::new(n);
        std::thread::scope(|s| {
            let coop = s.spawn(|| {
                sched.launch(6, 1, |coop, entry: Entry<usize>| {
                    let mut r = entry.transmitted().unwrap_or(0);
                    while stop.get(0) == 0 || r < 5 {
                        let (m, id) = (coop.num_groups(), coop.group_id());
                        for i in (id..n).step_by(m) {
                            marks.fetch_add(i, 1, Ordering::Relaxed);
                        }
                        std::thread::sleep(Duration::from_micros(200));
                        r += 1;
                        if id == 0 {
                            rounds.set(0, r as u32);
                        }
                        coop.resizing_global_barrier(&r);
                    }
                })
            });
            while rounds.get(0) < 2 {
                std::thread::yield_now();
            }
            let out = GlobalBuffer::<u32>::new(16);
            for units in [1, 3, 5, 2] {
                let rep = sched
                    .launch_other(units, NDRange::groups(16, 1).unwrap(), |item| {
                        out.fetch_add(item.group_linear_id(), 1, Ordering::Relaxed);
                    })
                    .unwrap();
                assert_eq!(rep.units, units);
            }
            // 6 units asked: never possible while the kernel runs (group 0 stays).
            let e = sched
                .launch_other(6, NDRange::groups(1, 1).unwrap(), |_| {})
                .unwrap_err();
            assert!(
                matches!(e, Error::Resource(ref m) if m.contains("gather")),
                "{e}"
            );
            stop.set(0, 1);
            let report = coop.join().unwrap().unwrap();
            assert!(out.to_vec().iter().all(|&x| x == 4));
            let total_rounds = rounds.get(0);
            assert!(
                marks.to_vec().iter().all(|&m| m == total_rounds),
                "{variant}"
            );
            assert!(report.stats.kills >= 5, "{variant}: {report:?}");
            assert!(report.stats.forked_groups >= 5, "{variant}: {report:?}");
        });
    }
}

/// A kernel that never offers a group back: the scheduler's request fails with an error in
/// time, the kernel finishes normally, and the scheduler serves the next launch.
#[test]
fn kernel_that_never_yields_gives_a_gather_error() {
    let exec = Executor::default();
    let mut cfg = config(
        ExecModel::OccupancyBound { compute_units: 4 },
        None,
        ResizeVariant::Regular,
    );
    cfg.gather_timeout = Duration::from_millis(150);
    let sched = CoopScheduler::new(&exec, cfg);
    let go = GlobalBuffer::<u32>::new(1);
    std::thread::scope(|s| {
        let k = s.spawn(|| {
            sched.launch(4, 1, |coop, _: Entry<()>| {
                if coop.group_id() == 0 {
                    go.set(0, 1);
                }
                coop.item().wait_until("test_hold", || go.get(0) == 2);
            })
        });
        while go.get(0) == 0 {
            std::thread::yield_now();
        }
        let e = sched
            .launch_other(1, NDRange::groups(1, 1).unwrap(), |_| {})
            .unwrap_err();
        assert!(
            matches!(e, Error::Resource(ref m) if m.contains("could not gather")),
            "{e}"
        );
        go.set(0, 2);
        k.join().unwrap().unwrap();
    });
    assert_eq!(sched.units().held, 0);
    let r = sched
        .launch_other(4, NDRange::groups(4, 1).unwrap(), |_| {})
        .unwrap();
    assert_eq!(r.units, 4);
}

/// Errors inside a cooperative kernel come back as the launch's error, and the scheduler and
/// executor stay usable.
#[test]
fn errors_are_reported_and_scheduler_stays_usable() {
    let exec = Executor::default();
    let mut cfg = config(ExecModel::Fair, Some(2), ResizeVariant::Regular);
    cfg.watchdog = Watchdog::default().with_timeout(Duration::from_millis(200));
    let sched = CoopScheduler::new(&exec, cfg);
    // A group that leaves without reaching the barrier the others wait at.
    let e = sched
        .launch(3, 1, |coop, _: Entry<()>| {
            if coop.group_id() == 1 {
                coop.item().wait_until("never", || false);
            }
            coop.global_barrier();
        })
        .unwrap_err();
    assert!(matches!(e, Error::Deadlock { .. }), "{e}");
    let e = sched
        .launch(3, 1, |coop, _: Entry<()>| {
            if coop.group_id() == 2 {
                panic!("boom");
            }
        })
        .unwrap_err();
    assert!(
        matches!(e, Error::KernelPanic { ref message, .. } if message == "boom"),
        "{e}"
    );
    assert!(matches!(
        sched.launch(0, 1, |_, _: Entry<()>| {}).unwrap_err(),
        Error::InvalidLaunch(_)
    ));
    sched.launch(3, 1, |_, _: Entry<()>| {}).unwrap();
}
