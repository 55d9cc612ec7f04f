//! `occupant bench placement`: where a persistent program's barrier lives and what it costs
//! (logic: `occupant::cuda::sync::bench::barrier_placement` and
//! `occupant_apps::apps::cuda::placement_study`). Per launch shape: the barrier at every
//! candidate place beside `grid.sync()`; per app and input: the app's time at every place
//! beside the cooperative variant; per lock contention (`--mutex-blocks`): `Mutex::placed`'s
//! probe and its choice against an unplaced lock (`mutex_placement`). Writes
//! `<out>/placement.json` and `<out>/placement.svg`.

use crate::cli_values::at_least_one;
use crate::cuda_bench_common::{line_plot, open_cuda, out_dir, write_json, Series};
use crate::output_path::check_out_dir;
use occupant::cuda::persistent_supports;
use occupant::cuda::sync::bench::{
    barrier_placement_with, mutex_placement, placed_kinds, standard_barrier_shapes,
    BarrierPlacementRow, MutexPlacementRow, PlacedKindsRow,
};
use occupant::cuda::sync::{BarrierKind, MachineAbstraction, MutexKind};
use occupant::model::LaunchShape;
use occupant_apps::apps::cuda::{load_inputs, placement_study, PlacementStudy};
use occupant_apps::apps::AppParams;
use serde::Serialize;
use std::path::PathBuf;

/// Arguments.
#[derive(clap::Args)]
pub struct PlacementArgs {
    /// Backend (only `cuda`).
    #[arg(long, default_value = "cuda")]
    backend: String,
    /// Launch shapes `BLOCKSxTHREADS` for the barrier probe (repeat; default: the primitives
    /// benchmark's six standard shapes on this GPU: one block per SM and full occupancy at 128,
    /// 256 and 1024 threads).
    #[arg(long = "shape")]
    shapes: Vec<String>,
    /// Barrier kind (default: the one a persistent program picks for each shape, and for the
    /// placed raw barrier the kinds `Barrier::with_default_kind_placed` probes).
    #[arg(long)]
    kind: Option<String>,
    /// Barriers timed per place (and for the raw kind and grid.sync) in the shape rows.
    #[arg(long, value_parser = at_least_one::<u32>, default_value_t = occupant::cuda::PLACEMENT_PROBE_ROUNDS)]
    rounds: u32,
    /// A preprocessor definition for the shape rows' kernels, `NAME` or `NAME=VALUE` (repeat;
    /// experiments, e.g. `OCC_LEAN_DELAY_CYCLES=0`).
    #[arg(long = "define", value_name = "NAME[=VALUE]")]
    defines: Vec<String>,
    /// Also place every barrier kind alone in each shape and re-time it beside the placed
    /// default (`Barrier::with_default_kind_placed`'s kinds): whether the default is the
    /// fastest kind at its fastest place.
    #[arg(long)]
    every_kind: bool,
    /// Applications for the app study, comma-separated (none by default).
    #[arg(long, value_delimiter = ',')]
    apps: Vec<String>,
    /// Inputs of the app study, `SOURCE[@CLASS]` (repeat).
    #[arg(long = "input")]
    inputs: Vec<String>,
    /// Timed runs per candidate place in the app study.
    #[arg(long, value_parser = at_least_one::<usize>, default_value_t = 3)]
    runs: usize,
    /// Lock contention levels for placed mutexes, comma-separated contending blocks (e.g.
    /// `1,2,33`): `Mutex::placed`'s probe and its choice against an unplaced lock.
    #[arg(long, value_delimiter = ',', value_parser = at_least_one::<usize>)]
    mutex_blocks: Vec<usize>,
    /// Mutex kind for `--mutex-blocks` (default: the kinds `Mutex::with_default_kind_placed`
    /// probes for each contention).
    #[arg(long)]
    mutex_kind: Option<String>,
    /// Threads per block of the contending blocks.
    #[arg(long, value_parser = at_least_one::<usize>, default_value_t = 128)]
    mutex_threads: usize,
    /// Lock/unlock pairs per timed launch, all blocks together.
    #[arg(long, value_parser = at_least_one::<u32>, default_value_t = 200_000)]
    mutex_pairs: u32,
    /// Results folder (default bench/results/<gpu>/placement).
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(Serialize)]
struct PlacementResults {
    device: String,
    barriers: Vec<BarrierPlacementRow>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    every_kind: Vec<PlacedKindsRow>,
    apps: Vec<PlacementStudy>,
    mutexes: Vec<MutexPlacementRow>,
}

fn parse_shape(s: &str) -> Result<(usize, usize), String> {
    let bad =
        || format!("--shape {s}: expected BLOCKSxTHREADS with both at least 1, e.g. 1056x256");
    let (b, t) = s.split_once('x').ok_or_else(bad)?;
    let b: usize = b.trim().parse().map_err(|_| bad())?;
    let t: usize = t.trim().parse().map_err(|_| bad())?;
    if b == 0 || t == 0 {
        return Err(bad());
    }
    Ok((b, t))
}

/// Runs the command.
pub fn run(a: &PlacementArgs) -> Result<(), String> {
    let apps = crate::bench_apps::parse_apps(&a.apps, &[])?;
    if !apps.is_empty() && a.inputs.is_empty() {
        return Err("--apps needs at least one --input (a graph file or generator spec)".into());
    }
    let kind = match &a.kind {
        None => None,
        Some(k) => Some(
            BarrierKind::parse(k)
                .filter(|&k| persistent_supports(k))
                .ok_or_else(|| {
                    format!("--kind {k}: not a barrier kind a persistent program can use")
                })?,
        ),
    };
    let mutex_kind = match &a.mutex_kind {
        None => None,
        Some(k) => {
            Some(MutexKind::parse(k).ok_or_else(|| format!("--mutex-kind {k}: not a mutex kind"))?)
        }
    };
    if a.every_kind && !a.defines.is_empty() {
        return Err(
            "--every-kind places the library's kinds as built; it cannot take --define (drop one)"
                .into(),
        );
    }
    if mutex_kind.is_some() && a.mutex_blocks.is_empty() {
        return Err("--mutex-kind needs --mutex-blocks (the contention levels to probe)".into());
    }
    let mut shapes = a
        .shapes
        .iter()
        .map(|s| parse_shape(s))
        .collect::<Result<Vec<_>, _>>()?;
    let gpu = open_cuda(&a.backend)?;
    if shapes.is_empty() && apps.is_empty() && a.mutex_blocks.is_empty() {
        shapes = standard_barrier_shapes(gpu.info())
            .into_iter()
            .map(|s| (s.blocks, s.threads))
            .collect();
    }
    let dir = out_dir(
        &gpu,
        &Some(a.out.clone().unwrap_or_else(|| {
            PathBuf::from("bench/results")
                .join(occupant::cuda::sync::results_dir_name(&gpu.info().name))
                .join("placement")
        })),
    )?;
    check_out_dir(&Some(dir.clone()))?;
    let inputs = load_inputs(&a.inputs).map_err(|e| e.to_string())?;
    let m = MachineAbstraction::for_gpu(&gpu).map_err(|e| e.to_string())?;
    let mut barriers = Vec::new();
    let mut every_kind = Vec::new();
    for &(blocks, threads) in &shapes {
        let shape = LaunchShape::new(blocks, threads);
        let k = kind.unwrap_or_else(|| m.persistent_barrier_for(shape));
        // The raw barrier placed: the --kind, else what Barrier::with_default_kind_placed probes.
        let placed_among = match kind {
            Some(k) => vec![k],
            None => m.barrier_candidates(shape),
        };
        let row = barrier_placement_with(
            &gpu,
            k,
            &placed_among,
            blocks,
            threads,
            a.rounds,
            &a.defines,
        )
        .map_err(|e| e.to_string())?;
        println!("{}", row.line());
        barriers.push(row);
        if a.every_kind {
            let row = placed_kinds(
                &gpu,
                BarrierKind::ALL,
                &m.barrier_candidates(shape),
                blocks,
                threads,
                a.rounds,
                &mut |l| eprintln!("{l}"),
            )
            .map_err(|e| e.to_string())?;
            println!("{}", row.line());
            every_kind.push(row);
        }
    }
    let mut studies = Vec::new();
    for input in &inputs {
        for &app in &apps {
            let s = placement_study(&gpu, input, app, &AppParams::default(), a.runs, |l| {
                eprintln!("{l}")
            })
            .map_err(|e| format!("{app} on {}: {e}", input.name))?;
            println!("{}", s.table());
            studies.push(s);
        }
    }
    let mut mutexes = Vec::new();
    for &blocks in &a.mutex_blocks {
        // The --mutex-kind, else what Mutex::with_default_kind_placed probes.
        let kinds = match mutex_kind {
            Some(k) => vec![k],
            None => m.mutex_candidates(LaunchShape::new(blocks, a.mutex_threads)),
        };
        let row = mutex_placement(&gpu, &kinds, blocks, a.mutex_threads, a.mutex_pairs)
            .map_err(|e| format!("mutex with {blocks} blocks: {e}"))?;
        println!("{}", row.line());
        mutexes.push(row);
    }
    let results = PlacementResults {
        device: gpu.info().name.clone(),
        barriers,
        every_kind,
        apps: studies,
        mutexes,
    };
    let json = write_json(&dir, "placement.json", &results)?;
    println!("wrote {}", json.display());
    let series = Series::all(
        results
            .barriers
            .iter()
            .map(BarrierPlacementRow::plot_series)
            .chain(results.apps.iter().map(PlacementStudy::plot_series))
            .collect(),
    );
    if !series.is_empty() {
        let svg = dir.join("placement.svg");
        line_plot(
            &svg,
            "barrier time at each candidate place",
            "candidate place (1 = the first, one stride past the header)",
            "ns per barrier",
            &series,
            false,
            false,
        )?;
        println!("wrote {}", svg.display());
    }
    Ok(())
}
