//! Lazy small-grid flat-combining (delegation) lock: the CPU twin of the CUDA backend's
//! `occ::sync::LazyCombiningMutex<Op>` (`src/cuda/device/lazy_combining_mutex.cuh`), for at most
//! [`LAZY_COMBINING_MAX_PARTICIPANTS`] participants, with the same role word, request and result
//! slots and orderings (each device relaxed access is a relaxed atomic here, each
//! `fence.acq_rel.gpu` a release fence before relaxed stores, each `fence.acquire.gpu` an
//! acquire fence after relaxed loads), so that the loom model
//! (`tests/loom_lazy_combining_mutex.rs`) checks the protocol that runs on the GPU. On the GPU a
//! request's number and argument travel in one 64-bit word; here the argument sits in a cell
//! beside the number, written before the number's release and read after its acquire.
//!
//! What differs from [`FlatCombiningMutex`](super::FlatCombiningMutex): the participant that
//! takes the role KEEPS it between its own calls (parked; its own critical sections need
//! neither the role atomic nor a fence) and serves the others' published requests in each
//! call, until [`LazyCombiningMutex::release`] (the device object's destructor on the GPU) or
//! `hold` calls in a row. And the role word holds each participant's last SERVED request number
//! (21 bits each) instead of a parity bit, so the others' request numbers, read before the role
//! atomic (hints that may be stale), need no second read after the acquire: a request is
//! pending iff its number is the served number + 1 (a participant publishes its next request
//! only after the last one was served, so a stale read shows a served number).
//!
//! The hazard, as [`McsCohortMutex`](super::McsCohortMutex)'s lazy variant: a holder that,
//! between two calls, waits for a participant waiting in [`LazyCombiningMutex::apply`]
//! deadlocks (until the waiter's deadline); release first.

use super::atomic::{fence, AtomicBool, AtomicU32, AtomicU64, Ordering};
use super::cell::UnsafeCell;
use crate::cpu::Wait;
use crate::model::Result;
use crossbeam_utils::CachePadded;

/// Participants a lazy combining lock serves at most (three 21-bit served numbers fit
/// the role word beside its LOCK bit).
pub const LAZY_COMBINING_MAX_PARTICIPANTS: usize = 3;

/// The role word's LOCK bit (a participant combines).
const LOCK: u64 = 1 << 63;
/// Bits of a served request number in the role word.
const BITS: u32 = 21;
const MASK: u32 = (1 << BITS) - 1;

const NAME: &str = "lazy_combining_mutex";

fn field(w: u64, b: usize) -> u32 {
    (w >> (BITS as usize * b)) as u32 & MASK
}

fn with_field(w: u64, b: usize, v: u32) -> u64 {
    let s = BITS as usize * b;
    (w & !((MASK as u64) << s)) | (((v & MASK) as u64) << s)
}

/// Whether request number `seq` of participant `b` waits, given the role word `w`.
fn pending(w: u64, b: usize, seq: u32) -> bool {
    seq & MASK == field(w, b).wrapping_add(1) & MASK
}

/// A participant's request slot (`req[b]`) and result slot (`res[b]`).
#[derive(Debug)]
struct Slot<A, R> {
    /// The number of the participant's last published request.
    req: AtomicU32,
    /// The argument of that request, written before the release of `req`.
    arg: UnsafeCell<Option<A>>,
    /// The number of the participant's last request served by another participant.
    res: AtomicU32,
    /// Its result, written before the release of `res`.
    result: UnsafeCell<Option<R>>,
    /// The participant's own state: its last request number, whether its last request was
    /// served by another participant (then it publishes first), whether a thread uses it now.
    seq: AtomicU32,
    delegated: AtomicBool,
    busy: AtomicBool,
    /// The role is parked with this participant; its served numbers and calls in a row.
    holding: AtomicBool,
    w: AtomicU64,
    held: AtomicU32,
}

/// A lazy flat-combining lock for at most three participants over data `T` whose critical
/// section is the closure `F` (`Fn(&mut T, A) -> R`).
///
/// A caller that holds the role runs its own request, then every other request whose number is
/// its participant's served number + 1 (one acquire fence, one release fence, the results'
/// numbers). A caller without it reads the others' request numbers (hints) and tries to take
/// the role (an atomic or of the LOCK bit into the role word); with it, it does the same and
/// keeps the role. Without it, it publishes its request (the argument, then the number behind
/// a release fence) and waits for its result or for a free role (seen free in `patience` polls
/// in a row). The holder gives the role up in [`LazyCombiningMutex::release`] (a release
/// fence, then the served numbers with LOCK clear) and after `hold` calls in a row.
///
/// ```
/// use occupant::cpu::sync::{LazyCombiningMutex, SpinWait};
/// let m = LazyCombiningMutex::new(3, 0u64, |total: &mut u64, add: u64| {
///     *total += add;
///     *total
/// });
/// let w = SpinWait::default();
/// std::thread::scope(|s| {
///     for p in 0..3 {
///         let (m, w) = (&m, &w);
///         s.spawn(move || {
///             for _ in 0..1000 {
///                 m.apply(p, 1, w).unwrap();
///             }
///             // Done with the lock: a holder gives the role up (the GPU object's
///             // destructor), or the others would wait for it until their deadline.
///             m.release(p);
///         });
///     }
/// });
/// assert_eq!(m.apply(0, 0, &w).unwrap(), 3000);
/// m.release(0);
/// assert!(m.apply(3, 1, &w).is_err()); // no participant 3
/// ```
#[derive(Debug)]
pub struct LazyCombiningMutex<T, F, A, R> {
    role: CachePadded<AtomicU64>,
    slots: Vec<CachePadded<Slot<A, R>>>,
    data: UnsafeCell<T>,
    op: F,
    patience: u32,
    hold: u32,
}

// SAFETY: the data is reached only by the role's holder (one at a time, ordered by the role's
// release and acquire); an argument by its requester before the release of its request number
// and by the combiner after the acquire of it; a result by the combiner before the release of
// the result number and by the requester after the acquire of it (checked by loom).
unsafe impl<T: Send, F: Sync, A: Send, R: Send> Sync for LazyCombiningMutex<T, F, A, R> {}
// SAFETY: owning the lock owns the data, closure, arguments and results.
unsafe impl<T: Send, F: Send, A: Send, R: Send> Send for LazyCombiningMutex<T, F, A, R> {}

impl<T, F, A, R> LazyCombiningMutex<T, F, A, R>
where
    F: Fn(&mut T, A) -> R,
{
    /// A free lock over `data` for `participants` callers (1 to
    /// [`LAZY_COMBINING_MAX_PARTICIPANTS`]), running `op` as the critical section.
    pub fn new(participants: usize, data: T, op: F) -> Self {
        let participants = participants.clamp(1, LAZY_COMBINING_MAX_PARTICIPANTS);
        Self {
            role: CachePadded::new(AtomicU64::new(0)),
            slots: (0..participants)
                .map(|_| {
                    CachePadded::new(Slot {
                        req: AtomicU32::new(0),
                        arg: UnsafeCell::new(None),
                        res: AtomicU32::new(0),
                        result: UnsafeCell::new(None),
                        seq: AtomicU32::new(0),
                        delegated: AtomicBool::new(false),
                        busy: AtomicBool::new(false),
                        holding: AtomicBool::new(false),
                        w: AtomicU64::new(0),
                        held: AtomicU32::new(0),
                    })
                })
                .collect(),
            data: UnsafeCell::new(data),
            op,
            patience: 1,
            hold: 0,
        }
    }

    /// A waiter takes a free role only after seeing it free in `polls` polls in a row (at
    /// least 1, the default; `OCC_DUO_PATIENCE` on the GPU).
    pub fn with_patience(mut self, polls: u32) -> Self {
        self.patience = polls.max(1);
        self
    }

    /// The holder gives the role up after `calls` calls in a row (0, the default: only in
    /// [`LazyCombiningMutex::release`]; `OCC_LAZY_HOLD` on the GPU).
    pub fn with_hold(mut self, calls: u32) -> Self {
        self.hold = calls;
        self
    }

    /// Gives the role up if `participant` holds it (a release fence, then the served numbers
    /// with LOCK clear); the GPU object's destructor. Call it before the participant waits for
    /// another that may wait for this lock. Out-of-range indices are ignored.
    pub fn release(&self, participant: usize) {
        if let Some(me) = self.slots.get(participant) {
            self.release_as(me);
        }
    }

    fn release_as(&self, me: &Slot<A, R>) {
        if !me.holding.load(Ordering::Relaxed) {
            return;
        }
        fence(Ordering::Release);
        // An exchange: see FlatCombiningMutex::turn on loom 0.7.2 and a relaxed store.
        self.role
            .swap(me.w.load(Ordering::Relaxed) & !LOCK, Ordering::Relaxed);
        me.holding.store(false, Ordering::Relaxed);
        me.held.store(0, Ordering::Relaxed);
    }

    /// Number of participants.
    pub fn participants(&self) -> usize {
        self.slots.len()
    }

    /// Runs `op(&mut data, arg)` under mutual exclusion with every other request, as
    /// participant `participant`, and returns its result; waits through `waiter` (whose
    /// deadline bounds the wait). [`Error::Input`](crate::model::Error::Input) for an index out
    /// of range or in use by another thread.
    pub fn apply<W: Wait>(&self, participant: usize, arg: A, waiter: &W) -> Result<R> {
        let slot = self.slots.get(participant);
        let n = self.participants();
        let _busy = super::participant::claim(
            "lazy combining mutex",
            participant,
            n,
            slot.map(|s| &s.busy),
        )?;
        let me = slot.expect("claimed: in range");
        Ok(self.apply_as(participant, me, arg, waiter))
    }

    fn apply_as<W: Wait>(&self, p: usize, me: &Slot<A, R>, arg: A, waiter: &W) -> R {
        let n = self.slots.len();
        let load_others = || -> Vec<u32> {
            (0..n)
                .map(|b| {
                    if b == p {
                        0
                    } else {
                        self.slots[b].req.load(Ordering::Relaxed)
                    }
                })
                .collect()
        };
        // The holder: the others' numbers, the own request, then theirs.
        if me.holding.load(Ordering::Relaxed) {
            let hints = load_others();
            let r = self.run(arg);
            self.serve(p, me, hints);
            self.count_hold(me);
            return r;
        }
        // 1. The others' request numbers (hints) and the role, unless the last request was
        // served by another participant.
        if !me.delegated.load(Ordering::Relaxed) {
            let hints = load_others();
            let old = self.role.fetch_or(LOCK, Ordering::Relaxed);
            if old & LOCK == 0 {
                fence(Ordering::Acquire);
                me.w.store(old, Ordering::Relaxed);
                let r = self.run(arg);
                me.holding.store(true, Ordering::Relaxed);
                me.held.store(0, Ordering::Relaxed);
                self.serve(p, me, hints);
                self.count_hold(me);
                return r;
            }
        }
        // 2. Publish: the argument, then the number behind a release fence.
        let seq = me.seq.load(Ordering::Relaxed).wrapping_add(1);
        me.seq.store(seq, Ordering::Relaxed);
        // SAFETY: the argument cell is this participant's; the last holder that read it did
        // so before the release of the result (or role) this participant acquired since.
        me.arg.with_mut(|a| unsafe { *a = Some(arg) });
        fence(Ordering::Release);
        me.req.store(seq, Ordering::Relaxed);
        let mut old = 0;
        let mut combiner = false;
        let mut free_seen = 0u32;
        waiter.spin_until(NAME, || {
            if me.res.load(Ordering::Relaxed) == seq {
                return true;
            }
            if self.role.load(Ordering::Relaxed) & LOCK != 0 {
                free_seen = 0;
            } else {
                free_seen += 1;
                if free_seen >= self.patience {
                    old = self.role.fetch_or(LOCK, Ordering::Relaxed);
                    if old & LOCK == 0 {
                        combiner = true;
                        return true;
                    }
                    free_seen = 0;
                }
            }
            false
        });
        fence(Ordering::Acquire);
        if !combiner {
            me.delegated.store(true, Ordering::Relaxed);
            return self.take_result(me);
        }
        me.delegated.store(false, Ordering::Relaxed);
        let mut w = old & !LOCK;
        // Under the role: was the own request served by the previous holder?
        let served = !pending(w, p, seq);
        let own = if served {
            None
        } else {
            // SAFETY: the own argument, written by this thread.
            let a = me.arg.with_mut(|a| unsafe { (*a).take() });
            w = with_field(w, p, seq);
            Some(self.run(a.expect("a published request has its argument")))
        };
        me.w.store(w, Ordering::Relaxed);
        me.holding.store(true, Ordering::Relaxed);
        me.held.store(0, Ordering::Relaxed);
        let hints = load_others();
        self.serve(p, me, hints);
        let r = match own {
            Some(r) => r,
            None => {
                // Its result is stored behind the previous holder's release fence: it may not
                // be visible yet.
                waiter.spin_until(NAME, || me.res.load(Ordering::Relaxed) == seq);
                fence(Ordering::Acquire);
                self.take_result(me)
            }
        };
        self.count_hold(me);
        r
    }

    /// After a call as the holder: gives the role up at the `hold`-th call in a row.
    fn count_hold(&self, me: &Slot<A, R>) {
        if self.hold == 0 {
            return;
        }
        let h = me.held.load(Ordering::Relaxed) + 1;
        me.held.store(h, Ordering::Relaxed);
        if h >= self.hold {
            self.release_as(me);
        }
    }

    fn take_result(&self, me: &Slot<A, R>) -> R {
        // SAFETY: written by the combiner before the release of the result number acquired.
        me.result
            .with_mut(|r| unsafe { (*r).take() })
            .expect("a served request has its result")
    }

    /// Under the role (its served numbers in `me.w`): every other participant whose request
    /// number `seqs[b]` (read before the role atomic or the own request) is its served number +
    /// 1, behind one acquire fence; one release fence; each result's number. The role stays.
    fn serve(&self, me_index: usize, me: &Slot<A, R>, seqs: Vec<u32>) {
        let mut w = me.w.load(Ordering::Relaxed);
        let mut served = Vec::new();
        for (b, (slot, &seq)) in self.slots.iter().zip(&seqs).enumerate() {
            if b == me_index || !pending(w, b, seq) {
                continue;
            }
            if served.is_empty() {
                fence(Ordering::Acquire); // the acquire of the requests
            }
            // SAFETY: written before the release of the request number acquired above (a
            // pending number is the participant's latest: it publishes no other until served).
            let a = slot.arg.with_mut(|a| unsafe { (*a).take() });
            let r = self.run(a.expect("a published request has its argument"));
            // SAFETY: the requester reads it only after the release below.
            slot.result.with_mut(|p| unsafe { *p = Some(r) });
            w = with_field(w, b, seq);
            served.push((b, seq));
        }
        me.w.store(w, Ordering::Relaxed);
        if served.is_empty() {
            return;
        }
        // The release of the results and of the data.
        fence(Ordering::Release);
        for (b, s) in served {
            self.slots[b].res.store(s, Ordering::Relaxed);
        }
    }

    fn run(&self, arg: A) -> R {
        // SAFETY: only the role's holder (one at a time, ordered by the role hand-offs) runs.
        self.data.with_mut(|d| (self.op)(unsafe { &mut *d }, arg))
    }

    /// Runs `f` on the data with exclusive access (no request can be in flight).
    pub fn with_data<U>(&mut self, f: impl FnOnce(&mut T) -> U) -> U {
        // SAFETY: &mut self: no other thread uses the lock.
        self.data.with_mut(|d| f(unsafe { &mut *d }))
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::cpu::sync::SpinWait;

    #[test]
    fn counts_exactly_with_two_and_three_participants() {
        for (n, patience) in [(1usize, 1u32), (2, 1), (3, 1), (2, 4), (3, 4)] {
            let m = LazyCombiningMutex::new(n, 0u64, |c: &mut u64, add: u64| {
                let b = *c;
                *c += add;
                b
            })
            .with_patience(patience)
            .with_hold(if patience > 1 { 3 } else { 0 });
            let w = SpinWait::default();
            std::thread::scope(|s| {
                for p in 0..n {
                    let (m, w) = (&m, &w);
                    s.spawn(move || {
                        for _ in 0..2000 {
                            m.apply(p, 1, w).unwrap();
                        }
                        m.release(p);
                    });
                }
            });
            assert_eq!(m.apply(0, 0, &w).unwrap(), 2000 * n as u64);
        }
    }

    #[test]
    fn served_numbers_wrap_in_the_role_word() {
        let w = with_field(0, 2, MASK);
        assert_eq!(field(w, 2), MASK);
        assert!(pending(w, 2, MASK + 1)); // 2^21 after 2^21 - 1 (mod 2^21)
        assert!(!pending(w, 2, MASK));
        assert_eq!(field(w, 0), 0);
        assert_eq!(field(w, 1), 0);
    }
}
