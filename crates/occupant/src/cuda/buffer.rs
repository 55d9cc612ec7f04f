//! Typed device memory: [`DeviceBuffer`].

use super::gpu::{driver_err, Gpu, Shared};
use crate::model::{Error, Result};
use cudarc::driver::{CudaSlice, DevicePtr, DeviceRepr, ValidAsZeroBits};
use std::sync::Arc;

mod sealed {
    pub trait Sealed {}
}

/// Element types a [`DeviceBuffer`] may hold: plain numbers, valid for any bit pattern.
pub trait DeviceCopy:
    sealed::Sealed + DeviceRepr + ValidAsZeroBits + Copy + Default + Send + Sync + 'static
{
}

macro_rules! device_copy {
    ($($t:ty),*) => { $(impl sealed::Sealed for $t {} impl DeviceCopy for $t {})* };
}
device_copy!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// A buffer of `T` in device memory, on one [`Gpu`]. Copies are ordered on the GPU's stream and
/// complete before they return.
///
/// ```no_run
/// use occupant::cuda::Gpu;
/// let gpu = Gpu::open(0)?;
/// let buf = gpu.upload(&[1u32, 2, 3])?;
/// assert_eq!(buf.to_vec()?, vec![1, 2, 3]);
/// # Ok::<(), occupant::Error>(())
/// ```
pub struct DeviceBuffer<T: DeviceCopy> {
    pub(crate) slice: CudaSlice<T>,
    gpu: Arc<Shared>,
}

impl Gpu {
    /// A zero-filled buffer of `len` elements.
    pub fn alloc_zeroed<T: DeviceCopy>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let slice = self
            .shared
            .stream
            .alloc_zeros::<T>(len.max(1))
            .map_err(|e| driver_err("cuMemAlloc", e))?;
        Ok(DeviceBuffer {
            slice,
            gpu: self.shared.clone(),
        })
    }

    /// A buffer holding a copy of `data`.
    pub fn upload<T: DeviceCopy>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let mut b = self.alloc_zeroed::<T>(data.len())?;
        b.copy_from(data)?;
        Ok(b)
    }
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.slice.len()
    }

    /// True when the buffer holds no element (never: allocations hold at least one).
    pub fn is_empty(&self) -> bool {
        self.slice.len() == 0
    }

    /// Overwrites the first `data.len()` elements. [`Error::InvalidLaunch`] if `data` is longer.
    pub fn copy_from(&mut self, data: &[T]) -> Result<()> {
        if data.len() > self.len() {
            return Err(Error::InvalidLaunch(format!(
                "copy of {} elements into a buffer of {}",
                data.len(),
                self.len()
            )));
        }
        let mut dst = self.slice.slice_mut(0..data.len());
        self.gpu
            .stream
            .memcpy_htod(data, &mut dst)
            .map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        self.gpu
            .stream
            .synchronize()
            .map_err(|e| driver_err("cuStreamSynchronize", e))
    }

    /// Sets every element to zero.
    pub fn zero(&mut self) -> Result<()> {
        self.gpu
            .stream
            .memset_zeros(&mut self.slice)
            .map_err(|e| driver_err("cuMemsetD8", e))
    }

    /// A host copy of the whole buffer (waits for queued work first).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let v = self
            .gpu
            .stream
            .clone_dtoh(&self.slice)
            .map_err(|e| driver_err("cuMemcpyDtoH", e))?;
        self.gpu
            .stream
            .synchronize()
            .map_err(|e| driver_err("cuStreamSynchronize", e))?;
        Ok(v)
    }

    /// The device address (for kernel arguments).
    pub fn device_ptr(&self) -> u64 {
        let (ptr, _sync) = self.slice.device_ptr(&self.gpu.stream);
        ptr
    }

    /// Identifies the GPU this buffer lives on (compared by [`Arg`](super::Arg) at launch).
    pub(crate) fn ctx_id(&self) -> *const () {
        Arc::as_ptr(&self.gpu).cast()
    }
}
