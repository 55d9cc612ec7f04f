//! `occupant discover --backend cpu`: the arguments, progress bar, table, JSON and SVG of
//! `occupant::cpu::sync::discovery_recall_study` (recall of occupancy discovery against the
//! true occupancy bound, the default protocol beside seed 001's; seed 001 Table 5).

use crate::backend_arg::Backend;
use crate::cli_values::at_least_one;
use crate::linear_plot::line_chart_svg;
use crate::output_path::check_files;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use occupant::cpu::sync::{
    discovery_recall_study, seed_protocols, DiscoveryKind, MutexKind, RecallStudyConfig,
};
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

/// The protocols measured: the default first, then seed 001's for every mutex and delay.
fn protocols(args: &DiscoverArgs) -> Result<Vec<DiscoveryKind>, String> {
    let mutexes = args
        .mutexes
        .iter()
        .filter(|m| !m.is_empty())
        .map(|m| {
            MutexKind::parse(m).ok_or_else(|| {
                format!("unknown mutex `{m}` (spin, spin_backoff, ticket, ticket_backoff)")
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(seed_protocols(&mutexes, &args.delays))
}

/// Runs the experiment on the CPU backend (`main` sends `--backend cuda` to the CUDA one).
pub fn run(args: &DiscoverArgs) -> Result<(), String> {
    check_files(&[&args.json, &args.svg])?;
    let cfg = RecallStudyConfig {
        compute_units: args.compute_units.clone(),
        groups: args.groups,
        local_size: args.local_size,
        runs: args.runs,
        protocols: protocols(args)?,
        timeout: Duration::from_secs(10),
    };
    let total = (cfg.protocols.len() * cfg.compute_units.len() * cfg.runs) as u64;
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut current = String::new();
    let report = discovery_recall_study(&cfg, &mut |what, done| {
        if done {
            bar.inc(cfg.runs as u64);
        } else {
            bar.set_message(what.to_string());
            current = what.to_string();
        }
    })
    .map_err(|e| format!("{current}: {e}"))?;
    bar.finish_and_clear();
    print!("{}", report.table());
    if let Some(path) = &args.svg {
        line_chart_svg(
            path,
            &format!(
                "CPU discovery recall ({} host cores, {} runs per point)",
                report.host_cores, args.runs
            ),
            ("compute units (occupancy bound)", "recall (%)"),
            105.0,
            &report.series(),
        )?;
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    Ok(())
}
