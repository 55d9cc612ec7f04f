//! The CPU backend (Clover style): work-groups on a pool of compute units, work-items as
//! coroutines, `barrier()` a context switch.

mod wait;

pub use wait::Wait;
