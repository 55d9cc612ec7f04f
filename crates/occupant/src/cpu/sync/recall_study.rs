//! The CPU discovery-recall study (`occupant discover`; seed 001 Table 5): every protocol at
//! every occupancy bound of the occupancy-bound model, [`measure_discovery`] `runs` times each,
//! with the recall per configuration and per protocol, as data, a text table and plot series.

use super::discovery_kind::DiscoveryKind;
use super::discovery_recall::measure_discovery;
use super::mutex::MutexKind;
use crate::cpu::{available_cores, ExecModel, Executor, Launch};
use crate::model::{Result, Summary, Watchdog};
use crate::NDRange;
use serde::Serialize;
use std::time::Duration;

/// What the study measures.
#[derive(Debug, Clone)]
pub struct RecallStudyConfig {
    /// True occupancy bounds: compute units of [`ExecModel::OccupancyBound`].
    pub compute_units: Vec<usize>,
    /// Groups launched (`None`: 4 × the compute units).
    pub groups: Option<usize>,
    /// Work-items per group.
    pub local_size: usize,
    /// Launches per configuration.
    pub runs: usize,
    /// The protocols ([`seed_protocols`]).
    pub protocols: Vec<DiscoveryKind>,
    /// The deadline of every launch.
    pub timeout: Duration,
}

/// The default protocol first, then seed 001's locked protocol for every mutex and delay
/// (lock/unlock rounds between polling and closing).
///
/// ```
/// use occupant::cpu::sync::{seed_protocols, DiscoveryKind, MutexKind};
/// let p = seed_protocols(&[MutexKind::Ticket], &[0, 10]);
/// assert_eq!(p.len(), 3);
/// assert_eq!(p[0], DiscoveryKind::default());
/// ```
pub fn seed_protocols(mutexes: &[MutexKind], delays: &[u32]) -> Vec<DiscoveryKind> {
    let mut kinds = vec![DiscoveryKind::default()];
    for &mutex in mutexes {
        kinds.extend(
            delays
                .iter()
                .map(|&delay| DiscoveryKind::Locked { mutex, delay }),
        );
    }
    kinds
}

/// One (protocol, compute units) configuration, measured `runs` times.
#[derive(Debug, Clone, Serialize)]
pub struct RecallRow {
    /// The protocol's name.
    pub protocol: String,
    /// The protocol.
    pub kind: DiscoveryKind,
    /// Whether it is the default protocol.
    pub default: bool,
    /// The most groups the model keeps occupant.
    pub occupancy_bound: usize,
    /// Groups launched.
    pub groups: usize,
    /// Participants found, per launch.
    pub counts: Vec<usize>,
    /// Participants found.
    pub discovered: Summary,
    /// Mean participants over the occupancy bound.
    pub recall: f64,
    /// Launch time, ms.
    pub launch_ms: Summary,
}

/// Mean recall of one protocol over every compute-unit count.
#[derive(Debug, Clone, Serialize)]
pub struct ProtocolRecall {
    /// The protocol's name.
    pub protocol: String,
    /// Whether it is the default protocol.
    pub default: bool,
    /// Mean of its rows' recall.
    pub mean_recall: f64,
    /// Lowest of its rows' recall.
    pub min_recall: f64,
}

/// The study's results.
#[derive(Debug, Clone, Serialize)]
pub struct RecallReport {
    /// `"discover"`.
    pub experiment: &'static str,
    /// `"cpu"`.
    pub backend: &'static str,
    /// Cores of the host.
    pub host_cores: usize,
    /// Work-items per group.
    pub local_size: usize,
    /// Launches per configuration.
    pub runs: usize,
    /// The compute-unit counts measured.
    pub compute_units: Vec<usize>,
    /// Per protocol, over every compute-unit count.
    pub protocols: Vec<ProtocolRecall>,
    /// Per configuration.
    pub rows: Vec<RecallRow>,
}

/// Runs the study; `progress(what, done)` before (`done` false) and after (true) each
/// configuration's `runs` launches, `what` naming it (`"ticket:0, 4 compute units"`). The first
/// failing launch ends the study with its error (the configuration is the last one announced).
///
/// ```
/// use occupant::cpu::sync::{discovery_recall_study, seed_protocols, RecallStudyConfig};
/// let cfg = RecallStudyConfig {
///     compute_units: vec![2],
///     groups: None,
///     local_size: 4,
///     runs: 2,
///     protocols: seed_protocols(&[], &[]),
///     timeout: std::time::Duration::from_secs(10),
/// };
/// let r = discovery_recall_study(&cfg, &mut |_, _| {})?;
/// assert_eq!((r.rows.len(), r.rows[0].groups, r.rows[0].occupancy_bound), (1, 8, 2));
/// assert!(r.table().contains("(default)"));
/// # Ok::<(), occupant::Error>(())
/// ```
pub fn discovery_recall_study(
    cfg: &RecallStudyConfig,
    progress: &mut dyn FnMut(&str, bool),
) -> Result<RecallReport> {
    let mut rows = vec![];
    for &cu in &cfg.compute_units {
        let groups = cfg.groups.unwrap_or(4 * cu);
        let range = NDRange::groups(groups, cfg.local_size)?;
        let model = ExecModel::OccupancyBound { compute_units: cu };
        let exec = Executor::new(model);
        let launch = Launch::new(range)
            .model(model)
            .watchdog(Watchdog::default().with_timeout(cfg.timeout));
        for &kind in &cfg.protocols {
            let what = format!("{kind}, {cu} compute units");
            progress(&what, false);
            let runs = measure_discovery(&exec, &launch, kind, cfg.runs)?;
            progress(&what, true);
            let counts: Vec<usize> = runs.iter().map(|r| r.participants).collect();
            let c: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
            let ms: Vec<f64> = runs.iter().map(|r| r.elapsed.as_secs_f64() * 1e3).collect();
            let bound = model.concurrency(groups);
            let discovered = Summary::of(&c);
            rows.push(RecallRow {
                protocol: kind.to_string(),
                kind,
                default: kind == DiscoveryKind::default(),
                occupancy_bound: bound,
                groups,
                counts,
                recall: discovered.mean / bound as f64,
                discovered,
                launch_ms: Summary::of(&ms),
            });
        }
    }
    let protocols = cfg
        .protocols
        .iter()
        .map(|k| {
            let r: Vec<f64> = rows
                .iter()
                .filter(|r| r.kind == *k)
                .map(|r| r.recall)
                .collect();
            ProtocolRecall {
                protocol: k.to_string(),
                default: *k == DiscoveryKind::default(),
                mean_recall: r.iter().sum::<f64>() / r.len().max(1) as f64,
                min_recall: r.iter().copied().fold(f64::INFINITY, f64::min),
            }
        })
        .collect();
    Ok(RecallReport {
        experiment: "discover",
        backend: "cpu",
        host_cores: available_cores(),
        local_size: cfg.local_size,
        runs: cfg.runs,
        compute_units: cfg.compute_units.clone(),
        protocols,
        rows,
    })
}

/// A protocol's name, marked when it is the default.
fn label(protocol: &str, default: bool) -> String {
    if default {
        format!("{protocol} (default)")
    } else {
        protocol.to_string()
    }
}

impl RecallReport {
    /// Recall (%) against the occupancy bound, one series per protocol.
    pub fn series(&self) -> Vec<(String, Vec<(f64, f64)>)> {
        self.protocols
            .iter()
            .map(|p| {
                let pts = self
                    .rows
                    .iter()
                    .filter(|r| r.protocol == p.protocol)
                    .map(|r| (r.occupancy_bound as f64, 100.0 * r.recall))
                    .collect();
                (p.protocol.clone(), pts)
            })
            .collect()
    }

    /// A text table: a line per configuration, then each protocol's mean and lowest recall.
    pub fn table(&self) -> String {
        let mut s = format!(
            "occupancy discovery on the CPU backend: groups of {}, {} runs per configuration, {} host cores\n",
            self.local_size, self.runs, self.host_cores
        );
        s += &format!(
            "{:<20} {:>5} {:>6} {:>8} {:>5} {:>5} {:>7} {:>7} {:>11}\n",
            "protocol", "units", "groups", "mean", "min", "max", "stddev", "recall", "launch ms"
        );
        for r in &self.rows {
            s += &format!(
                "{:<20} {:>5} {:>6} {:>8.2} {:>5} {:>5} {:>7.2} {:>6.1}% {:>11.3}\n",
                label(&r.protocol, r.default),
                r.occupancy_bound,
                r.groups,
                r.discovered.mean,
                r.discovered.min,
                r.discovered.max,
                r.discovered.stddev,
                100.0 * r.recall,
                r.launch_ms.mean
            );
        }
        s += &format!(
            "\nmean recall over {:?} compute units:\n",
            self.compute_units
        );
        for p in &self.protocols {
            s += &format!(
                "  {:<20} {:>6.1}% (lowest {:.1}%)\n",
                label(&p.protocol, p.default),
                100.0 * p.mean_recall,
                100.0 * p.min_recall
            );
        }
        s
    }
}
