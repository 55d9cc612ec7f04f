//! Cooperative kernels (seed 000 §3): the rules both backends implement, in one place.
//!
//! A cooperative kernel is launched with a *limit* of `N` groups and runs with `M` *active*
//! groups, `1 ≤ M ≤ N`, whose ids are always `0..M` (contiguous). The kernel and a scheduler
//! cooperate through five group-level operations (every work-item of a group calls them at the
//! same point — *block semantics*):
//!
//! | operation | effect |
//! | --- | --- |
//! | `offer_kill` | the scheduler may end the group — only the one with the highest id, never group 0 |
//! | `request_fork` | the scheduler may start `k ∈ [0, N−M]` new groups with ids `M..M+k`, after the call, with the caller's `transmit` value |
//! | `global_barrier` | waits for every active group; a group killed meanwhile is no longer waited for |
//! | `resizing_global_barrier` | a barrier at which `M` may change: forks (as if by group 0) and kills (highest ids first) |
//! | `query` | how many groups the scheduler wants back now |
//!
//! The functions of this module are the rules as pure functions, so that every backend (the CPU
//! scheduler in `cpu::coop`, the CUDA one) decides the same way and the tests can check the
//! rules on their own. `docs/COOPERATIVE.md` says where occupant differs from the seed and why.

use serde::Serialize;
use std::fmt;

/// The watchdog primitive id of the resizing barrier (see `cuda/device/watchdog.cuh`).
pub const RESIZING_BARRIER_PRIMITIVE_ID: u32 = 20;
/// The watchdog primitive id of the cooperative scheduler (see `cuda/device/watchdog.cuh`).
pub const COOP_SCHEDULER_PRIMITIVE_ID: u32 = 21;

/// Where a group of a cooperative kernel starts executing the kernel body.
///
/// A kernel body is a closure; a forked group cannot jump into its middle, so the body is
/// called with the entry point and the transmitted value and continues from there (the seed's
/// prototype used `goto` for the same purpose, §4.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry<T> {
    /// One of the groups the kernel was launched with: start from the top.
    Launch,
    /// Forked by `request_fork`: continue right after it, with the forking group's
    /// transmitted value.
    Fork(T),
    /// Joined at a `resizing_global_barrier`: continue right after it, with group 0's
    /// transmitted value.
    Resize(T),
}

impl<T> Entry<T> {
    /// The transmitted value (`None` for a launched group).
    pub fn transmitted(self) -> Option<T> {
        match self {
            Entry::Launch => None,
            Entry::Fork(t) | Entry::Resize(t) => Some(t),
        }
    }

    /// Whether the group was forked (by `request_fork` or at a resizing barrier).
    pub fn is_forked(&self) -> bool {
        !matches!(self, Entry::Launch)
    }
}

/// The two implementations of `resizing_global_barrier` of seed 000 §4.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub enum ResizeVariant {
    /// Every group offers to be killed when it enters the barrier: depending on the order of
    /// arrival, as few as one group is killed per barrier.
    #[default]
    Regular,
    /// The barrier asks the scheduler (`query`) how many groups it wants, and the highest
    /// that many leave together when the barrier completes.
    Query,
}

impl fmt::Display for ResizeVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ResizeVariant::Regular => "regular",
            ResizeVariant::Query => "query",
        })
    }
}

/// The kind of a global barrier instance: all groups must agree on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum BarrierKind {
    /// `global_barrier`: the number of groups never changes inside it.
    Plain,
    /// `resizing_global_barrier` with the given implementation.
    Resizing(ResizeVariant),
}

/// The scheduler's answer to an `offer_kill`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum KillDecision {
    /// The offer was declined (or could not be accepted): go on.
    Continue,
    /// The group is killed: it ends here and its compute unit goes back to the scheduler.
    Killed,
}

/// The shape of the kernel's id space at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Groups {
    /// `N`: the most groups the kernel was launched with.
    pub limit: usize,
    /// `M`: active groups (ids `0..M`), forked ones that have not started yet included.
    pub active: usize,
}

/// Whether group `id` may be killed at `offer_kill` (seed 000 §3.1): only the active group
/// with the highest id, never group 0, and only if the scheduler wants a unit back.
///
/// ```
/// use occupant::model::coop::{may_kill, Groups};
/// let g = Groups { limit: 8, active: 4 };
/// assert!(may_kill(g, 3, 1));
/// assert!(!may_kill(g, 2, 1)); // not the highest id
/// assert!(!may_kill(g, 3, 0)); // nobody asked
/// assert!(!may_kill(Groups { limit: 8, active: 1 }, 0, 5)); // group 0 is never killed
/// ```
pub fn may_kill(groups: Groups, id: usize, wanted: usize) -> bool {
    wanted > 0 && id > 0 && groups.active >= 2 && id == groups.active - 1
}

/// How many groups a `request_fork` starts: what the scheduler offers, at most `N − M`.
///
/// ```
/// use occupant::model::coop::{fork_count, Groups};
/// assert_eq!(fork_count(Groups { limit: 8, active: 5 }, 10), 3);
/// assert_eq!(fork_count(Groups { limit: 8, active: 8 }, 10), 0); // k = 0 when M = N
/// ```
pub fn fork_count(groups: Groups, offered: usize) -> usize {
    offered.min(groups.limit.saturating_sub(groups.active))
}

/// The ids a fork of `k` groups gives: the next ones, `M..M+k`.
pub fn forked_ids(groups: Groups, k: usize) -> std::ops::Range<usize> {
    groups.active..groups.active + k
}

/// How many groups leave at the completion of a `query` resizing barrier: what the scheduler
/// wants, but never group 0 (`≤ M − 1`). They are the highest ids.
///
/// ```
/// use occupant::model::coop::{query_kills, Groups};
/// assert_eq!(query_kills(Groups { limit: 8, active: 8 }, 3), 3);
/// assert_eq!(query_kills(Groups { limit: 8, active: 2 }, 3), 1);
/// ```
pub fn query_kills(groups: Groups, wanted: usize) -> usize {
    wanted.min(groups.active.saturating_sub(1))
}

/// Whether a global barrier with `arrived` groups waiting is complete: every active group has
/// arrived. Killed groups have left `active` and are never waited for; groups forked inside a
/// resizing barrier join *after* it and are not waited for by it.
pub fn barrier_complete(groups: Groups, arrived: usize) -> bool {
    arrived > 0 && arrived >= groups.active
}

/// The units a scheduler with `capacity` compute units can give to a cooperative kernel's forks
/// or to a launch that asks, given what the kernel holds (`held`), what other launches hold
/// (`lent`) and what launches still gathering want (`wanted`).
///
/// Returns `(free, kill_wanted, fork_credit)`: free units now; how many groups the kernel should
/// give back (what `query` answers); how many it may fork. Units freed by a kill are reserved for
/// the launch that asked, so a kernel is never offered forks while a launch is gathering.
///
/// ```
/// use occupant::model::coop::unit_budget;
/// assert_eq!(unit_budget(8, 8, 0, 2), (0, 2, 0)); // gather 2: ask the kernel for 2
/// assert_eq!(unit_budget(8, 6, 0, 2), (2, 0, 0)); // both free: claim them
/// assert_eq!(unit_budget(8, 6, 2, 0), (0, 0, 0)); // lent out
/// assert_eq!(unit_budget(8, 6, 0, 0), (2, 0, 2)); // given back: the kernel may fork 2
/// ```
pub fn unit_budget(
    capacity: usize,
    held: usize,
    lent: usize,
    wanted: usize,
) -> (usize, usize, usize) {
    let free = capacity.saturating_sub(held + lent);
    (
        free,
        wanted.saturating_sub(free),
        free.saturating_sub(wanted),
    )
}

/// What one group did to the kernel's id space (for reports and traces).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CoopEvent {
    /// Group `id` was killed at `offer_kill` or a resizing barrier.
    Kill {
        /// The killed group's id.
        id: usize,
    },
    /// `count` groups were forked with ids `first..first+count`.
    Fork {
        /// The first new id.
        first: usize,
        /// How many.
        count: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every sequence of kills and forks under the rules keeps ids contiguous and `1 ≤ M ≤ N`.
    #[test]
    fn kills_and_forks_keep_ids_contiguous() {
        let limit = 6;
        let mut active = limit;
        let mut alive = vec![true; limit];
        let mut x = 12345u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let g = Groups { limit, active };
            let id = (x % limit as u64) as usize;
            if x % 3 == 0 {
                if may_kill(g, id, 1) {
                    alive[id] = false;
                    active -= 1;
                }
            } else {
                let k = fork_count(g, (x >> 8) as usize % 4);
                for i in forked_ids(g, k) {
                    alive[i] = true;
                }
                active += k;
            }
            assert!(active >= 1 && active <= limit);
            assert!(alive[..active].iter().all(|&a| a));
            assert!(alive[active..].iter().all(|&a| !a));
        }
    }
}
