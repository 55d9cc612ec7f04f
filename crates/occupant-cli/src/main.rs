//! `occupant`: the command-line front end of the occupant toolkit.

mod backend_arg;
mod cpu_bench_primitives;
mod cpu_discover;
mod cuda_info;
mod cuda_launch_bench;
mod info;
mod plot;
mod stats;
mod tour;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Blocking synchronisation on GPUs that never deadlocks.
#[derive(Parser)]
#[command(name = "occupant", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the backends and their properties.
    Info {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// A short demonstration on the CPU backend: barriers, coroutines, a deadlock caught.
    Tour,
    /// Benchmarks.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Recall of occupancy discovery against the true occupancy bound (seed 001 Table 5).
    Discover(cpu_discover::DiscoverArgs),
}

#[derive(Subcommand)]
enum BenchCommand {
    /// NVRTC compile time and kernel launch overhead per launch mode (CUDA).
    Launch(cuda_launch_bench::LaunchBenchArgs),
    /// Operations per second of every barrier, mutex and semaphore vs the number of groups.
    Primitives(cpu_bench_primitives::PrimitivesArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), String> = match cli.command {
        Command::Info { json } => {
            let cpu = info::cpu_info(json);
            if json {
                let cuda = match occupant::cuda::probe_device() {
                    Ok(info) => serde_json::to_value(info).unwrap_or_default(),
                    Err(e) => {
                        serde_json::json!({ "backend": "cuda", "available": false, "reason": e.to_string() })
                    }
                };
                println!("{}", serde_json::json!({ "backends": [cpu, cuda] }));
            } else {
                println!();
                cuda_info::print_cuda_info();
            }
            Ok(())
        }
        Command::Tour => tour::run(),
        Command::Bench(BenchCommand::Launch(args)) => cuda_launch_bench::run(&args),
        Command::Bench(BenchCommand::Primitives(args)) => match args.backend {
            backend_arg::Backend::Cpu => cpu_bench_primitives::run(&args),
            backend => Err(backend_arg::not_here("bench primitives", backend)),
        },
        Command::Discover(args) => cpu_discover::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
