//! Cooperative-kernel applications (seed 000 Table 1): the work-stealing apps with
//! `offer_kill`/`request_fork` at the top of their main loop, each also runnable as a plain
//! persistent kernel (the non-cooperative baseline), with sequential references; and the
//! multitasking experiment of seed 000 §5 ([`multitask`]).
//!
//! ```
//! use occupant::cpu::coop::{CoopConfig, CoopScheduler};
//! use occupant::cpu::{ExecModel, Executor};
//! use occupant_apps::coop::{octree, Runner};
//!
//! let exec = Executor::default();
//! let sched = CoopScheduler::new(&exec, CoopConfig::new(ExecModel::Adversarial { seed: 3 }));
//! let p = octree::OctreeParams { points: 5_000, ..Default::default() };
//! let run = octree::build(&p, &Runner::Cooperative { scheduler: &sched, groups: 4 }).unwrap();
//! octree::verify(&p, &run.leaves, &octree::sequential(&p)).unwrap();
//! ```

pub mod game;
pub mod graph;
pub mod multitask;

pub mod octree;
mod steal;

pub use steal::{RunInfo, Runner, StealQueues};
