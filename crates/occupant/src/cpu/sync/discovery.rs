//! Occupancy discovery (seed 001 §3): the front type [`Discovery`], running the protocol
//! chosen by a [`DiscoveryKind`] and recording each group's participating id.

use super::atomic::{AtomicUsize, Ordering};
use super::discovery_kind::DiscoveryKind;
use super::locked_discovery::LockedDiscovery;
use super::mutex::{Mutex, MutexKind};
use super::quiescent_discovery::QuiescentDiscovery;
use crate::cpu::Wait;
use std::time::Duration;

/// The result of discovery for one participating group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Discovered {
    /// The group's participating id, in `0..count` (seed 001: `M[get_group_id()]`).
    pub p_group_id: usize,
    /// The number of participating groups (seed 001: `count`, final once the poll closed).
    pub p_num_groups: usize,
}

/// Marks a group in [`Discovery::ids`] that did not take part.
pub const NON_PARTICIPATING: usize = usize::MAX;

#[derive(Debug)]
enum Protocol {
    Quiescent(QuiescentDiscovery),
    Locked(LockedDiscovery),
}

/// Occupancy discovery for one launch: finds a set of provably co-occupant groups and gives
/// them contiguous participating ids (seed 001 §3). The protocol is a run-time parameter
/// ([`DiscoveryKind`]); the default, [`Discovery::with_default_kind`], is the quiescent
/// protocol with the executor's occupancy hint, which finds every compute unit.
///
/// A group participates iff it arrived before the poll closed; no participant leaves before
/// the poll closes, so participants are co-occupant and, under the occupancy-bound execution
/// model, fairly scheduled: spin barriers and locks among them cannot deadlock.
///
/// ```
/// use occupant::cpu::sync::{Discovery, DiscoveryKind, MutexKind, SpinWait};
/// // Seed 001's protocol, ticket lock, no delay.
/// let d = Discovery::new(4, MutexKind::Ticket, 0);
/// let w = SpinWait::default();
/// let first = d.discover(2, &w).unwrap();
/// assert_eq!((first.p_group_id, first.p_num_groups), (0, 1));
/// assert!(d.discover(0, &w).is_none()); // the poll is closed
/// // The default protocol, told that 1 group can be occupant.
/// let d = Discovery::with_default_kind(4).with_occupancy_hint(1);
/// assert_eq!(d.kind(), DiscoveryKind::Quiescent);
/// assert_eq!(d.discover(3, &w).map(|p| p.p_num_groups), Some(1));
/// assert_eq!(d.ids()[3], 0);
/// ```
#[derive(Debug)]
pub struct Discovery {
    kind: DiscoveryKind,
    protocol: Protocol,
    ids: Vec<AtomicUsize>,
    hint: Option<usize>,
}

impl Discovery {
    /// The quiet period of the quiescent protocol by default: the closer closes the poll when
    /// no group has arrived for this long and the occupancy hint was not reached (a kernel in
    /// which some groups skip discovery). An OS thread can wait milliseconds for a core on a
    /// loaded host; with the executor's hint the poll closes as soon as every compute unit
    /// has a participant, so this period is only spent when the hint cannot be reached.
    pub const DEFAULT_QUIET: Duration = Duration::from_millis(50);

    /// Seed 001's protocol for a launch of `groups` groups, using a mutex of `mutex` kind and
    /// `delay` lock/unlock rounds between the phases.
    pub fn new(groups: usize, mutex: MutexKind, delay: u32) -> Self {
        Self::with_kind(groups, DiscoveryKind::Locked { mutex, delay })
    }

    /// As [`Discovery::new`], with a mutex built by the caller (e.g. with its own backoff).
    pub fn with_mutex(groups: usize, mutex: Mutex, delay: u32) -> Self {
        let kind = DiscoveryKind::Locked {
            mutex: mutex.kind(),
            delay,
        };
        Self::from_protocol(
            groups,
            kind,
            Protocol::Locked(LockedDiscovery::new(mutex, delay)),
        )
    }

    /// Discovery of `kind` for a launch of `groups` groups.
    pub fn with_kind(groups: usize, kind: DiscoveryKind) -> Self {
        let protocol = match kind {
            DiscoveryKind::Quiescent => {
                Protocol::Quiescent(QuiescentDiscovery::new(Self::DEFAULT_QUIET))
            }
            DiscoveryKind::Locked { mutex, delay } => {
                Protocol::Locked(LockedDiscovery::new(Mutex::new(mutex), delay))
            }
        };
        Self::from_protocol(groups, kind, protocol)
    }

    /// Discovery of the default kind ([`DiscoveryKind::default`], quiescent) for a launch of
    /// `groups` groups.
    pub fn with_default_kind(groups: usize) -> Self {
        Self::with_kind(groups, DiscoveryKind::default())
    }

    fn from_protocol(groups: usize, kind: DiscoveryKind, protocol: Protocol) -> Self {
        Self {
            kind,
            protocol,
            ids: (0..groups)
                .map(|_| AtomicUsize::new(NON_PARTICIPATING))
                .collect(),
            hint: None,
        }
    }

    /// Uses `hint` as the most groups that can be occupant at once (0 = unknown) instead of
    /// the executor's ([`WorkItem::occupancy_hint`](crate::cpu::WorkItem::occupancy_hint)).
    /// Only the quiescent protocol uses a hint; a wrong one costs recall, never safety.
    pub fn with_occupancy_hint(mut self, hint: usize) -> Self {
        self.hint = Some(hint);
        self
    }

    /// Sets the quiescent protocol's quiet period (see [`Discovery::DEFAULT_QUIET`]); no
    /// effect on the locked protocol.
    pub fn with_quiet(mut self, quiet: Duration) -> Self {
        if let Protocol::Quiescent(q) = &mut self.protocol {
            *q = QuiescentDiscovery::new(quiet);
        }
        self
    }

    /// The protocol in use.
    pub fn kind(&self) -> DiscoveryKind {
        self.kind
    }

    /// The explicit occupancy hint, if one was set with [`Discovery::with_occupancy_hint`].
    pub fn occupancy_hint(&self) -> Option<usize> {
        self.hint
    }

    /// The number of groups this instance was made for.
    pub fn groups(&self) -> usize {
        self.ids.len()
    }

    /// Runs the protocol for native group `group` (< [`groups`](Self::groups)) with the
    /// explicit occupancy hint (none: 0, unknown): `Some` if it participates, `None` if it must
    /// exit at once. Kernels call [`Discovery::discover_group`] instead.
    pub fn discover<W: Wait>(&self, group: usize, waiter: &W) -> Option<Discovered> {
        self.discover_with_hint(group, self.hint.unwrap_or(0), waiter)
    }

    /// As [`Discovery::discover`], with occupancy hint `hint` (0 = unknown; the explicit hint,
    /// if set, wins).
    pub fn discover_with_hint<W: Wait>(
        &self,
        group: usize,
        hint: usize,
        waiter: &W,
    ) -> Option<Discovered> {
        let hint = self.hint.unwrap_or(hint);
        let d = match &self.protocol {
            Protocol::Quiescent(q) => q.discover(hint, waiter),
            Protocol::Locked(l) => l.discover(waiter),
        }?;
        self.ids[group].store(d.p_group_id, Ordering::Relaxed);
        Some(d)
    }

    /// After the launch: each native group's participating id, or [`NON_PARTICIPATING`].
    /// Read it once the launch has returned (no group still running the protocol).
    pub fn ids(&self) -> Vec<usize> {
        self.ids.iter().map(|a| a.load(Ordering::Acquire)).collect()
    }

    /// After the launch: the number of participating groups.
    pub fn count(&self) -> usize {
        match &self.protocol {
            Protocol::Quiescent(q) => q.count(),
            Protocol::Locked(l) => l.count(),
        }
    }
}
