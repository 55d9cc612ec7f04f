//! One thread of a parallel region (the CPU twin of `occ::fj::Thread`) and its constructs.

use super::reduce::Word;
use super::team::Team;
use super::wait::wait_for;
use crate::cpu::WorkItem;
use std::cell::Cell;

/// One thread of a parallel region, or the team of one of a serialised (nested, or `if(false)`)
/// region. Every construct must be reached by every thread of the region in the same order,
/// as in OpenMP.
pub struct Thread<'a> {
    pub(crate) team: &'a Team,
    pub(crate) item: &'a WorkItem<'a>,
    pub(crate) tid: usize,
    pub(crate) n: usize,
    pub(crate) level: usize,
    loops: Cell<u64>,
    reds: Cell<u64>,
    bars: Cell<u64>,
}

impl<'a> Thread<'a> {
    pub(crate) fn new(
        team: &'a Team,
        item: &'a WorkItem<'a>,
        tid: usize,
        n: usize,
        level: usize,
    ) -> Self {
        Self {
            team,
            item,
            tid,
            n,
            level,
            loops: Cell::new(0),
            reds: Cell::new(0),
            bars: Cell::new(0),
        }
    }

    /// This thread's number in the region, `0..num_threads()` (`omp_get_thread_num`).
    pub fn thread_num(&self) -> usize {
        self.tid
    }

    /// Threads in the region (`omp_get_num_threads`).
    pub fn num_threads(&self) -> usize {
        self.n
    }

    /// Nesting level: 1 in a region forked by the master, 2 and more in nested regions.
    pub fn level(&self) -> usize {
        self.level
    }

    /// Barriers this thread passed in the region (compared across the team at the join).
    pub fn barriers_passed(&self) -> u64 {
        self.bars.get()
    }

    /// The user barrier over the region's threads (the CUDA twin: named barrier 2 over the
    /// active warps).
    pub fn barrier(&self) {
        self.bars.set(self.bars.get() + 1);
        if self.n == 1 {
            return;
        }
        let t = self.team;
        let g = t.bar_gen.get();
        let arrived = t.bar_count.get() + 1;
        if arrived == self.n {
            t.bar_count.set(0);
            t.bar_gen.set(g + 1);
        } else {
            t.bar_count.set(arrived);
            wait_for(self.item, || t.bar_gen.get() != g);
        }
    }

    /// Worksharing loop, static schedule (one contiguous block of `ceil(len / n)` iterations per
    /// thread), then the implicit barrier.
    pub fn for_static(&self, lo: i64, hi: i64, f: impl FnMut(i64)) {
        self.for_static_nowait(lo, hi, f);
        self.barrier();
    }

    /// [`for_static`](Self::for_static) without the implicit barrier (`nowait`).
    pub fn for_static_nowait(&self, lo: i64, hi: i64, mut f: impl FnMut(i64)) {
        if hi <= lo {
            return;
        }
        let n = self.n as i64;
        let per = (hi - lo + n - 1) / n;
        let b = lo + per * self.tid as i64;
        let e = (b + per).min(hi);
        for i in b..e {
            f(i);
        }
    }

    /// Static schedule with chunks of `chunk` iterations dealt round-robin, then the barrier.
    pub fn for_static_chunk(&self, lo: i64, hi: i64, chunk: i64, f: impl FnMut(i64)) {
        self.for_static_chunk_nowait(lo, hi, chunk, f);
        self.barrier();
    }

    /// [`for_static_chunk`](Self::for_static_chunk) without the implicit barrier.
    pub fn for_static_chunk_nowait(&self, lo: i64, hi: i64, chunk: i64, mut f: impl FnMut(i64)) {
        let chunk = chunk.max(1);
        let stride = chunk * self.n as i64;
        let mut b = lo + chunk * self.tid as i64;
        while b < hi {
            for i in b..(b + chunk).min(hi) {
                f(i);
            }
            b += stride;
        }
    }

    /// Dynamic schedule: threads take chunks of `chunk` iterations from a shared counter, then
    /// the implicit barrier.
    pub fn for_dynamic(&self, lo: i64, hi: i64, chunk: i64, mut f: impl FnMut(i64)) {
        let chunk = chunk.max(1);
        if self.n == 1 {
            for i in lo..hi {
                f(i);
            }
            return;
        }
        let k = (self.loops.get() & 1) as usize;
        self.loops.set(self.loops.get() + 1);
        // The other counter was last used by the previous loop, which everyone has left.
        self.team.dyn_next[k ^ 1].set(0);
        loop {
            let c = &self.team.dyn_next[k];
            let got = c.get();
            c.set(got + chunk as u64);
            let b = lo + got as i64;
            if b >= hi {
                break;
            }
            for i in b..(b + chunk).min(hi) {
                f(i);
            }
        }
        self.barrier();
    }

    /// `single`: thread 0 runs `f`, then the implicit barrier.
    pub fn single(&self, f: impl FnOnce()) {
        if self.tid == 0 {
            f();
        }
        self.barrier();
    }

    /// `single nowait`.
    pub fn single_nowait(&self, f: impl FnOnce()) {
        if self.tid == 0 {
            f();
        }
    }

    /// `master`: thread 0 runs `f`; no barrier.
    pub fn master(&self, f: impl FnOnce()) {
        if self.tid == 0 {
            f();
        }
    }

    /// Sum of `v` over the region's threads; every thread gets it.
    pub fn reduce_sum<T: Word>(&self, v: T) -> T {
        self.reduce(v, |a, b| a + b)
    }

    /// Minimum of `v` over the region's threads; every thread gets it.
    pub fn reduce_min<T: Word>(&self, v: T) -> T {
        self.reduce(v, |a, b| if b < a { b } else { a })
    }

    /// Maximum of `v` over the region's threads; every thread gets it.
    pub fn reduce_max<T: Word>(&self, v: T) -> T {
        self.reduce(v, |a, b| if a < b { b } else { a })
    }

    /// Reduction with an associative, commutative `op`: per-thread slots (double-buffered, so
    /// one barrier suffices), every thread folds them in thread order.
    pub fn reduce<T: Word>(&self, v: T, op: impl Fn(T, T) -> T) -> T {
        if self.n == 1 {
            return v;
        }
        let k = (self.reds.get() & 1) as usize;
        self.reds.set(self.reds.get() + 1);
        self.team.red.borrow()[k][self.tid].set(v.to_word());
        self.barrier();
        let red = self.team.red.borrow();
        let slots = &red[k];
        let mut r = T::from_word(slots[0].get());
        for s in &slots[1..self.n] {
            r = op(r, T::from_word(s.get()));
        }
        r
    }

    /// A nested region: runs serially in this thread as a team of one, at `level() + 1`
    /// (OpenMP's default for nested regions).
    pub fn parallel(&self, _num_threads: usize, body: impl Fn(&Thread<'_>)) {
        let inner = Thread::new(self.team, self.item, 0, 1, self.level + 1);
        body(&inner);
    }
}
