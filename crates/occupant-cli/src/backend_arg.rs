//! The `--backend` argument shared by the experiment commands.

use clap::ValueEnum;

/// Which backend an experiment runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The CPU executor (compute units are OS threads).
    Cpu,
    /// A CUDA GPU.
    Cuda,
}
