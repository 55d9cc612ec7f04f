//! The speedup figure of the applications benchmark (the shape of seed 001 Fig. 9): one bar
//! per non-baseline variant for every (input, app), geometric-mean bars per input class, a log
//! scale and a line at 1×. Plain SVG text, no plotting dependency.

use super::bench::BenchResults;
use std::fmt::Write;

const PALETTE: [&str; 6] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Draws the speedups of `r` over its baseline as an SVG document.
///
/// ```
/// use occupant_apps::apps::bench::{geomeans, BenchResults, BenchConfig, Speedup};
/// use occupant_apps::apps::{speedup_svg, AppParams, Variant};
/// let speedups = vec![Speedup { app: "bfs".into(), input: "grid".into(), class: "high".into(),
///     variant: "persistent".into(), speedup: 3.0 }];
/// let r = BenchResults { backend: "cpu".into(), device: "test".into(),
///     config: BenchConfig { apps: vec![], variants: vec![], baseline: Variant::CpuMultiLaunch,
///         runs: 1, params: AppParams::default() },
///     rows: vec![], geomeans: geomeans(&speedups), speedups };
/// let svg = speedup_svg(&r, "CPU");
/// assert!(svg.starts_with("<svg") && svg.contains("bfs") && svg.contains("geomean"));
/// ```
pub fn speedup_svg(r: &BenchResults, title: &str) -> String {
    // Categories: (label, [(variant, speedup)]) in input order, then geomeans per class.
    let mut variants: Vec<String> = Vec::new();
    for s in &r.speedups {
        if !variants.contains(&s.variant) {
            variants.push(s.variant.clone());
        }
    }
    let mut cats: Vec<(String, Vec<(usize, f64)>)> = Vec::new();
    let mut inputs: Vec<String> = Vec::new();
    for s in &r.speedups {
        if !inputs.contains(&s.input) {
            inputs.push(s.input.clone());
        }
    }
    for input in &inputs {
        let mut apps: Vec<String> = Vec::new();
        for s in r.speedups.iter().filter(|s| &s.input == input) {
            if !apps.contains(&s.app) {
                apps.push(s.app.clone());
            }
        }
        for app in apps {
            let bars = r
                .speedups
                .iter()
                .filter(|s| &s.input == input && s.app == app)
                .map(|s| {
                    (
                        variants.iter().position(|v| *v == s.variant).unwrap(),
                        s.speedup,
                    )
                })
                .collect();
            cats.push((format!("{app} · {input}"), bars));
        }
    }
    let mut classes: Vec<String> = Vec::new();
    for g in &r.geomeans {
        if !classes.contains(&g.class) {
            classes.push(g.class.clone());
        }
    }
    for class in &classes {
        let bars = r
            .geomeans
            .iter()
            .filter(|g| &g.class == class)
            .map(|g| {
                (
                    variants.iter().position(|v| *v == g.variant).unwrap(),
                    g.speedup,
                )
            })
            .collect();
        cats.push((format!("geomean · {class}"), bars));
    }

    let values = cats.iter().flat_map(|(_, b)| b.iter().map(|&(_, s)| s));
    let (mut lo, mut hi) = (1.0f64, 1.0f64);
    for v in values.filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    let (ylo, yhi) = (
        lo.log10().floor().min(-0.0) - 0.1,
        hi.log10().ceil().max(0.3) + 0.05,
    );
    let nv = variants.len().max(1);
    let group_w = 14.0 * nv as f64 + 10.0;
    let (left, top, plot_h, bottom) = (70.0, 70.0, 320.0, 170.0);
    let width = (left + group_w * cats.len() as f64 + 30.0).max(520.0);
    let height = top + plot_h + bottom;
    let y = |s: f64| top + plot_h * (yhi - s.log10()) / (yhi - ylo);
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(o, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        o,
        r#"<text x="{left}" y="20" font-size="15">{}</text><text x="{left}" y="37">speedup over {} (min time over min time, log scale); {}</text>"#,
        esc(title),
        esc(r.config.baseline.name()),
        esc(&r.device)
    );
    // Grid lines at 1-2-5 decades.
    let mut e = ylo.floor() as i32;
    while f64::from(e) <= yhi {
        for m in [1.0, 2.0, 5.0] {
            let v = m * 10f64.powi(e);
            let lv = v.log10();
            if lv < ylo || lv > yhi {
                continue;
            }
            let yy = y(v);
            let (stroke, w) = if (v - 1.0).abs() < 1e-12 {
                ("black", 1.5)
            } else {
                ("#ddd", 1.0)
            };
            let _ = writeln!(
                o,
                r#"<line x1="{left}" x2="{:.1}" y1="{yy:.1}" y2="{yy:.1}" stroke="{stroke}" stroke-width="{w}"/><text x="{:.1}" y="{:.1}" text-anchor="end">{v}×</text>"#,
                width - 20.0,
                left - 6.0,
                yy + 4.0
            );
        }
        e += 1;
    }
    for (i, (label, bars)) in cats.iter().enumerate() {
        let x0 = left + group_w * i as f64 + 5.0;
        for &(vi, s) in bars {
            if !(s.is_finite() && s > 0.0) {
                continue;
            }
            let x = x0 + 14.0 * vi as f64;
            let (y1, y0) = (y(s), y(1.0));
            let (yt, h) = if y1 < y0 {
                (y1, y0 - y1)
            } else {
                (y0, y1 - y0)
            };
            let _ = writeln!(
                o,
                r#"<rect x="{x:.1}" y="{yt:.1}" width="12" height="{h:.1}" fill="{}"><title>{} {}: {s:.3}×</title></rect>"#,
                PALETTE[vi % PALETTE.len()],
                esc(label),
                esc(&variants[vi])
            );
        }
        let lx = x0 + group_w / 2.0 - 5.0;
        let ly = top + plot_h + 8.0;
        let _ = writeln!(
            o,
            r#"<text transform="translate({lx:.1},{ly:.1}) rotate(60)">{}</text>"#,
            esc(label)
        );
    }
    for (vi, v) in variants.iter().enumerate() {
        let x = left + 10.0 + 150.0 * vi as f64;
        let _ = writeln!(
            o,
            r#"<rect x="{x:.1}" y="47" width="12" height="10" fill="{}"/><text x="{:.1}" y="56">{}</text>"#,
            PALETTE[vi % PALETTE.len()],
            x + 16.0,
            esc(v)
        );
    }
    o.push_str("</svg>\n");
    o
}
