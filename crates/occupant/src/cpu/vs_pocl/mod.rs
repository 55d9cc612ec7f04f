//! `occupant bench cpu-vs-pocl`: occupant's CPU executor against PoCL, the CPU OpenCL
//! implementation most people use, on the same kernels with the same thread count.
//!
//! The OpenCL C kernels are `bench/pocl/kernels.cl`, run by a small C harness
//! (`bench/pocl/harness.c`, built with gcc by `bench/pocl/build.sh`, which installs Debian's
//! `pocl-opencl-icd`, `ocl-icd-opencl-dev` and `opencl-headers` if missing). The occupant
//! kernels ([`Workload`]) are the same computations in the coroutine form and the phased
//! form ([`crate::cpu::Executor::launch_phased`]). Every output is checked equal to PoCL's.
//!
//! The runs interleave: each round runs every kernel once on PoCL and once in each occupant
//! form, so a busy host slows both sides alike; figures are the minimum over the rounds
//! (and the median, for the spread). Barrier-free kernels are also compared with plain Rust
//! loops (one thread against the executor with one compute unit; `threads` threads against
//! `threads` compute units), and the coroutine form's cost per work-item per barrier is
//! measured on a kernel made of barriers only. Before every timed run (PoCL's and occupant's)
//! 64 MiB are written to evict the caches, so every run starts equally cold.

mod harness;
mod kernels;

pub use harness::PoclHarness;
pub use kernels::{gen, Form, Kernel, Workload};

use crate::cpu::{ExecModel, Executor, Launch};
use crate::model::{Error, NDRange, Result};
use serde::Serialize;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Settings of a comparison.
#[derive(Debug, Clone)]
pub struct CpuVsPoclConfig {
    /// Rounds (each runs every kernel once per side and form); figures are minima over them.
    pub runs: usize,
    /// Threads on both sides: PoCL's thread count, the executor's compute units.
    pub threads: usize,
    /// The directory holding `harness.c`, `kernels.cl` and `build.sh` (`bench/pocl`).
    pub pocl_dir: PathBuf,
    /// Where the harness binary and the output dumps go.
    pub build_dir: PathBuf,
    /// Kernels to run.
    pub kernels: Vec<Kernel>,
}

/// One occupant form of one kernel.
#[derive(Debug, Clone, Serialize)]
pub struct FormResult {
    /// The form.
    pub form: Form,
    /// Threads (compute units) it ran on.
    pub threads: usize,
    /// Fastest run, ms.
    pub min_ms: f64,
    /// Median run, ms.
    pub median_ms: f64,
    /// `min_ms` / PoCL's `min_ms` (same threads), when it ran on the same threads as PoCL.
    pub vs_pocl: Option<f64>,
    /// Whether its output equals PoCL's.
    pub equal_to_pocl: bool,
}

/// One kernel on both sides.
#[derive(Debug, Clone, Serialize)]
pub struct KernelResult {
    /// The kernel.
    pub kernel: Kernel,
    /// PoCL's fastest run, ms.
    pub pocl_min_ms: f64,
    /// PoCL's median run, ms.
    pub pocl_median_ms: f64,
    /// Occupant's forms.
    pub forms: Vec<FormResult>,
    /// The best occupant form on the same threads, as a ratio to PoCL (goal ≤ 1.2).
    pub best_vs_pocl: f64,
    /// The form that achieved it.
    pub best_form: Form,
}

/// A barrier-free kernel against a plain Rust loop doing the same work.
#[derive(Debug, Clone, Serialize)]
pub struct PlainLoopResult {
    /// The kernel.
    pub kernel: Kernel,
    /// Threads of the loop and compute units of the executor.
    pub threads: usize,
    /// The plain loop's fastest run, ms.
    pub plain_min_ms: f64,
    /// The phased form's fastest run, ms.
    pub phased_min_ms: f64,
    /// The coroutine form's fastest run, ms.
    pub coroutine_min_ms: f64,
    /// `phased_min_ms / plain_min_ms` (goal ≤ 1.1).
    pub phased_vs_plain: f64,
    /// `coroutine_min_ms / plain_min_ms`.
    pub coroutine_vs_plain: f64,
}

/// The coroutine form's cost per work-item per barrier.
#[derive(Debug, Clone, Serialize)]
pub struct BarrierCost {
    /// Groups of the launch (one compute unit).
    pub groups: usize,
    /// Work-items per group.
    pub local: usize,
    /// Barriers per work-item.
    pub barriers: usize,
    /// Fastest launch with the barriers, ms.
    pub with_barriers_min_ms: f64,
    /// Fastest launch of the same kernel without barriers, ms.
    pub without_min_ms: f64,
    /// `(with - without) / (groups × local × barriers)`, ns (goal ≤ 3).
    pub ns_per_item_per_barrier: f64,
}

/// Everything one comparison measured.
#[derive(Debug, Clone, Serialize)]
pub struct CpuVsPoclReport {
    /// The OpenCL device PoCL ran on.
    pub pocl_device: String,
    /// Compute units PoCL reported (= `threads`).
    pub pocl_compute_units: usize,
    /// Threads on both sides.
    pub threads: usize,
    /// Cores the host reports.
    pub host_cores: usize,
    /// Rounds.
    pub runs: usize,
    /// Per kernel.
    pub kernels: Vec<KernelResult>,
    /// Barrier-free kernels against plain loops (1 thread and `threads` threads).
    pub plain_loop: Vec<PlainLoopResult>,
    /// The coroutine form's barrier cost.
    pub barrier_cost: BarrierCost,
    /// Whether every occupant output equals PoCL's.
    pub all_equal: bool,
    /// The host's 1-minute load average before and after the rounds (`/proc/loadavg`; absent
    /// elsewhere): how busy the shared host was while it measured.
    pub load_average: Option<(f64, f64)>,
}

/// Bytes written between timed runs to evict the caches (twice the host's 32 MiB L3).
const FLUSH_BYTES: usize = 64 << 20;

/// Writes (and reads back) all of `scratch`, evicting every cache level of this core and the
/// shared last level.
fn flush_caches(scratch: &mut [u64], salt: usize) {
    for (i, x) in scratch.iter_mut().enumerate() {
        *x = (i ^ salt) as u64;
    }
    std::hint::black_box(scratch.iter().fold(0u64, |a, &x| a ^ x));
}

/// The 1-minute load average, where the OS reports one.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn min_median(v: &[Duration]) -> (f64, f64) {
    let mut s: Vec<f64> = v.iter().map(|&d| ms(d)).collect();
    s.sort_by(f64::total_cmp);
    (s[0], s[s.len() / 2])
}

/// A timed series: (kernel, form, threads) and its run times.
struct Series {
    kernel: Kernel,
    form: Form,
    threads: usize,
    times: Vec<Duration>,
    equal: bool,
}

/// Runs the comparison; `progress` gets a line per round.
pub fn run(cfg: &CpuVsPoclConfig, progress: &mut dyn FnMut(&str)) -> Result<CpuVsPoclReport> {
    if cfg.runs == 0 || cfg.threads == 0 || cfg.kernels.is_empty() {
        return Err(Error::InvalidLaunch(
            "cpu-vs-pocl needs at least one run, one thread and one kernel".into(),
        ));
    }
    let mut pocl = PoclHarness::start(&cfg.pocl_dir, &cfg.build_dir, cfg.threads)?;
    let exec_n = Executor::new(ExecModel::OccupancyBound {
        compute_units: cfg.threads,
    });
    let exec_1 = Executor::new(ExecModel::OccupancyBound { compute_units: 1 });
    let mut work = Workload::new();

    // The series each round runs, in order.
    let mut series: Vec<Series> = Vec::new();
    let mut pocl_times: Vec<Vec<Duration>> = vec![Vec::new(); cfg.kernels.len()];
    for &kernel in &cfg.kernels {
        let mut add = |form, threads| {
            series.push(Series {
                kernel,
                form,
                threads,
                times: Vec::new(),
                equal: false,
            })
        };
        add(Form::Coroutine, cfg.threads);
        add(Form::Phased, cfg.threads);
        if kernel.barrier_free() {
            add(Form::PlainLoopThreads, cfg.threads);
            add(Form::PlainLoop, 1);
            add(Form::Phased, 1);
            add(Form::Coroutine, 1);
        }
    }

    // Written before every timed run (both sides): each run starts with the same cold
    // caches, whatever the run before it touched (the host's L3 is 32 MiB, the workload
    // ~64 MiB), so the order of the forms in a round does not favour any of them.
    let mut scratch = vec![0u64; FLUSH_BYTES / 8];
    let load_before = load_average();
    // Round 0 warms up (PoCL compiles its kernels) and checks every output; it is not timed.
    for round in 0..=cfg.runs {
        for (ki, &kernel) in cfg.kernels.iter().enumerate() {
            let dump = cfg.build_dir.join(format!("pocl-{}.bin", kernel.name()));
            flush_caches(&mut scratch, round);
            let t = pocl.run(kernel.name(), 1, (round == 0).then_some(dump.as_path()))?;
            let reference = if round == 0 {
                Some(harness::read_dump(&dump)?)
            } else {
                pocl_times[ki].extend(t);
                None
            };
            for s in series.iter_mut().filter(|s| s.kernel == kernel) {
                let exec = if s.threads == 1 { &exec_1 } else { &exec_n };
                flush_caches(&mut scratch, round);
                let t0 = Instant::now();
                work.run(exec, kernel, s.form, s.threads)?;
                let t = t0.elapsed();
                match &reference {
                    Some(r) => s.equal = work.output(kernel, s.form) == *r,
                    None => s.times.push(t),
                }
            }
        }
        if round > 0 {
            progress(&format!("round {round}/{}", cfg.runs));
        }
    }

    let load_after = load_average();
    let mut kernels = Vec::new();
    let mut plain_loop = Vec::new();
    for (ki, &kernel) in cfg.kernels.iter().enumerate() {
        let (pocl_min, pocl_median) = min_median(&pocl_times[ki]);
        let mine: Vec<&Series> = series.iter().filter(|s| s.kernel == kernel).collect();
        let forms: Vec<FormResult> = mine
            .iter()
            .map(|s| {
                let (min_ms, median_ms) = min_median(&s.times);
                FormResult {
                    form: s.form,
                    threads: s.threads,
                    min_ms,
                    median_ms,
                    vs_pocl: (s.threads == cfg.threads
                        && matches!(s.form, Form::Coroutine | Form::Phased))
                    .then_some(min_ms / pocl_min),
                    equal_to_pocl: s.equal,
                }
            })
            .collect();
        let (best_vs_pocl, best_form) = forms
            .iter()
            .filter_map(|f| f.vs_pocl.map(|r| (r, f.form)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .expect("every kernel has occupant forms on the same threads");
        if kernel.barrier_free() {
            for threads in [1, cfg.threads] {
                let pick = |form: Form| {
                    forms
                        .iter()
                        .find(|f| f.form == form && f.threads == threads)
                        .map_or(f64::NAN, |f| f.min_ms)
                };
                let plain = pick(if threads == 1 && cfg.threads != 1 {
                    Form::PlainLoop
                } else {
                    Form::PlainLoopThreads
                });
                let (phased, coroutine) = (pick(Form::Phased), pick(Form::Coroutine));
                plain_loop.push(PlainLoopResult {
                    kernel,
                    threads,
                    plain_min_ms: plain,
                    phased_min_ms: phased,
                    coroutine_min_ms: coroutine,
                    phased_vs_plain: phased / plain,
                    coroutine_vs_plain: coroutine / plain,
                });
            }
        }
        kernels.push(KernelResult {
            kernel,
            pocl_min_ms: pocl_min,
            pocl_median_ms: pocl_median,
            forms,
            best_vs_pocl,
            best_form,
        });
    }
    let barrier_cost = measure_barrier_cost(cfg.runs.max(5))?;
    let all_equal = series.iter().all(|s| s.equal);
    Ok(CpuVsPoclReport {
        pocl_device: pocl.device.clone(),
        pocl_compute_units: pocl.compute_units,
        threads: cfg.threads,
        host_cores: crate::cpu::available_cores(),
        runs: cfg.runs,
        kernels,
        plain_loop,
        barrier_cost,
        all_equal,
        load_average: load_before.zip(load_after),
    })
}

/// The coroutine form's cost per work-item per barrier: 4 groups × 1024 work-items, 128
/// barriers and nothing else, on one compute unit, against the same kernel without them.
pub fn measure_barrier_cost(runs: usize) -> Result<BarrierCost> {
    let (groups, local, barriers) = (4, 1024, 128);
    let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 1 });
    let launch = Launch::new(NDRange::groups(groups, local)?);
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for round in 0..=runs {
        let t0 = Instant::now();
        exec.launch_with(
            &launch,
            || (),
            |it, _| {
                for _ in 0..barriers {
                    it.barrier();
                }
            },
        )?;
        let t1 = Instant::now();
        exec.launch_with(
            &launch,
            || (),
            |it, _| {
                std::hint::black_box(it.local_linear_id());
            },
        )?;
        let t2 = Instant::now();
        if round > 0 {
            with.push(t1 - t0);
            without.push(t2 - t1);
        }
    }
    let (w, _) = min_median(&with);
    let (wo, _) = min_median(&without);
    Ok(BarrierCost {
        groups,
        local,
        barriers,
        with_barriers_min_ms: w,
        without_min_ms: wo,
        ns_per_item_per_barrier: (w - wo) * 1e6 / (groups * local * barriers) as f64,
    })
}
