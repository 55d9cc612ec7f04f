//! Checks of a block shape against a kernel's resources and the device's limits, before the
//! launch: an impossible shape is an [`Error::InvalidLaunch`] that names the resource and the
//! numbers, instead of the driver's "too many resources requested for launch" or
//! `CUDA_ERROR_INVALID_VALUE`.

use super::info::DeviceInfo;
use crate::model::{Error, Result};

/// Shared memory a block may use without opting in (static + dynamic), bytes.
pub(crate) const SHARED_WITHOUT_OPT_IN: u32 = 48 << 10;

/// What the driver reports about one kernel's resource use (read once, when it is looked up).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KernelLimits {
    /// Registers per thread.
    pub(crate) registers: u32,
    /// Static shared memory per block, bytes.
    pub(crate) static_shared: u32,
    /// Largest block the kernel can launch with (registers and `__launch_bounds__` included).
    pub(crate) max_threads: u32,
}

/// The device limits a block shape is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DeviceLimits {
    /// Threads per block.
    pub(crate) max_threads_per_block: u32,
    /// Shared memory per block with opt-in (static + dynamic), bytes.
    pub(crate) max_shared_per_block: u32,
    /// 32-bit registers per SM.
    pub(crate) registers_per_sm: u32,
}

impl From<&DeviceInfo> for DeviceLimits {
    fn from(i: &DeviceInfo) -> Self {
        Self {
            max_threads_per_block: i.max_threads_per_block,
            max_shared_per_block: i.max_shared_per_block,
            registers_per_sm: i.registers_per_sm,
        }
    }
}

/// Checks that blocks of `block_threads` threads with `dynamic_shared` bytes of dynamic shared
/// memory can launch kernel `name`. `Ok(Some(bytes))`: the launch needs the kernel's dynamic
/// shared-memory limit raised to `bytes` first (static + dynamic above 48 KiB); `Ok(None)`: no
/// opt-in needed.
pub(crate) fn check_block(
    name: &str,
    k: &KernelLimits,
    d: &DeviceLimits,
    block_threads: u32,
    dynamic_shared: u32,
) -> Result<Option<u32>> {
    let total_shared = k.static_shared as u64 + dynamic_shared as u64;
    if total_shared > d.max_shared_per_block as u64 {
        return Err(Error::InvalidLaunch(format!(
            "kernel `{name}`: {} bytes of static + {dynamic_shared} bytes of dynamic shared memory = {total_shared} bytes per block, above the device's limit of {} bytes per block",
            k.static_shared, d.max_shared_per_block
        )));
    }
    if block_threads > k.max_threads.min(d.max_threads_per_block) {
        let regs = k.registers as u64 * block_threads as u64;
        let why = if block_threads > d.max_threads_per_block {
            format!(
                "the device allows {} threads per block",
                d.max_threads_per_block
            )
        } else if regs > d.registers_per_sm as u64 {
            format!(
                "it uses {} registers per thread, so a block of {block_threads} threads needs {regs} registers, more than the {} registers of an SM",
                k.registers, d.registers_per_sm
            )
        } else {
            format!(
                "it uses {} registers per thread ({regs} for the block, the SM has {}); its register allocation granularity or `__launch_bounds__` limit it",
                k.registers, d.registers_per_sm
            )
        };
        return Err(Error::InvalidLaunch(format!(
            "kernel `{name}` can launch at most {} threads per block, not {block_threads}: {why}",
            k.max_threads.min(d.max_threads_per_block)
        )));
    }
    Ok((total_shared > SHARED_WITHOUT_OPT_IN as u64).then_some(dynamic_shared))
}

#[cfg(test)]
mod tests {
    use super::*;

    const H100: DeviceLimits = DeviceLimits {
        max_threads_per_block: 1024,
        max_shared_per_block: 227 << 10,
        registers_per_sm: 65536,
    };

    fn kernel(registers: u32, static_shared: u32, max_threads: u32) -> KernelLimits {
        KernelLimits {
            registers,
            static_shared,
            max_threads,
        }
    }

    #[test]
    fn static_plus_dynamic_shared_memory_decides_the_opt_in() {
        // 16 bytes static + exactly 48 KiB dynamic: 48 KiB + 16 needs the opt-in.
        let k = kernel(32, 16, 1024);
        assert_eq!(
            check_block("k", &k, &H100, 256, 48 << 10).unwrap(),
            Some(48 << 10)
        );
        // No static shared memory: 48 KiB fits without it.
        let k0 = kernel(32, 0, 1024);
        assert_eq!(check_block("k", &k0, &H100, 256, 48 << 10).unwrap(), None);
        assert_eq!(
            check_block("k", &k0, &H100, 256, (48 << 10) + 1).unwrap(),
            Some((48 << 10) + 1)
        );
    }

    #[test]
    fn too_much_shared_memory_names_the_limit_and_the_numbers() {
        let k = kernel(32, 1024, 1024);
        let e = check_block("big", &k, &H100, 128, 227 << 10)
            .unwrap_err()
            .to_string();
        for part in [
            "`big`",
            "1024 bytes of static",
            "232448 bytes of dynamic",
            "limit of 232448",
        ] {
            assert!(e.contains(part), "{e}");
        }
    }

    #[test]
    fn too_many_registers_name_the_registers() {
        // 640 threads x 106 registers = 67840 > 65536 (the driver reports 512 threads at most).
        let k = kernel(106, 0, 512);
        let e = check_block("fat", &k, &H100, 640, 0)
            .unwrap_err()
            .to_string();
        for part in ["`fat`", "at most 512", "106 registers", "67840", "65536"] {
            assert!(e.contains(part), "{e}");
        }
        assert!(check_block("fat", &k, &H100, 512, 0).is_ok());
    }

    #[test]
    fn too_many_threads_name_the_device_limit() {
        let e = check_block("k", &kernel(16, 0, 1024), &H100, 2048, 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("1024 threads per block"), "{e}");
    }
}
