//! `occupant info`, CUDA part: the GPU's properties, or one line saying the CPU backend is used.

use occupant::cuda::{probe_device, DeviceInfo};
use occupant::Error;

/// The CUDA device 0, or `None` after printing why there is none.
pub fn print_cuda_info() -> Option<DeviceInfo> {
    match probe_device() {
        Ok(info) => {
            println!("{info}");
            Some(info)
        }
        Err(Error::NoDevice { reason }) => {
            println!("CUDA: no CUDA device found ({reason}); the CPU backend will be used");
            None
        }
        Err(e) => {
            println!("CUDA: the device could not be opened ({e}); the CPU backend will be used");
            None
        }
    }
}
