//! [`NestedReport`]: one run of the nested-parallelism suite as users read it (a table), store
//! it (`nested.json`) and plot it (speedup over SPMD against the inner:outer ratio).

use super::{KernelSpec, NestedResult};
use serde::Serialize;

/// The suite's results with what was run and the two figures seed 003 §VI-B compares.
///
/// ```
/// use occupant_apps::nested::{NestedReport, NestedResult};
/// let r = |name: &str, inner_dominated, speedup, adaptive: Option<f64>| NestedResult {
///     name: name.into(), models: String::new(), outer: 16, mean_inner: 1000.0,
///     inner_dominated, spmd_ms: 1.0, nested_ms: 1.0 / speedup,
///     adaptive_ms: adaptive.map(|a| 1.0 / a), speedup, adaptive_speedup: adaptive,
///     max_rel_diff: 0.0, verified: true,
/// };
/// let rep = NestedReport::new("gpu", 5, vec![], vec![
///     r("a", true, 4.0, None), r("b", true, 9.0, None), r("c", false, 0.1, Some(0.95)),
/// ]);
/// assert!((rep.geomean_inner_dominated - 6.0).abs() < 1e-9);
/// assert_eq!(rep.worst_elsewhere, Some(0.95)); // the better of nested and adaptive
/// assert!(rep.table().contains("geomean"));
/// assert_eq!(rep.series().len(), 3);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NestedReport {
    /// The GPU's name.
    pub gpu: String,
    /// Timed runs per kernel version (medians reported).
    pub reps: usize,
    /// What was run.
    pub kernels: Vec<KernelSpec>,
    /// Per kernel.
    pub results: Vec<NestedResult>,
    /// Geometric mean of the nested speedups of the inner-dominated kernels (seed 003: 3.6×).
    pub geomean_inner_dominated: f64,
    /// The lowest speedup over SPMD among the other kernels, each at the better of its nested
    /// and adaptive versions (the issue's "never below 0.9× elsewhere"); `None` if none ran.
    pub worst_elsewhere: Option<f64>,
    /// Every kernel's versions agreed.
    pub verified: bool,
}

impl NestedReport {
    /// A report of `results` (the summary figures computed here).
    pub fn new(
        gpu: &str,
        reps: usize,
        kernels: Vec<KernelSpec>,
        results: Vec<NestedResult>,
    ) -> Self {
        let geomean_inner_dominated = super::geomean_inner_dominated(&results);
        let worst_elsewhere = results
            .iter()
            .filter(|r| !r.inner_dominated)
            .map(|r| r.speedup.max(r.adaptive_speedup.unwrap_or(0.0)))
            .reduce(f64::min);
        let verified = results.iter().all(|r| r.verified);
        Self {
            gpu: gpu.to_string(),
            reps,
            kernels,
            results,
            geomean_inner_dominated,
            worst_elsewhere,
            verified,
        }
    }

    /// A text table, one line per kernel, then the summary figures.
    pub fn table(&self) -> String {
        let mut s = format!(
            "{:<15} {:>8} {:>9} {:>6} {:>10} {:>10} {:>10} {:>8} {:>8} {:>5}\n",
            "kernel",
            "outer",
            "inner",
            "inner>",
            "spmd ms",
            "nested ms",
            "adapt ms",
            "nested×",
            "adapt×",
            "ok"
        );
        for r in &self.results {
            s += &format!(
                "{:<15} {:>8} {:>9.1} {:>6} {:>10.3} {:>10.3} {:>10} {:>8.2} {:>8} {:>5}\n",
                r.name,
                r.outer,
                r.mean_inner,
                r.inner_dominated,
                r.spmd_ms,
                r.nested_ms,
                r.adaptive_ms.map(|v| format!("{v:.3}")).unwrap_or_default(),
                r.speedup,
                r.adaptive_speedup
                    .map(|v| format!("{v:.2}"))
                    .unwrap_or_default(),
                r.verified
            );
        }
        s += &format!(
            "geomean nested speedup, inner-dominated kernels: {:.2}x (seed 003: 3.6x)\n",
            self.geomean_inner_dominated
        );
        if let Some(w) = self.worst_elsewhere {
            s += &format!(
                "lowest speedup elsewhere (best of nested, adaptive): {w:.2}x (goal >= 0.9x)\n"
            );
        }
        s
    }

    /// Lines to plot, speedup over SPMD against mean inner / outer iterations: nested,
    /// adaptive nested and parity.
    pub fn series(&self) -> Vec<(String, Vec<(f64, f64)>)> {
        let pts = |f: &dyn Fn(&NestedResult) -> Option<f64>| {
            let mut v: Vec<(f64, f64)> = self
                .results
                .iter()
                .filter_map(|r| f(r).map(|v| (r.mean_inner / r.outer as f64, v)))
                .collect();
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            v
        };
        vec![
            ("nested / SPMD".into(), pts(&|r| Some(r.speedup))),
            (
                "adaptive nested / SPMD".into(),
                pts(&|r| r.adaptive_speedup),
            ),
            ("parity".into(), pts(&|_| Some(1.0))),
        ]
    }
}
