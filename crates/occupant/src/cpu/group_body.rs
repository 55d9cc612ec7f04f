//! What the executor runs once per work-group: the coroutine form (a [`Group`](super::group))
//! or the phased form (work-item loops between barriers, [`super::phased`]).

use super::group::{GroupInfo, StackSource};
use super::stack_pool::StackPool;

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
    /// What a compute unit keeps across the groups it runs in one launch.
    type Unit: Default;

    fn run_group(
        &self,
        unit: &mut Self::Unit,
        info: GroupInfo<'_>,
        local: &L,
        stacks: StackSource<'_>,
    ) -> GroupOutcome;

    /// Called once per compute unit after its last group of the launch.
    fn finish_unit(&self, _unit: Self::Unit, _pool: &mut StackPool) {}
}
