//! One variant against every other on each (app, input), from the same benchmark run: the
//! ratio of the fastest runs, of the medians, and of the runs paired by round (the CPU bench
//! and the CUDA bench with `interleave` run one round of every variant at a time, so round *i*
//! of each ran under the same machine state; otherwise runs are paired by index), with a sign
//! test that says whether the difference is more than the run-to-run spread.

use super::{BenchResults, BenchRow};
use occupant::model::forkjoin::median;
use serde::Serialize;

/// What the paired rounds say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Ours was faster in significantly more rounds (two-sided sign test, p ≤ 0.05).
    Faster,
    /// Neither faster in significantly more rounds: a tie within the run-to-run spread (with
    /// fewer than 6 rounds no difference can be significant).
    Tie,
    /// Ours was slower in significantly more rounds.
    Slower,
}

/// `ours` against `theirs` on one (app, input). Ratios above 1: ours is faster.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// Application.
    pub app: String,
    /// Input.
    pub input: String,
    /// Input class.
    pub class: String,
    /// Our variant.
    pub ours: String,
    /// The other variant.
    pub theirs: String,
    /// Their fastest run / ours.
    pub min_ratio: f64,
    /// Their median run / ours.
    pub median_ratio: f64,
    /// The median over rounds of their run / ours in the same round.
    pub paired_median: f64,
    /// Rounds in which ours was faster, and rounds compared.
    pub rounds_won: (usize, usize),
    /// Two-sided sign-test p-value of the rounds won (ties in a round count half).
    pub p_value: f64,
    /// [`Verdict`] at p ≤ 0.05.
    pub verdict: Verdict,
}

/// Two-sided sign test: the probability, under "either variant is as likely to win a round",
/// of a split at least as uneven as `won` of `n`.
///
/// ```
/// use occupant_apps::apps::bench::sign_test;
/// assert!((sign_test(5, 5) - 0.0625).abs() < 1e-12);
/// assert!(sign_test(9, 10) < 0.05);
/// assert_eq!(sign_test(5, 10), 1.0);
/// ```
pub fn sign_test(won: usize, n: usize) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let k = won.min(n - won);
    // P(X <= k) for X ~ Binomial(n, 1/2), doubled.
    let mut c = 1f64; // C(n, 0)
    let mut tail = 0f64;
    for i in 0..=k {
        if i > 0 {
            c = c * (n - i + 1) as f64 / i as f64;
        }
        tail += c;
    }
    (2.0 * tail / 2f64.powi(n as i32)).min(1.0)
}

fn compare(ours: &BenchRow, theirs: &BenchRow) -> Comparison {
    let pairs: Vec<(f64, f64)> = ours
        .times_ms
        .iter()
        .copied()
        .zip(theirs.times_ms.iter().copied())
        .collect();
    let n = pairs.len();
    let won2: usize = pairs
        .iter()
        .map(|&(o, t)| match o.total_cmp(&t) {
            std::cmp::Ordering::Less => 2,
            std::cmp::Ordering::Equal => 1,
            std::cmp::Ordering::Greater => 0,
        })
        .sum();
    // Ties in a round count half: round the half-wins toward the null (n / 2).
    let won = if won2 >= n {
        won2 / 2
    } else {
        won2.div_ceil(2)
    };
    let p_value = sign_test(won, n);
    let verdict = if p_value > 0.05 {
        Verdict::Tie
    } else if 2 * won > n {
        Verdict::Faster
    } else {
        Verdict::Slower
    };
    Comparison {
        app: ours.app.clone(),
        input: ours.input.clone(),
        class: ours.class.clone(),
        ours: ours.variant.clone(),
        theirs: theirs.variant.clone(),
        min_ratio: theirs.min_ms / ours.min_ms,
        median_ratio: median(&theirs.times_ms) / median(&ours.times_ms),
        paired_median: median(&pairs.iter().map(|&(o, t)| t / o).collect::<Vec<_>>()),
        rounds_won: (won, n),
        p_value,
        verdict,
    }
}

impl BenchResults {
    /// `ours` (a variant name) against every other variant, per (app, input), in row order.
    ///
    /// ```
    /// use occupant::cpu::{ExecModel, Executor};
    /// use occupant_apps::apps::bench::{bench_cpu, BenchInput};
    /// use occupant_apps::apps::AppKind;
    /// use occupant_apps::graph::Csr;
    /// let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
    /// let g = Csr::from_edges(3, &[(0, 1), (1, 2)], None).unwrap();
    /// let inputs = [BenchInput { name: "path".into(), class: "high-diameter".into(), graph: g }];
    /// let r = bench_cpu(&exec, &inputs, &[AppKind::Bfs], 3, |_| {})?;
    /// let c = r.comparisons("persistent");
    /// assert_eq!(c.len(), 1);
    /// assert_eq!((c[0].theirs.as_str(), c[0].rounds_won.1), ("multi-launch", 3));
    /// # Ok::<(), occupant::Error>(())
    /// ```
    pub fn comparisons(&self, ours: &str) -> Vec<Comparison> {
        let mut out = Vec::new();
        for o in self.rows.iter().filter(|r| r.variant == ours) {
            for t in self
                .rows
                .iter()
                .filter(|t| t.variant != ours && t.app == o.app && t.input == o.input)
            {
                out.push(compare(o, t));
            }
        }
        out
    }
}

/// A text table of `comparisons`, one line each.
pub fn comparison_table(comparisons: &[Comparison]) -> String {
    let mut s = format!(
        "{:<10} {:<24} {:<14} {:>8} {:>8} {:>8} {:>8} {:>7}  verdict\n",
        "app", "input", "vs", "min×", "median×", "paired×", "won", "p"
    );
    for c in comparisons {
        s += &format!(
            "{:<10} {:<24} {:<14} {:>8.3} {:>8.3} {:>8.3} {:>8} {:>7.3}  {:?}\n",
            c.app,
            c.input,
            c.theirs,
            c.min_ratio,
            c.median_ratio,
            c.paired_median,
            format!("{}/{}", c.rounds_won.0, c.rounds_won.1),
            c.p_value,
            c.verdict
        );
    }
    s
}
