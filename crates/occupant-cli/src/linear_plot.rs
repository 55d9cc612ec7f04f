//! A small SVG line chart with linear axes (plotters, SVG backend).

use plotters::prelude::*;
use std::path::Path;

/// Draws named series of (x, y) points into an SVG file, with linear axes and y from 0 to
/// `y_max`.
pub fn line_chart_svg(
    path: &Path,
    title: &str,
    (x_label, y_label): (&str, &str),
    y_max: f64,
    series: &[(String, Vec<(f64, f64)>)],
) -> Result<(), String> {
    let (mut x0, mut x1) = (f64::MAX, f64::MIN);
    for &(x, _) in series.iter().flat_map(|(_, p)| p.iter()) {
        x0 = x0.min(x);
        x1 = x1.max(x);
    }
    if x0 > x1 {
        return Err("nothing to plot".into());
    }
    let root = SVGBackend::new(path, (720, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1.max(x0 + 1.0), 0.0..y_max)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .draw()
        .map_err(|e| e.to_string())?;
    crate::plot::draw_series(&mut chart, series, SeriesLabelPosition::UpperRight)?;
    root.present().map_err(|e| e.to_string())
}
