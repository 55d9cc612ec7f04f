//! Barrier trace of a device loop: where an iteration's time goes (the phase's work, the spread
//! of the arrivals, the release), read back from a device-loop program compiled with
//! `-DOCC_APP_TRACE` (e.g. `OCCUPANT_APP_DEFINES=-DOCC_APP_TRACE`): every block records
//! `%globaltimer` as its last warp enters and as it leaves the first barrier of 64 iterations
//! from `OCC_APP_TRACE_FROM` (64) on, by block index. A block's phase is therefore its slowest
//! warp's work, and the release includes the last block's own `__syncthreads`.

use occupant::cuda::Module;
use occupant::Result;
use serde::Serialize;

/// The device's trace buffer (graph_apps.cu): iterations, then enter/leave, then blocks.
const TRACE_ITERS: usize = 64;
const TRACE_BLOCKS: usize = 4096;
/// An entry further than this from its iteration's median arrival is a previous run's.
const STALE_NS: u64 = 1_000_000;

/// Means over the traced iterations of one run, in nanoseconds (`%globaltimer`, whose step is
/// `timer_step_ns`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BarrierTrace {
    /// Iterations traced (with a previous iteration, so that phases can be measured).
    pub iterations: usize,
    /// Blocks recorded per iteration (mean).
    pub blocks: f64,
    /// Smallest non-zero difference between two recorded times (the timer's resolution).
    pub timer_step_ns: u64,
    /// From one iteration's last arrival to the next's.
    pub period_ns: f64,
    /// A block's work between leaving one barrier and entering the next (mean over blocks).
    pub phase_mean_ns: f64,
    /// The same, the slowest block of the iteration.
    pub phase_max_ns: f64,
    /// From the first arrival to the last.
    pub arrival_spread_ns: f64,
    /// From the last arrival to the median block's leaving.
    pub release_median_ns: f64,
    /// From the last arrival to the last block's leaving.
    pub release_max_ns: f64,
}

impl BarrierTrace {
    /// Reads the trace of the last device-loop run of `module`; `None` when it was compiled
    /// without `-DOCC_APP_TRACE` or the run traced fewer than two iterations.
    pub fn read(module: &Module) -> Result<Option<BarrierTrace>> {
        let Some(bytes) = module.read_global("occ_app_trace")? else {
            return Ok(None);
        };
        let raw: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        Ok(Self::from_raw(&raw, TRACE_BLOCKS))
    }

    /// The summary of a raw trace: `raw[(i * 2 + side) * blocks + b]`, side 0 entering and 1
    /// leaving iteration i's barrier, 0 where block b recorded nothing.
    pub fn from_raw(raw: &[u64], blocks: usize) -> Option<BarrierTrace> {
        let iters = (raw.len() / (2 * blocks)).min(TRACE_ITERS);
        let side = |i: usize, s: usize| &raw[(i * 2 + s) * blocks..(i * 2 + s + 1) * blocks];
        // Per iteration: the blocks whose entries belong to this run.
        let live: Vec<Vec<usize>> = (0..iters)
            .map(|i| {
                let enter = side(i, 0);
                let mut t: Vec<u64> = enter.iter().copied().filter(|&t| t != 0).collect();
                if t.is_empty() {
                    return Vec::new();
                }
                t.sort_unstable();
                let med = t[t.len() / 2];
                (0..blocks)
                    .filter(|&b| {
                        enter[b] != 0 && side(i, 1)[b] != 0 && enter[b].abs_diff(med) < STALE_NS
                    })
                    .collect()
            })
            .collect();
        let mut step = u64::MAX;
        let mut sums = [0f64; 7];
        let mut n = 0usize;
        for i in 1..iters {
            let (cur, prev) = (&live[i], &live[i - 1]);
            if cur.is_empty() || prev.is_empty() {
                continue;
            }
            let (enter, leave) = (side(i, 0), side(i, 1));
            let first = cur.iter().map(|&b| enter[b]).min()?;
            let last = cur.iter().map(|&b| enter[b]).max()?;
            let prev_last = prev.iter().map(|&b| side(i - 1, 0)[b]).max()?;
            let mut leaves: Vec<u64> = cur.iter().map(|&b| leave[b]).collect();
            leaves.sort_unstable();
            for w in leaves.windows(2) {
                if w[1] > w[0] {
                    step = step.min(w[1] - w[0]);
                }
            }
            let phases: Vec<f64> = cur
                .iter()
                .filter(|&&b| side(i - 1, 1)[b] != 0)
                .map(|&b| enter[b].saturating_sub(side(i - 1, 1)[b]) as f64)
                .collect();
            if phases.is_empty() {
                continue;
            }
            let med_leave = leaves[leaves.len() / 2];
            let max_leave = *leaves.last()?;
            sums[0] += cur.len() as f64;
            sums[1] += last.saturating_sub(prev_last) as f64;
            sums[2] += phases.iter().sum::<f64>() / phases.len() as f64;
            sums[3] += phases.iter().copied().fold(0.0, f64::max);
            sums[4] += (last - first) as f64;
            sums[5] += med_leave.saturating_sub(last) as f64;
            sums[6] += max_leave.saturating_sub(last) as f64;
            n += 1;
        }
        if n == 0 {
            return None;
        }
        let m = |k: usize| sums[k] / n as f64;
        Some(BarrierTrace {
            iterations: n,
            blocks: m(0),
            timer_step_ns: if step == u64::MAX { 0 } else { step },
            period_ns: m(1),
            phase_mean_ns: m(2),
            phase_max_ns: m(3),
            arrival_spread_ns: m(4),
            release_median_ns: m(5),
            release_max_ns: m(6),
        })
    }

    /// One line: the means in microseconds.
    pub fn summary(&self) -> String {
        let us = |ns: f64| ns / 1e3;
        format!(
            "barrier trace ({} iterations, {:.0} blocks, timer step {} ns): period {:.3} us, \
             phase mean {:.3} max {:.3}, arrivals spread {:.3}, release median {:.3} max {:.3}",
            self.iterations,
            self.blocks,
            self.timer_step_ns,
            us(self.period_ns),
            us(self.phase_mean_ns),
            us(self.phase_max_ns),
            us(self.arrival_spread_ns),
            us(self.release_median_ns),
            us(self.release_max_ns)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two blocks, three iterations, made-up times: block 1 is always the last to arrive.
    #[test]
    fn a_synthetic_trace_gives_its_phases_spread_and_release() {
        let blocks = 4;
        let mut raw = vec![0u64; TRACE_ITERS * 2 * blocks];
        let mut put = |i: usize, s: usize, b: usize, t: u64| raw[(i * 2 + s) * blocks + b] = t;
        for i in 0..3u64 {
            let base = 1_000_000_000 + i * 1_000;
            put(i as usize, 0, 0, base + 100); // block 0 enters
            put(i as usize, 0, 1, base + 400); // block 1 enters last
            put(i as usize, 1, 0, base + 500); // leaves
            put(i as usize, 1, 1, base + 520);
        }
        // A stale entry of an earlier run, 50 ms before (block 2): ignored.
        put(1, 0, 2, 950_000_000);
        put(1, 1, 2, 950_000_100);
        let t = BarrierTrace::from_raw(&raw, blocks).unwrap();
        assert_eq!(t.iterations, 2);
        assert_eq!(t.blocks, 2.0);
        assert_eq!(t.period_ns, 1_000.0);
        assert_eq!(t.arrival_spread_ns, 300.0);
        // Phases: block 0 from 500 to 1100 (600), block 1 from 520 to 1400 (880).
        assert_eq!(t.phase_mean_ns, 740.0);
        assert_eq!(t.phase_max_ns, 880.0);
        assert_eq!(t.release_median_ns, 120.0);
        assert_eq!(t.release_max_ns, 120.0);
        assert_eq!(t.timer_step_ns, 20);
        assert!(t.summary().contains("period 1.000 us"));
    }

    #[test]
    fn an_empty_trace_is_none() {
        assert_eq!(BarrierTrace::from_raw(&vec![0; 2 * 64 * 8], 8), None);
    }
}
