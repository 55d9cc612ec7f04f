//! GPU correctness of the combining barriers (tree, gather, spread, replica, relay, lean: message passing in every
//! round, 0 violations) and the cohort mutex (exact counter), at one block per SM and at full
//! occupancy, plus the shape-aware defaults. Skips with one line without a GPU; fails instead
//! under OCCUPANT_REQUIRE_GPU=1. `combining_sanitizer_smoke` is the small run meant for
//! compute-sanitizer (racecheck, synccheck).

mod common;

use common::gpu_or_skip;
use occupant::cuda::sync::run::{
    run_barrier, run_barrier_lab, run_barrier_lab_clustered, run_mutex_clustered, BARRIER_LAB,
    BARRIER_LAB_CLUSTER,
};
use occupant::cuda::sync::{Barrier, BarrierKind, MachineAbstraction, Mutex, MutexKind};
use occupant::cuda::{Gpu, LaunchConfig, LaunchMode};
use occupant::model::{LaunchShape, Watchdog};
use std::time::Duration;

const ROUNDS: u32 = 100_000;
const KINDS: [BarrierKind; 6] = [
    BarrierKind::Tree,
    BarrierKind::Gather,
    BarrierKind::Spread,
    BarrierKind::Replica,
    BarrierKind::Relay,
    BarrierKind::Lean,
];

fn wd() -> Watchdog {
    Watchdog::default().with_timeout(Duration::from_secs(2))
}

fn check(gpu: &Gpu, kind: BarrierKind, launched: usize, threads: usize, rounds: u32) {
    let r = run_barrier(gpu, kind, launched, threads, 1, rounds, true, wd())
        .unwrap_or_else(|e| panic!("{kind} {launched}x{threads}: {e}"));
    println!(
        "{kind}: {launched}x{threads} launched, {} participants (bound {}), {:.0} ns/barrier, {} violations",
        r.participants, r.occupancy_bound, r.ns_per_barrier, r.violations
    );
    assert!(r.participants >= 1 && r.participants <= r.occupancy_bound.max(launched));
    assert!(r.ids_contiguous, "{kind}: participant ids are not 0..n-1");
    assert_eq!(
        r.violations, 0,
        "{kind}: message passing across the barrier failed"
    );
}

#[test]
fn combining_barriers_pass_messages_in_every_shape() {
    let Some(gpu) = gpu_or_skip("combining_barriers_pass_messages_in_every_shape") else {
        return;
    };
    let sms = gpu.info().sm_count as usize;
    for threads in [128usize, 256, 1024] {
        // One block per SM, and twice the hardware bound (discovery keeps the co-resident).
        let full = 2 * gpu.info().resident_blocks_bound(threads as u32) as usize;
        for kind in KINDS {
            check(&gpu, kind, sms, threads, ROUNDS);
            check(&gpu, kind, full, threads, ROUNDS / 4);
        }
    }
    // Odd participant counts (buckets with unequal counts, SMs with one block).
    for kind in KINDS {
        for n in [1usize, 2, 3, 50, 129, 200] {
            check(&gpu, kind, n, 64, 2000);
        }
    }
}

#[test]
fn barrier_lab_variants_pass_messages() {
    let Some(gpu) = gpu_or_skip("barrier_lab_variants_pass_messages") else {
        return;
    };
    let sms = gpu.info().sm_count as usize;
    let full = gpu.info().resident_blocks_bound(128) as usize;
    for v in BARRIER_LAB {
        for (blocks, threads) in [(sms, 128usize), (2 * full, 128), (37, 1024)] {
            let r = run_barrier_lab(&gpu, v, blocks, threads, 5000, true, wd())
                .unwrap_or_else(|e| panic!("{v} {blocks}x{threads}: {e}"));
            println!(
                "{v}: {blocks}x{threads}: {} participants, {:.0} ns/barrier, {} violations",
                r.participants, r.ns_per_barrier, r.violations
            );
            assert!(r.ids_contiguous, "{v}: participant ids are not 0..n-1");
            assert_eq!(r.violations, 0, "{v}: message passing failed");
        }
    }
}

/// The cluster designs of the lab (ClusterLeanBarrier: the cluster's arrival and release
/// through the hardware cluster barrier or distributed shared memory) pass messages in
/// clusters of 2 to 16, one block per SM and launched past full occupancy.
#[test]
fn barrier_lab_cluster_variants_pass_messages() {
    let Some(gpu) = gpu_or_skip("barrier_lab_cluster_variants_pass_messages") else {
        return;
    };
    let sms = gpu.info().sm_count as usize;
    let full = gpu.info().resident_blocks_bound(128) as usize;
    for c in [2usize, 4, 8, 16] {
        for v in BARRIER_LAB_CLUSTER {
            for (blocks, threads) in [(sms / c * c, 128usize), (full / c * c, 128), (5 * c, 1024)] {
                let r = run_barrier_lab_clustered(
                    &gpu,
                    v,
                    blocks,
                    threads,
                    c as u32,
                    5000,
                    true,
                    wd(),
                    &[],
                );
                let r = match r {
                    Ok(r) => r,
                    Err(e) if c == 16 => {
                        println!("{v} cluster {c}: {blocks}x{threads}: not run: {e}");
                        continue;
                    }
                    Err(e) => panic!("{v} cluster {c} {blocks}x{threads}: {e}"),
                };
                println!(
                    "{v} cluster {c}: {blocks}x{threads}: {} participants, {:.0} ns/barrier, {} violations",
                    r.participants, r.ns_per_barrier, r.violations
                );
                assert!(r.ids_contiguous, "{v}: participant ids are not 0..n-1");
                assert_eq!(r.violations, 0, "{v} cluster {c}: message passing failed");
            }
        }
    }
}

#[test]
fn cohort_mutex_counts_every_acquisition() {
    let Some(gpu) = gpu_or_skip("cohort_mutex_counts_every_acquisition") else {
        return;
    };
    let full = gpu.info().resident_blocks_bound(128) as usize;
    for cluster in [1u32, 2, 4, 8] {
        for blocks in [1usize, 33, full] {
            let iters = (ROUNDS as usize).div_ceil(blocks).max(50) as u32;
            let r = run_mutex_clustered(
                &gpu,
                MutexKind::Cohort,
                blocks,
                128,
                cluster,
                iters,
                true,
                wd(),
            )
            .unwrap_or_else(|e| panic!("cohort cluster {cluster} {blocks} blocks: {e}"));
            println!(
                "cohort cluster {cluster}: {blocks} blocks x {iters}: counter {} ({:.2} Mops/s)",
                r.counter, r.mops
            );
            assert_eq!(r.counter, blocks as u64 * u64::from(iters), "lost updates");
        }
    }
}

#[test]
fn shape_aware_defaults_build_working_objects() {
    let Some(gpu) = gpu_or_skip("shape_aware_defaults_build_working_objects") else {
        return;
    };
    let m = MachineAbstraction::for_gpu(&gpu).unwrap();
    let sms = gpu.info().sm_count as usize;
    for (p, t) in [
        (sms, 128usize),
        (16 * sms, 128),
        (8 * sms, 256),
        (2 * sms, 1024),
    ] {
        let shape = LaunchShape::new(p, t);
        let b = Barrier::with_default_kind_for(&gpu, shape).unwrap();
        assert_eq!(b.kind(), m.barrier_for(shape));
        assert!(b.capacity() >= p);
        let mx = Mutex::with_default_kind_for(&gpu, shape).unwrap();
        assert_eq!(mx.kind(), m.mutex_for(shape));
        println!("{shape}: barrier {}, mutex {}", b.kind(), mx.kind());
        if b.kind() != BarrierKind::Hierarchical {
            let r = run_barrier(&gpu, b.kind(), p, t, 1, 1000, true, wd()).unwrap();
            assert_eq!(r.violations, 0);
        }
    }
}

/// A user's kernel: discovery, then `rounds` rounds of message passing across the barrier
/// (every participant writes its round's value, waits, and its threads read the others').
const USER_MP_CU: &str = r#"#include <occupant.cuh>
extern "C" __global__ void user_mp(unsigned* st, unsigned long long* buf, unsigned rounds,
                                   unsigned* bad) {
  occ::Env env;
  if (!occ::discover(env, occ::Quiescent, 0u)) return;
  const unsigned n = env.num_groups, g = env.group_id, t = occ::local_linear_id();
  BARRIER b(st, env);
  for (unsigned r = 0u; r < rounds; ++r) {
    unsigned long long* cur = buf + (r & 1u) * n;
    if (t == 0u) cur[g] = ((unsigned long long)(r + 1u) << 32) | g;
    if (!b.wait()) return;
    const unsigned o = (g + 1u + t) % n;
    if (t + 1u < n && cur[o] != (((unsigned long long)(r + 1u) << 32) | o)) atomicAdd(bad, 1u);
  }
}
"#;

/// Barrier::with_default_kind_placed in shapes at, between and past the measured ones: the
/// probe chooses one of its places, and a user's kernel passes messages there.
#[test]
fn placed_barriers_pass_messages_in_a_users_kernel() {
    let Some(gpu) = gpu_or_skip("placed_barriers_pass_messages_in_a_users_kernel") else {
        return;
    };
    let sms = gpu.info().sm_count as usize;
    let full = gpu.info().resident_blocks_bound(128) as usize;
    for (p, t) in [
        (sms, 128usize),
        (sms, 256),
        (2 * sms, 1024),
        (full, 128),
        (50, 33),
        (3 * sms, 200),
    ] {
        let shape = LaunchShape::new(p, t);
        let mut b = Barrier::with_default_kind_placed(&gpu, shape).unwrap();
        let places = b.places().expect("probed").clone();
        assert_eq!(places.ns.len(), occupant::cuda::sync::BARRIER_PLACES);
        assert!(places.ns.iter().all(|v| v.is_finite() && *v > 0.0));
        assert_eq!(b.offset_words(), places.chosen * places.stride_words);
        // The kinds the table cannot tell apart were each probed; the fastest place won.
        assert!(!places.kinds.is_empty());
        assert_eq!(places.kinds[0].kind, b.kind().name());
        assert_eq!(places.kinds[0].chosen_ns, places.chosen_ns());
        assert!(places
            .kinds
            .windows(2)
            .all(|w| w[0].chosen_ns <= w[1].chosen_ns));
        let probed: Vec<String> = places
            .kinds
            .iter()
            .map(|k| format!("{} {:.0}", k.kind, k.chosen_ns))
            .collect();
        let src = USER_MP_CU.replace("BARRIER", b.device_type());
        let m = gpu
            .compile("user_mp.cu", &src, &Default::default())
            .unwrap();
        let buf = gpu.alloc_zeroed::<u64>(2 * p).unwrap();
        let bad = gpu.alloc_zeroed::<u32>(1).unwrap();
        b.reset().unwrap();
        let cfg = LaunchConfig::new(LaunchMode::Discovery, t)
            .grid(p)
            .watchdog(wd());
        let rounds = 2000u32;
        let r = m
            .launch(
                "user_mp",
                &cfg,
                &occupant::args![b.arg(), &buf, rounds, &bad],
            )
            .unwrap_or_else(|e| panic!("{shape} {}: {e}", b.kind()));
        println!(
            "{shape}: {} placed at {} of {} in {:.0} ms (median place {:.0} ns, chosen {:.0}; kinds {}); user kernel: {} participants, {} violations",
            b.kind(),
            places.chosen,
            places.ns.len(),
            places.probe_ms,
            places.median_ns(),
            places.chosen_ns(),
            probed.join(", "),
            r.participants.unwrap_or(0),
            bad.to_vec().unwrap()[0]
        );
        assert_eq!(
            bad.to_vec().unwrap()[0],
            0,
            "{shape}: message passing failed"
        );
    }
}

/// A user's kernel over a lock: every block takes it `iters` times and increments a plain
/// counter inside.
const USER_LOCK_CU: &str = r#"#include <occupant.cuh>
#include <occupant_sync.cuh>
extern "C" __global__ void user_lock(unsigned* state, unsigned* counter, unsigned iters) {
  MUTEX m(state);
  for (unsigned i = 0u; i < iters; ++i) {
    if (!occ::block_lock(m)) return;
    if (threadIdx.x == 0) *counter += 1;
    occ::block_unlock(m);
  }
}
"#;

/// Mutex::with_default_kind_placed at 1 to full-SM contention: the probe chooses one of its
/// places, the lock is free after it, and a user's kernel counts every acquisition there.
#[test]
fn placed_mutexes_count_every_acquisition_in_a_users_kernel() {
    let Some(gpu) = gpu_or_skip("placed_mutexes_count_every_acquisition_in_a_users_kernel") else {
        return;
    };
    let sms = gpu.info().sm_count as usize;
    for (p, t) in [(1usize, 128usize), (2, 128), (3, 64), (33, 128), (sms, 256)] {
        let shape = LaunchShape::new(p, t);
        let mut m = Mutex::with_default_kind_placed(&gpu, shape).unwrap();
        let kind = m.kind();
        let src = USER_LOCK_CU.replace("MUTEX", m.device_type());
        let module = gpu
            .compile("user_lock.cu", &src, &Default::default())
            .unwrap();
        let counter = gpu.alloc_zeroed::<u32>(1).unwrap();
        let iters = 500u32;
        let cfg = LaunchConfig::plain(p, t).watchdog(wd());
        module
            .launch(
                "user_lock",
                &cfg,
                &occupant::args![m.arg(), &counter, iters],
            )
            .unwrap_or_else(|e| panic!("{shape} {kind}: {e}"));
        let got = counter.to_vec().unwrap()[0];
        match m.places() {
            Some(places) => {
                assert_eq!(places.ns.len(), occupant::cuda::sync::PLACES);
                assert_eq!(m.offset_words(), places.chosen * places.stride_words);
                println!(
                    "{shape}: {kind} placed at {} of {} in {:.0} ms ({:.2} Mops/s at the median place, {:.2} chosen); user kernel counted {got}",
                    places.chosen,
                    places.ns.len(),
                    places.probe_ms,
                    1e3 / places.median_ns(),
                    1e3 / places.chosen_ns()
                );
            }
            None => {
                println!("{shape}: {kind} (cluster kind: not probed); user kernel counted {got}")
            }
        }
        assert_eq!(got, p as u32 * iters, "{shape} {kind}: lost acquisitions");
        m.reset().unwrap();
    }
}

/// Small runs for `compute-sanitizer --tool racecheck|synccheck`.
#[test]
fn combining_sanitizer_smoke() {
    let Some(gpu) = gpu_or_skip("combining_sanitizer_smoke") else {
        return;
    };
    let w = Watchdog::default().with_timeout(Duration::from_secs(60));
    for kind in KINDS {
        let r = run_barrier(&gpu, kind, 16, 128, 1, 50, true, w).unwrap();
        assert_eq!(r.violations, 0);
    }
    for cluster in [1u32, 2] {
        let r =
            run_mutex_clustered(&gpu, MutexKind::Cohort, 16, 128, cluster, 20, true, w).unwrap();
        assert_eq!(r.counter, 16 * 20);
    }
}
