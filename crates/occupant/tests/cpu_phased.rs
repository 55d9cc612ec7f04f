//! Phased kernels (work-item loops between barriers): same ids, memory, models and errors as
//! the coroutine form, and the same results for the same kernels.

use occupant::cpu::{ExecModel, Executor, ExecutorConfig, GlobalBuffer, Launch, LocalArray};
use occupant::model::Watchdog;
use occupant::{Error, NDRange};
use std::sync::atomic::Ordering;
use std::time::Duration;

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

/// Every id the coroutine form reports, per work-item: global xyz, group*1000+local xyz,
/// group linear, local linear.
fn ids_coroutine(r: NDRange) -> Vec<u64> {
    let rec = GlobalBuffer::<u64>::new(r.global_count() * 8);
    Executor::new(ExecModel::OccupancyBound { compute_units: 2 })
        .launch(r, |it| {
            let gl = it.global_linear_id();
            for d in 0..3 {
                rec.set(gl * 8 + d, it.global_id(d) as u64);
                rec.set(
                    gl * 8 + 3 + d,
                    (it.group_id(d) * 1000 + it.local_id(d)) as u64,
                );
            }
            rec.set(gl * 8 + 6, it.group_linear_id() as u64);
            rec.set(gl * 8 + 7, it.local_linear_id() as u64);
        })
        .unwrap();
    rec.to_vec()
}

fn ids_phased(r: NDRange, with: bool) -> Vec<u64> {
    let rec = GlobalBuffer::<u64>::new(r.global_count() * 8);
    let hits = GlobalBuffer::<u32>::new(r.global_count());
    Executor::new(ExecModel::OccupancyBound { compute_units: 2 })
        .launch_phased(
            &Launch::new(r),
            || (),
            |g, _| {
                assert_eq!(g.dims(), r.dims());
                assert_eq!(g.local_count(), r.local_count());
                assert_eq!(g.group_count(), r.group_count());
                for d in 0..3 {
                    assert_eq!(g.local_size(d), r.local_size()[d]);
                    assert_eq!(g.num_groups(d), r.num_groups()[d]);
                    assert_eq!(g.global_size(d), r.global_size()[d]);
                }
                let record = |it: occupant::cpu::Item<'_>| {
                    let gl = it.global_linear_id();
                    hits.fetch_add(gl, 1, Ordering::Relaxed);
                    for d in 0..3 {
                        rec.set(gl * 8 + d, it.global_id(d) as u64);
                        rec.set(
                            gl * 8 + 3 + d,
                            (g.group_id(d) * 1000 + it.local_id(d)) as u64,
                        );
                    }
                    rec.set(gl * 8 + 6, g.group_linear_id() as u64);
                    rec.set(gl * 8 + 7, it.local_linear_id() as u64);
                };
                if with {
                    let mut p = g.private::<u8>();
                    g.items_with(&mut p, |it, _| record(it));
                } else {
                    g.items(record);
                }
            },
        )
        .unwrap();
    assert!(hits.to_vec().iter().all(|&h| h == 1));
    rec.to_vec()
}

#[test]
fn ids_match_the_coroutine_form_in_1_2_3_dimensions() {
    for (g, l) in [
        (vec![24], vec![6]),
        (vec![8, 6], vec![4, 3]),
        (vec![4, 6, 10], vec![2, 3, 5]),
        (vec![7], vec![1]),
    ] {
        let r = NDRange::new(&g, &l).unwrap();
        let want = ids_coroutine(r);
        assert_eq!(ids_phased(r, false), want, "items, {g:?}/{l:?}");
        assert_eq!(ids_phased(r, true), want, "items_with, {g:?}/{l:?}");
    }
}

/// A tree reduction with a loop-carried barrier, in both forms.
fn reduce_both(model: ExecModel, groups: usize, local: usize) -> (Vec<u64>, Vec<u64>) {
    let exec = Executor::new(model);
    let launch = Launch::new(NDRange::groups(groups, local).unwrap());
    let co = GlobalBuffer::<u64>::new(groups);
    exec.launch_with(
        &launch,
        || LocalArray::<u64>::new(local),
        |it, s| {
            let l = it.local_linear_id();
            s.set(l, it.global_linear_id() as u64);
            let mut stride = local.next_power_of_two() / 2;
            while stride > 0 {
                it.barrier();
                if l < stride && l + stride < local {
                    s.set(l, s.get(l) + s.get(l + stride));
                }
                stride /= 2;
            }
            if l == 0 {
                co.set(it.group_linear_id(), s.get(0));
            }
        },
    )
    .unwrap();
    let ph = GlobalBuffer::<u64>::new(groups);
    exec.launch_phased(
        &launch,
        || LocalArray::<u64>::new(local),
        |g, s| {
            // A private value carried across every barrier.
            let mut mine = g.private::<u64>();
            g.items(|it| {
                mine[it] = it.global_linear_id() as u64;
                s.set(it.local_linear_id(), mine[it]);
            });
            let mut stride = local.next_power_of_two() / 2;
            while stride > 0 {
                g.items(|it| {
                    let l = it.local_linear_id();
                    if l < stride && l + stride < local {
                        s.set(l, s.get(l) + s.get(l + stride));
                    }
                });
                stride /= 2;
            }
            g.items(|it| {
                if it.local_linear_id() == 0 {
                    ph.set(g.group_linear_id(), s.get(0));
                }
                assert_eq!(mine[it], it.global_linear_id() as u64);
            });
        },
    )
    .unwrap();
    (co.to_vec(), ph.to_vec())
}

#[test]
fn reduction_matches_the_coroutine_form_under_every_model() {
    for model in all_models() {
        for (groups, local) in [(7, 16), (3, 1), (2, 1024), (5, 37)] {
            let (co, ph) = reduce_both(model, groups, local);
            let want: Vec<u64> = (0..groups)
                .map(|g| ((g * local) as u64..((g + 1) * local) as u64).sum())
                .collect();
            assert_eq!(co, want, "{model} {groups}x{local}");
            assert_eq!(ph, want, "{model} {groups}x{local}");
        }
    }
}

#[test]
fn output_chunks_are_disjoint_and_complete() {
    for model in all_models() {
        let mut out = vec![0u32; 4096 * 3];
        let r = NDRange::d1(4096, 128).unwrap();
        Executor::new(model)
            .launch_phased_out(
                &Launch::new(r),
                &mut out,
                || (),
                |g, _, chunk| {
                    assert_eq!(chunk.len(), 3 * 128);
                    for (i, part) in chunk.chunks_exact_mut(128).enumerate() {
                        g.items_with(part, |it, o| {
                            *o += (it.global_linear_id() * 3 + i) as u32 + 1
                        });
                    }
                },
            )
            .unwrap();
        // Group g's chunk is out[g*384..]; element i*128+l holds global*3+i+1.
        for (g, chunk) in out.chunks_exact(384).enumerate() {
            for (j, &v) in chunk.iter().enumerate() {
                let (i, l) = (j / 128, j % 128);
                assert_eq!(v as usize, (g * 128 + l) * 3 + i + 1, "{model}");
            }
        }
    }
}

#[test]
fn errors_match_the_coroutine_form() {
    let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
    let launch = Launch::new(NDRange::d1(64, 16).unwrap());
    // A panic names the group and the work-item.
    let e = exec
        .launch_phased(
            &launch,
            || (),
            |g, _| {
                g.items(|_| {});
                g.items(|it| {
                    if g.group_linear_id() == 2 && it.local_linear_id() == 5 {
                        panic!("boom");
                    }
                });
            },
        )
        .unwrap_err();
    assert!(
        matches!(e, Error::KernelPanic { group: 2, local: 5, ref message } if message == "boom"),
        "{e}"
    );
    // A panic outside the item loops names work-item 0.
    let e = exec
        .launch_phased(
            &launch,
            || (),
            |g, _| {
                if g.group_linear_id() == 3 {
                    panic!("group code");
                }
            },
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::KernelPanic {
                group: 3,
                local: 0,
                ..
            }
        ),
        "{e}"
    );
    // A barrier (item loop) inside an item loop is divergence.
    let e = exec
        .launch_phased(
            &launch,
            || (),
            |g, _| {
                g.items(|_| g.items(|_| {}));
            },
        )
        .unwrap_err();
    assert!(matches!(e, Error::BarrierDivergence { .. }), "{e}");
    // A wrong-length slice in items_with is a clear panic.
    let e = exec
        .launch_phased(
            &launch,
            || (),
            |g, _| {
                let mut v = vec![0u8; 3];
                g.items_with(&mut v, |_, _| {});
            },
        )
        .unwrap_err();
    assert!(
        matches!(e, Error::KernelPanic { ref message, .. } if message.contains("3 elements")),
        "{e}"
    );
    // Output not a multiple of the groups.
    let mut out = vec![0u8; 10];
    let e = exec
        .launch_phased_out(&launch, &mut out, || (), |_, _, _| {})
        .unwrap_err();
    assert!(
        matches!(e, Error::InvalidLaunch(ref m) if m.contains("multiple")),
        "{e}"
    );
    // Local memory over the limit, shape over the limit.
    let small = Executor::with_config(ExecutorConfig {
        local_mem_limit: 64,
        max_local_size: 8,
        ..ExecutorConfig::default()
    });
    let e = small
        .launch_phased(
            &Launch::new(NDRange::d1(8, 8).unwrap()),
            || LocalArray::<u64>::new(9),
            |_, _| {},
        )
        .unwrap_err();
    assert!(matches!(e, Error::LocalMemoryTooLarge { .. }), "{e}");
    let e = small.launch_phased(&launch, || (), |_, _| {}).unwrap_err();
    assert!(matches!(e, Error::InvalidLaunch(_)), "{e}");
    // The executor stays usable.
    exec.launch_phased(&launch, || (), |g, _| g.items(|_| {}))
        .unwrap();
}

#[test]
fn a_spin_wait_that_never_ends_is_a_deadlock() {
    use occupant::cpu::Wait;
    let flag = GlobalBuffer::<u32>::new(1);
    let launch = Launch::new(NDRange::groups(2, 4).unwrap())
        .model(ExecModel::Serialized)
        .watchdog(Watchdog::default().with_timeout(Duration::from_millis(100)));
    let e = Executor::default()
        .launch_phased(
            &launch,
            || (),
            |g, _| {
                // Group 0 waits for group 1, which never runs under the serialized model.
                if g.group_linear_id() == 0 {
                    g.waiter()
                        .spin_until("flag", || flag.load(0, Ordering::Acquire) == 1);
                } else {
                    flag.store(0, 1, Ordering::Release);
                }
            },
        )
        .unwrap_err();
    assert!(matches!(e, Error::Deadlock { .. }), "{e}");
}

#[test]
fn phased_launches_use_no_coroutines() {
    let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
    let report = exec
        .launch_phased(
            &Launch::new(NDRange::groups(8, 256).unwrap()),
            || (),
            |g, _| {
                for _ in 0..4 {
                    g.items(|_| {});
                }
            },
        )
        .unwrap();
    assert_eq!(report.coroutine_groups, 0);
    assert_eq!(report.stacks_allocated, 0);
    assert_eq!(exec.stacks_allocated(), 0);
}

#[test]
fn independent_groups_run_every_group_once_under_every_model() {
    for model in all_models() {
        for (groups, local) in [(1, 4), (7, 3), (200, 2)] {
            let hits = GlobalBuffer::<u32>::new(groups * local);
            let launch = Launch::new(NDRange::groups(groups, local).unwrap()).independent_groups();
            let exec = Executor::new(model);
            exec.launch(launch.range, |_| {}).unwrap();
            exec.launch_with(
                &launch,
                || (),
                |it, _| {
                    hits.fetch_add(it.global_linear_id(), 1, Ordering::Relaxed);
                },
            )
            .unwrap();
            exec.launch_phased(
                &launch,
                || (),
                |g, _| {
                    g.items(|it| {
                        hits.fetch_add(it.global_linear_id(), 1, Ordering::Relaxed);
                    })
                },
            )
            .unwrap();
            assert!(
                hits.to_vec().iter().all(|&h| h == 2),
                "{model} {groups}x{local}"
            );
        }
    }
}

#[test]
fn groups_that_wait_for_a_batched_group_deadlock_with_an_error() {
    // 64 groups on 2 compute units claim 2 groups at a time: group 0 waits for group 1, which
    // sits behind it in the same batch. Without `independent_groups` the launch succeeds.
    use occupant::cpu::Wait;
    let run = |independent: bool| {
        let flag = GlobalBuffer::<u32>::new(1);
        let mut launch = Launch::new(NDRange::groups(64, 1).unwrap())
            .model(ExecModel::OccupancyBound { compute_units: 2 })
            .watchdog(Watchdog::default().with_timeout(Duration::from_millis(100)));
        if independent {
            launch = launch.independent_groups();
        }
        Executor::default().launch_phased(
            &launch,
            || (),
            |g, _| match g.group_linear_id() {
                0 => g
                    .waiter()
                    .spin_until("flag", || flag.load(0, Ordering::Acquire) == 1),
                1 => flag.store(0, 1, Ordering::Release),
                _ => {}
            },
        )
    };
    run(false).unwrap();
    let e = run(true).unwrap_err();
    assert!(matches!(e, Error::Deadlock { .. }), "{e}");
}
