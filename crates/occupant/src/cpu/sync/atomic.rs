//! The atomics every primitive in `sync/` uses: `std`'s normally, loom's under `cfg(loom)`, so
//! that the loom models (crates/occupant/tests/loom_sync.rs) check the very code that runs.

#[cfg(loom)]
pub use loom::sync::atomic::*;
#[cfg(not(loom))]
pub use std::sync::atomic::*;
