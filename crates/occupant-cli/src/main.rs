//! `occupant`: the command-line front end of the occupant toolkit.

mod cuda_info;
mod cuda_launch_bench;

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
    Info,
    /// Benchmarks.
    #[command(subcommand)]
    Bench(BenchCommand),
}

#[derive(Subcommand)]
enum BenchCommand {
    /// NVRTC compile time and kernel launch overhead per launch mode (CUDA).
    Launch(cuda_launch_bench::LaunchBenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), String> = match cli.command {
        Command::Info => {
            cuda_info::print_cuda_info();
            Ok(())
        }
        Command::Bench(BenchCommand::Launch(args)) => cuda_launch_bench::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
