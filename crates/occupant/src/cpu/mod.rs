//! The CPU backend (Clover style): work-groups on a pool of compute units, work-items as
//! coroutines, `barrier()` a context switch.
//!
//! A group's work-items run one after another on its compute unit's thread. A kernel that never
//! calls [`WorkItem::barrier`] runs as a plain loop: no coroutine, no stack. The first barrier
//! turns the group's other work-items into coroutines (stacks from a per-compute-unit pool,
//! reused across groups and launches); a barrier is then a switch to the next work-item.
//!
//! Execution models ([`ExecModel`]) decide how groups get compute units, and every spin goes
//! through the wait policy ([`CpuWaiter`]), whose watchdog turns a launch that cannot make
//! progress into [`Error::Deadlock`](crate::Error::Deadlock).

pub mod coop;
mod exec_model;
mod executor;
pub mod forkjoin;
mod group;
mod group_body;
mod launch;
mod memory;
mod persistent;
mod phased;
mod quiet_panics;
mod rng;
mod stack_pool;
mod start_gate;
pub mod sync;
mod unit_threads;
pub mod vs_pocl;
mod wait;
mod watchdog;
mod work_item;

pub use exec_model::{available_cores, ExecModel};
pub use executor::{Executor, ExecutorConfig, LaunchReport};
pub use launch::Launch;
pub use memory::{AtomicElement, GlobalBuffer, LocalArray, LocalMemory};
pub use persistent::{Persistent, PersistentReport};
pub use phased::{Item, PhasedGroup, Private};
pub use quiet_panics::SHOW_KERNEL_PANICS_ENV;
pub use wait::Wait;
pub use watchdog::CpuWaiter;
pub use work_item::WorkItem;
