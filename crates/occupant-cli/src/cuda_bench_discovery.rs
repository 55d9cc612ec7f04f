//! `occupant bench discovery --backend cuda`: occupancy discovery's recall against the
//! occupancy API's bound and its protocol time, in four shapes (min/max shared memory × min/max
//! block size), for each way of closing the poll. Writes `<out>/discovery.json` and an SVG.

use crate::cli_values::at_least_one;
use crate::cuda_bench_common::{line_plot, open_cuda, out_dir, write_json, Series};
use crate::output_path::check_out_dir;
use occupant::cuda::sync::run::{median, run_discovery, DiscoveryRun};
use occupant::cuda::sync::DiscoveryMethod;
use occupant::model::Watchdog;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments.
#[derive(clap::Args)]
pub struct DiscoveryBenchArgs {
    /// Backend (only `cuda`).
    #[arg(long, default_value = "cuda")]
    backend: String,
    /// Results folder (default bench/results/<gpu>/).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Repetitions per configuration.
    #[arg(long, value_parser = at_least_one::<usize>, default_value_t = 5)]
    reps: usize,
    /// Blocks launched, as a multiple of the hardware bound.
    #[arg(long, value_parser = at_least_one::<usize>, default_value_t = 4)]
    oversubscribe: usize,
}

#[derive(Serialize)]
struct Summary {
    shape: String,
    method: String,
    hinted: bool,
    cluster: u32,
    occupancy_bound: usize,
    recall_mean: f64,
    recall_min: f64,
    protocol_us_median: f64,
    all_ids_contiguous: bool,
    all_agree: bool,
    runs: Vec<DiscoveryRun>,
}

impl DiscoveryBenchArgs {
    /// The defaults, as `occupant bench discovery --backend cuda` would parse them.
    pub fn defaults() -> Self {
        #[derive(clap::Parser)]
        struct Wrap {
            #[command(flatten)]
            args: DiscoveryBenchArgs,
        }
        <Wrap as clap::Parser>::parse_from(["occupant"]).args
    }
}

impl Summary {
    /// The series label: method, `+hint` when hinted, ` cN` for clusters of N.
    fn label(&self) -> String {
        let hint = if self.hinted { "+hint" } else { "" };
        let cluster = if self.cluster > 1 {
            format!(" c{}", self.cluster)
        } else {
            String::new()
        };
        format!("{}{hint}{cluster}", self.method)
    }
}

/// Runs it.
pub fn run(args: &DiscoveryBenchArgs) -> Result<(), String> {
    run_on(&open_cuda(&args.backend)?, args)
}

/// Runs it on `gpu`, already opened (`occupant discover --backend cuda`).
pub fn run_on(gpu: &occupant::cuda::Gpu, args: &DiscoveryBenchArgs) -> Result<(), String> {
    check_out_dir(&args.out)?;
    let info = gpu.info().clone();
    let w = Watchdog::default().with_timeout(Duration::from_secs(5));
    // Max shared memory: the opt-in limit, less 1 KiB for the kernel's static shared memory.
    let max_shared = info.max_shared_per_block - 1024;
    let shapes = [
        (32usize, 0u32),
        (1024, 0),
        (32, max_shared),
        (1024, max_shared),
    ];
    let configs: [(DiscoveryMethod, bool, u32); 5] = [
        (DiscoveryMethod::Quiescent, true, 1),
        (DiscoveryMethod::Quiescent, false, 1),
        (DiscoveryMethod::TicketLock, false, 1),
        (DiscoveryMethod::SpinLock, false, 1),
        (DiscoveryMethod::Quiescent, true, 8),
    ];
    let mut out = Vec::new();
    println!(
        "{:<14} {:<22} {:>7} {:>8} {:>8} {:>11}",
        "shape", "method", "bound", "recall", "min", "protocol"
    );
    for &(threads, shared) in &shapes {
        let shape = format!("{threads}t/{}KiB", shared / 1024);
        for &(method, hinted, cluster) in &configs {
            if cluster > 1 && threads == 32 {
                continue; // cluster discovery is shown at the block sizes the barriers use
            }
            let launched = (args.oversubscribe
                * info.resident_blocks_bound(threads as u32) as usize)
                / cluster as usize
                * cluster as usize;
            let mut runs = Vec::new();
            let mut err = None;
            for _ in 0..args.reps.max(1) {
                match run_discovery(gpu, method, hinted, launched, threads, shared, cluster, w) {
                    Ok(r) => runs.push(r),
                    Err(e) => {
                        err = Some(e.to_string());
                        break;
                    }
                }
            }
            let label = format!(
                "{}{}{}",
                method.name(),
                if hinted { "+hint" } else { "" },
                if cluster > 1 {
                    format!(" c{cluster}")
                } else {
                    String::new()
                }
            );
            if let Some(e) = err {
                println!("{shape:<14} {label:<22} error: {e}");
                continue;
            }
            let rec: Vec<f64> = runs.iter().map(|r| r.recall).collect();
            let t: Vec<f64> = runs.iter().map(|r| r.protocol_us).collect();
            let s = Summary {
                shape: shape.clone(),
                method: method.name().into(),
                hinted,
                cluster,
                occupancy_bound: runs[0].occupancy_bound,
                recall_mean: rec.iter().sum::<f64>() / rec.len() as f64,
                recall_min: rec.iter().copied().fold(f64::MAX, f64::min),
                protocol_us_median: median(&t),
                all_ids_contiguous: runs.iter().all(|r| r.ids_contiguous),
                all_agree: runs.iter().all(|r| r.agree),
                runs,
            };
            println!(
                "{shape:<14} {label:<22} {:>7} {:>7.1}% {:>7.1}% {:>9.1} us{}",
                s.occupancy_bound,
                100.0 * s.recall_mean,
                100.0 * s.recall_min,
                s.protocol_us_median,
                if s.all_ids_contiguous && s.all_agree {
                    ""
                } else {
                    "  ids/agreement FAILED"
                }
            );
            out.push(s);
        }
    }
    let dir = out_dir(gpu, &args.out)?;
    #[derive(Serialize)]
    struct File<'a> {
        device: &'a occupant::cuda::DeviceInfo,
        oversubscribe: usize,
        results: &'a [Summary],
    }
    let p = write_json(
        &dir,
        "discovery.json",
        &File {
            device: &info,
            oversubscribe: args.oversubscribe,
            results: &out,
        },
    )?;
    println!("wrote {}", p.display());
    let mut labels: Vec<String> = out.iter().map(Summary::label).collect();
    labels.sort();
    labels.dedup();
    let shape_names: Vec<String> = shapes
        .iter()
        .map(|(t, s)| format!("{t}t/{}KiB", s / 1024))
        .collect();
    let series: Vec<Series> = labels
        .iter()
        .map(|l| Series {
            label: l.clone(),
            points: out
                .iter()
                .filter(|s| &s.label() == l)
                .filter_map(|s| {
                    Some((
                        (shape_names.iter().position(|n| *n == s.shape)? + 1) as f64,
                        s.protocol_us_median,
                    ))
                })
                .collect(),
        })
        .collect();
    line_plot(
        &dir.join("discovery_time.svg"),
        &format!(
            "discovery protocol time — shapes 1..4: {}",
            shape_names.join(", ")
        ),
        "shape",
        "µs",
        &series,
        false,
        true,
    )?;
    Ok(())
}
