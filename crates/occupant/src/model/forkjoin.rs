//! Backend-neutral results of the fork-join benchmarks: EPCC syncbench overheads (seed 003
//! §VI-A; J. M. Bull's method) measured on the CPU twin, on CUDA (`occ::fj`) and by the LLVM
//! OpenMP offload comparator (`bench/llvm-openmp/epcc_target.cpp`, JSON lines).

use crate::{Error, Result};
use serde::{Deserialize, Serialize};

mod report;
pub use report::{EpccReport, EpccUnit, EPCC_METHOD};

/// The constructs measured, in the order of the benchmark kernels' output (after the
/// reference, index 0).
pub const EPCC_CONSTRUCTS: [&str; 6] = [
    "parallel",
    "for",
    "parallel for",
    "barrier",
    "single",
    "reduction",
];

/// What an EPCC run does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpccConfig {
    /// Repetitions of each construct per timing (EPCC's innerreps).
    pub reps: usize,
    /// The delay each thread spins in a construct, in cycles (CUDA: clock64) or ns (CPU).
    pub delay: u64,
    /// Timings per construct; the overhead reported is their median.
    pub rounds: usize,
    /// Worker counts (threads of each region).
    pub workers: Vec<usize>,
    /// CUDA: launch blocks of `32 W + 1` threads (the master warp is one thread: no lanes to
    /// converge at each fork and join) instead of `32 (W + 1)`. Ignored by the CPU twin.
    #[serde(default)]
    pub lone_master: bool,
    /// CUDA: macros defined for the benchmark's compilation (`NAME` or `NAME=VALUE`, e.g. the
    /// device library's `OCC_FJ_DEBUG=1`, or a variant under test). Ignored by the CPU twin.
    #[serde(default)]
    pub defines: Vec<String>,
}

impl Default for EpccConfig {
    /// 1000 repetitions of a 100-cycle delay, 5 rounds, 32 … 992 workers.
    fn default() -> Self {
        Self {
            reps: 1000,
            delay: 100,
            rounds: 5,
            workers: vec![32, 64, 128, 256, 512, 992],
            lone_master: false,
            defines: Vec::new(),
        }
    }
}

/// One construct at one worker count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpccRow {
    /// Who measured: `occupant-cuda`, `llvm-openmp`, `occupant-cpu`.
    pub runtime: String,
    /// Threads of each region.
    pub workers: usize,
    /// One of [`EPCC_CONSTRUCTS`].
    pub construct: String,
    /// Median over rounds of (T_construct − T_reference) / reps, in cycles (0 where the
    /// backend has no cycle counter).
    pub overhead_cycles: f64,
    /// The same in nanoseconds.
    pub overhead_ns: f64,
    /// Every round's overhead in cycles.
    pub rounds_cycles: Vec<f64>,
    /// Every round's overhead in ns.
    pub rounds_ns: Vec<f64>,
}

/// Turns raw timings into rows: `raw[round][c] = (cycles, ns)` of `reps` repetitions of
/// construct `c` (0 = the reference, then [`EPCC_CONSTRUCTS`]).
///
/// ```
/// use occupant::model::forkjoin::overheads;
/// let raw = vec![[(1000, 500), (3000, 1500), (2000, 1000), (4000, 2000), (1500, 800), (1100, 600), (5000, 2500)]];
/// let rows = overheads("x", 32, 10, &raw);
/// assert_eq!(rows[0].construct, "parallel");
/// assert_eq!(rows[0].overhead_cycles, 200.0);
/// assert_eq!(rows[5].overhead_ns, 200.0);
/// ```
pub fn overheads(
    runtime: &str,
    workers: usize,
    reps: usize,
    raw: &[[(i64, i64); 7]],
) -> Vec<EpccRow> {
    let reps = reps.max(1) as f64;
    EPCC_CONSTRUCTS
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let c = k + 1;
            let rc: Vec<f64> = raw
                .iter()
                .map(|r| (r[c].0 - r[0].0) as f64 / reps)
                .collect();
            let rn: Vec<f64> = raw
                .iter()
                .map(|r| (r[c].1 - r[0].1) as f64 / reps)
                .collect();
            EpccRow {
                runtime: runtime.to_string(),
                workers,
                construct: name.to_string(),
                overhead_cycles: median(&rc),
                overhead_ns: median(&rn),
                rounds_cycles: rc,
                rounds_ns: rn,
            }
        })
        .collect()
}

/// The median (mean of the two middle values for an even count); NaN when empty.
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    if s.is_empty() {
        return f64::NAN;
    }
    s.sort_by(|a, b| a.total_cmp(b));
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

/// One round's raw timings: (cycles, ns) of the reference and of each construct.
pub type RawRound = [(i64, i64); 7];

/// What the LLVM comparator printed for one worker count (besides the rows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LlvmRun {
    /// Workers asked for (`num_threads`).
    pub workers: usize,
    /// `omp_get_num_threads()` seen inside a region (negative: a reduction came out wrong).
    pub threads_seen: i64,
    /// The team's `thread_limit`.
    pub thread_limit: usize,
}

/// Parses the JSON lines of `bench/llvm-openmp/epcc_target` into rows (runtime
/// `llvm-openmp`) and the per-worker-count facts.
///
/// ```
/// use occupant::model::forkjoin::parse_llvm_lines;
/// let line = r#"{"workers": 32, "threads_seen": 32, "thread_limit": 64, "round": 0, "reps": 10, "delay_cycles": 100, "reference": [1000, 500], "parallel": [3000, 1500], "for": [2000, 1000], "parallel for": [4000, 2000], "barrier": [1500, 800], "single": [1100, 600], "reduction": [5000, 2500]}"#;
/// let (rows, runs) = parse_llvm_lines(line)?;
/// assert_eq!(rows.len(), 6);
/// assert_eq!(runs[0].threads_seen, 32);
/// # Ok::<(), occupant::Error>(())
/// ```
pub fn parse_llvm_lines(text: &str) -> Result<(Vec<EpccRow>, Vec<LlvmRun>)> {
    let mut by_workers: Vec<(usize, usize, Vec<RawRound>)> = Vec::new();
    let mut runs: Vec<LlvmRun> = Vec::new();
    for (no, line) in text.lines().enumerate() {
        let line = line.trim();
        if !line.starts_with('{') {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| Error::Input(format!("LLVM comparator output line {}: {e}", no + 1)))?;
        let num = |k: &str| {
            v.get(k)
                .and_then(|x| x.as_i64())
                .ok_or_else(|| Error::Input(format!("line {}: no integer `{k}`", no + 1)))
        };
        let pair = |k: &str| -> Result<(i64, i64)> {
            let a = v
                .get(k)
                .and_then(|x| x.as_array())
                .ok_or_else(|| Error::Input(format!("line {}: no pair `{k}`", no + 1)))?;
            match (
                a.first().and_then(|x| x.as_i64()),
                a.get(1).and_then(|x| x.as_i64()),
            ) {
                (Some(c), Some(n)) => Ok((c, n)),
                _ => Err(Error::Input(format!(
                    "line {}: `{k}` is not [cycles, ns]",
                    no + 1
                ))),
            }
        };
        let workers = num("workers")? as usize;
        let reps = num("reps")? as usize;
        let mut raw = [(0i64, 0i64); 7];
        raw[0] = pair("reference")?;
        for (k, name) in EPCC_CONSTRUCTS.iter().enumerate() {
            raw[k + 1] = pair(name)?;
        }
        match by_workers.iter_mut().find(|(w, _, _)| *w == workers) {
            Some((_, _, rounds)) => rounds.push(raw),
            None => {
                by_workers.push((workers, reps, vec![raw]));
                runs.push(LlvmRun {
                    workers,
                    threads_seen: num("threads_seen")?,
                    thread_limit: num("thread_limit")? as usize,
                });
            }
        }
    }
    if by_workers.is_empty() {
        return Err(Error::Input(
            "the LLVM comparator output has no result line".into(),
        ));
    }
    let rows = by_workers
        .iter()
        .flat_map(|(w, reps, rounds)| overheads("llvm-openmp", *w, *reps, rounds))
        .collect();
    Ok((rows, runs))
}

/// [`parse_llvm_lines`] of the file at `path`; an error names the file.
pub fn read_llvm_file(path: &std::path::Path) -> Result<(Vec<EpccRow>, Vec<LlvmRun>)> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Input(format!("reading {}: {e}", path.display())))?;
    parse_llvm_lines(&text).map_err(|e| match e {
        Error::Input(m) => Error::Input(format!("{}: {m}", path.display())),
        other => other,
    })
}

/// One construct at one worker count measured by both runtimes (the Bull overheads of
/// [`EpccRow`]), with ours / theirs in cycles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpccRatio {
    /// One of [`EPCC_CONSTRUCTS`].
    pub construct: String,
    /// Threads of each region.
    pub workers: usize,
    /// Our overhead in cycles.
    pub ours_cycles: f64,
    /// The comparator's overhead in cycles.
    pub llvm_cycles: f64,
    /// Our overhead in ns.
    pub ours_ns: f64,
    /// The comparator's overhead in ns.
    pub llvm_ns: f64,
    /// `ours_cycles / llvm_cycles`.
    pub ratio_cycles: f64,
}

/// The ratio of every row of `ours` that `theirs` has too (same construct and worker count),
/// in the order of `ours`.
///
/// ```
/// use occupant::model::forkjoin::{compare, overheads};
/// let raw = vec![[(1000, 500), (3000, 1500), (2000, 1000), (4000, 2000), (1500, 800), (1100, 600), (5000, 2500)]];
/// let ours = overheads("occupant-cuda", 32, 10, &raw);
/// let theirs = overheads("llvm-openmp", 32, 5, &raw);
/// let r = compare(&ours, &theirs);
/// assert_eq!(r.len(), 6);
/// assert_eq!((r[0].construct.as_str(), r[0].ratio_cycles), ("parallel", 0.5));
/// assert!(compare(&ours, &overheads("llvm-openmp", 64, 5, &raw)).is_empty());
/// ```
pub fn compare(ours: &[EpccRow], theirs: &[EpccRow]) -> Vec<EpccRatio> {
    ours.iter()
        .filter_map(|r| {
            let l = theirs
                .iter()
                .find(|l| l.workers == r.workers && l.construct == r.construct)?;
            Some(EpccRatio {
                construct: r.construct.clone(),
                workers: r.workers,
                ours_cycles: r.overhead_cycles,
                llvm_cycles: l.overhead_cycles,
                ours_ns: r.overhead_ns,
                llvm_ns: l.overhead_ns,
                ratio_cycles: r.overhead_cycles / l.overhead_cycles,
            })
        })
        .collect()
}

/// Checks per group of the fork-join semantics program (CPU `tests/cpu_forkjoin.rs`, CUDA
/// kernel `fj_semantics`).
pub const SEMANTICS_CHECKS: usize = 20;

/// Iterations per worksharing loop of the semantics program.
pub const SEMANTICS_HITS: usize = 100;

/// The values the semantics program must produce in a group of `all` workers whose partial
/// regions have `n` threads (see `cuda/kernels/forkjoin_tests.cu` for what each one checks).
///
/// ```
/// let e = occupant::model::forkjoin::expected_semantics(64, 40);
/// assert_eq!(e[1], 64);
/// assert_eq!(e[15], 5001);
/// ```
pub fn expected_semantics(all: i64, n: i64) -> [i64; SEMANTICS_CHECKS] {
    let tri = |k: i64| k * (k - 1) / 2;
    [
        100 * all + tri(all),
        all,
        7 * n + tri(n),
        tri(n),
        -7,
        3 * (n - 1),
        n,
        n - 1,
        tri(n),
        30 * tri(n) + 3 * n,
        4,
        all,
        2,
        tri(1000),
        1,
        5001,
        3 * n + tri(n),
        all - 1,
        11 - n,
        190 * n,
    ]
}
