//! The cooperative BFS and SSSP kernels (`src/coop_cuda/bfs.cu`, `sssp.cu`) on CPU threads, one per group, with
//! occupant's host stand-ins for coop.cuh's includes (`crates/occupant/tests/coop_host/`), while
//! a scheduler thread takes and gives back groups over and over; every round is checked against
//! a sequential BFS / Dijkstra. Both resizing-barrier variants, each with the static and the
//! dynamic distribution of a phase's items. Needs a C++20 compiler (`c++`); skips with
//! one line without one.

mod cxx;

use std::path::Path;
use std::process::Command;

#[test]
fn coop_bfs_and_sssp_on_cpu_threads_are_right_under_kill_fork_cycles() {
    let dir = std::env::temp_dir().join(format!("occupant-coop-bfs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let host = Path::new(env!("CARGO_MANIFEST_DIR")).join("../occupant/tests/coop_host");
    for f in [
        "memory.cuh",
        "watchdog.cuh",
        "poll.cuh",
        "occupant.cuh",
        "scheduler.h",
        "bfs_harness.cpp",
    ] {
        std::fs::copy(host.join(f), dir.join(f)).unwrap();
    }
    std::fs::write(
        dir.join("coop.cuh"),
        occupant::cuda::header("coop.cuh").unwrap(),
    )
    .unwrap();
    std::fs::write(dir.join("bfs.cu"), occupant_apps::coop_cuda::BFS_CU).unwrap();
    std::fs::write(dir.join("sssp.cu"), occupant_apps::coop_cuda::SSSP_CU).unwrap();
    let Some(exe) = cxx::compile("coop_bfs_protocol", &dir, "bfs_harness", &[]) else {
        return;
    };
    // Modes 5 and 6: the same barriers with the dynamic distribution (loop.cuh: chunks claimed
    // from a counter per interval, zeroed by group 0 across the resizing barriers).
    for (app, rounds, mode) in [
        ("0", "1000", "1"),
        ("0", "1000", "2"),
        ("1", "150", "1"),
        ("1", "150", "2"),
        ("0", "1000", "5"),
        ("0", "1000", "6"),
        ("1", "150", "5"),
        ("1", "150", "6"),
        // | 8 (ids spread over the groups a warp at a time: the identity with one-thread
        // groups) | 16 (BFS: the batched expansion with one queue claim per four edges)
        ("0", "1000", "29"),
        ("0", "1000", "30"),
        ("1", "150", "30"),
        // | 32 (BFS: the batched expansion's loads with an L2 evict_last policy: plain loads
        // on the host).
        ("0", "1000", "62"),
        // | 64: the claim counters at lens[4..5] (the layout before, for comparisons).
        ("0", "1000", "70"),
    ] {
        let out = Command::new(&exe)
            .args([mode, "60", "40", rounds, app])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        println!("{text}{}", String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "app {app} mode {mode}: {text}");
        let cycles: u32 = text
            .split_whitespace()
            .find_map(|w| w.strip_prefix("cycles="))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        assert!(
            cycles >= 10,
            "app {app} mode {mode}: only {cycles} kill/fork cycles"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
