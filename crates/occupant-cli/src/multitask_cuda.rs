//! `occupant multitask --backend cuda`: the CUDA cooperative runner
//! (`occupant_apps::coop_cuda::run_multitask_kernel`: a cooperative app — bfs, sssp, cc,
//! pagerank, color, mis, bc, sssp-worklist, octree, game — on the GPU beside a periodic matmul of ours) for every
//! workload × share × barrier asked for, `--repeats` paired repetitions each (alone, co-run,
//! co-run, alone: the slowdown is the median of the repetitions' ratios, with their spread and
//! the ratio of the means); JSON and a table.

use crate::multitask_cmd::MultitaskArgs;
use crate::plot::{panels_svg, Panel};
use occupant::model::coop::ResizeVariant;
use occupant_apps::coop_cuda::{self, BarrierMode};
use occupant_apps::graph::{BuildOptions, GraphSource};
use std::path::Path;

/// Runs the CUDA co-runs; `json`: where to write every result (an array).
pub fn run(
    a: &MultitaskArgs,
    variants: &[ResizeVariant],
    json: Option<&Path>,
    svg: Option<&Path>,
) -> Result<(), String> {
    if !coop_cuda::COOP_CUDA_APPS.contains(&a.app.as_str()) {
        return Err(format!(
            "multitask --backend cuda: no cooperative CUDA app `{}` (apps: {})",
            a.app,
            coop_cuda::COOP_CUDA_APPS.join(", ")
        ));
    }
    let source = match (&a.graph, &a.gen) {
        (Some(f), _) => Some(GraphSource::File(f.clone())),
        (None, Some(s)) => Some(GraphSource::Spec(s.parse().map_err(|e| format!("{e}"))?)),
        (None, None) if matches!(a.app.as_str(), "octree" | "game") => None,
        (None, None) => {
            return Err(format!(
                "multitask --backend cuda --app {} needs --graph FILE or --gen SPEC",
                a.app
            ))
        }
    };
    let workloads = a
        .workload
        .iter()
        .map(|w| {
            coop_cuda::WORKLOADS
                .iter()
                .find(|x| x.name == w.as_str())
                .copied()
                .ok_or_else(|| format!("workload `{w}`: expected light, medium or heavy"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let shares = a
        .groups
        .iter()
        .map(|s| coop_cuda::Share::parse(s).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    // A kernel launched beside a spinning one waits for it under lazy module loading
    // (../shared/GPU.md): load eagerly, before the process opens the GPU.
    std::env::set_var("CUDA_MODULE_LOADING", "EAGER");
    let gpu = occupant::cuda::Gpu::open(0).map_err(|e| e.to_string())?;
    let g = match &source {
        Some(source) => {
            eprintln!("multitask: loading {source}");
            Some(
                source
                    .load(&BuildOptions::default())
                    .map_err(|e| e.to_string())?,
            )
        }
        None => None,
    };
    let n = g.as_ref().map_or(1, |g| g.num_vertices().max(1));
    let sources: Vec<u32> = (0..4u32).map(|i| (i * 7919 + 13) % n).collect();
    let size = coop_cuda::AppSize {
        rounds: a.rounds,
        points: a.points.unwrap_or(1_000_000),
        depth: a.depth.unwrap_or(12),
    };
    if a.overhead {
        return overhead(a, &gpu, g.as_ref(), &sources, size, json);
    }
    let mut results = Vec::new();
    println!(
        "{:<7} {:<8} {:<12} {:>5} {:>12} {:>10} {:>11} {:>9} {:>15} {:>9} {:>9} {:>6}",
        "load",
        "barrier",
        "share",
        "reqs",
        "gather_med",
        "period_ok",
        "period_ms",
        "slowdown",
        "(min–max)",
        "of_means",
        "P/(P-D)",
        "wrong"
    );
    for w in &workloads {
        for &share in &shares {
            for v in variants {
                let mode = match v {
                    ResizeVariant::Regular => BarrierMode::Regular,
                    ResizeVariant::Query => BarrierMode::Query,
                };
                eprintln!(
                    "multitask: cuda co-run {} / {} / {v}, {} paired repetitions",
                    w.name,
                    share.name(),
                    a.repeats
                );
                let app = coop_cuda::coop_app(&gpu, &a.app, g.as_ref(), &sources, size)
                    .map_err(|e| e.to_string())?;
                let r = coop_cuda::run_multitask_kernel(&gpu, app, mode, *w, share, a.repeats)
                    .map_err(|e| e.to_string())?;
                if !r.calibration.fits_period {
                    eprintln!(
                        "multitask: note: the matmul (n = {}, {:.1} ms on the whole GPU) takes {:.1} ms alone on {} groups ({}), more than {:.0} % of P = {} ms: this share cannot meet the period",
                        r.calibration.n,
                        r.calibration.full_gpu_us / 1e3,
                        r.calibration.share_us / 1e3,
                        r.calibration.share_groups,
                        share.name(),
                        coop_cuda::FIT_FRACTION * 100.0,
                        w.period_ms
                    );
                }
                let c = &r.corun;
                println!(
                    "{:<7} {:<8} {:<12} {:>5} {:>10.0}µs {:>9.0}% {:>11.1} {:>9.3} {:>15} {:>9.3} {:>9.3} {:>6}",
                    w.name,
                    v.to_string(),
                    share.name(),
                    c.requests,
                    c.gather_us.median,
                    c.period_met_fraction * 100.0,
                    c.achieved_period_ms.median,
                    c.slowdown,
                    format!("{:.3}–{:.3}", c.ratios.min, c.ratios.max),
                    c.ratio_of_means,
                    c.preemption_model,
                    c.wrong_rounds
                );
                results.push(r);
            }
        }
    }
    if let Some(j) = json {
        let text = serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?;
        std::fs::write(j, text).map_err(|e| format!("writing {}: {e}", j.display()))?;
        eprintln!("wrote {}", j.display());
    }
    if let Some(s) = svg {
        figures(&results, s)?;
        eprintln!("wrote {}", s.display());
    }
    Ok(())
}

/// Fig. 5 shape (the other kernel's gather and execution time per share, log scale) and Fig. 6
/// shape (the cooperative kernel's slowdown and the other kernel's achieved period per share),
/// one series per workload × barrier, x = the groups asked for.
fn figures(results: &[coop_cuda::MultitaskResult], path: &Path) -> Result<(), String> {
    let Some(first) = results.first() else {
        return Ok(());
    };
    let mut names: Vec<(&str, BarrierMode)> = Vec::new();
    for r in results {
        if !names.contains(&(r.corun.workload.name, r.corun.barrier)) {
            names.push((r.corun.workload.name, r.corun.barrier));
        }
    }
    type Series = Vec<(String, Vec<(f64, f64)>)>;
    let series = |f: &dyn Fn(&coop_cuda::PairedCoRun) -> f64, suffix: &str| -> Series {
        names
            .iter()
            .map(|(w, b)| {
                let label = format!("{w} {}{suffix}", format!("{b:?}").to_lowercase());
                let points = results
                    .iter()
                    .filter(|r| r.corun.workload.name == *w && r.corun.barrier == *b)
                    .map(|r| (r.corun.groups_asked as f64, f(&r.corun)))
                    .collect();
                (label, points)
            })
            .collect()
    };
    let x_label = format!("groups asked for (of {})", first.groups);
    let mut fig5 = series(&|c| c.gather_us.median.max(0.1), " gather");
    fig5.extend(series(&|c| c.exec_us.median.max(0.1), " exec"));
    let panels = vec![
        Panel {
            title: format!(
                "{} on {}: other kernel, gather and execution (µs)",
                first.app, first.device
            ),
            x_label: x_label.clone(),
            y_label: "µs (median)".into(),
            series: fig5,
        },
        Panel {
            title: "cooperative kernel slowdown (co-run / alone, paired)".into(),
            x_label: x_label.clone(),
            y_label: "slowdown".into(),
            series: series(&|c| c.slowdown, ""),
        },
        Panel {
            title: "achieved period of the other kernel (ms, median)".into(),
            x_label,
            y_label: "ms".into(),
            series: series(&|c| c.achieved_period_ms.median.max(0.1), ""),
        },
    ];
    panels_svg(path, &panels)
}

/// `--overhead`: the app alone, persistent vs regular vs query (`coop_cuda::coop_overhead`).
fn overhead(
    a: &MultitaskArgs,
    gpu: &occupant::cuda::Gpu,
    g: Option<&occupant_apps::graph::Csr>,
    sources: &[u32],
    size: coop_cuda::AppSize,
    json: Option<&Path>,
) -> Result<(), String> {
    let app = coop_cuda::coop_app(gpu, &a.app, g, sources, size).map_err(|e| e.to_string())?;
    eprintln!(
        "multitask: {} alone, persistent / regular / query, {} interleaved repetitions of two launches",
        a.app, a.repeats
    );
    let r = coop_cuda::coop_overhead(gpu, app, a.repeats).map_err(|e| e.to_string())?;
    let ms = |v: &[f64]| coop_cuda::median(v) / 1e3;
    println!(
        "{} ({} groups): persistent {:.3} ms, regular {:.3} ms, query {:.3} ms (medians); regular/persistent {:.3} ({:.3}–{:.3}), query/persistent {:.3} ({:.3}–{:.3}) (medians of paired ratios, range); 0 wrong",
        r.app,
        r.groups,
        ms(&r.persistent_us),
        ms(&r.regular_us),
        ms(&r.query_us),
        r.regular_over_persistent.median,
        r.regular_over_persistent.min,
        r.regular_over_persistent.max,
        r.query_over_persistent.median,
        r.query_over_persistent.min,
        r.query_over_persistent.max,
    );
    if let Some(j) = json {
        let input = a
            .graph
            .as_ref()
            .map(|p| p.display().to_string())
            .or_else(|| a.gen.clone());
        let doc = serde_json::json!({
            "device": gpu.info().name,
            "input": input,
            "rounds": a.rounds,
            "overhead": r,
        });
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        std::fs::write(j, text).map_err(|e| format!("writing {}: {e}", j.display()))?;
        eprintln!("wrote {}", j.display());
    }
    Ok(())
}
