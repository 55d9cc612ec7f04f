//! Loom model of the replicated-counter barriers (`occupant::cpu::sync::ReplicaBarrier`,
//! `LeanBarrier`, `LeanBellBarrier` and `RelayBarrier`, the CPU twins of
//! `occ::sync::ReplicaBarrier` / `LeanBarrier` / `LeanBellBarrier` / `RelayBarrier`): loom threads
//! act as the representatives of 2–3 groups over one and two episodes, with one and two
//! replicated counters (and leaves of one and two groups for the relay); every (non-atomic)
//! write before an episode must be visible to every read after it, in every interleaving and
//! reads-from choice the C11 model allows (relaxed polls followed by an acquire fence, as the
//! GPU's `ld.relaxed` + `fence.acquire`). lean_bell: acquiring after the doorbell alone (without
//! the read of the counter) makes both of its models fail.
//!
//! Run with `scripts/loom.sh` (`RUSTFLAGS="--cfg loom" cargo test --release --test
//! loom_replica_barrier`).
#![cfg(loom)]

mod loom_common;
use loom_common::{builder, LoomWait};

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;
use occupant::cpu::sync::{
    ClusterLeanBarrier, LeanBarrier, LeanBellBarrier, RelayBarrier, ReplicaBarrier,
};

trait Bar: Send + Sync + 'static {
    fn wait(&self, g: usize, n: usize);
}

impl Bar for ReplicaBarrier {
    fn wait(&self, g: usize, n: usize) {
        ReplicaBarrier::wait(self, g, n, &LoomWait)
    }
}

impl Bar for LeanBarrier {
    fn wait(&self, g: usize, n: usize) {
        LeanBarrier::wait(self, g, n, &LoomWait)
    }
}

impl Bar for LeanBellBarrier {
    fn wait(&self, g: usize, n: usize) {
        LeanBellBarrier::wait(self, g, n, &LoomWait)
    }
}

impl Bar for ClusterLeanBarrier {
    fn wait(&self, g: usize, n: usize) {
        ClusterLeanBarrier::wait(self, g, n, &LoomWait)
    }
}

impl Bar for RelayBarrier {
    fn wait(&self, g: usize, n: usize) {
        RelayBarrier::wait(self, g, n, &LoomWait)
    }
}

fn check<B: Bar>(make: fn() -> B, groups: usize, episodes: usize, bound: usize) {
    builder(bound).check(move || {
        let bar = Arc::new(make());
        let data: Arc<Vec<UnsafeCell<usize>>> =
            Arc::new((0..groups).map(|_| UnsafeCell::new(0)).collect());
        let handles: Vec<_> = (0..groups)
            .map(|g| {
                let (bar, data) = (bar.clone(), data.clone());
                thread::spawn(move || {
                    for e in 1..=episodes {
                        data[g].with_mut(|p| unsafe { *p = e });
                        bar.wait(g, groups);
                        for (other, cell) in data.iter().enumerate() {
                            let v = cell.with(|p| unsafe { *p });
                            assert_eq!(v, e, "group {g} read stale data of group {other}");
                        }
                        if e < episodes {
                            // Separate this episode's reads from the next episode's writes.
                            bar.wait(g, groups);
                        }
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    });
}

#[test]
fn replica_two_groups_one_line() {
    check(|| ReplicaBarrier::new(2, 1), 2, 2, 3);
}

#[test]
fn replica_three_groups_one_line() {
    check(|| ReplicaBarrier::new(3, 1), 3, 1, 3);
}

#[test]
fn lean_two_groups() {
    check(|| LeanBarrier::new(2), 2, 2, 3);
}

#[test]
fn lean_three_groups() {
    check(|| LeanBarrier::new(3), 3, 1, 3);
}

#[test]
fn lean_bell_two_groups() {
    check(|| LeanBellBarrier::new(2), 2, 2, 3);
}

#[test]
fn lean_bell_three_groups() {
    check(|| LeanBellBarrier::new(3), 3, 1, 3);
}

#[test]
fn replica_two_groups_two_lines() {
    check(|| ReplicaBarrier::new(2, 2), 2, 2, 3);
}

#[test]
fn replica_three_groups_two_lines() {
    check(|| ReplicaBarrier::new(3, 2), 3, 1, 3);
}

#[test]
fn relay_two_groups_one_leaf_two_lines() {
    check(|| RelayBarrier::new(2, 2, 2), 2, 2, 3);
}

#[test]
fn relay_two_groups_two_leaves() {
    check(|| RelayBarrier::new(2, 1, 2), 2, 2, 3);
}

#[test]
fn relay_three_groups_uneven_leaves() {
    // Leaves {0, 1} and {2}: the root counts a full and a partial leaf.
    check(|| RelayBarrier::new(3, 2, 2), 3, 1, 3);
}

#[test]
fn cluster_lean_one_cluster_of_two() {
    // Leader and member: the cluster's arrival and release, the leader alone in the global phase.
    check(|| ClusterLeanBarrier::new(2, 2), 2, 2, 3);
}

#[test]
fn cluster_lean_two_clusters_of_one() {
    // Two leaders: the global (Lean) phase only.
    check(|| ClusterLeanBarrier::new(2, 1), 2, 2, 3);
}

#[test]
fn cluster_lean_full_and_partial_cluster() {
    // Clusters {0, 1} and {2}: a member's write reaches the other cluster through its
    // leader's release into the global phase, and back through the release of the member.
    check(|| ClusterLeanBarrier::new(3, 2), 3, 1, 3);
}
