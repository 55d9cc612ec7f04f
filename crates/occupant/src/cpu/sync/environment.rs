//! The participating-group execution environment (seed 001 §3, Table 2).

use crate::cpu::WorkItem;

/// The ids of one work-item in the participating-group environment (seed 001 Table 2):
/// participating groups get contiguous, unique ids `0..p_num_groups`, the same for every
/// work-item of a group and consistent across all participants.
///
/// | function | derivation |
/// | --- | --- |
/// | `p_num_groups` | `count` |
/// | `p_group_id` | `M[get_group_id()]` |
/// | `p_global_id` | `p_group_id * local_size + local_id` |
/// | `p_global_size` | `count * local_size` |
///
/// Made by [`Discovery::discover_group`](crate::cpu::sync::Discovery::discover_group); the
/// unsafe baseline uses [`Participation::native`] (all launched groups, no discovery).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Participation {
    p_group_id: usize,
    p_num_groups: usize,
    local_id: usize,
    local_size: usize,
}

impl Participation {
    /// The environment of a work-item with local linear id `local_id` in a group of
    /// `local_size` work-items, the group being participant `p_group_id` of `p_num_groups`.
    ///
    /// ```
    /// use occupant::cpu::sync::Participation;
    /// let p = Participation::new(2, 3, 5, 8);
    /// assert_eq!((p.p_global_id(), p.p_global_size()), (21, 24));
    /// ```
    pub fn new(p_group_id: usize, p_num_groups: usize, local_id: usize, local_size: usize) -> Self {
        Self {
            p_group_id,
            p_num_groups,
            local_id,
            local_size,
        }
    }

    /// The native environment of `item`: every launched group takes part with its own linear
    /// id. Synchronising over it is what seed 001 calls the occupancy-assumption approach: it
    /// deadlocks when more groups are launched than can be occupant.
    pub fn native(item: &WorkItem<'_>) -> Self {
        Self::new(
            item.group_linear_id(),
            item.group_count(),
            item.local_linear_id(),
            item.local_count(),
        )
    }

    /// `p_get_group_id()`: this group's participating id, in `0..p_num_groups()`.
    pub fn p_group_id(&self) -> usize {
        self.p_group_id
    }

    /// `p_get_num_groups()`: the number of participating groups.
    pub fn p_num_groups(&self) -> usize {
        self.p_num_groups
    }

    /// `p_get_global_id()`: `p_group_id * local_size + local_id`.
    pub fn p_global_id(&self) -> usize {
        self.p_group_id * self.local_size + self.local_id
    }

    /// `p_get_global_size()`: `p_num_groups * local_size`.
    pub fn p_global_size(&self) -> usize {
        self.p_num_groups * self.local_size
    }

    /// The work-item's local linear id.
    pub fn local_id(&self) -> usize {
        self.local_id
    }

    /// Work-items per group.
    pub fn local_size(&self) -> usize {
        self.local_size
    }
}
