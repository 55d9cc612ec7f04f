//! Loom models of the cooperative scheduler's core (`occupant::cpu::coop::CoopCore`): loom
//! threads act as the representatives of work-groups and as the scheduler; loom explores the
//! interleavings of the very code the CPU backend runs (its atomics and mutex are loom's under
//! `cfg(loom)`).
//!
//! Checked: no lost wake-up at the resizing barrier with kills and forks (every model run
//! terminates: a group waiting forever would be reported by loom as a deadlock), ids stay
//! contiguous (the groups alive after a barrier are exactly `0..M`), group 0 is never killed,
//! and forked groups see the forking group's transmitted value.
//!
//! Run with `scripts/loom.sh`.
#![cfg(loom)]

mod loom_common;
use loom_common::{builder, LoomWait};

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;
use occupant::cpu::coop::CoopCore;
use occupant::model::coop::{BarrierKind, KillDecision, ResizeVariant};

/// A scheduler thread asks for one unit while three groups meet at a query resizing barrier:
/// either the barrier kills group 2 (the highest id) and the scheduler gets its unit, or the
/// request comes too late and all three go on; either way every group is released.
#[test]
fn query_barrier_kills_the_highest_id_and_releases_the_rest() {
    builder(2).check(|| {
        let core = Arc::new(CoopCore::new(3, None));
        assert_eq!(core.begin_kernel(3), Ok(3));
        let alive = Arc::new(AtomicUsize::new(0));
        let groups: Vec<_> = (0..3)
            .map(|id| {
                let (core, alive) = (core.clone(), alive.clone());
                thread::spawn(move || {
                    let gen = core.arrive(id, BarrierKind::Resizing(ResizeVariant::Query));
                    let r = core.wait_release(id, gen, &LoomWait).expect("not aborted");
                    if r.killed {
                        assert_ne!(id, 0, "group 0 killed");
                    } else {
                        assert!(id < r.active, "a released group outside 0..M");
                        alive.fetch_or(1 << id, Ordering::Relaxed);
                    }
                    r.active
                })
            })
            .collect();
        let sched = {
            let core = core.clone();
            thread::spawn(move || {
                core.request_units(1);
                let got = core.try_claim(1);
                if !got {
                    core.cancel(1);
                }
                got
            })
        };
        let actives: Vec<usize> = groups.into_iter().map(|h| h.join().unwrap()).collect();
        let _ = sched.join().unwrap();
        // Every released group saw the same M, and the groups alive are exactly 0..M.
        let m = actives[0];
        let alive = alive.load(Ordering::Relaxed);
        assert_eq!(
            alive,
            (1 << m) - 1,
            "ids not contiguous: alive {alive:b}, M {m}"
        );
        assert!(m == 2 || m == 3);
        assert_eq!(core.num_groups(), m);
    });
}

/// A unit given back while two groups meet at a resizing barrier: group 0 may learn of a fork
/// (id 2) that it starts with its transmitted value; the forked group then meets the others at
/// a plain barrier, which waits for it (no lost wake-up).
#[test]
fn fork_at_resizing_barrier_transmits_group_0_value() {
    builder(2).check(|| {
        let core = Arc::new(CoopCore::new(3, None));
        core.request_units(1);
        assert!(core.try_claim(1));
        assert_eq!(core.begin_kernel(3), Ok(2));
        let seen = Arc::new(AtomicUsize::new(0));
        let lender = {
            let core = core.clone();
            thread::spawn(move || core.give_back(1))
        };
        let spawn_group = |id: usize, transmit: usize| {
            let (core, seen) = (core.clone(), seen.clone());
            thread::spawn(move || {
                let mut child = None;
                {
                    let gen = core.arrive(id, BarrierKind::Resizing(ResizeVariant::Regular));
                    let r = core.wait_release(id, gen, &LoomWait).unwrap();
                    assert!(!r.killed);
                    if let Some(ids) = r.forked {
                        assert_eq!(id, 0, "only group 0 starts forks");
                        assert_eq!(ids, 2..3, "forks take the next ids");
                        let value = transmit; // group 0's value, as `transmit`
                        let (core, seen) = (core.clone(), seen.clone());
                        child = Some(thread::spawn(move || {
                            seen.store(value, Ordering::Relaxed);
                            let gen = core.arrive(2, BarrierKind::Plain);
                            core.wait_release(2, gen, &LoomWait).unwrap();
                        }));
                    }
                }
                let gen = core.arrive(id, BarrierKind::Plain);
                let r = core.wait_release(id, gen, &LoomWait).unwrap();
                if let Some(c) = child {
                    c.join().unwrap();
                }
                r.active
            })
        };
        let g0 = spawn_group(0, 42);
        let g1 = spawn_group(1, 7);
        let m0 = g0.join().unwrap();
        let m1 = g1.join().unwrap();
        lender.join().unwrap();
        assert_eq!(m0, m1);
        if m0 == 3 {
            assert_eq!(
                seen.load(Ordering::Relaxed),
                42,
                "transmitted value of group 0"
            );
        } else {
            assert_eq!(m0, 2);
            assert_eq!(seen.load(Ordering::Relaxed), 0);
        }
    });
}

/// Regular resizing barrier: groups offer to be killed on entry while the scheduler asks for a
/// unit. A barrier never waits for a killed group: whatever the order, the survivors are
/// released, they are `0..M`, and only the highest id could be killed.
#[test]
fn kill_on_entry_never_blocks_the_barrier() {
    builder(2).check(|| {
        let core = Arc::new(CoopCore::new(3, None));
        assert_eq!(core.begin_kernel(3), Ok(3));
        core.request_units(1);
        let handles: Vec<_> = (0..3)
            .map(|id| {
                let core = core.clone();
                thread::spawn(move || {
                    if id != 0 && core.offer_kill(id) == KillDecision::Killed {
                        assert_eq!(id, 2, "only the highest id is killed");
                        return None;
                    }
                    let gen = core.arrive(id, BarrierKind::Resizing(ResizeVariant::Regular));
                    let r = core.wait_release(id, gen, &LoomWait).unwrap();
                    assert!(!r.killed);
                    Some(r.active)
                })
            })
            .collect();
        let res: Vec<Option<usize>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let survivors = res.iter().filter(|r| r.is_some()).count();
        for m in res.iter().flatten() {
            assert_eq!(*m, survivors, "M after the barrier = survivors");
        }
        assert!(res[0].is_some());
        assert_eq!(core.try_claim(1), survivors == 2);
    });
}

/// The lock-free common case: with no request, barriers complete without the lock (the last
/// arrival takes `pending` to zero) while a group forks outside the barrier. The fork adds to
/// `pending` before the forking group arrives, so the barrier waits for the new group: every
/// group, the forked one included, is released by the same completion with the same M.
#[test]
fn fork_outside_a_barrier_is_waited_for_by_the_lock_free_barrier() {
    builder(2).check(|| {
        let core = Arc::new(CoopCore::new(3, None));
        core.request_units(1);
        assert!(core.try_claim(1));
        assert_eq!(core.begin_kernel(3), Ok(2));
        core.give_back(1); // one unit to fork into
        let group = |id: usize, fork: bool| {
            let core = core.clone();
            thread::spawn(move || {
                let mut child = None;
                if fork {
                    let (ids, m) = core.request_fork();
                    assert_eq!((ids.clone(), m), (2..3, 3), "the fork gets the next id");
                    let core = core.clone();
                    child = Some(thread::spawn(move || {
                        let gen = core.arrive(2, BarrierKind::Plain);
                        core.wait_release(2, gen, &LoomWait).unwrap().active
                    }));
                }
                let gen = core.arrive(id, BarrierKind::Plain);
                let r = core.wait_release(id, gen, &LoomWait).unwrap();
                assert!(!r.killed);
                let forked_m = child.map(|c| c.join().unwrap());
                (r.active, forked_m)
            })
        };
        let g0 = group(0, false);
        let g1 = group(1, true);
        let (m0, _) = g0.join().unwrap();
        let (m1, m2) = g1.join().unwrap();
        assert_eq!(
            (m0, m1, m2),
            (3, 3, Some(3)),
            "one completion released all three"
        );
        assert_eq!(core.stats().barriers, 1);
    });
}

/// Without a request, `offer_kill` and the resizing barrier take no lock; a request that comes
/// while a regular resizing barrier runs is met at it or not at all: the groups alive after it
/// are `0..M` (with any group the barrier forked into a unit the request gave back), each
/// released group saw an M above its id, and the scheduler got its unit only if a group was
/// killed. (Two barriers in a row exceed loom's branch budget.)
#[test]
fn request_racing_lock_free_barriers_keeps_ids_contiguous() {
    builder(2).check(|| {
        let core = Arc::new(CoopCore::new(2, None));
        assert_eq!(core.begin_kernel(2), Ok(2));
        let group = |id: usize| {
            let core = core.clone();
            thread::spawn(move || {
                let mut forked = 0;
                {
                    if id != 0 && core.offer_kill(id) == KillDecision::Killed {
                        return (false, forked);
                    }
                    let kind = BarrierKind::Resizing(ResizeVariant::Regular);
                    let gen = core.arrive(id, kind);
                    let r = core.wait_release(id, gen, &LoomWait).unwrap();
                    assert!(!r.killed);
                    assert!(id < r.active);
                    if let Some(ids) = r.forked {
                        assert_eq!(id, 0, "only group 0 starts forks");
                        assert_eq!(ids.start, r.active - ids.len(), "forks take the next ids");
                        forked += ids.len();
                    }
                }
                (true, forked)
            })
        };
        let gs: Vec<_> = (0..2).map(group).collect();
        let sched = {
            let core = core.clone();
            thread::spawn(move || {
                core.request_units(1);
                let got = core.try_claim(1);
                if !got {
                    core.cancel(1);
                }
                got
            })
        };
        let res: Vec<(bool, usize)> = gs.into_iter().map(|h| h.join().unwrap()).collect();
        let got = sched.join().unwrap();
        assert!(res[0].0, "group 0 is never killed");
        let survivors = res.iter().filter(|r| r.0).count();
        let forked: usize = res.iter().map(|r| r.1).sum();
        assert_eq!(core.num_groups(), survivors + forked, "ids 0..M");
        if got {
            assert_eq!(survivors, 1, "a unit was claimed, so a group was killed");
            assert_eq!(forked, 0, "the claimed unit was not forked into");
        }
    });
}
