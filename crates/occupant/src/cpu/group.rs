//! Running one work-group: a plain loop over its work-items until the first `barrier()`, then
//! the other work-items as coroutines, resumed one after another at each barrier (Clover).
//!
//! Work-item 0 always runs on the compute unit's own stack. When it reaches a barrier, the
//! group's other work-items start (or resume) as coroutines, each running until it reaches a
//! barrier — which must be the same one — or finishes (divergence). Then work-item 0 goes on.
//! When work-item 0 finishes, the others are resumed to their end.
//!
//! The coroutines outlive the group: a compute unit keeps them for the next group of the same
//! launch ([`UnitCoroutines`]). A coroutine runs one work-item after another — work-item `k`
//! of each group it is given — and suspends with `None` between them, so a launch creates
//! `local_count - 1` coroutines per compute unit, not per group.

use super::stack_pool::StackPool;
use super::watchdog::{unwind, CpuWaiter, LaunchState, Unwind};
use super::work_item::WorkItem;
use crate::model::{delinearize, linearize, Dim3, NDRange};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::cell::{Cell, RefCell};
use std::panic::Location;
use std::sync::atomic::AtomicUsize;

/// Which barrier a work-item waits at: its source location.
pub(crate) type BarrierAt = &'static Location<'static>;
/// What a coroutine is resumed with: the group whose work-item it runs (null: leave).
pub(crate) type GroupPtr = *const ();
/// What a coroutine suspends with: the barrier it waits at, or `None` when its work-item
/// has finished.
pub(crate) type ItemYielder = Yielder<GroupPtr, Option<BarrierAt>>;
pub(crate) type ItemCoroutine = Coroutine<GroupPtr, Option<BarrierAt>, (), DefaultStack>;

/// The coroutines of one compute unit, kept across the groups it runs in one launch.
pub(crate) type UnitCoroutines = Vec<ItemCoroutine>;

/// Ends a compute unit's coroutines (each is between two work-items, or was abandoned by a
/// failed group) and returns their stacks to the pool.
pub(crate) fn finish_unit(coroutines: UnitCoroutines, pool: &mut StackPool) {
    for mut co in coroutines {
        if !co.started() {
            co.force_unwind();
        }
        // Between two work-items: a null group makes its loop return.
        if !co.done() && matches!(co.resume(std::ptr::null()), CoroutineResult::Yield(_)) {
            co.force_unwind();
        }
        pool.give(co.into_stack());
    }
}

/// Records the running work-item in `current` if the plain loop unwinds (a panic or an abort),
/// without a store to shared state per work-item on the normal path.
struct CurrentOnUnwind<'c> {
    current: &'c Cell<usize>,
    k: usize,
}

impl Drop for CurrentOnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.current.set(self.k);
        }
    }
}

/// What a work-item needs to know about its group (not generic, so `WorkItem` is not either).
pub(crate) struct GroupInfo<'a> {
    pub(crate) range: NDRange,
    pub(crate) group_linear: usize,
    pub(crate) group_ids: Dim3,
    /// Global id of the group's work-item 0, per dimension.
    pub(crate) global_base: Dim3,
    pub(crate) global_size: Dim3,
    pub(crate) group_count: usize,
    pub(crate) local_count: usize,
    /// The most groups of this launch that can be occupant at once (its compute units).
    pub(crate) occupancy_hint: usize,
    pub(crate) waiter: CpuWaiter<'a>,
    pub(crate) state: &'a LaunchState,
    pub(crate) adversarial: bool,
    pub(crate) broadcast: Cell<u64>,
    /// The work-item running now (for panic reports).
    pub(crate) current: Cell<usize>,
}

impl GroupInfo<'_> {
    pub(crate) fn leave_if_aborted(&self) {
        if self.state.aborted() {
            unwind(Unwind::Abort);
        }
    }
}

/// Barrier scheduling, behind a trait object so that `WorkItem` is not generic over the kernel.
pub(crate) trait GroupOps {
    /// Called by work-item 0 at barrier `at`: runs every other work-item to that barrier.
    fn run_others_to(&self, at: BarrierAt);
}

/// Where the coroutines' stacks come from.
pub(crate) struct StackSource<'p> {
    pub(crate) pool: &'p mut StackPool,
    pub(crate) size: usize,
    pub(crate) allocated: &'p AtomicUsize,
}

/// One running group of a kernel `F` with local memory `L`.
pub(crate) struct Group<'a, 'p, F, L> {
    pub(crate) info: GroupInfo<'a>,
    kernel: &'a F,
    local: &'a L,
    stacks: RefCell<StackSource<'p>>,
    /// The compute unit's coroutines (index k-1 runs work-item k), lent for this group.
    coroutines: RefCell<UnitCoroutines>,
    /// Whether this group's work-items 1..n run on the coroutines (a barrier was reached).
    active: Cell<bool>,
    /// The last pair of barrier locations found equal. Work-item 0 and the coroutines run
    /// different inlined copies of the kernel, so one source location can have two `Location`
    /// statics; this spares the string comparison at every barrier.
    same: Cell<(*const Location<'static>, *const Location<'static>)>,
}

impl<'a, 'p, F, L> Group<'a, 'p, F, L>
where
    F: Fn(&WorkItem<'_>, &L) + Sync,
{
    pub(crate) fn new(
        info: GroupInfo<'a>,
        kernel: &'a F,
        local: &'a L,
        stacks: StackSource<'p>,
        coroutines: UnitCoroutines,
    ) -> Self {
        Self {
            info,
            kernel,
            local,
            stacks: RefCell::new(stacks),
            coroutines: RefCell::new(coroutines),
            active: Cell::new(false),
            same: Cell::new((std::ptr::null(), std::ptr::null())),
        }
    }

    /// Whether two barrier locations are the same source location.
    #[inline]
    fn same_barrier(&self, a: BarrierAt, b: BarrierAt) -> bool {
        let key = (a as *const _, b as *const _);
        if std::ptr::eq(a, b) || self.same.get() == key {
            return true;
        }
        let equal = a == b;
        if equal {
            self.same.set(key);
        }
        equal
    }

    #[inline(always)]
    fn item(&self, k: usize, local: Dim3, yielder: *const ItemYielder) -> WorkItem<'_> {
        let base = self.info.global_base;
        let global = [base[0] + local[0], base[1] + local[1], base[2] + local[2]];
        WorkItem {
            global_linear: linearize(global, self.info.global_size),
            info: &self.info,
            ops: self,
            local,
            local_linear: k,
            global_base: self.info.global_base,
            global_size: self.info.global_size,
            yielder,
        }
    }

    /// Runs every work-item of the group to completion (or unwinds on failure).
    pub(crate) fn run(&self) {
        self.info.current.set(0);
        (self.kernel)(&self.item(0, [0; 3], std::ptr::null()), self.local);
        if self.active.get() {
            self.finish_coroutines();
            return;
        }
        // No barrier so far: the other work-items run as a plain loop.
        let [lx, ly, _] = self.info.range.local_size();
        let mut item = self.item(0, [0; 3], std::ptr::null());
        // In registers for the loop: the kernel's stores could alias `self` as far as the
        // compiler knows, which would reload these at every work-item.
        let (kernel, local, count) = (self.kernel, self.local, self.info.local_count);
        // Which work-item runs, for a panic report: written to `current` only when unwinding.
        let mut mark = CurrentOnUnwind {
            current: &self.info.current,
            k: 0,
        };
        for k in 1..count {
            item.local[0] += 1;
            item.global_linear += 1;
            if item.local[0] == lx {
                item.local[0] = 0;
                item.local[1] += 1;
                if item.local[1] == ly {
                    item.local[1] = 0;
                    item.local[2] += 1;
                }
                // Next row of the group: recompute the linear id (rare for wide groups).
                let g = [
                    item.global_base[0],
                    item.global_base[1] + item.local[1],
                    item.global_base[2] + item.local[2],
                ];
                item.global_linear = linearize(g, item.global_size);
            }
            item.local_linear = k;
            mark.k = k;
            kernel(&item, local);
        }
    }

    /// Work-item 0 has finished: every other work-item must finish without another barrier.
    fn finish_coroutines(&self) {
        let me = self as *const Self as GroupPtr;
        let mut coroutines = self.coroutines.borrow_mut();
        for (i, co) in coroutines.iter_mut().enumerate() {
            self.info.current.set(i + 1);
            match co.resume(me) {
                CoroutineResult::Yield(None) => {}
                CoroutineResult::Yield(Some(at)) => unwind(Unwind::Divergence(format!(
                    "work-item {} waits at the barrier at {at}, but work-item 0 has finished",
                    i + 1
                ))),
                CoroutineResult::Return(()) => {
                    unreachable!("item coroutines loop until told to leave")
                }
            }
        }
        self.info.current.set(0);
    }

    /// Makes the coroutines this group lacks (the compute unit's first group with a barrier).
    fn spawn_coroutines(&self, coroutines: &mut UnitCoroutines) {
        let n = self.info.local_count;
        let mut stacks = self.stacks.borrow_mut();
        coroutines.reserve(n - 1);
        for k in coroutines.len() + 1..n {
            let StackSource {
                pool,
                size,
                allocated,
            } = &mut *stacks;
            let stack = match pool.take(*size, allocated) {
                Ok(s) => s,
                Err(e) => {
                    self.info.state.fail(crate::Error::Resource(format!(
                        "could not map a {size}-byte coroutine stack for work-item {k}: {e}; use fewer work-items per group or a smaller stack size"
                    )));
                    unwind(Unwind::Abort);
                }
            };
            // Runs work-item `k` of every group it is resumed with, until given a null group.
            let body = move |y: &ItemYielder, mut g: GroupPtr| {
                while !g.is_null() {
                    // SAFETY: a non-null `g` is the group that resumed this coroutine to start
                    // its work-item `k`; that group is alive (it is running) until the
                    // work-item finishes or the group unwinds it, and every group of a launch
                    // has the same kernel and local-memory types (`F`, `L`).
                    let group = unsafe { &*(g as *const Group<'_, '_, F, L>) };
                    let item = group.item(k, delinearize(k, group.info.range.local_size()), y);
                    (group.kernel)(&item, group.local);
                    g = y.suspend(None);
                }
            };
            // SAFETY: the body borrows nothing (it reaches its group through the resume
            // argument); the compute unit drives every coroutine to its end or unwinds it
            // (`finish_unit`, `release`) before the launch's borrows end.
            coroutines.push(unsafe { ItemCoroutine::with_stack_unchecked(stack, body) });
        }
    }

    /// Ends the group's use of the coroutines: after a success they go back to the compute
    /// unit (each is between two work-items); after a failure they are unwound and their
    /// stacks returned to the pool. Returns whether the group used coroutines.
    pub(crate) fn release(&self, ok: bool, unit: &mut UnitCoroutines) -> bool {
        let coroutines = std::mem::take(&mut *self.coroutines.borrow_mut());
        if ok {
            *unit = coroutines;
        } else {
            let mut stacks = self.stacks.borrow_mut();
            for mut co in coroutines {
                if !co.done() {
                    co.force_unwind();
                }
                stacks.pool.give(co.into_stack());
            }
        }
        self.active.get()
    }
}

impl<F, L> GroupOps for Group<'_, '_, F, L>
where
    F: Fn(&WorkItem<'_>, &L) + Sync,
{
    fn run_others_to(&self, at: BarrierAt) {
        let mut coroutines = self.coroutines.borrow_mut();
        if !self.active.get() {
            if coroutines.len() + 1 < self.info.local_count {
                self.spawn_coroutines(&mut coroutines);
            }
            self.active.set(true);
        }
        // Each coroutine is between two work-items (it starts this group's) or at a barrier
        // of this group (it goes on); either way it is resumed with this group.
        let me = self as *const Self as GroupPtr;
        // The resumed work-item, written to `current` only if it unwinds (no store per resume).
        let mut mark = CurrentOnUnwind {
            current: &self.info.current,
            k: 0,
        };
        for (i, co) in coroutines.iter_mut().enumerate() {
            mark.k = i + 1;
            match co.resume(me) {
                CoroutineResult::Yield(Some(there)) if self.same_barrier(there, at) => {}
                CoroutineResult::Yield(Some(there)) => unwind(Unwind::Divergence(format!(
                    "work-item 0 waits at the barrier at {at}, work-item {} at the barrier at {there}",
                    i + 1
                ))),
                CoroutineResult::Yield(None) | CoroutineResult::Return(()) => {
                    unwind(Unwind::Divergence(format!(
                        "work-item 0 waits at the barrier at {at}, but work-item {} finished without reaching it",
                        i + 1
                    )))
                }
            }
        }
    }
}
