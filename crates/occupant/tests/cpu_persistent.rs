//! The CPU persistent-kernel API (`Executor::launch_persistent`): participants, barrier
//! semantics across many phases, under every execution model.

use occupant::cpu::{ExecModel, Executor, GlobalBuffer, Launch};
use occupant::{Error, NDRange};
use std::sync::atomic::Ordering::Relaxed;

/// A ring shift over `n` cells for `phases` phases: each phase reads the neighbour's value of
/// the previous phase, so a barrier that lets one participant run ahead gives a wrong answer.
fn ring(exec: &Executor, launch: Launch, n: usize, phases: usize) -> (u32, Vec<u64>) {
    let bufs = [GlobalBuffer::<u64>::new(n), GlobalBuffer::<u64>::new(n)];
    for i in 0..n {
        bufs[0].set(i, i as u64);
    }
    let r = exec
        .launch_persistent(launch, |p| {
            for ph in 0..phases {
                let (src, dst) = (&bufs[ph % 2], &bufs[(ph + 1) % 2]);
                let mut i = p.p_global_id();
                while i < n {
                    dst.set(i, src.get((i + 1) % n) + 1);
                    i += p.p_global_size();
                }
                p.barrier();
            }
        })
        .unwrap();
    (r.participants, bufs[phases % 2].to_vec())
}

fn expected(n: usize, phases: usize) -> Vec<u64> {
    (0..n).map(|i| ((i + phases) % n + phases) as u64).collect()
}

#[test]
fn every_model_gets_the_right_answer() {
    let cases = [
        (ExecModel::OccupancyBound { compute_units: 2 }, Some(2)),
        (ExecModel::OccupancyBound { compute_units: 3 }, Some(3)),
        (ExecModel::Serialized, Some(1)),
        (ExecModel::Fair, Some(8)),
        (ExecModel::Adversarial { seed: 5 }, None),
    ];
    for (model, want) in cases {
        let exec = Executor::new(model);
        for local in [1, 4] {
            let launch = Launch::new(NDRange::groups(8, local).unwrap());
            let (participants, got) = ring(&exec, launch, 97, 40);
            assert_eq!(got, expected(97, 40), "{model} local {local}");
            if let Some(w) = want {
                assert_eq!(participants, w, "{model}");
            }
            assert!(participants >= 1);
        }
    }
}

#[test]
fn report_describes_the_launch() {
    let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
    let count = GlobalBuffer::<u32>::new(1);
    let r = exec
        .launch_persistent(NDRange::groups(6, 3).unwrap(), |p| {
            assert!(p.p_group_id() < p.p_num_groups());
            assert_eq!(p.local_size(), 3);
            assert_eq!(p.item().local_linear_id(), p.local_id());
            count.fetch_add(0, 1, Relaxed);
        })
        .unwrap();
    assert_eq!(r.participants, 2);
    assert_eq!(r.launched, 6);
    assert_eq!(count.get(0), 6); // only the participants ran the kernel
    assert!(r.elapsed_us > 0.0);
    assert_eq!(r.launch.groups, 6);
}

#[test]
fn a_panic_in_the_kernel_is_an_error_not_a_hang() {
    let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
    let e = exec
        .launch_persistent(NDRange::groups(2, 1).unwrap(), |p| {
            if p.p_group_id() == 1 {
                panic!("boom");
            }
            p.barrier();
        })
        .unwrap_err();
    assert!(
        matches!(e, Error::KernelPanic { .. } | Error::Deadlock { .. }),
        "{e}"
    );
}
