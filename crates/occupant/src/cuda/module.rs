//! A compiled and loaded program: [`Module`], its kernels and its watchdog record.

use super::cache::CacheHit;
use super::compile::Compiled;
use super::gpu::{driver_err, Shared};
use super::info::DeviceInfo;
use super::kernel_limits::{check_block, DeviceLimits, KernelLimits, SHARED_WITHOUT_OPT_IN};
use crate::model::{Error, Result};
use cudarc::driver::sys::{self, CUfunction_attribute_enum as FA, CUresult};
use cudarc::driver::{CudaFunction, CudaModule, DevicePtr};
use cudarc::nvrtc::Ptx;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A program compiled by NVRTC and loaded on one GPU. Cheap to clone. Launch with
/// [`Module::launch`]; launches of one module are serialised (they share its `occ_ctl`).
#[derive(Clone)]
pub struct Module {
    pub(crate) inner: Arc<Inner>,
    hit: CacheHit,
}

pub(crate) struct Inner {
    pub(crate) gpu: Arc<Shared>,
    pub(crate) cu: Arc<CudaModule>,
    compiled: Arc<Compiled>,
    /// Device address of `occ_ctl` when the program includes watchdog.cuh.
    pub(crate) ctl: Option<u64>,
    /// Device address and size of `occ_discovery` when the program defines it.
    pub(crate) discovery: Option<(u64, usize)>,
    /// Device address and size of `occ_waiting` (watchdog.cuh): the blocks that gave up a wait.
    pub(crate) waiting: Option<(u64, usize)>,
    kernels: Mutex<HashMap<String, Arc<Kernel>>>,
    /// Held for the whole of a launch; holds what was last written to `occ_ctl`.
    pub(crate) launch_lock: Mutex<Option<super::watchdog::Control>>,
    /// Page-locked host memory `occ_ctl` is read back into, queued right after the kernel
    /// (modules without `occ_ctl_flag`, and launches that count spins).
    pub(crate) readback: Option<Pinned>,
    /// The host-mapped word `occ_ctl_flag` points at: set by the device when a wait expired.
    pub(crate) flag: Option<Mapped>,
}

/// One word of host-mapped (pinned, zero-copy) memory that device code can write
/// (`cuMemHostAlloc(DEVICEMAP)`): the watchdog's "a wait expired" flag.
pub(crate) struct Mapped {
    host: *mut u32,
    dev: u64,
}

// SAFETY: the word is only written by the device and read/cleared under the module's launch
// lock.
unsafe impl Send for Mapped {}
// SAFETY: as above.
unsafe impl Sync for Mapped {}

impl Mapped {
    fn new() -> Result<Mapped> {
        let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
        // SAFETY: out-pointer to a live pointer; the context is current (load_module bound it).
        unsafe { sys::cuMemHostAlloc(&mut p, 128, sys::CU_MEMHOSTALLOC_DEVICEMAP) }
            .result()
            .map_err(|e| driver_err("cuMemHostAlloc(DEVICEMAP)", e))?;
        let mut dev: sys::CUdeviceptr = 0;
        // SAFETY: p was allocated with DEVICEMAP just above.
        let r = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut dev, p, 0) }.result();
        let m = Mapped {
            host: p.cast(),
            dev,
        };
        r.map_err(|e| driver_err("cuMemHostGetDevicePointer", e))?;
        m.clear();
        Ok(m)
    }

    /// The device's view of the word.
    pub(crate) fn device_ptr(&self) -> u64 {
        self.dev
    }

    /// True when the device raised the flag.
    pub(crate) fn is_set(&self) -> bool {
        // SAFETY: a live, aligned word of pinned memory; volatile because the device writes it.
        unsafe { std::ptr::read_volatile(self.host) != 0 }
    }

    /// Lowers the flag (no kernel of the module may be running).
    pub(crate) fn clear(&self) {
        // SAFETY: as in is_set.
        unsafe { std::ptr::write_volatile(self.host, 0) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemHostAlloc, freed once.
        unsafe {
            sys::cuMemFreeHost(self.host.cast());
        }
    }
}

/// A small page-locked host buffer (`cuMemHostAlloc`), for asynchronous read-backs.
pub(crate) struct Pinned(*mut u8);

// SAFETY: the buffer is only accessed under the module's launch lock.
unsafe impl Send for Pinned {}
// SAFETY: as above.
unsafe impl Sync for Pinned {}

impl Pinned {
    fn new(bytes: usize) -> Result<Pinned> {
        let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
        // SAFETY: out-pointer to a live pointer; the context is current (load_module bound it).
        unsafe { sys::cuMemHostAlloc(&mut p, bytes, 0) }
            .result()
            .map_err(|e| driver_err("cuMemHostAlloc", e))?;
        Ok(Pinned(p.cast()))
    }

    pub(crate) fn ptr(&self) -> *mut u8 {
        self.0
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemHostAlloc, freed once.
        unsafe {
            sys::cuMemFreeHost(self.0.cast());
        }
    }
}

/// One kernel of a module, with its parameter sizes.
pub(crate) struct Kernel {
    pub(crate) name: String,
    pub(crate) func: CudaFunction,
    pub(crate) params: Vec<usize>,
    /// Dynamic shared memory the kernel may use now: 48 KiB less its static shared memory,
    /// until raised by an opt-in.
    pub(crate) smem_limit: Mutex<u32>,
    /// Its resource use, for the checks before a launch.
    pub(crate) limits: KernelLimits,
}

/// Resource use of one kernel, as the driver reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KernelAttributes {
    /// Registers per thread.
    pub registers: u32,
    /// Local memory per thread in bytes (register spills and stack).
    pub local_bytes: u32,
    /// Static shared memory per block in bytes.
    pub static_shared_bytes: u32,
    /// Largest block this kernel can be launched with.
    pub max_threads_per_block: u32,
    /// Number of kernel parameters.
    pub params: usize,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("name", &self.name())
            .field("arch", &self.arch())
            .field("watchdog", &self.has_watchdog())
            .field("cache_hit", &self.hit)
            .finish()
    }
}

impl Module {
    pub(crate) fn load(gpu: Arc<Shared>, compiled: Arc<Compiled>, hit: CacheHit) -> Result<Module> {
        let image = match compiled.kind {
            super::ImageKind::Cubin => Ptx::from_binary(compiled.image.clone()),
            super::ImageKind::Ptx => {
                let text = compiled.image.split(|&b| b == 0).next().unwrap_or_default();
                Ptx::from_src(String::from_utf8_lossy(text).into_owned())
            }
        };
        let cu = gpu
            .ctx
            .load_module(image)
            .map_err(|e| driver_err("cuModuleLoadData", e))?;
        let global = |name: &str| -> Result<Option<(u64, usize)>> {
            match cu.get_global(name, &gpu.stream) {
                Ok(view) => {
                    let len = view.len();
                    let (ptr, _sync) = view.device_ptr(&gpu.stream);
                    Ok(Some((ptr, len)))
                }
                Err(e) if e.0 == CUresult::CUDA_ERROR_NOT_FOUND => Ok(None),
                Err(e) => Err(driver_err("cuModuleGetGlobal", e)),
            }
        };
        let ctl = global("occ_ctl")?;
        if let Some((_, len)) = ctl {
            if len != super::watchdog::CONTROL_BYTES {
                return Err(Error::InvalidLaunch(format!(
                    "occ_ctl in `{}` is {len} bytes, the host expects {}: mismatched watchdog.cuh",
                    compiled.name,
                    super::watchdog::CONTROL_BYTES
                )));
            }
        }
        let discovery = global("occ_discovery")?;
        let waiting = global("occ_waiting")?;
        let readback = ctl
            .map(|_| Pinned::new(super::watchdog::CONTROL_BYTES))
            .transpose()?;
        // Without host-mapped memory (or an older device library) every launch reads occ_ctl
        // back instead: slower, equally correct.
        let flag = match (ctl, global("occ_ctl_flag")?) {
            (Some(_), Some((ptr, 8))) => Mapped::new().ok().and_then(|m| {
                let bytes = m.device_ptr().to_ne_bytes();
                // SAFETY: occ_ctl_flag is an 8-byte device pointer; the copy completes here.
                unsafe { cudarc::driver::result::memcpy_htod_sync(ptr, &bytes[..]) }
                    .ok()
                    .map(|_| m)
            }),
            _ => None,
        };
        Ok(Module {
            inner: Arc::new(Inner {
                gpu,
                cu,
                compiled,
                ctl: ctl.map(|(p, _)| p),
                discovery,
                waiting,
                kernels: Mutex::new(HashMap::new()),
                launch_lock: Mutex::new(None),
                readback,
                flag,
            }),
            hit,
        })
    }

    pub(crate) fn from_inner(inner: Arc<Inner>, hit: CacheHit) -> Module {
        Module { inner, hit }
    }

    /// The program's name.
    pub fn name(&self) -> &str {
        &self.inner.compiled.name
    }

    /// The architecture it was compiled for.
    pub fn arch(&self) -> &str {
        &self.inner.compiled.arch
    }

    /// NVRTC's warnings (empty when it had none, or when the image came from the disk cache).
    pub fn log(&self) -> &str {
        &self.inner.compiled.log
    }

    /// Where this module's image came from when it was asked for.
    pub fn cache_hit(&self) -> CacheHit {
        self.hit
    }

    /// NVRTC time of the compile that produced the image (zero if it came from disk).
    pub fn compile_time(&self) -> std::time::Duration {
        self.inner.compiled.compile_time
    }

    /// True when the program includes the watchdog (`occ_ctl`): its waits time out and its
    /// launches report [`Error::Deadlock`].
    pub fn has_watchdog(&self) -> bool {
        self.inner.ctl.is_some()
    }

    /// True when the watchdog record is read back only after a launch whose wait expired (the
    /// device raises a host-mapped flag); false when every launch reads it back (no
    /// host-mapped memory) or the program has no watchdog.
    pub fn watchdog_reads_on_expiry_only(&self) -> bool {
        self.inner.flag.is_some()
    }

    /// A host copy of the module-scope `__device__` variable `name` (its bytes), after the work
    /// queued so far; `None` when the program does not define it. For what a kernel leaves in
    /// a module global (diagnostics, counters, traces).
    ///
    /// ```no_run
    /// # fn main() -> occupant::Result<()> {
    /// let gpu = occupant::cuda::Gpu::open(0)?;
    /// let m = gpu.compile("k.cu", "__device__ unsigned hits[4];", &Default::default())?;
    /// assert_eq!(m.read_global("hits")?.map(|b| b.len()), Some(16));
    /// # Ok(()) }
    /// ```
    pub fn read_global(&self, name: &str) -> Result<Option<Vec<u8>>> {
        let stream = &self.inner.gpu.stream;
        let view = match self.inner.cu.get_global(name, stream) {
            Ok(view) => view,
            Err(e) if e.0 == CUresult::CUDA_ERROR_NOT_FOUND => return Ok(None),
            Err(e) => return Err(driver_err("cuModuleGetGlobal", e)),
        };
        let bytes = stream
            .clone_dtoh(&view)
            .map_err(|e| driver_err("cuMemcpyDtoH", e))?;
        stream
            .synchronize()
            .map_err(|e| driver_err("cuStreamSynchronize", e))?;
        Ok(Some(bytes))
    }

    /// Registers, spills and limits of `kernel`.
    pub fn attributes(&self, kernel: &str) -> Result<KernelAttributes> {
        let k = self.kernel(kernel)?;
        let a = |attr: FA| -> Result<u32> {
            k.func
                .get_attribute(attr)
                .map(|v| v.max(0) as u32)
                .map_err(|e| driver_err("cuFuncGetAttribute", e))
        };
        Ok(KernelAttributes {
            registers: a(FA::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            local_bytes: a(FA::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            static_shared_bytes: a(FA::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            max_threads_per_block: a(FA::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            params: k.params.len(),
        })
    }

    /// How many blocks of `block_threads` threads and `shared_bytes` dynamic shared memory can
    /// be resident on one SM (`cuOccupancyMaxActiveBlocksPerMultiprocessor`).
    pub fn max_active_blocks_per_sm(
        &self,
        kernel: &str,
        block_threads: u32,
        shared_bytes: u32,
    ) -> Result<u32> {
        let k = self.kernel(kernel)?;
        k.allow_shared(shared_bytes)?;
        k.func
            .occupancy_max_active_blocks_per_multiprocessor(
                block_threads,
                shared_bytes as usize,
                None,
            )
            .map_err(|e| driver_err("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))
    }

    /// The kernel `name` (an `extern "C" __global__` function), looked up once.
    pub(crate) fn kernel(&self, name: &str) -> Result<Arc<Kernel>> {
        let mut kernels = self.inner.kernels.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = kernels.get(name) {
            return Ok(k.clone());
        }
        let func = self.inner.cu.load_function(name).map_err(|e| match e.0 {
            CUresult::CUDA_ERROR_NOT_FOUND => Error::InvalidLaunch(format!(
                "module `{}` has no kernel `{name}` (is it `extern \"C\" __global__`?)",
                self.name()
            )),
            _ => driver_err("cuModuleGetFunction", e),
        })?;
        let params = param_sizes(&func);
        // Compile-time clusters of more than 8 blocks (16 on an H100) launch only with the
        // non-portable cluster sizes allowed; harmless for every other kernel, and a device
        // without clusters refuses it (ignored).
        let _ = func.set_attribute(FA::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
        let a = |attr| {
            func.get_attribute(attr)
                .map(|v| v.max(0) as u32)
                .map_err(|e| driver_err("cuFuncGetAttribute", e))
        };
        let limits = KernelLimits {
            registers: a(FA::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            static_shared: a(FA::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            max_threads: a(FA::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        };
        let k = Arc::new(Kernel {
            name: name.to_string(),
            func,
            params,
            smem_limit: Mutex::new(SHARED_WITHOUT_OPT_IN.saturating_sub(limits.static_shared)),
            limits,
        });
        kernels.insert(name.to_string(), k.clone());
        Ok(k)
    }
}

impl Kernel {
    /// Checks that blocks of `block_threads` threads with `dynamic_shared` bytes of dynamic
    /// shared memory can launch on `device` ([`Error::InvalidLaunch`] naming the resource and
    /// the numbers if not), and opts in to the shared memory they need.
    pub(crate) fn prepare_block(
        &self,
        device: &DeviceInfo,
        block_threads: u32,
        dynamic_shared: u32,
    ) -> Result<()> {
        let d = DeviceLimits::from(device);
        match check_block(&self.name, &self.limits, &d, block_threads, dynamic_shared)? {
            Some(bytes) => self.allow_shared(bytes),
            None => Ok(()),
        }
    }

    /// Raises the kernel's dynamic shared-memory limit when `bytes` exceeds it (its static
    /// shared memory counts toward the 48 KiB a block may use without opting in).
    pub(crate) fn allow_shared(&self, bytes: u32) -> Result<()> {
        let mut limit = self.smem_limit.lock().unwrap_or_else(|p| p.into_inner());
        if bytes > *limit {
            self.func
                .set_attribute(
                    FA::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    bytes as i32,
                )
                .map_err(|e| driver_err("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", e))?;
            *limit = bytes;
        }
        Ok(())
    }
}

/// Byte sizes of the kernel's parameters, from `cuFuncGetParamInfo`.
fn param_sizes(func: &CudaFunction) -> Vec<usize> {
    let mut sizes = Vec::new();
    for i in 0..4096 {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: a live function handle and two out-pointers to live integers.
        let r = unsafe { sys::cuFuncGetParamInfo(func.cu_function(), i, &mut offset, &mut size) };
        if r != CUresult::CUDA_SUCCESS {
            break;
        }
        sizes.push(size);
    }
    sizes
}
