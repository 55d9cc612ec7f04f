//! The `occupant` binary end to end.

mod common;
use common::occupant;

#[test]
fn info_lists_both_backends_without_panicking() {
    let (ok, out, err) = occupant(&["info"]);
    assert!(ok, "{err}");
    assert!(out.contains("CPU backend"), "{out}");
    assert!(out.contains("CUDA"), "{out}");
    let (ok, out, err) = occupant(&["info", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("valid JSON");
    let backends = v["backends"].as_array().unwrap();
    assert_eq!(backends[0]["backend"], "cpu");
    assert_eq!(backends[1]["backend"], "cuda");
}

#[test]
fn tour_runs_and_shows_the_watchdog() {
    let (ok, out, err) = occupant(&["tour"]);
    assert!(ok, "{err}");
    assert!(out.contains("(correct)"), "{out}");
    assert!(out.contains("the watchdog caught it"), "{out}");
    assert!(out.contains("usable afterwards"), "{out}");
}

#[test]
fn unknown_commands_fail_with_usage() {
    let (ok, _, err) = occupant(&["frobnicate"]);
    assert!(!ok);
    assert!(err.contains("Usage") || err.contains("usage"), "{err}");
}
