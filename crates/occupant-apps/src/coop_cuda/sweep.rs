//! A multitasking sweep, as `occupant multitask --backend cuda` runs it: one cooperative app
//! beside the periodic matmul ([`run_multitask_kernel`]) for every workload × share × barrier,
//! with its table rows and the figures of seed 000 Fig. 5 and Fig. 6.

use super::{coop_app, run_multitask_kernel, AppSize, BarrierMode, MultitaskResult, PairedCoRun};
use super::{Share, Workload, FIT_FRACTION};
use crate::graph::Csr;
use occupant::cuda::Gpu;
use occupant::Result;

/// What a sweep runs.
#[derive(Debug, Clone)]
pub struct MultitaskSweep<'a> {
    /// The cooperative app (one of [`COOP_CUDA_APPS`](super::COOP_CUDA_APPS)).
    pub app: &'a str,
    /// Its graph (graph apps only).
    pub graph: Option<&'a Csr>,
    /// Its sources ([`sweep_sources`]).
    pub sources: &'a [u32],
    /// Its size (rounds, points, depth).
    pub size: AppSize,
    /// The other kernel's workloads.
    pub workloads: &'a [Workload],
    /// The shares of the groups it asks for.
    pub shares: &'a [Share],
    /// The resizing barriers.
    pub barriers: &'a [BarrierMode],
    /// Paired repetitions per point.
    pub repeats: usize,
}

/// The four sources of a sweep's graph app: spread over the vertex ids, the same every run.
///
/// ```
/// use occupant_apps::coop_cuda::sweep_sources;
/// assert_eq!(sweep_sources(None), vec![0, 0, 0, 0]);
/// ```
pub fn sweep_sources(graph: Option<&Csr>) -> Vec<u32> {
    let n = graph.map_or(1, |g| g.num_vertices().max(1));
    (0..4u32).map(|i| (i * 7919 + 13) % n).collect()
}

/// Runs every workload × share × barrier of `sweep` (a fresh app each), telling `progress`
/// what starts (and when a share cannot meet the period) and `done` each result.
/// Set `CUDA_MODULE_LOADING=EAGER` before the process opens the GPU.
pub fn run_multitask_sweep(
    gpu: &Gpu,
    sweep: &MultitaskSweep<'_>,
    progress: &dyn Fn(&str),
    done: &mut dyn FnMut(&MultitaskResult),
) -> Result<Vec<MultitaskResult>> {
    let mut results = Vec::new();
    for w in sweep.workloads {
        for &share in sweep.shares {
            for &mode in sweep.barriers {
                progress(&format!(
                    "multitask: cuda co-run {} / {} / {}, {} paired repetitions",
                    w.name,
                    share.name(),
                    barrier_name(mode),
                    sweep.repeats
                ));
                let app = coop_app(gpu, sweep.app, sweep.graph, sweep.sources, sweep.size)?;
                let r = run_multitask_kernel(gpu, app, mode, *w, share, sweep.repeats)?;
                if !r.calibration.fits_period {
                    progress(&format!(
                        "multitask: note: the matmul (n = {}, {:.1} ms on the whole GPU) takes {:.1} ms alone on {} groups ({}), more than {:.0} % of P = {} ms: this share cannot meet the period",
                        r.calibration.n,
                        r.calibration.full_gpu_us / 1e3,
                        r.calibration.share_us / 1e3,
                        r.calibration.share_groups,
                        share.name(),
                        FIT_FRACTION * 100.0,
                        w.period_ms
                    ));
                }
                done(&r);
                results.push(r);
            }
        }
    }
    Ok(results)
}

fn barrier_name(b: BarrierMode) -> String {
    format!("{b:?}").to_lowercase()
}

impl MultitaskResult {
    /// The header of [`MultitaskResult::table_row`]'s table.
    pub fn table_header() -> String {
        format!(
            "{:<7} {:<8} {:<12} {:>5} {:>12} {:>10} {:>11} {:>9} {:>15} {:>9} {:>9} {:>6}",
            "load",
            "barrier",
            "share",
            "reqs",
            "gather_med",
            "period_ok",
            "period_ms",
            "slowdown",
            "(min–max)",
            "of_means",
            "P/(P-D)",
            "wrong"
        )
    }

    /// One line: the point (workload, barrier, share) and its co-run's figures.
    pub fn table_row(&self) -> String {
        let c = &self.corun;
        format!(
            "{:<7} {:<8} {:<12} {:>5} {:>10.0}µs {:>9.0}% {:>11.1} {:>9.3} {:>15} {:>9.3} {:>9.3} {:>6}",
            c.workload.name,
            barrier_name(c.barrier),
            c.share.name(),
            c.requests,
            c.gather_us.median,
            c.period_met_fraction * 100.0,
            c.achieved_period_ms.median,
            c.slowdown,
            format!("{:.3}–{:.3}", c.ratios.min, c.ratios.max),
            c.ratio_of_means,
            c.preemption_model,
            c.wrong_rounds
        )
    }
}

/// One panel of a sweep's figure: (name, points) per series.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepPanel {
    /// Chart caption.
    pub title: String,
    /// X-axis label.
    pub x_label: String,
    /// Y-axis label.
    pub y_label: String,
    /// (name, points) per series.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

/// Fig. 5 shape (the other kernel's gather and execution time per share) and Fig. 6 shape (the
/// cooperative kernel's slowdown and the other kernel's achieved period per share), one series
/// per workload × barrier, x = the groups asked for. Empty without results.
pub fn sweep_figures(results: &[MultitaskResult]) -> Vec<SweepPanel> {
    let Some(first) = results.first() else {
        return Vec::new();
    };
    let mut names: Vec<(&str, BarrierMode)> = Vec::new();
    for r in results {
        if !names.contains(&(r.corun.workload.name, r.corun.barrier)) {
            names.push((r.corun.workload.name, r.corun.barrier));
        }
    }
    type Series = Vec<(String, Vec<(f64, f64)>)>;
    let series = |f: &dyn Fn(&PairedCoRun) -> f64, suffix: &str| -> Series {
        names
            .iter()
            .map(|(w, b)| {
                let label = format!("{w} {}{suffix}", barrier_name(*b));
                let points = results
                    .iter()
                    .filter(|r| r.corun.workload.name == *w && r.corun.barrier == *b)
                    .map(|r| (r.corun.groups_asked as f64, f(&r.corun)))
                    .collect();
                (label, points)
            })
            .collect()
    };
    let x_label = format!("groups asked for (of {})", first.groups);
    let mut fig5 = series(&|c| c.gather_us.median.max(0.1), " gather");
    fig5.extend(series(&|c| c.exec_us.median.max(0.1), " exec"));
    vec![
        SweepPanel {
            title: format!(
                "{} on {}: other kernel, gather and execution (µs)",
                first.app, first.device
            ),
            x_label: x_label.clone(),
            y_label: "µs (median)".into(),
            series: fig5,
        },
        SweepPanel {
            title: "cooperative kernel slowdown (co-run / alone, paired)".into(),
            x_label: x_label.clone(),
            y_label: "slowdown".into(),
            series: series(&|c| c.slowdown, ""),
        },
        SweepPanel {
            title: "achieved period of the other kernel (ms, median)".into(),
            x_label,
            y_label: "ms".into(),
            series: series(&|c| c.achieved_period_ms.median.max(0.1), ""),
        },
    ]
}
