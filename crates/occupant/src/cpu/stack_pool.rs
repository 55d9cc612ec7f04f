//! Coroutine stacks, pooled per compute unit and reused across groups and launches (Clover's
//! reuse): a launch with barriers allocates stacks once per compute unit, not once per group.

use corosensei::stack::DefaultStack;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Stacks owned by one compute unit.
///
/// Each stack is an `mmap`ed region with a guard page below it: a work-item that overflows its
/// stack faults on the guard page (the process stops with SIGSEGV) instead of silently
/// corrupting another work-item's memory.
#[derive(Default)]
pub(crate) struct StackPool {
    free: Vec<DefaultStack>,
}

impl StackPool {
    /// A stack of at least `size` bytes, from the pool or newly mapped (counted in `allocated`).
    pub(crate) fn take(
        &mut self,
        size: usize,
        allocated: &AtomicUsize,
    ) -> std::io::Result<DefaultStack> {
        if let Some(s) = self.free.pop() {
            return Ok(s);
        }
        let s = DefaultStack::new(size)?;
        allocated.fetch_add(1, Ordering::Relaxed);
        Ok(s)
    }

    /// Returns a stack for reuse.
    pub(crate) fn give(&mut self, stack: DefaultStack) {
        self.free.push(stack);
    }
}
