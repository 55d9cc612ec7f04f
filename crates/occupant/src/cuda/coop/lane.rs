//! [`Lane`]: a stream of its own, for kernels that run beside a cooperative kernel.

use crate::cuda::args::Arg;
use crate::cuda::gpu::{driver_err, Gpu};
use crate::cuda::module::{Kernel, Module};
use crate::model::{Error, Result};
use cudarc::driver::result as cu;
use cudarc::driver::sys::{self, CUresult};
use cudarc::driver::CudaStream;
use std::ffi::c_void;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A non-blocking stream for launches beside a running cooperative kernel (the other kernel
/// of a multitasking run, joiner blocks, a comparator on a high-priority stream). Launches are
/// asynchronous; [`Lane::synchronize`] waits with a deadline.
///
/// ```no_run
/// use occupant::cuda::coop::Lane;
/// use occupant::cuda::Gpu;
/// use std::time::Duration;
/// let gpu = Gpu::open(0)?;
/// let m = gpu.compile("k.cu", "extern \"C\" __global__ void k(unsigned x) {}", &Default::default())?;
/// let lane = Lane::new(&gpu, Lane::greatest_priority(&gpu)?)?;
/// lane.launch(&m, "k", 4, 32, 0, &occupant::args![1u32])?;
/// lane.synchronize(Duration::from_secs(1))?;
/// # Ok::<(), occupant::Error>(())
/// ```
pub struct Lane {
    stream: Arc<CudaStream>,
}

impl Lane {
    /// A new non-blocking stream; `priority` as `cuStreamCreateWithPriority` takes it (lower
    /// is more urgent), `None` the default.
    pub fn new(gpu: &Gpu, priority: Option<i32>) -> Result<Lane> {
        let ctx = &gpu.shared.ctx;
        let stream = match priority {
            Some(p) => ctx.new_stream_with_priority(p),
            None => ctx.new_stream(),
        }
        .map_err(|e| driver_err("cuStreamCreate", e))?;
        Ok(Lane { stream })
    }

    /// The most urgent stream priority the context allows (`cuCtxGetStreamPriorityRange`).
    pub fn greatest_priority(gpu: &Gpu) -> Result<Option<i32>> {
        gpu.shared
            .ctx
            .bind_to_thread()
            .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
        let (mut least, mut greatest) = (0i32, 0i32);
        // SAFETY: two out-pointers to live integers; the context is current.
        unsafe { sys::cuCtxGetStreamPriorityRange(&mut least, &mut greatest) }
            .result()
            .map_err(|e| driver_err("cuCtxGetStreamPriorityRange", e))?;
        Ok(Some(greatest))
    }

    /// Launches `kernel` with `blocks` blocks of `threads` threads and `shared` bytes of
    /// dynamic shared memory, without waiting. Checks the arguments like [`Module::launch`].
    pub fn launch(
        &self,
        module: &Module,
        kernel: &str,
        blocks: u32,
        threads: u32,
        shared: u32,
        args: &[Arg<'_>],
    ) -> Result<()> {
        let k = module.kernel(kernel)?;
        k.prepare_block(&module.inner.gpu.info, threads, shared)?;
        if args.len() != k.params.len() || args.iter().zip(&k.params).any(|(a, &s)| a.size != s) {
            return Err(Error::InvalidLaunch(format!(
                "kernel `{kernel}` takes parameters of {:?} bytes, {:?} given",
                k.params,
                args.iter().map(|a| a.size).collect::<Vec<_>>()
            )));
        }
        let values: Vec<u64> = args.iter().map(|a| a.bits).collect();
        self.launch_raw(&k, blocks, threads, shared, &values)
    }

    pub(crate) fn launch_raw(
        &self,
        k: &Kernel,
        blocks: u32,
        threads: u32,
        shared: u32,
        values: &[u64],
    ) -> Result<()> {
        if blocks == 0 {
            return Err(Error::InvalidLaunch(format!(
                "launch of `{}` with 0 blocks",
                k.name
            )));
        }
        self.stream
            .context()
            .bind_to_thread()
            .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
        let mut values = values.to_vec();
        let mut params: Vec<*mut c_void> =
            values.iter_mut().map(|v| (v as *mut u64).cast()).collect();
        // SAFETY: a live function; one 8-byte slot per parameter whose size the caller checked;
        // the buffers behind pointer arguments outlive the launch (the caller's borrows).
        unsafe {
            cu::launch_kernel(
                k.func.cu_function(),
                (blocks, 1, 1),
                (threads, 1, 1),
                shared,
                self.stream.cu_stream(),
                &mut params,
            )
        }
        .map_err(|e| driver_err("cuLaunchKernel", e))
    }

    /// True when everything launched on this lane has ended.
    pub fn is_idle(&self) -> Result<bool> {
        // SAFETY: a live stream handle.
        match unsafe { sys::cuStreamQuery(self.stream.cu_stream()) } {
            CUresult::CUDA_SUCCESS => Ok(true),
            CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            e => Err(driver_err("cuStreamQuery", cudarc::driver::DriverError(e))),
        }
    }

    /// Waits (spinning, then sleeping 10 µs per poll) until the lane is idle; returns how long
    /// it waited. [`Error::Resource`] past `deadline` (the work stays queued).
    pub fn synchronize(&self, deadline: Duration) -> Result<Duration> {
        let t0 = Instant::now();
        loop {
            if self.is_idle()? {
                return Ok(t0.elapsed());
            }
            let waited = t0.elapsed();
            if waited > deadline {
                return Err(Error::Resource(format!(
                    "a kernel on a side stream did not end within {:.1} ms",
                    deadline.as_secs_f64() * 1e3
                )));
            }
            if waited < Duration::from_micros(200) {
                std::hint::spin_loop();
            } else {
                std::thread::sleep(Duration::from_micros(10));
            }
        }
    }
}
