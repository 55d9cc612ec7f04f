//! What the CLI tests share: running the `occupant` binary.

use std::process::Command;

/// Runs `occupant` with `args`: (success, stdout, stderr).
pub fn occupant(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_occupant"))
        .args(args)
        .output()
        .expect("run occupant");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
