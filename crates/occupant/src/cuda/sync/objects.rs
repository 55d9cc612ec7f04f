//! The user-facing host objects, named as on the CPU backend (`occupant::cpu::sync`): each owns
//! the device state of one primitive and names the device-library type that operates it.
//!
//! ```no_run
//! use occupant::cuda::{Gpu, LaunchConfig};
//! use occupant::cuda::sync::Mutex;
//! let gpu = Gpu::open(0)?;
//! let m = Mutex::with_default_kind(&gpu)?; // chosen by the device's machine abstraction
//! let src = format!(r#"#include <occupant.cuh>
//! #include <occupant_sync.cuh>
//! extern "C" __global__ void k(unsigned* state, unsigned* counter) {{
//!   {} m(state);
//!   if (!occ::block_lock(m)) return;
//!   if (threadIdx.x == 0) *counter += 1;
//!   occ::block_unlock(m);
//! }}"#, m.device_type());
//! let module = gpu.compile("k.cu", &src, &Default::default())?;
//! let counter = gpu.alloc_zeroed::<u32>(1)?;
//! module.launch("k", &LaunchConfig::plain(264, 128), &occupant::args![m.arg(), &counter])?;
//! assert_eq!(counter.to_vec()?[0], 264);
//! # Ok::<(), occupant::Error>(())
//! ```

use super::kinds::{BarrierKind, MutexKind, SemaphoreKind};
use super::machine::MachineAbstraction;
use crate::cuda::{Arg, DeviceBuffer, Gpu};
use crate::model::Result;

/// An inter-block barrier's device state (pass [`Barrier::arg`] to the kernel, construct
/// `Barrier::device_type()` from it and the `occ::Env` of discovery). [`Barrier::placed`]
/// puts the state where this GPU serves it fastest in a launch shape.
///
/// A kernel whose blocks meet at a barrier between steps, on as many blocks as are
/// co-resident (discovery), with the fastest kind for the shape at its fastest place:
///
/// ```no_run
/// use occupant::cuda::{Gpu, LaunchConfig, LaunchMode};
/// use occupant::cuda::sync::Barrier;
/// use occupant::model::LaunchShape;
/// let gpu = Gpu::open(0)?;
/// let (blocks, threads) = (264, 1024);
/// let mut bar = Barrier::with_default_kind_placed(&gpu, LaunchShape::new(blocks, threads))?;
/// let src = format!(r#"#include <occupant.cuh>
/// extern "C" __global__ void steps(unsigned* st, unsigned* hits, unsigned n) {{
///   occ::Env env;
///   if (!occ::discover(env, occ::Quiescent, 0u)) return;  // not co-resident: leave
///   {} bar(st, env);
///   for (unsigned s = 0; s < n; ++s) {{
///     if (occ::local_linear_id() == 0u) atomicAdd(&hits[s], 1u);
///     if (!bar.wait()) return;  // false: the watchdog aborted the launch
///   }}
/// }}"#, bar.device_type());
/// let module = gpu.compile("steps.cu", &src, &Default::default())?;
/// let hits = gpu.alloc_zeroed::<u32>(100)?;
/// bar.reset()?; // zeroed state before every launch
/// let cfg = LaunchConfig::new(LaunchMode::Discovery, threads).grid(blocks);
/// let report = module.launch("steps", &cfg, &occupant::args![bar.arg(), &hits, 100u32])?;
/// let took_part = report.participants.unwrap_or(0);
/// assert!(hits.to_vec()?.iter().all(|&h| h == took_part));
/// # Ok::<(), occupant::Error>(())
/// ```
pub struct Barrier {
    pub(super) kind: BarrierKind,
    pub(super) capacity: usize,
    pub(super) state: DeviceBuffer<u32>,
    /// Words from the start of `state` to the state in use (0 unless placed).
    pub(super) offset: usize,
    /// The placement probe's measurements ([`Barrier::placed`]).
    pub(super) places: Option<super::placed_barrier::BarrierPlaces>,
}

impl Barrier {
    /// State for up to `capacity` participating blocks (cluster leaders for the hierarchical
    /// barrier), zeroed.
    pub fn new(gpu: &Gpu, kind: BarrierKind, capacity: usize) -> Result<Self> {
        Ok(Barrier {
            kind,
            capacity,
            state: gpu.alloc_zeroed(kind.state_words(capacity))?,
            offset: 0,
            places: None,
        })
    }
    /// With the device's default kind (its machine abstraction, measured once and stored).
    pub fn with_default_kind(gpu: &Gpu, capacity: usize) -> Result<Self> {
        Self::new(
            gpu,
            MachineAbstraction::for_gpu(gpu)?.defaults.barrier,
            capacity,
        )
    }
    /// The implementation.
    pub fn kind(&self) -> BarrierKind {
        self.kind
    }
    /// Participating blocks it was sized for.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
    /// The device-library type, e.g. `occ::sync::XfBarrier`.
    pub fn device_type(&self) -> &'static str {
        self.kind.device_type()
    }
    /// The device state's whole allocation. A placed barrier's state in use starts
    /// [`offset_words`](Self::offset_words) into it: pass [`arg`](Self::arg) to kernels.
    pub fn state(&self) -> &DeviceBuffer<u32> {
        &self.state
    }
    /// The kernel argument (`unsigned*`): the state in use, at its chosen place.
    pub fn arg(&self) -> Arg<'_> {
        Arg::element_of(&self.state, self.offset).unwrap_or_else(|| Arg::from(&self.state))
    }
    /// Words from the start of [`state`](Self::state) to the state in use (0 unless placed).
    pub fn offset_words(&self) -> usize {
        self.offset
    }
    /// Zeroes the state: required before each launch that uses it.
    pub fn reset(&mut self) -> Result<()> {
        self.state.zero()
    }
}

/// A mutex's device state (pass [`Mutex::arg`] to the kernel). [`Mutex::placed`] puts the
/// state where this GPU hands the lock over fastest.
pub struct Mutex {
    pub(super) kind: MutexKind,
    pub(super) state: DeviceBuffer<u32>,
    /// Words from the start of `state` to the state in use (0 unless placed).
    pub(super) offset: usize,
    /// The placement probe's measurements ([`Mutex::placed`]).
    pub(super) places: Option<super::places::Places>,
}

impl Mutex {
    /// A free mutex.
    pub fn new(gpu: &Gpu, kind: MutexKind) -> Result<Self> {
        Ok(Mutex {
            kind,
            state: gpu.alloc_zeroed(kind.state_words())?,
            offset: 0,
            places: None,
        })
    }
    /// With the device's default kind.
    pub fn with_default_kind(gpu: &Gpu) -> Result<Self> {
        Self::new(gpu, MachineAbstraction::for_gpu(gpu)?.defaults.mutex)
    }
    /// The implementation.
    pub fn kind(&self) -> MutexKind {
        self.kind
    }
    /// The device-library type, e.g. `occ::sync::TicketMutex`.
    pub fn device_type(&self) -> &'static str {
        self.kind.device_type()
    }
    /// The device state's whole allocation. A placed lock's state in use starts
    /// [`offset_words`](Self::offset_words) into it: pass [`arg`](Self::arg) to kernels.
    pub fn state(&self) -> &DeviceBuffer<u32> {
        &self.state
    }
    /// The kernel argument (`unsigned*`): the state in use, at its chosen place.
    pub fn arg(&self) -> Arg<'_> {
        Arg::element_of(&self.state, self.offset).unwrap_or_else(|| Arg::from(&self.state))
    }
    /// Words from the start of [`state`](Self::state) to the state in use (0 unless placed).
    pub fn offset_words(&self) -> usize {
        self.offset
    }
    /// Frees the lock (after a launch that aborted while holding it).
    pub fn reset(&mut self) -> Result<()> {
        self.state.zero()
    }
}

/// A counting semaphore's device state.
pub struct Semaphore {
    kind: SemaphoreKind,
    initial: u32,
    state: DeviceBuffer<u32>,
}

impl Semaphore {
    /// A semaphore with `initial` permits.
    pub fn new(gpu: &Gpu, kind: SemaphoreKind, initial: u32) -> Result<Self> {
        Ok(Semaphore {
            kind,
            initial,
            state: gpu.upload(&kind.initial_state(initial))?,
        })
    }
    /// With the device's default kind.
    pub fn with_default_kind(gpu: &Gpu, initial: u32) -> Result<Self> {
        Self::new(
            gpu,
            MachineAbstraction::for_gpu(gpu)?.defaults.semaphore,
            initial,
        )
    }
    /// The implementation.
    pub fn kind(&self) -> SemaphoreKind {
        self.kind
    }
    /// Its initial value.
    pub fn initial(&self) -> u32 {
        self.initial
    }
    /// The device-library type, e.g. `occ::sync::SleepingSemaphore`.
    pub fn device_type(&self) -> &'static str {
        self.kind.device_type()
    }
    /// The device state, a kernel argument (`unsigned*`).
    pub fn state(&self) -> &DeviceBuffer<u32> {
        &self.state
    }
    /// Restores the initial value.
    pub fn reset(&mut self) -> Result<()> {
        self.state.copy_from(&self.kind.initial_state(self.initial))
    }
}
