//! `occupant graph gen|info` end to end.

mod common;
use common::occupant;

#[test]
fn gen_then_info_in_every_format() {
    let dir = std::env::temp_dir().join(format!("occupant-cli-graph-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for ext in ["gr", "mtx", "txt"] {
        let path = dir.join(format!("grid.{ext}"));
        let p = path.to_str().unwrap();
        let (ok, out, err) = occupant(&["graph", "gen", "grid:w=12,h=7,seed=3", "--output", p]);
        assert!(ok, "{err}");
        assert!(out.contains("84 vertices"), "{out}");
        let (ok, out, err) = occupant(&["graph", "info", p, "--json"]);
        assert!(ok, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["stats"]["vertices"], 84);
        assert_eq!(v["stats"]["edges"], 2 * (11 * 7 + 12 * 6));
        assert_eq!(v["stats"]["diameter_estimate"], 12 + 7 - 2);
        assert_eq!(v["stats"]["symmetric"], true);
    }
    // --format overrides the extension.
    let odd = dir.join("g.out");
    let (ok, _, err) = occupant(&[
        "graph",
        "gen",
        "ba:n=50,m=2",
        "-o",
        odd.to_str().unwrap(),
        "--format",
        "snap",
    ]);
    assert!(ok, "{err}");
    // A truncated file: the error names file and line, no panic.
    std::fs::write(dir.join("bad.gr"), "p sp 3 2\na 1 2 5\n").unwrap();
    let (ok, _, err) = occupant(&["graph", "info", dir.join("bad.gr").to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("bad.gr:2:") && err.contains("truncated"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn info_of_a_spec_and_bad_inputs() {
    let (ok, out, err) = occupant(&["graph", "info", "--gen", "stencil:20x10"]);
    assert!(ok, "{err}");
    assert!(out.contains("vertices            200"), "{out}");
    assert!(out.contains(">= 28 hops"), "{out}");
    let (ok, _, err) = occupant(&["graph", "info", "--gen", "rmat:scael=5"]);
    assert!(!ok);
    assert!(
        err.contains("not recognised: `scael`") && err.contains("valid forms"),
        "{err}"
    );
    let (ok, _, err) = occupant(&[
        "graph",
        "gen",
        "rmat:scale=4",
        "-o",
        "/nonexistent-dir/x.gr",
    ]);
    assert!(!ok);
    assert!(err.contains("/nonexistent-dir/x.gr"), "{err}");
    let (ok, _, err) = occupant(&["graph", "gen", "rmat:scale=4", "-o", "x.unknown"]);
    assert!(!ok);
    assert!(err.contains("unknown graph format"), "{err}");
    assert!(!std::path::Path::new("x.unknown").exists());
}
