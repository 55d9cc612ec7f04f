//! The host side of `steal.cuh`: the work-stealing queues and counters of a cooperative launch,
//! seeded before each launch and checked after it.

use occupant::cuda::coop::CoopConfig;
use occupant::cuda::{Arg, DeviceBuffer, Gpu, Module};
use occupant::{Error, Result};
use std::time::Duration;

/// Words of the counter block (`kStealWords`).
const WORDS: usize = 128;
const PENDING: usize = 0;
const QUEUED: usize = 32;
/// Pool allocation counters (`kStealAlloc0`, `kStealAlloc1`).
pub(crate) const ALLOC0: usize = 64;
pub(crate) const ALLOC1: usize = 65;
const ERROR: usize = 66;
const TASKS: usize = 67;
/// Task slots per queue.
pub(crate) const QUEUE_SLOTS: u32 = 512;
/// An idle group that sees no task finish for this long gives up (`kErrIdle`).
pub(crate) const IDLE: Duration = Duration::from_secs(10);

/// The queues (one per possible group id) and counters of a work-stealing kernel.
pub(crate) struct StealBuffers {
    gpu: Gpu,
    pub ctr: DeviceBuffer<u32>,
    pub queues: DeviceBuffer<u32>,
    pub items: DeviceBuffer<u32>,
    pub nq: u32,
}

impl StealBuffers {
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Ok(Self {
            gpu: gpu.clone(),
            ctr: gpu.alloc_zeroed(WORDS)?,
            queues: gpu.alloc_zeroed(32)?,
            items: gpu.alloc_zeroed(QUEUE_SLOTS as usize)?,
            nq: 1,
        })
    }

    /// The most groups a launch of `kernel` with `cfg` can have (the scheduler's N).
    pub fn groups_for(gpu: &Gpu, module: &Module, kernel: &str, cfg: &CoopConfig) -> Result<u32> {
        match cfg.groups {
            Some(n) => Ok(n),
            None => Ok(module.max_active_blocks_per_sm(
                kernel,
                cfg.block_threads,
                cfg.shared_bytes,
            )? * gpu.info().sm_count),
        }
    }

    /// Queues for `nq` groups; task `seeds[i]` into queue `i % nq`; the pool counters start
    /// at `alloc0` and 0; pending = queued = seeds.
    pub fn reset(&mut self, nq: u32, seeds: &[u32], alloc0: u32) -> Result<()> {
        let nq = nq.max(1);
        if nq != self.nq {
            self.queues = self.gpu.alloc_zeroed(32 * nq as usize)?;
            self.items = self.gpu.alloc_zeroed((QUEUE_SLOTS * nq) as usize)?;
            self.nq = nq;
        }
        let mut q = vec![0u32; 32 * nq as usize];
        let mut items = vec![0u32; (QUEUE_SLOTS * nq) as usize];
        for (i, &t) in seeds.iter().enumerate() {
            let k = i % nq as usize;
            let tail = q[32 * k + 2];
            if tail >= QUEUE_SLOTS {
                return Err(Error::Input(format!(
                    "{} seed tasks do not fit {nq} queues of {QUEUE_SLOTS}",
                    seeds.len()
                )));
            }
            items[k * QUEUE_SLOTS as usize + tail as usize] = t;
            q[32 * k + 2] = tail + 1;
        }
        self.queues.copy_from(&q)?;
        self.items.copy_from(&items)?;
        let mut c = vec![0u32; WORDS];
        c[PENDING] = seeds.len() as u32;
        c[QUEUED] = seeds.len() as u32;
        c[ALLOC0] = alloc0;
        self.ctr.copy_from(&c)?;
        Ok(())
    }

    /// The kernel arguments `ctr, queues, items, nq, qcap, idle_ns`.
    pub fn args(&self) -> Vec<Arg<'_>> {
        vec![
            Arg::from(&self.ctr),
            Arg::from(&self.queues),
            Arg::from(&self.items),
            Arg::from(self.nq),
            Arg::from(QUEUE_SLOTS),
            Arg::from(IDLE.as_nanos() as u64),
        ]
    }

    /// After a launch: the counters, or an error naming a raised flag or unfinished tasks.
    pub fn check(&self) -> Result<Vec<u32>> {
        let c = self.ctr.to_vec()?;
        let e = c[ERROR];
        if e != 0 || c[PENDING] != 0 {
            let mut what = Vec::new();
            if e & 1 != 0 {
                what.push(format!("a task queue overflowed ({QUEUE_SLOTS} slots)"));
            }
            if e & 2 != 0 {
                what.push("the task pool overflowed".to_string());
            }
            if e & 4 != 0 {
                what.push(format!(
                    "an idle group saw no task finish for {} s",
                    IDLE.as_secs()
                ));
            }
            if c[PENDING] != 0 {
                what.push(format!("{} task(s) never finished", c[PENDING]));
            }
            return Err(Error::Resource(format!(
                "work stealing: {} ({} tasks processed)",
                what.join("; "),
                c[TASKS]
            )));
        }
        Ok(c)
    }
}
