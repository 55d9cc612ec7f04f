//! `occupant bench forkjoin` (EPCC overheads of fork-join constructs, CPU twin or CUDA, with the
//! LLVM OpenMP offload comparator's output) and `occupant bench nested` (the nested-parallelism
//! suite). Thin: the experiments are `occupant::cpu::forkjoin::epcc`,
//! `occupant::cuda::forkjoin::epcc` (with `occupant::model::forkjoin::{read_llvm_file,
//! EpccReport}` for the comparator, the table, JSON and plot) and
//! `occupant_apps::nested::{run_suite, NestedReport}`.

use crate::backend_arg::Backend;
use crate::cli_values::at_least_one;
use crate::cuda_bench_common::{line_plot, open_cuda, out_dir, write_json, Series};
use crate::output_path::{check_dir, check_out_dir};
use occupant::model::forkjoin::{read_llvm_file, EpccConfig, EpccReport, EpccUnit};
use occupant_apps::nested::NestedReport;
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
            (rows, dir, EpccUnit::Ns)
        }
        Backend::Cuda => {
            let gpu = open_cuda("cuda")?;
            let rows = occupant::cuda::forkjoin::epcc(&gpu, &cfg).map_err(|e| e.to_string())?;
            let dir = match &a.out {
                Some(d) => d.clone(),
                None => out_dir(&gpu, &None)?.join("forkjoin"),
            };
            check_dir(&dir)?;
            (rows, dir, EpccUnit::Cycles)
        }
    };
    let report = EpccReport::new(
        &format!("{:?}", a.backend).to_lowercase(),
        unit,
        cfg,
        rows,
        llvm_rows,
        llvm_runs,
    );
    print!("{}", report.table());
    let p = write_json(&dir, "forkjoin.json", &report)?;
    println!("wrote {}", p.display());
    let series = Series::all(report.series());
    let svg = dir.join("forkjoin.svg");
    line_plot(
        &svg,
        &format!(
            "fork-join construct overheads (EPCC, Bull) — {}",
            unit.name()
        ),
        "workers",
        &format!("overhead ({})", unit.name()),
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
    /// Worker warps of the adaptive versions' blocks (1 … 31; default 7: blocks of 256
    /// threads, one chunk of 224 outer iterations each).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=31))]
    adaptive_warps: Option<u32>,
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
    let mut specs = if a.small {
        occupant_apps::nested::suite_small()
    } else {
        occupant_apps::nested::suite()
    };
    if let Some(w) = a.adaptive_warps {
        for s in &mut specs {
            s.adaptive_warps = w as usize;
        }
    }
    let res = occupant_apps::nested::run_suite(&gpu, &specs, a.reps).map_err(|e| e.to_string())?;
    let report = NestedReport::new(&gpu.info().name, a.reps, specs, res);
    print!("{}", report.table());
    let p = write_json(&dir, "nested.json", &report)?;
    println!("wrote {}", p.display());
    let series = Series::all(report.series());
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
