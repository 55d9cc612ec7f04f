//! Watchdog settings shared by the backends.

use serde::Serialize;
use std::time::Duration;

/// How long a wait may go without progress before the launch is declared deadlocked.
///
/// Every spin loop on every backend goes through one wait policy that checks this deadline
/// and a per-launch abort flag. On CUDA it bounds each wait. On the CPU backend it bounds the
/// time during which no wait of the launch got through (a wait restarts its deadline whenever
/// another one ends), so a wait that lasts long while the launch makes progress — a fork-join
/// master joining a region of many team barriers, a group at the end of a chain of waits — is
/// not a deadlock, and a real one is reported one timeout after the last progress. The default
/// (2 s) is far above any legitimate wait in the primitives here and short enough that a
/// deadlocked launch returns promptly.
///
/// ```
/// use occupant::model::Watchdog;
/// use std::time::Duration;
/// let w = Watchdog::default().with_timeout(Duration::from_millis(200));
/// assert_eq!(w.timeout, Duration::from_millis(200));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Watchdog {
    /// The longest a wait may go without progress (see the type's documentation).
    pub timeout: Duration,
}

impl Default for Watchdog {
    fn default() -> Self {
        let timeout = std::env::var("OCCUPANT_WATCHDOG_MS")
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .map(Duration::from_millis)
            .unwrap_or(Duration::from_secs(2));
        Self { timeout }
    }
}

impl Watchdog {
    /// The same watchdog with another timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}
