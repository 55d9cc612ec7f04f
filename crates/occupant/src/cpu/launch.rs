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
}

impl Launch {
    /// A launch of `range` with the executor's settings.
    pub fn new(range: NDRange) -> Self {
        Self {
            range,
            model: None,
            watchdog: None,
        }
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
