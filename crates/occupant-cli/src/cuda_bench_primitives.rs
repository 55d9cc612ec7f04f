//! `occupant bench primitives --backend cuda`: barrier latency (ours and the comparators
//! grid.sync() and the naive counter barrier, same run), mutex throughput from 1 block to full
//! occupancy, and spinning vs sleeping semaphores. Writes `<out>/primitives.json` and SVG plots.

use crate::cli_values::at_least_one;
use crate::cuda_bench_common::{line_plot, open_cuda, out_dir, write_json, Series};
use crate::output_path::check_out_dir;
use occupant::cuda::sync::run::{
    run_barrier, run_grid_sync, run_mutex, run_naive_barrier, run_semaphore, BarrierRun, MutexRun,
    SemaphoreRun,
};
use occupant::cuda::sync::{BarrierKind, MutexKind, SemaphoreKind};
use occupant::model::Watchdog;
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

#[derive(Serialize)]
struct Output {
    device: occupant::cuda::DeviceInfo,
    barrier: Vec<BarrierPoint>,
    mutex: Vec<MutexRun>,
    semaphore: Vec<SemaphoreRun>,
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
    let shapes: Vec<(String, usize, usize)> = {
        let mut v = vec![(format!("{sms}x128"), sms, 128)];
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
        let mut designs: Vec<(String, Option<(BarrierKind, u32)>)> = vec![
            ("xf".into(), Some((BarrierKind::Xf, 1))),
            ("atomic".into(), Some((BarrierKind::Atomic, 1))),
            (
                "hierarchical (flat)".into(),
                Some((BarrierKind::Hierarchical, 1)),
            ),
        ];
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
    for &kind in MutexKind::ALL {
        let mut line = format!("  {:<15}", kind.name());
        for &b in &counts {
            let iters = (args.ops as usize / b).max(20) as u32;
            match run_mutex(&gpu, kind, b, 128, iters, false, wd()) {
                Ok(r) => {
                    line += &format!(" {b}:{:.2}", r.mops);
                    mutex.push(r);
                }
                Err(e) => line += &format!(" {b}:error({e})"),
            }
        }
        println!("{line}");
    }

    println!("semaphore throughput, Mops/s (wait+post, empty section)");
    let mut semaphore = Vec::new();
    // The spinning semaphores are unfair: beyond a few blocks per SM one block can starve past
    // the watchdog, so they are compared at 1 and 4 blocks per SM; the sleeping one also at full.
    for &b in &[sms, 4 * sms, full] {
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

    let dir = out_dir(&gpu, &args.out)?;
    let out = Output {
        device: info.clone(),
        barrier,
        mutex,
        semaphore,
    };
    let p = write_json(&dir, "primitives.json", &out)?;
    println!("wrote {}", p.display());
    plots(&dir, &out, &shapes)?;
    Ok(())
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
        &format!("barrier latency — shapes 1..4: {}", names.join(", ")),
        "shape",
        "µs per barrier",
        &series,
        false,
        true,
    )?;
    let series: Vec<Series> = MutexKind::ALL
        .iter()
        .map(|k| Series {
            label: k.name().into(),
            points: out
                .mutex
                .iter()
                .filter(|r| r.kind == *k)
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
