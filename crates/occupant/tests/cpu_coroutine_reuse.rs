//! The coroutine form keeps a compute unit's work-item coroutines across its groups: each
//! group still sees its own ids and local memory, failures still name the right work-item,
//! and a failed group leaves the executor usable.

use occupant::cpu::{ExecModel, Executor, GlobalBuffer, Launch, LocalArray};
use occupant::{Error, NDRange};

#[test]
fn reused_coroutines_see_each_groups_ids_and_local_memory() {
    for model in [
        ExecModel::OccupancyBound { compute_units: 1 },
        ExecModel::OccupancyBound { compute_units: 2 },
        ExecModel::Serialized,
        ExecModel::Adversarial { seed: 5 },
    ] {
        let exec = Executor::new(model);
        let (groups, local) = (24, 8);
        let out = GlobalBuffer::<u64>::new(groups * local);
        let launch = Launch::new(NDRange::groups(groups, local).unwrap());
        let report = exec
            .launch_with(
                &launch,
                || LocalArray::<u64>::new(local),
                |it, s| {
                    let l = it.local_linear_id();
                    s.set(l, (it.group_linear_id() * 100 + l) as u64);
                    it.barrier();
                    // Each work-item reads its neighbour's value: only right if the group's own
                    // local memory and ids were used by every (reused) coroutine.
                    let v = s.get((l + 1) % local);
                    it.barrier();
                    out.set(it.global_linear_id(), v);
                },
            )
            .unwrap();
        for g in 0..groups {
            for l in 0..local {
                assert_eq!(
                    out.get(g * local + l),
                    (g * 100 + (l + 1) % local) as u64,
                    "{model}"
                );
            }
        }
        assert_eq!(report.coroutine_groups, groups, "{model}");
        // One set of coroutines (stacks) per compute unit, not per group.
        assert!(
            report.stacks_allocated <= report.compute_units * (local - 1),
            "{model}: {report:?}"
        );
    }
}

#[test]
fn a_panic_between_barriers_names_its_work_item_after_reuse() {
    let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 1 });
    let e = exec
        .launch(NDRange::groups(6, 16).unwrap(), |it| {
            it.barrier();
            if it.group_linear_id() == 4 && it.local_linear_id() == 9 {
                panic!("between barriers");
            }
            it.barrier();
        })
        .unwrap_err();
    assert!(
        matches!(e, Error::KernelPanic { group: 4, local: 9, ref message } if message == "between barriers"),
        "{e}"
    );
    // The executor goes on, with the stacks of the unwound coroutines back in its pool.
    let out = GlobalBuffer::<u32>::new(6 * 16);
    exec.launch(NDRange::groups(6, 16).unwrap(), |it| {
        it.barrier();
        out.set(it.global_linear_id(), 1);
    })
    .unwrap();
    assert!(out.to_vec().iter().all(|&v| v == 1));
    assert!(
        exec.stacks_allocated() <= 2 * 15,
        "{}",
        exec.stacks_allocated()
    );
}

#[test]
fn divergence_in_a_later_group_is_still_detected() {
    let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 1 });
    let e = exec
        .launch(NDRange::groups(5, 4).unwrap(), |it| {
            it.barrier();
            if !(it.group_linear_id() == 3 && it.local_linear_id() == 2) {
                it.barrier();
            }
        })
        .unwrap_err();
    assert!(
        matches!(e, Error::BarrierDivergence { group: 3, .. }),
        "{e}"
    );
    // Groups without a barrier between groups with barriers reuse nothing and break nothing.
    let out = GlobalBuffer::<u32>::new(40);
    exec.launch(NDRange::groups(10, 4).unwrap(), |it| {
        if it.group_linear_id() % 2 == 0 {
            it.barrier();
        }
        out.set(it.global_linear_id(), it.group_linear_id() as u32);
    })
    .unwrap();
    assert_eq!(out.get(39), 9);
}
