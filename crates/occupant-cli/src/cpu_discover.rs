//! `occupant discover --backend cpu`: recall of occupancy discovery against the true
//! occupancy bound (the compute units of the occupancy-bound model), for the default protocol
//! (quiescent, with the executor's occupancy hint) beside seed 001's protocols (ticket and
//! test-and-set lock, several delays between polling and closing; seed 001 Table 5).

use crate::backend_arg::Backend;
use crate::cli_values::at_least_one;
use crate::linear_plot::line_chart_svg;
use crate::output_path::check_files;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use occupant::cpu::sync::{measure_discovery, DiscoveryKind, MutexKind};
use occupant::cpu::{ExecModel, Executor, Launch};
use occupant::model::Summary;
use occupant::model::Watchdog;
use occupant::NDRange;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `occupant discover`.
#[derive(Args, Debug)]
pub struct DiscoverArgs {
    /// Backend to run on.
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: Backend,
    /// True occupancy bounds: compute units of the occupancy-bound model, comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = at_least_one::<usize>, default_values_t = vec![2usize, 4, 8, 16])]
    pub compute_units: Vec<usize>,
    /// Groups launched (default: 4 x compute units).
    #[arg(long, value_parser = at_least_one::<usize>)]
    pub groups: Option<usize>,
    /// Work-items per group.
    #[arg(long, value_parser = at_least_one::<usize>, default_value_t = 16)]
    pub local_size: usize,
    /// Runs per configuration.
    #[arg(long, value_parser = at_least_one::<usize>, default_value_t = 50)]
    pub runs: usize,
    /// Delays of seed 001's protocol (lock/unlock rounds between polling and closing),
    /// comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = vec![0u32, 10, 100, 1000])]
    pub delays: Vec<u32>,
    /// Mutexes of seed 001's protocol, comma-separated (spin, spin_backoff, ticket,
    /// ticket_backoff); empty: only the default protocol.
    #[arg(long, value_delimiter = ',', default_values_t = vec!["ticket".to_string(), "spin".to_string()])]
    pub mutexes: Vec<String>,
    /// Write the results as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Draw recall against compute units, one line per protocol, into this SVG file.
    #[arg(long)]
    pub svg: Option<PathBuf>,
}

/// One (protocol, compute units) configuration, measured `runs` times.
#[derive(Serialize)]
struct Row {
    protocol: String,
    kind: DiscoveryKind,
    default: bool,
    occupancy_bound: usize,
    groups: usize,
    counts: Vec<usize>,
    discovered: Summary,
    recall: f64,
    launch_ms: Summary,
}

/// Mean recall of one protocol over every compute-unit count.
#[derive(Serialize)]
struct ProtocolRecall {
    protocol: String,
    default: bool,
    mean_recall: f64,
    min_recall: f64,
}

#[derive(Serialize)]
struct Report {
    experiment: &'static str,
    backend: &'static str,
    host_cores: usize,
    local_size: usize,
    runs: usize,
    protocols: Vec<ProtocolRecall>,
    rows: Vec<Row>,
}

/// The protocols measured: the default first, then seed 001's for every mutex and delay.
fn protocols(args: &DiscoverArgs) -> Result<Vec<DiscoveryKind>, String> {
    let mut kinds = vec![DiscoveryKind::default()];
    for m in args.mutexes.iter().filter(|m| !m.is_empty()) {
        let mutex = MutexKind::parse(m).ok_or_else(|| {
            format!("unknown mutex `{m}` (spin, spin_backoff, ticket, ticket_backoff)")
        })?;
        kinds.extend(
            args.delays
                .iter()
                .map(|&delay| DiscoveryKind::Locked { mutex, delay }),
        );
    }
    Ok(kinds)
}

/// Runs the experiment on the CPU backend (`main` sends `--backend cuda` to the CUDA one).
pub fn run(args: &DiscoverArgs) -> Result<(), String> {
    check_files(&[&args.json, &args.svg])?;
    let kinds = protocols(args)?;
    let total = (kinds.len() * args.compute_units.len() * args.runs) as u64;
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut rows = vec![];
    for &cu in &args.compute_units {
        let groups = args.groups.unwrap_or(4 * cu);
        let range = NDRange::groups(groups, args.local_size).map_err(|e| e.to_string())?;
        let model = ExecModel::OccupancyBound { compute_units: cu };
        let exec = Executor::new(model);
        let launch = Launch::new(range)
            .model(model)
            .watchdog(Watchdog::default().with_timeout(Duration::from_secs(10)));
        for &kind in &kinds {
            bar.set_message(format!("{kind}, {cu} compute units"));
            let runs = measure_discovery(&exec, &launch, kind, args.runs)
                .map_err(|e| format!("{kind}, {cu} compute units: {e}"))?;
            bar.inc(args.runs as u64);
            let counts: Vec<usize> = runs.iter().map(|r| r.participants).collect();
            let c: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
            let ms: Vec<f64> = runs.iter().map(|r| r.elapsed.as_secs_f64() * 1e3).collect();
            let bound = model.concurrency(groups);
            let discovered = Summary::of(&c);
            rows.push(Row {
                protocol: kind.to_string(),
                kind,
                default: kind == DiscoveryKind::default(),
                occupancy_bound: bound,
                groups,
                counts,
                recall: discovered.mean / bound as f64,
                discovered,
                launch_ms: Summary::of(&ms),
            });
        }
    }
    bar.finish_and_clear();
    let summary = per_protocol(&kinds, &rows);
    print_report(args, &rows, &summary);
    if let Some(path) = &args.svg {
        let series: Vec<(String, Vec<(f64, f64)>)> = kinds
            .iter()
            .map(|k| {
                let name = k.to_string();
                let pts = rows
                    .iter()
                    .filter(|r| r.protocol == name)
                    .map(|r| (r.occupancy_bound as f64, 100.0 * r.recall))
                    .collect();
                (name, pts)
            })
            .collect();
        line_chart_svg(
            path,
            &format!(
                "CPU discovery recall ({} host cores, {} runs per point)",
                occupant::cpu::available_cores(),
                args.runs
            ),
            ("compute units (occupancy bound)", "recall (%)"),
            105.0,
            &series,
        )?;
    }
    if let Some(path) = &args.json {
        let report = Report {
            experiment: "discover",
            backend: "cpu",
            host_cores: occupant::cpu::available_cores(),
            local_size: args.local_size,
            runs: args.runs,
            protocols: summary,
            rows,
        };
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    Ok(())
}

fn per_protocol(kinds: &[DiscoveryKind], rows: &[Row]) -> Vec<ProtocolRecall> {
    kinds
        .iter()
        .map(|k| {
            let name = k.to_string();
            let r: Vec<f64> = rows
                .iter()
                .filter(|r| r.protocol == name)
                .map(|r| r.recall)
                .collect();
            ProtocolRecall {
                default: *k == DiscoveryKind::default(),
                mean_recall: r.iter().sum::<f64>() / r.len().max(1) as f64,
                min_recall: r.iter().copied().fold(f64::INFINITY, f64::min),
                protocol: name,
            }
        })
        .collect()
}

fn print_report(args: &DiscoverArgs, rows: &[Row], summary: &[ProtocolRecall]) {
    println!(
        "occupancy discovery on the CPU backend: groups of {}, {} runs per configuration, {} host cores",
        args.local_size,
        args.runs,
        occupant::cpu::available_cores()
    );
    println!(
        "{:<20} {:>5} {:>6} {:>8} {:>5} {:>5} {:>7} {:>7} {:>11}",
        "protocol", "units", "groups", "mean", "min", "max", "stddev", "recall", "launch ms"
    );
    for r in rows {
        let name = if r.default {
            format!("{} (default)", r.protocol)
        } else {
            r.protocol.clone()
        };
        println!(
            "{:<20} {:>5} {:>6} {:>8.2} {:>5} {:>5} {:>7.2} {:>6.1}% {:>11.3}",
            name,
            r.occupancy_bound,
            r.groups,
            r.discovered.mean,
            r.discovered.min,
            r.discovered.max,
            r.discovered.stddev,
            100.0 * r.recall,
            r.launch_ms.mean
        );
    }
    println!("\nmean recall over {:?} compute units:", args.compute_units);
    for s in summary {
        println!(
            "  {:<20} {:>6.1}% (lowest {:.1}%)",
            if s.default {
                format!("{} (default)", s.protocol)
            } else {
                s.protocol.clone()
            },
            100.0 * s.mean_recall,
            100.0 * s.min_recall
        );
    }
}
