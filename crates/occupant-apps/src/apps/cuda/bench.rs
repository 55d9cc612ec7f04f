//! The CUDA applications benchmark (`occupant bench apps --backend cuda`): every app is
//! prepared once per input (graph upload, transpose / symmetrisation), its sequential
//! reference is computed on another thread while the GPU runs, and every variant runs one
//! untimed warm-up and `runs` timed runs. Every run's output must equal the variant's first
//! (pagerank: within the verifier's tolerance) and every variant's first output the reference.
//! The rows, speedups and geometric means are the backend-neutral
//! [`crate::apps::bench::BenchResults`].

use super::programs::AppPrograms;
use super::runner::{CudaInput, BLOCK_THREADS};
use crate::apps::bench::{geomeans, speedups, BenchConfig, BenchInput, BenchResults, BenchRow};
use crate::apps::{reference, AppKind, AppOutput, AppParams, Variant};
use crate::graph::Csr;
use occupant::cuda::sync::BarrierKind;
use occupant::cuda::Gpu;
use occupant::Result;
use serde::Serialize;
use std::time::Instant;

/// How one input was prepared for one app.
#[derive(Clone, Debug, Serialize)]
pub struct PreparedInfo {
    /// Application.
    pub app: String,
    /// Input.
    pub input: String,
    /// Source vertex used (bfs, sssp).
    pub source: u32,
    /// Vertices and edges of the graph the app runs on (transpose / symmetrised for
    /// pagerank / cc).
    pub vertices: u32,
    /// Edges of that graph.
    pub edges: u64,
    /// Vertices whose edges are split over the grid.
    pub heavy_vertices: u32,
    /// Their edges.
    pub heavy_edges: u64,
    /// Host preparation time (build + upload), ms.
    pub prepare_ms: f64,
    /// Sequential reference time (on a host thread, overlapping the GPU runs), ms.
    pub reference_ms: Option<f64>,
}

/// The CUDA benchmark's result: the backend-neutral results plus how the GPU ran them.
#[derive(Clone, Debug, Serialize)]
pub struct CudaBenchResults {
    /// Rows, speedups, geometric means.
    #[serde(flatten)]
    pub results: BenchResults,
    /// The barrier of the persistent and occupancy-api variants.
    pub barrier: String,
    /// `__launch_bounds__` minimum blocks per SM of the device-loop kernels (0: none).
    pub min_blocks_per_sm: Option<u32>,
    /// Threads per block of every kernel.
    pub block_threads: usize,
    /// Preparation of every (app, input).
    pub prepared: Vec<PreparedInfo>,
    /// Runs that failed (error or a wrong output), in words; the bench goes on without them.
    pub failures: Vec<String>,
    /// Runs not made because the app is not computable for that input
    /// ([`Error::Unsupported`](occupant::Error::Unsupported), e.g. bc's path counts overflow
    /// `f64`), in words. Not failures.
    pub skipped: Vec<String>,
}

/// The source vertex for an input: 0, or the vertex of largest out-degree when 0 has none.
pub fn bench_source(g: &Csr) -> u32 {
    if g.num_vertices() == 0 || g.degree(0) > 0 {
        return 0;
    }
    (0..g.num_vertices())
        .max_by_key(|&v| g.degree(v))
        .unwrap_or(0)
}

/// Whether `out` matches `want`: equal, or for ranks within `2·tolerance/(1 − damping)` per
/// vertex and for bc scores within a relative 1e-9 (the tolerances of
/// [`verify`](crate::apps::verify)). The error names the first
/// differing vertex.
pub fn matches(
    app: AppKind,
    p: &AppParams,
    want: &AppOutput,
    out: &AppOutput,
) -> std::result::Result<(), String> {
    match (want, out) {
        (AppOutput::Ranks(w), AppOutput::Ranks(x)) if w.len() == x.len() => {
            let tol = 2.0 * p.tolerance / (1.0 - p.damping).max(1e-12) + 1e-12;
            match w
                .iter()
                .zip(x)
                .position(|(a, b)| (a - b).abs() > tol || b.is_nan())
            {
                None => Ok(()),
                Some(v) => Err(format!(
                    "{app}: vertex {v} has rank {:e}, expected {:e}",
                    x[v], w[v]
                )),
            }
        }
        (AppOutput::Scores(w), AppOutput::Scores(x)) if w.len() == x.len() => {
            // bc: f64 sums in another order; the relative tolerance of `verify`.
            match w
                .iter()
                .zip(x)
                .position(|(a, b)| (a - b).abs() > 1e-9 * a.abs().max(1.0) || b.is_nan())
            {
                None => Ok(()),
                Some(v) => Err(format!(
                    "{app}: vertex {v} has score {:e}, expected {:e}",
                    x[v], w[v]
                )),
            }
        }
        _ if want == out => Ok(()),
        _ if want.len() != out.len() => {
            Err(format!("{app}: {} values for {}", out.len(), want.len()))
        }
        _ => Err(format!("{app}: differs from the expected output")),
    }
}

/// How [`bench_cuda`] compiles and checks.
#[derive(Clone, Copy, Debug, Default)]
pub struct CudaBenchOptions {
    /// Barrier of the persistent and occupancy-api variants (None: the device's default).
    pub barrier: Option<BarrierKind>,
    /// `__launch_bounds__` minimum blocks per SM of the device-loop kernels (None: the
    /// device's full occupancy, [`default_min_blocks_per_sm`](super::default_min_blocks_per_sm);
    /// `Some(0)`: no launch bounds).
    pub min_blocks_per_sm: Option<u32>,
    /// Compare every variant's output with the sequential reference.
    pub verify: bool,
    /// Interleave the timed runs: after every variant's warm-up, run r of every variant, then
    /// run r + 1 of every variant, … (default: each variant's runs back to back). Clock and
    /// thermal drift and other slow changes of the machine then fall on every variant alike,
    /// so ratios of their times are not skewed by when a variant happened to run.
    pub interleave: bool,
}

/// Runs the CUDA benchmark: `config.variants` (multi-kernel first is best: it is the
/// baseline) of `config.apps` on `inputs`, compiled and checked as `opts` says. `progress`
/// gets one line per step.
pub fn bench_cuda<P: FnMut(&str)>(
    gpu: &Gpu,
    inputs: &[BenchInput],
    config: &BenchConfig,
    opts: &CudaBenchOptions,
    mut progress: P,
) -> Result<CudaBenchResults> {
    let verify = opts.verify;
    let progs = AppPrograms::compile_with(gpu, opts.barrier, opts.min_blocks_per_sm)?;
    progress(&format!(
        "compiled the application kernels (barrier {}, device-loop kernels for {} blocks per SM, cooperative kernels: {}, graph-while: {})",
        progs.device.barrier(),
        progs.min_blocks_per_sm,
        if progs.cooperative {
            "yes"
        } else {
            "no: no CUDA toolkit headers"
        },
        match &progs.graph_while {
            Ok(_) => "yes".to_string(),
            Err(e) => format!("no: {e}"),
        }
    ));
    let mut rows = Vec::new();
    let mut prepared = Vec::new();
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    let total = inputs.len() * config.apps.len() * config.variants.len();
    let mut done = 0usize;
    for input in inputs {
        let p = AppParams {
            source: bench_source(&input.graph),
            ..config.params
        };
        for &app in &config.apps {
            let t = Instant::now();
            let mut cin = match CudaInput::prepare(gpu, app, &input.graph, &p) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{app} on {}: {e}", input.name));
                    done += config.variants.len();
                    continue;
                }
            };
            let prepare_ms = t.elapsed().as_secs_f64() * 1e3;
            let dg = cin.device_graph();
            let mut info = PreparedInfo {
                app: app.name().into(),
                input: input.name.clone(),
                source: p.source,
                vertices: dg.num_vertices(),
                edges: dg.num_edges(),
                heavy_vertices: dg.heavy_vertices(),
                heavy_edges: dg.heavy_edges(),
                prepare_ms,
                reference_ms: None,
            };
            progress(&format!(
                "{} {app}: prepared in {prepare_ms:.0} ms ({} heavy vertices holding {} edges)",
                input.name, info.heavy_vertices, info.heavy_edges
            ));
            let graph = &input.graph;
            std::thread::scope(|scope| {
                let refthread = verify.then(|| {
                    scope.spawn(move || {
                        let t = Instant::now();
                        let r = reference(app, graph, &p);
                        (r, t.elapsed().as_secs_f64() * 1e3)
                    })
                });
                let mut firsts: Vec<(Variant, AppOutput, usize)> = Vec::new();
                let runs = config.runs.max(1);
                let timed: Vec<(Variant, Result<(AppOutput, BenchRow)>)> = if opts.interleave {
                    time_interleaved(&mut cin, &progs, app, &config.variants, &p, runs)
                } else {
                    config
                        .variants
                        .iter()
                        .map(|&v| (v, time_variant(&mut cin, &progs, app, v, &p, runs)))
                        .collect()
                };
                for (variant, result) in timed {
                    done += 1;
                    match result {
                        Ok((first, mut row)) => {
                            row.input = input.name.clone();
                            row.class = input.class.clone();
                            progress(&format!(
                                "[{done}/{total}] {} {app} {}: min {:.3} ms, median {:.3} ms, {} iterations, {:.2} µs/iteration{}",
                                input.name,
                                variant.name(),
                                row.min_ms,
                                row.median_ms,
                                row.iterations,
                                row.us_per_iteration,
                                row.participants
                                    .map(|n| format!(", {n} blocks"))
                                    .unwrap_or_default()
                            ));
                            if let Some(t) = &row.barrier_trace {
                                progress(&format!("    {}: {}", variant.name(), t.summary()));
                            }
                            firsts.push((variant, first, rows.len()));
                            rows.push(row);
                        }
                        Err(e @ occupant::Error::Unsupported(_)) => {
                            let msg = format!("{app} {} on {}: {e}", variant.name(), input.name);
                            progress(&format!("[{done}/{total}] skipped {msg}"));
                            skipped.push(msg);
                        }
                        Err(e) => {
                            let msg = format!("{app} {} on {}: {e}", variant.name(), input.name);
                            progress(&format!("[{done}/{total}] FAILED {msg}"));
                            failures.push(msg);
                        }
                    }
                }
                if let Some(h) = refthread {
                    match h.join() {
                        Ok((want, ms)) => {
                            info.reference_ms = Some(ms);
                            for (variant, out, row) in &firsts {
                                // colour and MIS: the reference's rounds give the same output;
                                // any proper colouring / maximal independent set passes too.
                                let ok = matches(app, &p, &want, out).or_else(|e| {
                                    if matches!(app, AppKind::Color | AppKind::Mis) {
                                        crate::apps::verify(app, graph, &p, out)
                                    } else {
                                        Err(e)
                                    }
                                });
                                match ok {
                                    Ok(()) => rows[*row].verified = true,
                                    Err(e) => {
                                        let msg = format!(
                                            "{app} {} on {}: wrong output: {e}",
                                            variant.name(),
                                            input.name
                                        );
                                        progress(&format!("FAILED {msg}"));
                                        failures.push(msg);
                                    }
                                }
                            }
                        }
                        Err(_) => failures
                            .push(format!("{app} on {}: the reference panicked", input.name)),
                    }
                }
            });
            prepared.push(info);
        }
    }
    let baseline = config.baseline.name();
    let speedups = speedups(&rows, baseline);
    let geomeans = geomeans(&speedups);
    Ok(CudaBenchResults {
        results: BenchResults {
            backend: "cuda".into(),
            device: gpu.info().name.clone(),
            config: config.clone(),
            rows,
            speedups,
            geomeans,
        },
        barrier: progs.device.barrier().name().into(),
        min_blocks_per_sm: Some(progs.min_blocks_per_sm),
        block_threads: BLOCK_THREADS,
        prepared,
        failures,
        skipped,
    })
}

/// One warm-up and `runs` timed runs of one variant; every output compared with the first.
fn time_variant(
    cin: &mut CudaInput,
    progs: &AppPrograms,
    app: AppKind,
    variant: Variant,
    p: &AppParams,
    runs: u32,
) -> Result<(AppOutput, BenchRow)> {
    let (first, _) = cin.run(progs, variant)?;
    let mut timed = Timed::default();
    for _ in 0..runs {
        timed.run(cin, progs, app, variant, p, &first)?;
    }
    Ok((first, timed.row(app, variant)))
}

/// Every variant's warm-up, then `runs` rounds of one timed run of every variant (the variants
/// that failed are left out of the later rounds). Every output compared with the variant's
/// first.
fn time_interleaved(
    cin: &mut CudaInput,
    progs: &AppPrograms,
    app: AppKind,
    variants: &[Variant],
    p: &AppParams,
    runs: u32,
) -> Vec<(Variant, Result<(AppOutput, BenchRow)>)> {
    let mut state: Vec<(Variant, Result<(AppOutput, Timed)>)> = variants
        .iter()
        .map(|&v| {
            (
                v,
                cin.run(progs, v)
                    .map(|(first, _)| (first, Timed::default())),
            )
        })
        .collect();
    for _ in 0..runs {
        for (v, st) in state.iter_mut() {
            if let Ok((first, timed)) = st {
                if let Err(e) = timed.run(cin, progs, app, *v, p, first) {
                    *st = Err(e);
                }
            }
        }
    }
    state
        .into_iter()
        .map(|(v, st)| (v, st.map(|(first, timed)| (first, timed.row(app, v)))))
        .collect()
}

/// The timed runs of one variant so far.
#[derive(Default)]
struct Timed {
    times: Vec<f64>,
    participants: Vec<u32>,
    last: Option<crate::apps::RunReport>,
    /// The fastest run's barrier trace so far.
    trace: Option<(f64, super::BarrierTrace)>,
}

impl Timed {
    /// One timed run, its output compared with `first`.
    fn run(
        &mut self,
        cin: &mut CudaInput,
        progs: &AppPrograms,
        app: AppKind,
        variant: Variant,
        p: &AppParams,
        first: &AppOutput,
    ) -> Result<()> {
        let (out, r) = cin.run(progs, variant)?;
        matches(app, p, first, &out)
            .map_err(|e| occupant::Error::Input(format!("run differs from the warm-up: {e}")))?;
        self.times.push(r.time_ms);
        self.participants.extend(r.participants);
        if let Some(t) = &r.barrier_trace {
            if !matches!(&self.trace, Some((ms, _)) if *ms <= r.time_ms) {
                self.trace = Some((r.time_ms, t.clone()));
            }
        }
        self.last = Some(r);
        Ok(())
    }

    /// The row of these runs (at least one).
    fn row(self, app: AppKind, variant: Variant) -> BenchRow {
        let r = self.last.expect("at least one run");
        let mut sorted = self.times.clone();
        sorted.sort_by(f64::total_cmp);
        let min_ms = sorted[0];
        BenchRow {
            app: app.name().into(),
            input: String::new(),
            class: String::new(),
            variant: variant.name().into(),
            vertices: r.vertices,
            edges: r.edges,
            iterations: r.iterations,
            participants: self.participants.iter().copied().max(),
            participants_min: self.participants.iter().copied().min(),
            min_ms,
            median_ms: sorted[sorted.len() / 2],
            us_per_iteration: min_ms * 1e3 / f64::from(r.iterations.max(1)),
            edges_per_s: r.edges as f64 / (min_ms / 1e3).max(1e-12),
            times_ms: self.times,
            verified: false,
            barrier_trace: self.trace.map(|(_, t)| t),
        }
    }
}

/// The CUDA benchmark's inputs, `(name, class, spec)`: a road-like 2-D grid of 4.2·10^6
/// vertices with random weights, Pannotia's 1000×1000 5-point stencil (both high-diameter),
/// R-MAT scale 22 edge factor 16 (Graph500 parameters) and a Barabási–Albert graph of 4·10^6
/// vertices (both low-diameter).
pub const CUDA_INPUTS: [(&str, &str, &str); 4] = [
    (
        "grid-2048x2048",
        "high-diameter",
        "grid:w=2048,h=2048,seed=1",
    ),
    (
        "stencil-1000x1000",
        "high-diameter",
        "stencil:w=1000,h=1000",
    ),
    ("rmat-22", "low-diameter", "rmat:scale=22,ef=16,seed=1"),
    ("ba-4M", "low-diameter", "ba:n=4000000,m=4,seed=1"),
];

/// Smaller inputs of the same kinds, for a quick run.
pub const CUDA_QUICK_INPUTS: [(&str, &str, &str); 3] = [
    ("grid-512x512", "high-diameter", "grid:w=512,h=512,seed=1"),
    ("stencil-200x200", "high-diameter", "stencil:w=200,h=200"),
    ("rmat-18", "low-diameter", "rmat:scale=18,ef=16,seed=1"),
];

/// Loads benchmark inputs given as `SOURCE[@CLASS]`: a graph file or a generator spec, and
/// its class for the geometric means (default: `high-diameter` for grid, stencil and geo
/// specs, `low-diameter` for the other generators, `file` for files).
///
/// ```
/// use occupant_apps::apps::cuda::load_inputs;
/// let inputs = load_inputs(&["stencil:10x10".to_string(), "rmat:scale=8@power-law".to_string()])?;
/// assert_eq!(inputs[0].class, "high-diameter");
/// assert_eq!((inputs[1].name.as_str(), inputs[1].class.as_str()), ("rmat8ef16", "power-law"));
/// assert!(load_inputs(&["nonsense".to_string()]).is_err());
/// # Ok::<(), occupant::Error>(())
/// ```
pub fn load_inputs(args: &[String]) -> Result<Vec<BenchInput>> {
    use crate::graph::{BuildOptions, GraphSource, GraphSpec};
    args.iter()
        .map(|arg| {
            let (src, class) = match arg.rsplit_once('@') {
                Some((s, c)) if !c.is_empty() && !c.contains(':') => (s, Some(c.to_string())),
                _ => (arg.as_str(), None),
            };
            let source: GraphSource = src
                .parse()
                .map_err(|e| occupant::Error::Input(format!("input `{arg}`: {e}")))?;
            let class = class.unwrap_or_else(|| {
                match &source {
                    GraphSource::File(_) => "file",
                    GraphSource::Spec(
                        GraphSpec::Grid(_) | GraphSpec::Stencil(..) | GraphSpec::Geo(_),
                    ) => "high-diameter",
                    GraphSource::Spec(_) => "low-diameter",
                }
                .to_string()
            });
            let graph = source
                .load(&BuildOptions::default())
                .map_err(|e| occupant::Error::Input(format!("input `{arg}`: {e}")))?;
            Ok(BenchInput {
                name: source.name(),
                class,
                graph,
            })
        })
        .collect()
}
