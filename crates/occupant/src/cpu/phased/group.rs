//! The group handle of a phased kernel: group-wide ids, private arrays and the item loops.

use super::item::{Brand, Item};
use super::private::Private;
use crate::cpu::group::GroupInfo;
use crate::cpu::watchdog::{unwind, CpuWaiter, Unwind};
use crate::model::linearize;
use std::cell::Cell;
use std::marker::PhantomData;

/// Records the running work-item in the group's `current` if an item loop unwinds, without a
/// store to shared state per work-item on the normal path (the loop keeps `k` in a register).
struct CurrentOnUnwind<'c> {
    current: &'c Cell<usize>,
    k: usize,
}

impl Drop for CurrentOnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.current.set(self.k);
        }
    }
}

/// Leaves the `in_phase` flag when an item loop ends (normally or by unwinding).
struct PhaseGuard<'c>(&'c Cell<bool>);

impl Drop for PhaseGuard<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

/// One work-group of a phased kernel ([`Executor::launch_phased`](crate::cpu::Executor::launch_phased)).
///
/// The kernel runs once per group with this handle: code outside the item loops runs once for
/// the group (group-uniform values are plain Rust variables), and each
/// [`items`](Self::items) call runs its closure for every work-item of the group, one after
/// another in a tight loop. **The end of an item loop is the group's barrier**: every
/// work-item has finished the phase before the next one starts, so barriers are where the
/// item loops split the kernel, and a barrier inside a loop is an item loop inside a Rust
/// loop. Values a work-item keeps across barriers live in [`Private`] arrays.
///
/// ```
/// use occupant::cpu::{ExecModel, Executor, GlobalBuffer, Launch, LocalArray};
/// use occupant::NDRange;
/// // Sum 16 values per group with a tree reduction (log2(16) = 4 barriers in a loop).
/// let out = GlobalBuffer::<u32>::new(4);
/// let launch = Launch::new(NDRange::d1(64, 16).unwrap());
/// Executor::new(ExecModel::OccupancyBound { compute_units: 2 })
///     .launch_phased(&launch, || LocalArray::<u32>::new(16), |g, local| {
///         g.items(|it| local.set(it.local_linear_id(), it.global_linear_id() as u32));
///         let mut stride = 8;
///         while stride > 0 {
///             // barrier
///             g.items(|it| {
///                 let l = it.local_linear_id();
///                 if l < stride {
///                     local.set(l, local.get(l) + local.get(l + stride));
///                 }
///             });
///             stride /= 2;
///         }
///         out.set(g.group_linear_id(), local.get(0));
///     })
///     .unwrap();
/// assert_eq!(out.get(0), (0..16).sum::<u32>());
/// assert_eq!(out.get(3), (48..64).sum::<u32>());
/// ```
pub struct PhasedGroup<'g> {
    info: &'g GroupInfo<'g>,
    in_phase: Cell<bool>,
    brand: Brand<'g>,
}

impl<'g> PhasedGroup<'g> {
    pub(crate) fn new(info: &'g GroupInfo<'g>) -> Self {
        Self {
            info,
            in_phase: Cell::new(false),
            brand: PhantomData,
        }
    }

    /// Number of dimensions of the launch (1–3).
    #[inline]
    pub fn dims(&self) -> usize {
        self.info.range.dims()
    }

    /// Work-group id in dimension `d`.
    #[inline]
    pub fn group_id(&self, d: usize) -> usize {
        self.info.group_ids[d]
    }

    /// Work-group id, linearised (x fastest).
    #[inline]
    pub fn group_linear_id(&self) -> usize {
        self.info.group_linear
    }

    /// Number of groups in dimension `d`.
    #[inline]
    pub fn num_groups(&self, d: usize) -> usize {
        self.info.range.num_groups()[d]
    }

    /// Total number of groups.
    #[inline]
    pub fn group_count(&self) -> usize {
        self.info.group_count
    }

    /// Work-group size in dimension `d`.
    #[inline]
    pub fn local_size(&self, d: usize) -> usize {
        self.info.range.local_size()[d]
    }

    /// Work-items per group (the length of every [`Private`] array).
    #[inline]
    pub fn local_count(&self) -> usize {
        self.info.local_count
    }

    /// Global size in dimension `d`.
    #[inline]
    pub fn global_size(&self, d: usize) -> usize {
        self.info.global_size[d]
    }

    /// The global id of the group's work-item 0 in dimension `d`.
    #[inline]
    pub fn global_base(&self, d: usize) -> usize {
        self.info.global_base[d]
    }

    /// The occupancy hint (see [`WorkItem::occupancy_hint`](crate::cpu::WorkItem::occupancy_hint)).
    #[inline]
    pub fn occupancy_hint(&self) -> usize {
        self.info.occupancy_hint
    }

    /// The group's wait policy: every spin loop in a kernel goes through it.
    #[inline]
    pub fn waiter(&self) -> &CpuWaiter<'g> {
        &self.info.waiter
    }

    /// A private array: one default value per work-item, carried across phases.
    pub fn private<T: Copy + Default>(&self) -> Private<'g, T> {
        self.private_filled(T::default())
    }

    /// A private array with every work-item's value set to `value`.
    pub fn private_filled<T: Copy>(&self, value: T) -> Private<'g, T> {
        Private {
            data: vec![value; self.info.local_count].into_boxed_slice(),
            brand: PhantomData,
        }
    }

    /// Starts a phase: leaves on abort, perturbs under the adversarial model, refuses a
    /// barrier inside an item loop.
    #[inline]
    fn enter_phase(&self) -> PhaseGuard<'_> {
        if self.in_phase.replace(true) {
            unwind(Unwind::Divergence(
                "an item loop (a barrier) was started inside another item loop: in a phased kernel barriers are the boundaries between `items` calls, so every work-item reaches each of them".into(),
            ));
        }
        if self.info.adversarial || self.info.state.aborted() {
            self.info.leave_if_aborted();
            self.info.waiter.maybe_perturb();
        }
        PhaseGuard(&self.in_phase)
    }

    /// Runs one phase: `f` for every work-item of the group, in local-id order (x fastest),
    /// as one loop the compiler can unroll and vectorise. Returning is the group barrier.
    ///
    /// Calling `items` inside an item loop fails the launch with
    /// [`Error::BarrierDivergence`](crate::Error::BarrierDivergence).
    #[inline(always)]
    pub fn items<F: FnMut(Item<'g>)>(&self, mut f: F) {
        let _phase = self.enter_phase();
        let info = self.info;
        let [lx, ly, lz] = info.range.local_size();
        let [bx, by, bz] = info.global_base;
        let mut mark = CurrentOnUnwind {
            current: &info.current,
            k: 0,
        };
        if ly == 1 && lz == 1 {
            // The global linear id is the loop's induction variable: a kernel's
            // `global_linear_id() as u32` then vectorises as a 32-bit induction (LLVM narrows
            // a truncated induction variable, not a truncated sum of one).
            let row = linearize([bx, by, bz], info.global_size);
            for gl in row..row + lx {
                let x = gl - row;
                mark.k = x;
                f(Item {
                    local_linear: x,
                    local: [x, 0, 0],
                    global: [bx + x, by, bz],
                    global_linear: gl,
                    brand: PhantomData,
                });
            }
            return;
        }
        let mut k = 0;
        for z in 0..lz {
            for y in 0..ly {
                let row = linearize([bx, by + y, bz + z], info.global_size);
                for gl in row..row + lx {
                    let x = gl - row;
                    mark.k = k + x;
                    f(Item {
                        local_linear: k + x,
                        local: [x, y, z],
                        global: [bx + x, by + y, bz + z],
                        global_linear: gl,
                        brand: PhantomData,
                    });
                }
                k += lx;
            }
        }
    }

    /// Runs one phase with each work-item's element of `data` (which must hold exactly
    /// [`local_count`](Self::local_count) elements — a [`Private`] array, or a group's chunk
    /// of output): the zip needs no bounds checks, so plain stores vectorise.
    ///
    /// Panics (failing the launch with [`Error::KernelPanic`](crate::Error::KernelPanic)) if
    /// `data` has another length.
    ///
    /// ```
    /// use occupant::cpu::{ExecModel, Executor, Launch};
    /// use occupant::NDRange;
    /// let mut out = vec![0u32; 1024];
    /// Executor::new(ExecModel::OccupancyBound { compute_units: 2 })
    ///     .launch_phased_out(&Launch::new(NDRange::d1(1024, 256).unwrap()), &mut out, || (), |g, _, chunk| {
    ///         g.items_with(chunk, |it, o| *o = it.global_linear_id() as u32 * 3);
    ///     })
    ///     .unwrap();
    /// assert!(out.iter().enumerate().all(|(i, &v)| v == i as u32 * 3));
    /// ```
    #[inline(always)]
    pub fn items_with<T, F: FnMut(Item<'g>, &mut T)>(&self, data: &mut [T], mut f: F) {
        let n = self.info.local_count;
        assert!(
            data.len() == n,
            "items_with: the slice has {} elements, the group has {n} work-items",
            data.len()
        );
        let _phase = self.enter_phase();
        let info = self.info;
        let [lx, ly, _] = info.range.local_size();
        let [bx, by, bz] = info.global_base;
        let mut mark = CurrentOnUnwind {
            current: &info.current,
            k: 0,
        };
        let (mut y, mut z, mut k) = (0, 0, 0);
        for chunk in data.chunks_exact_mut(lx) {
            let row = linearize([bx, by + y, bz + z], info.global_size);
            // The global linear id is the induction variable, as in `items`.
            let base = chunk.as_mut_ptr();
            for gl in row..row + lx {
                let x = gl - row;
                mark.k = k + x;
                // SAFETY: `x < lx == chunk.len()` (`chunks_exact_mut`), and `slot` is the
                // only reference to that element while `f` runs.
                let slot = unsafe { &mut *base.add(x) };
                f(
                    Item {
                        local_linear: k + x,
                        local: [x, y, z],
                        global: [bx + x, by + y, bz + z],
                        global_linear: gl,
                        brand: PhantomData,
                    },
                    slot,
                );
            }
            k += lx;
            y += 1;
            if y == ly {
                y = 0;
                z += 1;
            }
        }
    }
}
