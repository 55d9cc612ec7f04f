//! The applications benchmark (issue 10): apps × inputs × variants, `runs` timed runs each
//! (min and median), every output verified, speedups of every variant over a baseline and
//! their geometric means. Backend-neutral: [`bench()`] takes the function that runs one
//! application; [`bench_cpu`] is the CPU backend's, and the CUDA backend passes its own
//! (`occupant bench apps`). [`speedup_svg`](super::speedup_svg) draws the result.

mod compare;
pub use compare::{comparison_table, sign_test, Comparison, Verdict};

use super::{verify, AppKind, AppOutput, AppParams, RunReport, Variant};
use crate::graph::Csr;
use occupant::cpu::Executor;
use occupant::{Error, Result};
use serde::Serialize;

/// One benchmark input.
pub struct BenchInput {
    /// Short name for tables and figures (e.g. `grid-200x200`).
    pub name: String,
    /// Input class for the geometric means, e.g. `high-diameter` / `low-diameter`.
    pub class: String,
    /// The graph.
    pub graph: Csr,
}

/// What to run.
#[derive(Clone, Debug, Serialize)]
pub struct BenchConfig {
    /// The applications.
    pub apps: Vec<AppKind>,
    /// The variants, baseline included.
    pub variants: Vec<Variant>,
    /// The variant speedups are relative to (multi-launch on the CPU, multi-kernel on CUDA).
    pub baseline: Variant,
    /// Timed runs per (app, input, variant), after one untimed warm-up run; the variants'
    /// runs are interleaved.
    pub runs: u32,
    /// Application parameters (the source is vertex 0 of every input).
    pub params: AppParams,
}

/// The timings of one (app, input, variant).
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    /// Application.
    pub app: String,
    /// Input name.
    pub input: String,
    /// Input class.
    pub class: String,
    /// Variant.
    pub variant: String,
    /// Vertices of the input.
    pub vertices: u32,
    /// Edges of the input.
    pub edges: u64,
    /// Steps (phases separated by a launch or a barrier) of the last run.
    pub iterations: u32,
    /// Participating groups of a persistent variant (the most over the runs).
    pub participants: Option<u32>,
    /// The fewest participating groups over the runs (discovery under load can find fewer).
    pub participants_min: Option<u32>,
    /// Fastest run, ms.
    pub min_ms: f64,
    /// Median run, ms.
    pub median_ms: f64,
    /// `min_ms / iterations`: the time of one step, its separation (launch or barrier)
    /// included, µs.
    pub us_per_iteration: f64,
    /// Edges per second at the fastest run.
    pub edges_per_s: f64,
    /// Every run's time, ms.
    pub times_ms: Vec<f64>,
    /// Every run's output passed [`verify`].
    pub verified: bool,
    /// Where the iterations of the fastest run went (CUDA device loops compiled with
    /// `-DOCC_APP_TRACE` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub barrier_trace: Option<super::cuda::BarrierTrace>,
}

/// A variant's speedup over the baseline on one (app, input): baseline min / variant min.
#[derive(Clone, Debug, Serialize)]
pub struct Speedup {
    /// Application.
    pub app: String,
    /// Input.
    pub input: String,
    /// Input class.
    pub class: String,
    /// The variant.
    pub variant: String,
    /// Baseline min time / variant min time (> 1: the variant is faster).
    pub speedup: f64,
}

/// The geometric mean of a variant's speedups over one input class (`"all"` for every input).
#[derive(Clone, Debug, Serialize)]
pub struct Geomean {
    /// The variant.
    pub variant: String,
    /// Input class, or `all`.
    pub class: String,
    /// Geometric mean of the speedups.
    pub speedup: f64,
    /// How many speedups it averages.
    pub count: usize,
}

/// The whole benchmark.
#[derive(Clone, Debug, Serialize)]
pub struct BenchResults {
    /// `cpu` or `cuda`.
    pub backend: String,
    /// The device in words (CPU model and compute units, GPU name).
    pub device: String,
    /// The configuration.
    pub config: BenchConfig,
    /// Every (app, input, variant).
    pub rows: Vec<BenchRow>,
    /// Every non-baseline variant over the baseline.
    pub speedups: Vec<Speedup>,
    /// Geometric means per variant and class.
    pub geomeans: Vec<Geomean>,
}

/// Runs the benchmark with `run` (one application run on the backend) and checks every
/// output; a failed verification is an [`Error::Input`] naming the run. `progress` is called
/// after each (app, input, variant) with its row.
pub fn bench<R, P>(
    backend: &str,
    device: &str,
    inputs: &[BenchInput],
    config: &BenchConfig,
    mut run: R,
    mut progress: P,
) -> Result<BenchResults>
where
    R: FnMut(AppKind, Variant, &Csr, &AppParams) -> Result<(AppOutput, RunReport)>,
    P: FnMut(&BenchRow),
{
    let mut rows = Vec::new();
    let p = &config.params;
    for input in inputs {
        for &app in &config.apps {
            // Warm up every variant, then interleave the timed runs (A B A B …) so that the
            // load of a shared host falls on every variant alike.
            for &variant in &config.variants {
                run(app, variant, &input.graph, p)?;
            }
            let nv = config.variants.len();
            let mut times = vec![Vec::new(); nv];
            let mut participants = vec![Vec::new(); nv];
            let mut last: Vec<Option<RunReport>> = vec![None; nv];
            for _ in 0..config.runs.max(1) {
                for (i, &variant) in config.variants.iter().enumerate() {
                    let (out, r) = run(app, variant, &input.graph, p)?;
                    verify(app, &input.graph, p, &out).map_err(|e| {
                        Error::Input(format!("{app} {variant} on {}: {e}", input.name))
                    })?;
                    times[i].push(r.time_ms);
                    participants[i].extend(r.participants);
                    last[i] = Some(r);
                }
            }
            for (i, &variant) in config.variants.iter().enumerate() {
                let r = last[i].take().expect("at least one run");
                let mut sorted = times[i].clone();
                sorted.sort_by(f64::total_cmp);
                let min_ms = sorted[0];
                let row = BenchRow {
                    app: app.name().into(),
                    input: input.name.clone(),
                    class: input.class.clone(),
                    variant: variant.name().into(),
                    vertices: r.vertices,
                    edges: r.edges,
                    iterations: r.iterations,
                    participants: participants[i].iter().copied().max(),
                    participants_min: participants[i].iter().copied().min(),
                    min_ms,
                    median_ms: sorted[sorted.len() / 2],
                    us_per_iteration: min_ms * 1e3 / f64::from(r.iterations.max(1)),
                    edges_per_s: r.edges as f64 / (min_ms / 1e3),
                    times_ms: std::mem::take(&mut times[i]),
                    verified: true,
                    barrier_trace: None,
                };
                progress(&row);
                rows.push(row);
            }
        }
    }
    let speedups = speedups(&rows, config.baseline.name());
    let geomeans = geomeans(&speedups);
    Ok(BenchResults {
        backend: backend.into(),
        device: device.into(),
        config: config.clone(),
        rows,
        speedups,
        geomeans,
    })
}

/// Every non-baseline row's speedup over the baseline row of the same app and input.
pub fn speedups(rows: &[BenchRow], baseline: &str) -> Vec<Speedup> {
    rows.iter()
        .filter(|r| r.variant != baseline)
        .filter_map(|r| {
            let base = rows
                .iter()
                .find(|b| b.variant == baseline && b.app == r.app && b.input == r.input)?;
            Some(Speedup {
                app: r.app.clone(),
                input: r.input.clone(),
                class: r.class.clone(),
                variant: r.variant.clone(),
                speedup: base.min_ms / r.min_ms,
            })
        })
        .collect()
}

/// Geometric means of the speedups per variant, per class and over all inputs.
pub fn geomeans(speedups: &[Speedup]) -> Vec<Geomean> {
    let mut keys: Vec<(String, String)> = Vec::new();
    for s in speedups {
        for class in [s.class.clone(), "all".to_string()] {
            let k = (s.variant.clone(), class);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    keys.into_iter()
        .map(|(variant, class)| {
            let xs: Vec<f64> = speedups
                .iter()
                .filter(|s| s.variant == variant && (class == "all" || s.class == class))
                .map(|s| s.speedup.ln())
                .collect();
            Geomean {
                speedup: (xs.iter().sum::<f64>() / xs.len() as f64).exp(),
                count: xs.len(),
                variant,
                class,
            }
        })
        .collect()
}

/// The CPU benchmark: both CPU variants on `exec`, multi-launch as the baseline.
///
/// ```
/// use occupant::cpu::{ExecModel, Executor};
/// use occupant_apps::apps::bench::{bench_cpu, BenchInput};
/// use occupant_apps::apps::AppKind;
/// use occupant_apps::graph::Csr;
/// let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
/// let g = Csr::from_edges(3, &[(0, 1), (1, 2)], None).unwrap();
/// let inputs = [BenchInput { name: "path".into(), class: "high-diameter".into(), graph: g }];
/// let r = bench_cpu(&exec, &inputs, &[AppKind::Bfs], 2, |_| {})?;
/// assert_eq!(r.rows.len(), 2);
/// assert_eq!(r.speedups[0].variant, "persistent");
/// # Ok::<(), occupant::Error>(())
/// ```
pub fn bench_cpu<P: FnMut(&BenchRow)>(
    exec: &Executor,
    inputs: &[BenchInput],
    apps: &[AppKind],
    runs: u32,
    progress: P,
) -> Result<BenchResults> {
    let config = BenchConfig {
        apps: apps.to_vec(),
        variants: Variant::CPU.to_vec(),
        baseline: Variant::CpuMultiLaunch,
        runs,
        params: AppParams::default(),
    };
    let device = format!(
        "{} ({}, {} cores available)",
        cpu_model(),
        exec.config().model,
        occupant::cpu::available_cores()
    );
    bench(
        "cpu",
        &device,
        inputs,
        &config,
        |app, variant, g, p| super::run_cpu(exec, app, variant, g, p),
        progress,
    )
}

/// The CPU's model name (Linux `/proc/cpuinfo`), or `cpu`.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "cpu".into())
}

/// The CPU benchmark's inputs, sized to run in seconds on a 2-core host: a road-like 2-D grid
/// with random weights and a 5-point stencil grid (both high-diameter), and an R-MAT graph
/// (Graph500 parameters, low diameter). Returned as `(name, class, spec)`.
pub const CPU_INPUTS: [(&str, &str, &str); 3] = [
    ("grid-200x200", "high-diameter", "grid:w=200,h=200,seed=1"),
    ("stencil-200x200", "high-diameter", "stencil:w=200,h=200"),
    ("rmat-14", "low-diameter", "rmat:scale=14,ef=16,seed=1"),
];

/// Generates `(name, class, spec)` inputs such as [`CPU_INPUTS`].
pub fn generate_inputs(specs: &[(&str, &str, &str)]) -> Result<Vec<BenchInput>> {
    specs
        .iter()
        .map(|&(name, class, spec)| {
            let spec: crate::graph::GraphSpec =
                spec.parse().map_err(|e| Error::Input(format!("{e}")))?;
            let graph = spec
                .generate()
                .map_err(|e| Error::Input(e.to_string()))?
                .to_csr(&crate::graph::BuildOptions::default())
                .map_err(|e| Error::Input(e.to_string()))?;
            Ok(BenchInput {
                name: name.into(),
                class: class.into(),
                graph,
            })
        })
        .collect()
}
