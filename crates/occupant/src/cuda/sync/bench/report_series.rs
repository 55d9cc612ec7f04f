//! A [`PrimitivesReport`]'s results as plot series, `(label, points)` each (as the other
//! reports' `series()`): barrier latency per design across the shapes, mutex throughput per
//! kind across contention, semaphore throughput per kind across initial values. `occupant bench
//! primitives` draws them; a user can plot them the same way.

use super::super::kinds::{MutexKind, SemaphoreKind};
use super::super::run::{MutexRun, SemaphoreRun};
use super::{mutex_label, BarrierPoint, BenchShape, PrimitivesReport};

/// One plot line: its legend and its (x, y) points.
pub type PlotSeries = (String, Vec<(f64, f64)>);

impl PrimitivesReport {
    /// Barrier latency per design (sorted by name): x the shape's position in `shapes` (1 is
    /// the first), y µs per barrier; points of shapes not in `shapes` or that did not run are
    /// left out.
    pub fn barrier_series(&self, shapes: &[BenchShape]) -> Vec<PlotSeries> {
        barrier_series(&self.barrier, shapes)
    }

    /// Mutex throughput per kind and cluster size (in the order measured): x contending
    /// blocks, y Mops/s.
    pub fn mutex_series(&self) -> Vec<PlotSeries> {
        mutex_series(&self.mutex)
    }

    /// Semaphore throughput per kind at the most blocks the spinning kinds ran with (returned
    /// first): x the initial value, y Mops/s. `None` without semaphore results.
    pub fn semaphore_series(&self) -> Option<(usize, Vec<PlotSeries>)> {
        semaphore_series(&self.semaphore)
    }
}

fn barrier_series(points: &[BarrierPoint], shapes: &[BenchShape]) -> Vec<PlotSeries> {
    let mut designs: Vec<&str> = points.iter().map(|b| b.design.as_str()).collect();
    designs.sort_unstable();
    designs.dedup();
    designs
        .into_iter()
        .map(|d| {
            let pts = points
                .iter()
                .filter(|b| b.design == d)
                .filter_map(|b| {
                    let i = shapes.iter().position(|s| s.name == b.shape)?;
                    Some(((i + 1) as f64, b.ns_per_barrier? / 1e3))
                })
                .collect();
            (d.to_string(), pts)
        })
        .collect()
}

fn mutex_series(runs: &[MutexRun]) -> Vec<PlotSeries> {
    let mut labels: Vec<(MutexKind, u32)> = Vec::new();
    for r in runs {
        if !labels.contains(&(r.kind, r.cluster)) {
            labels.push((r.kind, r.cluster));
        }
    }
    labels
        .into_iter()
        .map(|(k, c)| {
            let pts = runs
                .iter()
                .filter(|r| r.kind == k && r.cluster == c)
                .map(|r| (r.blocks as f64, r.mops))
                .collect();
            (mutex_label(k, c), pts)
        })
        .collect()
}

fn semaphore_series(runs: &[SemaphoreRun]) -> Option<(usize, Vec<PlotSeries>)> {
    if runs.is_empty() {
        return None;
    }
    let full = runs
        .iter()
        .filter(|r| r.kind != SemaphoreKind::Sleeping)
        .map(|r| r.blocks)
        .max()
        .unwrap_or(0);
    let series = SemaphoreKind::ALL
        .iter()
        .map(|k| {
            let pts = runs
                .iter()
                .filter(|r| r.kind == *k && r.blocks == full)
                .map(|r| (f64::from(r.initial), r.mops))
                .collect();
            (k.name().to_string(), pts)
        })
        .collect();
    Some((full, series))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(shape: &str, design: &str, ns: Option<f64>) -> BarrierPoint {
        BarrierPoint {
            shape: shape.into(),
            design: design.into(),
            blocks: 1,
            block_threads: 32,
            ns_per_barrier: ns,
            error: None,
            run: None,
            ns_runs: Vec::new(),
        }
    }

    fn shape(blocks: usize, threads: usize) -> BenchShape {
        BenchShape {
            name: format!("{blocks}x{threads}"),
            blocks,
            threads,
        }
    }

    #[test]
    fn barrier_series_follow_the_shapes_and_skip_what_did_not_run() {
        let shapes = [shape(132, 128), shape(264, 1024)];
        let (a, b) = (shapes[0].name.clone(), shapes[1].name.clone());
        let points = [
            point(&b, "relay", Some(2000.0)),
            point(&a, "relay", Some(1400.0)),
            point(&a, "lean", Some(850.0)),
            point(&b, "lean", None),
            point("99x32", "lean", Some(1.0)),
        ];
        let s = barrier_series(&points, &shapes);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0], ("lean".to_string(), vec![(1.0, 0.85)]));
        assert_eq!(s[1], ("relay".to_string(), vec![(2.0, 2.0), (1.0, 1.4)]));
    }

    #[test]
    fn no_semaphores_no_series() {
        assert!(semaphore_series(&[]).is_none());
        assert!(mutex_series(&[]).is_empty());
    }
}
