//! coop.cuh's protocol (the CUDA cooperative-kernel extensions) on CPU threads: the real header
//! with host stand-ins for its three includes (`tests/coop_host/`), one thread per group, a
//! scheduler thread taking and giving back groups over and over, every interval checked
//! (contiguous ids, barrier ordering, transmitted values). The stand-in `.sys` accesses take as
//! long as a PCIe round trip, which is what let a forked group run ahead of its barrier before
//! (seen on an H100; the protocol now publishes forks after the release). Needs a C++20
//! compiler (`c++`); skips with one line without one.

use std::path::Path;
use std::process::Command;

fn build(dir: &Path) -> Option<std::path::PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/coop_host");
    for f in ["memory.cuh", "watchdog.cuh", "poll.cuh", "harness.cpp"] {
        std::fs::copy(here.join(f), dir.join(f)).unwrap();
    }
    std::fs::write(
        dir.join("coop.cuh"),
        occupant::cuda::header("coop.cuh").expect("coop.cuh is embedded"),
    )
    .unwrap();
    let exe = dir.join("harness");
    let out = match Command::new("c++")
        .args(["-std=c++20", "-O1", "-pthread", "-o"])
        .arg(&exe)
        .arg(dir.join("harness.cpp"))
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipping coop_protocol: no C++ compiler ({e})");
            return None;
        }
    };
    assert!(
        out.status.success(),
        "harness.cpp did not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(exe)
}

#[test]
fn kill_fork_cycles_keep_ids_contiguous_and_data_ordered() {
    let dir = std::env::temp_dir().join(format!("occupant-coop-protocol-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let Some(exe) = build(&dir) else {
        return;
    };
    for query in ["0", "1"] {
        let out = Command::new(&exe).args([query, "30000"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        println!("{text}{}", String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "query={query}: {text}");
        let cycles: u32 = text
            .split_whitespace()
            .find_map(|w| w.strip_prefix("cycles="))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        assert!(
            cycles >= 20,
            "query={query}: only {cycles} kill/fork cycles"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn work_stealing_with_offer_kill_and_request_fork_runs_every_task_once() {
    let dir = std::env::temp_dir().join(format!("occupant-coop-tasks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/coop_host");
    for f in [
        "memory.cuh",
        "watchdog.cuh",
        "poll.cuh",
        "occupant.cuh",
        "tasks_harness.cpp",
    ] {
        std::fs::copy(here.join(f), dir.join(f)).unwrap();
    }
    std::fs::write(
        dir.join("coop.cuh"),
        occupant::cuda::header("coop.cuh").unwrap(),
    )
    .unwrap();
    std::fs::write(
        dir.join("coop_selftest.cu"),
        occupant::cuda::coop::SELFTEST_CU,
    )
    .unwrap();
    let exe = dir.join("tasks_harness");
    let out = match Command::new("c++")
        .args(["-std=c++20", "-O1", "-pthread", "-I"])
        .arg(&dir)
        .arg("-o")
        .arg(&exe)
        .arg(dir.join("tasks_harness.cpp"))
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipping work_stealing: no C++ compiler ({e})");
            return;
        }
    };
    assert!(
        out.status.success(),
        "tasks_harness.cpp did not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe).args(["200000", "4"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    let cycles: u32 = text
        .split_whitespace()
        .find_map(|w| w.strip_prefix("cycles="))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    assert!(cycles >= 5, "only {cycles} kill/fork cycles");
    let _ = std::fs::remove_dir_all(&dir);
}
