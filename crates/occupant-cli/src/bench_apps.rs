//! `occupant bench apps`: the graph applications, apps × inputs × variants (logic:
//! `occupant_apps::apps::cuda::bench_cuda` and `occupant_apps::apps::bench::bench_cpu`).
//! Writes `<out>/apps.json` and `<out>/apps-speedup.svg` (speedups over multi-kernel /
//! multi-launch per app and input, geometric-mean bars per input class).

use crate::backend_arg::Backend;
use crate::cli_values::at_least_one;
use crate::output_path::check_out_dir;
use occupant::cuda::sync::{results_dir_name, BarrierKind};
use occupant::cuda::Gpu;
use occupant_apps::apps::bench::{
    bench_cpu, comparison_table, generate_inputs, BenchConfig, BenchResults, CPU_INPUTS,
};
use occupant_apps::apps::cuda::{
    bench_cuda, load_inputs, CudaBenchOptions, CUDA_APPS, CUDA_INPUTS, CUDA_QUICK_INPUTS,
};
use occupant_apps::apps::{speedup_svg, AppKind, AppParams, Variant};
use std::path::{Path, PathBuf};

/// Arguments.
#[derive(clap::Args)]
pub struct AppsBenchArgs {
    /// Backend.
    #[arg(long, value_enum, default_value = "cuda")]
    backend: Backend,
    /// Applications, comma-separated (default: every one the backend runs).
    #[arg(long, value_delimiter = ',')]
    apps: Vec<String>,
    /// Variants, comma-separated (default: all of the backend's; the baseline is always run).
    #[arg(long, value_delimiter = ',')]
    variants: Vec<String>,
    /// An input, `SOURCE[@CLASS]`: a graph file or generator spec (repeat for several;
    /// default: the backend's standard inputs).
    #[arg(long = "input")]
    inputs: Vec<String>,
    /// The smaller standard inputs (CUDA).
    #[arg(long)]
    quick: bool,
    /// Timed runs per (app, input, variant), after one warm-up.
    #[arg(long, value_parser = at_least_one::<u32>, default_value_t = 10)]
    runs: u32,
    /// Results folder (default bench/results/<device>/apps).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Skip the comparison with the sequential references (CUDA).
    #[arg(long)]
    no_verify: bool,
    /// Barrier of the persistent and occupancy-api variants (default: the device's).
    #[arg(long)]
    barrier: Option<String>,
    /// Compile the device-loop kernels with `__launch_bounds__(256, N)` (CUDA; default: the
    /// device's full occupancy, 8 on an H100; 0: no launch bounds).
    #[arg(long)]
    min_blocks_per_sm: Option<u32>,
    /// Interleave the timed runs of the variants (CUDA): after every variant's warm-up, one run
    /// of each variant per round, `--runs` rounds, so that slow drifts of the machine fall on
    /// every variant alike.
    #[arg(long)]
    interleave: bool,
}

/// `--apps` names, or `default` when none were given.
pub(crate) fn parse_apps(names: &[String], default: &[AppKind]) -> Result<Vec<AppKind>, String> {
    if names.is_empty() {
        return Ok(default.to_vec());
    }
    names
        .iter()
        .map(|n| {
            AppKind::parse(n).ok_or_else(|| {
                format!(
                    "unknown application `{n}`; the applications are {}",
                    AppKind::names()
                )
            })
        })
        .collect()
}

fn parse_variants(names: &[String], cuda: bool) -> Result<Vec<Variant>, String> {
    let all = Variant::of_backend(cuda);
    if names.is_empty() {
        return Ok(all.to_vec());
    }
    let mut v = vec![all[0]]; // the baseline
    for n in names {
        let x = Variant::parse(cuda, n).ok_or_else(|| {
            format!(
                "unknown variant `{n}`; the variants are {}",
                all.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
            )
        })?;
        if !v.contains(&x) {
            v.push(x);
        }
    }
    Ok(v)
}

fn write(
    dir: &Path,
    r: &BenchResults,
    json: &serde_json::Value,
    title: &str,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    // Persistent against every other variant, with the sign test over the paired rounds.
    let comparisons = r.comparisons("persistent");
    let mut json = json.clone();
    json["comparisons"] = serde_json::to_value(&comparisons).map_err(|e| e.to_string())?;
    let j = dir.join("apps.json");
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    std::fs::write(&j, text).map_err(|e| format!("writing {}: {e}", j.display()))?;
    let s = dir.join("apps-speedup.svg");
    std::fs::write(&s, speedup_svg(r, title))
        .map_err(|e| format!("writing {}: {e}", s.display()))?;
    eprintln!("wrote {} and {}", j.display(), s.display());
    if !comparisons.is_empty() {
        println!("persistent against each variant (ratios > 1: persistent faster)");
        print!("{}", comparison_table(&comparisons));
    }
    for g in &r.geomeans {
        println!(
            "geomean {} over {} ({} speedups): {:.3}x",
            g.variant, g.class, g.count, g.speedup
        );
    }
    Ok(())
}

/// Runs it.
pub fn run(a: &AppsBenchArgs) -> Result<(), String> {
    let cuda = a.backend == Backend::Cuda;
    let variants = parse_variants(&a.variants, cuda)?;
    let barrier = a
        .barrier
        .as_deref()
        .map(|b| {
            BarrierKind::parse(b).ok_or_else(|| {
                format!(
                    "unknown barrier `{b}`; the barriers are {}",
                    BarrierKind::ALL
                        .iter()
                        .map(|k| k.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
        })
        .transpose()?;
    if let Some(out) = &a.out {
        check_out_dir(&Some(out.clone()))?;
    } else {
        check_out_dir(&None)?;
    }
    let progress = |line: &str| eprintln!("{line}");
    if !cuda {
        let apps = parse_apps(&a.apps, &AppKind::ALL)?;
        let inputs = if a.inputs.is_empty() {
            generate_inputs(&CPU_INPUTS)
        } else {
            load_inputs(&a.inputs)
        }
        .map_err(|e| e.to_string())?;
        let exec = occupant::cpu::Executor::new(occupant::cpu::ExecModel::default_occupancy());
        let r = bench_cpu(&exec, &inputs, &apps, a.runs, |row| {
            eprintln!(
                "{} {} {}: min {:.3} ms, median {:.3} ms, {} iterations",
                row.input, row.app, row.variant, row.min_ms, row.median_ms, row.iterations
            )
        })
        .map_err(|e| e.to_string())?;
        let dir = a.out.clone().unwrap_or_else(|| {
            Path::new("bench/results")
                .join(format!("cpu-{}core", occupant::cpu::available_cores()))
                .join("apps")
        });
        let json = serde_json::to_value(&r).map_err(|e| e.to_string())?;
        return write(&dir, &r, &json, &format!("CPU ({})", r.device));
    }
    let apps = parse_apps(&a.apps, &CUDA_APPS)?;
    let gpu = Gpu::open(0).map_err(|e| e.to_string())?;
    eprintln!("generating the inputs ...");
    let inputs = if !a.inputs.is_empty() {
        load_inputs(&a.inputs)
    } else if a.quick {
        generate_inputs(&CUDA_QUICK_INPUTS)
    } else {
        generate_inputs(&CUDA_INPUTS)
    }
    .map_err(|e| e.to_string())?;
    let config = BenchConfig {
        apps,
        variants,
        baseline: Variant::CudaMultiKernel,
        runs: a.runs,
        params: AppParams::default(),
    };
    let opts = CudaBenchOptions {
        barrier,
        min_blocks_per_sm: a.min_blocks_per_sm,
        verify: !a.no_verify,
        interleave: a.interleave,
    };
    let r = bench_cuda(&gpu, &inputs, &config, &opts, progress).map_err(|e| e.to_string())?;
    let dir = a.out.clone().unwrap_or_else(|| {
        Path::new("bench/results")
            .join(results_dir_name(&gpu.info().name))
            .join("apps")
    });
    let json = serde_json::to_value(&r).map_err(|e| e.to_string())?;
    write(&dir, &r.results, &json, &gpu.info().name)?;
    for s in &r.skipped {
        eprintln!("skipped (not computable for this input): {s}");
    }
    if r.failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} run(s) failed:\n  {}",
            r.failures.len(),
            r.failures.join("\n  ")
        ))
    }
}
