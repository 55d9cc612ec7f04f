//! `occupant bench forkjoin` (EPCC overheads of fork-join constructs, CPU twin or CUDA, with the
//! LLVM OpenMP offload comparator's output) and `occupant bench nested` (the nested-parallelism
//! suite). Thin: the experiments are `occupant::cpu::forkjoin::epcc`,
//! `occupant::cuda::forkjoin::epcc` (with `occupant::model::forkjoin::{read_llvm_file,
//! compare}` for the comparator) and `occupant_apps::nested::run_suite`.

use crate::backend_arg::Backend;
use crate::cli_values::at_least_one;
use crate::cuda_bench_common::{line_plot, open_cuda, out_dir, write_json, Series};
use crate::output_path::{check_dir, check_out_dir};
use occupant::model::forkjoin::{compare, read_llvm_file, EpccConfig, EpccRow, EPCC_CONSTRUCTS};
use serde_json::json;
use std::path::PathBuf;

/// Arguments of `bench forkjoin`.
#[derive(clap::Args)]
pub struct ForkjoinArgs {
    /// Backend: `cpu` (the CPU twin, ns) or `cuda` (occ::fj, cycles and ns).
    #[arg(long, value_enum, default_value = "cuda")]
    backend: Backend,
    /// Repetitions per timing.
    #[arg(long, default_value = "1000", value_parser = at_least_one::<usize>)]
    reps: usize,
    /// Delay per thread and construct: cycles on CUDA, ns on the CPU.
    #[arg(long, default_value = "100", value_parser = at_least_one::<u64>)]
    delay: u64,
    /// Timings per construct (the median is reported).
    #[arg(long, default_value = "5", value_parser = at_least_one::<usize>)]
    rounds: usize,
    /// Worker counts (multiples of 32, at most 992), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "32,64,128,256,512,992")]
    workers: Vec<usize>,
    /// CUDA: blocks of 32 W + 1 threads (a one-thread master warp) instead of 32 (W + 1).
    #[arg(long)]
    lone_master: bool,
    /// CUDA: a macro for the benchmark's compilation, NAME or NAME=VALUE (repeatable), e.g.
    /// OCC_FJ_DEBUG=1.
    #[arg(long = "define", value_name = "NAME[=VALUE]")]
    defines: Vec<String>,
    /// JSON lines of the LLVM OpenMP comparator (bench/llvm-openmp/epcc_target) to compare with.
    #[arg(long)]
    llvm: Option<PathBuf>,
    /// Results folder (default bench/results/<gpu>/forkjoin, or bench/results/cpu/forkjoin).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Runs `bench forkjoin`.
pub fn run_forkjoin(a: &ForkjoinArgs) -> Result<(), String> {
    check_out_dir(&a.out)?;
    // The comparator's output is read first: a missing or malformed file fails before the run.
    let (llvm_rows, llvm_runs) = match &a.llvm {
        Some(p) => read_llvm_file(p).map_err(|e| e.to_string())?,
        None => (Vec::new(), Vec::new()),
    };
    let cfg = EpccConfig {
        reps: a.reps,
        delay: a.delay,
        rounds: a.rounds,
        workers: a.workers.clone(),
        lone_master: a.lone_master,
        defines: a.defines.clone(),
    };
    let (rows, dir, unit) = match a.backend {
        Backend::Cpu => {
            let rows = occupant::cpu::forkjoin::epcc(&cfg).map_err(|e| e.to_string())?;
            let dir = a
                .out
                .clone()
                .unwrap_or_else(|| PathBuf::from("bench/results/cpu/forkjoin"));
            check_dir(&dir)?;
            (rows, dir, "ns")
        }
        Backend::Cuda => {
            let gpu = open_cuda("cuda")?;
            let rows = occupant::cuda::forkjoin::epcc(&gpu, &cfg).map_err(|e| e.to_string())?;
            let dir = match &a.out {
                Some(d) => d.clone(),
                None => out_dir(&gpu, &None)?.join("forkjoin"),
            };
            check_dir(&dir)?;
            (rows, dir, "cycles")
        }
    };
    let ratios = compare(&rows, &llvm_rows);
    let value = |r: &EpccRow| {
        if unit == "cycles" {
            r.overhead_cycles
        } else {
            r.overhead_ns
        }
    };
    println!(
        "{:<14} {:>7} {:>14} {:>12} {:>14} {:>8}",
        "construct",
        "workers",
        format!("ours {unit}"),
        "ours ns",
        "llvm cycles",
        "ratio"
    );
    for r in &rows {
        let q = ratios
            .iter()
            .find(|q| q.workers == r.workers && q.construct == r.construct);
        println!(
            "{:<14} {:>7} {:>14.1} {:>12.1} {:>14} {:>8}",
            r.construct,
            r.workers,
            value(r),
            r.overhead_ns,
            q.map(|q| format!("{:.1}", q.llvm_cycles))
                .unwrap_or_default(),
            q.map(|q| format!("{:.2}", q.ratio_cycles))
                .unwrap_or_default()
        );
    }
    let doc = json!({
        "backend": format!("{:?}", a.backend).to_lowercase(),
        "config": cfg,
        "method": "Bull: overhead = (T_construct - T_reference) / reps, median over rounds",
        "ours": rows,
        "llvm": llvm_rows,
        "llvm_runs": llvm_runs,
        "ratios": ratios,
    });
    let p = write_json(&dir, "forkjoin.json", &doc)?;
    println!("wrote {}", p.display());
    let mut series = Vec::new();
    for c in EPCC_CONSTRUCTS {
        let pts = |rs: &[EpccRow]| -> Vec<(f64, f64)> {
            rs.iter()
                .filter(|r| r.construct == c)
                .map(|r| (r.workers as f64, value(r).max(1.0)))
                .collect()
        };
        series.push(Series {
            label: format!("occupant {c}"),
            points: pts(&rows),
        });
        if !llvm_rows.is_empty() {
            series.push(Series {
                label: format!("LLVM {c}"),
                points: pts(&llvm_rows),
            });
        }
    }
    let svg = dir.join("forkjoin.svg");
    line_plot(
        &svg,
        &format!("fork-join construct overheads (EPCC, Bull) — {unit}"),
        "workers",
        &format!("overhead ({unit})"),
        &series,
        true,
        true,
    )?;
    println!("wrote {}", svg.display());
    Ok(())
}

/// Arguments of `bench nested`.
#[derive(clap::Args)]
pub struct NestedArgs {
    /// Backend (only `cuda`).
    #[arg(long, value_enum, default_value = "cuda")]
    backend: Backend,
    /// Timed runs per kernel version (the median is reported).
    #[arg(long, default_value = "5", value_parser = at_least_one::<usize>)]
    reps: usize,
    /// Results folder (default bench/results/<gpu>/forkjoin).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Cut every size down (for compute-sanitizer runs).
    #[arg(long)]
    small: bool,
}

/// Runs `bench nested`.
pub fn run_nested(a: &NestedArgs) -> Result<(), String> {
    check_out_dir(&a.out)?;
    if a.backend != Backend::Cuda {
        return Err("`bench nested` runs on the cuda backend only (the CPU twin's semantics are tested by `cargo test -p occupant --test cpu_forkjoin`)".into());
    }
    let gpu = open_cuda("cuda")?;
    let dir = match &a.out {
        Some(d) => d.clone(),
        None => out_dir(&gpu, &None)?.join("forkjoin"),
    };
    check_dir(&dir)?;
    let specs = if a.small {
        occupant_apps::nested::suite_small()
    } else {
        occupant_apps::nested::suite()
    };
    let res = occupant_apps::nested::run_suite(&gpu, &specs, a.reps).map_err(|e| e.to_string())?;
    println!(
        "{:<15} {:>8} {:>9} {:>6} {:>10} {:>10} {:>10} {:>8} {:>8} {:>5}",
        "kernel",
        "outer",
        "inner",
        "inner>",
        "spmd ms",
        "nested ms",
        "adapt ms",
        "nested×",
        "adapt×",
        "ok"
    );
    for r in &res {
        println!(
            "{:<15} {:>8} {:>9.1} {:>6} {:>10.3} {:>10.3} {:>10} {:>8.2} {:>8} {:>5}",
            r.name,
            r.outer,
            r.mean_inner,
            r.inner_dominated,
            r.spmd_ms,
            r.nested_ms,
            r.adaptive_ms.map(|v| format!("{v:.3}")).unwrap_or_default(),
            r.speedup,
            r.adaptive_speedup
                .map(|v| format!("{v:.2}"))
                .unwrap_or_default(),
            r.verified
        );
    }
    let geo = occupant_apps::nested::geomean_inner_dominated(&res);
    println!("geomean nested speedup, inner-dominated kernels: {geo:.2}x (seed 003: 3.6x)");
    let p = write_json(
        &dir,
        "nested.json",
        &json!({"gpu": gpu.info().name, "reps": a.reps, "kernels": specs, "results": res,
                "geomean_inner_dominated": geo}),
    )?;
    println!("wrote {}", p.display());
    let pts = |f: &dyn Fn(&occupant_apps::nested::NestedResult) -> Option<f64>| {
        let mut v: Vec<(f64, f64)> = res
            .iter()
            .filter_map(|r| f(r).map(|v| (r.mean_inner / r.outer as f64, v)))
            .collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v
    };
    let series = vec![
        Series {
            label: "nested / SPMD".into(),
            points: pts(&|r| Some(r.speedup)),
        },
        Series {
            label: "adaptive nested / SPMD".into(),
            points: pts(&|r| r.adaptive_speedup),
        },
        Series {
            label: "parity".into(),
            points: pts(&|_| Some(1.0)),
        },
    ];
    let svg = dir.join("nested.svg");
    line_plot(
        &svg,
        "nested parallelism: speedup over SPMD vs inner:outer ratio",
        "mean inner / outer iterations",
        "speedup (×)",
        &series,
        true,
        true,
    )?;
    println!("wrote {}", svg.display());
    Ok(())
}
