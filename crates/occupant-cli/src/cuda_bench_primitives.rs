//! `occupant bench primitives --backend cuda`: barrier latency (ours and the comparators
//! grid.sync() and the naive counter barrier, same run), mutex throughput from 1 block to full
//! occupancy, and spinning vs sleeping semaphores. Writes `<out>/primitives.json` and SVG plots.

use crate::cli_values::at_least_one;
use crate::cuda_bench_common::{line_plot, open_cuda, out_dir, write_json, Series};
use crate::output_path::check_out_dir;
use occupant::cuda::sync::run::{
    run_barrier, run_grid_sync, run_mutex_clustered, run_naive_barrier, run_semaphore, BarrierRun,
    MutexRun, SemaphoreRun,
};
use occupant::cuda::sync::{
    builtin_shape_table, BarrierKind, MachineAbstraction, MutexKind, SemaphoreKind,
};
use occupant::model::{LaunchShape, ShapeClass, ShapeTable, Watchdog};
use serde::Serialize;
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
    /// Skip the semaphores (barriers and mutexes only).
    #[arg(long)]
    no_semaphores: bool,
}

#[derive(Serialize)]
struct BarrierPoint {
    shape: String,
    design: String,
    blocks: usize,
    block_threads: usize,
    ns_per_barrier: Option<f64>,
    error: Option<String>,
    run: Option<BarrierRun>,
}

/// Per shape: our fastest barrier, grid.sync(), and the shape-aware default.
#[derive(Serialize)]
struct ShapeSummary {
    shape: String,
    best: Option<(String, f64)>,
    grid_sync_ns: Option<f64>,
    best_over_grid_sync: Option<f64>,
    default_kind: String,
    default_over_best: Option<f64>,
    /// The default the library's built-in table (an earlier run) chooses, and its cost in
    /// this run over this run's best: an independent check of the shape-aware default.
    builtin_default_kind: Option<String>,
    builtin_default_over_best: Option<f64>,
}

#[derive(Serialize)]
struct Output {
    device: occupant::cuda::DeviceInfo,
    barrier: Vec<BarrierPoint>,
    barrier_summary: Vec<ShapeSummary>,
    mutex: Vec<MutexRun>,
    semaphore: Vec<SemaphoreRun>,
    shape_table: ShapeTable,
}

fn wd() -> Watchdog {
    Watchdog::default().with_timeout(Duration::from_secs(5))
}

/// Runs it.
pub fn run(args: &PrimitivesBenchArgs) -> Result<(), String> {
    check_out_dir(&args.out)?;
    let gpu = open_cuda(&args.backend)?;
    let info = gpu.info().clone();
    let sms = info.sm_count as usize;
    let mut barrier = Vec::new();
    let mut table = ShapeTable::new(&info.name);
    let shapes: Vec<(String, usize, usize)> = {
        let mut v: Vec<(String, usize, usize)> = [128usize, 256, 1024]
            .iter()
            .map(|&t| (format!("{sms}x{t}"), sms, t))
            .collect();
        for t in [128usize, 256, 1024] {
            let b = info.resident_blocks_bound(t as u32) as usize;
            v.push((format!("{b}x{t}"), b, t));
        }
        v
    };
    println!(
        "barrier latency, ns per barrier ({} rounds, median over blocks)",
        args.rounds
    );
    for (shape, blocks, threads) in &shapes {
        let mut designs: Vec<(String, Option<(BarrierKind, u32)>)> = BarrierKind::ALL
            .iter()
            .map(|&k| {
                let name = if k == BarrierKind::Hierarchical {
                    "hierarchical (flat)".to_string()
                } else {
                    k.name().to_string()
                };
                (name, Some((k, 1)))
            })
            .collect();
        for c in [2u32, 4, 8] {
            if blocks % c as usize == 0 {
                designs.push((
                    format!("hierarchical (cluster {c})"),
                    Some((BarrierKind::Hierarchical, c)),
                ));
            }
        }
        designs.push(("grid.sync (cooperative)".into(), None));
        designs.push(("naive counter (no discovery)".into(), None));
        for (name, d) in designs {
            let (ns, run, err) = match d {
                Some((kind, c)) => {
                    match run_barrier(&gpu, kind, *blocks, *threads, c, args.rounds, false, wd()) {
                        Ok(r) => (Some(r.ns_per_barrier), Some(r), None),
                        Err(e) => (None, None, Some(e.to_string())),
                    }
                }
                None if name.starts_with("grid") => {
                    match run_grid_sync(&gpu, *blocks, *threads, args.rounds) {
                        Ok(ns) => (Some(ns), None, None),
                        Err(e) => (None, None, Some(e.to_string())),
                    }
                }
                None => match run_naive_barrier(&gpu, *blocks, *threads, args.rounds, wd()) {
                    Ok(ns) => (Some(ns), None, None),
                    Err(e) => (None, None, Some(e.to_string())),
                },
            };
            let parts = run.as_ref().map(|r| r.participants).unwrap_or(*blocks);
            if let (Some(ns), Some((kind, c))) = (ns, d) {
                let shape = LaunchShape::new(*blocks, *threads).with_cluster(c);
                table.record(ShapeClass::Barrier, kind.name(), shape, ns);
            }
            match (&ns, &err) {
                (Some(ns), _) => {
                    println!("  {shape:<10} {name:<30} {ns:>8.0} ns  ({parts} blocks)")
                }
                (None, Some(e)) => println!("  {shape:<10} {name:<30} error: {e}"),
                _ => {}
            }
            barrier.push(BarrierPoint {
                shape: shape.clone(),
                design: name,
                blocks: parts,
                block_threads: *threads,
                ns_per_barrier: ns,
                error: err,
                run,
            });
        }
    }

    let full = info.resident_blocks_bound(128) as usize;
    let mut counts = vec![1usize, 2, 4, 8, 16, 33, 66, sms, 2 * sms, 4 * sms, 8 * sms];
    counts.retain(|&c| c < full);
    counts.push(full);
    println!("mutex throughput, Mops/s (empty critical section, 128-thread blocks)");
    let mut mutex = Vec::new();
    let mut variants: Vec<(MutexKind, u32)> = MutexKind::ALL.iter().map(|&k| (k, 1)).collect();
    for &kind in MutexKind::ALL.iter().filter(|k| k.uses_clusters()) {
        variants.extend([2u32, 4, 8].map(|c| (kind, c)));
    }
    for (kind, cluster) in variants {
        let mut line = format!("  {:<22}", mutex_label(kind, cluster));
        for &b in &counts {
            let iters = (args.ops as usize / b).max(20) as u32;
            match run_mutex_clustered(&gpu, kind, b, 128, cluster, iters, false, wd()) {
                Ok(r) => {
                    line += &format!(" {b}:{:.2}", r.mops);
                    if r.mops > 0.0 {
                        let shape = LaunchShape::new(b, 128).with_cluster(cluster);
                        table.record(ShapeClass::Mutex, kind.name(), shape, 1e3 / r.mops);
                    }
                    mutex.push(r);
                }
                Err(e) => line += &format!(" {b}:error({e})"),
            }
        }
        println!("{line}");
    }
    println!("best mutex per contention (cluster 1 / any cluster), Mops/s:");
    for &b in &counts {
        let best = |any: bool| {
            mutex
                .iter()
                .filter(|r| r.blocks == b && (any || r.cluster == 1))
                .max_by(|x, y| x.mops.total_cmp(&y.mops))
                .map(|r| format!("{} {:.2}", mutex_label(r.kind, r.cluster), r.mops))
                .unwrap_or_default()
        };
        let builtin = builtin_shape_table(&info.name).and_then(|t| {
            t.best_where(ShapeClass::Mutex, LaunchShape::new(b, 128), |k| {
                MutexKind::parse(k).is_some()
            })
            .map(|(k, _)| k.to_string())
        });
        let builtin = builtin
            .and_then(|k| {
                let r = mutex
                    .iter()
                    .find(|r| r.blocks == b && r.cluster == 1 && r.kind.name() == k)?;
                Some(format!("; built-in default {k} {:.2}", r.mops))
            })
            .unwrap_or_default();
        println!("  {b:>5} blocks: {} / {}{builtin}", best(false), best(true));
    }

    println!("semaphore throughput, Mops/s (wait+post, empty section)");
    let mut semaphore = Vec::new();
    // The spinning semaphores are unfair: beyond a few blocks per SM one block can starve past
    // the watchdog, so they are compared at 1 and 4 blocks per SM; the sleeping one also at full.
    let semaphore_counts: &[usize] = if args.no_semaphores {
        &[]
    } else {
        &[sms, 4 * sms, full]
    };
    for &b in semaphore_counts {
        for &kind in SemaphoreKind::ALL {
            if b == full && b != 4 * sms && kind != SemaphoreKind::Sleeping {
                continue;
            }
            let mut line = format!("  {b:>5} blocks {:<13}", kind.name());
            for initial in [1u32, 2, 10, 120] {
                let iters = (args.ops as usize / 4 / b).max(10) as u32;
                match run_semaphore(&gpu, kind, initial, b, 128, iters, false, wd()) {
                    Ok(r) => {
                        line += &format!(" {initial}:{:.2}", r.mops);
                        semaphore.push(r);
                    }
                    Err(e) => line += &format!(" {initial}:error({e})"),
                }
            }
            println!("{line}");
        }
    }

    let barrier_summary = summarise(&barrier, &shapes, &table);
    let dir = out_dir(&gpu, &args.out)?;
    // The measured table goes with the device's machine abstraction, where the shape-aware
    // defaults load it (MachineAbstraction::store_path), and into the results folder.
    match MachineAbstraction::for_gpu(&gpu) {
        Ok(mut m) => {
            m.shapes = table.clone();
            if let Some(p) = MachineAbstraction::store_path(&info.name) {
                match m.save(&p) {
                    Ok(()) => println!(
                        "shape table stored with the machine abstraction: {}",
                        p.display()
                    ),
                    Err(e) => println!("could not store the shape table: {e}"),
                }
            }
        }
        Err(e) => println!("no machine abstraction to store the shape table with: {e}"),
    }
    let out = Output {
        device: info.clone(),
        barrier,
        barrier_summary,
        mutex,
        semaphore,
        shape_table: table,
    };
    let p = write_json(&dir, "primitives.json", &out)?;
    println!("wrote {}", p.display());
    let p = write_json(&dir, "shape-table.json", &out.shape_table)?;
    println!("wrote {}", p.display());
    plots(&dir, &out, &shapes)?;
    Ok(())
}

fn mutex_label(kind: MutexKind, cluster: u32) -> String {
    if cluster > 1 {
        format!("{} (cluster {cluster})", kind.name())
    } else {
        kind.name().to_string()
    }
}

/// Per shape: the fastest of ours, grid.sync(), and the shape-aware default's cost (from the
/// table measured in this run, so it shows the choice, not an independent check).
fn summarise(
    barrier: &[BarrierPoint],
    shapes: &[(String, usize, usize)],
    table: &ShapeTable,
) -> Vec<ShapeSummary> {
    println!("barrier per shape: best of ours vs grid.sync(), and the shape-aware default");
    let mut v = Vec::new();
    for (shape, blocks, threads) in shapes {
        let ours = barrier
            .iter()
            .filter(|b| &b.shape == shape && b.run.is_some() && b.ns_per_barrier.is_some());
        let best = ours
            .min_by(|a, b| {
                a.ns_per_barrier
                    .unwrap_or(f64::MAX)
                    .total_cmp(&b.ns_per_barrier.unwrap_or(f64::MAX))
            })
            .map(|b| (b.design.clone(), b.ns_per_barrier.unwrap_or(0.0)));
        let grid = barrier
            .iter()
            .find(|b| &b.shape == shape && b.design.starts_with("grid.sync"))
            .and_then(|b| b.ns_per_barrier);
        let query = LaunchShape::new(*blocks, *threads);
        let default = table
            .best_where(ShapeClass::Barrier, query, |k| {
                BarrierKind::parse(k).is_some()
            })
            .map(|(k, ns)| (k.to_string(), ns));
        let ratio = match (&best, grid) {
            (Some((_, b)), Some(g)) if g > 0.0 => Some(b / g),
            _ => None,
        };
        let dob = match (&default, &best) {
            (Some((_, d)), Some((_, b))) if *b > 0.0 => Some(d / b),
            _ => None,
        };
        let builtin = builtin_shape_table(&table.measured_on).and_then(|t| {
            t.best_where(ShapeClass::Barrier, query, |k| {
                BarrierKind::parse(k).is_some()
            })
            .map(|(k, _)| k.to_string())
        });
        let builtin_ratio = builtin.as_ref().and_then(|k| {
            let here = table
                .ranking(ShapeClass::Barrier, query)
                .into_iter()
                .find(|(n, _)| n == k)?
                .1;
            Some(here / best.as_ref()?.1)
        });
        println!(
            "  {shape:<10} best {:<28} grid.sync {:>7.0} ns  ratio {:.2}  default {} ({:.2}x best)",
            best.as_ref()
                .map(|(n, ns)| format!("{n} {ns:.0} ns"))
                .unwrap_or_default(),
            grid.unwrap_or(0.0),
            ratio.unwrap_or(0.0),
            default.as_ref().map(|d| d.0.as_str()).unwrap_or("-"),
            dob.unwrap_or(0.0)
        );
        v.push(ShapeSummary {
            shape: shape.clone(),
            best,
            grid_sync_ns: grid,
            best_over_grid_sync: ratio,
            default_kind: default.map(|d| d.0).unwrap_or_default(),
            default_over_best: dob,
            builtin_default_kind: builtin,
            builtin_default_over_best: builtin_ratio,
        });
        if let Some(s) = v.last() {
            if let (Some(k), Some(r)) = (&s.builtin_default_kind, s.builtin_default_over_best) {
                println!("  {shape:<10} built-in table's default {k}: {r:.2}x this run's best");
            }
        }
    }
    v
}

fn plots(
    dir: &std::path::Path,
    out: &Output,
    shapes: &[(String, usize, usize)],
) -> Result<(), String> {
    // Barrier latency per design across the shapes (x: shape index, labelled in the title).
    let mut designs: Vec<String> = out.barrier.iter().map(|b| b.design.clone()).collect();
    designs.dedup();
    designs.sort();
    designs.dedup();
    let series: Vec<Series> = designs
        .iter()
        .map(|d| Series {
            label: d.clone(),
            points: out
                .barrier
                .iter()
                .filter(|b| &b.design == d)
                .filter_map(|b| {
                    let i = shapes.iter().position(|s| s.0 == b.shape)?;
                    Some(((i + 1) as f64, b.ns_per_barrier? / 1e3))
                })
                .collect(),
        })
        .collect();
    let names: Vec<&str> = shapes.iter().map(|s| s.0.as_str()).collect();
    line_plot(
        &dir.join("barrier_latency.svg"),
        &format!(
            "barrier latency — shapes 1..{}: {}",
            names.len(),
            names.join(", ")
        ),
        "shape",
        "µs per barrier",
        &series,
        false,
        true,
    )?;
    let mut labels: Vec<(MutexKind, u32)> = Vec::new();
    for r in &out.mutex {
        if !labels.contains(&(r.kind, r.cluster)) {
            labels.push((r.kind, r.cluster));
        }
    }
    let series: Vec<Series> = labels
        .iter()
        .map(|&(k, c)| Series {
            label: mutex_label(k, c),
            points: out
                .mutex
                .iter()
                .filter(|r| r.kind == k && r.cluster == c)
                .map(|r| (r.blocks as f64, r.mops))
                .collect(),
        })
        .collect();
    line_plot(
        &dir.join("mutex_throughput.svg"),
        "mutex throughput (empty critical section)",
        "contending blocks",
        "Mops/s",
        &series,
        true,
        true,
    )?;
    if out.semaphore.is_empty() {
        return Ok(()); // --no-semaphores
    }
    let full = out
        .semaphore
        .iter()
        .filter(|r| r.kind != SemaphoreKind::Sleeping)
        .map(|r| r.blocks)
        .max()
        .unwrap_or(0);
    let series: Vec<Series> = SemaphoreKind::ALL
        .iter()
        .map(|k| Series {
            label: k.name().into(),
            points: out
                .semaphore
                .iter()
                .filter(|r| r.kind == *k && r.blocks == full)
                .map(|r| (f64::from(r.initial), r.mops))
                .collect(),
        })
        .collect();
    line_plot(
        &dir.join("semaphore_throughput.svg"),
        &format!("semaphore throughput, {full} blocks"),
        "initial value",
        "Mops/s",
        &series,
        true,
        true,
    )?;
    Ok(())
}
