//! `occupant`: the command-line front end of the occupant toolkit.

mod backend_arg;
mod bench_apps;
mod bench_placement;
mod bench_primitives;
mod cli_values;
mod cpu_bench_primitives;
mod cpu_discover;
mod cpu_vs_pocl;
mod cuda_bench_common;
mod cuda_bench_discovery;
mod cuda_bench_memory;
mod cuda_bench_primitives;
mod cuda_info;
mod cuda_launch_bench;
mod forkjoin_cmd;
mod graph_cmd;
mod info;
mod linear_plot;
mod multitask_cmd;
mod multitask_cuda;
mod output_path;
mod plot;
mod run_cmd;
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
    /// Graphs: generate to a file, print statistics.
    #[command(subcommand)]
    Graph(graph_cmd::GraphCommand),
    /// Run a graph application (bfs, sssp, sssp-worklist, color, mis, bc, pagerank, cc).
    Run(run_cmd::RunArgs),
    /// Cooperative kernels (seed 000 §5): a cooperative app lends compute units to a periodic other launch.
    Multitask(multitask_cmd::MultitaskArgs),
}

#[derive(Subcommand)]
enum BenchCommand {
    /// NVRTC compile time and kernel launch overhead per launch mode (CUDA).
    Launch(cuda_launch_bench::LaunchBenchArgs),
    /// Barriers, mutexes and semaphores: `--backend auto` (default: cuda if a GPU is found), `cuda` or `cpu`.
    Primitives(bench_primitives::PrimitivesCmd),
    /// Occupancy discovery: recall against the occupancy API and protocol time (CUDA).
    Discovery(cuda_bench_discovery::DiscoveryBenchArgs),
    /// The memory-system microbenchmarks and the machine abstraction (CUDA).
    Memory(cuda_bench_memory::MemoryBenchArgs),
    /// The CPU executor against PoCL on the same OpenCL kernels and thread count.
    CpuVsPocl(cpu_vs_pocl::CpuVsPoclArgs),
    /// Graph applications, apps × inputs × variants: speedups over multi-kernel / multi-launch.
    Apps(bench_apps::AppsBenchArgs),
    /// Fork-join construct overheads (EPCC syncbench, Bull's method): `--backend cpu|cuda`.
    Forkjoin(forkjoin_cmd::ForkjoinArgs),
    /// The nested-parallelism suite: SPMD vs fork-join nested kernels (CUDA).
    Nested(forkjoin_cmd::NestedArgs),
    /// Where a persistent program's barrier lives: the barrier at every candidate place per
    /// launch shape beside grid.sync(), and apps' times per place (CUDA).
    Placement(bench_placement::PlacementArgs),
}

/// Lets the process end quietly when its stdout is closed early (`occupant … | head`), as Unix
/// tools do: Rust ignores SIGPIPE, so the next `println!` would panic ("failed printing to
/// stdout: Broken pipe") with a backtrace.
fn die_quietly_on_broken_pipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any other thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    die_quietly_on_broken_pipe();
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
        Command::Bench(BenchCommand::Primitives(a)) => bench_primitives::run(&a),
        Command::Bench(BenchCommand::Discovery(a)) => cuda_bench_discovery::run(&a),
        Command::Bench(BenchCommand::Memory(a)) => cuda_bench_memory::run(&a),
        Command::Bench(BenchCommand::CpuVsPocl(a)) => cpu_vs_pocl::run(&a),
        Command::Bench(BenchCommand::Apps(a)) => bench_apps::run(&a),
        Command::Bench(BenchCommand::Forkjoin(a)) => forkjoin_cmd::run_forkjoin(&a),
        Command::Bench(BenchCommand::Nested(a)) => forkjoin_cmd::run_nested(&a),
        Command::Bench(BenchCommand::Placement(a)) => bench_placement::run(&a),
        Command::Discover(args) => match args.backend {
            backend_arg::Backend::Cuda => match backend_arg::open_gpu_or_fall_back("discover") {
                Ok(Some(gpu)) => cuda_bench_discovery::run_on(
                    &gpu,
                    &cuda_bench_discovery::DiscoveryBenchArgs::defaults(),
                ),
                Ok(None) => cpu_discover::run(&args),
                Err(e) => Err(e),
            },
            backend_arg::Backend::Cpu => cpu_discover::run(&args),
        },
        Command::Graph(cmd) => graph_cmd::run(&cmd),
        Command::Run(a) => run_cmd::run(&a),
        Command::Multitask(a) => multitask_cmd::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
