// occupant device library: cooperative kernels (seed 000, Sorensen et al., FSE 2017, §3–§4):
// a persistent kernel that offers its blocks (groups) back to a host scheduler at safe points and
// takes new ones later. Host twin: occupant::cuda::coop (Scheduler).
//
// Vocabulary (the same as the CPU backend, occupant::model::coop):
//   occ::coop::enter(g, st, mb)                every block first: takes a participating id, or joins as a
//                                        forked group (g.forked, transmitted values in g.tx), or
//                                        finds nothing to do (returns false: return at once)
//   occ::coop::offer_kill(g)             true: this group was killed (return at once)
//   occ::coop::request_fork(g)           forks k >= 0 groups, ids M..M+k-1, transmitting g.tx
//   occ::coop::global_barrier(g)         barrier among the active groups
//   occ::coop::resizing_barrier(g, q)    the same, and the group count may change across it
//                                        (false: this group was killed); q = the `query` variant
//   occ::coop::query(g)                  groups the scheduler wants back now
//   occ::coop::transmit(g, i, v) / received<T>(g, i)   transmit-annotated values (thread 0's)
//   occ::coop::leave(g)                  every surviving group last
//   g.id, g.m                            participating id, groups of the current interval
//
// Semantics (seed 000 §3, block semantics: every thread of a block calls each function at the
// same point with the same arguments; thread 0 talks to the scheduler and broadcasts):
//   - ids of active groups are contiguous, 0..M-1; only the group with the largest id is killed
//     (descending order), group 0 never; a kill decrements M atomically.
//   - request_fork by group m spawns k = min(joiners waiting, min(N, target) - M) groups with
//     ids M..M+k-1; they start after the request_fork (enter() returns with g.forked = 1) with
//     the transmit-annotated values thread 0 of group m held (g.tx).
//   - global_barrier waits only for active groups: a group killed meanwhile is not waited for,
//     a group forked meanwhile is waited for. resizing_barrier = regular variant (seed §4.2):
//     every group but 0 first offers itself (offer_kill, against the target the master read at
//     the previous barrier), the master (group 0) waits for the
//     others, forks (the new groups are released with the others, as if forked by group 0,
//     transmitting group 0's g.tx), releases; query variant: the master asks query() = W and
//     kills the W highest groups at once (they leave when released) — the seed's "spin calling
//     offer_kill until claimed", done in one step, since every one of them is waiting at the
//     barrier. Where this differs from the seed: forked groups do not wait for the release of
//     the barrier they were forked in (the master has already collected every arrival, so
//     memory is ordered through the master's release of the join slot); the M of an interval
//     is broadcast by the master (g.m), so it stays constant within a resizing-barrier interval
//     even while a group of the next interval is being killed.
//
// How groups come and go on CUDA (the host scheduler, occupant::cuda::coop):
//   - the first launch has `initial` blocks, all co-resident (a grid the occupancy API allows,
//     nothing else running); a block's id is its entry ticket.
//   - the host asks for groups by lowering the target: it stores it in Mailbox::target
//     (host-mapped; offer_kill and query() read it there, over PCIe) and copies it with a DMA
//     (cuMemcpyHtoDAsync, on a stream beside the kernel) into State::host_target, device memory,
//     which the barrier master reads with ld.relaxed.sys — an L2 access, no PCIe round trip on
//     any barrier (the earlier periodic PCIe poll cost the barrier-bound grid BFS 18-32% on an
//     H100). The
//     master folds the target into the barrier's release word, so the other groups learn it
//     with the release they wait for anyway (no extra load on any barrier). Killed blocks
//     return, freeing their slots, and are counted in Mailbox::killed (atom.release.sys): one
//     PCIe atomic per group killed by offer_kill, one per batch for the groups the query
//     variant kills at once (the last of them to leave adds the batch); the host then launches
//     the other kernel into the slots.
//   - to give them back the host raises target and launches k more blocks of the same kernel
//     (joiners) on another stream: each takes a join ticket and waits until a request_fork
//     grants it an id (or until the kernel's work is over, then it returns).
//
// The barrier's common case (no request pending, no joiner waiting, no group killed or forked
// in the interval) is one hop, the shape of occ::sync::LeanBarrier (grid.sync()'s): thread 0 of
// every group, the master included, arrives with one returned atom.acq_rel.gpu.add on the
// 64-bit arrival word W and, unless its arrival was the last, polls W with relaxed loads until
// the arrival count L reaches the group's target lt, then one fence.acquire.gpu. No release
// word, no second hop through the master. W = L (bits 63..32: arrivals, plus kills — a killed
// group counts as arrived — minus forks made outside a barrier, k more groups to wait for) |
// E1 (bits 31..16) | E0 (bits 15..0): events of the odd and even intervals — a kill, a fork
// outside a barrier, and the master's hold (added with its arrival when it must act at this
// barrier: the host's target changed, a joiner waits). Every group decides on a snapshot of W
// that shows the barrier complete: E of this interval's parity 0 → the fast path (M unchanged,
// lt += M); else the slow path, the two-hop barrier of before: the master (which has seen the
// same snapshot) takes the kills and forks into account, publishes bar_lt and the release word
// bar_rel (epoch | M | target) with st.release.gpu, the others wait for it. Every event of an
// interval happens before its barrier completes (a killed group's arrival is its kill, a
// forking group forks before it arrives, the hold is the master's arrival), and no event of
// the same parity can follow before every live group has left the barrier (that needs the
// next barrier to complete), so every group decides alike. The master clears a barrier's
// events from E at a later barrier, once every live group has arrived at the next one and
// every group the query variant killed at it has left (no group decides on the old snapshot
// then; until then the next barrier of that parity takes the slow path). Each group keeps its
// epoch, M, target and lt in its Group.
#pragma once

#include "memory.cuh"
#include "poll.cuh"
#include "watchdog.cuh"

#ifndef OCC_COOP_TX_WORDS
#define OCC_COOP_TX_WORDS 8  // transmit-annotated 64-bit words per group
#endif
#ifndef OCC_COOP_JOIN_SLOTS
#define OCC_COOP_JOIN_SLOTS 4096  // ring of join slots (>= groups that may wait to join at once)
#endif
#ifndef OCC_COOP_CASCADE_NS
#define OCC_COOP_CASCADE_NS 20000  // regular variant: how long a wanted group waits to be the top
#endif
// Throttled polls while groups are lent (experiment, off by default): when the kernel runs
// with fewer groups than N (another kernel has the rest), a waiter that polled the arrival word
// and saw `missing` arrivals still to come sleeps min(missing << OCC_COOP_POLL_PAUSE_SHIFT,
// OCC_COOP_POLL_PAUSE_MAX_NS) ns (__nanosleep) before the next poll, when that is at least
// OCC_COOP_POLL_PAUSE_MIN_NS: fewer loads on the arrival word's L2 slice while the other
// kernel's traffic shares it. Alone (M = N) the barrier is unchanged.
#ifndef OCC_COOP_POLL_PAUSE_SHIFT
#define OCC_COOP_POLL_PAUSE_SHIFT -1
#endif
#ifndef OCC_COOP_POLL_PAUSE_MAX_NS
#define OCC_COOP_POLL_PAUSE_MAX_NS 1000
#endif
#ifndef OCC_COOP_POLL_PAUSE_MIN_NS
#define OCC_COOP_POLL_PAUSE_MIN_NS 64
#endif
#ifndef OCC_COOP_REPORT_EVERY
#define OCC_COOP_REPORT_EVERY 64  // the master writes Mailbox::barriers every this many barriers
#endif

namespace occ {
namespace coop {

/// Host-mapped mailbox (cuMemHostAlloc DEVICEMAP; 64 bytes). Host twin:
/// occupant::cuda::coop::MailboxView. Every device access is .sys-scoped.
struct Mailbox {
  u32 target;          // host -> device: keep at most this many groups (kills while M > target)
  u32 seq;             // host -> device: request number (informational)
  u32 active;          // device -> host: M after the last change
  u32 killed;          // device -> host: killed groups that have left (slots free)
  u32 forked;          // device -> host: groups forked
  u32 finished;        // device -> host: 1 once every group left the kernel's work
  u32 joiners_exited;  // device -> host: joiner blocks that left unforked (work over)
  u32 barriers;        // device -> host: resizing barriers completed (every OCC_COOP_REPORT_EVERY)
  u32 pad[8];
};

/// Scheduler state in device memory; the host zeroes it and sets `limit`, `initial`, `active`
/// and `host_target`.
struct State {
  u32 limit;          // N: the most groups the kernel may have (at most 65535)
  u32 initial;        // blocks of the first launch
  u32 tickets;        // blocks that entered
  u32 active;         // M
  u32 lock;           // resize lock: kills, forks and leaves change M under it
  u32 left;           // groups that called leave()
  u32 finished;       // 1 once left == active: waiting joiners return
  u32 join_arrivals;  // joiner blocks that arrived
  u32 join_granted;   // joiner blocks given an id by a fork
  u32 qk_total;       // groups the query variant killed at barriers (written by the master)
  u32 qk_exited;      // of those, the ones that left
  u32 qk_published;   // of those, the ones added to Mailbox::killed
  u32 pad0[4];
  u64 bar_count;      // the arrival word (its own 128-byte line): see arrival_word()
  u32 pad1[30];
  u64 bar_rel;        // the release word (slow path): epoch (bits 0-31) | M (32-47) | target (48-63)
  u32 bar_lt;         // the next barrier's L target, published with bar_rel (the host writes N)
  u32 host_target;    // the target, copied here by the host (DMA) whenever it changes it
  u32 pad2[28];
  u32 join_seq[OCC_COOP_JOIN_SLOTS];  // j + 1 once join ticket j was granted
  u32 join_id[OCC_COOP_JOIN_SLOTS];   // its id
  u32 join_m[OCC_COOP_JOIN_SLOTS];    // M right after the fork | the target then << 16
  u32 join_lt[OCC_COOP_JOIN_SLOTS];   // the L target of the joiner's first barrier
  u32 join_ep[OCC_COOP_JOIN_SLOTS];   // the epoch (interval) it starts in
  u64 join_tx[OCC_COOP_JOIN_SLOTS][OCC_COOP_TX_WORDS];
};

// The host (occupant::cuda::coop, scheduler.rs) sizes the state and initialises words 0, 1, 3
// (limit, initial, active), 50 (bar_lt) and 51 (host_target), and reads word 48 (the low half
// of bar_rel: the barrier epoch, which the master writes there when it leaves) — keep this
// layout.
static_assert(sizeof(State) == 320 + 20 * OCC_COOP_JOIN_SLOTS + 8 * OCC_COOP_TX_WORDS * OCC_COOP_JOIN_SLOTS,
              "State size");
static_assert(sizeof(Mailbox) == 64, "Mailbox size");

/// One group's handle; declare it `__shared__` in the kernel and pass it to every call.
struct Group {
  u32 id;      // participating id, 0..M-1
  u32 m;       // groups in the current interval (after the last barrier / fork / kill seen)
  u32 forked;  // 1 when this group joined through a fork
  u32 flag;    // broadcast scratch
  u64 tx[OCC_COOP_TX_WORDS];  // transmit-annotated values (thread 0's are the ones sent)
  u64 poll_ns; // (unused; kept for layout)
  State* s;    // the scheduler state (kernel parameter)
  Mailbox* mb; // the host-mapped mailbox (kernel parameter)
  u32 epoch;   // the barrier epoch this group was last released with (or joined in)
  u32 tgt;     // the target that came with it (clamped to 65535): the regular variant's kills
  u32 lt;      // the arrival count L at which the current barrier completes
  u32 limit;   // N (State::limit), read at entry: the throttled polls' "groups are lent"
  u32 pend[2];     // master only: events of a slow barrier of each parity, to clear from W
  u32 pend_qk[2];  // master only: ... once qk_exited reaches this (its query kills have left)
};

}  // namespace coop
}  // namespace occ

namespace occ {
namespace coop {

__device__ __forceinline__ bool leader() { return local_linear_id() == 0u; }

/// Packs / unpacks the release word.
__device__ __forceinline__ u64 rel_word(u32 epoch, u32 m, u32 tgt) {
  const u32 t = tgt > 0xffffu ? 0xffffu : tgt;
  return (u64)epoch | ((u64)(m & 0xffffu) << 32) | ((u64)t << 48);
}
__device__ __forceinline__ u32 rel_epoch(u64 w) { return (u32)w; }
__device__ __forceinline__ u32 rel_m(u64 w) { return (u32)(w >> 32) & 0xffffu; }
__device__ __forceinline__ u32 rel_tgt(u64 w) { return (u32)(w >> 48); }

/// The arrival word W (see the top of this file): L in bits 63..32, the events of the even
/// intervals in bits 15..0 and of the odd ones in bits 31..16.
const u64 ARRIVE = 1ull << 32;
__device__ __forceinline__ u32 word_l(u64 w) { return (u32)(w >> 32); }
__device__ __forceinline__ u32 event_shift(u32 epoch) { return 16u * (epoch & 1u); }
__device__ __forceinline__ u64 event_word(u32 epoch) { return 1ull << event_shift(epoch); }
/// The events of interval `epoch`'s parity in W.
__device__ __forceinline__ u32 word_events(u64 w, u32 epoch) {
  return (u32)(w >> event_shift(epoch)) & 0xffffu;
}
/// A kill in interval `epoch`: counts as an arrival, and is an event.
__device__ __forceinline__ u64 killed_word(u32 epoch) { return ARRIVE + event_word(epoch); }
/// A fork of k outside a barrier in interval `epoch`: k more arrivals to wait for (L - k, the
/// borrow out of bit 63 drops), and an event.
__device__ __forceinline__ u64 forked_word(u32 k, u32 epoch) {
  return ((u64)(0u - k) << 32) + event_word(epoch);
}
/// a is at or after b (wrapping u32 counts).
__device__ __forceinline__ bool reached(u32 a, u32 b) { return (int)(a - b) >= 0; }

/// fence.acquire.gpu: after relaxed loads that saw a release, makes them an acquire (one
/// CCTL.IVALL, as occ::sync::LeanBarrier). Host stand-in: an acquire fence.
__device__ __forceinline__ void fence_acquire_gpu() {
#ifdef __CUDA_ARCH__
  asm volatile("fence.acquire.gpu;" ::: "memory");
#else
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
}

/// Thread 0: waits until W's L reaches lt (relaxed loads, the clock and the abort flag checked
/// every 16 polls, then fence.acquire.gpu; past OCC_FAST_SPIN_NS occ::wait_until owns the
/// deadline). `w`: in, the value its arrival returned; out, the completed snapshot. On a GPU
/// with more groups than SMs it pauses ~300 cycles before the first poll, as LeanBarrier: polls
/// would slow the arrivals still coming. `throttle`: groups are lent (OCC_COOP_POLL_PAUSE_SHIFT).
__device__ __forceinline__ bool wait_arrivals(State* s, u32 lt, u32 groups, u64& w,
                                              bool throttle) {
  if (reached(word_l(w), lt)) return true;  // the last arrival: its atom acquired every other
#ifdef __CUDA_ARCH__
  unsigned nsm;
  asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
  if (groups > nsm) {
    const long long c0 = clock64();
    while (clock64() - c0 < 300) {
    }
  }
  const bool given_up = aborted();
  const unsigned long long t0 = globaltimer();
  for (unsigned i = 1;; ++i) {
    w = ld_relaxed(&s->bar_count);
    if (reached(word_l(w), lt)) {
      fence_acquire_gpu();
      return true;
    }
    if (OCC_COOP_POLL_PAUSE_SHIFT >= 0 && throttle) {
      const u32 missing = lt - word_l(w);
      const u32 ns = missing > 0xffffu ? (u32)OCC_COOP_POLL_PAUSE_MAX_NS
                     : missing << (OCC_COOP_POLL_PAUSE_SHIFT >= 0 ? OCC_COOP_POLL_PAUSE_SHIFT : 0);
      if (ns >= (u32)OCC_COOP_POLL_PAUSE_MIN_NS)
        __nanosleep(ns < (u32)OCC_COOP_POLL_PAUSE_MAX_NS ? ns : (u32)OCC_COOP_POLL_PAUSE_MAX_NS);
    }
    if (given_up) return false;
    if ((i & 15u) != 0u) continue;
    if (((i >> 4) & 7u) == 0u && aborted()) {
      note_waiting();
      return false;
    }
    if (globaltimer() - t0 > (unsigned long long)OCC_FAST_SPIN_NS) break;
  }
#else
  (void)groups;
  (void)throttle;
#endif
  return wait_until(Prim::ResizingBarrier, [s, lt, &w] {
    w = ld_acquire(&s->bar_count);
    return reached(word_l(w), lt);
  });
}

/// Groups the scheduler wants to keep (ld.acquire.sys of the mailbox: a PCIe round trip; the
/// barriers read the host's copy in State::host_target instead, device memory).
__device__ __forceinline__ u32 target(const Group& g) { return ld_acquire_sys(&g.mb->target); }

/// query(): how many groups the scheduler needs from the kernel now (0 if none).
__device__ __forceinline__ u32 query(const Group& g) {
  const u32 m = ld_acquire(&g.s->active);
  const u32 t = target(g);
  return m > t ? m - t : 0u;
}

/// Takes the resize lock (thread 0 only). False if the launch was aborted.
__device__ __forceinline__ bool lock(State* s) {
  return wait_until(Prim::CoopScheduler,
                    [s] { return atomic_cas_acquire(&s->lock, 0u, 1u) == 0u; });
}
__device__ __forceinline__ void unlock(State* s) { st_release(&s->lock, 0u); }

/// Under the lock: marks the work finished once every active group has left.
__device__ __forceinline__ void check_finished(State* s, Mailbox* mb) {
  if (ld_relaxed(&s->left) == ld_relaxed(&s->active) && ld_relaxed(&s->finished) == 0u) {
    st_release(&s->finished, 1u);
    st_release_sys(&mb->finished, 1u);
  }
}

/// Stores `v` as transmit-annotated word i (thread 0's value is the one transmitted).
template <class T>
__device__ __forceinline__ void transmit(Group& g, u32 i, T v) {
  static_assert(sizeof(T) <= 8, "a transmitted value is at most 8 bytes");
  if (leader()) {
    u64 w = 0ull;
    memcpy(&w, &v, sizeof(T));
    g.tx[i] = w;
  }
}

/// The transmit-annotated word i (in a forked group: what the forking group sent).
template <class T>
__device__ __forceinline__ T received(const Group& g, u32 i) {
  T v;
  u64 w = g.tx[i];
  memcpy(&v, &w, sizeof(T));
  return v;
}

/// Every block calls this first. True: g.id/g.m are set (g.forked says whether it joined
/// through a fork, and then g.tx holds the transmitted values). False: nothing to do or the
/// launch was aborted — return at once.
__device__ bool enter(Group& g, State* st, Mailbox* mb) {
  if (leader()) {
    g.s = st;
    g.mb = mb;
    g.poll_ns = 0ull;
    g.pend[0] = g.pend[1] = g.pend_qk[0] = g.pend_qk[1] = 0u;
    State* s = st;
    g.limit = ld_relaxed(&s->limit);
    g.flag = 0u;
    const u32 t = atomic_add_relaxed(&s->tickets, 1u);
    if (t < ld_relaxed(&s->initial)) {
      // A group of the first launch: barrier 0 cannot end without it, so the epoch is 0.
      g.id = t;
      g.m = ld_relaxed(&s->initial);
      g.lt = g.m;  // barrier 0 completes with every initial group's arrival
      g.epoch = 0u;
      // Every initial group starts from the same target, the one the host launched with (N,
      // = initial): the host may lower it while the groups enter, and a group that read the
      // new one would never hear of it again (the master publishes a target only when it
      // differs from the one it holds).
      g.tgt = g.m > 0xffffu ? 0xffffu : g.m;
      g.forked = 0u;
      g.flag = 1u;
    } else {
      const u32 j = atomic_add_acq_rel(&s->join_arrivals, 1u);
      const u32 slot = j % OCC_COOP_JOIN_SLOTS;
      const bool ok = wait_until(Prim::CoopScheduler, [s, slot, j] {
        return ld_acquire(&s->join_seq[slot]) == j + 1u || ld_acquire(&s->finished) != 0u;
      });
      if (ok && ld_acquire(&s->join_seq[slot]) == j + 1u) {
        g.id = ld_relaxed(&s->join_id[slot]);
        const u32 jm = ld_relaxed(&s->join_m[slot]);
        g.m = jm & 0xffffu;
        g.tgt = jm >> 16;
        // The interval it starts in and its first barrier's target, as the forking group
        // wrote them (its barrier cannot complete before this group arrives).
        g.lt = ld_relaxed(&s->join_lt[slot]);
        g.epoch = ld_relaxed(&s->join_ep[slot]);
        for (u32 i = 0; i < OCC_COOP_TX_WORDS; ++i) g.tx[i] = ld_relaxed(&s->join_tx[slot][i]);
        g.forked = 1u;
        g.flag = 1u;
      } else {
        atomic_add_release_sys(&g.mb->joiners_exited, 1u);
      }
    }
  }
  __syncthreads();
  return g.flag != 0u;
}

/// Thread 0 only: the kill decision. Returns 1 killed, 0 not, 2 aborted. `cached`: compare with
/// the target this group was last released with (g.tgt) instead of the mailbox's.
__device__ __forceinline__ u32 offer_kill_leader(Group& g, bool cached) {
  State* s = g.s;
  if (g.id == 0u) return 0u;
  // Common case of the regular barrier, no load at all: with a target of at least this
  // group's M, no kill is wanted (M only grows past it by forks, which read a newer target).
  if (cached && g.tgt >= g.m) return 0u;
  u32 m = ld_acquire(&s->active);
  if (cached && g.id >= g.tgt && g.id + 1u < m) {
    // Wanted too, once the groups above it are gone (they decide by the same target, at this
    // barrier): wait a bounded while for them, so that a request is met in one barrier rather
    // than one group per barrier. Past OCC_COOP_CASCADE_NS it arrives as usual.
    const unsigned long long t0 = globaltimer();
    while (g.id + 1u < m && globaltimer() - t0 < (unsigned long long)OCC_COOP_CASCADE_NS)
      m = ld_acquire(&s->active);
  }
  if (g.id + 1u != m) return 0u;
  const u32 t = cached ? g.tgt : target(g);
  if (m <= t) return 0u;
  if (!lock(s)) return 2u;
  const u32 m2 = ld_relaxed(&s->active);
  u32 killed = 0u;
  if (g.id + 1u == m2 && m2 > t) {
    st_release(&s->active, m2 - 1u);
    // A killed group counts as arrived at the barrier in progress (it is never waited for),
    // and the kill is an event of this interval: that barrier takes the slow path.
    atomic_add_release(&s->bar_count, killed_word(g.epoch));
    st_release_sys(&g.mb->active, m2 - 1u);
    check_finished(s, g.mb);
    killed = 1u;
  }
  unlock(s);
  if (killed) atomic_add_release_sys(&g.mb->killed, 1u);
  return killed;
}

/// offer_kill: true when this group was killed (or the launch aborted): return at once.
__device__ bool offer_kill(Group& g) {
  __syncthreads();
  if (leader()) g.flag = offer_kill_leader(g, false);
  __syncthreads();
  return g.flag != 0u;
}

/// Thread 0 only: makes joiners ids M.. with g.tx (up to the target) and raises M; returns how
/// many (0 if aborted), *first = the first join ticket granted. The joiners start only once
/// publish_grants() releases their slots: a barrier's master publishes after releasing the
/// barrier, so that a forked group cannot arrive at the next barrier before this one ended.
/// Outside a barrier (`in_barrier` false) the fork is also taken off the arrival word, so that
/// the barrier in progress waits for the new groups (and is an event: its slow path publishes
/// the new M); the joiners start in this interval with its target. In a barrier (the master's
/// slow path, g.epoch / g.lt still the barrier's) they start in the next interval, whose
/// target is this one's plus the new M.
__device__ __forceinline__ u32 grant_leader(Group& g, u32* first, bool in_barrier) {
  State* s = g.s;
  *first = 0u;
  if (ld_acquire(&s->join_arrivals) == ld_relaxed(&s->join_granted)) return 0u;
  if (!lock(s)) return 0u;
  const u32 arrived = ld_acquire(&s->join_arrivals);
  const u32 granted = ld_relaxed(&s->join_granted);
  const u32 m = ld_relaxed(&s->active);
  const u32 t = target(g);
  const u32 cap = t < s->limit ? t : s->limit;
  u32 k = arrived - granted;
  if (cap <= m) k = 0u;
  else if (k > cap - m) k = cap - m;
  const u32 tc = t > 0xffffu ? 0xffffu : t;
  const u32 jlt = in_barrier ? g.lt + (m + k) : g.lt;
  const u32 jep = in_barrier ? g.epoch + 1u : g.epoch;
  for (u32 i = 0; i < k; ++i) {
    const u32 slot = (granted + i) % OCC_COOP_JOIN_SLOTS;
    st_relaxed(&s->join_id[slot], m + i);
    st_relaxed(&s->join_m[slot], (m + k) | (tc << 16));
    st_relaxed(&s->join_lt[slot], jlt);
    st_relaxed(&s->join_ep[slot], jep);
    for (u32 w = 0; w < OCC_COOP_TX_WORDS; ++w) st_relaxed(&s->join_tx[slot][w], g.tx[w]);
  }
  if (k != 0u) {
    st_relaxed(&s->join_granted, granted + k);
    if (!in_barrier) atomic_add_relaxed(&s->bar_count, forked_word(k, g.epoch));
    st_release(&s->active, m + k);
    st_release_sys(&g.mb->active, m + k);
    atomic_add_release_sys(&g.mb->forked, k);
  }
  unlock(s);
  *first = granted;
  return k;
}

/// Thread 0 only: lets the k joiners granted from ticket `first` start (st.release of their
/// join slots).
__device__ __forceinline__ void publish_grants(Group& g, u32 first, u32 k) {
  for (u32 i = 0; i < k; ++i) {
    const u32 j = first + i;
    st_release(&g.s->join_seq[j % OCC_COOP_JOIN_SLOTS], j + 1u);
  }
}

/// Thread 0 only: grants and publishes at once (request_fork outside a barrier).
__device__ __forceinline__ u32 request_fork_leader(Group& g) {
  u32 first = 0u;
  const u32 k = grant_leader(g, &first, false);
  publish_grants(g, first, k);
  return k;
}

/// request_fork: forks k >= 0 new groups (ids M..M+k-1) that start after this call with this
/// group's transmitted values; returns k.
__device__ u32 request_fork(Group& g) {
  __syncthreads();
  if (leader()) g.flag = request_fork_leader(g);
  __syncthreads();
  return g.flag;
}

/// Thread 0 of a group the query variant killed at a barrier, on its way out: counts itself;
/// whoever finds every such group so far gone adds them to Mailbox::killed (one PCIe atomic per
/// batch instead of one per group; qk_published keeps the additions exact when two race).
__device__ __forceinline__ void batch_killed_leave(Group& g) {
  State* s = g.s;
  const u32 n = atomic_add_acq_rel(&s->qk_exited, 1u) + 1u;
  if (n != ld_acquire(&s->qk_total)) return;
  u32 p = ld_relaxed(&s->qk_published);
  while ((int)(n - p) > 0) {
    const u32 old = atomic_cas_acquire(&s->qk_published, p, n);
    if (old == p) {
      atomic_add_release_sys(&g.mb->killed, n - p);
      return;
    }
    p = old;
  }
}

/// The barrier behind global_barrier and resizing_barrier. mode: 0 fixed (every one of g.m
/// groups, no scheduler: the persistent baseline), 1 global (the active groups), 2 resizing,
/// 3 resizing with query. True: go on; false: this group was killed or the launch aborted.
/// The common case is one hop (see the top of this file); the slow path is taken by every
/// group alike when the interval had an event.
__device__ bool barrier_impl(Group& g, u32 mode) {
  // The master's inputs, loaded before the block barrier so that their latency hides behind
  // the block's last warps: the host's target (its DMA'd copy in device memory, .sys: written
  // by the host) and whether a joiner waits. It holds the barrier (the slow path) when either
  // asks for action.
  const bool master = leader() && g.id == 0u;
  u32 ht = 0u, ja = 0u, jg = 0u;
  if (master && mode >= 2u) {
    ht = ld_relaxed_sys(&g.s->host_target);
    ja = ld_relaxed(&g.s->join_arrivals);
    jg = ld_relaxed(&g.s->join_granted);
  }
  __syncthreads();
  if (leader()) {
    State* s = g.s;
    const u32 e = g.epoch;
    const u32 lt = g.lt;
    u32 alive = 1u;
    if (mode == 2u && g.id != 0u) {
      if (offer_kill_leader(g, true) != 0u) alive = 0u;  // arrived as killed
    }
    if (alive) {
      const u32 htc = ht > 0xffffu ? 0xffffu : ht;
      // (query: also whenever M exceeds the target — the target may have dropped before this
      // group entered, and then it never differed from the one it holds.)
      const bool hold = master && mode >= 2u &&
                        (htc != g.tgt || ja != jg || (mode == 3u && g.m > (htc == 0u ? 1u : htc)));
      const u64 add = ARRIVE + (hold ? event_word(e) : 0ull);
      u64 w = atomic_add_acq_rel(&s->bar_count, add) + add;
      if (!wait_arrivals(s, lt, g.m, w, mode >= 2u && g.m < g.limit)) alive = 0u;
      const bool slow = word_events(w, e) != 0u;
      const u32 q = (e + 1u) & 1u;
      if (alive && master && g.pend[q] != 0u &&
          (g.pend_qk[q] == 0u || reached(ld_acquire(&s->qk_exited), g.pend_qk[q]))) {
        // The events of an earlier barrier of the other parity: every live group arrived
        // here, so none still decides on a snapshot of that barrier, and neither does a group
        // the query variant killed there once it has left. Exactly those: the next interval's
        // may be in already. (Until then they stay, and the next barrier of their parity just
        // takes the slow path.)
        atomic_add_relaxed(&s->bar_count, 0ull - ((u64)g.pend[q] << (16u * q)));
        g.pend[q] = 0u;
      }
      if (!alive) {
      } else if (!slow) {
        g.epoch = e + 1u;
        g.lt = lt + g.m;
        if (master && mode >= 2u && (e + 1u) % OCC_COOP_REPORT_EVERY == 0u)
          st_relaxed_sys(&g.mb->barriers, e + 1u);  // posted, rare: for the host's messages
      } else if (!master) {
        u64 r = 0ull;
        const bool ok = poll_until(Prim::ResizingBarrier, [s, e, &r] {
          r = ld_acquire(&s->bar_rel);
          return reached(rel_epoch(r), e + 1u);
        });
        if (!ok) {
          alive = 0u;
        } else if (rel_epoch(r) != e + 1u || g.id >= rel_m(r)) {
          // Killed by the master (query variant). A later epoch than the next one also means
          // killed: the master cannot end the next barrier without a live group.
          if (mode == 3u) batch_killed_leave(g);
          else atomic_add_release_sys(&g.mb->killed, 1u);
          alive = 0u;
        } else {
          g.epoch = e + 1u;
          g.m = rel_m(r);
          g.tgt = rel_tgt(r);
          g.lt = ld_relaxed(&s->bar_lt);
        }
      } else {
        // The master's slow path: every group of the interval arrived or was killed; nothing
        // else changes M now (every active group waits here). Its events are cleared one
        // barrier later.
        u32 m = ld_relaxed(&s->active);  // M now: the kills and forks of the interval counted
        const u32 tgt = mode >= 2u ? ht : g.tgt;
        if (mode == 3u && m > tgt) {
          if (!lock(s)) {
            alive = 0u;
          } else {
            m = ld_relaxed(&s->active);
            if (m > tgt) {
              const u32 nm = tgt == 0u ? 1u : tgt;
              st_relaxed(&s->qk_total, ld_relaxed(&s->qk_total) + (m - nm));
              m = nm;
              st_release(&s->active, m);
              st_release_sys(&g.mb->active, m);
            }
            unlock(s);
          }
        }
        u32 t_seen = tgt, first = 0u, forked = 0u;
        if (alive && mode >= 2u && ja != jg) {
          forked = grant_leader(g, &first, true);
          if (forked != 0u) {
            m = ld_relaxed(&s->active);
            // The fork read a target of at least the new M: groups must not kill by an older one.
            if (t_seen < m) t_seen = m;
          }
        }
        if (alive) {
          // This barrier's events (with any older ones of its parity not yet cleared), to
          // clear once no group decides on this barrier's snapshot any more.
          g.pend[e & 1u] = word_events(w, e);
          g.pend_qk[e & 1u] = ld_relaxed(&s->qk_total);
          g.m = m;
          g.lt = lt + m;
          g.epoch = e + 1u;
          g.tgt = t_seen > 0xffffu ? 0xffffu : t_seen;
          st_relaxed(&s->bar_lt, g.lt);
          st_release(&s->bar_rel, rel_word(e + 1u, m, t_seen));
          // After the release: the forked groups start in the next interval.
          publish_grants(g, first, forked);
          if (mode >= 2u && (e + 1u) % OCC_COOP_REPORT_EVERY == 0u)
            st_relaxed_sys(&g.mb->barriers, e + 1u);  // posted, rare: for the host's messages
        }
      }
    }
    g.flag = alive;
  }
  __syncthreads();
  return g.flag != 0u;
}

/// global_barrier: waits for every active group (killed groups are not waited for).
__device__ __forceinline__ bool global_barrier(Group& g) { return barrier_impl(g, 1u); }

/// resizing_global_barrier: a global barrier across which groups may be killed and forked
/// (forked groups get group 0's g.tx). `use_query`: the query variant. False: return at once.
__device__ __forceinline__ bool resizing_barrier(Group& g, bool use_query) {
  return barrier_impl(g, use_query ? 3u : 2u);
}

/// The persistent baseline: the same barrier over a fixed g.m groups, no scheduler.
__device__ __forceinline__ bool fixed_barrier(Group& g) { return barrier_impl(g, 0u); }

/// Every surviving group calls this last; the last one ends the kernel's work (waiting joiners
/// then return).
__device__ void leave(Group& g) {
  __syncthreads();
  if (leader()) {
    State* s = g.s;
    // The barriers completed, for the host (State word 48): fast-path barriers do not write
    // the release word. Nobody waits on it any more with another value (every group passed
    // the last barrier with the same epoch, M and target).
    if (g.id == 0u) st_relaxed(&s->bar_rel, rel_word(g.epoch, g.m, g.tgt));
    if (lock(s)) {
      st_relaxed(&s->left, ld_relaxed(&s->left) + 1u);
      check_finished(s, g.mb);
      unlock(s);
    }
  }
}

}  // namespace coop
}  // namespace occ
