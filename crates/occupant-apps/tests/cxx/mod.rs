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

/// Compiles `main` after graph_apps.cu and coop_cuda's graph.cu with the host stand-ins
/// (tests/coop_host_graph/simt.h; `-DOCC_APP_HOST_LOOP`) in a fresh folder under the temp dir:
/// `(folder, executable)`, or `None` without a C++ compiler (as [`compile`]). Remove the folder
/// when done.
#[allow(dead_code)] // not every test that includes this module uses it
pub fn graph_apps_harness(test: &str, main: &str) -> Option<(PathBuf, PathBuf)> {
    use occupant_apps::apps::cuda::GRAPH_APPS_CU;
    use occupant_apps::coop_cuda::GRAPH_CU;
    let dir = std::env::temp_dir().join(format!("occ-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/coop_host_graph");
    std::fs::copy(here.join("simt.h"), dir.join("simt.h")).unwrap();
    std::fs::write(dir.join("occupant.cuh"), "// host: simt.h stands in\n").unwrap();
    std::fs::write(
        dir.join("harness.cpp"),
        format!("#include \"simt.h\"\n{GRAPH_APPS_CU}\n{GRAPH_CU}\n{main}"),
    )
    .unwrap();
    let exe = compile(test, &dir, "harness", &["-DOCC_APP_HOST_LOOP", "-w"])?;
    Some((dir, exe))
}
