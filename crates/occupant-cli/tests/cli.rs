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

/// A reader that stops early (`occupant info | head -1`) ends the process quietly, as with any
/// Unix tool: no "failed printing to stdout" panic and backtrace.
#[cfg(unix)]
#[test]
fn a_closed_stdout_ends_the_process_quietly() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_occupant"))
        .arg("info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run occupant");
    drop(child.stdout.take()); // the reader is gone before the first line is written
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains("Broken pipe"), "{err}");
}
