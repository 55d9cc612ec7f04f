//! The persistent-kernel API: [`PersistentProgram`], "discover, then loop with barriers" in one
//! host call. Device side: `occ::PersistentKernel` (`device/persistent.cuh`, in `occupant.cuh`).
//!
//! ```no_run
//! use occupant::cuda::{Gpu, PersistentProgram};
//! let gpu = Gpu::open(0)?;
//! let src = r#"#include <occupant.cuh>
//! extern "C" __global__ void count(unsigned* data, unsigned n) {
//!   occ::PersistentKernel p;
//!   if (!p.participating()) return;
//!   for (unsigned it = 0; it < 10; ++it) {
//!     for (unsigned i = p.thread_id(); i < n; i += p.num_threads()) data[i] += 1;
//!     if (!p.barrier()) return;
//!   }
//! }"#;
//! let prog = PersistentProgram::compile(&gpu, "count.cu", src, &Default::default())?;
//! let data = gpu.alloc_zeroed::<u32>(1 << 20)?;
//! let report = prog.launch("count", 256, &occupant::args![&data, 1u32 << 20])?;
//! println!("{} blocks took part, {:.1} µs", report.participants, report.elapsed_us);
//! assert!(data.to_vec()?.iter().all(|&x| x == 10));
//! # Ok::<(), occupant::Error>(())
//! ```

use super::gpu::driver_err;
use super::sync::{BarrierKind, MachineAbstraction};
use super::{Arg, CompileOptions, Gpu, LaunchConfig, LaunchMode, LaunchReport, Module};
use crate::model::{Error, LaunchShape, Result};
use cudarc::driver::sys::{self, CUresult};
use cudarc::driver::DevicePtr;
use serde::Serialize;

/// Most participating blocks `occ::PersistentKernel` holds barrier state for
/// (`OCC_PERSISTENT_MAX_GROUPS` in persistent.cuh).
pub const PERSISTENT_MAX_GROUPS: usize = 8192;

/// The polls' throttle persistent programs compile with (`-DOCC_POLL_PAUSE_SHIFT`, gated by
/// `OCC_POLL_PAUSE_GATE` = 1: only in barriers with more waiters than SMs) unless their options
/// set it: a persistent loop's blocks reach each barrier as their work ends, and with skewed
/// arrivals the throttle gains 13-18 % at full occupancy of 128 and 256 threads on an H100
/// (`bench/results/nvidia-h100/i11-primitives/misses-r3`); the shape table's `barrier_skewed`
/// entries, from which [`persistent_barrier_for_block`] chooses, are measured with it.
pub const PERSISTENT_POLL_PAUSE_SHIFT: i32 = 1;

/// Bytes of `occ_persistent` before the barrier words (the hint and its padding).
const HEADER_BYTES: usize = 128;

/// Whether `occ::PersistentKernel` can use barrier `kind` (its state fits `occ_persistent`:
/// every kind but the tree barrier).
pub fn persistent_supports(kind: BarrierKind) -> bool {
    kind.state_words(PERSISTENT_MAX_GROUPS) <= 2 * PERSISTENT_MAX_GROUPS
}

/// The barrier [`PersistentProgram::compile_for_block`] picks on `gpu` for blocks of
/// `block_threads` threads: the fastest kind `occ::PersistentKernel` can use that the device's
/// shape table measured at the shape nearest to a full-occupancy launch (the hardware bound on
/// resident blocks of that size, the number discovery finds when registers do not limit it),
/// under skewed arrivals where the table has such measurements
/// ([`MachineAbstraction::skewed_barrier_for_where`]); without a table, the device's default.
pub fn persistent_barrier_for_block(gpu: &Gpu, block_threads: usize) -> Result<BarrierKind> {
    let m = MachineAbstraction::for_gpu(gpu)?;
    let blocks = gpu.info().resident_blocks_bound(block_threads as u32) as usize;
    let shape = LaunchShape::new(blocks, block_threads);
    Ok(m.skewed_barrier_for_where(shape, persistent_supports)
        .unwrap_or(m.defaults.barrier))
}

/// A program whose kernels use `occ::PersistentKernel`, compiled for one GPU with one barrier.
#[derive(Clone, Debug)]
pub struct PersistentProgram {
    module: Module,
    barrier: BarrierKind,
    /// Device address and size of `occ_persistent`.
    state: (u64, usize),
}

/// What a persistent launch did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PersistentReport {
    /// Blocks that took part (discovery).
    pub participants: u32,
    /// Blocks launched (the hardware bound on resident blocks unless a grid was given).
    pub launched: usize,
    /// The occupancy API's bound passed to discovery as its hint.
    pub hint: u32,
    /// The barrier `occ::PersistentKernel::barrier` used.
    pub barrier: BarrierKind,
    /// Host wall time from submitting to completion, µs.
    pub elapsed_us: f64,
    /// The underlying launch.
    pub launch: LaunchReport,
}

impl PersistentProgram {
    /// Compiles `source` with the device's default barrier (its machine abstraction, measured
    /// once per device and stored; see [`MachineAbstraction::for_gpu`]).
    pub fn compile(
        gpu: &Gpu,
        name: &str,
        source: &str,
        opts: &CompileOptions,
    ) -> Result<PersistentProgram> {
        let kind = MachineAbstraction::for_gpu(gpu)?.defaults.barrier;
        Self::compile_with_barrier(gpu, kind, name, source, opts)
    }

    /// Compiles `source` with the fastest barrier measured on this device for a launch of
    /// blocks of `block_threads` threads at full occupancy ([`persistent_barrier_for_block`]):
    /// the way to compile when the block size is known, which it usually is.
    pub fn compile_for_block(
        gpu: &Gpu,
        block_threads: usize,
        name: &str,
        source: &str,
        opts: &CompileOptions,
    ) -> Result<PersistentProgram> {
        let kind = persistent_barrier_for_block(gpu, block_threads)?;
        Self::compile_with_barrier(gpu, kind, name, source, opts)
    }

    /// Compiles `source` with barrier `kind` (`-DOCC_PERSISTENT_BARRIER=<its primitive id>`)
    /// and, unless `opts` sets it, the polls' throttle ([`PERSISTENT_POLL_PAUSE_SHIFT`]);
    /// [`Error::InvalidLaunch`] for a kind `occ::PersistentKernel` cannot hold
    /// ([`persistent_supports`]).
    pub fn compile_with_barrier(
        gpu: &Gpu,
        kind: BarrierKind,
        name: &str,
        source: &str,
        opts: &CompileOptions,
    ) -> Result<PersistentProgram> {
        if !persistent_supports(kind) {
            return Err(Error::InvalidLaunch(format!(
                "occ::PersistentKernel cannot use the {kind} barrier: its state ({} words) exceeds occ_persistent's {}",
                kind.state_words(PERSISTENT_MAX_GROUPS),
                2 * PERSISTENT_MAX_GROUPS
            )));
        }
        let mut opts = opts
            .clone()
            .option(format!("-DOCC_PERSISTENT_BARRIER={}", kind.primitive_id()));
        if !opts
            .options
            .iter()
            .any(|o| o.contains("OCC_POLL_PAUSE_SHIFT"))
        {
            opts = opts.option(format!(
                "-DOCC_POLL_PAUSE_SHIFT={PERSISTENT_POLL_PAUSE_SHIFT}"
            ));
        }
        let module = gpu.compile(
            &format!("{name}[persistent:{}]", kind.name()),
            source,
            &opts,
        )?;
        let state = match module.inner.cu.get_global("occ_persistent", &gpu.shared.stream) {
            Ok(view) => {
                let len = view.len();
                let (ptr, _sync) = view.device_ptr(&gpu.shared.stream);
                (ptr, len)
            }
            Err(e) if e.0 == CUresult::CUDA_ERROR_NOT_FOUND => {
                return Err(Error::InvalidLaunch(format!(
                    "program `{name}` defines no `occ_persistent`: include <occupant.cuh> and use occ::PersistentKernel"
                )))
            }
            Err(e) => return Err(driver_err("cuModuleGetGlobal(occ_persistent)", e)),
        };
        if state.1 < HEADER_BYTES + 4 * kind.state_words(PERSISTENT_MAX_GROUPS).min(64) {
            return Err(Error::InvalidLaunch(format!(
                "occ_persistent in `{name}` is {} bytes: mismatched persistent.cuh",
                state.1
            )));
        }
        Ok(PersistentProgram {
            module,
            barrier: kind,
            state,
        })
    }

    /// The loaded module (for its other kernels and attributes).
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The barrier `occ::PersistentKernel::barrier` uses.
    pub fn barrier(&self) -> BarrierKind {
        self.barrier
    }

    /// Launches `kernel` with blocks of `block_threads` threads in discovery mode on the
    /// hardware bound of resident blocks, with the default watchdog, and waits for it.
    pub fn launch(
        &self,
        kernel: &str,
        block_threads: usize,
        args: &[Arg<'_>],
    ) -> Result<PersistentReport> {
        self.launch_with(
            kernel,
            &LaunchConfig::new(LaunchMode::Discovery, block_threads),
            args,
        )
    }

    /// The same with a full configuration (its mode is forced to [`LaunchMode::Discovery`];
    /// a grid, shared memory, watchdog and host deadline are honoured).
    pub fn launch_with(
        &self,
        kernel: &str,
        cfg: &LaunchConfig,
        args: &[Arg<'_>],
    ) -> Result<PersistentReport> {
        let mut cfg = cfg.clone();
        cfg.mode = LaunchMode::Discovery;
        let gpu = &self.module.inner.gpu;
        let threads: usize = cfg.block.iter().product();
        let launched = match cfg.grid {
            Some(g) => g.iter().product(),
            None => gpu.info.resident_blocks_bound(threads as u32) as usize,
        };
        if launched > PERSISTENT_MAX_GROUPS {
            return Err(Error::InvalidLaunch(format!(
                "persistent launch of `{kernel}` with {launched} blocks: occ::PersistentKernel holds state for {PERSISTENT_MAX_GROUPS}"
            )));
        }
        let hint = self
            .module
            .max_active_blocks_per_sm(kernel, threads as u32, cfg.shared_bytes)?
            .saturating_mul(gpu.info.sm_count)
            .min(launched as u32);
        let words = self.barrier.state_words(launched);
        let bytes = (HEADER_BYTES + 4 * words).min(self.state.1);
        let stream = gpu.stream.cu_stream();
        // SAFETY: occ_persistent spans state.1 >= bytes bytes; both writes are ordered on the
        // stream before the launch queued after them.
        unsafe {
            sys::cuMemsetD8Async(self.state.0, 0, bytes, stream)
                .result()
                .map_err(|e| driver_err("cuMemsetD8(occ_persistent)", e))?;
            sys::cuMemsetD32Async(self.state.0, hint, 1, stream)
                .result()
                .map_err(|e| driver_err("cuMemsetD32(occ_persistent.hint)", e))?;
        }
        let launch = self.module.launch(kernel, &cfg, args)?;
        Ok(PersistentReport {
            participants: launch.participants.unwrap_or(0),
            launched: launch.blocks,
            hint,
            barrier: self.barrier,
            elapsed_us: launch.elapsed_us,
            launch,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::sync::{Access, MemoryTiming};

    #[test]
    fn every_kind_but_the_tree_fits_occ_persistent() {
        for &k in BarrierKind::ALL {
            assert_eq!(persistent_supports(k), k != BarrierKind::Tree, "{k}");
        }
    }

    /// The built-in H100 table picks lean for the apps' shape (1056 blocks of 256), and the
    /// filter keeps kinds PersistentKernel cannot hold out of the pick.
    #[test]
    fn the_h100_table_picks_lean_pause_at_full_occupancy_of_256_thread_blocks() {
        let timings: Vec<MemoryTiming> = [true, false]
            .iter()
            .flat_map(|&c| {
                Access::ALL.iter().map(move |&a| MemoryTiming {
                    access: a,
                    contentious: c,
                    total_ns: 100.0,
                    ns_per_access: 0.1,
                })
            })
            .collect();
        let m = MachineAbstraction::from_timings(
            "NVIDIA H100 80GB HBM3",
            (9, 0),
            132,
            1056,
            1000,
            timings,
        )
        .unwrap()
        .with_builtin_shapes();
        let shape = LaunchShape::new(1056, 256);
        // lean_pause (1749 ns, last-run3) before lean (1869) and relay (2063).
        assert_eq!(
            m.barrier_for_where(shape, persistent_supports),
            Some(BarrierKind::LeanPause)
        );
        assert_eq!(
            m.barrier_for_where(shape, |k| k != BarrierKind::LeanPause),
            Some(BarrierKind::Lean)
        );
        assert_eq!(
            m.barrier_for_where(shape, |k| {
                !matches!(k, BarrierKind::Lean | BarrierKind::LeanPause)
            }),
            Some(BarrierKind::Relay)
        );
        assert_eq!(m.barrier_for_where(shape, |_| false), None);
        // Under skewed arrivals (the table's barrier_skewed entries) lean and lean_pause tie
        // (4607 / 4641 ns, within SKEWED_TIE): the aligned choice decides, so persistent
        // programs keep lean_pause here, relay at 2112x128 and lean at 264x1024.
        assert_eq!(
            m.skewed_barrier_for_where(shape, persistent_supports),
            Some(BarrierKind::LeanPause)
        );
        assert_eq!(
            m.skewed_barrier_for_where(LaunchShape::new(2112, 128), persistent_supports),
            Some(BarrierKind::Relay)
        );
        assert_eq!(
            m.skewed_barrier_for_where(LaunchShape::new(264, 1024), persistent_supports),
            Some(BarrierKind::Lean)
        );
    }
}
