//! The serial code's handle (the CPU twin of `occ::fj::Master`): fork, join, data sharing.

use super::reduce::Word;
use super::team::{BodyPtr, Team};
use super::thread::Thread;
use super::wait::{fail, wait_for};
use crate::cpu::WorkItem;
use crate::Error;
use std::cell::Cell;
use std::marker::PhantomData;

/// The serial code's handle: the master work-item (lane 0 of the last "warp" of 32).
pub struct Master<'a> {
    pub(crate) team: &'a Team,
    pub(crate) item: &'a WorkItem<'a>,
}

/// `count` values on the data-sharing stack, visible to every thread of the group.
///
/// ```
/// # use occupant::cpu::forkjoin::{run, Team};
/// # use occupant::cpu::{Executor, ExecModel, GlobalBuffer, Launch};
/// # use occupant::NDRange;
/// let out = GlobalBuffer::<i64>::new(1);
/// Executor::new(ExecModel::Serialized).launch_with(
///     &Launch::new(NDRange::d1(64, 64)?), || Team::new(64, 1024), |item, team| {
///     run(item, team, |m| {
///         let a = m.push::<i64>(4).expect("fits");
///         m.parallel(4, |t| a.set(t.thread_num(), t.thread_num() as i64 * 2));
///         out.set(0, (0..4).map(|i| a.get(i)).sum());
///     });
/// })?;
/// assert_eq!(out.get(0), 12);
/// # Ok::<(), occupant::Error>(())
/// ```
pub struct StackArray<'a, T: Word> {
    words: &'a [Cell<u64>],
    spilled: bool,
    _t: PhantomData<T>,
}

impl<T: Word> StackArray<'_, T> {
    /// Element `i`.
    pub fn get(&self, i: usize) -> T {
        T::from_word(self.words[i].get())
    }
    /// Sets element `i`.
    pub fn set(&self, i: usize, v: T) {
        self.words[i].set(v.to_word())
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.words.len()
    }
    /// Whether it has no element.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
    /// Whether it lives in the global spill area (the shared part was full).
    pub fn spilled(&self) -> bool {
        self.spilled
    }
}

impl<'a> Master<'a> {
    /// Worker threads in the pool: the most a region can have.
    pub fn max_threads(&self) -> usize {
        self.team.workers.get()
    }

    /// Most bytes the data-sharing stack ever had in the spill area.
    pub fn spilled_bytes(&self) -> usize {
        self.team.spilled.get()
    }

    /// Allocates `count` zeroed values on the data-sharing stack: in local memory while it
    /// fits, then in the spill area; `None` when both are full. Free with
    /// [`release`](Self::release)`(`[`mark`](Self::mark)`())`.
    pub fn push<T: Word>(&self, count: usize) -> Option<StackArray<'a, T>> {
        let t = self.team;
        let take = |arena: &'a [Cell<u64>], sp: &Cell<usize>| -> Option<&'a [Cell<u64>]> {
            let at = sp.get();
            let end = at.checked_add(count)?;
            if end > arena.len() {
                return None;
            }
            sp.set(end);
            let words = &arena[at..end];
            words.iter().for_each(|w| w.set(0));
            Some(words)
        };
        if let Some(words) = take(&t.stack, &t.sp) {
            return Some(StackArray {
                words,
                spilled: false,
                _t: PhantomData,
            });
        }
        let words = take(&t.spill, &t.spill_sp)?;
        t.spilled.set(t.spilled.get().max(t.spill_sp.get() * 8));
        Some(StackArray {
            words,
            spilled: true,
            _t: PhantomData,
        })
    }

    /// The stack's current top, for [`release`](Self::release).
    pub fn mark(&self) -> (usize, usize) {
        (self.team.sp.get(), self.team.spill_sp.get())
    }

    /// Frees everything pushed since `mark` was taken.
    pub fn release(&self, mark: (usize, usize)) {
        self.team.sp.set(mark.0);
        self.team.spill_sp.set(mark.1);
    }

    /// Forks a region of `num_threads` threads (clamped to `1..=max_threads()`) running
    /// `body`, and waits for its end (the implicit barrier). Fails the launch with
    /// [`Error::BarrierDivergence`] when the region's threads passed different numbers of
    /// barriers, and with `Error::Deadlock` when a thread never arrives.
    pub fn parallel(&self, num_threads: usize, body: impl Fn(&Thread<'_>)) {
        let t = self.team;
        let n = num_threads.clamp(1, t.workers.get().max(1));
        let dynbody: &dyn for<'x> Fn(&Thread<'x>) = &body;
        // SAFETY: only the lifetime is erased. The workers call the body only between this
        // store and the join below, while this frame (which owns `body`) is suspended in
        // wait_for; the pointer is cleared before returning.
        let ptr: BodyPtr = unsafe { std::mem::transmute(dynbody as *const _) };
        t.body.set(Some(ptr));
        t.nthreads.set(n);
        t.joined.set(0);
        t.bar_count.set(0);
        t.dyn_next[0].set(0);
        t.dyn_next[1].set(0);
        t.bars_min.set(u64::MAX);
        t.bars_max.set(0);
        t.gen.set(t.gen.get() + 1); // the fork
        wait_for(self.item, || t.joined.get() == n); // the join
        t.body.set(None);
        if t.bars_min.get() != t.bars_max.get() {
            fail(
                self.item,
                Error::BarrierDivergence {
                    group: self.item.group_linear_id(),
                    detail: format!(
                        "fork-join region of {n} threads: its threads passed between {} and {} barriers (every thread must reach every barrier, worksharing loop, single and reduction of the region)",
                        t.bars_min.get(),
                        t.bars_max.get()
                    ),
                },
            );
        }
    }

    /// `parallel reduction(+: x)`: forks a region whose body returns each thread's value and
    /// returns their sum (the CUDA twin folds each warp's lanes, then the master folds the
    /// warps' partials after the join: no barrier besides fork and join).
    pub fn parallel_sum<T: Word>(&self, num_threads: usize, body: impl Fn(&Thread<'_>) -> T) -> T {
        self.parallel_reduce(num_threads, body, |a, b| a + b)
    }

    /// `parallel reduction(min: x)`: the smallest value the region's threads return.
    pub fn parallel_min<T: Word>(&self, num_threads: usize, body: impl Fn(&Thread<'_>) -> T) -> T {
        self.parallel_reduce(num_threads, body, |a, b| if b < a { b } else { a })
    }

    /// `parallel reduction(max: x)`: the largest value the region's threads return.
    pub fn parallel_max<T: Word>(&self, num_threads: usize, body: impl Fn(&Thread<'_>) -> T) -> T {
        self.parallel_reduce(num_threads, body, |a, b| if a < b { b } else { a })
    }

    /// A region whose threads each return a value, folded with the associative, commutative
    /// `op` after the join (what [`parallel_sum`](Self::parallel_sum) and its siblings do).
    pub fn parallel_reduce<T: Word>(
        &self,
        num_threads: usize,
        body: impl Fn(&Thread<'_>) -> T,
        op: impl Fn(T, T) -> T,
    ) -> T {
        let n = num_threads.clamp(1, self.team.workers.get().max(1));
        let slots: Vec<Cell<u64>> = (0..n).map(|_| Cell::new(0)).collect();
        self.parallel(n, |t| slots[t.thread_num()].set(body(t).to_word()));
        let mut r = T::from_word(slots[0].get());
        for s in &slots[1..] {
            r = op(r, T::from_word(s.get()));
        }
        r
    }

    /// The `if` clause: when `cond` is false the master runs `body` itself as a team of one
    /// (no fork, no join: the cheap path for small trip counts); otherwise
    /// [`parallel`](Self::parallel).
    pub fn parallel_if(&self, cond: bool, num_threads: usize, body: impl Fn(&Thread<'_>)) {
        if cond {
            self.parallel(num_threads, body);
        } else {
            body(&Thread::new(self.team, self.item, 0, 1, 1));
        }
    }
}
