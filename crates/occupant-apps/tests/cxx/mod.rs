//! What the host-compiled harness tests share: compiling a C++20 harness that includes the
//! CUDA sources with host stand-ins.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Compiles `dir/<stem>.cpp` into `dir/<stem>` with `c++ -std=c++20 -O1 -pthread -I dir` and
/// `flags`. `None` (after one line naming `test`) when there is no C++ compiler; a compile error
/// fails the test with the compiler's log.
pub fn compile(test: &str, dir: &Path, stem: &str, flags: &[&str]) -> Option<PathBuf> {
    let exe = dir.join(stem);
    let out = match Command::new("c++")
        .args(["-std=c++20", "-O1", "-pthread"])
        .args(flags)
        .arg("-I")
        .arg(dir)
        .arg("-o")
        .arg(&exe)
        .arg(dir.join(format!("{stem}.cpp")))
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipping {test}: no C++ compiler ({e})");
            return None;
        }
    };
    assert!(
        out.status.success(),
        "{stem}.cpp did not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(exe)
}
