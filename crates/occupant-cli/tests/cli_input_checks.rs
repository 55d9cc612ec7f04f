//! Regression tests (issue 11): the CLI rejects counts of zero and unwritable output paths
//! before running anything, and never aborts on a huge compute-unit count.

mod common;

use std::time::{Duration, Instant};

/// Runs `occupant args`: (success, stdout, stderr, wall time).
fn occupant(args: &[&str]) -> (bool, String, String, Duration) {
    let t = Instant::now();
    let (ok, out, err) = common::occupant(args);
    (ok, out, err, t.elapsed())
}

#[test]
fn counts_of_zero_are_rejected_everywhere() {
    let cases: &[&[&str]] = &[
        &["discover", "--compute-units", "0"],
        &["discover", "--compute-units", "2,0"],
        &["discover", "--groups", "0"],
        &["discover", "--local-size", "0"],
        &["discover", "--runs", "0"],
        &["bench", "primitives", "--backend", "cpu", "--groups", "0"],
        &[
            "bench",
            "primitives",
            "--backend",
            "cpu",
            "--local-size",
            "0",
        ],
        &["bench", "primitives", "--backend", "cpu", "--iters", "0"],
        &["bench", "primitives", "--backend", "cpu", "--runs", "0"],
        &[
            "bench",
            "primitives",
            "--backend",
            "cpu",
            "--semaphore-values",
            "0",
        ],
        &["bench", "primitives", "--backend", "cuda", "--rounds", "0"],
        &["bench", "primitives", "--backend", "cuda", "--ops", "0"],
        &["bench", "discovery", "--reps", "0"],
        &["bench", "discovery", "--oversubscribe", "0"],
        &["bench", "launch", "--iters", "0"],
        &["bench", "launch", "--block", "0"],
    ];
    for args in cases {
        let (ok, _, err, _) = occupant(args);
        let flag = args[args.len() - 2];
        assert!(!ok, "{args:?} was accepted");
        assert!(
            err.contains("must be at least 1") && err.contains(flag),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn unwritable_output_paths_fail_before_the_run() {
    let cases: &[&[&str]] = &[
        &["discover", "--json", "/missing/dir/x.json"],
        &["discover", "--svg", "/missing/dir/x.svg"],
        &[
            "bench",
            "primitives",
            "--backend",
            "cpu",
            "--json",
            "/missing/dir/x.json",
        ],
        &[
            "bench",
            "primitives",
            "--backend",
            "cpu",
            "--svg",
            "/missing/dir/x.svg",
        ],
        &["bench", "launch", "--json", "/missing/dir/x.json"],
    ];
    for args in cases {
        let (ok, out, err, took) = occupant(args);
        assert!(!ok, "{args:?} was accepted");
        assert!(
            err.contains("/missing/dir") && err.contains("does not exist"),
            "{args:?}: {err}"
        );
        assert!(out.is_empty(), "{args:?} ran before failing: {out}");
        assert!(took < Duration::from_secs(5), "{args:?} took {took:?}");
    }
    // A results folder that cannot be made (GPU commands check it before opening the GPU).
    let (ok, _, err, _) = occupant(&["bench", "memory", "--out", "/proc/occupant-x"]);
    assert!(!ok && err.contains("/proc/occupant-x"), "{err}");
}

#[test]
fn a_huge_compute_unit_count_is_an_error_not_an_abort() {
    let (ok, _, err, _) = occupant(&["discover", "--compute-units", "100000", "--runs", "1"]);
    assert!(!ok);
    assert!(
        err.contains("100000 compute units") && err.contains("max_compute_units"),
        "{err}"
    );
    assert!(!err.contains("panicked") && !err.contains("abort"), "{err}");
}

#[test]
fn discover_reports_the_default_beside_seed_001() {
    let dir = std::env::temp_dir().join(format!("occupant-discover-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (json, svg) = (dir.join("d.json"), dir.join("d.svg"));
    let (ok, out, err, _) = occupant(&[
        "discover",
        "--compute-units",
        "1,2",
        "--runs",
        "3",
        "--delays",
        "0",
        "--json",
        json.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("quiescent (default)") && out.contains("ticket:0"),
        "{out}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2 * 3); // quiescent, ticket:0, spin:0 at 1 and 2 units
    assert!(rows
        .iter()
        .all(|r| r["counts"].as_array().unwrap().len() == 3));
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `bench forkjoin --llvm FILE` reads the comparator's output before the run: a missing or
/// malformed file is an error naming it, at once (the run's default settings take seconds).
#[test]
fn a_bad_llvm_comparator_file_fails_before_the_run() {
    let dir = std::env::temp_dir().join(format!("occupant-llvm-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{not json\n").unwrap();
    let missing = dir.join("missing.jsonl");
    for (file, what) in [(&missing, "reading"), (&bad, "line 1")] {
        let f = file.to_str().unwrap();
        let out = dir.join("out");
        let (ok, _, err, t) = occupant(&[
            "bench",
            "forkjoin",
            "--backend",
            "cpu",
            "--llvm",
            f,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(!ok, "--llvm {f} accepted");
        assert!(err.contains(f) && err.contains(what), "{f}: {err}");
        assert!(t < Duration::from_secs(5), "{f}: failed only after {t:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lab_variants_are_checked_before_the_gpu_opens() {
    let (ok, out, err, _) = occupant(&[
        "bench",
        "primitives",
        "--backend",
        "cuda",
        "--barrier-lab",
        "--lab-variants",
        "lab_relay_relaxed_f64,lab_nope",
    ]);
    assert!(!ok);
    assert!(
        err.contains("`lab_nope`") && err.contains("lab_relay_relaxed_f64"),
        "{err}"
    );
    assert!(out.is_empty(), "{out}");
    let (ok, _, err, _) = occupant(&[
        "bench",
        "primitives",
        "--backend",
        "cuda",
        "--lab-variants",
        "lab_p_fence",
    ]);
    assert!(!ok && err.contains("add --barrier-lab"), "{err}");
}
