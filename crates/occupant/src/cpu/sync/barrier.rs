//! The inter-group barrier API: one type, [`Barrier`], whose implementation is a run-time
//! parameter ([`BarrierKind`]) (seed 004 §5, "API").

use super::atomic_barrier::AtomicBarrier;
use super::tree_barrier::{TreeBarrier, TREE_FAN_IN};
use super::xf_barrier::XfBarrier;
use crate::cpu::Wait;
use serde::Serialize;
use std::fmt;

/// The barrier implementations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum BarrierKind {
    /// The XF master/slave barrier ([`XfBarrier`]): no read-modify-write, one word per group.
    Xf,
    /// The sense-reversing atomic-counter barrier ([`AtomicBarrier`]).
    Atomic,
    /// The combining tree ([`TreeBarrier`], leaves of [`TREE_FAN_IN`] groups).
    Tree,
}

impl BarrierKind {
    /// Every kind.
    pub const ALL: [BarrierKind; 3] = [BarrierKind::Xf, BarrierKind::Atomic, BarrierKind::Tree];

    /// The short name used in reports: `"xf"`, `"atomic"` or `"tree"`.
    pub fn name(self) -> &'static str {
        match self {
            BarrierKind::Xf => "xf",
            BarrierKind::Atomic => "atomic",
            BarrierKind::Tree => "tree",
        }
    }

    /// Parses a name as printed by [`BarrierKind::name`].
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }
}

impl Default for BarrierKind {
    /// [`BarrierKind::Xf`]: the barrier of seed 001, fastest in seeds 001 and 004 because it
    /// avoids contended read-modify-writes.
    fn default() -> Self {
        BarrierKind::Xf
    }
}

impl fmt::Display for BarrierKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug)]
pub(crate) enum Inner {
    Xf(XfBarrier),
    Atomic(AtomicBarrier),
    Tree(Box<TreeBarrier>),
}

/// An inter-group barrier over the participating groups, implementation chosen at construction.
///
/// ```
/// use occupant::cpu::sync::{Barrier, BarrierKind, SpinWait};
/// for kind in BarrierKind::ALL {
///     let b = Barrier::new(kind, 8);
///     b.wait(0, 1, &SpinWait::default());
///     assert_eq!(b.capacity(), 8);
/// }
/// ```
#[derive(Debug)]
pub struct Barrier {
    kind: BarrierKind,
    pub(crate) inner: Inner,
}

impl Barrier {
    /// A barrier of `kind` for up to `capacity` groups (size it by the launched group count).
    pub fn new(kind: BarrierKind, capacity: usize) -> Self {
        let inner = match kind {
            BarrierKind::Xf => Inner::Xf(XfBarrier::new(capacity)),
            BarrierKind::Atomic => Inner::Atomic(AtomicBarrier::new(capacity)),
            BarrierKind::Tree => Inner::Tree(Box::new(TreeBarrier::new(capacity, TREE_FAN_IN))),
        };
        Self { kind, inner }
    }

    /// A barrier of the default kind ([`BarrierKind::default`]).
    pub fn with_default_kind(capacity: usize) -> Self {
        Self::new(BarrierKind::default(), capacity)
    }

    /// The implementation in use.
    pub fn kind(&self) -> BarrierKind {
        self.kind
    }

    /// The largest number of groups this barrier can synchronise.
    pub fn capacity(&self) -> usize {
        match &self.inner {
            Inner::Xf(b) => b.capacity(),
            Inner::Atomic(b) => b.capacity(),
            Inner::Tree(b) => b.capacity(),
        }
    }

    /// The barrier for one representative of participating group `p_group_id` among
    /// `p_num_groups`.
    pub fn wait<W: Wait>(&self, p_group_id: usize, p_num_groups: usize, waiter: &W) {
        match &self.inner {
            Inner::Xf(b) => b.wait(p_group_id, p_num_groups, waiter),
            Inner::Atomic(b) => b.wait(p_group_id, p_num_groups, waiter),
            Inner::Tree(b) => b.wait(p_group_id, p_num_groups, waiter),
        }
    }
}
