//! The handle a cooperative kernel's work-items receive: participating ids and the five
//! cooperative operations, with block semantics.

use super::core::CoopCore;
use super::exit::{leave, CoopExit};
use super::HostMsg;
use crate::cpu::WorkItem;
use crate::model::coop::{BarrierKind, Entry, KillDecision, ResizeVariant};
use std::cell::Cell;
use std::sync::mpsc::Sender;

/// What the groups of one cooperative kernel share.
pub(crate) struct KernelShared<T> {
    pub(crate) core: std::sync::Arc<CoopCore>,
    pub(crate) host: Sender<HostMsg<T>>,
    pub(crate) variant: ResizeVariant,
    pub(crate) perturb: bool,
}

/// One work-item of a cooperative kernel (the first argument of a cooperative kernel).
///
/// Ids: [`group_id`](Self::group_id) is the group's id in the cooperative kernel (`0..M`,
/// stable for the group's life), [`num_groups`](Self::num_groups) is `M` now. The cooperative
/// operations are *group-level*: every work-item of a group calls them at the same point (block
/// semantics); work-item 0 talks to the scheduler and the group learns the answer through a
/// workgroup broadcast.
pub struct CoopItem<'a, 'k, T> {
    pub(crate) item: &'a WorkItem<'k>,
    pub(crate) shared: &'a KernelShared<T>,
    pub(crate) id: usize,
    /// `M` as this group last saw it (group-uniform).
    pub(crate) m: Cell<usize>,
}

impl<'a, 'k, T: Clone + Send> CoopItem<'a, 'k, T> {
    /// The underlying work-item: local ids, the workgroup barrier, the wait policy.
    pub fn item(&self) -> &'a WorkItem<'k> {
        self.item
    }

    /// The group's id in the cooperative kernel, in `0..num_groups()`.
    pub fn group_id(&self) -> usize {
        self.id
    }

    /// `M` as this group last saw it: at its start, at its last `request_fork`/`offer_kill`
    /// (the count right after it) and at its last global barrier (the count when the barrier
    /// completed — the same for every group it released). So after a (resizing) barrier every
    /// group strides over the same `0..M`, even while a faster group already offers itself at
    /// the next barrier. [`current_num_groups`](Self::current_num_groups) reads the live count.
    pub fn num_groups(&self) -> usize {
        self.m.get()
    }

    /// The live `M` (changes whenever any group is killed or forks).
    pub fn current_num_groups(&self) -> usize {
        self.shared.core.num_groups()
    }

    /// Work-item id across the active groups: `group_id() * local_count + local id`.
    pub fn global_id(&self) -> usize {
        self.id * self.item.local_count() + self.item.local_linear_id()
    }

    /// Work-items across the active groups: `num_groups() * local_count`.
    pub fn global_size(&self) -> usize {
        self.num_groups() * self.item.local_count()
    }

    /// Work-items per group.
    pub fn local_count(&self) -> usize {
        self.item.local_count()
    }

    /// Local id, linearised.
    pub fn local_id(&self) -> usize {
        self.item.local_linear_id()
    }

    fn check_abort(&self) {
        if self.shared.core.aborted() {
            leave(CoopExit::Aborted);
        }
        if self.shared.perturb && self.item.local_linear_id() == 0 {
            perturb(self.id);
        }
    }

    /// Work-item 0 computes `f()`, every work-item of the group gets it.
    #[track_caller]
    fn group_value(&self, f: impl FnOnce() -> u64) -> u64 {
        let v = if self.item.local_linear_id() == 0 {
            f()
        } else {
            0
        };
        if self.item.local_count() == 1 {
            v
        } else {
            self.item.broadcast(0, v)
        }
    }

    /// Offers the group to the scheduler. If the offer is accepted this call does not return:
    /// the group ends here (every work-item leaves the kernel) and its compute unit goes to
    /// another launch. Only the group with the highest id can be killed, never group 0.
    #[track_caller]
    pub fn offer_kill(&self) {
        self.check_abort();
        let v = self.group_value(|| {
            let core = &self.shared.core;
            let killed = core.offer_kill(self.id) == KillDecision::Killed;
            ((core.num_groups() as u64) << 2) | killed as u64
        });
        if v & 3 == 1 {
            leave(CoopExit::Killed);
        }
        self.m.set((v >> 2) as usize);
    }

    /// Asks the scheduler for more groups. It may start `k ∈ [0, N − M]` groups with ids
    /// `M..M+k`; they call the kernel with [`Entry::Fork`] and `transmit` (work-item 0's
    /// value) and continue from this point. Returns `k`.
    #[track_caller]
    pub fn request_fork(&self, transmit: &T) -> usize {
        self.check_abort();
        let v = self.group_value(|| {
            let (ids, m) = self.shared.core.request_fork();
            let k = ids.len();
            if k > 0 {
                self.send_fork(ids, Entry::Fork(transmit.clone()), m);
            }
            ((m as u64) << 32) | k as u64
        });
        self.m.set((v >> 32) as usize);
        (v & 0xFFFF_FFFF) as usize
    }

    fn send_fork(&self, ids: std::ops::Range<usize>, entry: Entry<T>, m: usize) {
        // The host loop outlives every group; a failed send means it is gone (aborted).
        if self.shared.host.send(HostMsg::Fork(ids, entry, m)).is_err() {
            self.shared.core.abort();
        }
    }

    /// `query`: how many groups the scheduler wants back now (0 when none; never counts
    /// group 0).
    pub fn query(&self) -> usize {
        self.shared.core.query()
    }

    /// Global barrier across the active groups; the number of groups does not change inside
    /// it. A group killed before it arrives is not waited for.
    #[track_caller]
    pub fn global_barrier(&self) {
        self.barrier(BarrierKind::Plain, None);
    }

    /// Resizing global barrier (seed 000 §3.1, implemented as §4.2 with the launch's
    /// [`ResizeVariant`]): the groups may be fewer or more after it. Killed groups (highest
    /// ids) do not return from this call; new groups start after it with [`Entry::Resize`] and
    /// group 0's `transmit` value.
    #[track_caller]
    pub fn resizing_global_barrier(&self, transmit: &T) {
        let variant = self.shared.variant;
        if variant == ResizeVariant::Regular && self.id != 0 {
            self.offer_kill();
        }
        self.barrier(BarrierKind::Resizing(variant), Some(transmit));
    }

    #[track_caller]
    fn barrier(&self, kind: BarrierKind, transmit: Option<&T>) {
        self.check_abort();
        if self.item.local_count() > 1 {
            self.item.barrier();
        }
        let v = self.group_value(|| {
            let core = &self.shared.core;
            let gen = core.arrive(self.id, kind);
            match core.wait_release(self.id, gen, self.item.waiter()) {
                None => 2,
                Some(r) => {
                    if let (Some(ids), Some(t)) = (r.forked, transmit) {
                        self.send_fork(ids, Entry::Resize(t.clone()), r.active);
                    }
                    ((r.active as u64) << 2) | r.killed as u64
                }
            }
        });
        match v & 3 {
            1 => leave(CoopExit::Killed),
            2 => leave(CoopExit::Aborted),
            _ => {}
        }
        self.m.set((v >> 2) as usize);
    }
}

/// Random short delays at cooperative operations (the adversarial model).
fn perturb(id: usize) {
    use std::cell::Cell;
    thread_local!(static X: Cell<u64> = const { Cell::new(0) });
    X.with(|x| {
        let mut v = x.get() ^ (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x2545_F491;
        v ^= v << 13;
        v ^= v >> 7;
        v ^= v << 17;
        x.set(v);
        match v % 16 {
            0 => std::thread::sleep(std::time::Duration::from_micros(v % 50)),
            1..=3 => std::thread::yield_now(),
            _ => {}
        }
    });
}
