//! The XF (Xiao–Feng) inter-group barrier with acquire/release atomics (seed 001 §4.2, Fig. 2).

use super::atomic::{AtomicU32, Ordering};
use crate::cpu::Wait;

/// The XF barrier (seed 001 §2.2 and §4.2): a master group (participating id 0) and slaves.
/// A slave's representative sets its flag to 1 (release) and spins until it is 0 again
/// (acquire); the master waits until every slave's flag is 1 (acquire), passes a workgroup
/// barrier, and resets the flags to 0 (release). No read-modify-write instructions; each group
/// writes its own word.
///
/// Block semantics: [`XfBarrier::wait`] is the representative-only form (the master's
/// representative manages every slave); the group form (`crate::cpu::sync` group API) spreads
/// the master's slaves over its work-items as in Fig. 2. The flags are reusable: every episode
/// leaves them at 0.
///
/// ```
/// use occupant::cpu::sync::{SpinWait, XfBarrier};
/// let b = XfBarrier::new(4);
/// // one participating group: the master alone passes at once
/// b.wait(0, 1, &SpinWait::default());
/// ```
#[derive(Debug)]
pub struct XfBarrier {
    flags: Vec<AtomicU32>,
}

impl XfBarrier {
    /// A barrier for up to `capacity` participating groups (at least 1).
    pub fn new(capacity: usize) -> Self {
        Self {
            flags: (0..capacity.max(1)).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    /// The largest number of groups this barrier can synchronise.
    pub fn capacity(&self) -> usize {
        self.flags.len()
    }

    /// Slave line 3: announce arrival of slave `group` (release store of 1).
    pub fn slave_arrive(&self, group: usize) {
        self.flags[group].store(1, Ordering::Release);
    }

    /// Slave line 4: wait until the master releases slave `group` (acquire load sees 0).
    pub fn slave_wait_release<W: Wait>(&self, group: usize, waiter: &W) {
        waiter.spin_until("xf_barrier", || {
            self.flags[group].load(Ordering::Acquire) == 0
        });
    }

    /// Master line 2: wait until slave `group` has arrived (acquire load sees 1).
    pub fn master_wait_arrival<W: Wait>(&self, group: usize, waiter: &W) {
        waiter.spin_until("xf_barrier", || {
            self.flags[group].load(Ordering::Acquire) == 1
        });
    }

    /// Master line 8: release slave `group` (release store of 0).
    pub fn master_release(&self, group: usize) {
        self.flags[group].store(0, Ordering::Release);
    }

    /// The whole barrier for one representative: `p_group_id` 0 is the master, the others are
    /// slaves; `p_num_groups` groups take part (at most [`capacity`](Self::capacity)).
    pub fn wait<W: Wait>(&self, p_group_id: usize, p_num_groups: usize, waiter: &W) {
        debug_assert!(p_num_groups <= self.capacity() && p_group_id < p_num_groups);
        if p_group_id == 0 {
            for s in 1..p_num_groups {
                self.master_wait_arrival(s, waiter);
            }
            for s in 1..p_num_groups {
                self.master_release(s);
            }
        } else {
            self.slave_arrive(p_group_id);
            self.slave_wait_release(p_group_id, waiter);
        }
    }
}
