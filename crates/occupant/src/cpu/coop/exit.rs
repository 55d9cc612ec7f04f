//! How a group leaves a cooperative kernel early: an unwind with a private payload that the
//! launch catches (no panic message, no hook).

/// Why a group leaves the kernel body early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CoopExit {
    /// The scheduler accepted its kill offer (or a resizing barrier killed it).
    Killed,
    /// Another part of the kernel failed; the kernel is being stopped.
    Aborted,
}

/// Leaves the kernel body of the calling work-item.
pub(crate) fn leave(why: CoopExit) -> ! {
    std::panic::resume_unwind(Box::new(why))
}
