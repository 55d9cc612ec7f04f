//! The CUDA cooperative-kernel scheduler on a GPU (occupant::cuda::coop): kernels verified while
//! the scheduler repeatedly takes and returns groups, and a kernel that never offers a group
//! back. Skips with one line without a GPU; fails instead under OCCUPANT_REQUIRE_GPU=1.

mod common;

use occupant::cuda::coop::{CoopConfig, Lane, Scheduler, MATMUL_CU, SELFTEST_CU};
use occupant::cuda::{CompileOptions, Gpu, LaunchConfig};
use occupant::model::Watchdog;
use occupant::Error;
use std::time::Duration;

fn eager() {
    // Kernels launched beside a running one must not load lazily (see docs, GPU.md).
    std::env::set_var("CUDA_MODULE_LOADING", "EAGER");
}

struct Totals {
    cycles: u32,
    killed: u32,
    forked: u32,
    max_gather_us: f64,
}

/// Runs coop_rounds once while taking and giving back groups; verifies every interval.
fn run_rounds(gpu: &Gpu, query: bool, rounds: u32, t: &mut Totals) {
    let m = gpu
        .compile("coop_selftest.cu", SELFTEST_CU, &CompileOptions::default())
        .unwrap();
    let cfg =
        CoopConfig::new(128).watchdog(Watchdog::default().with_timeout(Duration::from_secs(2)));
    let n_max = gpu.info().sm_count * 2;
    let cfg = cfg.groups(n_max);
    let count = gpu.alloc_zeroed::<u32>(rounds as usize).unwrap();
    let idsum = gpu.alloc_zeroed::<u64>(rounds as usize).unwrap();
    let ms = gpu.alloc_zeroed::<u32>(rounds as usize).unwrap();
    let stride = 4096u32;
    let data = gpu.alloc_zeroed::<u32>(2 * stride as usize).unwrap();
    let errors = gpu.alloc_zeroed::<u32>(1).unwrap();
    let args = occupant::args![
        rounds,
        &count,
        &idsum,
        &ms,
        &data,
        stride,
        &errors,
        2000u32,
        u32::from(query)
    ];
    let mut s = Scheduler::start(&m, "coop_rounds", &cfg, &args).unwrap();
    let n = s.groups();
    let shares = [1, n / 4, n / 2, n - 1];
    let mut i = 0usize;
    while !s.work_finished() {
        let k = shares[i % shares.len()];
        i += 1;
        let g = s.take(k, Duration::from_secs(2)).expect("gather");
        if g.kernel_finished {
            break;
        }
        assert_eq!(g.gathered, k.min(g.active_before - 1));
        t.max_gather_us = t.max_gather_us.max(g.micros);
        s.give_back(g.gathered).unwrap();
        t.cycles += 1;
    }
    let rep = s.finish(Duration::from_secs(20)).unwrap();
    t.killed += rep.killed;
    t.forked += rep.forked;
    assert_eq!(
        rep.forked + rep.joiners_exited,
        rep.joiners_launched,
        "{rep:?}"
    );
    assert_eq!(errors.to_vec().unwrap()[0], 0, "errors: {rep:?}");
    let (c, sum, msv) = (
        count.to_vec().unwrap(),
        idsum.to_vec().unwrap(),
        ms.to_vec().unwrap(),
    );
    for r in 0..rounds as usize {
        let m = u64::from(msv[r]);
        assert!(m >= 1 && m <= u64::from(n), "round {r}: m = {m}");
        assert_eq!(
            u64::from(c[r]),
            m,
            "round {r}: {} groups counted, m = {m}",
            c[r]
        );
        assert_eq!(sum[r], m * (m - 1) / 2, "round {r}: ids not contiguous");
    }
}

#[test]
fn groups_taken_and_returned_1000_times_with_correct_results() {
    eager();
    let Some(gpu) = common::gpu_or_skip("groups_taken_and_returned") else {
        return;
    };
    for query in [false, true] {
        let mut t = Totals {
            cycles: 0,
            killed: 0,
            forked: 0,
            max_gather_us: 0.0,
        };
        let mut launches = 0;
        while t.cycles < 1000 && launches < 50 {
            run_rounds(&gpu, query, 20_000, &mut t);
            launches += 1;
        }
        common::record(
            &format!("coop_cycles_{}", if query { "query" } else { "regular" }),
            serde_json::json!({"cycles": t.cycles, "killed": t.killed, "forked": t.forked,
                "launches": launches, "max_gather_us": t.max_gather_us, "wrong_results": 0}),
        );
        assert!(t.cycles >= 1000, "only {} kill/fork cycles", t.cycles);
        assert!(t.killed >= 1000 && t.forked >= 1000);
    }
}

#[test]
fn a_kernel_that_never_offers_groups_gives_a_timeout_error_and_the_context_stays_usable() {
    eager();
    let Some(gpu) = common::gpu_or_skip("never_offers") else {
        return;
    };
    let m = gpu
        .compile("coop_selftest.cu", SELFTEST_CU, &CompileOptions::default())
        .unwrap();
    let out = gpu.alloc_zeroed::<u32>(1).unwrap();
    let args = occupant::args![300_000_000u64, &out];
    let mut s =
        Scheduler::start(&m, "coop_selfish", &CoopConfig::new(128).groups(64), &args).unwrap();
    let e = s.take(16, Duration::from_millis(100)).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::Resource(_)), "{e}");
    assert!(msg.contains("gathered 0 of 16"), "{msg}");
    println!("{msg}");
    let rep = s.finish(Duration::from_secs(10)).unwrap();
    assert_eq!(rep.killed, 0);
    assert_eq!(out.to_vec().unwrap()[0], 64);
    // The context is usable: an ordinary launch and a matmul on a lane.
    let sm = gpu
        .compile(
            "selftest.cu",
            occupant::cuda::SELFTEST_CU,
            &CompileOptions::default(),
        )
        .unwrap();
    let _ = sm; // compiled and loaded after the cooperative launch
    let mm = gpu
        .compile("matmul.cu", MATMUL_CU, &CompileOptions::default())
        .unwrap();
    let n = 128usize;
    let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32 - 2.0).collect();
    let (da, db) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
    let dc = gpu.alloc_zeroed::<f32>(n * n).unwrap();
    let stamps = gpu.upload(&[u64::MAX, 0]).unwrap();
    let lane = Lane::new(&gpu, None).unwrap();
    lane.launch(
        &mm,
        "matmul",
        3,
        256,
        0,
        &occupant::args![&da, &db, &dc, n as u32, &stamps],
    )
    .unwrap();
    lane.synchronize(Duration::from_secs(5)).unwrap();
    let c = dc.to_vec().unwrap();
    for (i, j) in [(0, 0), (5, 77), (127, 127), (64, 3)] {
        let want: f32 = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
        assert_eq!(c[i * n + j], want, "C[{i},{j}]");
    }
    let st = stamps.to_vec().unwrap();
    assert!(st[1] > st[0], "{st:?}");
    let _ = LaunchConfig::plain(1, 1);
}

#[test]
fn work_stealing_tasks_each_run_once_while_groups_come_and_go() {
    eager();
    let Some(gpu) = common::gpu_or_skip("work_stealing_tasks") else {
        return;
    };
    let m = gpu
        .compile("coop_selftest.cu", SELFTEST_CU, &CompileOptions::default())
        .unwrap();
    let tasks = 1_000_000u32;
    let next = gpu.alloc_zeroed::<u32>(1).unwrap();
    let done = gpu.alloc_zeroed::<u32>(tasks as usize).unwrap();
    let out = gpu.alloc_zeroed::<u64>(tasks as usize).unwrap();
    let args = occupant::args![tasks, &next, &done, &out, 10_000u32];
    let cfg = CoopConfig::new(128).groups(gpu.info().sm_count * 2);
    let mut s = Scheduler::start(&m, "coop_tasks", &cfg, &args).unwrap();
    let n = s.groups();
    let shares = [1, n / 4, n / 2, n - 1];
    let mut cycles = 0usize;
    loop {
        let g = s
            .take(shares[cycles % 4], Duration::from_secs(2))
            .expect("gather");
        if g.kernel_finished {
            break;
        }
        s.give_back(g.gathered).unwrap();
        cycles += 1;
    }
    let rep = s.finish(Duration::from_secs(20)).unwrap();
    let (d, o) = (done.to_vec().unwrap(), out.to_vec().unwrap());
    let wrong = (0..tasks as usize)
        .filter(|&t| d[t] != 1 || o[t] != (t as u64) * (t as u64) + 1)
        .count();
    common::record(
        "coop_tasks",
        serde_json::json!({"cycles": cycles, "killed": rep.killed, "forked": rep.forked, "wrong_tasks": wrong}),
    );
    assert_eq!(wrong, 0, "{rep:?}");
    assert!(cycles >= 10, "only {cycles} cycles: {rep:?}");
}
