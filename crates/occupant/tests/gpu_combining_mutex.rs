//! GPU correctness of the combining lock (`occ::sync::CombiningMutex<Op>` with
//! `occ::sync::CounterOp`, kernel `mutex_combining`): an exact counter (a plain
//! read-modify-write run by whichever block combines) and a free queue after the launch (the
//! last node's status is COMBINE), from one contending block to full occupancy (the
//! `mutexes_count_every_acquisition` and `sanitizer_smoke` tests of gpu_sync.rs run it too, as
//! every `MutexKind`). Skips with one line without a GPU; fails instead under
//! OCCUPANT_REQUIRE_GPU=1.
//! `combining_sanitizer_smoke` is the small run meant for compute-sanitizer (racecheck,
//! synccheck).

mod common;

use common::gpu_or_skip;
use occupant::cuda::sync::run::run_mutex;
use occupant::cuda::sync::MutexKind;
use occupant::model::Watchdog;
use std::time::Duration;

const OPS: usize = 100_000;

fn wd() -> Watchdog {
    Watchdog::default().with_timeout(Duration::from_secs(2))
}

#[test]
fn combining_counts_every_request() {
    let Some(gpu) = gpu_or_skip("combining_counts_every_request") else {
        return;
    };
    let full = gpu.info().resident_blocks_bound(128) as usize;
    for blocks in [1usize, 2, 3, 33, 132, full] {
        let iters = OPS.div_ceil(blocks).max(50) as u32;
        let r = run_mutex(&gpu, MutexKind::Combining, blocks, 128, iters, true, wd())
            .unwrap_or_else(|e| panic!("combining {blocks} blocks: {e}"));
        println!(
            "combining: {blocks} blocks x {iters}: counter {} ({:.2} Mops/s), free after: {}",
            r.counter, r.mops, r.free_after
        );
        assert_eq!(r.counter, blocks as u64 * u64::from(iters), "lost updates");
        assert!(r.free_after, "combining {blocks}: a request left waiting");
    }
}

#[test]
fn combining_rejects_more_blocks_than_its_capacity() {
    let Some(gpu) = gpu_or_skip("combining_rejects_more_blocks_than_its_capacity") else {
        return;
    };
    let too_many = occupant::cuda::sync::COMBINING_CAPACITY + 1;
    assert!(run_mutex(&gpu, MutexKind::Combining, too_many, 32, 1, true, wd()).is_err());
}

/// Small runs for `compute-sanitizer --tool racecheck|synccheck`.
#[test]
fn combining_sanitizer_smoke() {
    let Some(gpu) = gpu_or_skip("combining_sanitizer_smoke") else {
        return;
    };
    let w = Watchdog::default().with_timeout(Duration::from_secs(60));
    for blocks in [1usize, 8, 16] {
        let r = run_mutex(&gpu, MutexKind::Combining, blocks, 128, 20, true, w).unwrap();
        assert_eq!(r.counter, blocks as u64 * 20);
        assert!(r.free_after);
    }
}
