//! Inter-group synchronisation primitives and occupancy discovery for the CPU backend.
//!
//! One file per primitive; every algorithm uses the atomics of [`atomic`] (loom's under
//! `cfg(loom)`, so the loom models in `tests/loom_sync.rs` check this very code) and waits only
//! through a [`Wait`](crate::cpu::Wait) policy, so nothing here can hang.
//!
//! Block semantics (seed 004 §3): one representative work-item per group performs the
//! inter-group operation; the rest of the group waits at a workgroup barrier. The algorithm
//! types ([`SpinMutex`], [`TicketMutex`], [`XfBarrier`], …) expose the representative's
//! operation; the front types ([`Mutex`], [`Semaphore`], [`Barrier`], [`Discovery`]) choose the
//! implementation at run time with a documented default (seed 004's "users change the
//! implementation, not their code").
//!
//! Group-level (block-semantics) forms, called by every work-item of a group:
//! [`Discovery::discover_group`] (gives a [`Participation`]), [`Barrier::wait_group`],
//! [`Mutex::lock_group`]/[`Mutex::unlock_group`]/[`Mutex::critical_group`],
//! [`Semaphore::wait_group`]/[`Semaphore::post_group`].
//!
//! ```
//! use occupant::cpu::sync::{Barrier, Discovery};
//! use occupant::cpu::{ExecModel, Executor, GlobalBuffer};
//! use occupant::NDRange;
//!
//! let groups = 8;
//! let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
//! let discovery = Discovery::with_default_kind(groups);
//! let barrier = Barrier::with_default_kind(groups);
//! let phase1 = GlobalBuffer::<u32>::new(groups);
//! exec.launch(NDRange::groups(groups, 16).unwrap(), |item| {
//!     let Some(env) = discovery.discover_group(item) else { return }; // not co-occupant
//!     if item.local_linear_id() == 0 {
//!         phase1.set(env.p_group_id(), 1);
//!     }
//!     barrier.wait_group(item, &env); // across the participants only: cannot deadlock
//!     for g in 0..env.p_num_groups() {
//!         assert_eq!(phase1.get(g), 1);
//!     }
//! })
//! .unwrap();
//! assert_eq!(discovery.count(), 2); // every compute unit, and never more
//! ```
//!
//! | kind | implementations | default |
//! | --- | --- | --- |
//! | discovery | quiescent ([`QuiescentDiscovery`]), seed 001's over any [`MutexKind`] with a delay ([`LockedDiscovery`]) | quiescent, with the executor's occupancy hint |
//! | barrier | [`XfBarrier`], [`AtomicBarrier`], [`TreeBarrier`] | XF; per shape: [`Barrier::with_default_kind_for`] |
//! | mutex | spin, spin+backoff ([`SpinMutex`]), ticket, ticket+backoff ([`TicketMutex`]), cohort ([`CohortMutex`]); MCS cohort, plain and lazy ([`McsCohortMutex`], the GPU's cluster-cohort twin, not in [`MutexKind`]: it needs each caller's cohort and member); combining ([`CombiningMutex`], the twin of `occ::sync::CombiningMutex<Op>`: the caller hands over the critical section as a closure, so it is not a lock/unlock [`MutexKind`]); flat combining ([`FlatCombiningMutex`], the twin of `occ::sync::FlatCombiningMutex<Op>`, same API); lazy flat combining for at most 3 participants, the holder keeps the role between its calls ([`LazyCombiningMutex`], the twin of `occ::sync::LazyCombiningMutex<Op>`, same API plus `release`) | ticket; per shape: [`Mutex::with_default_kind_for`] |
//! | semaphore | spin, spin+backoff ([`SpinSemaphore`]), sleeping ([`SleepingSemaphore`]) | sleeping |

pub mod atomic;
mod atomic_barrier;
mod backoff;
mod barrier;
mod bench;
mod cell;
mod cohort_mutex;
mod combining_mutex;
mod discovery;
mod discovery_kind;
mod discovery_recall;
mod environment;
mod episode;
mod flat_combining_mutex;
mod group_ops;
mod lazy_combining_mutex;
mod locked_discovery;
mod mcs_cohort_mutex;
mod mutex;
mod participant;
mod quiescent_discovery;
mod recall_study;
mod replica_barrier;
mod semaphore;
mod shape_defaults;
mod sleeping_semaphore;
mod spin_mutex;
mod spin_semaphore;
mod spin_wait;
mod ticket_mutex;
mod tree_barrier;
mod xf_barrier;

pub use atomic_barrier::AtomicBarrier;
pub use backoff::BackoffConfig;
pub use barrier::{Barrier, BarrierKind};
pub use bench::{run_primitives, Primitive, PrimitivePoint, PrimitivesConfig, PrimitivesReport};
pub use cohort_mutex::{CohortMutex, COHORTS, COHORT_PASSES};
pub use combining_mutex::{
    CombiningMutex, COMBINING_BATCH, COMBINING_BOUND, COMBINING_MAX_PARTICIPANTS,
};
pub use discovery::{Discovered, Discovery, NON_PARTICIPATING};
pub use discovery_kind::DiscoveryKind;
pub use discovery_recall::{measure_discovery, DiscoveryRun};
pub use environment::Participation;
pub use flat_combining_mutex::{
    FlatCombiningMutex, FLAT_COMBINING_CHUNK, FLAT_COMBINING_MAX_PARTICIPANTS,
};
pub use lazy_combining_mutex::{LazyCombiningMutex, LAZY_COMBINING_MAX_PARTICIPANTS};
pub use locked_discovery::LockedDiscovery;
pub use mcs_cohort_mutex::{McsCohortMutex, MCS_COHORT_PASSES};
pub use mutex::{Mutex, MutexKind, RawMutex};
pub use quiescent_discovery::QuiescentDiscovery;
pub use recall_study::{
    discovery_recall_study, seed_protocols, ProtocolRecall, RecallReport, RecallRow,
    RecallStudyConfig,
};
pub use replica_barrier::{
    ClusterLeanBarrier, LeanBarrier, LeanBellBarrier, RelayBarrier, ReplicaBarrier,
};
pub use semaphore::{RawSemaphore, Semaphore, SemaphoreKind};
pub use shape_defaults::cpu_shape_table;
pub use sleeping_semaphore::SleepingSemaphore;
pub use spin_mutex::SpinMutex;
pub use spin_semaphore::SpinSemaphore;
pub use spin_wait::SpinWait;
pub use ticket_mutex::{Ticket, TicketMutex};
pub use tree_barrier::{TreeBarrier, TREE_FAN_IN};
pub use xf_barrier::XfBarrier;
