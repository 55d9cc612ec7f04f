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

fn check_semantics(gpu: &occupant::cuda::Gpu, lone: bool) {
    for (blocks, warps, n_small) in [(4usize, 2usize, 40u32), (2, 31, 40), (3, 1, 7), (2, 8, 200)] {
        let s = forkjoin::semantics_shape(gpu, blocks, warps, n_small, lone).unwrap();
        let want = expected_semantics(32 * warps as i64, n_small as i64);
        for (b, got) in s.values.iter().enumerate() {
            assert_eq!(got, &want, "warps {warps}, n_small {n_small}, block {b}");
        }
        for (b, h) in s.hits.iter().enumerate() {
            for (k, &v) in h.iter().enumerate() {
                let e = if k < 2 * SEMANTICS_HITS { 1 } else { 2 };
                assert_eq!(v, e, "warps {warps}, block {b}, iteration counter {k}");
            }
        }
        record(
            &format!(
                "gpu_forkjoin_semantics_w{warps}_n{n_small}{}",
                if lone { "_lone" } else { "" }
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
