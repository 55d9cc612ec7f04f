//! Tools for host-driven iteration loops (the multi-kernel way of separating iterations):
//! [`PinnedScalar`], a page-locked slot for reading one value back after each iteration, and
//! [`LaunchGraph`], a sequence of launches captured once as a CUDA graph and replayed.
//!
//! ```no_run
//! use occupant::cuda::{Gpu, LaunchConfig};
//! let gpu = Gpu::open(0)?;
//! let m = gpu.compile("inc.cu", r#"extern "C" __global__ void inc(unsigned* p) {
//!   if (threadIdx.x == 0) atomicAdd(p, 1u); }"#, &Default::default())?;
//! let counter = gpu.alloc_zeroed::<u32>(1)?;
//! let cfg = LaunchConfig::plain(4, 32);
//! let graph = gpu.capture(|| {
//!     m.enqueue("inc", &cfg, &occupant::args![&counter])?;
//!     m.enqueue("inc", &cfg, &occupant::args![&counter])?;
//!     Ok(())
//! })?;
//! graph.launch()?;
//! graph.launch()?;
//! let flag = gpu.pinned_scalar::<u32>()?;
//! assert_eq!(flag.read(&counter, 0)?, 16);
//! # Ok::<(), occupant::Error>(())
//! ```

use super::gpu::driver_err;
use super::{DeviceBuffer, DeviceCopy, Gpu};
use crate::model::{Error, Result};
use cudarc::driver::sys::{self, CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::CudaGraph;

/// One page-locked host value of type `T`, for reading a device value back with the least
/// latency (an asynchronous copy into pinned memory and one stream synchronisation).
pub struct PinnedScalar<T: DeviceCopy> {
    ptr: *mut T,
    gpu: Gpu,
}

// SAFETY: the slot is only written by copies that `read` (which takes &self and waits for
// them) queues; reads of it happen after the copy completed.
unsafe impl<T: DeviceCopy> Send for PinnedScalar<T> {}

impl Gpu {
    /// A page-locked slot for one `T` ([`PinnedScalar::read`]).
    pub fn pinned_scalar<T: DeviceCopy>(&self) -> Result<PinnedScalar<T>> {
        self.shared
            .ctx
            .bind_to_thread()
            .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
        let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
        // SAFETY: out-pointer to a live pointer; the context is current.
        unsafe { sys::cuMemHostAlloc(&mut p, std::mem::size_of::<T>().max(4), 0) }
            .result()
            .map_err(|e| driver_err("cuMemHostAlloc", e))?;
        Ok(PinnedScalar {
            ptr: p.cast(),
            gpu: self.clone(),
        })
    }

    /// Captures the launches `record` queues (with [`Module::enqueue`](super::Module::enqueue))
    /// into a CUDA graph, without running them, and instantiates it. The modules launched must
    /// not include the watchdog (`occ_ctl`): arming it is a synchronous copy, which a capture
    /// cannot hold. Errors from `record` end the capture and are returned.
    pub fn capture<F: FnOnce() -> Result<()>>(&self, record: F) -> Result<LaunchGraph> {
        let stream = &self.shared.stream;
        stream
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
            .map_err(|e| driver_err("cuStreamBeginCapture", e))?;
        let recorded = record();
        let ended = stream.end_capture(CUgraphInstantiate_flags(0));
        recorded?;
        let graph = ended
            .map_err(|e| driver_err("cuStreamEndCapture/cuGraphInstantiate", e))?
            .ok_or_else(|| Error::InvalidLaunch("the capture recorded no work".into()))?;
        graph.upload().map_err(|e| driver_err("cuGraphUpload", e))?;
        Ok(LaunchGraph { graph })
    }
}

impl<T: DeviceCopy> PinnedScalar<T> {
    /// Queues a copy of `buf[index]` after all queued work, waits for it and returns it.
    /// [`Error::InvalidLaunch`] when `index` is out of range.
    pub fn read(&self, buf: &DeviceBuffer<T>, index: usize) -> Result<T> {
        if index >= buf.len() {
            return Err(Error::InvalidLaunch(format!(
                "read of element {index} of a buffer of {}",
                buf.len()
            )));
        }
        let size = std::mem::size_of::<T>();
        let src = buf.device_ptr() + (index * size) as u64;
        let stream = &self.gpu.shared.stream;
        // SAFETY: src is inside the buffer (checked); ptr is a pinned allocation of >= size
        // bytes owned by self; the copy completes before the value is read below.
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(self.ptr.cast(), src, size, stream.cu_stream())
                .result()
                .map_err(|e| driver_err("cuMemcpyDtoHAsync", e))?;
        }
        stream
            .synchronize()
            .map_err(|e| driver_err("cuStreamSynchronize", e))?;
        // SAFETY: the copy above has completed; T is valid for any bit pattern.
        Ok(unsafe { std::ptr::read_volatile(self.ptr) })
    }
}

impl<T: DeviceCopy> Drop for PinnedScalar<T> {
    fn drop(&mut self) {
        let _ = self.gpu.shared.ctx.bind_to_thread();
        // SAFETY: allocated by cuMemHostAlloc, freed once; no copy into it is pending (read
        // waits for its copy).
        unsafe {
            sys::cuMemFreeHost(self.ptr.cast());
        }
    }
}

/// Launches captured once as a CUDA graph ([`Gpu::capture`]); each [`LaunchGraph::launch`]
/// replays them all, queued on the GPU's stream.
pub struct LaunchGraph {
    graph: CudaGraph,
}

impl LaunchGraph {
    /// Queues one replay (returns without waiting; [`Gpu::synchronize`] or a read waits).
    pub fn launch(&self) -> Result<()> {
        self.graph
            .launch()
            .map_err(|e| driver_err("cuGraphLaunch", e))
    }
}
