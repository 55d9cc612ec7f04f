//! [`EpccReport`]: one EPCC run as users read it (a table), store it (JSON) and plot it (one
//! line per construct and runtime), with the comparator's rows and the ratios beside ours.

use super::{compare, EpccConfig, EpccRatio, EpccRow, LlvmRun, EPCC_CONSTRUCTS};
use serde::{Deserialize, Serialize};

/// How Bull's overhead is computed (stored with every report).
pub const EPCC_METHOD: &str =
    "Bull: overhead = (T_construct - T_reference) / reps, median over rounds";

/// The unit a report's main figures are in: the CUDA backend counts `clock64` cycles, the
/// CPU twin has no cycle counter and reports nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EpccUnit {
    /// `clock64()` cycles (CUDA).
    Cycles,
    /// Nanoseconds (the CPU twin).
    Ns,
}

impl EpccUnit {
    /// `"cycles"` or `"ns"`.
    pub fn name(self) -> &'static str {
        match self {
            EpccUnit::Cycles => "cycles",
            EpccUnit::Ns => "ns",
        }
    }

    /// The row's overhead in this unit.
    pub fn of(self, r: &EpccRow) -> f64 {
        match self {
            EpccUnit::Cycles => r.overhead_cycles,
            EpccUnit::Ns => r.overhead_ns,
        }
    }
}

/// One EPCC run: our rows, the comparator's (empty without one), their ratios and how it was
/// measured. Serialises to the `forkjoin.json` that `occupant bench forkjoin` writes.
///
/// ```
/// use occupant::model::forkjoin::{overheads, EpccConfig, EpccReport, EpccUnit};
/// let raw = vec![[(1000, 500), (3000, 1500), (2000, 1000), (4000, 2000), (1500, 800), (1100, 600), (5000, 2500)]];
/// let ours = overheads("occupant-cuda", 32, 10, &raw);
/// let llvm = overheads("llvm-openmp", 32, 5, &raw);
/// let rep = EpccReport::new("cuda", EpccUnit::Cycles, EpccConfig::default(), ours, llvm, vec![]);
/// assert_eq!(rep.ratios.len(), 6);
/// assert!(rep.table().lines().nth(1).unwrap().starts_with("parallel"));
/// assert_eq!(rep.series().len(), 12); // ours and LLVM per construct
/// assert_eq!(rep.worst_ratio("parallel"), Some(0.5));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpccReport {
    /// `cuda` or `cpu`.
    pub backend: String,
    /// The unit of [`EpccReport::table`]'s and [`EpccReport::series`]'s main figures.
    pub unit: EpccUnit,
    /// What was run.
    pub config: EpccConfig,
    /// [`EPCC_METHOD`].
    pub method: String,
    /// Our overheads.
    pub ours: Vec<EpccRow>,
    /// The comparator's overheads (LLVM's OpenMP offload runtime), if given.
    pub llvm: Vec<EpccRow>,
    /// How the comparator was run.
    pub llvm_runs: Vec<LlvmRun>,
    /// Ours / the comparator's, for every row both have.
    pub ratios: Vec<EpccRatio>,
}

impl EpccReport {
    /// A report of `ours` beside `llvm` (the ratios computed here).
    pub fn new(
        backend: &str,
        unit: EpccUnit,
        config: EpccConfig,
        ours: Vec<EpccRow>,
        llvm: Vec<EpccRow>,
        llvm_runs: Vec<LlvmRun>,
    ) -> Self {
        let ratios = compare(&ours, &llvm);
        Self {
            backend: backend.to_string(),
            unit,
            config,
            method: EPCC_METHOD.to_string(),
            ours,
            llvm,
            llvm_runs,
            ratios,
        }
    }

    fn ratio(&self, r: &EpccRow) -> Option<&EpccRatio> {
        self.ratios
            .iter()
            .find(|q| q.workers == r.workers && q.construct == r.construct)
    }

    /// The largest ours / LLVM ratio of `construct` over the worker counts both measured.
    pub fn worst_ratio(&self, construct: &str) -> Option<f64> {
        self.ratios
            .iter()
            .filter(|q| q.construct == construct)
            .map(|q| q.ratio_cycles)
            .reduce(f64::max)
    }

    /// A text table, one line per construct and worker count: ours in the report's unit (and in
    /// ns when that is cycles), LLVM's cycles and the ratio where the comparator has the row.
    pub fn table(&self) -> String {
        let unit = self.unit.name();
        let cycles = self.unit == EpccUnit::Cycles;
        let mut s = format!(
            "{:<14} {:>7} {:>14}{} {:>14} {:>8}\n",
            "construct",
            "workers",
            format!("ours {unit}"),
            if cycles {
                format!(" {:>12}", "ours ns")
            } else {
                String::new()
            },
            "llvm cycles",
            "ratio"
        );
        for r in &self.ours {
            let q = self.ratio(r);
            s += &format!(
                "{:<14} {:>7} {:>14.1}{} {:>14} {:>8}\n",
                r.construct,
                r.workers,
                self.unit.of(r),
                if cycles {
                    format!(" {:>12.1}", r.overhead_ns)
                } else {
                    String::new()
                },
                q.map(|q| format!("{:.1}", q.llvm_cycles))
                    .unwrap_or_default(),
                q.map(|q| format!("{:.2}", q.ratio_cycles))
                    .unwrap_or_default()
            );
        }
        s
    }

    /// Lines to plot, overhead over workers: `occupant <construct>` and, with a comparator,
    /// `LLVM <construct>` (values clamped to ≥ 1 for log axes).
    pub fn series(&self) -> Vec<(String, Vec<(f64, f64)>)> {
        let pts = |rs: &[EpccRow], c: &str| -> Vec<(f64, f64)> {
            rs.iter()
                .filter(|r| r.construct == c)
                .map(|r| (r.workers as f64, self.unit.of(r).max(1.0)))
                .collect()
        };
        let mut out = Vec::new();
        for c in EPCC_CONSTRUCTS {
            out.push((format!("occupant {c}"), pts(&self.ours, c)));
            if !self.llvm.is_empty() {
                out.push((format!("LLVM {c}"), pts(&self.llvm, c)));
            }
        }
        out
    }
}
