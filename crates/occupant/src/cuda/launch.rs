//! Launching kernels: [`LaunchMode`], [`LaunchConfig`], [`LaunchReport`].
//!
//! Every launch resolves its grid from the mode, checks the arguments against the kernel's
//! parameters, arms the module's watchdog record (`occ_ctl`), launches, waits, reads the record
//! back and turns a timed-out wait into [`Error::Deadlock`]. The kernel left on its own (every
//! wait returned false and the kernel returned), so the context stays usable.

use super::args::Arg;
use super::gpu::driver_err;
use super::module::{Kernel, Module};
use super::watchdog::{Control, CONTROL_BYTES};
use crate::model::{Dim3, Error, Result, Watchdog};
use cudarc::driver::result as cu;
use cudarc::driver::sys::{self, CUresult};
use serde::Serialize;
use std::ffi::c_void;
use std::time::{Duration, Instant};

/// How the grid of a launch is chosen (the same names as the CPU backend's launch modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunchMode {
    /// Exactly the grid given; nothing is promised about co-residency.
    Plain,
    /// The largest grid the occupancy API says is co-resident:
    /// `cuOccupancyMaxActiveBlocksPerMultiprocessor × SMs` (a given grid caps it).
    OccupancyApi,
    /// `cuLaunchCooperativeKernel`, the vendor's co-residency guarantee (for `grid.sync()`);
    /// the grid defaults to the occupancy API's and may not exceed it.
    Cooperative,
    /// Occupancy discovery (discovery.cuh): the grid defaults to the hardware bound
    /// ([`DeviceInfo::resident_blocks_bound`](super::DeviceInfo::resident_blocks_bound)); the
    /// program must define `extern "C" __device__ <struct> occ_discovery;` whose first member is
    /// `unsigned participants`. The runtime zeroes the whole of `occ_discovery` before the
    /// launch and reports `participants` afterwards ([`LaunchReport::participants`]).
    Discovery,
}

impl LaunchMode {
    /// Every mode, in declaration order.
    pub const ALL: [LaunchMode; 4] = [
        Self::Plain,
        Self::OccupancyApi,
        Self::Cooperative,
        Self::Discovery,
    ];

    /// The mode's name, e.g. `"occupancy_api"`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Plain => "plain",
            Self::OccupancyApi => "occupancy_api",
            Self::Cooperative => "cooperative",
            Self::Discovery => "discovery",
        }
    }
}

/// Everything about a launch except the kernel and its arguments.
///
/// ```
/// use occupant::cuda::{LaunchConfig, LaunchMode};
/// let c = LaunchConfig::new(LaunchMode::OccupancyApi, 256).shared(1024);
/// assert_eq!(c.grid, None);
/// let p = LaunchConfig::plain(1024, 128);
/// assert_eq!(p.grid, Some([1024, 1, 1]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchConfig {
    /// How the grid is chosen.
    pub mode: LaunchMode,
    /// Blocks per dimension; `None`: the mode's default (required for [`LaunchMode::Plain`]).
    pub grid: Option<Dim3>,
    /// Threads per block, per dimension.
    pub block: Dim3,
    /// Dynamic shared memory per block, bytes (above 48 KiB the kernel's limit is raised).
    pub shared_bytes: u32,
    /// The longest a single device wait may last before the launch is a deadlock.
    pub watchdog: Watchdog,
    /// When set, the host raises the abort flag itself if the kernel is still running after
    /// this long (for kernels that may run long between waits, leave it unset).
    pub host_deadline: Option<Duration>,
    /// Re-arm the watchdog record before the launch and read it back after, so that
    /// [`LaunchReport::spins`] counts this launch's back-off rounds (costs a copy each way;
    /// without it a clean launch reads nothing back).
    pub count_spins: bool,
}

impl LaunchConfig {
    /// A 1-D launch in `mode` with blocks of `block_threads` and the mode's default grid.
    pub fn new(mode: LaunchMode, block_threads: usize) -> Self {
        Self {
            mode,
            grid: None,
            block: [block_threads, 1, 1],
            shared_bytes: 0,
            watchdog: Watchdog::default(),
            host_deadline: None,
            count_spins: false,
        }
    }

    /// A plain 1-D launch of `blocks` blocks of `block_threads` threads.
    pub fn plain(blocks: usize, block_threads: usize) -> Self {
        Self::new(LaunchMode::Plain, block_threads).grid(blocks)
    }

    /// The same with a 1-D grid of `blocks`.
    pub fn grid(self, blocks: usize) -> Self {
        self.grid3([blocks, 1, 1])
    }

    /// The same with a 3-D grid.
    pub fn grid3(mut self, grid: Dim3) -> Self {
        self.grid = Some(grid);
        self
    }

    /// The same with a 3-D block.
    pub fn block3(mut self, block: Dim3) -> Self {
        self.block = block;
        self
    }

    /// The same with `bytes` of dynamic shared memory per block.
    pub fn shared(mut self, bytes: u32) -> Self {
        self.shared_bytes = bytes;
        self
    }

    /// The same with another watchdog.
    pub fn watchdog(mut self, w: Watchdog) -> Self {
        self.watchdog = w;
        self
    }

    /// The same with a host-side deadline (see [`LaunchConfig::host_deadline`]).
    pub fn host_deadline(mut self, d: Duration) -> Self {
        self.host_deadline = Some(d);
        self
    }

    /// The same, counting this launch's watchdog back-off rounds (see
    /// [`LaunchConfig::count_spins`]).
    ///
    /// ```
    /// use occupant::cuda::LaunchConfig;
    /// assert!(LaunchConfig::plain(2, 32).count_spins().count_spins);
    /// ```
    pub fn count_spins(mut self) -> Self {
        self.count_spins = true;
        self
    }
}

/// What a launch did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaunchReport {
    /// The kernel launched.
    pub kernel: String,
    /// The mode.
    pub mode: LaunchMode,
    /// The grid chosen, blocks per dimension.
    pub grid: Dim3,
    /// Threads per block, per dimension.
    pub block: Dim3,
    /// Total blocks launched.
    pub blocks: usize,
    /// Dynamic shared memory per block.
    pub shared_bytes: u32,
    /// Co-resident blocks per SM by the occupancy API (modes that asked it).
    pub blocks_per_sm: Option<u32>,
    /// `blocks_per_sm × SMs` (modes that asked the occupancy API).
    pub max_resident: Option<usize>,
    /// Groups that took part, read from `occ_discovery` ([`LaunchMode::Discovery`]).
    pub participants: Option<u32>,
    /// Back-off rounds of all watchdog waits of this launch when it was asked for
    /// ([`LaunchConfig::count_spins`]) or the launch expired; else 0.
    pub spins: u64,
    /// Host wall time from submitting to completion, µs (0 for [`Module::enqueue`]). The work
    /// queued on the stream before the launch (its own setup: discovery's zeroed state, a
    /// persistent program's barrier state; a caller's asynchronous copies) completes before
    /// the clock starts, in every mode, so it is not billed to the kernel.
    pub elapsed_us: f64,
}

impl Module {
    /// Launches `kernel` and waits for it. Errors: [`Error::InvalidLaunch`] (unknown kernel,
    /// argument count or size mismatch, bad shape, cooperative grid too large),
    /// [`Error::Deadlock`] when a watchdog wait timed out, [`Error::Backend`] for driver errors.
    pub fn launch(
        &self,
        kernel: &str,
        cfg: &LaunchConfig,
        args: &[Arg<'_>],
    ) -> Result<LaunchReport> {
        let (k, mut report, mut armed) = self.prepare(kernel, cfg, args)?;
        // The work queued before this launch (discovery's zeroed state, a persistent
        // program's barrier state, a caller's asynchronous memsets) completes first, in every
        // mode alike: the clock covers the kernel only, and launch modes compare fairly (a
        // cooperative launch after an asynchronous reset is not billed for it either). On an
        // idle stream this costs one cuStreamSynchronize of host time, outside the clock.
        self.inner
            .gpu
            .stream
            .synchronize()
            .map_err(|e| driver_err("cuStreamSynchronize", e))?;
        let t0 = Instant::now();
        self.submit(&k, cfg, &report, args)?;
        // With the host-mapped flag a clean launch reads nothing back: the device raises the
        // flag when a wait expires (watchdog.cuh, expire()).
        let fast = self.inner.flag.is_some() && !cfg.count_spins;
        if let (Some(ptr), Some(pinned), false) = (self.inner.ctl, &self.inner.readback, fast) {
            // SAFETY: occ_ctl spans CONTROL_BYTES (checked at load) and so does the pinned
            // buffer, which only this launch (holding the launch lock) uses until the wait ends.
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(
                    pinned.ptr().cast(),
                    ptr,
                    CONTROL_BYTES,
                    self.inner.gpu.stream.cu_stream(),
                )
            }
            .result()
            .map_err(|e| driver_err("cuMemcpyDtoHAsync(occ_ctl)", e))?;
        }
        let raised = self.wait(cfg.host_deadline)?;
        report.elapsed_us = t0.elapsed().as_secs_f64() * 1e6;
        if let (true, Some(flag), Some(ptr)) = (fast, &self.inner.flag, self.inner.ctl) {
            if flag.is_set() || raised {
                let mut b = [0u8; CONTROL_BYTES];
                // SAFETY: occ_ctl spans CONTROL_BYTES; the kernel has completed.
                unsafe { cu::memcpy_dtoh_sync(&mut b[..], ptr) }
                    .map_err(|e| driver_err("cuMemcpyDtoH(occ_ctl)", e))?;
                flag.clear();
                *armed = None; // re-armed before the next launch
                let ctl = Control::from_bytes(&b);
                report.spins = ctl.spins;
                ctl.check().map_err(|e| self.name_waiting_groups(e))?;
            }
        } else if let Some(pinned) = &self.inner.readback {
            let mut b = [0u8; CONTROL_BYTES];
            // SAFETY: the copy into the pinned buffer completed (the stream is idle).
            unsafe { std::ptr::copy_nonoverlapping(pinned.ptr(), b.as_mut_ptr(), CONTROL_BYTES) };
            let ctl = Control::from_bytes(&b);
            *armed = Some(ctl);
            report.spins = ctl.spins;
            ctl.check().map_err(|e| self.name_waiting_groups(e))?;
        }
        if let (LaunchMode::Discovery, Some((ptr, _))) = (cfg.mode, self.inner.discovery) {
            let mut p = [0u32; 1];
            // SAFETY: occ_discovery is at least 4 bytes (checked in prepare).
            unsafe { cu::memcpy_dtoh_sync(&mut p[..], ptr) }
                .map_err(|e| driver_err("cuMemcpyDtoH(occ_discovery)", e))?;
            if p[0] == 0 {
                // Discovery always admits the first group, so no participant means the kernel
                // never ran the protocol.
                return Err(Error::InvalidLaunch(format!(
                    "discovery launch of `{kernel}`: no group took part; the kernel must call occ::discover (discovery.cuh) before its main work"
                )));
            }
            report.participants = Some(p[0]);
        }
        Ok(report)
    }

    /// Completes a deadlock from the watchdog with every block recorded in `occ_waiting`, and
    /// clears that record for the next launch. Any failure here keeps the error as it was.
    fn name_waiting_groups(&self, err: Error) -> Error {
        let (
            Error::Deadlock {
                primitive,
                mut waiting,
                not_started,
                timeout_ms,
            },
            Some((ptr, len)),
        ) = (err.clone(), self.inner.waiting)
        else {
            return err;
        };
        let mut words = vec![0u32; len / 4];
        // SAFETY: occ_waiting spans `len` bytes; the launch has completed.
        if unsafe { cu::memcpy_dtoh_sync(&mut words[..], ptr) }.is_err() {
            return err;
        }
        // SAFETY: as above; cleared so that the next launch starts with no record.
        let _ = unsafe { cu::memset_d8_sync(ptr, 0, len) };
        for (w, bits) in words.iter().enumerate() {
            for b in 0..32 {
                let group = w * 32 + b;
                if bits & (1 << b) != 0 && !waiting.iter().any(|s| s.group == group) {
                    // The record says that this block gave up a wait, not in which primitive.
                    waiting.push(crate::model::WaitSite {
                        group,
                        primitive: "aborted_wait".to_string(),
                    });
                }
            }
        }
        waiting.sort_by_key(|s| s.group);
        Error::Deadlock {
            primitive,
            waiting,
            not_started,
            timeout_ms,
        }
    }

    /// Queues `kernel` without waiting (back-to-back launches). The watchdog is armed, but a
    /// deadlock is not reported: use [`Module::launch`] for kernels that block.
    pub fn enqueue(
        &self,
        kernel: &str,
        cfg: &LaunchConfig,
        args: &[Arg<'_>],
    ) -> Result<LaunchReport> {
        let (k, report, mut armed) = self.prepare(kernel, cfg, args)?;
        self.submit(&k, cfg, &report, args)?;
        if self.inner.flag.is_none() || cfg.count_spins {
            *armed = None; // what the kernel leaves in occ_ctl is unknown: re-arm next time
        }
        // With the flag, a queued kernel whose wait expires raises it, and the next prepare
        // re-arms (after the stream has drained).
        Ok(report)
    }

    #[allow(clippy::type_complexity)]
    fn prepare(
        &self,
        kernel: &str,
        cfg: &LaunchConfig,
        args: &[Arg<'_>],
    ) -> Result<(
        std::sync::Arc<Kernel>,
        LaunchReport,
        std::sync::MutexGuard<'_, Option<Control>>,
    )> {
        let k = self.kernel(kernel)?;
        check_args(&k, args, std::sync::Arc::as_ptr(&self.inner.gpu).cast())?;
        let gpu = &self.inner.gpu;
        gpu.ctx
            .bind_to_thread()
            .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
        let block_threads = shape_total(cfg.block, "block")?;
        if block_threads > gpu.info.max_threads_per_block as usize {
            return Err(Error::InvalidLaunch(format!(
                "block of {block_threads} threads exceeds the device's {}",
                gpu.info.max_threads_per_block
            )));
        }
        k.prepare_block(&gpu.info, block_threads as u32, cfg.shared_bytes)?;
        let mut report = LaunchReport {
            kernel: kernel.to_string(),
            mode: cfg.mode,
            grid: [0; 3],
            block: cfg.block,
            blocks: 0,
            shared_bytes: cfg.shared_bytes,
            blocks_per_sm: None,
            max_resident: None,
            participants: None,
            spins: 0,
            elapsed_us: 0.0,
        };
        let occupancy = |report: &mut LaunchReport| -> Result<usize> {
            let per_sm = k
                .func
                .occupancy_max_active_blocks_per_multiprocessor(
                    block_threads as u32,
                    cfg.shared_bytes as usize,
                    None,
                )
                .map_err(|e| driver_err("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))?;
            let max = per_sm as usize * gpu.info.sm_count as usize;
            report.blocks_per_sm = Some(per_sm);
            report.max_resident = Some(max);
            if max == 0 {
                return Err(Error::InvalidLaunch(format!(
                    "kernel `{kernel}` cannot be resident with {block_threads} threads and {} bytes of shared memory per block",
                    cfg.shared_bytes
                )));
            }
            Ok(max)
        };
        let grid = match (cfg.mode, cfg.grid) {
            (LaunchMode::Plain, None) => {
                return Err(Error::InvalidLaunch("a plain launch needs a grid".into()));
            }
            (LaunchMode::Plain, Some(g)) => g,
            (LaunchMode::OccupancyApi, g) => {
                let max = occupancy(&mut report)?;
                let cap = g
                    .map(|g| shape_total(g, "grid"))
                    .transpose()?
                    .unwrap_or(max);
                [max.min(cap), 1, 1]
            }
            (LaunchMode::Cooperative, g) => {
                let max = occupancy(&mut report)?;
                if !gpu.info.cooperative_launch {
                    return Err(Error::InvalidLaunch(
                        "the device does not support cooperative launches".into(),
                    ));
                }
                let g = g.unwrap_or([max, 1, 1]);
                if shape_total(g, "grid")? > max {
                    return Err(Error::InvalidLaunch(format!(
                        "cooperative grid of {} blocks exceeds the {max} the occupancy API allows",
                        shape_total(g, "grid")?
                    )));
                }
                g
            }
            (LaunchMode::Discovery, g) => {
                match self.inner.discovery {
                    Some((_, len)) if len >= 4 => {}
                    _ => {
                        return Err(Error::InvalidLaunch(format!(
                            "discovery launch of `{kernel}`: the program defines no `occ_discovery` (include discovery.cuh)"
                        )))
                    }
                }
                g.unwrap_or([
                    gpu.info.resident_blocks_bound(block_threads as u32) as usize,
                    1,
                    1,
                ])
            }
        };
        report.blocks = shape_total(grid, "grid")?;
        report.grid = grid;
        let mut armed = self
            .inner
            .launch_lock
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(flag) = &self.inner.flag {
            if flag.is_set() {
                // A queued launch (enqueue) expired: let the stream drain, then re-arm.
                gpu.stream
                    .synchronize()
                    .map_err(|e| driver_err("cuStreamSynchronize", e))?;
                flag.clear();
                *armed = None;
                if let Some((ptr, len)) = self.inner.waiting {
                    // SAFETY: occ_waiting spans len bytes; the stream is idle.
                    unsafe { cu::memset_d8_sync(ptr, 0, len) }
                        .map_err(|e| driver_err("cuMemsetD8(occ_waiting)", e))?;
                }
            }
        }
        if let Some(ptr) = self.inner.ctl {
            let want = Control::armed(&cfg.watchdog);
            if *armed != Some(want) || cfg.count_spins {
                let bytes = want.to_bytes();
                // SAFETY: ptr is occ_ctl (CONTROL_BYTES long); the copy completes before return.
                unsafe { cu::memcpy_htod_sync(ptr, &bytes[..]) }
                    .map_err(|e| driver_err("cuMemcpyHtoD(occ_ctl)", e))?;
                *armed = Some(want);
            }
        }
        if let (LaunchMode::Discovery, Some((ptr, len))) = (cfg.mode, self.inner.discovery) {
            // SAFETY: occ_discovery spans len bytes; ordered before the launch on this stream.
            unsafe { cu::memset_d8_async(ptr, 0, len, gpu.stream.cu_stream()) }
                .map_err(|e| driver_err("cuMemsetD8(occ_discovery)", e))?;
        }
        Ok((k, report, armed))
    }

    fn submit(
        &self,
        k: &Kernel,
        cfg: &LaunchConfig,
        report: &LaunchReport,
        args: &[Arg<'_>],
    ) -> Result<()> {
        let dim = |d: Dim3| (d[0] as u32, d[1] as u32, d[2] as u32);
        let mut values: Vec<u64> = args.iter().map(|a| a.bits).collect();
        let mut params: Vec<*mut c_void> =
            values.iter_mut().map(|v| (v as *mut u64).cast()).collect();
        let stream = self.inner.gpu.stream.cu_stream();
        let f = k.func.cu_function();
        // SAFETY: the function is live (its module is held by self); `params` points at one
        // 8-byte slot per parameter whose size was checked against the kernel's; buffer
        // arguments borrow their buffers for the call, and launch/enqueue order all later
        // frees (cuMemFree synchronises) after the kernel.
        let r = unsafe {
            if cfg.mode == LaunchMode::Cooperative {
                cu::launch_cooperative_kernel(
                    f,
                    dim(report.grid),
                    dim(cfg.block),
                    cfg.shared_bytes,
                    stream,
                    &mut params,
                )
            } else {
                cu::launch_kernel(
                    f,
                    dim(report.grid),
                    dim(cfg.block),
                    cfg.shared_bytes,
                    stream,
                    &mut params,
                )
            }
        };
        r.map_err(|e| match e.0 {
            CUresult::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
            | CUresult::CUDA_ERROR_INVALID_VALUE => Error::InvalidLaunch(format!(
                "{} launch of `{}` rejected by the driver: {e}",
                cfg.mode.name(),
                k.name
            )),
            _ => driver_err("cuLaunchKernel", e),
        })
    }

    /// Polls the stream until the kernel is done; past `host_deadline`, raises occ_ctl.abort
    /// through the side stream so that every device wait gives up. True when it raised it.
    fn wait(&self, host_deadline: Option<Duration>) -> Result<bool> {
        let gpu = &self.inner.gpu;
        let t0 = Instant::now();
        let mut raised = false;
        loop {
            // SAFETY: a live stream handle.
            match unsafe { sys::cuStreamQuery(gpu.stream.cu_stream()) } {
                CUresult::CUDA_SUCCESS => return Ok(raised),
                CUresult::CUDA_ERROR_NOT_READY => {}
                e => return Err(driver_err("cuStreamQuery", cudarc::driver::DriverError(e))),
            }
            let waited = t0.elapsed();
            if let (Some(d), Some(ptr), false) = (host_deadline, self.inner.ctl, raised) {
                if waited > d {
                    let one = [1u32];
                    // SAFETY: offset 0 of occ_ctl is `abort`; the side stream runs concurrently.
                    unsafe { cu::memcpy_htod_async(ptr, &one[..], gpu.side.cu_stream()) }
                        .map_err(|e| driver_err("cuMemcpyHtoDAsync(occ_ctl.abort)", e))?;
                    gpu.side
                        .synchronize()
                        .map_err(|e| driver_err("cuStreamSynchronize", e))?;
                    raised = true;
                }
            }
            if waited < Duration::from_millis(1) {
                std::hint::spin_loop();
            } else {
                std::thread::sleep(Duration::from_micros(20));
            }
        }
    }
}

fn shape_total(d: Dim3, what: &str) -> Result<usize> {
    if d.contains(&0) || d.iter().any(|&x| x > u32::MAX as usize) {
        return Err(Error::InvalidLaunch(format!(
            "{what} {d:?}: every dimension must be in 1..=2^32-1"
        )));
    }
    d.iter()
        .try_fold(1usize, |a, &x| a.checked_mul(x))
        .ok_or_else(|| Error::InvalidLaunch(format!("{what} {d:?} overflows")))
}

fn check_args(k: &Kernel, args: &[Arg<'_>], gpu: *const ()) -> Result<()> {
    if args.len() != k.params.len() {
        return Err(Error::InvalidLaunch(format!(
            "kernel `{}` takes {} parameter(s), {} given",
            k.name,
            k.params.len(),
            args.len()
        )));
    }
    for (i, (a, &size)) in args.iter().zip(&k.params).enumerate() {
        if a.size != size {
            return Err(Error::InvalidLaunch(format!(
                "kernel `{}` parameter {i} is {size} bytes, a {} ({} bytes) was given",
                k.name, a.what, a.size
            )));
        }
        if a.buffer_of.is_some_and(|b| b != gpu) {
            return Err(Error::InvalidLaunch(format!(
                "kernel `{}` parameter {i}: buffer of another GPU",
                k.name
            )));
        }
    }
    Ok(())
}
