//! Execution-model matrix: discovery, both barriers, every mutex and every semaphore under
//! occupancy-bound (1, 2, 4, 16, 64 compute units), serialized, fair and adversarial
//! execution. Always correct, never deadlocked. And the unsafe baseline: a barrier over all
//! launched groups without discovery deadlocks exactly when groups outnumber compute units.
#![cfg(not(loom))]

use occupant::cpu::sync::{
    Barrier, BarrierKind, Discovery, DiscoveryKind, Mutex, MutexKind, Participation, Semaphore,
    SemaphoreKind, NON_PARTICIPATING,
};
use occupant::cpu::{ExecModel, Executor, GlobalBuffer, Launch};
use occupant::model::Watchdog;
use occupant::{Error, NDRange};
use std::sync::atomic::Ordering::{AcqRel, Relaxed};
use std::time::Duration;

const GROUPS: usize = 6;
const LOCAL: usize = 4;

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

fn launch(model: ExecModel) -> Launch {
    Launch::new(NDRange::groups(GROUPS, LOCAL).unwrap())
        .model(model)
        .watchdog(Watchdog::default().with_timeout(Duration::from_secs(5)))
}

/// Discovery then `ROUNDS` barrier episodes over the participants; each episode every
/// work-item writes its slot and, after the barrier, reads the slot of the same work-item in
/// the next participating group. Returns the number of stale reads.
fn discovery_and_barrier(model: ExecModel, kind: BarrierKind, disc: DiscoveryKind) -> usize {
    const ROUNDS: u32 = 6;
    let exec = Executor::new(model);
    let disc = Discovery::with_kind(GROUPS, disc);
    let bar = Barrier::new(kind, GROUPS);
    let data = GlobalBuffer::<u32>::new(GROUPS * LOCAL);
    let stale = GlobalBuffer::<u32>::new(1);
    let envs = GlobalBuffer::<u64>::new(GROUPS * LOCAL);
    exec.launch_with(
        &launch(model),
        || (),
        |item, _| {
            let Some(p) = disc.discover_group(item) else {
                return;
            };
            envs.set(
                item.global_linear_id(),
                ((p.p_global_id() as u64) << 32) | p.p_global_size() as u64,
            );
            let next = (p.p_group_id() + 1) % p.p_num_groups();
            let peer = next * p.local_size() + p.local_id();
            for round in 1..=ROUNDS {
                data.set(p.p_global_id(), round); // plain (relaxed) write
                bar.wait_group(item, &p);
                if data.get(peer) != round {
                    stale.fetch_add(0, 1, Relaxed);
                }
                bar.wait_group(item, &p);
            }
        },
    )
    .unwrap_or_else(|e| panic!("{model} {kind} {}: {e}", disc.kind()));

    // Discovery: at least one, at most the model's concurrency, ids exactly 0..count.
    let count = disc.count();
    assert!(count >= 1, "{model}: no participant");
    assert!(
        count <= model.concurrency(GROUPS),
        "{model}: {count} participants but only {} can be occupant",
        model.concurrency(GROUPS)
    );
    let mut ids: Vec<usize> = disc
        .ids()
        .into_iter()
        .filter(|&i| i != NON_PARTICIPATING)
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..count).collect::<Vec<_>>(), "{model}: ids");
    // Environment: p_global_id unique and contiguous, p_global_size consistent.
    let env = envs.to_vec();
    let mut gids = vec![];
    for (g, id) in disc.ids().into_iter().enumerate() {
        if id == NON_PARTICIPATING {
            continue;
        }
        for l in 0..LOCAL {
            let e = env[g * LOCAL + l];
            assert_eq!(e & 0xffff_ffff, (count * LOCAL) as u64, "p_global_size");
            gids.push((e >> 32) as usize);
        }
    }
    gids.sort_unstable();
    assert_eq!(gids, (0..count * LOCAL).collect::<Vec<_>>(), "p_global_id");
    stale.get(0) as usize
}

#[test]
fn discovery_and_barriers_under_every_model() {
    for model in models() {
        for kind in BarrierKind::ALL {
            let mutex = if kind == BarrierKind::Xf {
                MutexKind::Ticket
            } else {
                MutexKind::Spin
            };
            for disc in [
                DiscoveryKind::Quiescent,
                DiscoveryKind::Locked { mutex, delay: 0 },
                DiscoveryKind::Locked { mutex, delay: 10 },
            ] {
                assert_eq!(
                    discovery_and_barrier(model, kind, disc),
                    0,
                    "{model} {kind} {disc}"
                );
            }
        }
    }
}

/// The default discovery (quiescent, with the executor's occupancy hint) finds exactly the
/// groups the model keeps occupant at once: every compute unit, one under `Serialized`. A long
/// quiet period makes this independent of how the OS schedules the compute units' threads:
/// the poll closes when the hint is reached, not when arrivals pause.
#[test]
fn default_discovery_finds_every_compute_unit_under_every_model() {
    for model in models() {
        for groups in [1, 3, GROUPS, 40, 64] {
            let disc = Discovery::with_default_kind(groups).with_quiet(Duration::from_secs(2));
            let l = Launch::new(NDRange::groups(groups, 2).unwrap())
                .model(model)
                .watchdog(Watchdog::default().with_timeout(Duration::from_secs(5)));
            let seen = GlobalBuffer::<u64>::new(1);
            Executor::new(model)
                .launch_with(
                    &l,
                    || (),
                    |item, _| {
                        if let Some(p) = disc.discover_group(item) {
                            assert_eq!(p.p_num_groups(), item.occupancy_hint());
                            if item.local_linear_id() == 0 {
                                seen.fetch_add(0, 1, Relaxed);
                            }
                        }
                    },
                )
                .unwrap_or_else(|e| panic!("{model}, {groups} groups: {e}"));
            let expect = model.concurrency(groups);
            assert_eq!(disc.count(), expect, "{model}, {groups} groups");
            assert_eq!(seen.get(0) as usize, expect, "{model}, {groups} groups");
        }
    }
}

/// Without a reachable hint the quiescent protocol closes after the quiet period, still with
/// at least one and at most the occupant groups (a hint larger than the truth costs time,
/// never safety).
#[test]
fn quiescent_discovery_with_an_unreachable_hint_closes_when_quiet() {
    for model in [
        ExecModel::Serialized,
        ExecModel::OccupancyBound { compute_units: 2 },
        ExecModel::Adversarial { seed: 7 },
    ] {
        let groups = 8;
        let disc = Discovery::with_default_kind(groups)
            .with_occupancy_hint(1000)
            .with_quiet(Duration::from_millis(2));
        let l = Launch::new(NDRange::groups(groups, 2).unwrap())
            .model(model)
            .watchdog(Watchdog::default().with_timeout(Duration::from_secs(5)));
        Executor::new(model)
            .launch_with(
                &l,
                || (),
                |item, _| {
                    let _ = disc.discover_group(item);
                },
            )
            .unwrap_or_else(|e| panic!("{model}: {e}"));
        assert!(
            (1..=model.concurrency(groups)).contains(&disc.count()),
            "{model}"
        );
    }
}

/// Each group enters the critical section `ITERS` times; inside, every work-item does a
/// non-atomic increment (relaxed load, then relaxed store: a lost update shows in the total)
/// and checks that no other group is inside.
#[test]
fn every_mutex_under_every_model() {
    const ITERS: u64 = 3;
    for model in models() {
        for kind in MutexKind::ALL {
            let exec = Executor::new(model);
            let m = Mutex::new(kind);
            let counter = GlobalBuffer::<u64>::new(1);
            let inside = GlobalBuffer::<u64>::new(1);
            let overlaps = GlobalBuffer::<u64>::new(1);
            exec.launch_with(
                &launch(model),
                || (),
                |item, _| {
                    for _ in 0..ITERS {
                        m.critical_group(item, || {
                            if item.local_linear_id() == 0 && inside.fetch_add(0, 1, AcqRel) != 0 {
                                overlaps.fetch_add(0, 1, Relaxed);
                            }
                            let v = counter.load(0, Relaxed);
                            std::hint::spin_loop();
                            counter.store(0, v + 1, Relaxed);
                            item.barrier();
                            if item.local_linear_id() == 0 {
                                inside.fetch_add(0, u64::MAX, AcqRel); // -1
                            }
                        });
                    }
                },
            )
            .unwrap_or_else(|e| panic!("{model} {kind}: {e}"));
            assert_eq!(overlaps.get(0), 0, "{model} {kind}: two groups inside");
            assert_eq!(
                counter.get(0),
                GROUPS as u64 * LOCAL as u64 * ITERS,
                "{model} {kind}: lost update"
            );
        }
    }
}

/// Semaphores with 1 and 2 slots: never more groups inside than slots; with 1 slot the
/// non-atomic counter must not lose updates.
#[test]
fn every_semaphore_under_every_model() {
    const ITERS: u64 = 3;
    for model in models() {
        for kind in SemaphoreKind::ALL {
            for slots in [1u32, 2] {
                let exec = Executor::new(model);
                let s = Semaphore::new(kind, slots);
                let counter = GlobalBuffer::<u64>::new(1);
                let inside = GlobalBuffer::<u64>::new(1);
                let over = GlobalBuffer::<u64>::new(1);
                exec.launch_with(
                    &launch(model),
                    || (),
                    |item, _| {
                        for _ in 0..ITERS {
                            s.wait_group(item);
                            if item.local_linear_id() == 0
                                && inside.fetch_add(0, 1, AcqRel) >= u64::from(slots)
                            {
                                over.fetch_add(0, 1, Relaxed);
                            }
                            if slots == 1 {
                                let v = counter.load(0, Relaxed);
                                std::hint::spin_loop();
                                counter.store(0, v + 1, Relaxed);
                            }
                            item.barrier();
                            if item.local_linear_id() == 0 {
                                inside.fetch_add(0, u64::MAX, AcqRel);
                            }
                            s.post_group(item);
                        }
                    },
                )
                .unwrap_or_else(|e| panic!("{model} {kind} {slots}: {e}"));
                assert_eq!(over.get(0), 0, "{model} {kind}: more than {slots} inside");
                if slots == 1 {
                    assert_eq!(
                        counter.get(0),
                        GROUPS as u64 * LOCAL as u64 * ITERS,
                        "{model} {kind}: lost update"
                    );
                }
            }
        }
    }
}

/// The occupancy-assumption baseline: the XF barrier over all launched groups, no discovery.
fn baseline(compute_units: usize, groups: usize) -> occupant::Result<()> {
    let model = ExecModel::OccupancyBound { compute_units };
    let exec = Executor::new(model);
    let bar = Barrier::new(BarrierKind::Xf, groups);
    let l = Launch::new(NDRange::groups(groups, 2).unwrap())
        .model(model)
        .watchdog(Watchdog::default().with_timeout(Duration::from_millis(200)));
    exec.launch_with(
        &l,
        || (),
        |item, _| {
            let p = Participation::native(item);
            bar.wait_group(item, &p);
        },
    )
    .map(|_| ())
}

#[test]
fn unsafe_baseline_deadlocks_exactly_beyond_the_compute_units() {
    for cu in [1, 2, 4] {
        for groups in [cu, cu + 1, 2 * cu + 1] {
            let r = baseline(cu, groups);
            if groups <= cu {
                r.unwrap_or_else(|e| panic!("{cu} units, {groups} groups: {e}"));
            } else {
                match r {
                    Err(Error::Deadlock { not_started, .. }) => {
                        assert_eq!(not_started, groups - cu, "{cu} units, {groups} groups")
                    }
                    other => {
                        panic!("{cu} units, {groups} groups: expected deadlock, got {other:?}")
                    }
                }
            }
        }
    }
}

/// The same barrier after discovery never deadlocks, however many groups are launched.
#[test]
fn discovery_makes_the_baseline_safe() {
    for cu in [1, 2, 4] {
        let groups = 3 * cu;
        let model = ExecModel::OccupancyBound { compute_units: cu };
        let disc = Discovery::with_default_kind(groups);
        let bar = Barrier::new(BarrierKind::Xf, groups);
        let l = Launch::new(NDRange::groups(groups, 2).unwrap())
            .model(model)
            .watchdog(Watchdog::default().with_timeout(Duration::from_millis(200)));
        Executor::new(model)
            .launch_with(
                &l,
                || (),
                |item, _| {
                    if let Some(p) = disc.discover_group(item) {
                        bar.wait_group(item, &p);
                    }
                },
            )
            .unwrap_or_else(|e| panic!("{cu} units: {e}"));
        assert!((1..=cu).contains(&disc.count()));
    }
}
