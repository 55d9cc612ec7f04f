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

/// Opens GPU 0 for a command that also runs on the CPU (`occupant run`, `multitask`,
/// `discover`): `Some(gpu)`, or `None` after one line on stderr when there is no usable CUDA
/// device (no driver library, no GPU), so that the command falls back to the CPU backend.
/// Other driver errors (a GPU that fails to open) stay errors.
pub fn open_gpu_or_fall_back(command: &str) -> Result<Option<occupant::cuda::Gpu>, String> {
    match occupant::cuda::Gpu::open(0) {
        Ok(gpu) => Ok(Some(gpu)),
        Err(occupant::Error::NoDevice { reason }) => {
            eprintln!(
                "occupant {command}: no CUDA device ({reason}); running on the CPU backend instead"
            );
            Ok(None)
        }
        Err(e) => Err(e.to_string()),
    }
}
