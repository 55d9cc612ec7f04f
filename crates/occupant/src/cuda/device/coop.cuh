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
//   - the host asks for groups by lowering Mailbox::target (host-mapped memory, read here with
//     ld.acquire.sys); killed blocks return, freeing their slots, and count themselves in
//     Mailbox::killed (atom.release.sys); the host then launches the other kernel into the slots.
//   - to give them back the host raises target and launches k more blocks of the same kernel
//     (joiners) on another stream: each takes a join ticket and waits until a request_fork
//     grants it an id (or until the kernel's work is over, then it returns).
// State lives in device memory (State, zeroed by the host), the host's requests and the device's
// answers in the mailbox (host-mapped); a cooperative kernel takes both as its first two
// parameters, `(occ::coop::State* st, occ::coop::Mailbox* mb, ...)`, and hands them to enter().
// Every wait goes through the watchdog: ResizingBarrier (20) for the barriers, CoopScheduler (21)
// for the lock and joiners; a wait that outlives the deadline aborts the launch.
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
#ifndef OCC_COOP_POLL_NS
#define OCC_COOP_POLL_NS 32000  // the barrier master reads the host's target at most this often
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
  u32 barriers;        // device -> host: resizing barriers completed (as of the master's last poll)
  u32 pad[8];
};

/// Scheduler state in device memory; the host zeroes it and sets `limit` and `initial`.
struct State {
  u32 limit;          // N: the most groups the kernel may have
  u32 initial;        // blocks of the first launch
  u32 tickets;        // blocks that entered
  u32 active;         // M
  u32 lock;           // resize lock: kills, forks and leaves change M under it
  u32 left;           // groups that called leave()
  u32 finished;       // 1 once left == active: waiting joiners return
  u32 join_arrivals;  // joiner blocks that arrived
  u32 join_granted;   // joiner blocks given an id by a fork
  u32 pad0[7];
  u32 bar_count;      // arrivals at the current barrier (its own 128-byte line)
  u32 pad1[31];
  u32 bar_epoch;      // barrier generation, released by the master
  u32 bar_m;          // M of the interval after the last barrier
  u32 bar_target;     // the target the master acted on at the last barrier (slaves kill by it)
  u32 host_target;    // the mailbox's target, copied to device memory by the master's poll
  u32 pad2[28];
  u32 join_seq[OCC_COOP_JOIN_SLOTS];  // j + 1 once join ticket j was granted
  u32 join_id[OCC_COOP_JOIN_SLOTS];   // its id
  u32 join_m[OCC_COOP_JOIN_SLOTS];    // M right after the fork
  u64 join_tx[OCC_COOP_JOIN_SLOTS][OCC_COOP_TX_WORDS];
};

// The host (occupant::cuda::coop, scheduler.rs) sizes the state and initialises words 0, 1, 3
// (limit, initial, active), 50 (bar_target) and 51 (host_target), and reads word 48 (bar_epoch)
// — keep this layout.
static_assert(sizeof(State) == 320 + 12 * OCC_COOP_JOIN_SLOTS + 8 * OCC_COOP_TX_WORDS * OCC_COOP_JOIN_SLOTS,
              "State size");
static_assert(sizeof(Mailbox) == 64, "Mailbox size");

/// One group's handle; declare it `__shared__` in the kernel and pass it to every call.
struct Group {
  u32 id;      // participating id, 0..M-1
  u32 m;       // groups in the current interval (after the last barrier / fork / kill seen)
  u32 forked;  // 1 when this group joined through a fork
  u32 flag;    // broadcast scratch
  u64 tx[OCC_COOP_TX_WORDS];  // transmit-annotated values (thread 0's are the ones sent)
  u64 poll_ns; // the master's last read of the mailbox's target (%globaltimer)
  State* s;    // the scheduler state (kernel parameter)
  Mailbox* mb; // the host-mapped mailbox (kernel parameter)
};

}  // namespace coop
}  // namespace occ

namespace occ {
namespace coop {

__device__ __forceinline__ bool leader() { return local_linear_id() == 0u; }

/// Groups the scheduler wants to keep (ld.acquire.sys of the mailbox: a PCIe round trip; the
/// barriers use the copy the master polls into State::host_target at most every
/// OCC_COOP_POLL_NS, so that no barrier waits for PCIe).
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
    State* s = st;
    g.flag = 0u;
    const u32 t = atomic_add_relaxed(&s->tickets, 1u);
    if (t < ld_relaxed(&s->initial)) {
      g.id = t;
      g.m = ld_relaxed(&s->initial);
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
        g.m = ld_relaxed(&s->join_m[slot]);
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
/// the target the master read at the last barrier (device memory) instead of the mailbox.
__device__ __forceinline__ u32 offer_kill_leader(Group& g, bool cached) {
  State* s = g.s;
  if (g.id == 0u) return 0u;
  const u32 m = ld_acquire(&s->active);
  if (g.id + 1u != m) return 0u;
  const u32 t = cached ? ld_relaxed(&s->bar_target) : target(g);
  if (m <= t) return 0u;
  if (!lock(s)) return 2u;
  const u32 m2 = ld_relaxed(&s->active);
  u32 killed = 0u;
  if (g.id + 1u == m2 && m2 > t) {
    st_release(&s->active, m2 - 1u);
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
__device__ __forceinline__ u32 grant_leader(Group& g, u32* first) {
  State* s = g.s;
  if (ld_acquire(&s->join_arrivals) == ld_relaxed(&s->join_granted)) return 0u;
  if (!lock(s)) return 0u;
  const u32 arrived = ld_acquire(&s->join_arrivals);
  const u32 granted = ld_relaxed(&s->join_granted);
  const u32 m = ld_relaxed(&s->active);
  const u32 t = target(g);
  st_relaxed(&s->host_target, t);
  const u32 cap = t < s->limit ? t : s->limit;
  u32 k = arrived - granted;
  if (cap <= m) k = 0u;
  else if (k > cap - m) k = cap - m;
  for (u32 i = 0; i < k; ++i) {
    const u32 slot = (granted + i) % OCC_COOP_JOIN_SLOTS;
    st_relaxed(&s->join_id[slot], m + i);
    st_relaxed(&s->join_m[slot], m + k);
    for (u32 w = 0; w < OCC_COOP_TX_WORDS; ++w) st_relaxed(&s->join_tx[slot][w], g.tx[w]);
  }
  if (k != 0u) {
    st_relaxed(&s->join_granted, granted + k);
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
  const u32 k = grant_leader(g, &first);
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

/// The barrier behind global_barrier and resizing_barrier. mode: 0 fixed (every one of g.m
/// groups, no scheduler: the persistent baseline), 1 global (the active groups), 2 resizing,
/// 3 resizing with query. True: go on; false: this group was killed or the launch aborted.
__device__ bool barrier_impl(Group& g, u32 mode) {
  __syncthreads();
  if (leader()) {
    State* s = g.s;
    u32 alive = 1u;
    if (mode == 2u && g.id != 0u) {
      const u32 k = offer_kill_leader(g, true);
      if (k != 0u) alive = 0u;
    }
    if (alive) {
      const u32 e = ld_acquire(&s->bar_epoch);
      if (g.id != 0u) {
        atomic_add_release(&s->bar_count, 1u);
        const bool ok =
            poll_until(Prim::ResizingBarrier, [s, e] { return ld_acquire(&s->bar_epoch) != e; });
        if (!ok) {
          alive = 0u;
        } else {
          g.m = ld_relaxed(&s->bar_m);
          if (g.id >= g.m) {  // killed by the master (query variant)
            atomic_add_release_sys(&g.mb->killed, 1u);
            alive = 0u;
          }
        }
      } else {
        const u32 fixed = g.m;
        // The scheduler's request as last polled (device memory: no PCIe trip on this path).
        const u32 tgt = mode >= 2u ? ld_relaxed(&s->host_target) : 0xffffffffu;
        const bool ok = poll_until(Prim::ResizingBarrier, [s, mode, fixed] {
          const u32 c = ld_acquire(&s->bar_count);
          const u32 m = mode == 0u ? fixed : ld_acquire(&s->active);
          return c + 1u == m;
        });
        if (!ok) {
          alive = 0u;
        } else {
          u32 m = mode == 0u ? fixed : ld_relaxed(&s->active);
          atomic_add_relaxed(&s->bar_count, 0u - (m - 1u));
          if (mode == 3u && m > tgt) {
            if (!lock(s)) {
              alive = 0u;
            } else {
              m = ld_relaxed(&s->active);
              if (m > tgt) {
                m = tgt == 0u ? 1u : tgt;
                st_release(&s->active, m);
                st_release_sys(&g.mb->active, m);
              }
              unlock(s);
            }
          }
          u32 t_seen = tgt, first = 0u, forked = 0u;
          if (alive && mode >= 2u) {
            forked = grant_leader(g, &first);
            if (forked != 0u) {
              m = ld_relaxed(&s->active);
              // The fork read a target of at least the new M: slaves must not act on an older one.
              if (t_seen < m) t_seen = m;
            }
          }
          g.m = m;
          st_relaxed(&s->bar_m, m);
          if (mode >= 2u) st_relaxed(&s->bar_target, t_seen);
          st_release(&s->bar_epoch, e + 1u);
          // After the release: the forked groups start in the next interval, and the PCIe
          // round trip of the poll (at most every OCC_COOP_POLL_NS) is off the others' path.
          publish_grants(g, first, forked);
          if (mode >= 2u) {
            const unsigned long long now = globaltimer();
            if (now - g.poll_ns >= (unsigned long long)OCC_COOP_POLL_NS) {
              g.poll_ns = now;
              st_relaxed(&s->host_target, target(g));
              st_relaxed_sys(&g.mb->barriers, e + 1u);
            }
          }
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
    if (lock(s)) {
      st_relaxed(&s->left, ld_relaxed(&s->left) + 1u);
      check_finished(s, g.mb);
      unlock(s);
    }
  }
}

}  // namespace coop
}  // namespace occ
