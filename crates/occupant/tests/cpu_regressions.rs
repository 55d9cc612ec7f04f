//! Regression tests of defects found by trying the CPU backend as a new user would (issue 11).
#![cfg(not(loom))]

use occupant::cpu::{ExecModel, Executor, ExecutorConfig, SHOW_KERNEL_PANICS_ENV};
use occupant::{Error, NDRange};
use std::process::Command;

/// `Executor::new(OccupancyBound { compute_units: 100_000 })` then a launch used to abort the
/// process (the OS could not give 100 000 threads their signal stacks). Now the launch fails
/// with an error naming the limit and the numbers, and the executor stays usable.
#[test]
fn too_many_compute_units_is_an_error_not_an_abort() {
    let exec = Executor::new(ExecModel::OccupancyBound {
        compute_units: 100_000,
    });
    let e = exec
        .launch(NDRange::groups(400_000, 16).unwrap(), |_| {})
        .unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::InvalidLaunch(_)), "{e}");
    for part in ["100000 compute units", "limit of 4096", "max_compute_units"] {
        assert!(msg.contains(part), "{msg}");
    }
    // Fewer groups need fewer threads: the same executor runs them.
    exec.launch(NDRange::groups(8, 4).unwrap(), |_| {}).unwrap();
    // The limit is a setting.
    let small = Executor::with_config(ExecutorConfig {
        model: ExecModel::Fair,
        max_compute_units: 3,
        ..ExecutorConfig::default()
    });
    assert!(small.launch(NDRange::groups(3, 1).unwrap(), |_| {}).is_ok());
    assert!(matches!(
        small.launch(NDRange::groups(4, 1).unwrap(), |_| {}),
        Err(Error::InvalidLaunch(_))
    ));
}

const CHILD: &str = "OCCUPANT_PANIC_CHILD";

/// Runs [`panicking_kernel_child`] in a child process and returns its stderr.
fn child_stderr(show: Option<&str>) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "panicking_kernel_child",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD, "1")
    .env_remove(SHOW_KERNEL_PANICS_ENV)
    .env_remove("RUST_BACKTRACE");
    if let Some(v) = show {
        cmd.env(SHOW_KERNEL_PANICS_ENV, v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {stdout}");
    assert!(stdout.contains("child done"), "{stdout}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A panic in a kernel used to be printed by the default hook once per panicking work-item;
/// it is reported as `Error::KernelPanic` only. Other panics still reach the previous hook,
/// and `OCCUPANT_SHOW_KERNEL_PANICS=1` prints kernel panics too.
#[test]
fn kernel_panics_keep_stderr_clean() {
    let quiet = child_stderr(None);
    assert!(!quiet.contains("kernel boom"), "stderr: {quiet}");
    assert!(
        quiet.contains("outside boom"),
        "other panics must still print: {quiet}"
    );
    let shown = child_stderr(Some("1"));
    assert!(shown.contains("kernel boom"), "stderr: {shown}");
}

/// The child of [`kernel_panics_keep_stderr_clean`] (does nothing in a normal test run).
#[test]
fn panicking_kernel_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    for model in [
        ExecModel::OccupancyBound { compute_units: 2 },
        ExecModel::Fair,
        ExecModel::Serialized,
    ] {
        let e = Executor::new(model)
            .launch(NDRange::groups(4, 8).unwrap(), |item| {
                if item.local_linear_id() == 3 {
                    panic!("kernel boom");
                }
            })
            .unwrap_err();
        assert!(
            matches!(e, Error::KernelPanic { ref message, .. } if message == "kernel boom"),
            "{e}"
        );
    }
    // A panic outside any kernel, on this thread and on another: printed as usual.
    let _ = std::panic::catch_unwind(|| panic!("outside boom"));
    let _ = std::thread::spawn(|| panic!("outside boom on a thread")).join();
    println!("child done");
}
