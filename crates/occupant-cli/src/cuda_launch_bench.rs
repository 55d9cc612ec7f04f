//! `occupant bench launch --backend cuda`: NVRTC compile time (cold, memory-cached,
//! disk-cached) and launch overhead of each launch mode (launch + sync round trip, and
//! back-to-back launches per kernel), written as JSON.

use crate::cli_values::at_least_one;
use crate::output_path::check_files;
use clap::Args;
use occupant::cuda::{self, CompileOptions, Gpu, LaunchConfig, LaunchMode, Module, SELFTEST_CU};
use serde::Serialize;
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `occupant bench launch`.
#[derive(Args, Debug)]
pub struct LaunchBenchArgs {
    /// Backend to measure (only `cuda` has launch overhead to measure).
    #[arg(long, default_value = "cuda")]
    backend: String,
    /// Write the results as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Launches per measurement.
    #[arg(long, value_parser = at_least_one::<usize>, default_value_t = 2000)]
    iters: usize,
    /// Threads per block of the empty kernel.
    #[arg(long, value_parser = at_least_one::<usize>, default_value_t = 128)]
    block: usize,
}

/// Summary statistics of a sample, µs.
#[derive(Serialize)]
struct Stats {
    median: f64,
    mean: f64,
    min: f64,
    p90: f64,
    n: usize,
}

fn stats(mut v: Vec<f64>) -> Stats {
    v.sort_by(f64::total_cmp);
    let n = v.len().max(1);
    let at = |q: f64| {
        v.get(((n - 1) as f64 * q).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    Stats {
        median: at(0.5),
        mean: v.iter().sum::<f64>() / n as f64,
        min: at(0.0),
        p90: at(0.9),
        n: v.len(),
    }
}

const EMPTY_CU: &str = "extern \"C\" __global__ void occ_empty() {}\n";

/// Runs the benchmark; prints a summary and writes JSON if asked.
pub fn run(args: &LaunchBenchArgs) -> Result<(), String> {
    check_files(&[&args.json])?;
    if args.backend != "cuda" {
        return Err(format!(
            "bench launch measures the cuda backend, not `{}`",
            args.backend
        ));
    }
    // A fresh disk cache, so that the first compile is cold and the disk hit is measured.
    let cache = std::env::temp_dir().join(format!("occupant-bench-cache-{}", std::process::id()));
    std::env::set_var("OCCUPANT_CACHE_DIR", &cache);
    let gpu = Gpu::open(0).map_err(|e| e.to_string())?;
    let info = gpu.info().clone();
    println!("{info}");
    let compile = measure_compile(&gpu)?;
    println!(
        "NVRTC selftest.cu: {}",
        serde_json::to_string(&compile).unwrap_or_default()
    );
    let raw = gpu
        .compile("empty.cu", EMPTY_CU, &CompileOptions::default())
        .map_err(|e| e.to_string())?;
    let wd = gpu
        .compile("selftest.cu", SELFTEST_CU, &CompileOptions::default())
        .map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    for (module, watchdog) in [(&raw, false), (&wd, true)] {
        for mode in [
            LaunchMode::Plain,
            LaunchMode::OccupancyApi,
            LaunchMode::Cooperative,
        ] {
            let row = measure_launch(module, watchdog, mode, args, info.sm_count as usize)?;
            println!("{}", serde_json::to_string(&row).unwrap_or_default());
            rows.push(row);
        }
    }
    // The watchdog's cost: the same kernel, mode and grid with and without the record.
    let mut overhead = Vec::new();
    for mode in ["plain", "occupancy_api", "cooperative"] {
        let pick = |wd: bool, key: &str| {
            rows.iter()
                .find(|r| r["mode"] == mode && r["watchdog"] == wd)
                .and_then(|r| r[key]["median"].as_f64())
        };
        for key in ["launch_sync_round_trip_us", "back_to_back_per_kernel_us"] {
            if let (Some(with), Some(without)) = (pick(true, key), pick(false, key)) {
                println!(
                    "watchdog cost, {mode}, {key}: {with:.2} - {without:.2} = {:+.2} us",
                    with - without
                );
                overhead.push(json!({ "mode": mode, "figure": key, "with_us": with,
                    "without_us": without, "watchdog_cost_us": with - without }));
            }
        }
    }
    let out = json!({
        "bench": "launch",
        "watchdog_reads_on_expiry_only": wd.watchdog_reads_on_expiry_only(),
        "watchdog_cost": overhead,
        "backend": "cuda",
        "device": info,
        "commit": std::env::var("OCCUPANT_COMMIT").ok(),
        "iters": args.iters,
        "compile": compile,
        "launch": rows,
        "not_measured": ["discovery mode: needs a program defining occ_discovery (discovery.cuh, branch gpu-sync)"],
    });
    let _ = std::fs::remove_dir_all(&cache);
    if let Some(path) = &args.json {
        std::fs::write(
            path,
            serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?,
        )
        .map_err(|e| format!("writing {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

fn measure_compile(gpu: &Gpu) -> Result<serde_json::Value, String> {
    let opts = CompileOptions::default();
    let arch = gpu.info().arch.clone();
    let err = |e: occupant::Error| e.to_string();
    let mut cold = Vec::new();
    for _ in 0..5 {
        let c = cuda::compile_uncached("selftest.cu", SELFTEST_CU, &opts, &arch).map_err(err)?;
        cold.push(c.compile_time.as_secs_f64() * 1e3);
    }
    let t = Instant::now();
    let first: Module = gpu
        .compile("selftest.cu", SELFTEST_CU, &opts)
        .map_err(err)?;
    let first_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut memory = Vec::new();
    for _ in 0..100 {
        let t = Instant::now();
        let m = gpu
            .compile("selftest.cu", SELFTEST_CU, &opts)
            .map_err(err)?;
        memory.push(t.elapsed().as_secs_f64() * 1e3);
        drop(m);
    }
    let hit_first = first.cache_hit();
    drop(first);
    cuda::clear_memory_cache();
    let t = Instant::now();
    let from_disk = gpu
        .compile("selftest.cu", SELFTEST_CU, &opts)
        .map_err(err)?;
    let disk_ms = t.elapsed().as_secs_f64() * 1e3;
    Ok(json!({
        "program": "selftest.cu",
        "arch": arch,
        "nvrtc_cold_ms": stats(cold),
        "first_compile_and_load_ms": first_ms,
        "first_cache_hit": hit_first,
        "memory_cached_ms": stats(memory),
        "disk_cached_and_load_ms": disk_ms,
        "disk_cache_hit": from_disk.cache_hit(),
    }))
}

fn measure_launch(
    m: &Module,
    watchdog: bool,
    mode: LaunchMode,
    args: &LaunchBenchArgs,
    sms: usize,
) -> Result<serde_json::Value, String> {
    let cfg = match mode {
        LaunchMode::Plain => LaunchConfig::plain(sms, args.block),
        _ => LaunchConfig::new(mode, args.block),
    };
    let err = |e: occupant::Error| e.to_string();
    let first = m.launch("occ_empty", &cfg, &[]).map_err(err)?;
    for _ in 0..50 {
        m.launch("occ_empty", &cfg, &[]).map_err(err)?;
    }
    let mut round = Vec::with_capacity(args.iters);
    for _ in 0..args.iters {
        let t = Instant::now();
        m.launch("occ_empty", &cfg, &[]).map_err(err)?;
        round.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let mut b2b = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..args.iters {
            m.enqueue("occ_empty", &cfg, &[]).map_err(err)?;
        }
        m.launch("occ_empty", &cfg, &[]).map_err(err)?;
        b2b.push(t.elapsed().as_secs_f64() * 1e6 / (args.iters + 1) as f64);
    }
    Ok(json!({
        "mode": mode.name(),
        "watchdog": watchdog,
        "module": m.name(),
        "grid_blocks": first.blocks,
        "block_threads": args.block,
        "blocks_per_sm": first.blocks_per_sm,
        "launch_sync_round_trip_us": stats(round),
        "back_to_back_per_kernel_us": stats(b2b),
    }))
}
