//! `occupant bench cpu-vs-pocl`: the CPU executor against PoCL on the same OpenCL kernels and
//! thread count (the experiment is `occupant::cpu::vs_pocl`); writes JSON + SVG + a text table.

use crate::cli_values::at_least_one;
use crate::output_path::check_dir;
use clap::Args;
use occupant::cpu::vs_pocl::{self, CpuVsPoclConfig, CpuVsPoclReport, Kernel};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Arguments of `occupant bench cpu-vs-pocl`.
#[derive(Args, Debug)]
pub struct CpuVsPoclArgs {
    /// Timed rounds (each runs every kernel once on PoCL and once per occupant form); figures are minima.
    #[arg(long, value_parser = at_least_one::<usize>, default_value_t = 15)]
    pub runs: usize,
    /// Threads on both sides (PoCL's thread count, the executor's compute units).
    #[arg(long, value_parser = at_least_one::<usize>, default_value_t = 2)]
    pub threads: usize,
    /// The folder with harness.c, kernels.cl and build.sh.
    #[arg(long, default_value = "bench/pocl")]
    pub pocl_dir: PathBuf,
    /// Results folder (default: bench/results/cpu-<threads>core/cpu-vs-pocl).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Kernels, comma-separated (default: all): reduce256, rotate128, hash16, store3, stencil2d, histogram.
    #[arg(long, value_delimiter = ',')]
    pub kernels: Vec<String>,
}

/// Runs the comparison and writes `cpu-vs-pocl.{json,svg,txt}`.
pub fn run(args: &CpuVsPoclArgs) -> Result<(), String> {
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "bench/results/cpu-{}core/cpu-vs-pocl",
            args.threads
        ))
    });
    check_dir(&out)?;
    let kernels = if args.kernels.is_empty() {
        Kernel::ALL.to_vec()
    } else {
        args.kernels
            .iter()
            .map(|k| {
                Kernel::ALL
                    .into_iter()
                    .find(|x| x.name() == k.trim())
                    .ok_or_else(|| format!("unknown kernel `{k}`"))
            })
            .collect::<Result<_, _>>()?
    };
    let cfg = CpuVsPoclConfig {
        runs: args.runs,
        threads: args.threads,
        pocl_dir: args.pocl_dir.clone(),
        build_dir: std::env::temp_dir().join(format!("occupant-pocl-{}", std::process::id())),
        kernels,
    };
    let report = vs_pocl::run(&cfg, &mut |line| eprintln!("{line}")).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&cfg.build_dir);
    let text = table(&report);
    print!("{text}");
    let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    for (name, body) in [
        ("cpu-vs-pocl.json", json),
        ("cpu-vs-pocl.txt", text),
        ("cpu-vs-pocl.svg", svg(&report)),
    ] {
        let p = out.join(name);
        std::fs::write(&p, body).map_err(|e| format!("writing {}: {e}", p.display()))?;
    }
    eprintln!("wrote {}/cpu-vs-pocl.{{json,svg,txt}}", out.display());
    if !report.all_equal {
        return Err(
            "an occupant output differs from PoCL's (see equal_to_pocl in the JSON)".into(),
        );
    }
    Ok(())
}

fn table(r: &CpuVsPoclReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "PoCL device {} ({} compute units) vs occupant OccupancyBound {{ compute_units: {} }}; host cores {}; min of {} interleaved rounds (ms)",
        r.pocl_device, r.pocl_compute_units, r.threads, r.host_cores, r.runs
    );
    if let Some((before, after)) = r.load_average {
        let _ = writeln!(
            s,
            "host load average (1 min) {before:.1} before, {after:.1} after: a busy shared host makes every figure noisy"
        );
    }
    let _ = writeln!(
        s,
        "{:<10} {:>9} {:>11} {:>8} {:>11} {:>8} {:>6}",
        "kernel", "PoCL", "coroutine", "/PoCL", "phased", "/PoCL", "equal"
    );
    for k in &r.kernels {
        let f = |form| {
            k.forms
                .iter()
                .find(|f| f.form == form && f.threads == r.threads)
        };
        let (c, p) = (f(vs_pocl::Form::Coroutine), f(vs_pocl::Form::Phased));
        let eq = k.forms.iter().all(|f| f.equal_to_pocl);
        let _ = writeln!(
            s,
            "{:<10} {:>9.3} {:>11.3} {:>7.2}x {:>11.3} {:>7.2}x {:>6}",
            k.kernel.name(),
            k.pocl_min_ms,
            c.map_or(f64::NAN, |f| f.min_ms),
            c.and_then(|f| f.vs_pocl).unwrap_or(f64::NAN),
            p.map_or(f64::NAN, |f| f.min_ms),
            p.and_then(|f| f.vs_pocl).unwrap_or(f64::NAN),
            eq
        );
    }
    let _ = writeln!(
        s,
        "\nbarrier-free kernels vs a plain Rust loop (same threads; ms)"
    );
    let _ = writeln!(
        s,
        "{:<10} {:>7} {:>9} {:>9} {:>8} {:>10} {:>8}",
        "kernel", "threads", "loop", "phased", "/loop", "coroutine", "/loop"
    );
    for p in &r.plain_loop {
        let _ = writeln!(
            s,
            "{:<10} {:>7} {:>9.3} {:>9.3} {:>7.2}x {:>10.3} {:>7.2}x",
            p.kernel.name(),
            p.threads,
            p.plain_min_ms,
            p.phased_min_ms,
            p.phased_vs_plain,
            p.coroutine_min_ms,
            p.coroutine_vs_plain
        );
    }
    let b = &r.barrier_cost;
    let _ = writeln!(
        s,
        "\ncoroutine form: {:.2} ns per work-item per barrier ({} groups x {} items x {} barriers, 1 compute unit: {:.3} ms with, {:.3} ms without)",
        b.ns_per_item_per_barrier, b.groups, b.local, b.barriers, b.with_barriers_min_ms, b.without_min_ms
    );
    s
}

/// A bar chart of occupant / PoCL per kernel and form (log scale), goal line at 1.2.
fn svg(r: &CpuVsPoclReport) -> String {
    let (w, h, left, top, bottom) = (760.0, 380.0, 60.0, 40.0, 60.0);
    let plot_h = h - top - bottom;
    let (lo, hi) = (0.1f64.ln(), 100f64.ln());
    let y = |v: f64| top + plot_h * (1.0 - (v.clamp(0.1, 100.0).ln() - lo) / (hi - lo));
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="20" text-anchor="middle" font-size="14">occupant / PoCL, {} threads, min of {} rounds (lower is better; log scale)</text>
"#,
        w / 2.0,
        r.threads,
        r.runs
    );
    for v in [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0] {
        let _ = writeln!(
            s,
            r##"<line x1="{left}" x2="{}" y1="{y0:.1}" y2="{y0:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{v}×</text>"##,
            w - 20.0,
            left - 6.0,
            y(v) + 4.0,
            y0 = y(v)
        );
    }
    let _ = writeln!(
        s,
        r##"<line x1="{left}" x2="{}" y1="{g:.1}" y2="{g:.1}" stroke="#c00" stroke-dasharray="5,3"/><text x="{}" y="{:.1}" fill="#c00" text-anchor="end">goal 1.2×</text>"##,
        w - 20.0,
        w - 22.0,
        y(1.2) - 4.0,
        g = y(1.2)
    );
    let slot = (w - left - 20.0) / r.kernels.len().max(1) as f64;
    for (i, k) in r.kernels.iter().enumerate() {
        let x0 = left + slot * i as f64;
        for (j, (form, color)) in [
            (vs_pocl::Form::Coroutine, "#888"),
            (vs_pocl::Form::Phased, "#1f77b4"),
        ]
        .into_iter()
        .enumerate()
        {
            if let Some(v) = k
                .forms
                .iter()
                .find(|f| f.form == form && f.threads == r.threads)
                .and_then(|f| f.vs_pocl)
            {
                let bx = x0 + slot * 0.15 + j as f64 * slot * 0.35;
                let (yt, yb) = (y(v), y(0.1));
                let _ = writeln!(
                    s,
                    r#"<rect x="{bx:.1}" y="{yt:.1}" width="{:.1}" height="{:.1}" fill="{color}"/><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="10">{v:.2}</text>"#,
                    slot * 0.33,
                    yb - yt,
                    bx + slot * 0.165,
                    yt - 3.0
                );
            }
        }
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            x0 + slot / 2.0,
            h - bottom + 18.0,
            k.kernel.name()
        );
    }
    let _ = writeln!(
        s,
        r##"<rect x="{left}" y="{}" width="12" height="12" fill="#888"/><text x="{}" y="{}">coroutine form</text><rect x="{}" y="{}" width="12" height="12" fill="#1f77b4"/><text x="{}" y="{}">phased form</text></svg>"##,
        h - 24.0,
        left + 16.0,
        h - 14.0,
        left + 140.0,
        h - 24.0,
        left + 156.0,
        h - 14.0
    );
    s
}
