//! `occupant`: the command-line front end of the occupant toolkit.

mod info;
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), String> = match cli.command {
        Command::Info { json } => {
            let cpu = info::cpu_info(json);
            if json {
                println!("{}", serde_json::json!({ "backends": [cpu] }));
            }
            Ok(())
        }
        Command::Tour => tour::run(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
