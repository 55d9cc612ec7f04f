//! Embeds every CUDA device header under `src/cuda/device/` into the library: generates
//! `$OUT_DIR/device_headers.rs`, a table of `(include name, include_str!(file))`, sorted by name.
//! Adding a header is dropping a `.cuh` file there (and `#include`-ing it from occupant.cuh).
//! Likewise `$OUT_DIR/shape_tables.rs` embeds every measured shape table under
//! `src/cuda/sync/shapes/` (`<gpu results folder name>.json`, written by `occupant bench
//! primitives --backend cuda --shape-table`).

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
    shape_tables();
}

/// `$OUT_DIR/shape_tables.rs`: `(results folder name, include_str!(json))` per shape table.
fn shape_tables() {
    let dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("src/cuda/sync/shapes");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".json"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut out = String::from("&[\n");
    for n in &names {
        let path = dir.join(n);
        println!("cargo:rerun-if-changed={}", path.display());
        out.push_str(&format!(
            "    ({:?}, include_str!({:?})),\n",
            n.trim_end_matches(".json"),
            path.display().to_string()
        ));
    }
    out.push_str("]\n");
    let dest =
        PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("shape_tables.rs");
    fs::write(dest, out).expect("write shape_tables.rs");
}
