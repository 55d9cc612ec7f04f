//! The executor keeps its compute-unit threads between launches: the next launch reuses them;
//! concurrent and nested launches on one executor still run (on threads of their own).

use occupant::cpu::{ExecModel, Executor, GlobalBuffer, Launch};
use occupant::NDRange;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

fn thread_ids(exec: &Executor, groups: usize) -> Vec<std::thread::ThreadId> {
    let ids = Mutex::new(Vec::new());
    exec.launch(NDRange::groups(groups, 1).unwrap(), |_| {
        ids.lock().unwrap().push(std::thread::current().id());
    })
    .unwrap();
    let mut v = ids.into_inner().unwrap();
    v.sort_by_key(|id| format!("{id:?}"));
    v.dedup();
    v
}

#[test]
fn the_next_launch_runs_on_the_same_threads() {
    let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 1 });
    let first = thread_ids(&exec, 4);
    assert_eq!(first.len(), 1);
    assert_eq!(thread_ids(&exec, 4), first);
    assert_ne!(first[0], std::thread::current().id());
    // More compute units than the kept threads: the missing ones are started and kept too.
    let exec = Executor::new(ExecModel::Fair);
    assert_eq!(thread_ids(&exec, 3).len(), 3);
    assert_eq!(thread_ids(&exec, 5).len(), 5);
    // Past the kept limit the launch starts its own threads, and works.
    assert_eq!(thread_ids(&exec, 100).len(), 100);
}

#[test]
fn concurrent_and_nested_launches_on_one_executor_run() {
    let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
    let out = GlobalBuffer::<u64>::new(4);
    std::thread::scope(|s| {
        for t in 0..4 {
            let (exec, out) = (&exec, &out);
            s.spawn(move || {
                for _ in 0..20 {
                    exec.launch(NDRange::groups(8, 4).unwrap(), |it| {
                        it.barrier();
                        out.fetch_add(t, 1, Ordering::Relaxed);
                    })
                    .unwrap();
                }
            });
        }
    });
    assert!(out.to_vec().iter().all(|&v| v == 20 * 32));
    // A kernel that launches on its own executor (the kept threads are busy: scoped ones run it).
    let inner = GlobalBuffer::<u32>::new(1);
    exec.launch_phased(
        &Launch::new(NDRange::groups(2, 1).unwrap()),
        || (),
        |_, _| {
            exec.launch(NDRange::groups(3, 2).unwrap(), |_| {
                inner.fetch_add(0, 1, Ordering::Relaxed);
            })
            .unwrap();
        },
    )
    .unwrap();
    assert_eq!(inner.get(0), 12);
}
