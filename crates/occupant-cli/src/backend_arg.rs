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

/// The error for an experiment whose backend branch is not in this build.
pub fn not_here(what: &str, backend: Backend) -> String {
    format!(
        "`{what}` is not implemented for the {backend:?} backend in this build; use --backend cpu"
    )
}
