//! GPU tests of the CUDA backend. Without a GPU they skip with one line each; with
//! OCCUPANT_REQUIRE_GPU=1 (the GPU loop, scripts/gpu-loop.sh) a missing GPU fails them.
//! Measured figures are printed and, with OCCUPANT_RESULTS_DIR set, written there as JSON.

mod common;

use common::{gpu_or_skip, record};
use occupant::args;
use occupant::cuda::{CompileOptions, Gpu, LaunchConfig, LaunchMode, Module, SELFTEST_CU};
use occupant::model::Watchdog;
use occupant::Error;
use serde_json::json;
use std::time::{Duration, Instant};

fn selftest(gpu: &Gpu) -> Module {
    gpu.compile("selftest.cu", SELFTEST_CU, &CompileOptions::default())
        .expect("selftest.cu compiles")
}

#[test]
fn no_driver_gives_no_device_not_a_panic() {
    if occupant::cuda::probe::driver_present() {
        eprintln!("skipping no_driver_gives_no_device_not_a_panic: a CUDA driver is present");
        return;
    }
    match Gpu::open(0) {
        Err(Error::NoDevice { reason }) => assert!(reason.contains("libcuda"), "{reason}"),
        Err(e) => panic!("expected NoDevice, got {e}"),
        Ok(_) => panic!("opened a GPU without a driver"),
    }
}

#[test]
fn buffers_arguments_and_plain_launch() {
    let Some(gpu) = gpu_or_skip("buffers_arguments_and_plain_launch") else {
        return;
    };
    let m = selftest(&gpu);
    let n = 1000u32;
    let data: Vec<u32> = (0..n).collect();
    let buf = gpu.upload(&data).unwrap();
    let r = m
        .launch(
            "occ_add",
            &LaunchConfig::plain(8, 128),
            &args![&buf, n, 5u32],
        )
        .unwrap();
    assert_eq!(r.blocks, 8);
    assert_eq!(
        buf.to_vec().unwrap(),
        data.iter().map(|x| x + 5).collect::<Vec<_>>()
    );
    // Argument checks against the kernel's parameters.
    let e = m
        .launch("occ_add", &LaunchConfig::plain(1, 32), &args![&buf, n])
        .unwrap_err();
    assert!(
        matches!(e, Error::InvalidLaunch(ref s) if s.contains("takes 3")),
        "{e}"
    );
    let e = m
        .launch(
            "occ_add",
            &LaunchConfig::plain(1, 32),
            &args![&buf, n as u64, 1u32],
        )
        .unwrap_err();
    assert!(
        matches!(e, Error::InvalidLaunch(ref s) if s.contains("parameter 1")),
        "{e}"
    );
    let e = m
        .launch("no_such_kernel", &LaunchConfig::plain(1, 32), &[])
        .unwrap_err();
    assert!(matches!(e, Error::InvalidLaunch(_)), "{e}");
    // A compile error on the GPU path carries NVRTC's log.
    let e = gpu
        .compile(
            "bad.cu",
            "extern \"C\" __global__ void k() { nope(); }",
            &CompileOptions::default(),
        )
        .unwrap_err();
    assert!(
        matches!(e, Error::Compile { ref log, .. } if log.contains("bad.cu(1)")),
        "{e}"
    );
}

#[test]
fn every_helper_runs() {
    let Some(gpu) = gpu_or_skip("every_helper_runs") else {
        return;
    };
    let m = selftest(&gpu);
    let u = gpu.alloc_zeroed::<u32>(16).unwrap();
    let w = gpu.alloc_zeroed::<u64>(8).unwrap();
    let h = gpu.alloc_zeroed::<u32>(1).unwrap(); // device memory is valid for .sys scope too
    m.launch(
        "occ_helpers",
        &LaunchConfig::plain(2, 64),
        &args![&u, &w, &h],
    )
    .unwrap();
    let u = u.to_vec().unwrap();
    assert_eq!(u[0], 128, "atomic_add_acquire from 128 threads");
    assert_eq!(u[1], 128, "atomic_add_release from 128 threads");
    assert_eq!(w.to_vec().unwrap()[2], 128, "64-bit atomic_add_acq_rel");
}

#[test]
fn message_passing_stress_has_no_violation() {
    let Some(gpu) = gpu_or_skip("message_passing_stress_has_no_violation") else {
        return;
    };
    let m = selftest(&gpu);
    let (rounds, words) = (100_000u32, 8u32);
    let flag = gpu.alloc_zeroed::<u32>(32).unwrap();
    let ack = gpu.alloc_zeroed::<u32>(32).unwrap();
    let data = gpu.alloc_zeroed::<u32>(words as usize * 32).unwrap();
    let bad = gpu.alloc_zeroed::<u32>(1).unwrap();
    let cfg = LaunchConfig::plain(2, 32)
        .watchdog(Watchdog::default().with_timeout(Duration::from_secs(2)))
        .count_spins();
    let r = m
        .launch(
            "occ_message_passing",
            &cfg,
            &args![&flag, &ack, &data, words, rounds, &bad],
        )
        .unwrap();
    let violations = bad.to_vec().unwrap()[0];
    assert_eq!(
        flag.to_vec().unwrap()[0],
        rounds,
        "producer finished every round"
    );
    assert_eq!(
        ack.to_vec().unwrap()[0],
        rounds,
        "consumer finished every round"
    );
    record(
        "gpu_message_passing",
        json!({ "device": gpu.info().name, "rounds": rounds, "words_per_round": words, "violations": violations,
                "elapsed_ms": r.elapsed_us / 1e3, "round_trip_us": r.elapsed_us / rounds as f64, "spins": r.spins }),
    );
    assert_eq!(violations, 0);
}

#[test]
fn watchdog_turns_a_deadlock_into_an_error_and_the_context_survives() {
    let Some(gpu) = gpu_or_skip("watchdog_turns_a_deadlock_into_an_error_and_the_context_survives")
    else {
        return;
    };
    let m = selftest(&gpu);
    let threads = 128u32;
    let per_sm = m
        .max_active_blocks_per_sm("occ_naive_barrier", threads, 0)
        .unwrap() as usize;
    let resident = per_sm * gpu.info().sm_count as usize;
    let count = gpu.alloc_zeroed::<u32>(1).unwrap();
    let done = gpu.alloc_zeroed::<u32>(1).unwrap();
    let w = Watchdog::default().with_timeout(Duration::from_millis(500));
    let cfg = LaunchConfig::plain(2 * resident, threads as usize).watchdog(w);
    let t0 = Instant::now();
    let e = m
        .launch("occ_naive_barrier", &cfg, &args![&count, &done])
        .unwrap_err();
    let detected = t0.elapsed();
    match &e {
        Error::Deadlock {
            primitive,
            waiting,
            timeout_ms,
            ..
        } => {
            assert_eq!(primitive, "naive_barrier");
            assert_eq!(*timeout_ms, 500);
            assert!(!waiting.is_empty());
            assert!(waiting.iter().all(|w| w.group < 2 * resident));
            // The block whose wait expired is named with its primitive; the others that were
            // waiting (occ_waiting) as aborted waits.
            assert!(waiting.iter().any(|w| w.primitive == "naive_barrier"));
        }
        other => panic!("expected a deadlock, got {other}"),
    }
    assert!(detected < Duration::from_secs(2), "took {detected:?}");
    let passed_while_deadlocked = done.to_vec().unwrap()[0];
    // The context is still usable: the same barrier over the co-resident grid passes.
    let mut count = count;
    count.zero().unwrap();
    let mut done = done;
    done.zero().unwrap();
    let ok = m
        .launch(
            "occ_naive_barrier",
            &LaunchConfig::new(LaunchMode::OccupancyApi, threads as usize).watchdog(w),
            &args![&count, &done],
        )
        .unwrap();
    assert_eq!(ok.blocks, resident);
    assert_eq!(done.to_vec().unwrap()[0] as usize, resident);
    record(
        "gpu_watchdog",
        json!({ "device": gpu.info().name, "resident_blocks": resident, "launched_blocks": 2 * resident,
                "timeout_ms": 500, "detected_ms": detected.as_secs_f64() * 1e3, "error": e.to_string(),
                "blocks_passed_barrier": passed_while_deadlocked,
                "groups_named_waiting": match &e { Error::Deadlock { waiting, .. } => waiting.len(), _ => 0 },
                "after_recovery": { "blocks": ok.blocks, "elapsed_us": ok.elapsed_us } }),
    );
}

#[test]
fn occupancy_and_cooperative_grids_match_the_device() {
    let Some(gpu) = gpu_or_skip("occupancy_and_cooperative_grids_match_the_device") else {
        return;
    };
    let m = selftest(&gpu);
    let info = gpu.info().clone();
    let count = gpu.alloc_zeroed::<u32>(1).unwrap();
    let done = gpu.alloc_zeroed::<u32>(1).unwrap();
    let mut rows = Vec::new();
    for threads in [32usize, 128, 256, 1024] {
        let per_sm = m
            .max_active_blocks_per_sm("occ_empty", threads as u32, 0)
            .unwrap();
        let occ = m
            .launch(
                "occ_empty",
                &LaunchConfig::new(LaunchMode::OccupancyApi, threads),
                &[],
            )
            .unwrap();
        let coop = m
            .launch(
                "occ_empty",
                &LaunchConfig::new(LaunchMode::Cooperative, threads),
                &[],
            )
            .unwrap();
        let expect = per_sm as usize * info.sm_count as usize;
        assert_eq!(occ.blocks, expect);
        assert_eq!(coop.blocks, expect);
        assert!(expect <= info.resident_blocks_bound(threads as u32) as usize);
        rows.push(json!({ "threads": threads, "blocks_per_sm": per_sm, "occupancy_api_grid": occ.blocks,
                          "cooperative_grid": coop.blocks, "hardware_bound": info.resident_blocks_bound(threads as u32) }));
    }
    // A cooperative grid larger than co-resident is refused before the driver sees it.
    let too_big = LaunchConfig::new(LaunchMode::Cooperative, 1024).grid(100_000);
    assert!(matches!(
        m.launch("occ_empty", &too_big, &[]),
        Err(Error::InvalidLaunch(_))
    ));
    // A discovery launch of a kernel that never runs the protocol is an error.
    assert!(matches!(
        m.launch(
            "occ_empty",
            &LaunchConfig::new(LaunchMode::Discovery, 128),
            &[]
        ),
        Err(Error::InvalidLaunch(_))
    ));
    let _ = (count, done);
    record(
        "gpu_grids",
        json!({ "device": info.name, "sm_count": info.sm_count, "rows": rows }),
    );
}

#[test]
fn host_deadline_aborts_a_kernel_that_outlives_it() {
    let Some(gpu) = gpu_or_skip("host_deadline_aborts_a_kernel_that_outlives_it") else {
        return;
    };
    let m = selftest(&gpu);
    let count = gpu.alloc_zeroed::<u32>(1).unwrap();
    let done = gpu.alloc_zeroed::<u32>(1).unwrap();
    // Two blocks wait for three: only the host deadline (200 ms) can end it before the 10 s watchdog.
    let cfg = LaunchConfig::plain(2, 32)
        .watchdog(Watchdog::default().with_timeout(Duration::from_secs(10)))
        .host_deadline(Duration::from_millis(200));
    let mut count = count;
    count.copy_from(&[u32::MAX]).unwrap(); // the two arrivals wrap it to 1: never >= 2
    let t0 = Instant::now();
    let e = m
        .launch("occ_naive_barrier", &cfg, &args![&count, &done])
        .unwrap_err();
    assert!(
        matches!(e, Error::Deadlock { ref primitive, .. } if primitive == "host_abort"),
        "{e}"
    );
    assert!(t0.elapsed() < Duration::from_secs(2));
}
