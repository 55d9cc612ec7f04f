//! The team's shared state (the CPU twin of `occ::fj::Team`): local memory of the group.

use super::thread::Thread;
use crate::cpu::LocalMemory;
use std::cell::{Cell, RefCell};

/// A region body with its lifetime erased: valid while the master waits inside `parallel`.
pub(crate) type BodyPtr = *const (dyn for<'x> Fn(&Thread<'x>) + 'static);

/// The state a fork-join group shares: the region being run, the team barrier, the
/// reduction and worksharing slots, and the data-sharing stack (a shared-memory arena and a
/// global spill area). Create one per group in the launch's `init` closure and hand it to
/// [`run`](super::run) from every work-item.
///
/// ```
/// use occupant::cpu::forkjoin::Team;
/// use occupant::cpu::LocalMemory;
/// let team = Team::new(512, 8192);
/// assert_eq!(team.stack_capacity(), 512);
/// assert!(team.local_bytes() >= 512);
/// ```
pub struct Team {
    // The region, published by the master (fork).
    pub(crate) body: Cell<Option<BodyPtr>>,
    pub(crate) nthreads: Cell<usize>,
    pub(crate) gen: Cell<u64>,
    pub(crate) joined: Cell<usize>,
    /// 0 running, 1 the master has finished, 2 work-item 0 has left: everyone leaves.
    pub(crate) terminate: Cell<u8>,
    pub(crate) workers: Cell<usize>,
    // The team barrier.
    pub(crate) bar_count: Cell<usize>,
    pub(crate) bar_gen: Cell<u64>,
    // Reductions (double-buffered per-thread slots) and dynamic schedules.
    pub(crate) red: RefCell<[Vec<Cell<u64>>; 2]>,
    pub(crate) dyn_next: [Cell<u64>; 2],
    // Arrival checks: barriers passed by the region's threads.
    pub(crate) bars_min: Cell<u64>,
    pub(crate) bars_max: Cell<u64>,
    // The data-sharing stack.
    pub(crate) stack: Box<[Cell<u64>]>,
    pub(crate) sp: Cell<usize>,
    pub(crate) spill: Box<[Cell<u64>]>,
    pub(crate) spill_sp: Cell<usize>,
    pub(crate) spilled: Cell<usize>,
}

impl Team {
    /// A team whose data-sharing stack has `stack_bytes` of local (shared) memory and
    /// `spill_bytes` of global spill area, each in 8-byte slots.
    pub fn new(stack_bytes: usize, spill_bytes: usize) -> Self {
        let words = |b: usize| (0..b / 8).map(|_| Cell::new(0u64)).collect::<Box<[_]>>();
        Self {
            body: Cell::new(None),
            nthreads: Cell::new(0),
            gen: Cell::new(0),
            joined: Cell::new(0),
            terminate: Cell::new(0),
            workers: Cell::new(0),
            bar_count: Cell::new(0),
            bar_gen: Cell::new(0),
            red: RefCell::new([Vec::new(), Vec::new()]),
            dyn_next: [Cell::new(0), Cell::new(0)],
            bars_min: Cell::new(u64::MAX),
            bars_max: Cell::new(0),
            stack: words(stack_bytes),
            sp: Cell::new(0),
            spill: words(spill_bytes),
            spill_sp: Cell::new(0),
            spilled: Cell::new(0),
        }
    }

    /// Bytes of the shared part of the data-sharing stack.
    pub fn stack_capacity(&self) -> usize {
        self.stack.len() * 8
    }

    /// Bytes of the global spill area.
    pub fn spill_capacity(&self) -> usize {
        self.spill.len() * 8
    }

    /// Resets the per-launch state (every work-item calls it first; idempotent).
    pub(crate) fn reset(&self, workers: usize) {
        if self.workers.get() == workers && self.red.borrow()[0].len() == workers {
            return;
        }
        self.workers.set(workers);
        let slots = || (0..workers).map(|_| Cell::new(0u64)).collect::<Vec<_>>();
        *self.red.borrow_mut() = [slots(), slots()];
    }
}

impl LocalMemory for Team {
    fn local_bytes(&self) -> usize {
        // The shared stack and the per-thread reduction slots live in local memory; the spill
        // area is global memory.
        self.stack.len() * 8 + 2 * 8 * self.red.borrow()[0].len() + 128
    }
}
