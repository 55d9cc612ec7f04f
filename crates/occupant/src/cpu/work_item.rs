//! The work-item handle a CPU kernel receives: its ids, the group barrier, the wait policy.

use super::group::{BarrierAt, GroupInfo, GroupOps, ItemYielder};
use super::wait::Wait;
use super::watchdog::{unwind, CpuWaiter, Unwind};
use crate::model::Dim3;
use std::panic::Location;

/// One work-item of a running kernel (the argument of a CPU kernel closure).
///
/// Ids follow OpenCL: per dimension `d` (0 = x, fastest), `global_id(d) = group_id(d) *
/// local_size(d) + local_id(d)`. Dimensions beyond the launch's have size 1 and id 0.
/// A `WorkItem` cannot leave its thread (it is neither `Send` nor `Sync`).
pub struct WorkItem<'a> {
    pub(crate) info: &'a GroupInfo<'a>,
    pub(crate) ops: &'a dyn GroupOps,
    pub(crate) local: Dim3,
    pub(crate) local_linear: usize,
    /// Copies of the group's geometry, so that id arithmetic stays in registers.
    pub(crate) global_base: Dim3,
    pub(crate) global_size: Dim3,
    /// Linear global id, kept up to date incrementally by the group's plain loop.
    pub(crate) global_linear: usize,
    /// Set when this work-item runs as a coroutine; null on the group's main stack.
    pub(crate) yielder: *const ItemYielder,
}

impl<'a> WorkItem<'a> {
    /// Number of dimensions of the launch (1–3).
    #[inline]
    pub fn dims(&self) -> usize {
        self.info.range.dims()
    }

    /// Local id in dimension `d`.
    #[inline]
    pub fn local_id(&self, d: usize) -> usize {
        self.local[d]
    }

    /// Local id, linearised (x fastest).
    #[inline]
    pub fn local_linear_id(&self) -> usize {
        self.local_linear
    }

    /// Work-group id in dimension `d`.
    #[inline]
    pub fn group_id(&self, d: usize) -> usize {
        self.info.group_ids[d]
    }

    /// Work-group id, linearised (x fastest).
    #[inline]
    pub fn group_linear_id(&self) -> usize {
        self.info.group_linear
    }

    /// Global id in dimension `d`.
    #[inline]
    pub fn global_id(&self, d: usize) -> usize {
        self.global_base[d] + self.local[d]
    }

    /// Global id, linearised (x fastest).
    #[inline]
    pub fn global_linear_id(&self) -> usize {
        self.global_linear
    }

    /// Work-group size in dimension `d`.
    #[inline]
    pub fn local_size(&self, d: usize) -> usize {
        self.info.range.local_size()[d]
    }

    /// Work-items per group.
    #[inline]
    pub fn local_count(&self) -> usize {
        self.info.local_count
    }

    /// Number of groups in dimension `d`.
    #[inline]
    pub fn num_groups(&self, d: usize) -> usize {
        self.info.range.num_groups()[d]
    }

    /// Total number of groups.
    #[inline]
    pub fn group_count(&self) -> usize {
        self.info.group_count
    }

    /// The occupancy hint: the most groups of this launch that can be occupant at once — the
    /// compute units the executor runs it on (`OccupancyBound { compute_units: n }`: `min(n,
    /// groups)`; `Serialized`: 1; `Fair`: every group; `Adversarial`: the host's cores). The
    /// CPU twin of the occupancy API's bound that the CUDA backend passes to discovery.
    #[inline]
    pub fn occupancy_hint(&self) -> usize {
        self.info.occupancy_hint
    }

    /// Global size in dimension `d`.
    #[inline]
    pub fn global_size(&self, d: usize) -> usize {
        self.global_size[d]
    }

    /// The group's wait policy: every spin loop in a kernel goes through it.
    #[inline]
    pub fn waiter(&self) -> &CpuWaiter<'a> {
        &self.info.waiter
    }

    /// Spins until `cond()` holds, under the watchdog (shorthand for `waiter().spin_until`).
    pub fn wait_until<F: FnMut() -> bool>(&self, primitive: &'static str, cond: F) {
        self.info.waiter.spin_until(primitive, cond)
    }

    /// Work-group barrier: returns when every work-item of the group has reached this barrier.
    ///
    /// On the CPU this is a coroutine switch. The first barrier of a group turns its other
    /// work-items into coroutines (a kernel that never calls `barrier()` runs as a plain loop).
    /// Every work-item must reach the same barrier (same source location) the same number of
    /// times; otherwise the launch fails with [`Error::BarrierDivergence`](crate::Error).
    ///
    /// The switch is inlined into the calling function: a work-item that suspends from the
    /// kernel's own frame resumes without a mispredicted return (measured on the 2-core host:
    /// ~5 ns per work-item per barrier, against ~24 ns when the suspend sat one call deeper).
    /// Keep `barrier()` in the kernel body or in `#[inline]` helpers for the fast path.
    #[track_caller]
    #[inline(always)]
    pub fn barrier(&self) {
        self.barrier_at(Location::caller())
    }

    #[inline(always)]
    fn barrier_at(&self, at: BarrierAt) {
        if self.info.local_count == 1 {
            return;
        }
        if self.yielder.is_null() {
            self.barrier_on_main_stack(at);
            return;
        }
        self.barrier_checks_if_needed();
        // SAFETY: the yielder belongs to the coroutine this work-item runs on, which is alive
        // while this work-item (created inside it) exists.
        unsafe { (*self.yielder).suspend(Some(at)) };
    }

    /// Leaves on abort; perturbs under the adversarial model.
    #[cold]
    #[inline(never)]
    fn barrier_checks(&self) {
        self.info.leave_if_aborted();
        if self.info.adversarial {
            self.info.waiter.maybe_perturb();
        }
    }

    /// A barrier reached by a work-item on the group's main stack: work-item 0 runs the others
    /// to this barrier; any other work-item there means the ones before it finished without it.
    #[inline(never)]
    fn barrier_on_main_stack(&self, at: BarrierAt) {
        self.barrier_checks_if_needed();
        if self.local_linear != 0 {
            unwind(Unwind::Divergence(format!(
                "work-item {} reached the barrier at {at}, but work-item(s) 0..{} had already finished without reaching it",
                self.local_linear, self.local_linear
            )));
        }
        self.ops.run_others_to(at);
    }

    #[inline(always)]
    fn barrier_checks_if_needed(&self) {
        if self.info.adversarial || self.info.state.aborted() {
            self.barrier_checks();
        }
    }

    /// Broadcasts `value` from work-item `src` (local linear id) to the whole group.
    ///
    /// Every work-item of the group must call it; it contains two barriers.
    #[track_caller]
    pub fn broadcast(&self, src: usize, value: u64) -> u64 {
        let at = Location::caller();
        if self.local_linear == src {
            self.info.broadcast.set(value);
        }
        self.barrier_at(at);
        let v = self.info.broadcast.get();
        self.barrier_at(at);
        v
    }
}
