//! coop.cuh's protocol (the CUDA cooperative-kernel extensions) on CPU threads: the real header
//! with host stand-ins for its three includes (`tests/coop_host/`), one thread per group, a
//! scheduler thread taking and giving back groups over and over (`coop_host/scheduler.h`),
//! every interval checked (contiguous ids, barrier ordering, transmitted values). The stand-in
//! `.sys` accesses take as long as a PCIe round trip, which is what let a forked group run
//! ahead of its barrier before (seen on an H100; the protocol now publishes forks after the
//! release). Needs a C++20 compiler (`c++`); skips with one line without one.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Copies every stand-in of `tests/coop_host/`, coop.cuh and the self-test kernels into a
/// fresh directory and compiles `harness` there. `None` (after one line) without a compiler.
fn build(harness: &str) -> Option<(PathBuf, PathBuf)> {
    let dir =
        std::env::temp_dir().join(format!("occupant-coop-{}-{}", harness, std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/coop_host");
    for e in std::fs::read_dir(&here).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    std::fs::write(
        dir.join("coop.cuh"),
        occupant::cuda::header("coop.cuh").expect("coop.cuh is embedded"),
    )
    .unwrap();
    std::fs::write(
        dir.join("coop_selftest.cu"),
        occupant::cuda::coop::SELFTEST_CU,
    )
    .unwrap();
    let exe = dir.join(harness);
    let out = match Command::new("c++")
        .args(["-std=c++20", "-O1", "-pthread", "-I"])
        .arg(&dir)
        .arg("-o")
        .arg(&exe)
        .arg(dir.join(format!("{harness}.cpp")))
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipping {harness}: no C++ compiler ({e})");
            return None;
        }
    };
    assert!(
        out.status.success(),
        "{harness}.cpp did not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some((dir, exe))
}

/// Runs `exe args`, asserts exit 0 and at least `min_cycles` kill/fork cycles.
fn run(exe: &Path, args: &[&str], min_cycles: u32) {
    let out = Command::new(exe).args(args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{args:?}: {text}");
    let cycles: u32 = text
        .split_whitespace()
        .find_map(|w| w.strip_prefix("cycles="))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    assert!(
        cycles >= min_cycles,
        "{args:?}: only {cycles} kill/fork cycles"
    );
}

#[test]
fn kill_fork_cycles_keep_ids_contiguous_and_data_ordered() {
    let Some((dir, exe)) = build("harness") else {
        return;
    };
    for query in ["0", "1"] {
        run(&exe, &[query, "30000"], 20);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn work_stealing_with_offer_kill_and_request_fork_runs_every_task_once() {
    let Some((dir, exe)) = build("tasks_harness") else {
        return;
    };
    run(&exe, &["200000", "4"], 5);
    let _ = std::fs::remove_dir_all(&dir);
}
