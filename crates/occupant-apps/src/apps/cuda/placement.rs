//! Does the persistent barrier's place decide an application's time? The placement study runs
//! one app on one input with the persistent variant's barrier at every candidate place of
//! [`PersistentProgram`](occupant::cuda::PersistentProgram) (its probe's timings beside each),
//! interleaved with the cooperative variant (`grid.sync()`), every output checked against the
//! sequential reference: the experiment behind the probe's choice (`occupant bench placement`,
//! docs/PERSISTENT.md "Where the barrier lives").

use super::bench::{bench_source, matches};
use super::{AppPrograms, CudaInput};
use crate::apps::bench::BenchInput;
use crate::apps::{reference, verify, AppKind, AppOutput, AppParams, Variant};
use occupant::cuda::{Gpu, Placement};
use occupant::{Error, Result};
use serde::Serialize;

/// One candidate place's runs.
#[derive(Debug, Clone, Serialize)]
pub struct PlacedRuns {
    /// Candidate index.
    pub candidate: usize,
    /// Bytes from the first candidate place.
    pub offset_bytes: usize,
    /// The probe's ns per barrier there.
    pub probe_ns: f64,
    /// Whether the probe chose it.
    pub chosen: bool,
    /// Fastest run, ms.
    pub min_ms: f64,
    /// Median run, ms.
    pub median_ms: f64,
}

/// What [`placement_study`] measured.
#[derive(Debug, Clone, Serialize)]
pub struct PlacementStudy {
    /// Application.
    pub app: String,
    /// Input name.
    pub input: String,
    /// The persistent variant's barrier kind.
    pub barrier: String,
    /// Timed runs per candidate (and of the cooperative variant).
    pub runs: usize,
    /// The probe's measurement and choice (made before the first launch).
    pub placement: Placement,
    /// Every candidate place, in address order.
    pub candidates: Vec<PlacedRuns>,
    /// The cooperative variant's (min, median) ms, interleaved with the candidates' runs
    /// (`None` without the CUDA toolkit headers).
    pub cooperative_ms: Option<(f64, f64)>,
    /// Pearson correlation of the probe's ns with the candidates' min ms (how far the probe
    /// predicts the app).
    pub correlation: f64,
    /// Every output matched the reference.
    pub verified: bool,
}

impl PlacementStudy {
    /// The probe as a plot line: x the candidate place (1 = the first), y the probe's ns per
    /// barrier; labelled with the app and input.
    pub fn plot_series(&self) -> occupant::cuda::sync::bench::PlotSeries {
        let points = self
            .candidates
            .iter()
            .map(|c| ((c.candidate + 1) as f64, c.probe_ns))
            .collect();
        (format!("{} on {}: probe ns", self.app, self.input), points)
    }
    /// The candidate the probe chose.
    pub fn chosen(&self) -> &PlacedRuns {
        &self.candidates[self.placement.chosen]
    }
    /// Cooperative min / chosen candidate's min (≥ 1: the persistent kernel is faster).
    pub fn chosen_vs_cooperative(&self) -> Option<f64> {
        self.cooperative_ms.map(|(c, _)| c / self.chosen().min_ms)
    }
    /// A text table: one line per candidate, then the cooperative variant.
    pub fn table(&self) -> String {
        let mut s = format!(
            "{} on {} ({} barrier, {} runs each; probe: {} blocks of {} threads)\n{:>9} {:>9} {:>11} {:>11}\n",
            self.app,
            self.input,
            self.barrier,
            self.runs,
            self.placement.participants,
            self.placement.block_threads,
            "offset",
            "probe ns",
            "min ms",
            "median ms"
        );
        for c in &self.candidates {
            s += &format!(
                "{:>9} {:>9.0} {:>11.3} {:>11.3}{}\n",
                c.offset_bytes,
                c.probe_ns,
                c.min_ms,
                c.median_ms,
                if c.chosen { "  <- chosen" } else { "" }
            );
        }
        if let Some((min, med)) = self.cooperative_ms {
            s += &format!(
                "{:>9} {:>9} {min:>11.3} {med:>11.3}  (grid.sync)\n",
                "coop", "-"
            );
        }
        s += &format!(
            "probe ns vs app ms: correlation {:.2}; chosen vs cooperative {}",
            self.correlation,
            self.chosen_vs_cooperative()
                .map(|r| format!("{r:.3}x"))
                .unwrap_or_else(|| "-".into())
        );
        s
    }
}

fn min_median(v: &mut [f64]) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[0], v[v.len() / 2])
}

fn correlation(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let cov: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    if vx > 0.0 && vy > 0.0 {
        cov / (vx * vy).sqrt()
    } else {
        0.0
    }
}

/// Runs `app` on `input` `runs` times at every candidate place of the persistent variant's
/// barrier and `runs` times cooperatively, interleaved (round r runs every candidate, then
/// the cooperative variant), after one persistent run that lets the program probe and choose.
/// Every output is checked against the sequential reference. `progress` gets a line per round.
pub fn placement_study<P: FnMut(&str)>(
    gpu: &Gpu,
    input: &BenchInput,
    app: AppKind,
    params: &AppParams,
    runs: usize,
    mut progress: P,
) -> Result<PlacementStudy> {
    let runs = runs.max(1);
    let p = AppParams {
        source: bench_source(&input.graph),
        ..*params
    };
    let progs = AppPrograms::compile(gpu, None)?;
    let mut cin = CudaInput::prepare(gpu, app, &input.graph, &p)?;
    let want = reference(app, &input.graph, &p);
    let check = |out: &AppOutput| -> Result<()> {
        matches(app, &p, &want, out)
            .or_else(|e| {
                if matches!(app, AppKind::Color | AppKind::Mis) {
                    verify(app, &input.graph, &p, out)
                } else {
                    Err(e)
                }
            })
            .map_err(|e| Error::Input(format!("placement study: wrong output: {e}")))
    };
    let (out, _) = cin.run(&progs, Variant::CudaPersistent)?;
    check(&out)?;
    let placement = progs.device.placement().ok_or_else(|| {
        Error::InvalidLaunch(
            "placement study: the persistent program has one barrier place (OCC_PERSISTENT_PLACEMENTS=1)"
                .into(),
        )
    })?;
    progress(&format!(
        "{} {app}: probe chose offset {} ({:.0} ns per barrier; first {:.0}, median {:.0}, slowest {:.0})",
        input.name,
        placement.candidates[placement.chosen].offset_bytes,
        placement.chosen_ns(),
        placement.first_ns(),
        placement.median_ns(),
        placement.slowest_ns()
    ));
    let k = placement.candidates.len();
    let mut times = vec![Vec::with_capacity(runs); k];
    let mut coop = Vec::new();
    for r in 0..runs {
        for (c, t) in times.iter_mut().enumerate() {
            progs.device.place_at(c)?;
            let (out, rep) = cin.run(&progs, Variant::CudaPersistent)?;
            check(&out)?;
            t.push(rep.time_ms);
        }
        if progs.cooperative {
            let (out, rep) = cin.run(&progs, Variant::CudaCooperative)?;
            check(&out)?;
            coop.push(rep.time_ms);
        }
        progress(&format!("{} {app}: round {}/{runs}", input.name, r + 1));
    }
    progs.device.place_at(placement.chosen)?;
    let candidates: Vec<PlacedRuns> = times
        .iter_mut()
        .enumerate()
        .map(|(c, t)| {
            let (min_ms, median_ms) = min_median(t);
            PlacedRuns {
                candidate: c,
                offset_bytes: placement.candidates[c].offset_bytes,
                probe_ns: placement.candidates[c].ns_per_barrier,
                chosen: c == placement.chosen,
                min_ms,
                median_ms,
            }
        })
        .collect();
    let probe: Vec<f64> = candidates.iter().map(|c| c.probe_ns).collect();
    let mins: Vec<f64> = candidates.iter().map(|c| c.min_ms).collect();
    Ok(PlacementStudy {
        app: app.name().into(),
        input: input.name.clone(),
        barrier: progs.device.barrier().name().into(),
        runs,
        correlation: correlation(&probe, &mins),
        placement,
        candidates,
        cooperative_ms: (!coop.is_empty()).then(|| min_median(&mut coop)),
        verified: true,
    })
}
