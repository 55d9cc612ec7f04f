//! Per-launch options.

use super::exec_model::ExecModel;
use crate::model::{NDRange, Watchdog};

/// A launch: its shape plus optional per-launch overrides of the executor's settings.
///
/// ```
/// use occupant::cpu::{ExecModel, Launch};
/// use occupant::NDRange;
/// let l = Launch::new(NDRange::d1(256, 64).unwrap()).model(ExecModel::Serialized);
/// assert_eq!(l.range.group_count(), 4);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Launch {
    /// The NDRange.
    pub range: NDRange,
    /// Execution model for this launch (default: the executor's).
    pub model: Option<ExecModel>,
    /// Watchdog for this launch (default: the executor's).
    pub watchdog: Option<Watchdog>,
    /// Set by [`independent_groups`](Self::independent_groups).
    pub independent_groups: bool,
}

impl Launch {
    /// A launch of `range` with the executor's settings.
    pub fn new(range: NDRange) -> Self {
        Self {
            range,
            model: None,
            watchdog: None,
            independent_groups: false,
        }
    }

    /// Declares that no group of this launch waits for another (as OpenCL assumes of every
    /// kernel): under [`ExecModel::OccupancyBound`] a compute unit may then claim groups in
    /// batches (about 16 per compute unit per launch) instead of one at a time. A claim is an
    /// atomic read-modify-write, which waits for the compute unit's pending stores to drain:
    /// for small barrier-free groups (e.g. 1024 plain stores) that is a visible share of the
    /// group's time. A group claimed in a batch may start only after the groups before it in
    /// the batch, so a launch whose groups do wait for each other can then deadlock (reported
    /// as [`Error::Deadlock`](crate::Error::Deadlock) by the watchdog, never a hang).
    ///
    /// ```
    /// use occupant::cpu::{ExecModel, Executor, Launch};
    /// use occupant::NDRange;
    /// let mut out = vec![0u32; 1 << 16];
    /// let launch = Launch::new(NDRange::d1(1 << 16, 256).unwrap()).independent_groups();
    /// Executor::new(ExecModel::OccupancyBound { compute_units: 2 })
    ///     .launch_phased_out(&launch, &mut out, || (), |g, _, o| {
    ///         g.items_with(o, |it, o| *o = it.global_linear_id() as u32);
    ///     })
    ///     .unwrap();
    /// assert_eq!(out[12345], 12345);
    /// ```
    pub fn independent_groups(mut self) -> Self {
        self.independent_groups = true;
        self
    }

    /// Runs this launch under `model`.
    pub fn model(mut self, model: ExecModel) -> Self {
        self.model = Some(model);
        self
    }

    /// Uses `watchdog` for this launch.
    pub fn watchdog(mut self, watchdog: Watchdog) -> Self {
        self.watchdog = Some(watchdog);
        self
    }
}

impl From<NDRange> for Launch {
    fn from(range: NDRange) -> Self {
        Self::new(range)
    }
}
