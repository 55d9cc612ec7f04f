//! The cooperative octree and game kernels (`src/coop_cuda/octree.cu`, `game.cu`, work stealing
//! of `steal.cuh`) on CPU threads, one per group, with occupant's host stand-ins for coop.cuh's
//! includes (`crates/occupant/tests/coop_host/`), while a scheduler thread takes and gives back
//! groups over and over (`tests/coop_host_apps/steal_harness.cpp`); the outputs are checked
//! here against the sequential references (`coop::octree`, `coop::game`) with the decoders the
//! GPU runs use. Persistent and cooperative. Needs a C++20 compiler (`c++`); skips with one line
//! without one.

mod cxx;

use occupant_apps::coop::game::{sequential as game_sequential, GameParams};
use occupant_apps::coop::octree::{points, sequential, verify, OctreeParams};
use occupant_apps::coop_cuda::{combine_nodes, decode_leaves, game_root, GAME_CU, OCTREE_CU};
use std::path::{Path, PathBuf};
use std::process::Command;

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn read(p: &Path) -> Vec<u32> {
    std::fs::read(p)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Builds the harness; None (with one line) without a C++ compiler.
fn harness(dir: &Path) -> Option<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    let host = Path::new(env!("CARGO_MANIFEST_DIR")).join("../occupant/tests/coop_host");
    for f in ["memory.cuh", "watchdog.cuh", "poll.cuh", "occupant.cuh"] {
        std::fs::copy(host.join(f), dir.join(f)).unwrap();
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/coop_host_apps");
    std::fs::copy(
        here.join("steal_harness.cpp"),
        dir.join("steal_harness.cpp"),
    )
    .unwrap();
    std::fs::write(
        dir.join("coop.cuh"),
        occupant::cuda::header("coop.cuh").unwrap(),
    )
    .unwrap();
    std::fs::write(dir.join("octree.cu"), OCTREE_CU).unwrap();
    std::fs::write(dir.join("game.cu"), GAME_CU).unwrap();
    cxx::compile("coop_steal_protocol", dir, "steal_harness", &[])
}

fn run(exe: &Path, args: &[String]) -> u32 {
    let out = Command::new(exe).args(args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{args:?}: {text}");
    text.split_whitespace()
        .find_map(|w| w.strip_prefix("cycles="))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[test]
fn octree_and_game_on_cpu_threads_are_right_under_kill_fork_cycles() {
    let dir = std::env::temp_dir().join(format!("occupant-coop-steal-{}", std::process::id()));
    let Some(exe) = harness(&dir) else {
        return;
    };
    // Octree: 6 instances of 150 000 points.
    let p = OctreeParams {
        points: 150_000,
        max_points: 8,
        max_depth: 20,
        seed: 5,
    };
    let flat: Vec<u32> = points(p.points, p.seed)
        .into_iter()
        .flatten()
        .map(f32::to_bits)
        .collect();
    std::fs::write(dir.join("points.bin"), words(&flat)).unwrap();
    let reference = sequential(&p);
    let rounds = 6u32;
    for mode in ["0", "1"] {
        let out = dir.join(format!("octree{mode}.bin"));
        let cycles = run(
            &exe,
            &[
                "octree".into(),
                mode.into(),
                "8".into(),
                dir.join("points.bin").display().to_string(),
                p.points.to_string(),
                rounds.to_string(),
                p.max_points.to_string(),
                p.max_depth.to_string(),
                out.display().to_string(),
            ],
        );
        let w = read(&out);
        let total = p.points * rounds as usize;
        let (ctr, rest) = w.split_at(128);
        let (ids, leaves) = rest.split_at(total);
        let per = decode_leaves(leaves, ctr[65] as usize, ids, p.points, rounds).unwrap();
        for (r, l) in per.iter().enumerate() {
            verify(&p, l, &reference)
                .unwrap_or_else(|e| panic!("octree mode {mode} instance {r}: {e}"));
        }
        if mode == "1" {
            // The host is loaded: few cycles fit; the GPU test runs hundreds.
            assert!(cycles >= 1, "octree: no kill/fork cycle");
        }
    }
    // Game: 4 roots, depth 8, 3 plies of tasks.
    let gp = GameParams { depth: 8, split: 3 };
    let roots: Vec<u32> = (0..4u32)
        .flat_map(|r| {
            let (mine, all, moves) = game_root(r).bits();
            [
                mine as u32,
                (mine >> 32) as u32,
                all as u32,
                (all >> 32) as u32,
                moves,
                0,
                u32::MAX,
                0,
                0,
                0,
                0,
                0,
            ]
        })
        .collect();
    std::fs::write(dir.join("roots.bin"), words(&roots)).unwrap();
    for mode in ["0", "1"] {
        let out = dir.join(format!("game{mode}.bin"));
        let cycles = run(
            &exe,
            &[
                "game".into(),
                mode.into(),
                "8".into(),
                dir.join("roots.bin").display().to_string(),
                "4".into(),
                gp.depth.to_string(),
                gp.split.to_string(),
                out.display().to_string(),
            ],
        );
        let w = read(&out);
        let got = combine_nodes(&w[128..], w[64] as usize, 4).unwrap();
        for (r, g) in got.iter().enumerate() {
            assert_eq!(
                *g,
                game_sequential(&game_root(r as u32), &gp),
                "game mode {mode} root {r}"
            );
        }
        if mode == "1" {
            assert!(cycles >= 1, "game: no kill/fork cycle");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
