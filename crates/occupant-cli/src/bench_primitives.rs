//! `occupant bench primitives --backend cpu|cuda [OPTIONS]`: one command, one options parser
//! per backend (the CPU and CUDA benchmarks take different options, some with the same names).
//! `occupant bench primitives --backend cpu -- --help` shows the CPU options.

use clap::{Args, Parser};

/// The backend choice plus the chosen backend's options.
#[derive(Args, Debug)]
pub struct PrimitivesCmd {
    /// `cuda`, `cpu`, or `auto` (cuda when a CUDA device is found, else cpu).
    #[arg(long, default_value = "auto")]
    backend: String,
    /// Options of the backend's benchmark (`--backend cpu -- --help` lists the CPU ones).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    rest: Vec<String>,
}

#[derive(Parser)]
#[command(name = "occupant bench primitives --backend cpu")]
struct CpuCli {
    #[command(flatten)]
    args: crate::cpu_bench_primitives::PrimitivesArgs,
}

#[derive(Parser)]
#[command(name = "occupant bench primitives --backend cuda")]
struct CudaCli {
    #[command(flatten)]
    args: crate::cuda_bench_primitives::PrimitivesBenchArgs,
}

/// Parses the backend's options and runs its benchmark.
pub fn run(cmd: &PrimitivesCmd) -> Result<(), String> {
    let backend = match cmd.backend.as_str() {
        "auto" => match occupant::cuda::probe_device() {
            Ok(_) => "cuda".to_string(),
            Err(e) => {
                eprintln!("{e}; running the CPU backend's benchmark");
                "cpu".to_string()
            }
        },
        other => other.to_string(),
    };
    let argv = std::iter::once("occupant".to_string())
        .chain(["--backend".to_string(), backend.clone()])
        .chain(cmd.rest.iter().cloned());
    match backend.as_str() {
        "cpu" => match CpuCli::try_parse_from(argv) {
            Ok(c) => crate::cpu_bench_primitives::run(&c.args),
            Err(e) => e.exit(),
        },
        "cuda" => match CudaCli::try_parse_from(argv) {
            Ok(c) => crate::cuda_bench_primitives::run(&c.args),
            Err(e) => e.exit(),
        },
        other => Err(format!("unknown backend `{other}`; use cpu or cuda")),
    }
}
