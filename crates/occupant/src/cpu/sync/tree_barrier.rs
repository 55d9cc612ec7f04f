//! Combining-tree barrier: the CPU twin of the CUDA backend's `occ::sync::TreeBarrier`
//! (`src/cuda/device/combining_barrier.cuh`).

use super::atomic::{AtomicUsize, Ordering};
use super::episode::next_episode;
use crate::cpu::Wait;
use crossbeam_utils::CachePadded;

/// A two-level combining tree: participants meet first on their leaf's counter (groups of
/// `fan_in` consecutive participants; on the GPU, the blocks of one SM), the last of each leaf
/// arrives at the root counter, and the last at the root stores the episode number to every
/// leaf's release word, where that leaf's participants wait. Every counter and release word is
/// on its own cache line, so arrivals and polls spread over lines instead of queueing on one.
///
/// The counters are monotone (episode `e` is complete on a leaf of `k` participants when its
/// counter reaches `e·k`, on the root when it reaches `e·leaves`), so nothing is reset between
/// episodes.
///
/// Ordering: leaf and root increments are `AcqRel` (the last arrival of a leaf acquires every
/// earlier arrival of the leaf through the counter's release sequence, and the last at the
/// root acquires every leaf), the release words are stored with `Release` and polled with
/// `Acquire`: every write before the barrier happens before every read after it
/// (tests/loom_tree_barrier.rs).
///
/// ```
/// use occupant::cpu::sync::{SpinWait, TreeBarrier};
/// let b = TreeBarrier::new(4, 2);
/// b.wait(0, 1, &SpinWait::default()); // one participant passes at once
/// b.wait(0, 1, &SpinWait::default());
/// assert_eq!(b.fan_in(), 2);
/// ```
#[derive(Debug)]
pub struct TreeBarrier {
    fan_in: usize,
    leaves: Vec<CachePadded<AtomicUsize>>,
    root: CachePadded<AtomicUsize>,
    release: Vec<CachePadded<AtomicUsize>>,
    /// Each group's episode count; only that group's representative touches its entry.
    episode: Vec<AtomicUsize>,
}

/// The default fan-in of the CPU tree: the groups of one leaf (on the GPU, one SM's blocks).
pub const TREE_FAN_IN: usize = 4;

impl TreeBarrier {
    /// A barrier for up to `capacity` participating groups (at least 1), leaves of `fan_in`
    /// groups (at least 1).
    pub fn new(capacity: usize, fan_in: usize) -> Self {
        let capacity = capacity.max(1);
        let fan_in = fan_in.max(1);
        let leaves = capacity.div_ceil(fan_in);
        let line = || CachePadded::new(AtomicUsize::new(0));
        Self {
            fan_in,
            leaves: (0..leaves).map(|_| line()).collect(),
            root: line(),
            release: (0..leaves).map(|_| line()).collect(),
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

    /// The barrier for one representative of participating group `p_group_id` among
    /// `p_num_groups` (at most [`capacity`](Self::capacity); the same in every episode).
    pub fn wait<W: Wait>(&self, p_group_id: usize, p_num_groups: usize, waiter: &W) {
        debug_assert!(p_num_groups <= self.capacity() && p_group_id < p_num_groups);
        let e = next_episode(&self.episode, p_group_id);
        let leaf = p_group_id / self.fan_in;
        let leaves = p_num_groups.div_ceil(self.fan_in);
        let k = self.fan_in.min(p_num_groups - leaf * self.fan_in);
        let last_of_leaf = self.leaves[leaf]
            .fetch_add(1, Ordering::AcqRel)
            .wrapping_add(1)
            == e.wrapping_mul(k);
        if last_of_leaf
            && self.root.fetch_add(1, Ordering::AcqRel).wrapping_add(1) == e.wrapping_mul(leaves)
        {
            for r in &self.release[..leaves] {
                r.store(e, Ordering::Release);
            }
            return;
        }
        // The word holds e - 1 until this episode completes and cannot pass e before this
        // group has arrived at the next one.
        waiter.spin_until("tree_barrier", || {
            self.release[leaf].load(Ordering::Acquire) == e
        });
    }
}
