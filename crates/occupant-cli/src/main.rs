//! `occupant`: the command-line front end of the occupant toolkit.

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), String> = match cli.command {
        Command::Info => Ok(()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
