//! Small SVG line charts (plotters, SVG backend) for the experiment commands.

use plotters::coord::ranged1d::Ranged;
use plotters::prelude::*;
use std::path::Path;

/// One chart: named series of (x, y) points.
pub struct Panel {
    /// Chart caption.
    pub title: String,
    /// X-axis label.
    pub x_label: String,
    /// Y-axis label.
    pub y_label: String,
    /// (name, points) per series.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

/// Draws `panels` side by side into an SVG file, each with a logarithmic y axis.
pub fn panels_svg(path: &Path, panels: &[Panel]) -> Result<(), String> {
    let n = panels.len().max(1);
    let root = SVGBackend::new(path, (520 * n as u32, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let areas = root.split_evenly((1, n));
    for (area, panel) in areas.iter().zip(panels) {
        let pts = panel.series.iter().flat_map(|(_, p)| p.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in pts {
            x0 = x0.min(x);
            x1 = x1.max(x);
            if y > 0.0 {
                y0 = y0.min(y);
                y1 = y1.max(y);
            }
        }
        if x0 > x1 || y0 > y1 {
            continue;
        }
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1.max(x0 + 1.0), ((y0 / 2.0)..(y1 * 2.0)).log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(&panel.x_label)
            .y_desc(&panel.y_label)
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .draw()
            .map_err(|e| e.to_string())?;
        draw_series(&mut chart, &panel.series, SeriesLabelPosition::LowerLeft)?;
    }
    root.present().map_err(|e| e.to_string())
}

/// Draws each named series of a chart as a line with dots (palette colours in order) and the
/// legend at `legend`: the part every chart of the CLI shares, whatever its axes.
pub fn draw_series<'a, DB, X, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    series: &[(String, Vec<(f64, f64)>)],
    legend: SeriesLabelPosition,
) -> Result<(), String>
where
    DB: DrawingBackend + 'a,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for (i, (name, points)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| e.to_string())?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(legend)
        .draw()
        .map_err(|e| e.to_string())
}
