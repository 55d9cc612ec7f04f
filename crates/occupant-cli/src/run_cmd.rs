//! `occupant run <app>`: one graph application on a file or a generated graph, in one variant
//! or all of a backend's; a short summary, JSON, the per-vertex result as text.

use crate::backend_arg::{open_gpu_or_fall_back, Backend};
use crate::cli_values::at_least_one;
use crate::output_path;
use clap::Args;
use occupant::cpu::{ExecModel, Executor};
use occupant::cuda::Gpu;
use occupant_apps::apps::{
    AppKind, AppParams, AppSession, CpuOptions, RunReport, Variant, VariantRuns,
};
use occupant_apps::graph::{BuildOptions, Csr, GraphSource, SPEC_FORMS};
use serde_json::json;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `occupant run`.
#[derive(Args)]
#[command(after_help = format!(
    "APPS: {}\nCPU variants: {}\nCUDA variants: {}\n\nSPEC forms (--gen):\n{SPEC_FORMS}",
    AppKind::names(), Variant::names(false), Variant::names(true)
))]
pub struct RunArgs {
    /// The application: bfs, sssp, sssp-worklist, color, mis, bc, pagerank, cc.
    app: String,
    /// A graph file (.gr, .mtx, .txt/.snap/.el).
    #[arg(long, conflicts_with = "gen", required_unless_present = "gen")]
    graph: Option<PathBuf>,
    /// A generator spec instead of a file, e.g. `grid:1000x1000` or `rmat:scale=16`.
    #[arg(long)]
    gen: Option<String>,
    /// The backend.
    #[arg(long, value_enum, default_value = "cpu")]
    backend: Backend,
    /// A variant of the backend, or `all` (CPU: multi-launch, persistent; CUDA: multi-kernel,
    /// graph, graph-while, cooperative, occupancy-api, persistent).
    #[arg(long, default_value = "persistent")]
    variant: String,
    /// Source vertex of bfs, sssp, sssp-worklist and bc.
    #[arg(long, default_value_t = 0)]
    source: u32,
    /// Check every run against the sequential reference (a mismatch fails the command).
    #[arg(long)]
    verify: bool,
    /// Write the per-vertex result as text, one line per vertex (unreachable: `inf`); with
    /// `--variant all`, the first variant's.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Write the reports as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Runs per variant (the summary gives the fastest and the median).
    #[arg(long, default_value_t = 1, value_parser = at_least_one::<u32>)]
    runs: u32,
    /// CPU: compute units (default: the machine's cores).
    #[arg(long, value_parser = at_least_one::<usize>)]
    compute_units: Option<usize>,
    /// CPU: groups per launch (default: one per compute unit).
    #[arg(long, value_parser = at_least_one::<usize>)]
    groups: Option<usize>,
    /// CPU: work-items per group.
    #[arg(long, default_value_t = 1, value_parser = at_least_one::<usize>)]
    local_size: usize,
    /// PageRank: stop when the ranks move by at most this in L1 norm (sum of changes).
    #[arg(long, default_value_t = 1e-6)]
    tolerance: f64,
    /// PageRank: damping factor.
    #[arg(long, default_value_t = 0.85)]
    damping: f64,
    /// PageRank: most iterations.
    #[arg(long, default_value_t = 10_000, value_parser = at_least_one::<u32>)]
    max_iterations: u32,
    /// Seed of colour's and MIS's vertex priorities.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `occupant run`.
pub fn run(a: &RunArgs) -> Result<(), String> {
    let app = AppKind::parse(&a.app).ok_or_else(|| {
        format!(
            "unknown application `{}`; the applications are {}",
            a.app,
            AppKind::names()
        )
    })?;
    let cuda = a.backend == Backend::Cuda;
    let variants: Vec<Variant> = if a.variant == "all" {
        Variant::of_backend(cuda).to_vec()
    } else {
        vec![Variant::parse(cuda, &a.variant).ok_or_else(|| {
            format!(
                "unknown {} variant `{}`; the variants are {}, or all",
                if cuda { "CUDA" } else { "CPU" },
                a.variant,
                Variant::names(cuda)
            )
        })?]
    };
    if !(a.damping > 0.0 && a.damping < 1.0) {
        return Err(format!(
            "--damping {} must be between 0 and 1 (exclusive)",
            a.damping
        ));
    }
    if a.tolerance.is_nan() || a.tolerance <= 0.0 {
        return Err(format!("--tolerance {} must be positive", a.tolerance));
    }
    output_path::check_files(&[&a.output, &a.json])?;
    let source = match (&a.graph, &a.gen) {
        (Some(f), None) => GraphSource::File(f.clone()),
        (None, Some(s)) => GraphSource::Spec(s.parse().map_err(|e| format!("{e}"))?),
        _ => return Err("give a graph with --graph FILE or --gen SPEC".into()),
    };
    // The GPU before the graph (which may take long to load): without one, the CPU runs the
    // CUDA variants' counterparts.
    let gpu = if cuda {
        open_gpu_or_fall_back("run")?
    } else {
        None
    };
    let variants = if cuda && gpu.is_none() {
        let mut cpu: Vec<Variant> = Vec::new();
        for v in variants.iter().map(|v| v.cpu_counterpart()) {
            if !cpu.contains(&v) {
                cpu.push(v);
            }
        }
        cpu
    } else {
        variants
    };
    let t = Instant::now();
    let g = source
        .load(&BuildOptions::default())
        .map_err(|e| e.to_string())?;
    let load_s = t.elapsed().as_secs_f64();
    let n = g.num_vertices();
    if app.uses_source() && a.source >= n {
        return Err(format!(
            "--source {} is not a vertex of {source}: it has {n} vertices (0..{})",
            a.source,
            n.saturating_sub(1)
        ));
    }
    println!(
        "{source}: {n} vertices, {} edges (loaded in {load_s:.2} s)",
        g.num_edges()
    );
    let p = AppParams {
        source: a.source,
        tolerance: a.tolerance,
        damping: a.damping,
        max_iterations: a.max_iterations,
        seed: a.seed,
    };
    let mut session = session(a, gpu.as_ref(), app, &g, &p)?;
    let VariantRuns {
        mut reports,
        first_output,
        failures,
    } = session
        .run_variants(&variants, a.runs, a.verify, |runs| {
            if let Some(line) = RunReport::summary(runs) {
                println!("{line}");
            }
        })
        .map_err(|e| e.to_string())?;
    for r in &mut reports {
        r.graph = source.to_string();
    }
    if let (Some(path), Some(out)) = (&a.output, &first_output) {
        let f = std::fs::File::create(path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let mut w = BufWriter::new(f);
        out.write_text(&mut w)
            .and_then(|_| w.flush())
            .map_err(|e| format!("writing {}: {e}", path.display()))?;
        println!("wrote {} ({} per vertex)", path.display(), out.what());
    }
    if let Some(path) = &a.json {
        let doc = json!({
            "app": app.name(),
            "graph": source.to_string(),
            "vertices": n,
            "edges": g.num_edges(),
            "params": p,
            "runs": reports,
        });
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n")
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("verification failed:\n{}", failures.join("\n")))
    }
}

/// The session of `app` on `g` on `gpu`, else on the CPU (CUDA: programs compiled and the
/// input uploaded once for every variant and run).
fn session<'g>(
    a: &RunArgs,
    gpu: Option<&Gpu>,
    app: AppKind,
    g: &'g Csr,
    p: &AppParams,
) -> Result<AppSession<'g>, String> {
    if let Some(gpu) = gpu {
        return AppSession::cuda(gpu, app, g, p).map_err(|e| e.to_string());
    }
    let model = match a.compute_units {
        Some(compute_units) => ExecModel::OccupancyBound { compute_units },
        None => ExecModel::default_occupancy(),
    };
    let opts = CpuOptions {
        groups: a.groups,
        local_size: a.local_size,
    };
    Ok(AppSession::cpu(Executor::new(model), opts, app, g, p))
}
