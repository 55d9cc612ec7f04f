//! The CPU executor: built-ins, validation, barriers, divergence, deadlock, execution models.

use occupant::cpu::{
    ExecModel, Executor, ExecutorConfig, GlobalBuffer, Launch, LocalArray, LocalMemory, Wait,
};
use occupant::model::{WaitSite, Watchdog};
use occupant::{Error, NDRange};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn all_models() -> Vec<ExecModel> {
    vec![
        ExecModel::OccupancyBound { compute_units: 1 },
        ExecModel::OccupancyBound { compute_units: 2 },
        ExecModel::OccupancyBound { compute_units: 5 },
        ExecModel::Serialized,
        ExecModel::Fair,
        ExecModel::Adversarial { seed: 1 },
        ExecModel::Adversarial { seed: 99 },
    ]
}

fn short_watchdog() -> Watchdog {
    Watchdog::default().with_timeout(Duration::from_millis(200))
}

#[test]
fn builtins_match_reference_in_1_2_3_dimensions() {
    let shapes: Vec<(Vec<usize>, Vec<usize>)> = vec![
        (vec![24], vec![6]),
        (vec![8, 6], vec![4, 3]),
        (vec![4, 6, 10], vec![2, 3, 5]),
    ];
    let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 3 });
    for (g, l) in shapes {
        let r = NDRange::new(&g, &l).unwrap();
        let n = r.global_count();
        // per work-item: (global id xyz, local id xyz, group id xyz, linear ids) packed
        let rec = GlobalBuffer::<u64>::new(n * 8);
        let hits = GlobalBuffer::<u32>::new(n);
        exec.launch(r, |it| {
            let gl = it.global_linear_id();
            hits.fetch_add(gl, 1, Ordering::Relaxed);
            for d in 0..3 {
                rec.set(gl * 8 + d, it.global_id(d) as u64);
                rec.set(
                    gl * 8 + 3 + d,
                    (it.group_id(d) * 1000 + it.local_id(d)) as u64,
                );
            }
            rec.set(gl * 8 + 6, it.group_linear_id() as u64);
            rec.set(gl * 8 + 7, it.local_linear_id() as u64);
            assert_eq!(it.dims(), g.len());
            assert_eq!(it.local_count(), r.local_count());
            assert_eq!(it.group_count(), r.group_count());
            for d in 0..3 {
                assert_eq!(it.local_size(d), r.local_size()[d]);
                assert_eq!(it.num_groups(d), r.num_groups()[d]);
                assert_eq!(it.global_size(d), r.global_size()[d]);
            }
        })
        .unwrap();
        let gs = r.global_size();
        let ls = r.local_size();
        let ng = r.num_groups();
        for z in 0..gs[2] {
            for y in 0..gs[1] {
                for x in 0..gs[0] {
                    let gl = x + gs[0] * (y + gs[1] * z);
                    assert_eq!(hits.get(gl), 1, "work-item {gl} ran once");
                    let id = [x, y, z];
                    for d in 0..3 {
                        assert_eq!(rec.get(gl * 8 + d), id[d] as u64);
                        let (grp, loc) = (id[d] / ls[d], id[d] % ls[d]);
                        assert_eq!(rec.get(gl * 8 + 3 + d), (grp * 1000 + loc) as u64);
                    }
                    let grp = [x / ls[0], y / ls[1], z / ls[2]];
                    let loc = [x % ls[0], y % ls[1], z % ls[2]];
                    assert_eq!(
                        rec.get(gl * 8 + 6),
                        (grp[0] + ng[0] * (grp[1] + ng[1] * grp[2])) as u64
                    );
                    assert_eq!(
                        rec.get(gl * 8 + 7),
                        (loc[0] + ls[0] * (loc[1] + ls[1] * loc[2])) as u64
                    );
                }
            }
        }
    }
}

#[test]
fn launch_validation_errors_are_clear() {
    let e = NDRange::d1(0, 4).unwrap_err();
    assert!(e.to_string().contains("size 0"), "{e}");
    let e = NDRange::d1(10, 4).unwrap_err();
    assert!(
        e.to_string().contains("not a multiple") && e.to_string().contains("12"),
        "{e}"
    );
    let e = NDRange::new(&[1, 1, 1, 1], &[1, 1, 1, 1]).unwrap_err();
    assert!(e.to_string().contains("1 to 3"), "{e}");
    let e = NDRange::new(&[4, 4], &[4]).unwrap_err();
    assert!(e.to_string().contains("dimension"), "{e}");

    let exec = Executor::with_config(ExecutorConfig {
        max_local_size: 256,
        local_mem_limit: 1024,
        ..ExecutorConfig::default()
    });
    let e = exec
        .launch(NDRange::d1(512, 512).unwrap(), |_| {})
        .unwrap_err();
    assert!(matches!(e, Error::InvalidLaunch(_)), "{e}");
    assert!(e.to_string().contains("limit of 256"), "{e}");
    let e = exec
        .launch_with(
            &Launch::new(NDRange::d1(64, 64).unwrap()),
            || LocalArray::<u64>::new(200),
            |_, _| {},
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::LocalMemoryTooLarge {
                requested: 1600,
                limit: 1024
            }
        ),
        "{e}"
    );
    let e = exec
        .launch_with(
            &Launch::new(NDRange::d1(4, 1).unwrap())
                .model(ExecModel::OccupancyBound { compute_units: 0 }),
            || (),
            |_, _| {},
        )
        .unwrap_err();
    assert!(e.to_string().contains("at least one compute unit"), "{e}");
}

/// Tree reduction in local memory; returns the per-group sums.
fn reduce(exec: &Executor, model: ExecModel, groups: usize, local: usize) -> Vec<u64> {
    let out = GlobalBuffer::<u64>::new(groups);
    let launch = Launch::new(NDRange::groups(groups, local).unwrap()).model(model);
    exec.launch_with(
        &launch,
        || LocalArray::<u64>::new(local),
        |it, mem| {
            let l = it.local_linear_id();
            mem.set(l, it.global_linear_id() as u64);
            let mut stride = local.next_power_of_two() / 2;
            while stride > 0 {
                it.barrier();
                if l < stride && l + stride < local {
                    mem.set(l, mem.get(l) + mem.get(l + stride));
                }
                stride /= 2;
            }
            if l == 0 {
                out.set(it.group_linear_id(), mem.get(0));
            }
        },
    )
    .unwrap();
    out.to_vec()
}

fn expected_sums(groups: usize, local: usize) -> Vec<u64> {
    (0..groups)
        .map(|g| ((g * local) as u64..((g + 1) * local) as u64).sum())
        .collect()
}

#[test]
fn reduction_with_groups_of_1_and_1024_and_odd_sizes() {
    let exec = Executor::default();
    for (groups, local) in [(8, 1), (4, 1024), (6, 37), (3, 256)] {
        assert_eq!(
            reduce(&exec, ExecModel::default(), groups, local),
            expected_sums(groups, local),
            "{groups}x{local}"
        );
    }
}

#[test]
fn every_execution_model_runs_the_reduction() {
    let exec = Executor::default();
    for model in all_models() {
        assert_eq!(
            reduce(&exec, model, 24, 64),
            expected_sums(24, 64),
            "{model}"
        );
    }
}

#[test]
fn barriers_inside_loops_keep_work_items_in_step() {
    // Each round every work-item reads its left neighbour's value from the previous round:
    // correct only if barriers separate the rounds.
    let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
    let local = 32;
    let rounds = 50;
    let out = GlobalBuffer::<u64>::new(4 * local);
    exec.launch_with(
        &Launch::new(NDRange::groups(4, local).unwrap()),
        || LocalArray::<u64>::new(local),
        |it, mem| {
            let l = it.local_linear_id();
            mem.set(l, l as u64);
            for _ in 0..rounds {
                it.barrier();
                let left = mem.get((l + local - 1) % local);
                it.barrier();
                mem.set(l, left);
            }
            out.set(it.global_linear_id(), mem.get(l));
        },
    )
    .unwrap();
    for (i, v) in out.to_vec().into_iter().enumerate() {
        let l = i % local;
        assert_eq!(
            v as usize,
            (l + local * rounds - rounds) % local,
            "item {i}"
        );
    }
}

#[test]
fn barrier_free_kernel_allocates_no_stacks() {
    let exec = Executor::default();
    let n = 1 << 24;
    let sum = GlobalBuffer::<u64>::new(1);
    let report = exec
        .launch(NDRange::d1(n, 256).unwrap(), |it| {
            if it.global_linear_id() % 4096 == 0 {
                sum.fetch_add(0, 1, Ordering::Relaxed);
            }
        })
        .unwrap();
    assert_eq!(sum.get(0), (n / 4096) as u64);
    assert_eq!(report.stacks_allocated, 0);
    assert_eq!(report.coroutine_groups, 0);
    assert_eq!(exec.stacks_allocated(), 0);
}

#[test]
fn stacks_are_allocated_once_per_compute_unit_and_reused() {
    let units = 2;
    let exec = Executor::new(ExecModel::OccupancyBound {
        compute_units: units,
    });
    let r = exec
        .launch(NDRange::groups(256, 64).unwrap(), |it| {
            it.barrier();
            it.barrier();
        })
        .unwrap();
    assert_eq!(r.coroutine_groups, 256);
    assert!(r.stacks_allocated <= units * 63, "{}", r.stacks_allocated);
    assert!(r.stacks_allocated >= 63);
    let again = exec
        .launch(NDRange::groups(256, 64).unwrap(), |it| it.barrier())
        .unwrap();
    assert_eq!(again.coroutine_groups, 256);
    // Each compute unit maps at most one set of stacks, whichever launch first needed them.
    assert!(
        exec.stacks_allocated() <= units * 63,
        "{} stacks for {units} units",
        exec.stacks_allocated()
    );
    for _ in 0..3 {
        exec.launch(NDRange::groups(64, 64).unwrap(), |it| it.barrier())
            .unwrap();
    }
    assert!(
        exec.stacks_allocated() <= units * 63,
        "no growth across launches"
    );
}

#[test]
fn divergence_is_detected_not_hung() {
    let exec = Executor::default();
    // Work-item 0 skips the barrier.
    let e = exec
        .launch(NDRange::d1(8, 8).unwrap(), |it| {
            if it.local_linear_id() != 0 {
                it.barrier();
            }
        })
        .unwrap_err();
    assert!(
        matches!(e, Error::BarrierDivergence { group: 0, .. }),
        "{e}"
    );
    // Half the items wait at one barrier, half at another.
    #[allow(clippy::if_same_then_else)]
    let e = exec
        .launch(NDRange::d1(16, 8).unwrap(), |it| {
            if it.local_linear_id() % 2 == 0 {
                it.barrier();
            } else {
                it.barrier();
            }
        })
        .unwrap_err();
    assert!(matches!(e, Error::BarrierDivergence { .. }), "{e}");
    // Work-item 3 leaves early while the others wait.
    let e = exec
        .launch(NDRange::d1(8, 8).unwrap(), |it| {
            if it.local_linear_id() == 3 {
                return;
            }
            it.barrier();
        })
        .unwrap_err();
    assert!(e.to_string().contains("work-item 3"), "{e}");
    // Work-item 5 loops once more than the others.
    let e = exec
        .launch(NDRange::d1(8, 8).unwrap(), |it| {
            let rounds = if it.local_linear_id() == 5 { 3 } else { 2 };
            for _ in 0..rounds {
                it.barrier();
            }
        })
        .unwrap_err();
    assert!(e.to_string().contains("work-item 5"), "{e}");
    // The executor is still usable.
    assert_eq!(
        reduce(&exec, ExecModel::default(), 4, 16),
        expected_sums(4, 16)
    );
}

#[test]
fn deadlock_in_serialized_is_reported_and_the_next_launch_succeeds() {
    let exec = Executor::new(ExecModel::Serialized);
    let flags = GlobalBuffer::<u32>::new(2);
    let t0 = Instant::now();
    let e = exec
        .launch_with(
            &Launch::new(NDRange::groups(2, 4).unwrap()).watchdog(short_watchdog()),
            || (),
            |it, _| {
                let me = it.group_linear_id();
                it.barrier();
                if it.local_linear_id() == 0 {
                    flags.store(me, 1, Ordering::Release);
                    it.wait_until("flag_spin", || flags.load(1 - me, Ordering::Acquire) == 1);
                }
                it.barrier();
            },
        )
        .unwrap_err();
    assert!(t0.elapsed() < Duration::from_secs(5));
    match &e {
        Error::Deadlock {
            primitive,
            waiting,
            not_started,
            timeout_ms,
        } => {
            assert_eq!(primitive, "flag_spin");
            assert_eq!(
                waiting,
                &vec![WaitSite {
                    group: 0,
                    primitive: "flag_spin".into()
                }]
            );
            assert_eq!(*not_started, 1);
            assert_eq!(*timeout_ms, 200);
        }
        other => panic!("expected a deadlock, got {other}"),
    }
    assert!(e.to_string().contains("group 0 in flag_spin"), "{e}");
    // Same kernel, fair model: both groups run, no deadlock; the executor was reusable.
    flags.set(0, 0);
    flags.set(1, 0);
    exec.launch_with(
        &Launch::new(NDRange::groups(2, 4).unwrap()).model(ExecModel::Fair),
        || (),
        |it, _| {
            let me = it.group_linear_id();
            if it.local_linear_id() == 0 {
                flags.store(me, 1, Ordering::Release);
                it.waiter()
                    .spin_until("flag_spin", || flags.load(1 - me, Ordering::Acquire) == 1);
            }
            it.barrier();
        },
    )
    .unwrap();
}

/// Groups in a chain on the fair model: group `g` waits for group `g - 1`'s flag, then works
/// `step` and sets its own; the last group waits for `last_waits_for` (`groups - 2`: the chain,
/// or a flag nobody sets).
fn chain(groups: usize, step: Duration, last_waits_for: usize) -> Result<(), Error> {
    let flags = GlobalBuffer::<u32>::new(groups + 1);
    Executor::new(ExecModel::Fair)
        .launch_with(
            &Launch::new(NDRange::groups(groups, 1).unwrap()).watchdog(short_watchdog()),
            || (),
            |it, _| {
                let g = it.group_linear_id();
                if g > 0 {
                    let from = if g == groups - 1 {
                        last_waits_for
                    } else {
                        g - 1
                    };
                    it.wait_until("chain", || flags.load(from, Ordering::Acquire) == 1);
                }
                std::thread::sleep(step);
                flags.store(g, 1, Ordering::Release);
            },
        )
        .map(|_| ())
}

#[test]
fn a_long_wait_while_the_launch_progresses_is_not_a_deadlock() {
    // The last group waits 5 x 80 ms = 400 ms, twice the 200 ms timeout, but a wait of the
    // launch ends every 80 ms: the watchdog's deadline restarts on progress.
    let t0 = Instant::now();
    chain(6, Duration::from_millis(80), 4).unwrap();
    assert!(t0.elapsed() >= Duration::from_millis(400));
}

#[test]
fn a_deadlock_after_progress_is_reported_one_timeout_later() {
    // Same chain, but the last group waits for a flag nobody sets (group 6's): progress stops
    // when group 4 gets through (~320 ms), the deadlock is reported ~200 ms later.
    let t0 = Instant::now();
    let e = chain(6, Duration::from_millis(80), 6).unwrap_err();
    let took = t0.elapsed();
    match &e {
        Error::Deadlock {
            primitive, waiting, ..
        } => {
            assert_eq!(primitive, "chain");
            assert_eq!(waiting.iter().map(|w| w.group).collect::<Vec<_>>(), vec![5]);
        }
        other => panic!("expected a deadlock, got {other}"),
    }
    assert!(
        took >= Duration::from_millis(500),
        "reported after {took:?}"
    );
    assert!(took < Duration::from_secs(5), "reported after {took:?}");
    assert!(e.to_string().contains("occupancy discovery"), "{e}");
}

#[test]
fn every_waiting_group_is_named_in_a_deadlock() {
    // 6 groups on 2 units wait for a flag nobody sets.
    let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
    let flag = GlobalBuffer::<u32>::new(1);
    let e = exec
        .launch_with(
            &Launch::new(NDRange::groups(6, 2).unwrap()).watchdog(short_watchdog()),
            || (),
            |it, _| it.wait_until("never", || flag.get(0) == 1),
        )
        .unwrap_err();
    match e {
        Error::Deadlock {
            waiting,
            not_started,
            ..
        } => {
            assert_eq!(
                waiting.iter().map(|w| w.group).collect::<Vec<_>>(),
                vec![0, 1]
            );
            assert_eq!(not_started, 4);
        }
        other => panic!("{other}"),
    }
}

#[test]
fn kernel_panics_become_errors() {
    let exec = Executor::default();
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let e = exec
        .launch(NDRange::d1(64, 16).unwrap(), |it| {
            it.barrier();
            if it.global_linear_id() == 37 {
                panic!("boom at {}", it.global_linear_id());
            }
        })
        .unwrap_err();
    // The same without a barrier: the plain loop reports the right work-item too.
    let plain = exec
        .launch(NDRange::d1(64, 16).unwrap(), |it| {
            if it.global_linear_id() == 21 {
                panic!("plain boom");
            }
        })
        .unwrap_err();
    std::panic::set_hook(prev);
    assert!(
        matches!(&plain, Error::KernelPanic { group: 1, local: 5, message } if message == "plain boom"),
        "{plain}"
    );
    match e {
        Error::KernelPanic {
            group,
            local,
            message,
        } => {
            assert_eq!((group, local), (2, 5));
            assert_eq!(message, "boom at 37");
        }
        other => panic!("{other}"),
    }
    assert_eq!(reduce(&exec, ExecModel::Fair, 4, 16), expected_sums(4, 16));
}

#[test]
fn broadcast_reaches_every_work_item() {
    let exec = Executor::default();
    let out = GlobalBuffer::<u64>::new(128);
    exec.launch(NDRange::d1(128, 32).unwrap(), |it| {
        let v = it.broadcast(7, it.global_linear_id() as u64 * 10);
        out.set(it.global_linear_id(), v);
    })
    .unwrap();
    for (i, v) in out.to_vec().into_iter().enumerate() {
        assert_eq!(v, ((i / 32) * 32 + 7) as u64 * 10);
    }
}

#[test]
fn fair_launch_limit_is_an_error() {
    let exec = Executor::with_config(ExecutorConfig {
        max_fair_groups: 8,
        ..ExecutorConfig::default()
    });
    let e = exec
        .launch_with(
            &Launch::new(NDRange::groups(9, 1).unwrap()).model(ExecModel::Fair),
            || (),
            |_, _| {},
        )
        .unwrap_err();
    assert!(e.to_string().contains("fair"), "{e}");
    assert_eq!(().local_bytes(), 0);
}
