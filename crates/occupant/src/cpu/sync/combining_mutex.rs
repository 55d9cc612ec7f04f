//! Combining (delegation) lock after CC-Synch: the CPU twin of the CUDA backend's
//! `occ::sync::CombiningMutex<Op>` (`src/cuda/device/combining_mutex.cuh`), with the same
//! node queue, use tags, flags and orderings (each device `ld.acquire`/`st.release`/relaxed
//! atomic is an atomic with that ordering here, each `fence.acq_rel` a release fence before
//! relaxed flag stores), so that the loom model (`tests/loom_combining_mutex.rs`) checks the
//! protocol that runs on the GPU.

use super::atomic::{fence, AtomicBool, AtomicU32, Ordering};
use super::cell::UnsafeCell;
use crate::cpu::Wait;
use crate::model::{Error, Result};
use crossbeam_utils::CachePadded;

/// Requests a combiner serves at most per turn, its own included (`OCC_COMBINING_BOUND`).
pub const COMBINING_BOUND: usize = 64;
/// Requests a combiner hands back per release fence (`OCC_COMBINING_BATCH`).
pub const COMBINING_BATCH: usize = 4;

/// A node reference: `tag << REF_ID_BITS | id`. Each use of a node gets the next tag (its owner
/// chooses it when it swaps the node into the queue), and every flag written during a use
/// carries the use's tag, so a flag left from an earlier use is told apart: nodes need no reset
/// before they are reused, and the tail exchange needs no ordering (no release fence on the GPU).
const REF_ID_BITS: u32 = 13;
const REF_ID_MASK: u32 = (1 << REF_ID_BITS) - 1;
const TAG_MASK: u32 = 511;
/// Mask of a reference (9-bit tag, 13-bit id) inside a link word.
const REF_MASK: u32 = (1 << 22) - 1;
/// Participants a combining lock serves at most (node ids are 13 bits; one node more than
/// participants).
pub const COMBINING_MAX_PARTICIPANTS: usize = (REF_ID_MASK as usize) - 1;

fn id_of(r: u32) -> usize {
    (r & REF_ID_MASK) as usize
}

fn tag_of(r: u32) -> u32 {
    (r >> REF_ID_BITS) & TAG_MASK
}

/// The reference of the node of `r` in its next use.
fn next_use(r: u32) -> u32 {
    (((tag_of(r) + 1) & TAG_MASK) << REF_ID_BITS) | (r & REF_ID_MASK)
}

const NAME: &str = "combining_mutex";

/// A queue node (one 128-byte line on the GPU).
#[derive(Debug)]
struct Node<A, R> {
    /// `tag << 1 | done` of the node's last served use: done 0 = COMBINE (the node's waiter
    /// combines next), 1 = DONE (its request is served, the result is in `result`). All zero:
    /// node 0 in use 0 is a free queue.
    status: AtomicU32,
    /// `tag << 22 | next ref`, stored by the node's waiter in use `tag`: its request is
    /// published, its argument is in the next node (the waiter's own spare).
    link: AtomicU32,
    /// The argument of the request of this node's owner, written before it links the node.
    arg: UnsafeCell<Option<A>>,
    /// The result for the request of this node's waiter, written before its DONE.
    result: UnsafeCell<Option<R>>,
}

/// A combining lock over data `T` whose critical section is the closure `F`
/// (`FnMut`-like on the data: `Fn(&mut T, A) -> R`).
///
/// Each caller publishes its request (the argument `A`) in a queue node; the caller at the
/// head (the *combiner*) runs the pending requests of the others in FIFO order, at most
/// [`COMBINING_BOUND`] per turn, in batches of [`COMBINING_BATCH`] (each link read with
/// acquire; the batch's results handed back behind one release fence, then a relaxed flag
/// store each), and passes the combiner role to the next waiter. Flags carry the tag of the
/// node's use, so nodes are reused without a reset and the tail exchange is relaxed: a request
/// costs one exchange and one release store (the publication, which also orders the caller's
/// earlier writes before its critical section). A lock that hands off between
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
    /// Per participant: the reference (last use) of the spare node it owns (`own[b]` on the
    /// GPU).
    own: Vec<CachePadded<AtomicU32>>,
    busy: Vec<CachePadded<AtomicBool>>,
    data: UnsafeCell<T>,
    op: F,
    bound: usize,
    batch: usize,
}

// SAFETY: the data and the nodes' cells are only reached under the protocol's ordering: the
// data by the combiner (one at a time), a request's argument (in its announcer's spare node) by
// the announcer before the release of its link and by the combiner after the acquire of it, a
// node's result by the combiner before the release of DONE and by its waiter after the acquire
// of it (checked by loom).
unsafe impl<T: Send, F: Sync, A: Send, R: Send> Sync for CombiningMutex<T, F, A, R> {}
// SAFETY: owning the lock owns the data, closure, arguments and results.
unsafe impl<T: Send, F: Send, A: Send, R: Send> Send for CombiningMutex<T, F, A, R> {}

impl<T, F, A, R> CombiningMutex<T, F, A, R>
where
    F: Fn(&mut T, A) -> R,
{
    /// A free combining lock over `data` for `participants` callers (at least 1, at most
    /// [`COMBINING_MAX_PARTICIPANTS`]), running `op` as the critical section.
    pub fn new(participants: usize, data: T, op: F) -> Self {
        let participants = participants.clamp(1, COMBINING_MAX_PARTICIPANTS);
        Self {
            tail: CachePadded::new(AtomicU32::new(0)),
            nodes: (0..=participants)
                .map(|_| {
                    CachePadded::new(Node {
                        status: AtomicU32::new(0),
                        link: AtomicU32::new(0),
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
        let n = self.participants();
        let busy = super::participant::claim(
            "combining mutex",
            participant,
            n,
            self.busy.get(participant).map(|b| &**b),
        )?;
        let spare = next_use(self.own[participant].load(Ordering::Relaxed));
        // SAFETY: the spare node's argument is its owner's (this participant's); the last
        // combiner that read it did so before the hand-off this participant acquired.
        self.nodes[id_of(spare)]
            .arg
            .with_mut(|a| unsafe { *a = Some(arg) });
        // Relaxed: the tags tell stale flags apart, so nothing needs publishing here.
        let cur = self.tail.swap(spare, Ordering::Relaxed);
        let cn = &self.nodes[id_of(cur)];
        // Publishes the request (and orders the caller's earlier writes before its Op).
        cn.link
            .store((tag_of(cur) << 22) | spare, Ordering::Release);
        self.own[participant].store(cur, Ordering::Relaxed);
        let want = tag_of(cur);
        let mut status = 0;
        waiter.spin_until(NAME, || {
            status = cn.status.load(Ordering::Acquire);
            (status >> 1) & TAG_MASK == want
        });
        let r = if status & 1 == 1 {
            // SAFETY: written by the combiner before the release that made the status DONE.
            cn.result.with_mut(|r| unsafe { (*r).take() })
        } else {
            Some(self.combine(spare))
        };
        drop(busy);
        r.ok_or_else(|| Error::Backend {
            backend: "cpu",
            call: "CombiningMutex::apply".into(),
            message: "a served request has no result (protocol broken)".into(),
        })
    }

    /// The combiner's turn: the own request (its argument in node `spare`), then, in batches of
    /// up to `batch`, the published requests of others from `spare`'s waiter on (at most
    /// `bound` in all): the links read with acquire (a link of another use than the expected
    /// one is not yet published), the requests run, one release fence, DONE into each; finally
    /// COMBINE into the node that ended the turn.
    fn combine(&self, spare: u32) -> R {
        // SAFETY: the combiner holds the data; the own argument was written by this thread.
        let own_arg = self.nodes[id_of(spare)]
            .arg
            .with_mut(|a| unsafe { (*a).take() });
        let own = self.run(own_arg);
        let mut tmp = spare;
        let mut served = 1;
        let mut refs = [0u32; COMBINING_BATCH];
        loop {
            let mut n = 0;
            let mut end = false;
            while n < self.batch {
                if served + n >= self.bound {
                    end = true;
                    break;
                }
                // Acquire: the request's argument, written before the release of the link.
                let link = self.nodes[id_of(tmp)].link.load(Ordering::Acquire);
                if link >> 22 != tag_of(tmp) {
                    end = true; // not yet published: its waiter combines next
                    break;
                }
                refs[n] = tmp;
                n += 1;
                tmp = link & REF_MASK;
            }
            for i in 0..n {
                // The request of refs[i]'s waiter: its argument in the node it linked.
                let arg_node = if i + 1 < n { refs[i + 1] } else { tmp };
                // SAFETY: the argument was written before the release of the link (acquired
                // above); the waiter reads the result only after the DONE below.
                let arg = self.nodes[id_of(arg_node)]
                    .arg
                    .with_mut(|a| unsafe { (*a).take() });
                let r = self.run(arg);
                self.nodes[id_of(refs[i])]
                    .result
                    .with_mut(|p| unsafe { *p = Some(r) });
            }
            // The release of the batch's results and of the data (and, at the end, of the
            // turn to the next combiner).
            fence(Ordering::Release);
            for &r in &refs[..n] {
                self.nodes[id_of(r)]
                    .status
                    .store((tag_of(r) << 1) | 1, Ordering::Relaxed);
            }
            served += n;
            if end {
                break;
            }
        }
        self.nodes[id_of(tmp)]
            .status
            .store(tag_of(tmp) << 1, Ordering::Relaxed);
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
