//! `occupant bench apps` end to end: a tiny CPU run writes its JSON and SVG; bad arguments and a
//! missing GPU are clear errors.

mod common;
use common::occupant;

#[test]
fn a_small_cpu_bench_writes_json_and_svg() {
    let dir = std::env::temp_dir().join(format!("occupant-bench-apps-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let (ok, stdout, err) = occupant(&[
        "bench",
        "apps",
        "--backend",
        "cpu",
        "--runs",
        "1",
        "--apps",
        "bfs,cc",
        "--input",
        "stencil:12x12",
        "--input",
        "rmat:scale=7@power-law",
        "--out",
        d,
    ]);
    assert!(ok, "{err}");
    assert!(
        stdout.contains("geomean persistent over power-law"),
        "{stdout}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("apps.json")).unwrap()).unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), 8);
    assert!(std::fs::read_to_string(dir.join("apps-speedup.svg"))
        .unwrap()
        .starts_with("<svg"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_arguments_are_named() {
    let (ok, _, err) = occupant(&["bench", "apps", "--apps", "nope"]);
    assert!(!ok && err.contains("unknown application `nope`"), "{err}");
    let (ok, _, err) = occupant(&["bench", "apps", "--variants", "fastest"]);
    assert!(!ok && err.contains("unknown variant `fastest`"), "{err}");
    let (ok, _, err) = occupant(&["bench", "apps", "--barrier", "magic"]);
    assert!(!ok && err.contains("unknown barrier `magic`"), "{err}");
    let (ok, _, err) = occupant(&["bench", "apps", "--runs", "0"]);
    assert!(!ok && err.contains("--runs"), "{err}");
    let (ok, _, err) = occupant(&[
        "bench",
        "apps",
        "--backend",
        "cpu",
        "--input",
        "no-such-file.gr",
        "--out",
        "/tmp",
    ]);
    assert!(!ok && err.contains("no-such-file.gr"), "{err}");
}

#[test]
fn cuda_without_a_gpu_is_a_clear_error() {
    if occupant::cuda::probe_device().is_ok() {
        return; // a GPU is here: nothing to check
    }
    let dir =
        std::env::temp_dir().join(format!("occupant-bench-apps-nogpu-{}", std::process::id()));
    let (ok, _, err) = occupant(&["bench", "apps", "--quick", "--out", dir.to_str().unwrap()]);
    assert!(
        !ok && err.contains("error:") && !err.contains("panicked"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
