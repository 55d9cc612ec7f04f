//! The CPU applications benchmark: CPU persistent vs CPU multi-launch for every application on
//! the inputs of `apps::bench::CPU_INPUTS`, JSON + SVG + a text table.
//!
//! `cargo run --release -p occupant-apps --example apps_bench_cpu -- [OUT_DIR] [RUNS] [UNITS]`
//! (default `bench/results/cpu-2core/apps`, 10 runs, one compute unit per core). The same library functions serve
//! `occupant bench apps --backend cpu`.

use occupant::cpu::{ExecModel, Executor};
use occupant_apps::apps::bench::{bench_cpu, generate_inputs, CPU_INPUTS};
use occupant_apps::apps::{speedup_svg, AppKind};
use std::fmt::Write;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "bench/results/cpu-2core/apps".into()),
    );
    let runs: u32 = args.next().map_or(Ok(10), |s| s.parse())?;
    let model = match args.next() {
        Some(u) => ExecModel::OccupancyBound {
            compute_units: u.parse()?,
        },
        None => ExecModel::default_occupancy(),
    };
    std::fs::create_dir_all(&out)?;
    let exec = Executor::new(model);
    let inputs = generate_inputs(&CPU_INPUTS)?;
    let r = bench_cpu(&exec, &inputs, &AppKind::ALL, runs.max(1), |row| {
        eprintln!(
            "{:14} {:16} {:13} {:6} steps  min {:10.3} ms  median {:10.3} ms  {:8.1} µs/step",
            row.app,
            row.input,
            row.variant,
            row.iterations,
            row.min_ms,
            row.median_ms,
            row.us_per_iteration
        );
    })?;
    std::fs::write(
        out.join("apps.json"),
        serde_json::to_string_pretty(&r)? + "\n",
    )?;
    std::fs::write(
        out.join("apps.svg"),
        speedup_svg(&r, "CPU persistent vs multi-launch"),
    )?;
    let mut t = String::new();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    writeln!(
        t,
        "device: {}  runs: {} (interleaved)  load average at the end: {}",
        r.device,
        r.config.runs,
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    )?;
    writeln!(
        t,
        "{:14} {:16} {:13} {:>6} {:>6} {:>11} {:>11} {:>10} {:>11}",
        "app", "input", "variant", "steps", "groups", "min ms", "median ms", "µs/step", "edges/s"
    )?;
    for row in &r.rows {
        writeln!(
            t,
            "{:14} {:16} {:13} {:>6} {:>6} {:>11.3} {:>11.3} {:>10.1} {:>11.3e}",
            row.app,
            row.input,
            row.variant,
            row.iterations,
            match (row.participants_min, row.participants) {
                (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
                (_, Some(b)) => b.to_string(),
                _ => "-".into(),
            },
            row.min_ms,
            row.median_ms,
            row.us_per_iteration,
            row.edges_per_s
        )?;
    }
    writeln!(t, "\nspeedup of persistent over multi-launch (min / min):")?;
    for s in &r.speedups {
        writeln!(t, "{:14} {:16} {:8.2}×", s.app, s.input, s.speedup)?;
    }
    for g in &r.geomeans {
        writeln!(
            t,
            "geomean {:14} {:8.2}× over {} runs",
            g.class, g.speedup, g.count
        )?;
    }
    std::fs::write(out.join("apps.txt"), &t)?;
    print!("{t}");
    Ok(())
}
