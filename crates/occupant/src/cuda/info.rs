//! What the opened GPU is: [`DeviceInfo`].

use serde::Serialize;
use std::fmt;

/// Properties of one CUDA device, read from the driver when it is opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// Marketing name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// Compute capability `(major, minor)`.
    pub compute_capability: (i32, i32),
    /// The NVRTC architecture kernels are compiled for, e.g. `sm_90`.
    pub arch: String,
    /// Streaming multiprocessors (compute units).
    pub sm_count: u32,
    /// Global memory in bytes.
    pub total_memory: u64,
    /// Peak SM clock in kHz.
    pub clock_khz: u32,
    /// Peak memory clock in kHz.
    pub memory_clock_khz: u32,
    /// Memory bus width in bits.
    pub memory_bus_bits: u32,
    /// L2 cache in bytes.
    pub l2_bytes: u32,
    /// Threads per block, at most.
    pub max_threads_per_block: u32,
    /// Resident threads per SM, at most.
    pub max_threads_per_sm: u32,
    /// Resident blocks per SM, at most.
    pub max_blocks_per_sm: u32,
    /// Shared memory per block with opt-in, bytes.
    pub max_shared_per_block: u32,
    /// Shared memory per SM, bytes.
    pub shared_per_sm: u32,
    /// 32-bit registers per SM.
    pub registers_per_sm: u32,
    /// Whether cooperative launches (`grid.sync()`) are supported.
    pub cooperative_launch: bool,
    /// The driver's CUDA version, e.g. `13.0`.
    pub driver_version: String,
    /// NVRTC's version, when NVRTC was found.
    pub nvrtc_version: Option<String>,
}

impl DeviceInfo {
    /// The hardware bound on co-resident blocks of `block_threads` threads: SMs × min(blocks
    /// per SM, threads per SM / block threads). Registers and shared memory can lower it; the
    /// occupancy API gives the exact figure for a compiled kernel.
    pub fn resident_blocks_bound(&self, block_threads: u32) -> u32 {
        let by_threads = self.max_threads_per_sm / block_threads.max(1);
        self.sm_count * self.max_blocks_per_sm.min(by_threads)
    }
}

impl fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let gib = self.total_memory as f64 / (1u64 << 30) as f64;
        writeln!(f, "CUDA device {}: {}", self.ordinal, self.name)?;
        writeln!(
            f,
            "  compute capability {}.{} ({}), {} SMs, {:.1} GiB, SM clock {} MHz, memory clock {} MHz, {}-bit bus, L2 {} MiB",
            self.compute_capability.0,
            self.compute_capability.1,
            self.arch,
            self.sm_count,
            gib,
            self.clock_khz / 1000,
            self.memory_clock_khz / 1000,
            self.memory_bus_bits,
            self.l2_bytes >> 20
        )?;
        writeln!(
            f,
            "  per SM: {} threads, {} blocks, {} KiB shared, {} registers; per block: {} threads, {} KiB shared (opt-in)",
            self.max_threads_per_sm,
            self.max_blocks_per_sm,
            self.shared_per_sm >> 10,
            self.registers_per_sm,
            self.max_threads_per_block,
            self.max_shared_per_block >> 10
        )?;
        write!(
            f,
            "  cooperative launch: {}; driver CUDA {}; NVRTC {}",
            if self.cooperative_launch { "yes" } else { "no" },
            self.driver_version,
            self.nvrtc_version.as_deref().unwrap_or("not found")
        )
    }
}
