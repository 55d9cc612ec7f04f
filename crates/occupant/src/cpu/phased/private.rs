//! Per-work-item private values carried across the barriers of a phased kernel.

use super::item::{Brand, Item};
use std::ops::{Deref, DerefMut, Index, IndexMut};

/// One value per work-item of a group, alive across phases: what a work-item's local
/// variables are in the coroutine form (SYCL calls it `private_memory`).
///
/// Made by [`PhasedGroup::private`](super::PhasedGroup::private); indexed by an [`Item`] of
/// the same group without a bounds check (the brand `'g` proves the index is in range), or
/// used as a slice (`len() == local_count`), e.g. with
/// [`PhasedGroup::items_with`](super::PhasedGroup::items_with).
///
/// ```
/// use occupant::cpu::{ExecModel, Executor, Launch};
/// use occupant::NDRange;
/// let out = std::sync::Mutex::new(0u64);
/// Executor::new(ExecModel::Serialized)
///     .launch_phased(&Launch::new(NDRange::d1(8, 8).unwrap()), || (), |g, _| {
///         let mut x = g.private::<u64>();
///         g.items(|it| x[it] = it.global_linear_id() as u64);
///         // ... a barrier here ...
///         g.items(|it| x[it] *= 10);
///         *out.lock().unwrap() = x.iter().sum();
///     })
///     .unwrap();
/// assert_eq!(out.into_inner().unwrap(), 280);
/// ```
pub struct Private<'g, T> {
    pub(crate) data: Box<[T]>,
    pub(crate) brand: Brand<'g>,
}

impl<'g, T> Index<Item<'g>> for Private<'g, T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, it: Item<'g>) -> &T {
        debug_assert!(it.local_linear < self.data.len());
        // SAFETY: an `Item<'g>` and a `Private<'g, _>` come from the same group (the brand
        // is invariant and only `PhasedGroup<'g>` makes either); its arrays have `local_count`
        // elements and its items have `local_linear < local_count`.
        unsafe { self.data.get_unchecked(it.local_linear) }
    }
}

impl<'g, T> IndexMut<Item<'g>> for Private<'g, T> {
    #[inline(always)]
    fn index_mut(&mut self, it: Item<'g>) -> &mut T {
        debug_assert!(it.local_linear < self.data.len());
        // SAFETY: as in `index`.
        unsafe { self.data.get_unchecked_mut(it.local_linear) }
    }
}

impl<T> Deref for Private<'_, T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        &self.data
    }
}

impl<T> DerefMut for Private<'_, T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.data
    }
}
