//! GPU correctness of the MCS cohort locks (`occ::sync::McsCohortMutex`,
//! `occ::sync::LazyCohortMutex`): an exact counter (a plain read-modify-write inside every
//! critical section) and a free lock after the launch (every global ticket served: a lazy cohort
//! released its parked lock), without clusters and in clusters of 2, 4 and 8 blocks, from one
//! contending block to full occupancy. Skips with one line without a GPU; fails instead under
//! OCCUPANT_REQUIRE_GPU=1. `mcs_cohort_sanitizer_smoke` is the small run meant for
//! compute-sanitizer (racecheck, synccheck).

mod common;

use common::gpu_or_skip;
use occupant::cuda::sync::run::run_mutex_clustered;
use occupant::cuda::sync::MutexKind;
use occupant::model::Watchdog;
use std::time::Duration;

const KINDS: [MutexKind; 2] = [MutexKind::McsCohort, MutexKind::LazyCohort];
const OPS: usize = 100_000;

fn wd() -> Watchdog {
    Watchdog::default().with_timeout(Duration::from_secs(2))
}

#[test]
fn mcs_cohorts_count_every_acquisition() {
    let Some(gpu) = gpu_or_skip("mcs_cohorts_count_every_acquisition") else {
        return;
    };
    let full = gpu.info().resident_blocks_bound(128) as usize;
    for kind in KINDS {
        for cluster in [1u32, 2, 4, 8] {
            for blocks in [1usize, 2, 3, 33, full] {
                let iters = OPS.div_ceil(blocks).max(50) as u32;
                let r = run_mutex_clustered(&gpu, kind, blocks, 128, cluster, iters, true, wd())
                    .unwrap_or_else(|e| panic!("{kind} cluster {cluster} {blocks} blocks: {e}"));
                println!(
                    "{kind} cluster {cluster}: {blocks} blocks x {iters}: counter {} ({:.2} Mops/s), free after: {}",
                    r.counter, r.mops, r.free_after
                );
                assert_eq!(r.counter, blocks as u64 * u64::from(iters), "lost updates");
                assert!(
                    r.free_after,
                    "{kind} cluster {cluster} {blocks}: lock held after the launch"
                );
            }
        }
    }
}

/// Small runs for `compute-sanitizer --tool racecheck|synccheck`.
#[test]
fn mcs_cohort_sanitizer_smoke() {
    let Some(gpu) = gpu_or_skip("mcs_cohort_sanitizer_smoke") else {
        return;
    };
    let w = Watchdog::default().with_timeout(Duration::from_secs(60));
    for kind in KINDS {
        for (cluster, blocks) in [(1u32, 8usize), (2, 16), (4, 6)] {
            let r = run_mutex_clustered(&gpu, kind, blocks, 128, cluster, 20, true, w).unwrap();
            assert_eq!(r.counter, blocks as u64 * 20, "{kind} cluster {cluster}");
            assert!(
                r.free_after,
                "{kind} cluster {cluster}: lock held after the launch"
            );
        }
    }
}

/// The latencies a lock hand-off is made of (fences, DSMEM and L2 round trips), recorded as
/// `handoff_costs.json` under $OCCUPANT_RESULTS_DIR: what bounds the cohort locks.
#[test]
fn handoff_costs_are_measured() {
    let Some(gpu) = gpu_or_skip("handoff_costs_are_measured") else {
        return;
    };
    let costs = occupant::cuda::sync::run::run_handoff_costs(&gpu, 10_000).unwrap();
    let mut map = serde_json::Map::new();
    for (name, ns) in &costs {
        assert!(*ns > 0.0, "{name}: not timed");
        map.insert(name.to_string(), serde_json::json!(ns));
    }
    common::record("handoff_costs", serde_json::Value::Object(map));
}
