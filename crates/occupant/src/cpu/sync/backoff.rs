//! The backoff of seed 004 (§5, "Mutex"): after each failed attempt a waiter pauses `I` units,
//! then increments `I`; past `max` it wraps back to `min`.

/// Linear, wrapping backoff (seed 004 Alg. 2–3): pause `i` units after a failed attempt, with
/// `i` running from `min` to `max` and then starting over at `min`.
///
/// One unit is `unit_spins` CPU spin-loop hints (on a GPU, the seed's unit is one uncontended
/// volatile read). Under loom a pause does nothing: the model checker explores the interleavings
/// a pause could produce anyway.
///
/// ```
/// use occupant::cpu::sync::BackoffConfig;
/// let b = BackoffConfig::default();
/// assert!(b.min >= 1 && b.min <= b.max);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct BackoffConfig {
    /// First pause, in units (at least 1).
    pub min: u32,
    /// Longest pause, in units; after it the pause starts over at `min`.
    pub max: u32,
    /// Spin-loop hints per unit.
    pub unit_spins: u32,
}

impl Default for BackoffConfig {
    /// `min` 1, `max` 64, 8 spin hints a unit: at most a few hundred nanoseconds on a current
    /// core, short against an uncontended critical section and the wait policy's own backoff.
    fn default() -> Self {
        Self {
            min: 1,
            max: 64,
            unit_spins: 8,
        }
    }
}

impl BackoffConfig {
    /// The same configuration with its fields made consistent (`1 <= min <= max`).
    pub fn normalized(self) -> Self {
        let min = self.min.max(1);
        Self {
            min,
            max: self.max.max(min),
            unit_spins: self.unit_spins,
        }
    }
}

/// The state of one waiter's backoff (created per lock attempt).
#[derive(Debug, Clone)]
pub(crate) struct Backoff {
    cfg: BackoffConfig,
    i: u32,
}

impl Backoff {
    pub(crate) fn new(cfg: BackoffConfig) -> Self {
        let cfg = cfg.normalized();
        Self { cfg, i: cfg.min }
    }

    /// Pauses the current number of units, then advances it (wrapping past `max`).
    pub(crate) fn pause(&mut self) {
        #[cfg(not(loom))]
        for _ in 0..u64::from(self.i) * u64::from(self.cfg.unit_spins) {
            std::hint::spin_loop();
        }
        self.i = if self.i >= self.cfg.max {
            self.cfg.min
        } else {
            self.i + 1
        };
    }

    #[cfg(all(test, not(loom)))]
    pub(crate) fn current(&self) -> u32 {
        self.i
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn backoff_runs_min_to_max_then_wraps() {
        let mut b = Backoff::new(BackoffConfig {
            min: 2,
            max: 4,
            unit_spins: 0,
        });
        let mut seen = vec![];
        for _ in 0..5 {
            seen.push(b.current());
            b.pause();
        }
        assert_eq!(seen, vec![2, 3, 4, 2, 3]);
    }

    #[test]
    fn normalization_repairs_bad_bounds() {
        let c = BackoffConfig {
            min: 0,
            max: 0,
            unit_spins: 1,
        }
        .normalized();
        assert_eq!((c.min, c.max), (1, 1));
    }
}
