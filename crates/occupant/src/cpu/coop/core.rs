//! The state machine of one cooperative scheduler and the kernel it runs: compute units, the
//! kernel's id space, the resizing barrier. Backend-independent in its waiting (any [`Wait`]),
//! and built on loom's atomics and mutex under `cfg(loom)` so that `tests/loom_coop.rs` checks
//! this very code.
//!
//! The barrier's common case takes no lock. Arrivals count down one atomic word, `pending`
//! (active groups not yet arrived; every change of `M` — a kill, a fork, a finish, a barrier's
//! own kills and forks — moves it by as much, under the lock); whoever takes it to zero
//! completes the barrier. That completion, and `offer_kill` by any group, read one atomic hint
//! (`request`: the scheduler wants units back or has units to fork into, or churn is on, kept
//! up to date under the lock by every operation that changes the budget) and take the lock
//! only when it is set.

use crate::cpu::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use crate::cpu::Wait;
use crate::model::coop::{
    fork_count, may_kill, query_kills, unit_budget, BarrierKind, Groups, KillDecision,
    ResizeVariant,
};
#[cfg(loom)]
use loom::sync::{Mutex, MutexGuard};
use serde::Serialize;
use std::ops::Range;
#[cfg(not(loom))]
use std::sync::{Mutex, MutexGuard};

/// Barrier generations wrap at 2^39.
const GEN_MASK: u64 = (1 << 39) - 1;

/// `CoopCore::kind`: no barrier in progress, or the kind of the one in progress.
fn kind_code(kind: BarrierKind) -> usize {
    match kind {
        BarrierKind::Plain => 1,
        BarrierKind::Resizing(ResizeVariant::Regular) => 2,
        BarrierKind::Resizing(ResizeVariant::Query) => 3,
    }
}

/// Random kills and forks for testing: the scheduler accepts kill offers and grants forks at
/// random (seeded), as the seed's semantics allow (Kill / Kill-No-Op / Fork with any `k`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Churn {
    /// Seed of the scheduler's choices.
    pub seed: u64,
    /// Chance, per 1000, that an acceptable kill offer (or a query barrier) kills.
    pub kill_per_mille: u32,
}

/// Counters of what happened to a cooperative kernel's groups.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CoopStats {
    /// Groups killed (at `offer_kill` or a resizing barrier).
    pub kills: usize,
    /// Forks that started at least one group.
    pub forks: usize,
    /// Groups started by forks.
    pub forked_groups: usize,
    /// Global barriers completed (plain and resizing).
    pub barriers: usize,
    /// Fewest active groups seen.
    pub min_active: usize,
    /// Most active groups seen.
    pub max_active: usize,
}

/// Compute units of the scheduler at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Units {
    /// Compute units the scheduler manages.
    pub capacity: usize,
    /// Held by the running cooperative kernel (its active, unfinished groups).
    pub held: usize,
    /// Held by other launches.
    pub lent: usize,
    /// Asked for by launches still gathering.
    pub wanted: usize,
    /// Whether a cooperative kernel is running.
    pub running: bool,
}

/// Why a cooperative kernel could not begin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BeginError {
    /// Another cooperative kernel runs on this scheduler.
    Busy,
    /// No compute unit is free now (other launches hold them all): retry later.
    NoUnits,
}

/// What a group learns when a barrier releases it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// The group was killed by the barrier (query variant): it must end.
    pub killed: bool,
    /// Group 0 only: the groups forked at the barrier, which group 0 must start with its
    /// transmitted value.
    pub forked: Option<Range<usize>>,
    /// `M` when the barrier completed: the same for every released group.
    pub active: usize,
}

struct State {
    capacity: usize,
    lent: usize,
    wanted: usize,
    running: bool,
    limit: usize,
    active: usize,
    finished: Vec<bool>,
    finished_below_active: usize,
    released_active: usize,
    fork_at_release: Option<Range<usize>>,
    churn: Option<(Churn, u64)>,
    stats: CoopStats,
}

impl State {
    fn groups(&self) -> Groups {
        Groups {
            limit: self.limit,
            active: self.active,
        }
    }

    fn held(&self) -> usize {
        if self.running {
            self.active - self.finished_below_active
        } else {
            0
        }
    }

    /// (free, kill_wanted, fork_credit)
    fn budget(&self) -> (usize, usize, usize) {
        unit_budget(self.capacity, self.held(), self.lent, self.wanted)
    }

    fn rand_below(&mut self, n: u64) -> u64 {
        let Some((_, s)) = &mut self.churn else {
            return 0;
        };
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n.max(1)
    }

    /// Whether churn decides to kill now.
    fn churn_kills(&mut self) -> bool {
        match self.churn {
            Some((c, _)) => self.rand_below(1000) < c.kill_per_mille as u64,
            None => false,
        }
    }

    /// Units the scheduler wants back, churn included.
    fn kill_wanted(&mut self) -> usize {
        let want = self.budget().1;
        if want == 0 && self.churn_kills() {
            1
        } else {
            want
        }
    }

    fn fork_offer(&mut self) -> usize {
        let credit = self.budget().2;
        if self.churn.is_some() && credit > 0 {
            self.rand_below(credit as u64 + 1) as usize
        } else {
            credit
        }
    }

    fn note_active(&mut self) {
        self.stats.min_active = self.stats.min_active.min(self.active);
        self.stats.max_active = self.stats.max_active.max(self.active);
    }

    fn kill_top(&mut self, n: usize) {
        self.active -= n;
        self.stats.kills += n;
        self.note_active();
    }

    fn fork(&mut self, offered: usize) -> Range<usize> {
        let k = fork_count(self.groups(), offered);
        let first = self.active;
        if k > 0 {
            self.active += k;
            for f in &mut self.finished[first..first + k] {
                *f = false;
            }
            self.stats.forks += 1;
            self.stats.forked_groups += k;
            self.note_active();
        }
        first..first + k
    }
}

/// One cooperative scheduler's state: its compute units and the cooperative kernel it runs.
///
/// The group-level operations are called by one representative work-item per group; their
/// waits go through the given [`Wait`] policy. Lock order: a caller never holds anything else
/// while calling in.
pub struct CoopCore {
    state: Mutex<State>,
    /// The last barrier completion: `generation << 25 | forked << 24 | M` (M < 2^24), stored
    /// with release when a barrier completes; waiters poll it with acquire.
    released: AtomicU64,
    active: AtomicUsize,
    /// Active groups that have not arrived at the barrier in progress (`M` when none is).
    pending: AtomicUsize,
    /// The kind of the barrier in progress ([`kind_code`]), 0 when none.
    kind: AtomicUsize,
    /// Set while the scheduler may act at an offer or a barrier: units wanted back, units to
    /// fork into, or churn.
    request: AtomicBool,
    /// Barriers completed by the current kernel.
    barriers: AtomicUsize,
    abort: AtomicBool,
}

impl CoopCore {
    /// A scheduler of `capacity` compute units with no kernel running.
    pub fn new(capacity: usize, churn: Option<Churn>) -> Self {
        Self {
            state: Mutex::new(State {
                capacity,
                lent: 0,
                wanted: 0,
                running: false,
                limit: 0,
                active: 0,
                finished: Vec::new(),
                finished_below_active: 0,
                released_active: 0,
                fork_at_release: None,
                churn: churn.map(|c| (c, c.seed)),
                stats: CoopStats::default(),
            }),
            released: AtomicU64::new(0),
            active: AtomicUsize::new(0),
            pending: AtomicUsize::new(0),
            kind: AtomicUsize::new(0),
            request: AtomicBool::new(churn.is_some()),
            barriers: AtomicUsize::new(0),
            abort: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Under the lock, after any change: `M` and the request hint for the lock-free paths.
    fn publish_active(&self, st: &State) {
        self.active.store(st.active, Ordering::Release);
        let (_, kill, fork) = st.budget();
        let request = kill > 0 || fork > 0 || st.churn.is_some();
        self.request.store(request, Ordering::Release);
    }

    /// Under the lock: `M` dropped by `n` (kills, finishes). Completes the barrier in progress
    /// when the groups that left were the last it waited for.
    fn shrink(&self, st: &mut State, n: usize) {
        if n == 0 {
            return;
        }
        // M first: whoever completes the barrier after this without the lock reads it.
        self.active.store(st.active, Ordering::Release);
        let before = self.pending.fetch_sub(n, Ordering::AcqRel);
        if before == n && self.kind.load(Ordering::Acquire) != 0 {
            self.complete(st);
        }
    }

    /// Starts a kernel of at most `limit` groups on the free units; returns `M`, the groups
    /// it starts with (ids `0..M`, at least 1).
    pub fn begin_kernel(&self, limit: usize) -> Result<usize, BeginError> {
        let mut st = self.lock();
        if st.running {
            return Err(BeginError::Busy);
        }
        let free = st.capacity.saturating_sub(st.lent + st.wanted);
        if free == 0 || limit == 0 {
            return Err(BeginError::NoUnits);
        }
        let m = limit.min(free);
        st.running = true;
        st.limit = limit;
        st.active = m;
        st.finished = vec![false; limit];
        st.finished_below_active = 0;
        st.fork_at_release = None;
        st.stats = CoopStats {
            min_active: m,
            max_active: m,
            ..CoopStats::default()
        };
        self.abort.store(false, Ordering::Relaxed);
        self.kind.store(0, Ordering::Relaxed);
        self.barriers.store(0, Ordering::Relaxed);
        self.pending.store(m, Ordering::Release);
        self.publish_active(&st);
        Ok(m)
    }

    /// Ends the running kernel: its units go back to the scheduler. Returns its counters.
    pub fn end_kernel(&self) -> CoopStats {
        let mut st = self.lock();
        st.running = false;
        st.active = 0;
        self.kind.store(0, Ordering::Relaxed);
        self.pending.store(0, Ordering::Release);
        self.publish_active(&st);
        let mut stats = st.stats;
        stats.barriers = self.barriers.load(Ordering::Acquire);
        stats
    }

    /// Stops every wait of the kernel (another part of it failed).
    pub fn abort(&self) {
        self.abort.store(true, Ordering::Relaxed);
    }

    /// Whether [`abort`](Self::abort) was called.
    pub fn aborted(&self) -> bool {
        self.abort.load(Ordering::Relaxed)
    }

    /// `M`: the active groups now (forked ones not started yet included).
    pub fn num_groups(&self) -> usize {
        self.active.load(Ordering::Acquire)
    }

    /// The compute units now.
    pub fn units(&self) -> Units {
        let st = self.lock();
        Units {
            capacity: st.capacity,
            held: st.held(),
            lent: st.lent,
            wanted: st.wanted,
            running: st.running,
        }
    }

    /// The kernel's counters so far.
    pub fn stats(&self) -> CoopStats {
        let mut stats = self.lock().stats;
        stats.barriers = self.barriers.load(Ordering::Acquire);
        stats
    }

    /// `query`: how many groups the scheduler wants back from the kernel now (never group 0).
    pub fn query(&self) -> usize {
        let st = self.lock();
        let w = st.budget().1;
        query_kills(st.groups(), w)
    }

    /// `offer_kill` by group `id`. Without a lock unless it is the top group and the scheduler
    /// may want it (the hint is set).
    pub fn offer_kill(&self, id: usize) -> KillDecision {
        let top = Groups {
            limit: usize::MAX,
            active: self.active.load(Ordering::Acquire),
        };
        if !may_kill(top, id, 1) || !self.request.load(Ordering::Acquire) {
            return KillDecision::Continue;
        }
        let mut st = self.lock();
        let g = st.groups();
        // Only the top group can be killed: ask the scheduler (and churn) only then.
        if !may_kill(g, id, 1) {
            return KillDecision::Continue;
        }
        let wanted = st.kill_wanted();
        if !may_kill(g, id, wanted) {
            return KillDecision::Continue;
        }
        st.kill_top(1);
        // A barrier in progress never waits for a killed group.
        self.shrink(&mut st, 1);
        self.publish_active(&st);
        KillDecision::Killed
    }

    /// `request_fork` by a group: the ids of the groups to start after the call (possibly
    /// empty) and `M` after it. The caller starts them with its transmitted value.
    pub fn request_fork(&self) -> (Range<usize>, usize) {
        let mut st = self.lock();
        let offer = st.fork_offer();
        let r = st.fork(offer);
        // The barrier in progress waits for the new groups too (the caller has not arrived, so
        // this never completes it).
        self.active.store(st.active, Ordering::Release);
        self.pending.fetch_add(r.len(), Ordering::AcqRel);
        self.publish_active(&st);
        (r, st.active)
    }

    /// Group `id` arrives at a global barrier of `kind`; returns the generation to wait on
    /// with [`wait_release`](Self::wait_release). The regular resizing barrier's kill offer
    /// is made by the caller before arriving ([`offer_kill`](Self::offer_kill)).
    ///
    /// Panics if the groups disagree about the kind (a kernel error: every group must reach
    /// the same barrier).
    pub fn arrive(&self, id: usize, kind: BarrierKind) -> u64 {
        let active = self.active.load(Ordering::Acquire);
        assert!(
            id < active,
            "group {id} is not active ({active} active groups)"
        );
        let code = kind_code(kind);
        if let Err(k) = self
            .kind
            .compare_exchange(0, code, Ordering::AcqRel, Ordering::Acquire)
        {
            assert_eq!(
                k, code,
                "groups reached different global barriers (kinds {k} and {code}); every group must reach the same one"
            );
        }
        // The generation is read before counting in: the completion may follow at once.
        let gen = self.released.load(Ordering::Acquire) >> 25;
        if self.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.complete_arrived(kind);
        }
        gen
    }

    /// Every active group arrived (this caller took `pending` to zero): completes the barrier,
    /// without the lock when the scheduler has nothing to do at it.
    fn complete_arrived(&self, kind: BarrierKind) {
        let resizing = matches!(kind, BarrierKind::Resizing(_));
        if !resizing || !self.request.load(Ordering::Acquire) {
            // Nothing changes M now: every active group waits here.
            let m = self.active.load(Ordering::Acquire);
            self.kind.store(0, Ordering::Relaxed);
            self.barriers.fetch_add(1, Ordering::Relaxed);
            self.pending.store(m, Ordering::Relaxed);
            let next = ((self.released.load(Ordering::Relaxed) >> 25) + 1) & GEN_MASK;
            self.released
                .store(next << 25 | m as u64, Ordering::Release);
            return;
        }
        let mut st = self.lock();
        self.complete(&mut st);
        self.publish_active(&st);
    }

    /// Completes the barrier in progress: forks (resizing), kills (query variant), release.
    fn complete(&self, st: &mut State) {
        let kind = self.kind.swap(0, Ordering::Relaxed);
        self.barriers.fetch_add(1, Ordering::Relaxed);
        st.fork_at_release = None;
        if kind >= 2 {
            let variant = if kind == 3 {
                ResizeVariant::Query
            } else {
                ResizeVariant::Regular
            };
            let mut killed = 0;
            if variant == ResizeVariant::Query {
                let wanted = st.kill_wanted();
                killed = query_kills(st.groups(), wanted);
                if killed > 0 {
                    st.kill_top(killed);
                }
            }
            if killed == 0 {
                let offer = st.fork_offer();
                let r = st.fork(offer);
                if !r.is_empty() {
                    st.fork_at_release = Some(r);
                }
            }
        }
        st.released_active = st.active;
        self.pending.store(st.active, Ordering::Relaxed);
        let next = ((self.released.load(Ordering::Relaxed) >> 25) + 1) & GEN_MASK;
        // Waiting groups with ids at or above the new `M` have been killed (query variant):
        // they learn it from the `M` published with this generation.
        let forked = st.fork_at_release.is_some() as u64;
        self.released.store(
            next << 25 | forked << 24 | st.active as u64,
            Ordering::Release,
        );
    }

    /// Waits (through `wait`) until the barrier of generation `gen` releases; then tells the
    /// group whether it was killed and, for group 0, what was forked. Returns `None` if the
    /// kernel was aborted.
    pub fn wait_release<W: Wait>(&self, id: usize, gen: u64, wait: &W) -> Option<Release> {
        let mut cur = 0;
        wait.spin_until("resizing_barrier", || {
            cur = self.released.load(Ordering::Acquire);
            cur >> 25 != gen || self.aborted()
        });
        if cur >> 25 == gen {
            return None;
        }
        let (forked, active) = (cur >> 24 & 1 == 1, (cur & 0xFF_FFFF) as usize);
        if cur >> 25 == (gen + 1) & GEN_MASK && (id != 0 || !forked) {
            // The completion that released us is the last one: its M tells whether we were
            // killed (query variant) without taking the lock.
            return Some(Release {
                killed: id >= active,
                forked: None,
                active,
            });
        }
        if cur >> 25 != (gen + 1) & GEN_MASK {
            // Later barriers completed without us: we were killed at ours (a live group is
            // needed to complete the next one), and our id may have been forked again since.
            return Some(Release {
                killed: true,
                forked: None,
                active,
            });
        }
        // Group 0 after a fork: it starts the forked groups (group 0 is needed to complete the
        // next barrier, so the state still describes ours).
        let st = self.lock();
        Some(Release {
            killed: false,
            forked: st.fork_at_release.clone(),
            active: st.released_active,
        })
    }

    /// Group `id` returned from the kernel: its unit goes back to the scheduler. Finished
    /// groups at the top of the id space leave it (ids stay contiguous).
    pub fn finish(&self, id: usize) {
        let mut st = self.lock();
        if id >= st.active || st.finished[id] {
            return;
        }
        st.finished[id] = true;
        st.finished_below_active += 1;
        let before = st.active;
        while st.active > 0 && st.finished[st.active - 1] {
            st.active -= 1;
            st.finished_below_active -= 1;
        }
        let gone = before - st.active;
        if st.active > 0 {
            self.shrink(&mut st, gone);
        } else {
            self.pending.fetch_sub(gone, Ordering::AcqRel);
        }
        self.publish_active(&st);
    }

    /// A launch asks for `units` compute units: the kernel is asked to give back what is not
    /// free. Pair with [`try_claim`](Self::try_claim) or [`cancel`](Self::cancel).
    pub fn request_units(&self, units: usize) {
        let mut st = self.lock();
        st.wanted += units;
        self.publish_active(&st);
    }

    /// Claims `units` asked for with [`request_units`](Self::request_units) if that many are
    /// free now.
    pub fn try_claim(&self, units: usize) -> bool {
        let mut st = self.lock();
        if st.budget().0 >= units {
            st.wanted -= units;
            st.lent += units;
            self.publish_active(&st);
            true
        } else {
            false
        }
    }

    /// Withdraws a request of `units` that could not be gathered.
    pub fn cancel(&self, units: usize) {
        let mut st = self.lock();
        st.wanted = st.wanted.saturating_sub(units);
        self.publish_active(&st);
    }

    /// A launch gives back `units` claimed units: the kernel may fork into them.
    pub fn give_back(&self, units: usize) {
        let mut st = self.lock();
        st.lent = st.lent.saturating_sub(units);
        self.publish_active(&st);
    }
}
