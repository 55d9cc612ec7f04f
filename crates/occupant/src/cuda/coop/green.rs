//! Green contexts (CUDA 12.4+): the vendor's static SM partitioning, the third comparator of
//! the multitasking experiments.

use crate::cuda::gpu::{driver_err, Gpu};
use crate::cuda::probe;
use crate::model::{Error, Result};
use cudarc::driver::sys::{self, CUdevResource, CUdevResourceType};
use cudarc::driver::{result as cu, CudaContext};

/// Splits device `ordinal`'s SMs with green contexts (`cuDevSmResourceSplitByCount`,
/// `cuGreenCtxCreate`): returns `(rest, other)`, a [`Gpu`] on the SMs left over and one on a
/// group of at least `other_sms` SMs (the driver rounds to its granularity). Each `Gpu`'s
/// [`DeviceInfo::sm_count`](crate::cuda::DeviceInfo::sm_count) is its partition's, so
/// occupancy-sized grids fit it. Memory is per `Gpu` (allocate on the one that uses it).
/// [`Error::NoDevice`] without a driver, [`Error::Backend`] when the driver has no green
/// contexts.
///
/// ```no_run
/// let (rest, other) = occupant::cuda::coop::green_split(0, 32)?;
/// println!("{} + {} SMs", rest.info().sm_count, other.info().sm_count);
/// # Ok::<(), occupant::Error>(())
/// ```
pub fn green_split(ordinal: usize, other_sms: u32) -> Result<(Gpu, Gpu)> {
    if !probe::driver_present() {
        return Err(Error::NoDevice {
            reason: "the CUDA driver library (libcuda.so) was not found".into(),
        });
    }
    let opened = std::panic::catch_unwind(|| -> Result<(Gpu, Gpu)> {
        cu::init().map_err(|e| driver_err("cuInit", e))?;
        let dev = cu::device::get(ordinal as i32).map_err(|e| driver_err("cuDeviceGet", e))?;
        // SAFETY: plain-old-data out-parameters, zero-initialised, filled by the driver.
        unsafe {
            let mut all: CUdevResource = std::mem::zeroed();
            sys::cuDeviceGetDevResource(dev, &mut all, CUdevResourceType::CU_DEV_RESOURCE_TYPE_SM)
                .result()
                .map_err(|e| driver_err("cuDeviceGetDevResource", e))?;
            let mut group: CUdevResource = std::mem::zeroed();
            let mut rest: CUdevResource = std::mem::zeroed();
            let mut nb = 1u32;
            sys::cuDevSmResourceSplitByCount(&mut group, &mut nb, &all, &mut rest, 0, other_sms)
                .result()
                .map_err(|e| driver_err("cuDevSmResourceSplitByCount", e))?;
            if nb != 1 {
                return Err(Error::Resource(format!(
                    "green contexts: no group of {other_sms} SMs could be split off"
                )));
            }
            let make = |r: &mut CUdevResource| -> Result<Gpu> {
                let mut desc: sys::CUdevResourceDesc = std::ptr::null_mut();
                sys::cuDevResourceGenerateDesc(&mut desc, r, 1)
                    .result()
                    .map_err(|e| driver_err("cuDevResourceGenerateDesc", e))?;
                let mut g: sys::CUgreenCtx = std::ptr::null_mut();
                sys::cuGreenCtxCreate(
                    &mut g,
                    desc,
                    dev,
                    sys::CUgreenCtxCreate_flags::CU_GREEN_CTX_DEFAULT_STREAM as u32,
                )
                .result()
                .map_err(|e| driver_err("cuGreenCtxCreate", e))?;
                let mut ctx: sys::CUcontext = std::ptr::null_mut();
                sys::cuCtxFromGreenCtx(&mut ctx, g)
                    .result()
                    .map_err(|e| driver_err("cuCtxFromGreenCtx", e))?;
                let ctx = CudaContext::from_raw_context(ordinal, dev, ctx)
                    .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
                Gpu::from_context(ctx, ordinal, r.__bindgen_anon_1.sm.smCount)
            };
            let other = make(&mut group)?;
            let rest = make(&mut rest)?;
            Ok((rest, other))
        }
    });
    opened.unwrap_or_else(|_| {
        Err(Error::Backend {
            backend: "cuda",
            call: "cuGreenCtxCreate".into(),
            message: "the driver has no green-context entry points".into(),
        })
    })
}
