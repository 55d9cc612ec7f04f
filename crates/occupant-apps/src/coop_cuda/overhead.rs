//! What a cooperative kernel costs when nothing asks for its groups (seed 000 §5.2, the first
//! figure of issue 12): the same app launched as the persistent baseline (no scheduler kills or
//! forks, plain barrier) and with each resizing barrier (regular, `query`), in interleaved
//! repetitions of two launches per mode, every launch verified.

use super::bfs::BarrierMode;
use super::kernel::CoopKernel;
use super::multitask::{Multitasker, Spread};
use occupant::cuda::Gpu;
use occupant::{Error, Result};
use serde::Serialize;

/// The three modes of one repetition, in the order they run.
const MODES: [BarrierMode; 3] = [
    BarrierMode::Persistent,
    BarrierMode::Regular,
    BarrierMode::Query,
];

/// Cooperative vs persistent for one app on one input.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoopOverhead {
    /// The app (`bfs`, `cc`, ...).
    pub app: String,
    /// Groups of every launch (the scheduler's slots: 2 per SM of 256 threads).
    pub groups: u32,
    /// Repetitions (each: persistent, regular, query, two launches each).
    pub repetitions: usize,
    /// Every launch's time, µs, per mode.
    pub persistent_us: Vec<f64>,
    /// The same, regular resizing barrier.
    pub regular_us: Vec<f64>,
    /// The same, `query` resizing barrier.
    pub query_us: Vec<f64>,
    /// Regular / persistent: the repetitions' ratios of their two launches' means.
    pub regular_over_persistent: Spread,
    /// Query / persistent, the same way.
    pub query_over_persistent: Spread,
}

impl CoopOverhead {
    /// The worse of the two medians (regular, query) over persistent.
    pub fn worst_median(&self) -> f64 {
        self.regular_over_persistent
            .median
            .max(self.query_over_persistent.median)
    }
}

/// Runs `app` alone `repetitions` times in each mode (persistent, regular, query; two launches
/// each, interleaved, after one warm-up launch) with the scheduler's launch shape (256 threads,
/// 2 groups per SM) and no other work: the cooperative kernel's cost over its persistent twin.
/// A wrong result is an error ([`Error::Resource`]) naming the app and mode.
pub fn coop_overhead(
    gpu: &Gpu,
    app: Box<dyn CoopKernel>,
    repetitions: usize,
) -> Result<CoopOverhead> {
    let name = app.name().to_string();
    let mut m = Multitasker::for_kernel(gpu, app, 256, 2)?;
    m.bfs_alone(BarrierMode::Persistent)?; // warm-up: module, caches
    let mut times: [Vec<f64>; 3] = Default::default();
    let mut pairs: [Vec<f64>; 3] = Default::default();
    for _ in 0..repetitions.max(1) {
        for (i, &mode) in MODES.iter().enumerate() {
            let (a, wa) = m.bfs_alone(mode)?;
            let (b, wb) = m.bfs_alone(mode)?;
            if wa + wb != 0 {
                return Err(Error::Resource(format!(
                    "{name} ({mode:?}) gave {} wrong rounds",
                    wa + wb
                )));
            }
            times[i].extend([a, b]);
            pairs[i].push((a + b) / 2.0);
        }
    }
    let ratios = |i: usize| -> Spread {
        let r: Vec<f64> = pairs[i].iter().zip(&pairs[0]).map(|(x, p)| x / p).collect();
        Spread::of(&r)
    };
    let [persistent_us, regular_us, query_us] = times;
    Ok(CoopOverhead {
        app: name,
        groups: m.groups(),
        repetitions: repetitions.max(1),
        regular_over_persistent: ratios(1),
        query_over_persistent: ratios(2),
        persistent_us,
        regular_us,
        query_us,
    })
}

/// The geometric mean and the largest of the rows' medians (regular and query over persistent).
///
/// ```
/// use occupant_apps::coop_cuda::{overhead_summary, CoopOverhead, Spread};
/// let row = |r: f64, q: f64| CoopOverhead {
///     app: "cc".into(), groups: 264, repetitions: 1,
///     persistent_us: vec![], regular_us: vec![], query_us: vec![],
///     regular_over_persistent: Spread::of(&[r]), query_over_persistent: Spread::of(&[q]),
/// };
/// let (geo, max) = overhead_summary(&[row(1.0, 1.21), row(1.0, 1.0)]);
/// assert!((geo - 1.21f64.powf(0.25)).abs() < 1e-12);
/// assert_eq!(max, 1.21);
/// ```
pub fn overhead_summary(rows: &[CoopOverhead]) -> (f64, f64) {
    let v: Vec<f64> = rows
        .iter()
        .flat_map(|r| {
            [
                r.regular_over_persistent.median,
                r.query_over_persistent.median,
            ]
        })
        .filter(|x| *x > 0.0)
        .collect();
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let geo = (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
    (geo, v.iter().cloned().fold(0.0, f64::max))
}
