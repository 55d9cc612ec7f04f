//! The per-group episode counts of the monotone-counter barriers (replica, relay, lean, tree,
//! cluster twins): each group's representative alone touches its entry, so relaxed accesses.

use super::atomic::{AtomicUsize, Ordering};

/// Bumps group `id`'s episode count and returns the new episode (1 for its first barrier;
/// wrapping, as the counters it is compared with).
pub(crate) fn next_episode(episodes: &[AtomicUsize], id: usize) -> usize {
    let e = episodes[id].load(Ordering::Relaxed).wrapping_add(1);
    episodes[id].store(e, Ordering::Relaxed);
    e
}
