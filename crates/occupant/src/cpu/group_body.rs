//! What the executor runs once per work-group: the coroutine form (a [`Group`](super::group))
//! or the phased form (work-item loops between barriers, [`super::phased`]).

use super::group::{GroupInfo, StackSource};

/// How one group ended.
pub(crate) struct GroupOutcome {
    /// `Err` holds the payload of a panic or of an internal unwind ([`super::watchdog::Unwind`]).
    pub(crate) result: std::thread::Result<()>,
    /// Whether the group's work-items became coroutines.
    pub(crate) coroutines: bool,
    /// The work-item that was running when the group failed (for the panic report).
    pub(crate) current: usize,
}

/// A kernel form: runs every work-item of one group, catching its unwinds.
pub(crate) trait GroupBody<L>: Sync {
    fn run_group(&self, info: GroupInfo<'_>, local: &L, stacks: StackSource<'_>) -> GroupOutcome;
}
