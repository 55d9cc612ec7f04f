//! Flat-combining (delegation) lock: the CPU twin of the CUDA backend's
//! `occ::sync::FlatCombiningMutex<Op>` (`src/cuda/device/flat_combining_mutex.cuh`), with the
//! same role word, served bits, request and result slots and orderings (each device relaxed
//! access is a relaxed atomic here, each `fence.acq_rel.gpu` a release fence before relaxed
//! stores, each `fence.acquire.gpu` an acquire fence after relaxed loads), so that the loom
//! model (`tests/loom_flat_combining_mutex.rs`) checks the protocol that runs on the GPU. On the
//! GPU a request's number and argument travel in one 64-bit word, here the argument sits in a
//! cell beside the number, written before the number's release and read after its acquire.

use super::atomic::{fence, AtomicBool, AtomicU32, AtomicU64, Ordering};
use super::cell::UnsafeCell;
use crate::cpu::Wait;
use crate::model::Result;
use crossbeam_utils::CachePadded;

/// Slots a combiner reads per round and hands back per release fence (`OCC_FLAT_CHUNK`).
pub const FLAT_COMBINING_CHUNK: usize = 8;
/// Participants a flat-combining lock serves at most (`OCC_FLAT_CAPACITY` at most): 63 served
/// bits in the role word and 64 served words of 64.
pub const FLAT_COMBINING_MAX_PARTICIPANTS: usize = 63 + 64 * 64;

/// The role word's LOCK bit (a participant combines).
const LOCK: u64 = 1 << 63;

const NAME: &str = "flat_combining_mutex";

/// A participant's request slot (`req[b]`) and result slot (`res[b]`).
#[derive(Debug)]
struct Slot<A, R> {
    /// The number of the participant's last published request (its parity against the
    /// participant's served bit says whether it waits).
    req: AtomicU32,
    /// The argument of that request, written before the release of `req`.
    arg: UnsafeCell<Option<A>>,
    /// The number of the participant's last request served by another participant.
    res: AtomicU32,
    /// Its result, written before the release of `res`.
    result: UnsafeCell<Option<R>>,
    /// The participant's own state: its last request number, whether its last request was
    /// served by another participant (then it publishes first), and whether a thread uses
    /// the index now.
    seq: AtomicU32,
    delegated: AtomicBool,
    busy: AtomicBool,
}

/// A flat-combining lock over data `T` whose critical section is the closure `F`
/// (`Fn(&mut T, A) -> R`).
///
/// A caller first tries to take the *role* (an atomic or of the LOCK bit into the role word).
/// With it, it runs its own request unpublished, then every request published in the other
/// participants' slots (in chunks of [`FLAT_COMBINING_CHUNK`], one release fence per chunk with
/// requests and after the last), and unlocks by storing the role word (the served bits, LOCK
/// clear). Without it, it publishes its request (a release: the argument, then the request
/// number) and waits for its result or for the role. A participant whose last request was
/// served by another publishes first (the role is then likely taken). The served bits (one per
/// participant, in the role word for participants 0..62, in served words for the others)
/// change only under the role, so each request is served exactly once. Every turn ends with the
/// role released: nothing is parked with a caller that returned.
///
/// `participants` callers, each with its own index `0..participants` (a block's representative
/// on the GPU): one thread at a time per index — a second concurrent caller with the same
/// index gets an error, as does an index out of range.
///
/// ```
/// use occupant::cpu::sync::{FlatCombiningMutex, SpinWait};
/// let m = FlatCombiningMutex::new(4, 0u64, |total: &mut u64, add: u64| {
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
pub struct FlatCombiningMutex<T, F, A, R> {
    role: CachePadded<AtomicU64>,
    extra: Vec<AtomicU64>,
    slots: Vec<CachePadded<Slot<A, R>>>,
    data: UnsafeCell<T>,
    op: F,
    chunk: usize,
}

// SAFETY: the data is reached only by the role's holder (one at a time, ordered by the role's
// release and acquire); an argument by its requester before the release of its request number
// and by the combiner after the acquire of it; a result by the combiner before the release of
// the result number and by the requester after the acquire of it (checked by loom).
unsafe impl<T: Send, F: Sync, A: Send, R: Send> Sync for FlatCombiningMutex<T, F, A, R> {}
// SAFETY: owning the lock owns the data, closure, arguments and results.
unsafe impl<T: Send, F: Send, A: Send, R: Send> Send for FlatCombiningMutex<T, F, A, R> {}

impl<T, F, A, R> FlatCombiningMutex<T, F, A, R>
where
    F: Fn(&mut T, A) -> R,
{
    /// A free flat-combining lock over `data` for `participants` callers (at least 1, at most
    /// [`FLAT_COMBINING_MAX_PARTICIPANTS`]), running `op` as the critical section.
    pub fn new(participants: usize, data: T, op: F) -> Self {
        let participants = participants.clamp(1, FLAT_COMBINING_MAX_PARTICIPANTS);
        Self {
            role: CachePadded::new(AtomicU64::new(0)),
            extra: (0..participants.saturating_sub(63).div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
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
                    })
                })
                .collect(),
            data: UnsafeCell::new(data),
            op,
            chunk: FLAT_COMBINING_CHUNK,
        }
    }

    /// With `chunk` slots per round and per release fence (1 to [`FLAT_COMBINING_CHUNK`];
    /// default [`FLAT_COMBINING_CHUNK`], `OCC_FLAT_CHUNK` on the GPU).
    pub fn with_chunk(mut self, chunk: usize) -> Self {
        self.chunk = chunk.clamp(1, FLAT_COMBINING_CHUNK);
        self
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
            "flat combining mutex",
            participant,
            n,
            slot.map(|s| &s.busy),
        )?;
        let me = slot.expect("claimed: in range");
        Ok(self.apply_as(participant, me, arg, waiter))
    }

    fn apply_as<W: Wait>(&self, p: usize, me: &Slot<A, R>, arg: A, waiter: &W) -> R {
        // 1. The role first, unless the last request was served by another participant.
        if !me.delegated.load(Ordering::Relaxed) {
            // Two participants: the other's request number, read before the role atomic as a
            // hint only (it may be stale; the turn reads it again before serving).
            let hint =
                (self.slots.len() == 2).then(|| self.slots[1 - p].req.load(Ordering::Relaxed));
            let old = self.role.fetch_or(LOCK, Ordering::Relaxed);
            if old & LOCK == 0 {
                fence(Ordering::Acquire);
                let r = self.run(arg);
                self.turn(p, old, false, hint);
                return r;
            }
        }
        // 2. Publish: the argument, then the number behind a release fence.
        let seq = me.seq.load(Ordering::Relaxed).wrapping_add(1);
        me.seq.store(seq, Ordering::Relaxed);
        // SAFETY: the argument cell is this participant's; the last combiner that read it did
        // so before the release of the result (or role) this participant acquired since.
        me.arg.with_mut(|a| unsafe { *a = Some(arg) });
        fence(Ordering::Release);
        me.req.store(seq, Ordering::Relaxed);
        let mut old = 0;
        let mut combiner = false;
        waiter.spin_until(NAME, || {
            if me.res.load(Ordering::Relaxed) == seq {
                return true;
            }
            if self.role.load(Ordering::Relaxed) & LOCK == 0 {
                old = self.role.fetch_or(LOCK, Ordering::Relaxed);
                if old & LOCK == 0 {
                    combiner = true;
                    return true;
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
        // Under the role: was the own request served by the previous combiner?
        let served = self.served_bit(old, p) == seq & 1;
        let own = if served {
            None
        } else {
            // SAFETY: the own argument, written by this thread.
            let a = me.arg.with_mut(|a| unsafe { (*a).take() });
            Some(self.run(a.expect("a published request has its argument")))
        };
        self.turn(p, old, !served, None);
        match own {
            Some(r) => r,
            None => {
                // Its result is stored behind the previous combiner's fence: it may not be
                // visible yet.
                waiter.spin_until(NAME, || me.res.load(Ordering::Relaxed) == seq);
                fence(Ordering::Acquire);
                self.take_result(me)
            }
        }
    }

    fn take_result(&self, me: &Slot<A, R>) -> R {
        // SAFETY: written by the combiner before the release of the result number acquired.
        me.result
            .with_mut(|r| unsafe { (*r).take() })
            .expect("a served request has its result")
    }

    /// Participant b's served bit: in the role word `old` for b < 63, else in its served word
    /// (read under the role).
    fn served_bit(&self, old: u64, b: usize) -> u32 {
        if b < 63 {
            (old >> b) as u32 & 1
        } else {
            let k = b - 63;
            (self.extra[k / 64].load(Ordering::Relaxed) >> (k % 64)) as u32 & 1
        }
    }

    /// The combiner's turn after its own request: every pending request in the other slots,
    /// chunk by chunk (numbers read relaxed, an acquire fence before the first request run, a
    /// release fence after each chunk with requests and after the last chunk, then each
    /// result's number), then the unlock (the served bits, LOCK clear). `own`: flip the own
    /// served bit (the own published request is now served).
    fn turn(&self, me: usize, old: u64, own: bool, hint: Option<u32>) {
        let n = self.slots.len();
        // Chunks of 2 up to 4 participants (the GPU's small-grid paths), else `chunk`.
        let chunk = if n <= 4 {
            self.chunk.min(2)
        } else {
            self.chunk
        };
        let mut w0 = old & !LOCK;
        // The served words of participants >= 63 change in a copy, stored before the last fence.
        let mut extra: Vec<u64> = self
            .extra
            .iter()
            .map(|e| e.load(Ordering::Relaxed))
            .collect();
        let flip = |w0: &mut u64, extra: &mut Vec<u64>, b: usize| {
            if b < 63 {
                *w0 ^= 1 << b;
            } else {
                extra[(b - 63) / 64] ^= 1 << ((b - 63) % 64);
            }
        };
        let bit = |w0: u64, extra: &Vec<u64>, b: usize| -> u32 {
            if b < 63 {
                (w0 >> b) as u32 & 1
            } else {
                (extra[(b - 63) / 64] >> ((b - 63) % 64)) as u32 & 1
            }
        };
        if own {
            flip(&mut w0, &mut extra, me);
        }
        let mut base = 0;
        loop {
            let end = (base + chunk).min(n);
            let mut seqs: Vec<u32> = (base..end)
                .map(|b| match hint {
                    _ if b == me => 0,
                    Some(h) => h,
                    None => self.slots[b].req.load(Ordering::Relaxed),
                })
                .collect();
            if hint.is_some() {
                // Confirm after the role's acquire what the hint says is pending.
                for (i, b) in (base..end).enumerate() {
                    if b != me && seqs[i] & 1 != bit(w0, &extra, b) {
                        seqs[i] = self.slots[b].req.load(Ordering::Relaxed);
                    }
                }
            }
            let mut served = Vec::new();
            for (i, b) in (base..end).enumerate() {
                if b == me || seqs[i] & 1 == bit(w0, &extra, b) {
                    continue;
                }
                if served.is_empty() {
                    fence(Ordering::Acquire); // the acquire of the chunk's requests
                }
                let slot = &self.slots[b];
                // SAFETY: written before the release of the request number acquired above.
                let a = slot.arg.with_mut(|a| unsafe { (*a).take() });
                let r = self.run(a.expect("a published request has its argument"));
                // SAFETY: the requester reads it only after the release below.
                slot.result.with_mut(|p| unsafe { *p = Some(r) });
                flip(&mut w0, &mut extra, b);
                served.push((b, seqs[i]));
            }
            let last = end == n;
            if !served.is_empty() || last {
                if last {
                    for (e, v) in self.extra.iter().zip(&extra) {
                        e.store(*v, Ordering::Relaxed);
                    }
                }
                // The release of the results, of the data and (at the end) of the role.
                fence(Ordering::Release);
                for (b, s) in served {
                    self.slots[b].res.store(s, Ordering::Relaxed);
                }
            }
            if last {
                break;
            }
            base = end;
        }
        // The unlock, behind the last fence. A store on the GPU; an exchange here: with a relaxed
        // store, loom 0.7.2 gave a later RMW of the role word (by the unlocking thread itself,
        // after a join) the LOCK value from before that store, which coherence forbids; the
        // exchange is ordered like the store (relaxed, after the release fence).
        self.role.swap(w0, Ordering::Relaxed);
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
    fn counts_exactly_with_many_participants_and_small_chunks() {
        // 70 participants: served bits in the role word and in a served word.
        for chunk in [1, 3, FLAT_COMBINING_CHUNK] {
            let m = FlatCombiningMutex::new(70, 0u64, |c: &mut u64, add: u64| {
                let b = *c;
                *c += add;
                b
            })
            .with_chunk(chunk);
            let w = SpinWait::default();
            std::thread::scope(|s| {
                for t in 0..4 {
                    let (m, w) = (&m, &w);
                    s.spawn(move || {
                        for i in 0..300 {
                            // Each thread uses participants t, t + 4, ... (one thread each).
                            let p = t + 4 * (i % 17);
                            m.apply(p, 1, w).unwrap();
                        }
                    });
                }
            });
            assert_eq!(m.apply(69, 0, &w).unwrap(), 1200);
        }
    }
}
