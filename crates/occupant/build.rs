//! Embeds every CUDA device header under `src/cuda/device/` into the library: generates
//! `$OUT_DIR/device_headers.rs`, a table of `(include name, include_str!(file))`, sorted by name.
//! Adding a header is dropping a `.cuh` file there (and `#include`-ing it from occupant.cuh).

use std::{env, fs, path::PathBuf};

fn main() {
    let dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("src/cuda/device");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = fs::read_dir(&dir)
        .expect("src/cuda/device exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cuh"))
        .collect();
    names.sort();
    let mut out = String::from(
        "/// Every embedded device header: (include name, contents), sorted by name.\n",
    );
    out.push_str("pub const HEADERS: &[(&str, &str)] = &[\n");
    for n in &names {
        let path = dir.join(n);
        println!("cargo:rerun-if-changed={}", path.display());
        out.push_str(&format!(
            "    ({n:?}, include_str!({:?})),\n",
            path.display().to_string()
        ));
    }
    out.push_str("];\n");
    let dest =
        PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("device_headers.rs");
    fs::write(dest, out).expect("write device_headers.rs");
}
