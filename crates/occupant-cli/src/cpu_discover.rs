//! `occupant discover --backend cpu`: recall of occupancy discovery against the true
//! occupancy bound (the compute units of the occupancy-bound model), for the ticket and the
//! test-and-set lock and several delays between polling and closing (seed 001 Table 5).

use crate::backend_arg::Backend;
use crate::stats::Summary;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use occupant::cpu::sync::{Discovery, MutexKind};
use occupant::cpu::{ExecModel, Executor, Launch};
use occupant::model::Watchdog;
use occupant::NDRange;
use serde::Serialize;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `occupant discover`.
#[derive(Args, Debug)]
pub struct DiscoverArgs {
    /// Backend to run on.
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: Backend,
    /// True occupancy bound: compute units of the occupancy-bound model.
    #[arg(long, default_value_t = 4)]
    pub compute_units: usize,
    /// Groups launched (default: 4 x compute units).
    #[arg(long)]
    pub groups: Option<usize>,
    /// Work-items per group.
    #[arg(long, default_value_t = 16)]
    pub local_size: usize,
    /// Runs per configuration.
    #[arg(long, default_value_t = 50)]
    pub runs: usize,
    /// Delays (lock/unlock rounds between polling and closing), comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = vec![0u32, 10, 100, 1000])]
    pub delays: Vec<u32>,
    /// Mutexes, comma-separated (spin, spin_backoff, ticket, ticket_backoff).
    #[arg(long, value_delimiter = ',', default_values_t = vec!["ticket".to_string(), "spin".to_string()])]
    pub mutexes: Vec<String>,
    /// Write the results as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// One (mutex, delay) configuration, measured `runs` times.
#[derive(Serialize)]
struct Row {
    mutex: MutexKind,
    delay: u32,
    occupancy_bound: usize,
    groups: usize,
    counts: Vec<usize>,
    discovered: Summary,
    recall: f64,
    protocol_ms: Summary,
}

#[derive(Serialize)]
struct Report {
    experiment: &'static str,
    backend: &'static str,
    model: String,
    host_cores: usize,
    local_size: usize,
    runs: usize,
    rows: Vec<Row>,
}

/// Runs the experiment on the CPU backend (`main` sends `--backend cuda` to the CUDA one).
pub fn run(args: &DiscoverArgs) -> Result<(), String> {
    let cu = args.compute_units.max(1);
    let groups = args.groups.unwrap_or(4 * cu).max(1);
    let runs = args.runs.max(1);
    let mutexes = args
        .mutexes
        .iter()
        .map(|m| MutexKind::parse(m).ok_or_else(|| format!("unknown mutex `{m}`")))
        .collect::<Result<Vec<_>, _>>()?;
    let range = NDRange::groups(groups, args.local_size.max(1)).map_err(|e| e.to_string())?;
    let model = ExecModel::OccupancyBound { compute_units: cu };
    let exec = Executor::new(model);
    let launch = Launch::new(range)
        .model(model)
        .watchdog(Watchdog::default().with_timeout(Duration::from_secs(10)));

    let total = (mutexes.len() * args.delays.len() * runs) as u64;
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut rows = vec![];
    for &mutex in &mutexes {
        for &delay in &args.delays {
            bar.set_message(format!("{mutex} delay {delay}"));
            let mut counts = vec![];
            let mut ms = vec![];
            for _ in 0..runs {
                let disc = Discovery::new(groups, mutex, delay);
                let t = Instant::now();
                exec.launch_with(
                    &launch,
                    || (),
                    |item, _| {
                        let _ = disc.discover_group(item);
                    },
                )
                .map_err(|e| e.to_string())?;
                ms.push(t.elapsed().as_secs_f64() * 1e3);
                counts.push(disc.count());
                bar.inc(1);
            }
            let c: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
            let discovered = Summary::of(&c);
            rows.push(Row {
                mutex,
                delay,
                occupancy_bound: cu,
                groups,
                counts,
                recall: discovered.mean / cu as f64,
                discovered,
                protocol_ms: Summary::of(&ms),
            });
        }
    }
    bar.finish_and_clear();

    println!(
        "occupancy discovery on the CPU backend: occupancy bound {cu} (compute units), {groups} groups of {}, {runs} runs each, {} host cores",
        args.local_size,
        occupant::cpu::available_cores()
    );
    println!(
        "{:<15} {:>6} {:>8} {:>5} {:>5} {:>7} {:>7} {:>11}",
        "mutex", "delay", "mean", "min", "max", "stddev", "recall", "launch ms"
    );
    for r in &rows {
        println!(
            "{:<15} {:>6} {:>8.2} {:>5} {:>5} {:>7.2} {:>6.0}% {:>11.3}",
            r.mutex.name(),
            r.delay,
            r.discovered.mean,
            r.discovered.min,
            r.discovered.max,
            r.discovered.stddev,
            100.0 * r.recall,
            r.protocol_ms.mean
        );
    }
    if let Some(path) = &args.json {
        let report = Report {
            experiment: "discover",
            backend: "cpu",
            model: model.to_string(),
            host_cores: occupant::cpu::available_cores(),
            local_size: args.local_size,
            runs,
            rows,
        };
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    Ok(())
}
