//! `occupant multitask --backend cuda`: the arguments of `occupant_apps::coop_cuda::
//! run_multitask_sweep` (a cooperative app — bfs, sssp, cc, pagerank, color, mis, bc,
//! sssp-worklist, octree, game — on the GPU beside a periodic matmul of ours, for every workload
//! × share × barrier asked for, `--repeats` paired repetitions each), its table, JSON and
//! figure (`coop_cuda::sweep_figures`).

use crate::multitask_cmd::MultitaskArgs;
use crate::plot::{panels_svg, Panel};
use occupant::model::coop::ResizeVariant;
use occupant_apps::coop_cuda::{self, BarrierMode};
use occupant_apps::graph::{BuildOptions, GraphSource};
use std::path::Path;

/// Runs the CUDA co-runs; `json`: where to write every result (an array).
pub fn run(
    a: &MultitaskArgs,
    gpu: &occupant::cuda::Gpu,
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
    let sources = coop_cuda::sweep_sources(g.as_ref());
    let size = coop_cuda::AppSize {
        rounds: a.rounds,
        points: a.points.unwrap_or(1_000_000),
        depth: a.depth.unwrap_or(12),
    };
    if a.overhead {
        return overhead(a, gpu, g.as_ref(), &sources, size, json);
    }
    let barriers: Vec<BarrierMode> = variants
        .iter()
        .map(|v| match v {
            ResizeVariant::Regular => BarrierMode::Regular,
            ResizeVariant::Query => BarrierMode::Query,
        })
        .collect();
    let sweep = coop_cuda::MultitaskSweep {
        app: &a.app,
        graph: g.as_ref(),
        sources: &sources,
        size,
        workloads: &workloads,
        shares: &shares,
        barriers: &barriers,
        repeats: a.repeats,
    };
    println!("{}", coop_cuda::MultitaskResult::table_header());
    let results =
        coop_cuda::run_multitask_sweep(gpu, &sweep, &|line| eprintln!("{line}"), &mut |r| {
            println!("{}", r.table_row())
        })
        .map_err(|e| e.to_string())?;
    if let Some(j) = json {
        let text = serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?;
        std::fs::write(j, text).map_err(|e| format!("writing {}: {e}", j.display()))?;
        eprintln!("wrote {}", j.display());
    }
    if let Some(s) = svg {
        let panels: Vec<Panel> = coop_cuda::sweep_figures(&results)
            .into_iter()
            .map(|p| Panel {
                title: p.title,
                x_label: p.x_label,
                y_label: p.y_label,
                series: p.series,
            })
            .collect();
        if !panels.is_empty() {
            panels_svg(s, &panels)?;
        }
        eprintln!("wrote {}", s.display());
    }
    Ok(())
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
