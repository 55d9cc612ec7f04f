//! The host scheduler of a cooperative launch: [`Scheduler`].

use super::lane::Lane;
use super::mapped::{Mailbox, Word};
use crate::cuda::args::Arg;
use crate::cuda::buffer::DeviceBuffer;
use crate::cuda::gpu::{driver_err, Gpu};
use crate::cuda::module::{Kernel, Module};
use crate::cuda::watchdog::{Control, CONTROL_BYTES};
use crate::model::{Error, Result, Watchdog};
use cudarc::driver::result as cu;
use serde::Serialize;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Join slots of `occ::coop::State` (`OCC_COOP_JOIN_SLOTS`, coop.cuh's default).
pub const JOIN_SLOTS: usize = 4096;
/// Transmitted 64-bit words per group (`OCC_COOP_TX_WORDS`, coop.cuh's default).
pub const TX_WORDS: usize = 8;
/// Word of `occ::coop::State` holding the barrier epoch (barriers completed).
const BAR_EPOCH_WORD: usize = 48;
/// Word of `occ::coop::State` the barrier master reads the target from (`host_target`).
const HOST_TARGET_WORD: usize = 51;
/// Size of `occ::coop::State` with the default slots and words.
pub const STATE_BYTES: usize = 320 + 5 * 4 * JOIN_SLOTS + 8 * TX_WORDS * JOIN_SLOTS;

/// How a cooperative kernel is launched.
///
/// ```
/// use occupant::cuda::coop::CoopConfig;
/// let c = CoopConfig::new(256).groups(64).shared(96 * 1024);
/// assert_eq!((c.groups, c.block_threads, c.shared_bytes), (Some(64), 256, 96 * 1024));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoopConfig {
    /// N, the most groups (blocks); `None`: every block the occupancy API says is co-resident.
    pub groups: Option<u32>,
    /// Threads per block.
    pub block_threads: u32,
    /// Dynamic shared memory per block (also reserves the slot: a block the other kernel
    /// launches with as much fits exactly into a slot a killed group gave up).
    pub shared_bytes: u32,
    /// The deadline of every device wait (the barrier, the resize lock, a joiner's wait).
    pub watchdog: Watchdog,
}

impl CoopConfig {
    /// Blocks of `block_threads`, as many as are co-resident, no dynamic shared memory.
    pub fn new(block_threads: u32) -> Self {
        Self {
            groups: None,
            block_threads,
            shared_bytes: 0,
            watchdog: Watchdog::default(),
        }
    }

    /// The same with at most `n` groups.
    pub fn groups(mut self, n: u32) -> Self {
        self.groups = Some(n);
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
}

/// One gather: the scheduler asked the kernel for groups and got them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Gather {
    /// Groups asked for.
    pub requested: u32,
    /// Groups that left (their slots are free); fewer only when the kernel cannot give more
    /// (group 0 stays).
    pub gathered: u32,
    /// Active groups before the request.
    pub active_before: u32,
    /// From writing the request to seeing the last of the groups leave, µs.
    pub micros: f64,
    /// True when the kernel's work ended meanwhile (every slot is free).
    pub kernel_finished: bool,
}

/// What a cooperative launch did, read when it ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoopReport {
    /// N: the groups of the first launch.
    pub groups: u32,
    /// Threads per group.
    pub block_threads: u32,
    /// Groups killed (each left the kernel and freed its slot).
    pub killed: u32,
    /// Groups forked.
    pub forked: u32,
    /// Joiner blocks launched by [`Scheduler::give_back`].
    pub joiners_launched: u32,
    /// Joiner blocks that left unforked (the work ended first).
    pub joiners_exited: u32,
    /// Barriers completed (the barrier epoch at the end).
    pub barriers: u32,
    /// Active groups at the end.
    pub active_at_end: u32,
    /// From the first launch to the last block's end (host clock), µs.
    pub elapsed_us: f64,
    /// Device address of the launch's scheduler state (allocated per launch): where the
    /// barrier's arrival word lives, kept to relate a launch's time to it.
    pub state_addr: u64,
}

/// The host scheduler of one cooperative launch (device side: `occ::coop` in coop.cuh).
///
/// [`Scheduler::start`] launches the kernel with N co-resident groups on its own stream;
/// [`Scheduler::take`] asks it for groups (the target: stored in the mailbox and copied by DMA
/// into the device state, where the barrier master reads it) and returns once that many have left, so that another kernel can be launched
/// into their slots (on a [`Lane`]); [`Scheduler::give_back`] raises the target again and
/// launches as many new blocks of the same kernel on a second stream, which join at the kernel's
/// next `request_fork` (or resizing barrier) with the next ids and the transmitted values;
/// [`Scheduler::finish`] waits for all of it. The kernel's first two parameters are
/// `occ::coop::State*` and `occ::coop::Mailbox*`, supplied here; `args` are the rest.
///
/// Every wait is bounded: device waits by the watchdog (`resizing_barrier`, `coop_scheduler`),
/// gathers by their own timeout ([`Error::Resource`] with the numbers, the request withdrawn, the
/// kernel left running), the end by a host deadline that raises the launch's abort flag.
/// The module must not be launched by anything else while a scheduler runs on it (they would
/// share its watchdog record). Set `CUDA_MODULE_LOADING=EAGER` (or load every module before
/// [`Scheduler::start`]): a lazily loaded kernel cannot start beside a running one.
///
/// ```no_run
/// use occupant::cuda::coop::{CoopConfig, Scheduler};
/// use occupant::cuda::Gpu;
/// use std::time::Duration;
/// let gpu = Gpu::open(0)?;
/// let src = r#"#include <occupant.cuh>
/// extern "C" __global__ void spin(occ::coop::State* st, occ::coop::Mailbox* mb, unsigned rounds) {
///   __shared__ occ::coop::Group g;
///   if (!occ::coop::enter(g, st, mb)) return;
///   for (unsigned r = g.forked ? occ::coop::received<unsigned>(g, 0) : 0u; r < rounds; ++r) {
///     occ::coop::transmit(g, 0, r + 1u);
///     if (!occ::coop::resizing_barrier(g, true)) return;
///   }
///   occ::coop::leave(g);
/// }"#;
/// let m = gpu.compile("spin.cu", src, &Default::default())?;
/// let mut s = Scheduler::start(&m, "spin", &CoopConfig::new(128), &occupant::args![100000u32])?;
/// let got = s.take(8, Duration::from_millis(500))?;
/// s.give_back(got.gathered)?;
/// let report = s.finish(Duration::from_secs(10))?;
/// println!("{report:?}");
/// # Ok::<(), occupant::Error>(())
/// ```
pub struct Scheduler<'a> {
    gpu: Gpu,
    module: Module,
    kernel: Arc<Kernel>,
    state: DeviceBuffer<u32>,
    mailbox: Mailbox,
    args: Vec<u64>,
    coop: Lane,
    /// Streams of joiner launches: a launch whose groups live on keeps its stream busy, so each
    /// give_back takes an idle one (or a new one).
    join: Vec<Lane>,
    n: u32,
    block_threads: u32,
    shared_bytes: u32,
    started: Instant,
    joiners_launched: u32,
    _args: PhantomData<&'a ()>,
}

impl<'a> Scheduler<'a> {
    /// Launches `kernel` of `module` as a cooperative kernel. Errors: [`Error::InvalidLaunch`]
    /// (unknown kernel, wrong arguments, more groups than are co-resident or than the join
    /// ring holds), driver errors.
    pub fn start(
        module: &Module,
        kernel: &str,
        cfg: &CoopConfig,
        args: &[Arg<'a>],
    ) -> Result<Scheduler<'a>> {
        let gpu = Gpu {
            shared: module.inner.gpu.clone(),
        };
        let k = module.kernel(kernel)?;
        k.prepare_block(&gpu.shared.info, cfg.block_threads, cfg.shared_bytes)?;
        if k.params.len() != args.len() + 2 || k.params.iter().take(2).any(|&s| s != 8) {
            return Err(Error::InvalidLaunch(format!(
                "cooperative kernel `{kernel}` must take (occ::coop::State*, occ::coop::Mailbox*, ...) and {} more argument(s); it takes {} parameter(s)",
                args.len(),
                k.params.len()
            )));
        }
        for (i, (a, &size)) in args.iter().zip(&k.params[2..]).enumerate() {
            if a.size != size {
                return Err(Error::InvalidLaunch(format!(
                    "kernel `{kernel}` parameter {} is {size} bytes, a {} ({} bytes) was given",
                    i + 2,
                    a.what,
                    a.size
                )));
            }
        }
        let per_sm =
            module.max_active_blocks_per_sm(kernel, cfg.block_threads, cfg.shared_bytes)?;
        let resident = per_sm * gpu.info().sm_count;
        let n = cfg.groups.unwrap_or(resident);
        if n == 0 || n > resident || n as usize > JOIN_SLOTS {
            return Err(Error::InvalidLaunch(format!(
                "cooperative launch of `{kernel}` with {n} groups: 1..={} are co-resident ({per_sm} per SM × {} SMs, join ring {JOIN_SLOTS})",
                resident.min(JOIN_SLOTS as u32),
                gpu.info().sm_count
            )));
        }
        bind(module)?;
        let mut state = gpu.alloc_zeroed::<u32>(STATE_BYTES / 4)?;
        // limit, initial, active (words 0, 1, 3), bar_lt (50: the first barrier completes at n
        // arrivals) and host_target (51): coop.cuh.
        let mut init = [0u32; 52];
        (init[0], init[1], init[3], init[50], init[51]) = (n, n, n, n, n);
        state.copy_from(&init)?;
        gpu.synchronize()?;
        bind(module)?;
        let mailbox = Mailbox::new()?;
        mailbox.store(Word::Target, n);
        mailbox.store(Word::Active, n);
        let coop = Lane::new(&gpu, None)?;
        let join = vec![Lane::new(&gpu, None)?];
        arm(module, &cfg.watchdog)?;
        let mut values = vec![state.device_ptr(), mailbox.device_ptr()];
        values.extend(args.iter().map(|a| a.bits));
        let started = Instant::now();
        coop.launch_raw(&k, n, cfg.block_threads, cfg.shared_bytes, &values)?;
        Ok(Scheduler {
            gpu,
            module: module.clone(),
            kernel: k,
            state,
            mailbox,
            args: values,
            coop,
            join,
            n,
            block_threads: cfg.block_threads,
            shared_bytes: cfg.shared_bytes,
            started,
            joiners_launched: 0,
            _args: PhantomData,
        })
    }

    /// N, the groups of the first launch.
    pub fn groups(&self) -> u32 {
        self.n
    }

    /// M as the device last published it.
    pub fn active(&self) -> u32 {
        self.mailbox.load(Word::Active)
    }

    /// True once every group left the kernel's work.
    pub fn work_finished(&self) -> bool {
        self.mailbox.load(Word::Finished) != 0
    }

    /// Resizing barriers passed so far, as the barrier master last reported them (every 64).
    pub fn barriers(&self) -> u32 {
        self.mailbox.load(Word::Barriers)
    }

    /// Asks the kernel for `k` groups (at most M − 1: group 0 stays) and waits until they
    /// have left (after waiting for the groups given back before to join). [`Error::Resource`] when they did not within `timeout` (the request is then
    /// withdrawn and the kernel goes on with the groups it has).
    pub fn take(&mut self, k: u32, timeout: Duration) -> Result<Gather> {
        // First let the groups given back join (they do at the kernel's next fork point).
        let t_join = Instant::now();
        while self.mailbox.load(Word::Forked) + self.mailbox.load(Word::JoinersExited)
            < self.joiners_launched
            && self.mailbox.load(Word::Finished) == 0
        {
            let waited = t_join.elapsed();
            if waited > timeout {
                return Err(Error::Resource(format!(
                    "cooperative scheduler: {} of the {} groups given back to kernel `{}` have not joined after {:.1} ms (no fork point reached)",
                    self.joiners_launched
                        - self.mailbox.load(Word::Forked)
                        - self.mailbox.load(Word::JoinersExited),
                    self.joiners_launched,
                    self.kernel.name,
                    waited.as_secs_f64() * 1e3
                )));
            }
            pause(waited);
        }
        let active = self.mailbox.load(Word::Active);
        let killed0 = self.mailbox.load(Word::Killed);
        let target = active.saturating_sub(k).max(1);
        let want = active - target;
        let t0 = Instant::now();
        self.set_target(target)?;
        self.mailbox
            .store(Word::Seq, self.mailbox.load(Word::Seq).wrapping_add(1));
        loop {
            let got = self.mailbox.load(Word::Killed).wrapping_sub(killed0);
            if got >= want {
                return Ok(Gather {
                    requested: k,
                    gathered: want,
                    active_before: active,
                    micros: t0.elapsed().as_secs_f64() * 1e6,
                    kernel_finished: false,
                });
            }
            if self.mailbox.load(Word::Finished) != 0 {
                return Ok(Gather {
                    requested: k,
                    gathered: got,
                    active_before: active,
                    micros: t0.elapsed().as_secs_f64() * 1e6,
                    kernel_finished: true,
                });
            }
            let waited = t0.elapsed();
            if waited > timeout {
                self.set_target(self.n)?;
                return Err(Error::Resource(format!(
                    "cooperative scheduler: asked kernel `{}` for {k} group(s), gathered {got} of {want} in {:.1} ms (active {} → target {target}, {} resizing barrier(s) passed so far): the kernel offered no more groups back; request withdrawn",
                    self.kernel.name,
                    waited.as_secs_f64() * 1e3,
                    active,
                    self.mailbox.load(Word::Barriers)
                )));
            }
            pause(waited);
        }
    }

    /// Gives `k` groups back: raises the target to N and launches `k` new blocks of the kernel
    /// on the join stream; they join at the kernel's next fork point (in launch order, with the
    /// next ids). Launch them after the other kernel's end (e.g. [`Lane::synchronize`]), or they
    /// wait in the hardware queue for its slots.
    pub fn give_back(&mut self, k: u32) -> Result<()> {
        // The target is in place on the device before the joiners can be forked.
        self.set_target(self.n)?;
        if k == 0 || self.work_finished() {
            return Ok(());
        }
        let mut idle = None;
        for (i, l) in self.join.iter().enumerate() {
            if l.is_idle()? {
                idle = Some(i);
                break;
            }
        }
        let i = match idle {
            Some(i) => i,
            None => {
                self.join.push(Lane::new(&self.gpu, None)?);
                self.join.len() - 1
            }
        };
        self.join[i].launch_raw(
            &self.kernel,
            k,
            self.block_threads,
            self.shared_bytes,
            &self.args,
        )?;
        self.joiners_launched += k;
        Ok(())
    }

    /// Waits for the kernel and every joiner to end; past `deadline` raises the abort flag so
    /// every device wait gives up. [`Error::Deadlock`] when a device wait timed out.
    pub fn finish(self, deadline: Duration) -> Result<CoopReport> {
        // The mailbox is raised even if the copy fails; the launch's own error (below) is the
        // one to report then.
        let target_raised = self.set_target(self.n);
        let mut raised = false;
        loop {
            let mut idle = self.coop.is_idle()?;
            for l in &self.join {
                idle = idle && l.is_idle()?;
            }
            if idle {
                break;
            }
            let waited = self.started.elapsed();
            if waited > deadline && !raised {
                abort(&self.module)?;
                raised = true;
            }
            pause(waited);
        }
        let elapsed_us = self.started.elapsed().as_secs_f64() * 1e6;
        let ctl = read_ctl(&self.module)?;
        disarm(&self.module);
        let report = CoopReport {
            groups: self.n,
            block_threads: self.block_threads,
            killed: self.mailbox.load(Word::Killed),
            forked: self.mailbox.load(Word::Forked),
            joiners_launched: self.joiners_launched,
            joiners_exited: self.mailbox.load(Word::JoinersExited),
            barriers: self.state.to_vec()?[BAR_EPOCH_WORD],
            active_at_end: self.mailbox.load(Word::Active),
            elapsed_us,
            state_addr: self.state.device_ptr(),
        };
        if let Some(c) = ctl {
            c.check()?;
        }
        target_raised?;
        Ok(report)
    }
}

impl Scheduler<'_> {
    /// The new target, where the device reads it: the mailbox (`offer_kill`, `query`, forks;
    /// over PCIe) and `State::host_target` (the barrier master; device memory), the latter by
    /// a copy on the side stream beside the kernel, waited for.
    fn set_target(&self, t: u32) -> Result<()> {
        self.mailbox.store(Word::Target, t);
        bind(&self.module)?;
        let side = &self.module.inner.gpu.side;
        let word = [t];
        let dst = self.state.device_ptr() + (HOST_TARGET_WORD * 4) as u64;
        // SAFETY: the state buffer spans STATE_BYTES > word 51; the copy reads `word` before it
        // returns (pageable source) and is waited for below; the kernel only reads the word.
        unsafe { cu::memcpy_htod_async(dst, &word[..], side.cu_stream()) }
            .map_err(|e| driver_err("cuMemcpyHtoDAsync(host_target)", e))?;
        side.synchronize()
            .map_err(|e| driver_err("cuStreamSynchronize", e))
    }
}

/// Spin for the first 200 µs of a wait, then sleep 10 µs per poll.
fn pause(waited: Duration) {
    if waited < Duration::from_micros(200) {
        std::hint::spin_loop();
    } else {
        std::thread::sleep(Duration::from_micros(10));
    }
}

/// Makes the module's context current on this thread (raw driver calls use the current one).
fn bind(module: &Module) -> Result<()> {
    module
        .inner
        .gpu
        .ctx
        .bind_to_thread()
        .map_err(|e| driver_err("cuCtxSetCurrent", e))
}

fn arm(module: &Module, w: &Watchdog) -> Result<()> {
    bind(module)?;
    if let Some(ptr) = module.inner.ctl {
        let bytes = Control::armed(w).to_bytes();
        // SAFETY: occ_ctl spans CONTROL_BYTES; the copy completes before return; nothing of
        // this module runs (the caller owns it for the scheduler's lifetime).
        unsafe { cu::memcpy_htod_sync(ptr, &bytes[..]) }
            .map_err(|e| driver_err("cuMemcpyHtoD(occ_ctl)", e))?;
        disarm(module);
    }
    Ok(())
}

/// Makes the module's next ordinary launch rewrite its watchdog record.
fn disarm(module: &Module) {
    *module
        .inner
        .launch_lock
        .lock()
        .unwrap_or_else(|p| p.into_inner()) = None;
}

fn abort(module: &Module) -> Result<()> {
    bind(module)?;
    if let Some(ptr) = module.inner.ctl {
        let side = &module.inner.gpu.side;
        let one = [1u32];
        // SAFETY: offset 0 of occ_ctl is `abort`; the side stream runs beside the kernel.
        unsafe { cu::memcpy_htod_async(ptr, &one[..], side.cu_stream()) }
            .map_err(|e| driver_err("cuMemcpyHtoDAsync(occ_ctl.abort)", e))?;
        side.synchronize()
            .map_err(|e| driver_err("cuStreamSynchronize", e))?;
    }
    Ok(())
}

fn read_ctl(module: &Module) -> Result<Option<Control>> {
    bind(module)?;
    let Some(ptr) = module.inner.ctl else {
        return Ok(None);
    };
    let mut b = [0u8; CONTROL_BYTES];
    // SAFETY: occ_ctl spans CONTROL_BYTES; every kernel of the launch has ended.
    unsafe { cu::memcpy_dtoh_sync(&mut b[..], ptr) }
        .map_err(|e| driver_err("cuMemcpyDtoH(occ_ctl)", e))?;
    Ok(Some(Control::from_bytes(&b)))
}
