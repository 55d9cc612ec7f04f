//! Replicated-counter barriers: the CPU twins of the CUDA backend's `occ::sync::ReplicaBarrier`,
//! `occ::sync::LeanBarrier`, `occ::sync::LeanBellBarrier` and `occ::sync::RelayBarrier` (`src/cuda/device/replica_barrier.cuh`), with the same
//! structure and orderings, model-checked by tests/loom_replica_barrier.rs.

use super::atomic::{fence, AtomicUsize, Ordering};
use super::episode::next_episode;
use crate::cpu::Wait;
use crossbeam_utils::CachePadded;

fn lines(n: usize) -> Vec<CachePadded<AtomicUsize>> {
    (0..n.max(1))
        .map(|_| CachePadded::new(AtomicUsize::new(0)))
        .collect()
}

/// `a` is at or after `b` on a wrapping counter.
fn at_least(a: usize, b: usize) -> bool {
    (a.wrapping_sub(b) as isize) >= 0
}

/// The pipelined wait's ordering: relaxed polls of `line` until it reaches `target`, then an
/// acquire fence (on the GPU, `ld.relaxed.gpu` polls and `fence.acquire.gpu`).
fn wait_for<W: Wait>(line: &AtomicUsize, target: usize, waiter: &W, primitive: &'static str) {
    waiter.spin_until(primitive, || at_least(line.load(Ordering::Relaxed), target));
    fence(Ordering::Acquire);
}

/// One hop over `r` replicated counters: an arrival adds 1 (`Release`, no returned value) to
/// every counter, and participant `g` polls counter `g mod r` (relaxed) until it holds
/// `episode × n`, then an `Acquire` fence. Every counter counts every arrival, so a
/// participant's counter is complete exactly when every participant has arrived, and the
/// acquire of any one counter acquires every arrival's release (each arrival heads a release
/// sequence of RMWs on that counter that the final value belongs to). Counters are monotone:
/// nothing is reset. The GPU's default uses one counter.
///
/// ```
/// use occupant::cpu::sync::{ReplicaBarrier, SpinWait};
/// let b = ReplicaBarrier::new(4, 2);
/// b.wait(0, 1, &SpinWait::default()); // one participant passes at once
/// assert_eq!(b.lines(), 2);
/// ```
#[derive(Debug)]
pub struct ReplicaBarrier {
    counters: Vec<CachePadded<AtomicUsize>>,
    /// Each group's episode count; only that group's representative touches its entry.
    episode: Vec<AtomicUsize>,
}

impl ReplicaBarrier {
    /// A barrier for up to `capacity` participating groups (at least 1) over `lines`
    /// replicated counters (at least 1; the GPU uses up to 32).
    pub fn new(capacity: usize, lines_: usize) -> Self {
        Self {
            counters: lines(lines_),
            episode: (0..capacity.max(1)).map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    /// The largest number of groups this barrier can synchronise.
    pub fn capacity(&self) -> usize {
        self.episode.len()
    }

    /// Replicated counters.
    pub fn lines(&self) -> usize {
        self.counters.len()
    }

    /// The barrier for one representative of participating group `p_group_id` among
    /// `p_num_groups` (at most [`capacity`](Self::capacity); the same in every episode).
    pub fn wait<W: Wait>(&self, p_group_id: usize, p_num_groups: usize, waiter: &W) {
        debug_assert!(p_num_groups <= self.capacity() && p_group_id < p_num_groups);
        let e = next_episode(&self.episode, p_group_id);
        let r = self.counters.len().min(p_num_groups).max(1);
        let target = e.wrapping_mul(p_num_groups);
        for c in &self.counters[..r] {
            c.fetch_add(1, Ordering::Release);
        }
        wait_for(
            &self.counters[p_group_id % r],
            target,
            waiter,
            "replica_barrier",
        );
    }
}

/// One counter with a returned arrival (grid.sync()'s structure; the CPU twin of
/// `occ::sync::LeanBarrier` and of `occ::sync::LeanPauseBarrier`, whose longer pause before the
/// first poll orders nothing): an arrival is a `fetch_add` (`AcqRel`); the last arrival is done
/// at once (its acquire half acquires every earlier arrival through the counter's release
/// sequence), the others poll the counter (relaxed) until it holds `episode × n`, then an
/// `Acquire` fence.
///
/// ```
/// use occupant::cpu::sync::{LeanBarrier, SpinWait};
/// let b = LeanBarrier::new(4);
/// b.wait(0, 1, &SpinWait::default());
/// assert_eq!(b.capacity(), 4);
/// ```
#[derive(Debug)]
pub struct LeanBarrier {
    counter: CachePadded<AtomicUsize>,
    episode: Vec<AtomicUsize>,
}

impl LeanBarrier {
    /// A barrier for up to `capacity` participating groups (at least 1).
    pub fn new(capacity: usize) -> Self {
        Self {
            counter: CachePadded::new(AtomicUsize::new(0)),
            episode: (0..capacity.max(1)).map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    /// The largest number of groups this barrier can synchronise.
    pub fn capacity(&self) -> usize {
        self.episode.len()
    }

    /// As [`ReplicaBarrier::wait`].
    pub fn wait<W: Wait>(&self, p_group_id: usize, p_num_groups: usize, waiter: &W) {
        debug_assert!(p_num_groups <= self.capacity() && p_group_id < p_num_groups);
        let e = next_episode(&self.episode, p_group_id);
        let target = e.wrapping_mul(p_num_groups);
        let old = self.counter.fetch_add(1, Ordering::AcqRel);
        if old.wrapping_add(1) != target {
            wait_for(&self.counter, target, waiter, "lean_barrier");
        }
    }
}

/// [`LeanBarrier`] whose waiters poll a doorbell apart from the counter (the CPU twin of
/// `occ::sync::LeanBellBarrier`): an arrival is a `fetch_add` (`AcqRel`); the last arrival
/// stores the episode into the doorbell (`Relaxed`: it orders nothing); the others poll the
/// doorbell (relaxed) until it shows the episode, then the counter (relaxed) until it holds
/// `episode × n` (on the GPU one load, which already sees it), then an `Acquire` fence, which
/// acquires every arrival through the counter's release sequence.
///
/// ```
/// use occupant::cpu::sync::{LeanBellBarrier, SpinWait};
/// let b = LeanBellBarrier::new(4);
/// b.wait(0, 1, &SpinWait::default());
/// assert_eq!(b.capacity(), 4);
/// ```
#[derive(Debug)]
pub struct LeanBellBarrier {
    counter: CachePadded<AtomicUsize>,
    bell: CachePadded<AtomicUsize>,
    episode: Vec<AtomicUsize>,
}

impl LeanBellBarrier {
    /// A barrier for up to `capacity` participating groups (at least 1).
    pub fn new(capacity: usize) -> Self {
        Self {
            counter: CachePadded::new(AtomicUsize::new(0)),
            bell: CachePadded::new(AtomicUsize::new(0)),
            episode: (0..capacity.max(1)).map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    /// The largest number of groups this barrier can synchronise.
    pub fn capacity(&self) -> usize {
        self.episode.len()
    }

    /// As [`ReplicaBarrier::wait`].
    pub fn wait<W: Wait>(&self, p_group_id: usize, p_num_groups: usize, waiter: &W) {
        debug_assert!(p_num_groups <= self.capacity() && p_group_id < p_num_groups);
        let e = next_episode(&self.episode, p_group_id);
        let target = e.wrapping_mul(p_num_groups);
        let old = self.counter.fetch_add(1, Ordering::AcqRel);
        if old.wrapping_add(1) == target {
            self.bell.store(e, Ordering::Relaxed);
        } else {
            waiter.spin_until("lean_bell_barrier", || {
                at_least(self.bell.load(Ordering::Relaxed), e)
            });
            wait_for(&self.counter, target, waiter, "lean_bell_barrier");
        }
    }
}

/// Leaf counters of `fan_in` consecutive participants, then one hop over `r` replicated root
/// counters: an arrival adds 1 to its leaf (`AcqRel`, returned); the last arrival of a leaf
/// acquires the leaf and adds 1 (`Release`) to every root counter; participant `g` waits on
/// root counter `g mod r` until it holds `episode × leaves` (relaxed polls, then an `Acquire`
/// fence).
///
/// ```
/// use occupant::cpu::sync::{RelayBarrier, SpinWait};
/// let b = RelayBarrier::new(4, 2, 2);
/// b.wait(0, 1, &SpinWait::default());
/// assert_eq!(b.fan_in(), 2);
/// ```
#[derive(Debug)]
pub struct RelayBarrier {
    fan_in: usize,
    leaves: Vec<CachePadded<AtomicUsize>>,
    root: Vec<CachePadded<AtomicUsize>>,
    episode: Vec<AtomicUsize>,
}

impl RelayBarrier {
    /// A barrier for up to `capacity` groups (at least 1), leaves of `fan_in` groups (at least
    /// 1), `lines` replicated root counters (at least 1).
    pub fn new(capacity: usize, fan_in: usize, lines_: usize) -> Self {
        let capacity = capacity.max(1);
        let fan_in = fan_in.max(1);
        Self {
            fan_in,
            leaves: lines(capacity.div_ceil(fan_in)),
            root: lines(lines_),
            episode: (0..capacity).map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    /// The largest number of groups this barrier can synchronise.
    pub fn capacity(&self) -> usize {
        self.episode.len()
    }

    /// Groups per leaf.
    pub fn fan_in(&self) -> usize {
        self.fan_in
    }

    /// As [`ReplicaBarrier::wait`].
    pub fn wait<W: Wait>(&self, p_group_id: usize, p_num_groups: usize, waiter: &W) {
        debug_assert!(p_num_groups <= self.capacity() && p_group_id < p_num_groups);
        let e = next_episode(&self.episode, p_group_id);
        let leaf = p_group_id / self.fan_in;
        let leaves = p_num_groups.div_ceil(self.fan_in);
        let k = self.fan_in.min(p_num_groups - leaf * self.fan_in);
        let r = self.root.len().min(leaves).max(1);
        let old = self.leaves[leaf].fetch_add(1, Ordering::AcqRel);
        if old.wrapping_add(1) == e.wrapping_mul(k) {
            for c in &self.root[..r] {
                c.fetch_add(1, Ordering::Release);
            }
        }
        let target = e.wrapping_mul(leaves);
        wait_for(&self.root[p_group_id % r], target, waiter, "relay_barrier");
    }
}

/// Lean among thread-block clusters: the CPU twin of `occ::sync::ClusterLeanBarrier`
/// (`src/cuda/device/cluster_barrier.cuh`, arrival and release through distributed shared
/// memory). Groups `c·k … c·k + c − 1` form cluster `k` (the last one may be partial); its
/// first group is the leader. A member adds 1 (`Release`) to its cluster's arrival counter
/// (on the GPU: `red.release.cluster` on the leader's shared word) and waits until its own
/// release counter reaches the episode (relaxed polls, then an `Acquire` fence). The leader
/// waits until the arrival counter holds `episode × (members − 1)` (relaxed polls, `Acquire`
/// fence), takes part in a [`LeanBarrier`] among the leaders (`AcqRel` arrival; the last one
/// is done at once, the others poll until `episode × leaders`, then `Acquire`), then a
/// `Release` fence and a relaxed add of 1 to each member's release counter (the GPU's
/// `fence.acq_rel.cluster` and `red.relaxed.cluster`). Every counter is monotone.
///
/// ```
/// use occupant::cpu::sync::{ClusterLeanBarrier, SpinWait};
/// let b = ClusterLeanBarrier::new(4, 2);
/// b.wait(0, 1, &SpinWait::default());
/// assert_eq!(b.cluster(), 2);
/// ```
#[derive(Debug)]
pub struct ClusterLeanBarrier {
    cluster: usize,
    global: CachePadded<AtomicUsize>,
    arrivals: Vec<CachePadded<AtomicUsize>>,
    releases: Vec<CachePadded<AtomicUsize>>,
    episode: Vec<AtomicUsize>,
}

impl ClusterLeanBarrier {
    /// A barrier for up to `capacity` groups (at least 1) in clusters of `cluster` groups (at
    /// least 1; 1 is [`LeanBarrier`]).
    pub fn new(capacity: usize, cluster: usize) -> Self {
        let capacity = capacity.max(1);
        let cluster = cluster.max(1);
        Self {
            cluster,
            global: CachePadded::new(AtomicUsize::new(0)),
            arrivals: lines(capacity.div_ceil(cluster)),
            releases: lines(capacity),
            episode: (0..capacity).map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    /// The largest number of groups this barrier can synchronise.
    pub fn capacity(&self) -> usize {
        self.episode.len()
    }

    /// Groups per cluster.
    pub fn cluster(&self) -> usize {
        self.cluster
    }

    /// As [`ReplicaBarrier::wait`].
    pub fn wait<W: Wait>(&self, p_group_id: usize, p_num_groups: usize, waiter: &W) {
        const NAME: &str = "cluster_lean_barrier";
        debug_assert!(p_num_groups <= self.capacity() && p_group_id < p_num_groups);
        let e = next_episode(&self.episode, p_group_id);
        let c = self.cluster;
        let k = p_group_id / c;
        let leader = k * c;
        let members = c.min(p_num_groups - leader);
        if p_group_id != leader {
            self.arrivals[k].fetch_add(1, Ordering::Release);
            wait_for(&self.releases[p_group_id], e, waiter, NAME);
            return;
        }
        if members > 1 {
            wait_for(&self.arrivals[k], e.wrapping_mul(members - 1), waiter, NAME);
        }
        let target = e.wrapping_mul(p_num_groups.div_ceil(c));
        let old = self.global.fetch_add(1, Ordering::AcqRel);
        if old.wrapping_add(1) != target {
            wait_for(&self.global, target, waiter, NAME);
        }
        fence(Ordering::Release);
        for m in leader + 1..leader + members {
            self.releases[m].fetch_add(1, Ordering::Relaxed);
        }
    }
}
