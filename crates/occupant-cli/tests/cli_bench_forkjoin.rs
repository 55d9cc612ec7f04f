//! `occupant bench forkjoin --backend cpu` end to end (the CPU twin: table, JSON report, SVG),
//! and `bench nested`'s argument checks (before it opens a GPU, so these run on any machine).

mod common;
use common::occupant;

#[test]
fn cpu_forkjoin_writes_the_report_and_the_figure() {
    let dir = std::env::temp_dir().join(format!("occ-cli-forkjoin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let (ok, out, err) = occupant(&[
        "bench",
        "forkjoin",
        "--backend",
        "cpu",
        "--reps",
        "4",
        "--rounds",
        "1",
        "--delay",
        "10",
        "--workers",
        "32,64",
        "--out",
        d,
    ]);
    assert!(ok, "stdout: {out}\nstderr: {err}");
    for c in occupant::model::forkjoin::EPCC_CONSTRUCTS {
        assert!(
            out.lines().any(|l| l.starts_with(&format!("{c} "))),
            "{c} missing from the table:\n{out}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("forkjoin.json")).unwrap()).unwrap();
    assert_eq!(json["backend"], "cpu");
    assert_eq!(json["unit"], "ns");
    assert_eq!(json["ours"].as_array().unwrap().len(), 12); // 6 constructs x 2 worker counts
    assert!(json["ratios"].as_array().unwrap().is_empty()); // no comparator given
    let svg = std::fs::read_to_string(dir.join("forkjoin.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("occupant reduction"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_are_refused_with_what_was_expected() {
    let cases: &[(&[&str], &str)] = &[
        (&["nested", "--adaptive-warps", "0"], "adaptive-warps"),
        (&["nested", "--adaptive-warps", "32"], "adaptive-warps"),
        (&["nested", "--reps", "0"], "--reps"),
        (&["nested", "--backend", "cpu"], "cuda backend only"),
        (&["forkjoin", "--backend", "cpu", "--reps", "0"], "--reps"),
    ];
    for (args, want) in cases {
        let mut all = vec!["bench"];
        all.extend_from_slice(args);
        let (ok, _, err) = occupant(&all);
        assert!(!ok, "{all:?} was accepted");
        assert!(err.contains(want), "{all:?}: expected `{want}` in: {err}");
        assert!(!err.contains("panicked"), "{all:?}: {err}");
    }
}
