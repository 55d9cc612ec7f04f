//! GPU tests of the fork-join device library (`occ::fj`): the semantics program of
//! `tests/cpu_forkjoin.rs` on the GPU, and the debug mode turning a missing arrival into
//! `Error::Deadlock`. Skip without a GPU (fail under OCCUPANT_REQUIRE_GPU=1).

mod common;

use common::{gpu_or_skip, record};
use occupant::args;
use occupant::cuda::{forkjoin, CompileOptions, LaunchConfig};
use occupant::model::forkjoin::{expected_semantics, SEMANTICS_HITS};
use occupant::model::Watchdog;
use occupant::Error;
use serde_json::json;
use std::time::Duration;

#[test]
fn semantics_match_the_cpu_twin() {
    let Some(gpu) = gpu_or_skip("semantics_match_the_cpu_twin") else {
        return;
    };
    check_semantics(&gpu, false);
}

/// The same with blocks of 32 W + 1 threads: the master warp is one thread.
#[test]
fn semantics_match_the_cpu_twin_with_a_one_thread_master_warp() {
    let Some(gpu) = gpu_or_skip("semantics_match_the_cpu_twin_with_a_one_thread_master_warp")
    else {
        return;
    };
    check_semantics(&gpu, true);
}

/// The same under the device library's opt-in protocol variant (`OCC_FJ_LONE_INLINE`,
/// docs/FORKJOIN.md), both shapes.
#[test]
fn semantics_match_the_cpu_twin_under_the_protocol_variants() {
    let Some(gpu) = gpu_or_skip("semantics_match_the_cpu_twin_under_the_protocol_variants") else {
        return;
    };
    let defines = ["OCC_FJ_LONE_INLINE=1".to_string()];
    for lone in [false, true] {
        check_semantics_with(&gpu, lone, &defines);
    }
}

/// Forks that repeat, change or alternate their descriptors (`fj_descriptors`), in every shape
/// and protocol variant: a worker must never run a stale region, a reduction never mix
/// operators or buffers.
#[test]
fn repeated_and_alternating_descriptors_run_the_right_region() {
    let Some(gpu) = gpu_or_skip("repeated_and_alternating_descriptors_run_the_right_region") else {
        return;
    };
    for defines in [&[][..], &["OCC_FJ_LONE_INLINE=1"][..]] {
        let opts = CompileOptions {
            options: defines.iter().map(|d| format!("-D{d}")).collect(),
            ..CompileOptions::default()
        };
        let m = gpu
            .compile("forkjoin_tests.cu", forkjoin::TESTS_CU, &opts)
            .unwrap();
        for lone in [false, true] {
            for (warps, n_small) in [(1usize, 7u32), (2, 40), (31, 100), (8, 256)] {
                let blocks = 2usize;
                let out = gpu.alloc_zeroed::<i64>(blocks * 16).unwrap();
                let threads = if lone {
                    32 * warps + 1
                } else {
                    32 * (warps + 1)
                };
                m.launch(
                    "fj_descriptors",
                    &LaunchConfig::plain(blocks, threads),
                    &args![&out, n_small],
                )
                .unwrap();
                let all = 32 * warps as i64;
                let small = (n_small as i64).min(all);
                let odd = |n: i64| n / 2; // threads with an odd number
                let want = [
                    all,
                    all,
                    2 * all,
                    7 * all + odd(all),
                    2 * all,
                    2 * small,
                    1,
                    2 * small,
                    2,
                    10 * (11 * all + odd(all)),
                    12 * all + odd(all),
                    2,
                    12 * all + odd(all),
                    -3,
                    -3 * all,
                    -3,
                ];
                let got = out.to_vec().unwrap();
                for b in 0..blocks {
                    assert_eq!(
                        &got[b * 16..(b + 1) * 16],
                        &want[..],
                        "warps {warps}, n_small {n_small}, lone {lone}, block {b}, defines {defines:?}"
                    );
                }
            }
        }
    }
}

fn check_semantics(gpu: &occupant::cuda::Gpu, lone: bool) {
    check_semantics_with(gpu, lone, &[]);
}

fn check_semantics_with(gpu: &occupant::cuda::Gpu, lone: bool, defines: &[String]) {
    for (blocks, warps, n_small) in [(4usize, 2usize, 40u32), (2, 31, 40), (3, 1, 7), (2, 8, 200)] {
        let s = forkjoin::semantics_with(gpu, blocks, warps, n_small, lone, defines).unwrap();
        let want = expected_semantics(32 * warps as i64, n_small as i64);
        for (b, got) in s.values.iter().enumerate() {
            assert_eq!(
                got, &want,
                "warps {warps}, n_small {n_small}, block {b}, defines {defines:?}"
            );
        }
        for (b, h) in s.hits.iter().enumerate() {
            for (k, &v) in h.iter().enumerate() {
                let e = if k < 2 * SEMANTICS_HITS { 1 } else { 2 };
                assert_eq!(
                    v, e,
                    "warps {warps}, block {b}, iteration counter {k}, defines {defines:?}"
                );
            }
        }
        record(
            &format!(
                "gpu_forkjoin_semantics_w{warps}_n{n_small}{}{}",
                if lone { "_lone" } else { "" },
                defines
                    .iter()
                    .map(|d| format!("_{}", d.to_lowercase().replace('=', "")))
                    .collect::<String>()
            ),
            json!({"blocks": blocks, "warps": warps, "n_small": n_small, "lone_master": lone,
                   "values": s.values[0]}),
        );
    }
}

#[test]
fn debug_mode_turns_a_missing_arrival_into_a_deadlock() {
    let Some(gpu) = gpu_or_skip("debug_mode_turns_a_missing_arrival_into_a_deadlock") else {
        return;
    };
    let m = gpu
        .compile(
            "forkjoin_debug.cu",
            include_str!("../src/cuda/kernels/forkjoin_debug.cu"),
            &CompileOptions::default(),
        )
        .unwrap();
    let out = gpu.alloc_zeroed::<i32>(2).unwrap();
    let cfg = LaunchConfig::plain(1, 96)
        .watchdog(Watchdog::default().with_timeout(Duration::from_millis(100)));
    m.launch("fj_debug", &cfg, &args![-1i32, &out]).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![1, 64]);
    let e = m.launch("fj_debug", &cfg, &args![3i32, &out]).unwrap_err();
    assert!(
        matches!(e, Error::Deadlock { ref primitive, .. } if primitive == "fork_join"),
        "{e}"
    );
    // The context stays usable.
    m.launch("fj_debug", &cfg, &args![-1i32, &out]).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![1, 64]);
}
