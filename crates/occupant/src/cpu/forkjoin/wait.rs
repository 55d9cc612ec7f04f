//! The one place where fork-join work-items wait: a coroutine switch at a single barrier site.
//!
//! A group's work-items run on one thread, switching at `WorkItem::barrier`, and the executor
//! requires every work-item to meet at the same barrier. Fork-join work-items wait for
//! different things (the master for the join, workers for work, the team at a user barrier),
//! so every wait is a loop of [`step`] — one barrier, always the same source location — that
//! re-checks its condition after each round. A wait that outlives the launch's watchdog
//! timeout fails the launch with `Error::Deadlock` (primitive `fork-join`).

use crate::cpu::watchdog::{unwind, Deadline, Unwind};
use crate::cpu::WorkItem;
use crate::Error;

/// The primitive name reported in `Error::Deadlock` (the twin of CUDA's `occ::ForkJoin`).
pub const PRIMITIVE: &str = "fork-join";

/// One round: every work-item of the group runs to its next `step` (or to its end).
#[inline(never)]
pub(crate) fn step(item: &WorkItem<'_>) {
    item.barrier();
}

/// Steps until `cond()` holds, under the watchdog.
pub(crate) fn wait_for(item: &WorkItem<'_>, mut cond: impl FnMut() -> bool) {
    if cond() {
        return;
    }
    let state = item.info.state;
    let mut deadline = Deadline::new(state);
    loop {
        step(item);
        if cond() {
            state.progressed();
            return;
        }
        if deadline.expired() {
            state.fail_deadlock(PRIMITIVE);
            item.waiter().check_abort(PRIMITIVE);
        }
    }
}

/// Fails the launch with `err` and leaves the work-item.
pub(crate) fn fail(item: &WorkItem<'_>, err: Error) -> ! {
    item.info.state.fail(err);
    unwind(Unwind::Abort)
}
