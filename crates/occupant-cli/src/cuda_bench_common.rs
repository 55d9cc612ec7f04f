//! Shared by the `occupant bench … --backend cuda` commands of the sync primitives: argument
//! checks, the results folder, JSON output and SVG line plots.

use occupant::cuda::sync::results_dir_name;
use occupant::cuda::Gpu;
use plotters::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Checks `--backend` (only `cuda` has these benchmarks) and opens GPU 0.
pub fn open_cuda(backend: &str) -> Result<Gpu, String> {
    if backend != "cuda" {
        return Err(format!(
            "this benchmark runs on the cuda backend only (got --backend {backend})"
        ));
    }
    Gpu::open(0).map_err(|e| {
        format!("{e}; this benchmark needs a GPU (the CPU backend has `occupant discover --backend cpu` and `occupant bench primitives --backend cpu`)")
    })
}

/// `--out`, or `bench/results/<gpu>/`.
pub fn out_dir(gpu: &Gpu, out: &Option<PathBuf>) -> Result<PathBuf, String> {
    let dir = out
        .clone()
        .unwrap_or_else(|| Path::new("bench/results").join(results_dir_name(&gpu.info().name)));
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    Ok(dir)
}

/// Writes `value` as pretty JSON to `dir/name`.
pub fn write_json<T: Serialize>(dir: &Path, name: &str, value: &T) -> Result<PathBuf, String> {
    let p = dir.join(name);
    let text =
        serde_json::to_string_pretty(value).map_err(|e| format!("serialising {name}: {e}"))?;
    std::fs::write(&p, text).map_err(|e| format!("writing {}: {e}", p.display()))?;
    Ok(p)
}

/// One line of a plot.
pub struct Series {
    /// Legend.
    pub label: String,
    /// (x, y) points, x ascending.
    pub points: Vec<(f64, f64)>,
}

impl Series {
    /// The lines of a library report's `series()`: (label, points) each.
    pub fn all(series: Vec<(String, Vec<(f64, f64)>)>) -> Vec<Series> {
        series
            .into_iter()
            .map(|(label, points)| Series { label, points })
            .collect()
    }
}

/// Draws `series` as lines with points into an SVG file; `log_x`/`log_y` use log10 axes.
pub fn line_plot(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    log_x: bool,
    log_y: bool,
) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("plotting {}: {e}", path.display());
    let pts = series
        .iter()
        .flat_map(|s| s.points.iter())
        .filter(|p| p.0 > 0.0 && p.1 > 0.0);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        return Err(format!("plotting {}: no positive data", path.display()));
    }
    let tf = |v: f64, log: bool| if log { v.log10() } else { v };
    let (ax0, ax1) = (tf(x0, log_x), tf(x1, log_x));
    let (ay0, ay1) = (tf(y0, log_y), tf(y1, log_y));
    let padx = ((ax1 - ax0) * 0.05).max(0.05);
    let pady = ((ay1 - ay0) * 0.08).max(0.05);
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(
            ax0 - padx..ax1 + padx,
            (if log_y { ay0 - pady } else { 0f64.min(ay0) })..ay1 + pady,
        )
        .map_err(|e| err(&e))?;
    // Label only ticks that fall on whole numbers (shapes, block counts): plotters picks
    // fractional tick positions, which would otherwise print as repeated rounded labels.
    let fmt_x = move |v: &f64| {
        let x = if log_x { 10f64.powf(*v) } else { *v };
        if x > 0.0 && (x - x.round()).abs() <= 0.02 * x.max(1.0) {
            format!("{:.0}", x.round())
        } else {
            String::new()
        }
    };
    let fmt_y = move |v: &f64| {
        if log_y {
            format!("{:.2}", 10f64.powf(*v))
        } else {
            format!("{v:.2}")
        }
    };
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_label_formatter(&fmt_x)
        .y_label_formatter(&fmt_y)
        .draw()
        .map_err(|e| err(&e))?;
    for (i, s) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let data: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|p| p.0 > 0.0 && p.1 > 0.0)
            .map(|&(x, y)| (tf(x, log_x), tf(y, log_y)))
            .collect();
        chart
            .draw_series(LineSeries::new(data.clone(), color.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(s.label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        chart
            .draw_series(data.into_iter().map(|p| Circle::new(p, 3, color.filled())))
            .map_err(|e| err(&e))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
