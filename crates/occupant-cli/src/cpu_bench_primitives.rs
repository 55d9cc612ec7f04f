//! `occupant bench primitives --backend cpu`: arguments, progress, table, SVG and files around
//! the library's experiment (`occupant::cpu::sync::run_primitives`: operations per second of
//! every barrier, mutex and semaphore implementation against the number of groups).

use crate::backend_arg::Backend;
use crate::cli_values::at_least_one;
use crate::output_path::check_files;
use crate::plot::{panels_svg, Panel};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use occupant::cpu::sync::{run_primitives, Primitive, PrimitivesConfig};
use std::path::PathBuf;

/// Arguments of `occupant bench primitives`.
#[derive(Args, Debug)]
pub struct PrimitivesArgs {
    /// Backend to run on.
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: Backend,
    /// Group counts, comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = at_least_one::<usize>, default_values_t = vec![1usize, 2, 4, 8])]
    pub groups: Vec<usize>,
    /// Work-items per group.
    #[arg(long, value_parser = at_least_one::<usize>, default_value_t = 4)]
    pub local_size: usize,
    /// Operations per group (barrier: episodes) per run.
    #[arg(long, value_parser = at_least_one::<u32>, default_value_t = 2000)]
    pub iters: u32,
    /// Runs per point.
    #[arg(long, value_parser = at_least_one::<usize>, default_value_t = 5)]
    pub runs: usize,
    /// Semaphore initial values, comma-separated (seed 004 uses 1, 2, 10, 120).
    #[arg(long, value_delimiter = ',', value_parser = at_least_one::<u32>, default_values_t = vec![1u32, 2, 10, 120])]
    pub semaphore_values: Vec<u32>,
    /// Write the results as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write an SVG plot to this file.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Write the barrier and mutex costs as a shape table (the CPU backend's shape-aware
    /// defaults, `occupant::cpu::sync::cpu_shape_table`) to this file.
    #[arg(long)]
    pub shape_table: Option<PathBuf>,
}

/// Runs the benchmark.
pub fn run(args: &PrimitivesArgs) -> Result<(), String> {
    check_files(&[&args.json, &args.svg, &args.shape_table])?;
    let config = PrimitivesConfig {
        groups: args.groups.clone(),
        local_size: args.local_size,
        iters: args.iters,
        runs: args.runs,
        semaphore_values: args.semaphore_values.clone(),
    };
    let prims = Primitive::all(&config.semaphore_values);
    let runs = args.runs.max(1);
    let bar = ProgressBar::new((prims.len() * args.groups.len() * runs) as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let report = run_primitives(&config, |prim, g| {
        bar.set_message(format!("{} x{g}", prim.label()));
        bar.inc(1);
    })
    .map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    let points_of = |prim: &Primitive| {
        report
            .points
            .iter()
            .filter(move |p| p.primitive == *prim)
            .collect::<Vec<_>>()
    };

    println!(
        "primitives on the CPU backend ({} host cores), {} work-items per group, {} ops per group per run, {runs} runs; ops/s mean (min..max)",
        report.host_cores, args.local_size, args.iters
    );
    print!("{:<24}", "primitive \\ groups");
    for g in &args.groups {
        print!(" {:>24}", g);
    }
    println!();
    for prim in &prims {
        print!("{:<24}", format!("{} {}", prim.class_name(), prim.label()));
        for p in points_of(prim) {
            let s = &p.ops_per_sec;
            print!(
                " {:>24}",
                format!("{:.3e} ({:.1e}..{:.1e})", s.mean, s.min, s.max)
            );
        }
        println!();
    }

    if let Some(path) = &args.svg {
        let mut panels = vec![];
        for (title, class) in [
            ("barriers (episodes/s)", "barrier"),
            ("mutexes (lock+unlock/s)", "mutex"),
            ("semaphores (wait+post/s)", "semaphore"),
        ] {
            let series = prims
                .iter()
                .filter(|p| p.class_name() == class)
                .map(|prim| {
                    let pts = points_of(prim)
                        .iter()
                        .map(|p| (p.groups as f64, p.ops_per_sec.mean))
                        .collect();
                    (prim.label(), pts)
                })
                .collect();
            panels.push(Panel {
                title: format!("CPU: {title}"),
                x_label: "groups".into(),
                y_label: "operations per second".into(),
                series,
            });
        }
        panels_svg(path, &panels)?;
    }
    if let Some(path) = &args.shape_table {
        let text =
            serde_json::to_string_pretty(&report.shape_table()).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    Ok(())
}
