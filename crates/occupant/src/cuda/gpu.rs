//! Opening a GPU: [`Gpu`], the context and stream everything else runs on.

use super::cache::{self, CacheHit};
use super::compile::CompileOptions;
use super::info::DeviceInfo;
use super::module::Module;
use super::probe;
use crate::model::{Error, Result};
use cudarc::driver::sys::{CUdevice_attribute as A, CUresult};
use cudarc::driver::{result as cu, CudaContext, CudaStream, DriverError};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// An opened CUDA device: a context, one stream all work is ordered on, and the device's
/// [`DeviceInfo`]. Cheap to clone (shared).
///
/// ```no_run
/// use occupant::cuda::{CompileOptions, Gpu};
/// let gpu = Gpu::open(0)?;
/// println!("{}", gpu.info());
/// let m = gpu.compile("k.cu", "extern \"C\" __global__ void k() {}", &CompileOptions::default())?;
/// # Ok::<(), occupant::Error>(())
/// ```
#[derive(Clone)]
pub struct Gpu {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    /// A second stream, used only to raise a running kernel's abort flag.
    pub(crate) side: Arc<CudaStream>,
    pub(crate) info: DeviceInfo,
    /// Loaded modules by (name, compiled image); weak, so dropping a module unloads it.
    modules: Mutex<HashMap<(String, usize), std::sync::Weak<super::module::Inner>>>,
}

/// Maps a driver error to [`Error::Backend`].
pub(crate) fn driver_err(call: &str, e: DriverError) -> Error {
    Error::Backend {
        backend: "cuda",
        call: call.to_string(),
        message: e.to_string(),
    }
}

impl Gpu {
    /// Opens device `ordinal`. Returns [`Error::NoDevice`] — never panics — when the driver
    /// library is missing, the driver finds no GPU, or `ordinal` is out of range.
    pub fn open(ordinal: usize) -> Result<Gpu> {
        if !probe::driver_present() {
            return Err(Error::NoDevice {
                reason: "the CUDA driver library (libcuda.so) was not found".into(),
            });
        }
        let no_device = |e: DriverError| Error::NoDevice {
            reason: format!("the CUDA driver found no usable GPU ({e})"),
        };
        // A driver older than these bindings lacks symbols, and cudarc panics on a missing symbol.
        let opened = std::panic::catch_unwind(|| -> Result<_> {
            cu::init().map_err(no_device)?;
            let count = cu::device::get_count().map_err(no_device)?;
            if ordinal >= count.max(0) as usize {
                return Err(Error::NoDevice {
                    reason: format!("device {ordinal} requested, the driver sees {count}"),
                });
            }
            let ctx = CudaContext::new(ordinal).map_err(|e| match e.0 {
                CUresult::CUDA_ERROR_NO_DEVICE | CUresult::CUDA_ERROR_INVALID_DEVICE => {
                    no_device(e)
                }
                _ => driver_err("cuCtxCreate", e),
            })?;
            // One stream orders all work; cudarc's per-buffer events are not needed.
            // SAFETY: called before any buffer exists on this context.
            unsafe { ctx.disable_event_tracking() };
            let stream = ctx
                .new_stream()
                .map_err(|e| driver_err("cuStreamCreate", e))?;
            let side = ctx
                .new_stream()
                .map_err(|e| driver_err("cuStreamCreate", e))?;
            let info = read_info(&ctx, ordinal)?;
            Ok((ctx, stream, side, info))
        });
        let (ctx, stream, side, info) = opened.unwrap_or_else(|_| {
            Err(Error::NoDevice {
                reason: "the CUDA driver is older than CUDA 13 (a driver entry point is missing)"
                    .into(),
            })
        })?;
        Ok(Gpu {
            shared: Arc::new(Shared {
                ctx,
                stream,
                side,
                info,
                modules: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// A `Gpu` on an existing context (a green context's, see `coop::green_split`) whose
    /// kernels see `sm_count` SMs (`DeviceInfo::sm_count` is set to it).
    pub(crate) fn from_context(
        ctx: Arc<CudaContext>,
        ordinal: usize,
        sm_count: u32,
    ) -> Result<Gpu> {
        // SAFETY: called before any buffer exists on this context.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx
            .new_stream()
            .map_err(|e| driver_err("cuStreamCreate", e))?;
        let side = ctx
            .new_stream()
            .map_err(|e| driver_err("cuStreamCreate", e))?;
        let mut info = read_info(&ctx, ordinal)?;
        info.sm_count = sm_count;
        Ok(Gpu {
            shared: Arc::new(Shared {
                ctx,
                stream,
                side,
                info,
                modules: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// The device's properties.
    pub fn info(&self) -> &DeviceInfo {
        &self.shared.info
    }

    /// Compiles `source` (named `name` in error logs) for this device with NVRTC and loads it,
    /// using the compile cache (memory, then disk) and a per-device module cache.
    /// `opts.arch` defaults to the device's architecture.
    pub fn compile(&self, name: &str, source: &str, opts: &CompileOptions) -> Result<Module> {
        let arch = opts
            .arch
            .clone()
            .unwrap_or_else(|| self.shared.info.arch.clone());
        let (compiled, hit) = cache::compile_cached(name, source, opts, &arch)?;
        let key = (name.to_string(), Arc::as_ptr(&compiled) as usize);
        let mut modules = self
            .shared
            .modules
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(inner) = modules.get(&key).and_then(std::sync::Weak::upgrade) {
            return Ok(Module::from_inner(inner, CacheHit::Memory));
        }
        modules.retain(|_, w| w.strong_count() > 0);
        let m = Module::load(self.shared.clone(), compiled, hit)?;
        modules.insert(key, Arc::downgrade(&m.inner));
        Ok(m)
    }

    /// Sets aside up to `bytes` of the L2 cache for persisting accesses (`cuCtxSetLimit`,
    /// `CU_LIMIT_PERSISTING_L2_CACHE_SIZE`): lines loaded with an L2 `evict_last` policy (or
    /// under an access policy window) are then kept there against other traffic, e.g. another
    /// kernel streaming through L2; normal accesses use the portion while persisting ones do
    /// not. Returns the size set: `bytes` clamped to the device's maximum (0 where it has
    /// none).
    pub fn set_persisting_l2(&self, bytes: usize) -> Result<usize> {
        let ctx = &self.shared.ctx;
        ctx.bind_to_thread()
            .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
        let max = ctx
            .attribute(A::CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE)
            .map_err(|e| driver_err("cuDeviceGetAttribute", e))?
            .max(0) as usize;
        let b = bytes.min(max);
        // SAFETY: the context is current; the limit is a plain value.
        unsafe {
            cudarc::driver::sys::cuCtxSetLimit(
                cudarc::driver::sys::CUlimit::CU_LIMIT_PERSISTING_L2_CACHE_SIZE,
                b,
            )
        }
        .result()
        .map_err(|e| driver_err("cuCtxSetLimit", e))?;
        Ok(b)
    }

    /// Demotes every persisting line in L2 to normal (`cuCtxResetPersistingL2Cache`), so that
    /// what ran with [`Gpu::set_persisting_l2`] leaves nothing held behind.
    pub fn reset_persisting_l2(&self) -> Result<()> {
        self.shared
            .ctx
            .bind_to_thread()
            .map_err(|e| driver_err("cuCtxSetCurrent", e))?;
        // SAFETY: the context is current.
        unsafe { cudarc::driver::sys::cuCtxResetPersistingL2Cache() }
            .result()
            .map_err(|e| driver_err("cuCtxResetPersistingL2Cache", e))
    }

    /// Waits until all work queued on this device's stream is done.
    pub fn synchronize(&self) -> Result<()> {
        self.shared
            .stream
            .synchronize()
            .map_err(|e| driver_err("cuStreamSynchronize", e))
    }
}

fn read_info(ctx: &Arc<CudaContext>, ordinal: usize) -> Result<DeviceInfo> {
    let attr = |a: A| -> Result<u32> {
        ctx.attribute(a)
            .map(|v| v.max(0) as u32)
            .map_err(|e| driver_err("cuDeviceGetAttribute", e))
    };
    let (major, minor) = ctx
        .compute_capability()
        .map_err(|e| driver_err("cuDeviceGetAttribute", e))?;
    let mut driver = 0;
    // SAFETY: out-pointer to a live integer.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut driver) };
    Ok(DeviceInfo {
        ordinal,
        name: ctx.name().map_err(|e| driver_err("cuDeviceGetName", e))?,
        compute_capability: (major, minor),
        arch: format!("sm_{major}{minor}"),
        sm_count: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        total_memory: ctx
            .total_mem()
            .map_err(|e| driver_err("cuDeviceTotalMem", e))? as u64,
        clock_khz: attr(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?,
        memory_clock_khz: attr(A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)?,
        memory_bus_bits: attr(A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)?,
        l2_bytes: attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
        max_threads_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        max_threads_per_sm: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
        max_blocks_per_sm: attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
        max_shared_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
        shared_per_sm: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
        registers_per_sm: attr(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)?,
        cooperative_launch: attr(A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)? != 0,
        driver_version: format!("{}.{}", driver / 1000, (driver % 1000) / 10),
        nvrtc_version: super::compile::nvrtc_version()
            .ok()
            .map(|(a, b)| format!("{a}.{b}")),
    })
}
