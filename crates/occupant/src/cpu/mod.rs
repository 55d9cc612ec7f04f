//! The CPU backend (Clover style): work-groups on a pool of compute units, work-items as
//! coroutines, `barrier()` a context switch.

pub mod sync;
mod wait;

pub use wait::Wait;
