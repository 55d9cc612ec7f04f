//! Loom model of the combining-tree barrier (`occupant::cpu::sync::TreeBarrier`, the CPU twin
//! of `occ::sync::TreeBarrier`): loom threads act as the representatives of 2–3 groups, in
//! leaves of one and two groups, over two episodes; every (non-atomic) write before an episode
//! must be visible to every read after it, in every interleaving and reads-from choice the C11
//! model allows (a missing happens-before is a data race loom reports).
//!
//! Run with `scripts/loom.sh` (`RUSTFLAGS="--cfg loom" cargo test --release --test
//! loom_tree_barrier`).
#![cfg(loom)]

mod loom_common;
use loom_common::{builder, LoomWait};

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;
use occupant::cpu::sync::TreeBarrier;

fn check_tree(groups: usize, fan_in: usize, episodes: usize, bound: usize) {
    builder(bound).check(move || {
        let bar = Arc::new(TreeBarrier::new(groups, fan_in));
        let data: Arc<Vec<UnsafeCell<usize>>> =
            Arc::new((0..groups).map(|_| UnsafeCell::new(0)).collect());
        let handles: Vec<_> = (0..groups)
            .map(|g| {
                let (bar, data) = (bar.clone(), data.clone());
                thread::spawn(move || {
                    for e in 1..=episodes {
                        data[g].with_mut(|p| unsafe { *p = e });
                        bar.wait(g, groups, &LoomWait);
                        for (other, cell) in data.iter().enumerate() {
                            let v = cell.with(|p| unsafe { *p });
                            assert_eq!(v, e, "group {g} read stale data of group {other}");
                        }
                        if e < episodes {
                            // Separate this episode's reads from the next episode's writes.
                            bar.wait(g, groups, &LoomWait);
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
fn tree_barrier_two_groups_one_leaf() {
    check_tree(2, 2, 2, 3);
}

#[test]
fn tree_barrier_two_groups_two_leaves() {
    check_tree(2, 1, 2, 3);
}

#[test]
fn tree_barrier_three_groups_uneven_leaves() {
    // Leaves {0, 1} and {2}: the root combines a full and a partial leaf.
    check_tree(3, 2, 1, 3);
}

#[test]
fn tree_barrier_three_groups_two_episodes() {
    check_tree(3, 2, 2, 2);
}
