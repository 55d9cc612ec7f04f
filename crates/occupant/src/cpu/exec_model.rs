//! Execution models: how work-groups are given compute units.

use serde::Serialize;
use std::fmt;

/// How the CPU executor schedules work-groups onto compute units (OS threads).
///
/// These are the test bench for inter-group protocols: a protocol that is correct under every
/// model does not rely on how many groups run at once or in which order they start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ExecModel {
    /// The GPU's model: `compute_units` threads; a group that has started keeps its unit until it
    /// ends, and later groups wait for a unit to free up. Groups start in id order.
    OccupancyBound {
        /// Number of compute units (at least 1).
        compute_units: usize,
    },
    /// One group at a time, in id order (what the OpenCL specification permits).
    Serialized,
    /// Every group gets its own thread, so all groups make progress (what CPU programmers assume).
    Fair,
    /// Seeded random start order, random delays at group start, and random yields at barriers
    /// and waits, on as many compute units as the machine has cores. Reproducible per seed in its
    /// choices (the OS scheduler adds its own noise).
    Adversarial {
        /// Seed of the random choices.
        seed: u64,
    },
}

impl ExecModel {
    /// The default model: occupancy-bound with one compute unit per available core.
    pub fn default_occupancy() -> Self {
        ExecModel::OccupancyBound {
            compute_units: available_cores(),
        }
    }

    /// How many groups this model keeps occupant at once for a launch of `groups` groups.
    pub fn concurrency(&self, groups: usize) -> usize {
        match *self {
            ExecModel::OccupancyBound { compute_units } => compute_units.min(groups),
            ExecModel::Serialized => 1,
            ExecModel::Fair => groups,
            ExecModel::Adversarial { .. } => available_cores().min(groups),
        }
    }

    /// Parses `occupancy:N`, `serialized`, `fair`, `adversarial:SEED` (as printed by `Display`).
    pub fn parse(s: &str) -> Option<Self> {
        let (name, arg) = match s.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (s, None),
        };
        match (name, arg) {
            ("occupancy", None) => Some(Self::default_occupancy()),
            ("occupancy", Some(a)) => a
                .parse()
                .ok()
                .filter(|&n| n > 0)
                .map(|compute_units| ExecModel::OccupancyBound { compute_units }),
            ("serialized", None) => Some(ExecModel::Serialized),
            ("fair", None) => Some(ExecModel::Fair),
            ("adversarial", a) => a
                .map_or(Some(0), |a| a.parse().ok())
                .map(|seed| ExecModel::Adversarial { seed }),
            _ => None,
        }
    }
}

impl Default for ExecModel {
    fn default() -> Self {
        Self::default_occupancy()
    }
}

impl fmt::Display for ExecModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecModel::OccupancyBound { compute_units } => write!(f, "occupancy:{compute_units}"),
            ExecModel::Serialized => write!(f, "serialized"),
            ExecModel::Fair => write!(f, "fair"),
            ExecModel::Adversarial { seed } => write!(f, "adversarial:{seed}"),
        }
    }
}

/// Cores available to this process (at least 1).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_round_trips() {
        for m in [
            ExecModel::OccupancyBound { compute_units: 3 },
            ExecModel::Serialized,
            ExecModel::Fair,
            ExecModel::Adversarial { seed: 42 },
        ] {
            assert_eq!(ExecModel::parse(&m.to_string()), Some(m));
        }
        assert_eq!(ExecModel::parse("occupancy:0"), None);
        assert_eq!(ExecModel::parse("bogus"), None);
    }
}
