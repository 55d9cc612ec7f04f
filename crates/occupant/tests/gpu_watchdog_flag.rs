//! The watchdog's host-mapped "a wait expired" flag (watchdog.cuh `occ_ctl_flag`): a clean
//! launch reads nothing back, an expired one is still an Error::Deadlock — after `launch` and
//! after `enqueue` — and the module stays usable. Skips without a GPU (fails under
//! OCCUPANT_REQUIRE_GPU=1).

mod common;

use common::gpu_or_skip;
use occupant::args;
use occupant::cuda::{CompileOptions, LaunchConfig, SELFTEST_CU};
use occupant::model::Watchdog;
use occupant::Error;
use std::time::Duration;

#[test]
fn expired_waits_are_reported_and_clean_launches_read_nothing() {
    let Some(gpu) = gpu_or_skip("expired_waits_are_reported_and_clean_launches_read_nothing")
    else {
        return;
    };
    let m = gpu
        .compile("selftest.cu", SELFTEST_CU, &CompileOptions::default())
        .unwrap();
    let resident = m
        .max_active_blocks_per_sm("occ_naive_barrier", 128, 0)
        .unwrap() as usize
        * gpu.info().sm_count as usize;
    let w = Watchdog::default().with_timeout(Duration::from_millis(200));
    let mut count = gpu.alloc_zeroed::<u32>(1).unwrap();
    let mut done = gpu.alloc_zeroed::<u32>(1).unwrap();
    let too_many = LaunchConfig::plain(2 * resident, 128).watchdog(w);
    let fits = LaunchConfig::plain(resident, 128).watchdog(w);
    for round in 0..3 {
        // A launch that cannot complete: reported through the flag.
        match m.launch("occ_naive_barrier", &too_many, &args![&count, &done]) {
            Err(Error::Deadlock { primitive, .. }) => assert_eq!(primitive, "naive_barrier"),
            other => panic!("round {round}: expected a deadlock, got {other:?}"),
        }
        count.zero().unwrap();
        done.zero().unwrap();
        // A clean launch after it: re-armed, passes.
        let ok = m
            .launch("occ_naive_barrier", &fits, &args![&count, &done])
            .unwrap();
        assert_eq!(
            ok.spins, 0,
            "a clean launch without count_spins reads nothing back"
        );
        assert_eq!(done.to_vec().unwrap()[0] as usize, resident);
        count.zero().unwrap();
        done.zero().unwrap();
    }
    // A queued launch that expires: not reported by enqueue, but the next launch is re-armed
    // and passes.
    m.enqueue("occ_naive_barrier", &too_many, &args![&count, &done])
        .unwrap();
    gpu.synchronize().unwrap();
    count.zero().unwrap();
    done.zero().unwrap();
    m.launch("occ_naive_barrier", &fits, &args![&count, &done])
        .unwrap();
    assert_eq!(done.to_vec().unwrap()[0] as usize, resident);
}
