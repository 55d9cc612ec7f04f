//! The cooperative BFS on a GPU, verified against a sequential BFS while the scheduler takes
//! groups from it and gives them back over and over (≥ 1000 kill/fork cycles per barrier
//! variant), with a matmul of ours running in the taken slots every tenth cycle. Skips with one
//! line without a GPU; fails instead under OCCUPANT_REQUIRE_GPU=1.

use occupant::cuda::coop::{CoopConfig, Lane, MATMUL_CU};
use occupant::cuda::{CompileOptions, Gpu};
use occupant::model::Watchdog;
use occupant::Error;
use occupant_apps::coop_cuda::{BarrierMode, GpuBfs};
use occupant_apps::graph::{BuildOptions, GraphSpec};
use std::time::Duration;

fn gpu_or_skip(test: &str) -> Option<Gpu> {
    std::env::set_var("CUDA_MODULE_LOADING", "EAGER");
    match Gpu::open(0) {
        Ok(g) => Some(g),
        Err(e @ Error::NoDevice { .. })
            if std::env::var("OCCUPANT_REQUIRE_GPU").as_deref() != Ok("1") =>
        {
            eprintln!("skipping {test}: {e}");
            None
        }
        Err(e) => panic!("{test}: {e}"),
    }
}

#[test]
fn bfs_correct_under_1000_kill_fork_cycles() {
    let Some(gpu) = gpu_or_skip("bfs_correct_under_1000_kill_fork_cycles") else {
        return;
    };
    let spec: GraphSpec = "grid:300x300".parse().unwrap();
    let g = spec
        .generate()
        .unwrap()
        .to_csr(&BuildOptions::undirected_simple())
        .unwrap();
    let sources = [0u32, 4567, 89_999, 45_150];
    let mut bfs = GpuBfs::new(&gpu, &g, &sources, 40).unwrap();
    let mm = gpu
        .compile("matmul.cu", MATMUL_CU, &CompileOptions::default())
        .unwrap();
    let n = 256u32;
    let a = gpu.upload(&vec![1.0f32; (n * n) as usize]).unwrap();
    let c = gpu.alloc_zeroed::<f32>((n * n) as usize).unwrap();
    let stamps = gpu.upload(&[u64::MAX, 0]).unwrap();
    let lane = Lane::new(&gpu, None).unwrap();
    let cfg = CoopConfig::new(256)
        .groups(gpu.info().sm_count * 2)
        .watchdog(Watchdog::default().with_timeout(Duration::from_secs(3)));
    for mode in [BarrierMode::Regular, BarrierMode::Query] {
        let (mut cycles, mut launches, mut killed, mut forked) = (0u32, 0, 0, 0);
        while cycles < 1000 && launches < 60 {
            let mut s = bfs.start(mode, &cfg).unwrap();
            let total = s.groups();
            let shares = [1, total / 4, total / 2, total - 1];
            let mut i = 0;
            loop {
                let k = shares[i % 4];
                i += 1;
                let got = s.take(k, Duration::from_secs(3)).unwrap();
                if got.kernel_finished {
                    break;
                }
                if i % 10 == 0 && got.gathered > 0 {
                    lane.launch(
                        &mm,
                        "matmul",
                        got.gathered,
                        256,
                        0,
                        &occupant::args![&a, &a, &c, n, &stamps],
                    )
                    .unwrap();
                    lane.synchronize(Duration::from_secs(5)).unwrap();
                }
                s.give_back(got.gathered).unwrap();
                cycles += 1;
            }
            let rep = s.finish(Duration::from_secs(30)).unwrap();
            killed += rep.killed;
            forked += rep.forked;
            launches += 1;
            assert_eq!(
                bfs.wrong_rounds().unwrap(),
                0,
                "{mode:?}: wrong BFS results, {rep:?}"
            );
        }
        println!("{mode:?}: {cycles} cycles, {killed} killed, {forked} forked, {launches} launches, 0 wrong");
        assert!(cycles >= 1000, "{mode:?}: only {cycles} cycles");
        assert!(killed >= 1000 && forked >= 1000);
    }
    // The product is right too: every entry of A·A with A all ones is n.
    assert!(c.to_vec().unwrap().iter().all(|&x| x == n as f32));
}
