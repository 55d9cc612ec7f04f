//! `occupant bench placement` refuses bad arguments with a message that says what was
//! expected, before it opens a GPU (so these run on any machine).

mod common;

fn occupant(args: &[&str]) -> (bool, String) {
    let (ok, _, err) = common::occupant(args);
    (ok, err)
}

#[test]
fn bad_arguments_are_refused_with_what_was_expected() {
    let cases: &[(&[&str], &str)] = &[
        (&["--shape", "0x128"], "BLOCKSxTHREADS"),
        (&["--shape", "132by128"], "BLOCKSxTHREADS"),
        (&["--shape", "132x"], "BLOCKSxTHREADS"),
        (&["--kind", "tree"], "persistent program"),
        (&["--kind", "nonsense"], "persistent program"),
        (&["--apps", "bfs"], "--input"),
        (
            &["--apps", "nosuchapp", "--input", "stencil:w=4,h=4"],
            "unknown application",
        ),
        (&["--runs", "0"], "--runs"),
        (&["--rounds", "0"], "--rounds"),
        (&["--backend", "cpu"], "cuda backend only"),
        (&["--mutex-blocks", "0"], "--mutex-blocks"),
        (
            &["--every-kind", "--define", "OCC_LEAN_DELAY_CYCLES=0"],
            "cannot take --define",
        ),
        (&["--mutex-kind", "spin"], "needs --mutex-blocks"),
        (
            &["--mutex-kind", "nonsense", "--mutex-blocks", "1"],
            "not a mutex kind",
        ),
        (
            &["--mutex-pairs", "0", "--mutex-blocks", "1"],
            "--mutex-pairs",
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["bench", "placement"];
        all.extend_from_slice(args);
        let (ok, err) = occupant(&all);
        assert!(!ok, "{all:?} was accepted");
        assert!(err.contains(want), "{all:?}: expected `{want}` in: {err}");
        assert!(!err.contains("panicked"), "{all:?}: {err}");
    }
}
