//! The work-item handle of a phased kernel's item loop.

use crate::model::Dim3;
use std::marker::PhantomData;

/// The brand tying [`Item`]s and [`Private`](super::Private) arrays to the group that made
/// them: invariant in `'g`, so values of two different groups can never be mixed.
pub(crate) type Brand<'g> = PhantomData<fn(&'g ()) -> &'g ()>;

/// One work-item inside an item loop of a phased kernel
/// ([`PhasedGroup::items`](super::PhasedGroup::items)).
///
/// A small `Copy` value whose ids are affine in the loop counter, so a loop body that only
/// does arithmetic and plain memory accesses vectorises. Ids follow OpenCL (dimension 0 = x,
/// fastest), exactly as [`WorkItem`](crate::cpu::WorkItem)'s; group-wide values (group id,
/// sizes) are on the [`PhasedGroup`](super::PhasedGroup).
///
/// ```
/// use occupant::cpu::{ExecModel, Executor, Launch};
/// use occupant::NDRange;
/// use std::sync::Mutex;
/// let seen = Mutex::new(Vec::new());
/// Executor::new(ExecModel::Serialized)
///     .launch_phased(&Launch::new(NDRange::d2([4, 2], [2, 2]).unwrap()), || (), |g, _| {
///         g.items(|it| {
///             seen.lock().unwrap().push((it.global_id(0), it.global_id(1), it.local_linear_id()));
///         });
///     })
///     .unwrap();
/// let seen = seen.into_inner().unwrap();
/// assert_eq!(seen[..4], [(0, 0, 0), (1, 0, 1), (0, 1, 2), (1, 1, 3)]);
/// assert_eq!(seen[4], (2, 0, 0));
/// ```
#[derive(Clone, Copy)]
pub struct Item<'g> {
    pub(crate) local_linear: usize,
    pub(crate) local: Dim3,
    pub(crate) global: Dim3,
    pub(crate) global_linear: usize,
    pub(crate) brand: Brand<'g>,
}

impl Item<'_> {
    /// Local id in dimension `d`.
    #[inline(always)]
    pub fn local_id(&self, d: usize) -> usize {
        self.local[d]
    }

    /// Local id, linearised (x fastest): the index of this work-item's slot in a
    /// [`Private`](super::Private) array.
    #[inline(always)]
    pub fn local_linear_id(&self) -> usize {
        self.local_linear
    }

    /// Global id in dimension `d`.
    #[inline(always)]
    pub fn global_id(&self, d: usize) -> usize {
        self.global[d]
    }

    /// Global id, linearised (x fastest).
    #[inline(always)]
    pub fn global_linear_id(&self) -> usize {
        self.global_linear
    }
}
