//! Combining (delegation) lock after CC-Synch: the CPU twin of the CUDA backend's
//! `occ::sync::CombiningMutex<Op>` (`src/cuda/device/combining_mutex.cuh`), with the same
//! node queue, states and orderings (each device `ld.acquire`/`st.release`/`atom.acq_rel` is
//! an atomic with that ordering here, each `fence.acq_rel` a release fence before relaxed
//! flag stores), so that the loom model (`tests/loom_combining_mutex.rs`) checks the protocol
//! that runs on the GPU.

use super::atomic::{fence, AtomicBool, AtomicU32, Ordering};
use crate::cpu::Wait;
use crate::model::{Error, Result};
use crossbeam_utils::CachePadded;

/// Requests a combiner serves at most per turn, its own included (`OCC_COMBINING_BOUND`).
pub const COMBINING_BOUND: usize = 64;
/// Requests a combiner hands back per release fence (`OCC_COMBINING_BATCH`).
pub const COMBINING_BATCH: usize = 4;

/// Node status: the node's owner combines next (all-zero state: node 0 is a free queue).
const COMBINE: u32 = 0;
/// Node status: the request waits.
const WAIT: u32 = 1;
/// Node status: served, the result is in the node.
const DONE: u32 = 2;

const NAME: &str = "combining_mutex";

#[cfg(loom)]
use loom::cell::UnsafeCell;

/// `std`'s cell with loom's interface (so the same code runs under the model checker).
#[cfg(not(loom))]
#[derive(Debug)]
struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    fn new(v: T) -> Self {
        Self(std::cell::UnsafeCell::new(v))
    }
    fn with_mut<U>(&self, f: impl FnOnce(*mut T) -> U) -> U {
        f(self.0.get())
    }
}

/// A queue node (one 128-byte line on the GPU).
#[derive(Debug)]
struct Node<A, R> {
    status: AtomicU32,
    /// Id + 1 of the node linked after this one; 0: none yet.
    next: AtomicU32,
    arg: UnsafeCell<Option<A>>,
    result: UnsafeCell<Option<R>>,
}

/// A combining lock over data `T` whose critical section is the closure `F`
/// (`FnMut`-like on the data: `Fn(&mut T, A) -> R`).
///
/// Each caller publishes its request (the argument `A`) in a queue node; the caller at the
/// head (the *combiner*) runs the pending requests of the others in FIFO order, at most
/// [`COMBINING_BOUND`] per turn, in batches of [`COMBINING_BATCH`] (each link read with
/// acquire; the batch's results handed back behind one release fence, then a relaxed flag
/// store each), and passes the combiner role to the next waiter. A lock that hands off between
/// threads once per critical section pays one cache-line transfer per operation; here one
/// hand-off serves up to [`COMBINING_BOUND`] operations. On the GPU, arguments and results of
/// at most 4 bytes travel in the link and status words; here they are always in the node.
///
/// `participants` callers, each with its own index `0..participants` (a block's
/// representative on the GPU): one thread at a time per index — a second concurrent caller
/// with the same index gets an error, as does an index out of range.
///
/// ```
/// use occupant::cpu::sync::{CombiningMutex, SpinWait};
/// let m = CombiningMutex::new(4, 0u64, |total: &mut u64, add: u64| {
///     *total += add;
///     *total
/// });
/// let w = SpinWait::default();
/// std::thread::scope(|s| {
///     for p in 0..4 {
///         let m = &m;
///         let w = &w;
///         s.spawn(move || {
///             for _ in 0..1000 {
///                 m.apply(p, 1, w).unwrap();
///             }
///         });
///     }
/// });
/// assert_eq!(m.apply(0, 0, &w).unwrap(), 4000);
/// assert!(m.apply(4, 1, &w).is_err()); // no participant 4
/// ```
#[derive(Debug)]
pub struct CombiningMutex<T, F, A, R> {
    tail: CachePadded<AtomicU32>,
    nodes: Vec<CachePadded<Node<A, R>>>,
    /// Per participant: the id of the spare node it owns (`own[b]` on the GPU).
    own: Vec<CachePadded<AtomicU32>>,
    busy: Vec<CachePadded<AtomicBool>>,
    data: UnsafeCell<T>,
    op: F,
    bound: usize,
    batch: usize,
}

// SAFETY: the data and the nodes' cells are only reached under the protocol's ordering: the
// data by the combiner (one at a time), a node's argument by its announcer before the release
// of its link and by the combiner after the acquire of it, a node's result by the combiner
// before the release of DONE and by its owner after the acquire of it (checked by loom).
unsafe impl<T: Send, F: Sync, A: Send, R: Send> Sync for CombiningMutex<T, F, A, R> {}
// SAFETY: owning the lock owns the data, closure, arguments and results.
unsafe impl<T: Send, F: Send, A: Send, R: Send> Send for CombiningMutex<T, F, A, R> {}

impl<T, F, A, R> CombiningMutex<T, F, A, R>
where
    F: Fn(&mut T, A) -> R,
{
    /// A free combining lock over `data` for `participants` callers (at least 1), running
    /// `op` as the critical section.
    pub fn new(participants: usize, data: T, op: F) -> Self {
        let participants = participants.max(1);
        Self {
            tail: CachePadded::new(AtomicU32::new(0)),
            nodes: (0..=participants)
                .map(|_| {
                    CachePadded::new(Node {
                        status: AtomicU32::new(COMBINE),
                        next: AtomicU32::new(0),
                        arg: UnsafeCell::new(None),
                        result: UnsafeCell::new(None),
                    })
                })
                .collect(),
            own: (0..participants)
                .map(|p| CachePadded::new(AtomicU32::new(p as u32 + 1)))
                .collect(),
            busy: (0..participants)
                .map(|_| CachePadded::new(AtomicBool::new(false)))
                .collect(),
            data: UnsafeCell::new(data),
            op,
            bound: COMBINING_BOUND,
            batch: COMBINING_BATCH,
        }
    }

    /// With at most `bound` requests served per combiner turn (at least 1; default
    /// [`COMBINING_BOUND`], `OCC_COMBINING_BOUND` on the GPU).
    pub fn with_bound(mut self, bound: usize) -> Self {
        self.bound = bound.max(1);
        self
    }

    /// With `batch` requests per release fence (1 to [`COMBINING_BATCH`]; default
    /// [`COMBINING_BATCH`], `OCC_COMBINING_BATCH` on the GPU).
    pub fn with_batch(mut self, batch: usize) -> Self {
        self.batch = batch.clamp(1, COMBINING_BATCH);
        self
    }

    /// Number of participants.
    pub fn participants(&self) -> usize {
        self.own.len()
    }

    /// Runs `op(&mut data, arg)` under mutual exclusion with every other request, as
    /// participant `participant`, and returns its result; waits through `waiter` (whose
    /// deadline bounds the wait). [`Error::Input`] for an index out of range or in use by
    /// another thread.
    pub fn apply<W: Wait>(&self, participant: usize, arg: A, waiter: &W) -> Result<R> {
        let Some(busy) = self.busy.get(participant) else {
            return Err(Error::Input(format!(
                "combining mutex: participant {participant} out of range (0..{})",
                self.participants()
            )));
        };
        if busy.swap(true, Ordering::Acquire) {
            return Err(Error::Input(format!(
                "combining mutex: participant {participant} is in use by another thread"
            )));
        }
        let spare = self.own[participant].load(Ordering::Relaxed);
        let sp = &self.nodes[spare as usize];
        sp.status.store(WAIT, Ordering::Relaxed);
        sp.next.store(0, Ordering::Relaxed);
        // Publishes spare's fields to the next announcer; reads cur's from the previous one.
        let cur = self.tail.swap(spare, Ordering::AcqRel);
        let cn = &self.nodes[cur as usize];
        // SAFETY: cur's argument is ours until the link below is stored (the combiner reads
        // it only after an acquire of that link).
        cn.arg.with_mut(|a| unsafe { *a = Some(arg) });
        cn.next.store(spare + 1, Ordering::Release);
        self.own[participant].store(cur, Ordering::Relaxed);
        let mut status = WAIT;
        waiter.spin_until(NAME, || {
            status = cn.status.load(Ordering::Acquire);
            status != WAIT
        });
        let r = if status == DONE {
            // SAFETY: written by the combiner before the release that made the status DONE.
            cn.result.with_mut(|r| unsafe { (*r).take() })
        } else {
            Some(self.combine(cur))
        };
        busy.store(false, Ordering::Release);
        r.ok_or_else(|| Error::Backend {
            backend: "cpu",
            call: "CombiningMutex::apply".into(),
            message: "a served request has no result (protocol broken)".into(),
        })
    }

    /// The combiner's turn: the own request (node `cur`), then, in batches of up to
    /// `batch`, the published requests of others (at most `bound` in all): the links read with acquire, the requests run, one release fence, DONE into each;
    /// finally COMBINE into the node that ended the turn.
    fn combine(&self, cur: u32) -> R {
        let cn = &self.nodes[cur as usize];
        // SAFETY: the combiner holds the data; the own argument was written by this thread.
        let own_arg = cn.arg.with_mut(|a| unsafe { (*a).take() });
        let own = self.run(own_arg);
        let mut tmp = cn.next.load(Ordering::Relaxed) - 1;
        let mut served = 1;
        let mut ids = [0u32; COMBINING_BATCH];
        loop {
            let mut n = 0;
            let mut end = false;
            while n < self.batch {
                if served + n >= self.bound {
                    end = true;
                    break;
                }
                // Acquire: the argument, and the reset of the next node's link by its owner
                // (a relaxed load could read that node's link of an earlier use).
                let next = self.nodes[tmp as usize].next.load(Ordering::Acquire);
                if next == 0 {
                    end = true; // not yet published: its owner combines next
                    break;
                }
                ids[n] = tmp;
                n += 1;
                tmp = next - 1;
            }
            for &id in &ids[..n] {
                let tn = &self.nodes[id as usize];
                // SAFETY: the argument was written before the release of the link (acquired
                // above); its owner reads the result only after the DONE below.
                let arg = tn.arg.with_mut(|a| unsafe { (*a).take() });
                let r = self.run(arg);
                tn.result.with_mut(|p| unsafe { *p = Some(r) });
            }
            // The release of the batch's results and of the data (and, at the end, of the
            // turn to the next combiner).
            fence(Ordering::Release);
            for &id in &ids[..n] {
                self.nodes[id as usize]
                    .status
                    .store(DONE, Ordering::Relaxed);
            }
            served += n;
            if end {
                break;
            }
        }
        self.nodes[tmp as usize]
            .status
            .store(COMBINE, Ordering::Relaxed);
        own
    }

    fn run(&self, arg: Option<A>) -> R {
        let arg = arg.expect("combining mutex: a published request has its argument");
        // SAFETY: only the combiner (one at a time, ordered by the status hand-offs) runs here.
        self.data.with_mut(|d| (self.op)(unsafe { &mut *d }, arg))
    }

    /// Runs `f` on the data with exclusive access (no request can be in flight).
    pub fn with_data<U>(&mut self, f: impl FnOnce(&mut T) -> U) -> U {
        // SAFETY: &mut self: no other thread uses the lock.
        self.data.with_mut(|d| f(unsafe { &mut *d }))
    }
}
