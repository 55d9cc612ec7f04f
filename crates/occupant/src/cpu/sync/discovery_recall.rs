//! The discovery experiment (seed 001 Table 5): how many groups a protocol finds, launch after
//! launch, against how many the execution model keeps occupant.

use super::discovery::Discovery;
use super::discovery_kind::DiscoveryKind;
use crate::cpu::{ExecModel, Executor, Launch};
use crate::model::Result;
use serde::Serialize;
use std::time::{Duration, Instant};

/// One launch of the discovery experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DiscoveryRun {
    /// Groups that participated.
    pub participants: usize,
    /// The most groups the launch could keep occupant (the executor's occupancy hint).
    pub occupancy_bound: usize,
    /// Wall-clock time of the launch.
    pub elapsed: Duration,
}

impl DiscoveryRun {
    /// `participants / occupancy_bound`: 1.0 when discovery found every compute unit.
    pub fn recall(&self) -> f64 {
        self.participants as f64 / self.occupancy_bound.max(1) as f64
    }
}

/// Launches `launch` `runs` times on `exec`, each a kernel that runs only discovery of `kind`
/// in every group, and reports each launch. The first failing launch ends the experiment with
/// its error.
///
/// ```
/// use occupant::cpu::sync::{measure_discovery, DiscoveryKind};
/// use occupant::cpu::{ExecModel, Executor, Launch};
/// use occupant::NDRange;
/// let model = ExecModel::OccupancyBound { compute_units: 2 };
/// let launch = Launch::new(NDRange::groups(8, 4).unwrap()).model(model);
/// let runs = measure_discovery(&Executor::new(model), &launch, DiscoveryKind::Quiescent, 3).unwrap();
/// assert_eq!(runs.len(), 3);
/// assert!(runs.iter().all(|r| r.occupancy_bound == 2 && (1..=2).contains(&r.participants)));
/// ```
pub fn measure_discovery(
    exec: &Executor,
    launch: &Launch,
    kind: DiscoveryKind,
    runs: usize,
) -> Result<Vec<DiscoveryRun>> {
    let groups = launch.range.group_count();
    let model: ExecModel = launch.model.unwrap_or(exec.config().model);
    let occupancy_bound = model.concurrency(groups);
    (0..runs)
        .map(|_| {
            let disc = Discovery::with_kind(groups, kind);
            let t = Instant::now();
            exec.launch_with(
                launch,
                || (),
                |item, _| {
                    let _ = disc.discover_group(item);
                },
            )?;
            Ok(DiscoveryRun {
                participants: disc.count(),
                occupancy_bound,
                elapsed: t.elapsed(),
            })
        })
        .collect()
}
