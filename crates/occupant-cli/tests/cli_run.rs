//! `occupant run <app>` end to end.

mod common;
use common::occupant;

#[test]
fn every_app_runs_verified_with_output_and_json() {
    let dir = std::env::temp_dir().join(format!("occupant-cli-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.txt");
    let js = dir.join("out.json");
    for app in [
        "bfs",
        "sssp",
        "sssp-worklist",
        "color",
        "mis",
        "bc",
        "pagerank",
        "cc",
    ] {
        let (ok, stdout, err) = occupant(&[
            "run",
            app,
            "--gen",
            "grid:w=8,h=6,seed=2",
            "--variant",
            "all",
            "--verify",
            "--source",
            "3",
            "--compute-units",
            "2",
            "--output",
            out.to_str().unwrap(),
            "--json",
            js.to_str().unwrap(),
        ]);
        assert!(ok, "{app}: {err}");
        assert!(stdout.contains("multi-launch") && stdout.contains("persistent"));
        assert!(stdout.contains("verified"), "{stdout}");
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(text.lines().count(), 48, "{app}");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&js).unwrap()).unwrap();
        assert_eq!(v["runs"].as_array().unwrap().len(), 2);
        assert_eq!(v["runs"][1]["participants"], 2);
        assert_eq!(v["runs"][0]["verified"], true);
    }
    // Unreachable vertices are `inf`: a directed path read from a file, source at its end.
    let path = dir.join("path.txt");
    std::fs::write(&path, "# a path\n0 1\n1 2\n").unwrap();
    let (ok, _, err) = occupant(&[
        "run",
        "bfs",
        "--graph",
        path.to_str().unwrap(),
        "--source",
        "1",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "inf\n0\n1\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_are_clear_errors() {
    let (ok, _, err) = occupant(&["run", "bfs", "--gen", "grid:w=4,h=4", "--source", "16"]);
    assert!(!ok);
    assert!(
        err.contains("--source 16") && err.contains("16 vertices"),
        "{err}"
    );
    let (ok, _, err) = occupant(&["run", "bfz", "--gen", "grid:w=4,h=4"]);
    assert!(!ok && err.contains("unknown application `bfz`"), "{err}");
    let (ok, _, err) = occupant(&["run", "bfs", "--gen", "grid:w=4,h=4", "--variant", "graph"]);
    assert!(!ok && err.contains("unknown CPU variant"), "{err}");
    let (ok, _, err) = occupant(&["run", "bfs", "--gen", "grid:w=4,h=4", "--runs", "0"]);
    assert!(!ok && err.contains("at least 1"), "{err}");
    let (ok, _, err) = occupant(&[
        "run",
        "bfs",
        "--gen",
        "grid:w=4,h=4",
        "--output",
        "/missing/dir/out.txt",
    ]);
    assert!(!ok && err.contains("does not exist"), "{err}");
    let (ok, _, err) = occupant(&["run", "bfs"]);
    assert!(!ok && err.contains("--graph"), "{err}");
    assert!(!err.contains("panicked"));
}

#[test]
fn cuda_without_a_gpu_falls_back_to_the_cpu_with_one_line() {
    if occupant::cuda::probe_device().is_ok() {
        return; // a GPU is here: the CUDA run is gpu_apps' (occupant-apps) to check
    }
    // Every CUDA variant maps to its CPU counterpart (the one-launch-per-step ones to
    // multi-launch, the one-launch ones to persistent), each run once.
    for (variant, expect) in [
        ("all", &["multi-launch (cpu)", "persistent (cpu"][..]),
        ("graph-while", &["multi-launch (cpu)"][..]),
        ("cooperative", &["persistent (cpu"][..]),
    ] {
        let (ok, stdout, err) = occupant(&[
            "run",
            "sssp",
            "--gen",
            "grid:6x5",
            "--backend",
            "cuda",
            "--variant",
            variant,
            "--verify",
        ]);
        assert!(ok, "{variant}: {err}");
        assert_eq!(
            err.lines()
                .filter(|l| l.contains("running on the CPU backend instead"))
                .count(),
            1,
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "one line, nothing else: {err}");
        for e in expect {
            assert_eq!(stdout.matches(e).count(), 1, "{variant}: {e} in {stdout}");
        }
        assert_eq!(stdout.matches("verified").count(), expect.len(), "{stdout}");
    }
    // An unknown CUDA variant is still named as one.
    let (ok, _, err) = occupant(&[
        "run",
        "bfs",
        "--gen",
        "grid:6x5",
        "--backend",
        "cuda",
        "--variant",
        "nope",
    ]);
    assert!(!ok && err.contains("unknown CUDA variant `nope`"), "{err}");
    // multitask falls back too; a CUDA-only cooperative app then says where it runs.
    let (ok, _, err) = occupant(&[
        "multitask",
        "--backend",
        "cuda",
        "--app",
        "pagerank",
        "--gen",
        "grid:4x4",
    ]);
    assert!(!ok, "{err}");
    assert!(err.contains("running on the CPU backend instead"), "{err}");
    assert!(
        err.contains("no cooperative CPU app `pagerank`") && err.contains("--backend cuda"),
        "{err}"
    );
}
