//! `occupant bench primitives --backend cuda`: the argument and output layer of
//! `occupant::cuda::sync::bench` (barrier latency with grid.sync() and the naive counter
//! barrier in the same run, mutex throughput from 1 block to full occupancy, spinning vs
//! sleeping semaphores). Writes `<out>/primitives.json`, `<out>/shape-table.json` and SVG plots,
//! and stores the measured shape table with the device's machine abstraction.

use crate::cli_values::at_least_one;
use crate::cuda_bench_common::{line_plot, open_cuda, out_dir, write_json, Series};
use crate::output_path::{check_file, check_out_dir};
use occupant::cuda::sync::bench::{
    check_lab_variants, read_shape_table_file, run_primitives, store_shape_table,
    write_shape_table_file, BenchShape, PrimitivesConfig, PrimitivesReport,
};
use occupant::model::Watchdog;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments.
#[derive(clap::Args)]
pub struct PrimitivesBenchArgs {
    /// Backend (only `cuda`).
    #[arg(long, default_value = "cuda")]
    backend: String,
    /// Results folder (default bench/results/<gpu>/).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Barriers timed per configuration.
    #[arg(long, value_parser = at_least_one::<u32>, default_value_t = 20_000)]
    rounds: u32,
    /// Lock/unlock (wait/post) pairs per mutex (semaphore) configuration, in total.
    #[arg(long, value_parser = at_least_one::<u32>, default_value_t = 200_000)]
    ops: u32,
    /// Skip the semaphores.
    #[arg(long)]
    no_semaphores: bool,
    /// Skip the mutexes.
    #[arg(long)]
    no_mutexes: bool,
    /// Also time the barrier lab's variants (the designs' parameters) in every shape.
    #[arg(long)]
    barrier_lab: bool,
    /// With --barrier-lab, also the lab's cluster-launch designs and probes (clusters 2-16).
    #[arg(long)]
    barrier_lab_clusters: bool,
    /// With --barrier-lab, only these lab variants and probes (comma-separated names, e.g.
    /// `lab_relay_relaxed_f64,lab_p_fence`); default every one.
    #[arg(long, value_delimiter = ',')]
    lab_variants: Vec<String>,
    /// Skewed arrivals: before each timed barrier every block waits a seeded random delay below
    /// this many ns (as a persistent loop's blocks finish their work unevenly); the kinds'
    /// times go into the shape table as `barrier_skewed`, where persistent kernels choose
    /// their barrier. 0: all blocks arrive together. Barriers only (no mutexes, semaphores).
    #[arg(long, default_value_t = 0)]
    skew_ns: u32,
    /// Also write the measured shape table to this file, e.g.
    /// `crates/occupant/src/cuda/sync/shapes/<gpu>.json` to build it into the library for a
    /// new device (every `*.json` there is built in, matched by the GPU's results folder name).
    /// An existing table of the same kind of GPU is merged into: what this run measures (the
    /// class — plain or skewed barriers, mutexes — at each of its shapes) is replaced, the
    /// rest kept.
    #[arg(long)]
    shape_table: Option<PathBuf>,
    /// Measure the barriers in these shapes instead of the built-in list, comma-separated
    /// `<blocks>x<threads>` (e.g. `396x128,1056x128`): each shape's summary compares the
    /// built-in table's pick with the best kind measured there (a check of the shape-aware
    /// default where no table has measured); with --shape-table they are merged into the
    /// table beside its other shapes.
    #[arg(long, value_delimiter = ',')]
    shapes: Vec<String>,
    /// Launches of each barrier design per shape, interleaved, launch i with our kinds' state
    /// at candidate place i (the places persistent programs probe); the figures and the shape
    /// table's entries are their medians (a kind's time moves by 4-14 % with where its state
    /// lands in L2, so one place can decide a ranking).
    #[arg(long, default_value_t = 1, value_parser = at_least_one::<u32>)]
    runs: u32,
}

/// Runs it.
pub fn run(args: &PrimitivesBenchArgs) -> Result<(), String> {
    check_out_dir(&args.out)?;
    if let Some(p) = &args.shape_table {
        check_file(p)?;
    }
    check_lab_variants(&args.lab_variants).map_err(|e| e.to_string())?;
    if !args.lab_variants.is_empty() && !args.barrier_lab {
        return Err("--lab-variants chooses among the lab's variants: add --barrier-lab".into());
    }
    let gpu = open_cuda(&args.backend)?;
    let shapes = args
        .shapes
        .iter()
        .map(|s| BenchShape::parse(s, gpu.info()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    // Read (and check) a table to merge into before the run, not after it.
    let existing = match &args.shape_table {
        Some(p) => read_shape_table_file(p, &gpu.info().name).map_err(|e| e.to_string())?,
        None => None,
    };
    let cfg = PrimitivesConfig {
        rounds: args.rounds,
        ops: args.ops,
        barriers: true,
        barrier_lab: args.barrier_lab,
        barrier_lab_clusters: args.barrier_lab_clusters,
        lab_variants: args.lab_variants.clone(),
        mutexes: !args.no_mutexes && args.skew_ns == 0,
        semaphores: !args.no_semaphores && args.skew_ns == 0,
        watchdog: Watchdog::default().with_timeout(Duration::from_secs(5)),
        skew_ns: args.skew_ns,
        shapes,
        runs: args.runs,
    };
    let out = run_primitives(&gpu, &cfg, &mut |line| println!("{line}"));
    let dir = out_dir(&gpu, &args.out)?;
    // The measured table goes with the device's machine abstraction, where the shape-aware
    // defaults load it (MachineAbstraction::store_path), and into the results folder.
    match store_shape_table(&gpu, &out.shape_table) {
        Ok(p) => println!(
            "shape table stored with the machine abstraction: {}",
            p.display()
        ),
        Err(e) => println!("could not store the shape table: {e}"),
    }
    let p = write_json(&dir, "primitives.json", &out)?;
    println!("wrote {}", p.display());
    let p = write_json(&dir, "shape-table.json", &out.shape_table)?;
    println!("wrote {}", p.display());
    if let Some(p) = &args.shape_table {
        let kept = write_shape_table_file(p, existing.as_ref(), &out.shape_table)
            .map_err(|e| e.to_string())?;
        match &existing {
            Some(old) => println!(
                "merged into {} (kept {kept} of its {} measurements: the classes this run did not measure)",
                p.display(),
                old.measurements.len()
            ),
            None => println!("wrote {}", p.display()),
        }
    }
    plots(&dir, &out, &cfg.barrier_shapes(gpu.info()))?;
    Ok(())
}

fn plots(
    dir: &std::path::Path,
    out: &PrimitivesReport,
    shapes: &[BenchShape],
) -> Result<(), String> {
    // Barrier latency per design across the shapes (x: shape index, labelled in the title).
    let names: Vec<&str> = shapes.iter().map(|s| s.name.as_str()).collect();
    line_plot(
        &dir.join("barrier_latency.svg"),
        &format!(
            "barrier latency — shapes 1..{}: {}",
            names.len(),
            names.join(", ")
        ),
        "shape",
        "µs per barrier",
        &Series::all(out.barrier_series(shapes)),
        false,
        true,
    )?;
    let series = Series::all(out.mutex_series());
    if !series.is_empty() {
        // (none with --no-mutexes)
        line_plot(
            &dir.join("mutex_throughput.svg"),
            "mutex throughput (empty critical section)",
            "contending blocks",
            "Mops/s",
            &series,
            true,
            true,
        )?;
    }
    let Some((full, series)) = out.semaphore_series() else {
        return Ok(()); // --no-semaphores
    };
    line_plot(
        &dir.join("semaphore_throughput.svg"),
        &format!("semaphore throughput, {full} blocks"),
        "initial value",
        "Mops/s",
        &Series::all(series),
        true,
        true,
    )?;
    Ok(())
}
