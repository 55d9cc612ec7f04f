//! `occupant multitask`: seed 000 §5 — a cooperative kernel shares its compute units with a
//! periodic other launch (gather time per share, period met, slowdown, overhead). The
//! experiment lives in `occupant_apps::coop::multitask`; this is argument parsing, printing,
//! JSON and SVG.

use crate::backend_arg::Backend;
use crate::cli_values::at_least_one;
use crate::output_path;
use crate::plot::{panels_svg, Panel};
use clap::Args;
use occupant::model::coop::ResizeVariant;
use occupant_apps::coop::multitask::{
    self, App, MultitaskConfig, MultitaskResult, Share, Workload,
};
use occupant_apps::graph::{BuildOptions, GraphSource};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `occupant multitask`.
#[derive(Args, Debug)]
pub struct MultitaskArgs {
    /// The cooperative app: `octree`, `game` (work stealing with offer_kill/request_fork), `bfs` or `sssp` (resizing barriers; need --graph or --gen); with --backend cuda also `cc`, `pagerank`, `color`, `mis` (need a graph).
    #[arg(long, default_value = "octree")]
    pub app: String,
    /// A graph file (.gr, .mtx, .txt/.snap/.el) for bfs/sssp.
    #[arg(long, conflicts_with = "gen")]
    pub graph: Option<PathBuf>,
    /// A generated graph for bfs/sssp (a spec as in `occupant run --gen`, e.g. grid:w=1000,h=1000).
    #[arg(long)]
    pub gen: Option<String>,
    /// Source vertex of bfs/sssp.
    #[arg(long, default_value = "0")]
    pub source: u32,
    /// Resizing-barrier variants for bfs/sssp, comma-separated: regular, query.
    #[arg(long, value_delimiter = ',', default_value = "regular,query")]
    pub barrier: Vec<String>,
    /// Workloads, comma-separated: light (P=70 E=3 ms), medium (P=40 E=3), heavy (P=40 E=10).
    #[arg(long, value_delimiter = ',', default_value = "light,medium,heavy")]
    pub workload: Vec<String>,
    /// Shares of the compute units the other work asks for, comma-separated: 1, quarter, half, all-but-one.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,quarter,half,all-but-one"
    )]
    pub groups: Vec<String>,
    /// Backend.
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: Backend,
    /// CPU: compute units of the cooperative scheduler (the app's groups).
    #[arg(long, default_value = "8", value_parser = at_least_one::<usize>)]
    pub units: usize,
    /// Timed runs of the app alone (persistent and cooperative; median). CUDA: paired
    /// repetitions of each co-run (alone, co-run, co-run, alone).
    #[arg(long, default_value = "3", value_parser = at_least_one::<usize>)]
    pub repeats: usize,
    /// Octree points (default 1 500 000; CUDA 1 000 000).
    #[arg(long, value_parser = at_least_one::<usize>)]
    pub points: Option<usize>,
    /// Game search depth in plies (default 12).
    #[arg(long, value_parser = at_least_one::<u32>)]
    pub depth: Option<u32>,
    /// How long a request may wait for its units, ms.
    #[arg(long, default_value = "2000", value_parser = at_least_one::<u64>)]
    pub gather_timeout_ms: u64,
    /// CUDA: rounds per cooperative-kernel run — traversals from 4 sources (bfs, sssp), runs
    /// (cc, pagerank, color, mis, bc, sssp-worklist), point-set instances (octree), roots
    /// (game, ≤ 49).
    #[arg(long, default_value = "80", value_parser = at_least_one::<u32>)]
    pub rounds: u32,
    /// Least kernel time of each co-run, ms (the app runs back to back until it is covered).
    #[arg(long, default_value = "3000", value_parser = at_least_one::<u64>)]
    pub corun_ms: u64,
    /// CUDA: no co-run — the cooperative kernel against its persistent twin alone
    /// (persistent, regular, query; two launches each per repetition, --repeats repetitions,
    /// every launch verified): issue 12's overhead figure for any app and input.
    #[arg(long)]
    pub overhead: bool,
    /// Write the results as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the figures (Fig. 5 and Fig. 6 shapes) as SVG here (default: the JSON path with .svg).
    #[arg(long)]
    pub svg: Option<PathBuf>,
}

/// Runs the command.
pub fn run(a: &MultitaskArgs) -> Result<(), String> {
    let svg = a
        .svg
        .clone()
        .or_else(|| a.json.as_ref().map(|j| j.with_extension("svg")));
    output_path::check_files(&[&a.json, &svg])?;
    let workloads = a
        .workload
        .iter()
        .map(|w| Workload::parse(w))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let shares = a
        .groups
        .iter()
        .map(|s| Share::parse(s))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let variants = a
        .barrier
        .iter()
        .map(|b| match b.as_str() {
            "regular" => Ok(ResizeVariant::Regular),
            "query" => Ok(ResizeVariant::Query),
            _ => Err(format!("--barrier `{b}`: expected regular or query")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if a.backend == Backend::Cuda {
        // A kernel launched beside a spinning one waits for it under lazy module loading
        // (../shared/GPU.md): load eagerly, before the process opens the GPU.
        std::env::set_var("CUDA_MODULE_LOADING", "EAGER");
        if let Some(gpu) = crate::backend_arg::open_gpu_or_fall_back("multitask")? {
            // The CUDA runner writes JSON, a table and (co-runs) the figures.
            return crate::multitask_cuda::run(
                a,
                &gpu,
                &variants,
                a.json.as_deref(),
                svg.as_deref(),
            );
        }
    }
    if a.overhead {
        return Err(
            "multitask --overhead measures the CUDA kernels (--backend cuda); the CPU run's \
                    table already gives cooperative vs persistent alone"
                .into(),
        );
    }
    let mut app = match (&a.graph, &a.gen) {
        (None, None) => App::parse(&a.app).map_err(|e| e.to_string())?,
        (g, s) => {
            let source = match (g, s) {
                (Some(f), _) => GraphSource::File(f.clone()),
                (None, Some(s)) => GraphSource::Spec(s.parse().map_err(|e| format!("{e}"))?),
                _ => unreachable!(),
            };
            eprintln!("multitask: loading {source}");
            let g = source
                .load(&BuildOptions::default())
                .map_err(|e| e.to_string())?;
            App::graph(&a.app, g, source.to_string(), a.source).map_err(|e| e.to_string())?
        }
    };
    match &mut app {
        App::Octree(p) => p.points = a.points.unwrap_or(p.points),
        App::Game(p) => {
            p.depth = a.depth.unwrap_or(p.depth);
            p.split = p.split.min(p.depth);
        }
        App::Graph { .. } => {}
    }
    let cfg = MultitaskConfig {
        app,
        workloads,
        shares,
        units: a.units,
        repeats: a.repeats,
        gather_timeout: Duration::from_millis(a.gather_timeout_ms),
        min_corun: Duration::from_millis(a.corun_ms),
        variants,
    };
    let result =
        multitask::run(&cfg, &|s| eprintln!("multitask: {s}")).map_err(|e| e.to_string())?;
    print!("{}", result.table());
    if let Some(j) = &a.json {
        let text = serde_json::to_string_pretty(&result).map_err(|e| e.to_string())?;
        std::fs::write(j, text).map_err(|e| format!("writing {}: {e}", j.display()))?;
        eprintln!("wrote {}", j.display());
    }
    if let Some(s) = &svg {
        figures(&result, s)?;
        eprintln!("wrote {}", s.display());
    }
    Ok(())
}

/// Fig. 5 shape (gather and execution time of the other work per share, log scale) and Fig. 6
/// shape (app slowdown and achieved period per share), one series per workload.
fn figures(r: &MultitaskResult, path: &std::path::Path) -> Result<(), String> {
    let mut names: Vec<(&str, ResizeVariant)> = Vec::new();
    for c in &r.coruns {
        if !names.contains(&(c.workload.name, c.barrier)) {
            names.push((c.workload.name, c.barrier));
        }
    }
    let barriers = r.app.uses_barriers();
    let series =
        |f: &dyn Fn(&multitask::CoRun) -> f64, suffix: &str| -> Vec<(String, Vec<(f64, f64)>)> {
            names
                .iter()
                .map(|(w, b)| {
                    (
                        if barriers {
                            format!("{w} {b}{suffix}")
                        } else {
                            format!("{w}{suffix}")
                        },
                        r.coruns
                            .iter()
                            .filter(|c| c.workload.name == *w && c.barrier == *b)
                            .map(|c| (c.units as f64, f(c)))
                            .collect(),
                    )
                })
                .collect()
        };
    let mut fig5 = series(&|c| c.median_gather_taken_us.max(0.1), " gather");
    fig5.extend(series(&|c| c.median_exec_us, " exec"));
    let panels = vec![
        Panel {
            title: format!("{}: other work, gather and execution (µs)", r.app.name()),
            x_label: format!("units taken (of {})", r.units),
            y_label: "µs (median)".into(),
            series: fig5,
        },
        Panel {
            title: "cooperative app slowdown (co-run / alone)".into(),
            x_label: format!("units taken (of {})", r.units),
            y_label: "slowdown".into(),
            series: series(&|c| c.slowdown, ""),
        },
        Panel {
            title: "achieved period of the other work (ms)".into(),
            x_label: format!("units taken (of {})", r.units),
            y_label: "ms".into(),
            series: series(&|c| c.achieved_period_ms.max(0.1), ""),
        },
    ];
    panels_svg(path, &panels)
}
