//! The summary of one application run.

use serde::Serialize;

/// What one run of an application did, for the CLI's summary and JSON.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// Application name ([`AppKind::name`](super::AppKind::name)).
    pub app: String,
    /// `"cpu"` or `"cuda"`.
    pub backend: String,
    /// Variant name ([`Variant::name`](super::Variant::name)).
    pub variant: String,
    /// The input (file path or generator spec).
    pub graph: String,
    /// Vertices of the input.
    pub vertices: u32,
    /// Directed edges of the input.
    pub edges: u64,
    /// Iterations (phases separated by a launch or a barrier) until convergence.
    pub iterations: u32,
    /// Wall time of the computation in milliseconds (preparation and copies excluded).
    pub time_ms: f64,
    /// `edges / time` (edges of the input per second of computation).
    pub edges_per_s: f64,
    /// Participating groups of a persistent run (discovery's count); `None` for the others.
    pub participants: Option<u32>,
    /// Vertices with a finite result (bfs, sssp: reached from the source).
    pub reached: Option<u64>,
    /// Whether the output matched the reference (`None`: not checked).
    pub verified: Option<bool>,
    /// Where a device loop's iterations went (CUDA device loops compiled with
    /// `-DOCC_APP_TRACE` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub barrier_trace: Option<super::cuda::BarrierTrace>,
}

impl RunReport {
    /// One line on some runs of one variant (the first's app, variant and counts; the fastest
    /// and the median time; edges/s of the fastest; whether every run was verified), or None
    /// without runs.
    ///
    /// ```
    /// use occupant_apps::apps::RunReport;
    /// let r = RunReport {
    ///     app: "bfs".into(), backend: "cpu".into(), variant: "persistent".into(),
    ///     graph: "grid:4x4".into(), vertices: 16, edges: 48, iterations: 7, time_ms: 2.0,
    ///     edges_per_s: 24e3, participants: Some(2), reached: Some(16), verified: Some(true),
    ///     barrier_trace: None,
    /// };
    /// let line = RunReport::summary(&[r.clone(), RunReport { time_ms: 1.0, ..r }]).unwrap();
    /// assert!(line.starts_with("bfs persistent (cpu, 2 participating groups): 7 iterations"));
    /// assert!(line.contains("1.000 ms (min of 2, median 2.000 ms)") && line.ends_with("verified"));
    /// ```
    pub fn summary(runs: &[RunReport]) -> Option<String> {
        let r = runs.first()?;
        let mut times: Vec<f64> = runs.iter().map(|r| r.time_ms).collect();
        times.sort_by(f64::total_cmp);
        let (min, median) = (times[0], times[times.len() / 2]);
        let reached = r
            .reached
            .map(|x| format!(", {x}/{} reached", r.vertices))
            .unwrap_or_default();
        let who = r
            .participants
            .map(|p| format!(", {p} participating groups"))
            .unwrap_or_default();
        let verified = match runs.iter().map(|r| r.verified).collect::<Option<Vec<_>>>() {
            Some(v) if v.iter().all(|&x| x) => ", verified",
            Some(_) => ", VERIFICATION FAILED",
            None => "",
        };
        let time = if runs.len() > 1 {
            format!("{min:.3} ms (min of {}, median {median:.3} ms)", runs.len())
        } else {
            format!("{min:.3} ms")
        };
        Some(format!(
            "{} {} ({}{who}): {} iterations{reached}, {time}, {:.3e} edges/s{verified}",
            r.app,
            r.variant,
            r.backend,
            r.iterations,
            r.edges as f64 / (min / 1e3)
        ))
    }
}
