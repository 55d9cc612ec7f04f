//! Phased kernels: work-item loops between barriers, without a compiler.
//!
//! A CPU kernel can be written in two forms, run by the same [`Executor`] with the same
//! NDRange, ids, local and global memory, execution models, watchdog and errors:
//!
//! - **The coroutine form** ([`Executor::launch`], [`Executor::launch_with`]): the kernel is
//!   one work-item's code, `barrier()` anywhere. Each work-item becomes a coroutine at its
//!   group's first barrier; a barrier is a switch to the next work-item (a few ns per
//!   work-item per barrier). Runs any kernel, including ones whose barriers sit in helper
//!   functions, data-dependent loops or spin waits, and detects barrier divergence.
//! - **The phased form** ([`Executor::launch_phased`], [`Executor::launch_phased_out`]): the
//!   kernel is the group's code; each [`PhasedGroup::items`] call is one phase, run as a
//!   plain loop over the group's work-items (PoCL's "work-item loops", written by hand
//!   instead of by a compiler pass), and the end of the loop is the barrier. Values a
//!   work-item keeps across barriers live in [`Private`] arrays. No coroutine, no stack, no
//!   switch: the loop body inlines and LLVM vectorises it.
//!
//! Use the phased form for kernels with many barriers or much per-item work between them
//! (reductions, scans, tiled stencils, histograms — the kernels OpenCL CPU drivers are
//! measured with) and for barrier-free kernels that write their output with plain stores
//! ([`Executor::launch_phased_out`] hands each group `&mut` its own chunk). Use the coroutine
//! form for kernels that block (spin on other groups, take locks inside a phase), whose
//! barriers are not at the top level of the kernel, or when porting OpenCL/CUDA code line by
//! line. `docs/CPU-KERNEL-FORMS.md` has the figures.
//!
//! Barrier divergence cannot happen in the phased form: every work-item runs every item
//! loop. Starting an item loop inside another is the one misuse, and it fails the launch
//! with [`Error::BarrierDivergence`](crate::Error::BarrierDivergence).

mod group;
mod item;
mod private;

pub use group::PhasedGroup;
pub use item::Item;
pub use private::Private;

use super::executor::{Executor, LaunchReport};
use super::group::{GroupInfo, StackSource};
use super::group_body::{GroupBody, GroupOutcome};
use super::launch::Launch;
use super::memory::LocalMemory;
use crate::model::{Error, Result};
use std::panic::{catch_unwind, AssertUnwindSafe};

impl Executor {
    /// Launches a phased kernel: `kernel` runs once per group with its [`PhasedGroup`] and
    /// its local memory (made by `init`, as in [`launch_with`](Self::launch_with)); each
    /// [`PhasedGroup::items`] call inside it is a loop over the group's work-items, and the
    /// boundaries between those loops are the group's barriers.
    ///
    /// Fails like [`launch_with`](Self::launch_with): before running on an invalid shape,
    /// too much local memory or too many compute units; after running with
    /// [`Error::KernelPanic`] (naming the group and the work-item whose loop body panicked),
    /// [`Error::Deadlock`] (a spin wait through [`PhasedGroup::waiter`] that timed out) or
    /// [`Error::BarrierDivergence`] (an item loop started inside another).
    ///
    /// ```
    /// use occupant::cpu::{ExecModel, Executor, GlobalBuffer, Launch, LocalArray};
    /// use occupant::NDRange;
    /// // Reverse each group's 8 values through local memory (one barrier).
    /// let data = GlobalBuffer::from_slice(&(0..32u32).collect::<Vec<_>>());
    /// let launch = Launch::new(NDRange::d1(32, 8).unwrap());
    /// Executor::new(ExecModel::OccupancyBound { compute_units: 2 })
    ///     .launch_phased(&launch, || LocalArray::<u32>::new(8), |g, tile| {
    ///         g.items(|it| tile.set(it.local_linear_id(), data.get(it.global_linear_id())));
    ///         g.items(|it| data.set(it.global_linear_id(), tile.get(7 - it.local_linear_id())));
    ///     })
    ///     .unwrap();
    /// assert_eq!(data.get(0), 7);
    /// assert_eq!(data.get(8), 15);
    /// ```
    pub fn launch_phased<L, I, F>(
        &self,
        launch: &Launch,
        init: I,
        kernel: F,
    ) -> Result<LaunchReport>
    where
        L: LocalMemory,
        I: Fn() -> L + Sync,
        F: for<'g> Fn(&PhasedGroup<'g>, &L) + Sync,
    {
        self.launch_body(launch, &init, &PhasedBody(&kernel))
    }

    /// Launches a phased kernel that writes `out` with plain stores: `out` is split into one
    /// contiguous chunk per group (`out.len() / group_count` elements each, in group linear
    /// order) and the kernel gets `&mut` to its group's chunk. With one element per
    /// work-item of a 1-D launch, a group's chunk is indexed by local id, i.e. `out` by global
    /// id; [`PhasedGroup::items_with`] zips the chunk with the work-items.
    ///
    /// Unlike a [`GlobalBuffer`](crate::cpu::GlobalBuffer) (atomic elements, shared by all
    /// groups), the chunks are ordinary memory, so the stores vectorise: this is the form for
    /// barrier-free kernels at plain-loop speed.
    ///
    /// Fails with [`Error::InvalidLaunch`] before running if `out.len()` is not a multiple of
    /// the number of groups; otherwise as [`launch_phased`](Self::launch_phased).
    ///
    /// ```
    /// use occupant::cpu::{ExecModel, Executor, Launch};
    /// use occupant::NDRange;
    /// // Two outputs per work-item: chunks of 2 × 64.
    /// let mut out = vec![0u64; 2 * 256];
    /// Executor::new(ExecModel::OccupancyBound { compute_units: 2 })
    ///     .launch_phased_out(&Launch::new(NDRange::d1(256, 64).unwrap()), &mut out, || (), |g, _, chunk| {
    ///         let (a, b) = chunk.split_at_mut(64);
    ///         g.items_with(a, |it, o| *o = it.global_linear_id() as u64);
    ///         g.items_with(b, |it, o| *o = 2 * it.global_linear_id() as u64);
    ///     })
    ///     .unwrap();
    /// assert_eq!(out[64 + 3], 6);
    /// assert_eq!(out[128 + 3], 67);
    /// ```
    pub fn launch_phased_out<T, L, I, F>(
        &self,
        launch: &Launch,
        out: &mut [T],
        init: I,
        kernel: F,
    ) -> Result<LaunchReport>
    where
        T: Send,
        L: LocalMemory,
        I: Fn() -> L + Sync,
        F: for<'g> Fn(&PhasedGroup<'g>, &L, &mut [T]) + Sync,
    {
        let groups = launch.range.group_count();
        if out.len() % groups != 0 {
            return Err(Error::InvalidLaunch(format!(
                "launch_phased_out: the output has {} elements, not a multiple of the {groups} groups",
                out.len()
            )));
        }
        let body = PhasedOutBody {
            kernel: &kernel,
            out: out.as_mut_ptr(),
            chunk: out.len() / groups,
        };
        self.launch_body(launch, &init, &body)
    }
}

/// Runs a phased kernel for one group, catching its unwinds.
#[inline(always)]
fn run_phased<F: FnOnce(&PhasedGroup<'_>)>(info: GroupInfo<'_>, kernel: F) -> GroupOutcome {
    let result = catch_unwind(AssertUnwindSafe(|| kernel(&PhasedGroup::new(&info))));
    GroupOutcome {
        result,
        coroutines: false,
        current: info.current.get(),
    }
}

/// The phased form of a kernel without an output slice.
struct PhasedBody<'k, F>(&'k F);

impl<L, F> GroupBody<L> for PhasedBody<'_, F>
where
    L: LocalMemory,
    F: for<'g> Fn(&PhasedGroup<'g>, &L) + Sync,
{
    type Unit = ();

    fn run_group(
        &self,
        _: &mut (),
        info: GroupInfo<'_>,
        local: &L,
        _: StackSource<'_>,
    ) -> GroupOutcome {
        run_phased(info, |g| (self.0)(g, local))
    }
}

/// The phased form with an output split in one chunk per group.
struct PhasedOutBody<'k, F, T> {
    kernel: &'k F,
    out: *mut T,
    chunk: usize,
}

// SAFETY: the compute units only reach `out` through `run_group`, which hands group `g` the
// chunk `g`; the executor runs every group exactly once per launch, so no two threads (and
// no two groups) ever hold the same element, and `T: Send` lets each element be written from
// the compute unit's thread.
unsafe impl<F: Sync, T: Send> Sync for PhasedOutBody<'_, F, T> {}

impl<T, L, F> GroupBody<L> for PhasedOutBody<'_, F, T>
where
    T: Send,
    L: LocalMemory,
    F: for<'g> Fn(&PhasedGroup<'g>, &L, &mut [T]) + Sync,
{
    type Unit = ();

    fn run_group(
        &self,
        _: &mut (),
        info: GroupInfo<'_>,
        local: &L,
        _: StackSource<'_>,
    ) -> GroupOutcome {
        let g = info.group_linear;
        // SAFETY: `g < group_count` and `out` holds `group_count * chunk` elements, borrowed
        // mutably by `launch_phased_out` for the whole launch; chunk `g` is used by group `g`
        // only (see the `Sync` impl).
        let chunk =
            unsafe { std::slice::from_raw_parts_mut(self.out.add(g * self.chunk), self.chunk) };
        run_phased(info, |grp| (self.kernel)(grp, local, chunk))
    }
}

/// The examples of `docs/CPU-KERNEL-FORMS.md` compile and pass (checked as doctests).
#[cfg(doctest)]
#[doc = include_str!("../../../../../docs/CPU-KERNEL-FORMS.md")]
struct CpuKernelFormsGuide;
