//! The shape every CPU application kernel has: a sequence of steps separated by a launch
//! (multi-launch) or by the persistent kernel's barrier, each followed by a decision whether
//! to go on, read from shared "changed" state.

use occupant::cpu::GlobalBuffer;
use std::sync::atomic::Ordering::Relaxed;

/// Chunks per worker in a step: workers claim chunks dynamically, so a worker that the OS
/// descheduled holds up one chunk, not a whole share.
const CHUNKS_PER_WORKER: usize = 16;

/// The first vertex of part `k` of `parts` of the vertices, balanced on vertices + edges (so
/// that the high-degree vertices of R-MAT graphs spread over the parts).
fn cut(offsets: &[u32], k: usize, parts: usize) -> u32 {
    let n = offsets.len() - 1;
    if k >= parts {
        return n as u32;
    }
    let total = n as u64 + u64::from(offsets[n]);
    let target = total * k as u64 / parts as u64;
    // The first vertex v with v + offsets[v] >= target.
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if mid as u64 + u64::from(offsets[mid]) < target {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo as u32
}

/// One worker (work-item) of step `s`, one of `nt`. Work is handed out in chunks claimed from
/// the step's counter (three counters rotated like [`Flags`]; the runner clears the next one).
pub(crate) struct Worker<'a> {
    pub nt: usize,
    s: u32,
    chunks: &'a GlobalBuffer<u32>,
}

impl<'a> Worker<'a> {
    pub fn new(nt: usize, s: u32, chunks: &'a GlobalBuffer<u32>) -> Self {
        Self { nt, s, chunks }
    }

    fn claim(&self) -> usize {
        self.chunks.fetch_add((self.s % 3) as usize, 1, Relaxed) as usize
    }

    /// The vertices this worker processes in this step (chunks balanced on vertices + edges,
    /// claimed one at a time).
    pub fn vertices<'o>(&'o self, offsets: &'o [u32]) -> impl Iterator<Item = u32> + 'o {
        let n = offsets.len() - 1;
        let parts = (self.nt * CHUNKS_PER_WORKER).min(n.max(1));
        std::iter::from_fn(move || {
            let c = self.claim();
            (c < parts).then(|| cut(offsets, c, parts)..cut(offsets, c + 1, parts))
        })
        .flatten()
    }

    /// The indices of `0..len` this worker processes in this step (claimed in chunks).
    pub fn share(&self, len: usize) -> impl Iterator<Item = usize> + '_ {
        let parts = (self.nt * CHUNKS_PER_WORKER).min(len);
        std::iter::from_fn(move || {
            let c = self.claim();
            (c < parts).then(|| len * c / parts..len * (c + 1) / parts)
        })
        .flatten()
    }
}

/// The chunk counters of a run (three, rotated by step).
pub(crate) fn chunk_counters() -> GlobalBuffer<u32> {
    GlobalBuffer::new(3)
}

/// Clears the chunk counter of step `s + 1` (at the start of step `s`, like [`Flags`]).
pub(crate) fn clear_next_chunks(chunks: &GlobalBuffer<u32>, s: u32) {
    chunks.store(((s + 1) % 3) as usize, 0, Relaxed);
}

/// An application as steps. Step `s` is run by every worker; [`Steps::more`]`(s)` is then
/// read by every worker (persistent) or by the host (multi-launch) after the barrier/launch
/// that ends step `s`, and must give everyone the same answer.
pub(crate) trait Steps: Sync {
    /// Most steps; past it the run stops (an error unless [`Steps::cap_is_error`] is false).
    fn max_steps(&self) -> u32;
    /// Whether reaching [`Steps::max_steps`] is an error (true but for PageRank's cap).
    fn cap_is_error(&self) -> bool {
        true
    }
    /// Run by one worker (global 0) at the start of step `s`, while the others may already be
    /// in step `s`: it may only reset state that step `s + 1` writes and nobody reads until
    /// then (see [`Flags`]).
    fn begin(&self, _s: u32) {}
    /// Worker `w`'s part of step `s`.
    fn step(&self, s: u32, w: &Worker<'_>);
    /// After step `s`: whether to run step `s + 1`. May store values every caller computes
    /// identically (idempotent), nothing else.
    fn more(&self, s: u32) -> bool;
}

/// An application that sweeps until a step changes nothing (BFS levels, Bellman-Ford, label
/// propagation): one sweep per step, at most `n + 1` steps, a [`Flags`] raised by any change.
/// Every such application is [`Steps`] through the impl below.
pub(crate) trait UntilStable: Sync {
    /// Vertices of the graph (the step cap is `n + 1` sweeps).
    fn num_vertices(&self) -> u32;
    /// The "changed" flags the sweeps raise.
    fn changed(&self) -> &Flags;
    /// Worker `w`'s part of sweep `s`; raises `changed()` for step `s` on any change.
    fn sweep(&self, s: u32, w: &Worker<'_>);
}

impl<T: UntilStable> Steps for T {
    fn max_steps(&self) -> u32 {
        round_cap(self.num_vertices(), 1)
    }

    fn begin(&self, s: u32) {
        self.changed().clear_next(s);
    }

    fn step(&self, s: u32, w: &Worker<'_>) {
        self.sweep(s, w);
    }

    fn more(&self, s: u32) -> bool {
        self.changed().raised(s)
    }
}

/// "Changed" flags rotated over three slots: step `s` raises slot `s % 3`, everyone reads it
/// in `more(s)`, and `begin(s)` clears slot `(s + 1) % 3` — last read in `more(s - 2)`, which
/// every worker finished before the barrier ending step `s - 1`. One barrier per step suffices.
pub(crate) struct Flags(GlobalBuffer<u32>);

impl Flags {
    pub fn new() -> Self {
        Flags(GlobalBuffer::new(3))
    }
    /// Step `s` changed something.
    #[inline]
    pub fn raise(&self, s: u32) {
        let i = (s % 3) as usize;
        if self.0.load(i, Relaxed) == 0 {
            self.0.store(i, 1, Relaxed);
        }
    }
    /// Whether step `s` changed something (after the barrier ending it).
    pub fn raised(&self, s: u32) -> bool {
        self.0.load((s % 3) as usize, Relaxed) != 0
    }
    /// Clears the slot of step `s + 1` (from `begin(s)`).
    pub fn clear_next(&self, s: u32) {
        self.0.store(((s + 1) % 3) as usize, 0, Relaxed);
    }
}

/// Step cap for the applications that converge within `n + 1` rounds of `per_round` steps.
pub(crate) fn round_cap(n: u32, per_round: u32) -> u32 {
    (u64::from(n) + 2)
        .saturating_mul(u64::from(per_round))
        .min(u64::from(u32::MAX)) as u32
}

/// f64 in a `GlobalBuffer<u64>`.
#[inline]
pub(crate) fn load_f64(b: &GlobalBuffer<u64>, i: usize) -> f64 {
    f64::from_bits(b.get(i))
}

#[inline]
pub(crate) fn store_f64(b: &GlobalBuffer<u64>, i: usize, v: f64) {
    b.set(i, v.to_bits());
}

/// Atomic `b[i] += v` on an f64 stored as bits.
#[inline]
pub(crate) fn add_f64(b: &GlobalBuffer<u64>, i: usize, v: f64) {
    let a = b.atomic(i);
    let mut cur = a.load(Relaxed);
    loop {
        let new = (f64::from_bits(cur) + v).to_bits();
        match a.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
            Ok(_) => return,
            Err(c) => cur = c,
        }
    }
}
