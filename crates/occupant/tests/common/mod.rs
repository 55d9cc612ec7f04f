//! Shared by the GPU test files: open the GPU or skip (fail under OCCUPANT_REQUIRE_GPU=1), and
//! record measured figures as JSON under $OCCUPANT_RESULTS_DIR.
#![allow(dead_code)]

use occupant::cuda::Gpu;
use occupant::Error;

/// The GPU, or `None` after printing one line (panics under OCCUPANT_REQUIRE_GPU=1).
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::open(0) {
        Ok(g) => Some(g),
        Err(e @ Error::NoDevice { .. })
            if std::env::var("OCCUPANT_REQUIRE_GPU").as_deref() != Ok("1") =>
        {
            eprintln!("skipping {test}: {e}");
            None
        }
        Err(e) => panic!("{test}: OCCUPANT_REQUIRE_GPU=1 or unexpected error: {e}"),
    }
}

/// Writes `value` to `$OCCUPANT_RESULTS_DIR/<name>.json` when that variable is set.
pub fn record(name: &str, value: serde_json::Value) {
    if let Some(dir) = std::env::var_os("OCCUPANT_RESULTS_DIR") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("{name}.json")),
            serde_json::to_string_pretty(&value).unwrap(),
        )
        .unwrap();
    }
    println!("{name}: {value}");
}
