//! Cooperative kernels on the CPU backend (seed 000): a kernel that gives compute units back
//! to other launches at `offer_kill` and resizing barriers, and regrows with `request_fork`.
//!
//! The rules are in [`crate::model::coop`]; this module is their CPU implementation:
//! - [`CoopCore`]: the scheduler's state machine (compute units, the kernel's id space, the
//!   resizing barrier), generic in its wait policy and checked by loom (`tests/loom_coop.rs`);
//! - [`CoopScheduler`]: runs a cooperative kernel on the [`Executor`](crate::cpu::Executor) —
//!   the launched groups as one executor launch, each fork as another (one compute unit per
//!   group) — and lends its units to [`CoopScheduler::launch_other`] launches from other
//!   threads;
//! - [`CoopItem`]: what the kernel's work-items call, with block semantics.
//!
//! A killed group leaves the kernel body by unwinding (no panic message); a forked group
//! calls the kernel body again with [`Entry::Fork`](crate::model::coop::Entry) or
//! [`Entry::Resize`](crate::model::coop::Entry) and the transmitted value, and continues
//! from the matching point.

mod core;
mod exit;
mod item;
mod scheduler;

pub use self::core::{BeginError, Churn, CoopCore, CoopStats, Release, Units};
pub use item::CoopItem;
pub use scheduler::{CoopConfig, CoopReport, CoopScheduler, OtherReport};

use crate::cpu::LaunchReport;
use crate::model::coop::Entry;
use crate::model::Result;
use std::ops::Range;

/// What a cooperative kernel's groups tell the host thread of its launch.
pub(crate) enum HostMsg<T> {
    /// Start groups `ids` with this entry; `M` was the third field when they were forked.
    Fork(Range<usize>, Entry<T>, usize),
    /// An executor launch (a wave of groups) ended.
    Done(Result<LaunchReport>),
}
