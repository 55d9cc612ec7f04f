//! The discovery protocols a [`Discovery`](super::Discovery) can run.

use super::mutex::MutexKind;
use serde::Serialize;
use std::fmt;

/// Which occupancy discovery protocol a [`Discovery`](super::Discovery) runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DiscoveryKind {
    /// Lock-free, closed by the first arrival when the occupancy hint is reached or arrivals
    /// stop ([`QuiescentDiscovery`](super::QuiescentDiscovery)); the default.
    Quiescent,
    /// Seed 001 Fig. 3: polling and closing phases under a mutex, with `delay` lock/unlock
    /// rounds between them ([`LockedDiscovery`](super::LockedDiscovery)).
    Locked {
        /// The mutex guarding the poll.
        mutex: MutexKind,
        /// Lock/unlock rounds between the polling and the closing phase (seed 001 §5.4).
        delay: u32,
    },
}

impl DiscoveryKind {
    /// Parses `quiescent`, or a mutex name with an optional delay: `ticket`, `spin:1000`
    /// (as printed by `Display`).
    ///
    /// ```
    /// use occupant::cpu::sync::{DiscoveryKind, MutexKind};
    /// assert_eq!(DiscoveryKind::parse("quiescent"), Some(DiscoveryKind::Quiescent));
    /// let k = DiscoveryKind::Locked { mutex: MutexKind::Spin, delay: 100 };
    /// assert_eq!(DiscoveryKind::parse("spin:100"), Some(k));
    /// assert_eq!(DiscoveryKind::parse(&k.to_string()), Some(k));
    /// assert_eq!(DiscoveryKind::parse("bogus"), None);
    /// ```
    pub fn parse(s: &str) -> Option<Self> {
        if s == "quiescent" {
            return Some(DiscoveryKind::Quiescent);
        }
        let (name, delay) = match s.split_once(':') {
            Some((n, d)) => (n, d.parse().ok()?),
            None => (s, 0),
        };
        MutexKind::parse(name).map(|mutex| DiscoveryKind::Locked { mutex, delay })
    }
}

impl Default for DiscoveryKind {
    /// [`DiscoveryKind::Quiescent`]: with the executor's occupancy hint it finds every compute
    /// unit (recall 100 % in `bench/results/cpu-2core/`), where seed 001's locked protocol
    /// without a delay finds one group on the CPU (the first group closes the poll before
    /// another compute unit's group reaches the lock).
    fn default() -> Self {
        DiscoveryKind::Quiescent
    }
}

impl fmt::Display for DiscoveryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiscoveryKind::Quiescent => f.write_str("quiescent"),
            DiscoveryKind::Locked { mutex, delay } => write!(f, "{mutex}:{delay}"),
        }
    }
}
