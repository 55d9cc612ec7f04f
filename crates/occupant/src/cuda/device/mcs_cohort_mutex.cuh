// occupant device library: McsCohortMutex and LazyCohortMutex, cohort locks whose cohort is a
// thread-block cluster, with an MCS queue in distributed shared memory (every block spins on
// its own shared memory) over a global ticket lock. LazyCohortMutex also keeps the global lock
// when its cohort goes idle, until another cohort asks for it. CPU twin:
// occupant::cpu::sync::McsCohortMutex (same states, same orderings; loom model
// tests/loom_mcs_cohort_mutex.rs).
//
// Why: a hand-off through L2 costs a release plus the next holder's miss (~0.5 us on an H100),
// which caps a lock on one global word near 2 Mops/s (bench/results/nvidia-h100/
// i11-primitives). CohortMutex (cohort_mutex.cuh) passes the lock inside a cluster, but through
// a ticket lock in rank 0's shared memory: every hand-off is several DSMEM round trips and every
// waiter polls rank 0. Here a hand-off inside the cluster is one remote store into the next
// holder's own shared memory (MCS, Mellor-Crummey & Scott), and the lazy variant makes an
// uncontended re-acquire local (no global operation at all).
//
// State:
//   global  ticket at state[0], turn at state[32] (u32 words, zeroed by the host; 64 words).
//   per block, in its own shared memory: `go` (u64, 0 = wait; else the hand-off message:
//           high word 1 | has_global << 1 | passes << 2, low word the global ticket held),
//           `next` (0 = none, else successor rank + 1).
//   per cluster, in rank 0's shared memory: `tail` (0 FREE: the cohort does not hold the global
//           lock and nobody queues; 1 PARKED: the cohort holds the global lock and nobody
//           queues (lazy only); r + 2: block r is the last in the queue), and `pgt`, `ppass`,
//           the parked session's global ticket and pass count.
// lock(): exchange the tail with this block (acq_rel). FREE: take a global ticket and wait for
//   the turn. PARKED: the lock is ours, no global operation; issue the "wanted" load of the
//   global ticket counter now so that it is in flight during the critical section. Else link
//   behind the previous tail (remote store into its `next`) and spin on the own `go`; the
//   message says whether the global lock came with it.
// unlock(): n = critical sections of this cohort since it took the global lock or last looked
//   whether another cohort waits. With a successor: if n < OCC_COHORT_PASSES, or if no other
//   cohort took a global ticket, pass the lock with the global lock (one remote exchange,
//   release.cluster); else release the global lock and pass the local turn only. Without one:
//   McsCohortMutex closes the queue (tail -> FREE) and releases the global lock; LazyCohortMutex
//   looks whether another cohort took a global ticket and, if none did, parks (tail -> PARKED,
//   release.cluster) instead. A successor that joined meanwhile gets the lock passed as above.
//
// Without a cluster launch the cohort is the block alone and LazyCohortMutex needs no queue:
// lock() from a parked lock and unlock() to a parked lock are register updates, plus one
// ld.relaxed.gpu of the global ticket counter per park (issued at the park, read at the next
// unlock, so it is in flight through the critical section): an uncontended re-acquire costs no
// fence and no round trip. A waiter is seen within two of the holder's critical sections.
//
// Fairness bound: FIFO inside the cohort (MCS) and among cohorts (the global ticket); once
// another cohort has taken a global ticket, this cohort runs at most OCC_COHORT_PASSES + 2 more
// critical sections before it releases the global lock (the pass bound, plus one critical
// section whose "wanted" load was issued before that ticket was taken).
//
// Liveness of the lazy variant: a parked lock is released by the cohort's next unlock that
// sees a waiter, or by the destructor (every thread of the cluster, after its last use). A
// block of a cohort holding the lock parked must not wait for a block of another cohort that
// waits for this lock (e.g. a grid barrier between critical sections): that is a deadlock,
// which the watchdog reports as Error::Deadlock. Use McsCohortMutex there.
//
// Ordering: release/acquire at .cluster scope for the hand-offs inside the cluster (it orders
// global memory too among the threads of the cluster), release/acquire at .gpu scope on the
// global turn; causality order is transitive, so a critical section's writes reach the next
// cohort through the chain. Every shared-memory access is an atomic (racecheck does not model
// ld.acquire / st.release on shared memory).
//
// Use: EVERY thread of every block constructs it (the constructor initialises the block's node
// and synchronises the cluster; the destructor synchronises it again and releases a parked lock,
// so no block leaves while another may still write into its shared memory), then block
// semantics as for every mutex:
//   occ::sync::LazyCohortMutex m(state);
//   if (!occ::block_lock(m)) return;  ... ;  occ::block_unlock(m);
// One instance per kernel (its node is a function-scope __shared__ variable). Without a cluster
// launch the cohort is the block itself.
#pragma once

#include "cluster.cuh"
#include "poll.cuh"

#ifndef OCC_COHORT_PASSES
#define OCC_COHORT_PASSES 32
#endif

namespace occ {
namespace mcs {

/// A block's queue node, and (rank 0 only) the cohort's tail and parked session.
struct __align__(8) Node {
  u64 go;
  u32 next;
  u32 tail;
  u32 pgt;
  u32 ppass;
};
constexpr unsigned kGo = 0u, kNext = 8u, kTail = 12u, kPgt = 16u, kPpass = 20u;
constexpr u32 kFree = 0u, kParked = 1u;

// Atomics on shared::cluster addresses (own block or another block of the cluster).
__device__ __forceinline__ u32 exch_acq_rel(unsigned a, u32 v) {
  u32 old;
  asm volatile("atom.acq_rel.cluster.shared::cluster.exch.b32 %0, [%1], %2;"
               : "=r"(old) : "r"(a), "r"(v) : "memory");
  return old;
}
__device__ __forceinline__ u32 cas_release(unsigned a, u32 expected, u32 desired) {
  u32 old;
  asm volatile("atom.release.cluster.shared::cluster.cas.b32 %0, [%1], %2, %3;"
               : "=r"(old) : "r"(a), "r"(expected), "r"(desired) : "memory");
  return old;
}
__device__ __forceinline__ u32 cas_relaxed(unsigned a, u32 expected, u32 desired) {
  u32 old;
  asm volatile("atom.relaxed.cluster.shared::cluster.cas.b32 %0, [%1], %2, %3;"
               : "=r"(old) : "r"(a), "r"(expected), "r"(desired) : "memory");
  return old;
}
__device__ __forceinline__ u32 ld_acquire(unsigned a) {
  u32 v;
  asm volatile("atom.acquire.cluster.shared::cluster.or.b32 %0, [%1], 0;"
               : "=r"(v) : "r"(a) : "memory");
  return v;
}
__device__ __forceinline__ u32 ld_relaxed(unsigned a) {
  u32 v;
  asm volatile("atom.relaxed.cluster.shared::cluster.or.b32 %0, [%1], 0;"
               : "=r"(v) : "r"(a) : "memory");
  return v;
}
__device__ __forceinline__ void st_relaxed(unsigned a, u32 v) {
  asm volatile("{ .reg .b32 old; atom.relaxed.cluster.shared::cluster.exch.b32 old, [%0], %1; }"
               ::"r"(a), "r"(v) : "memory");
}
__device__ __forceinline__ void st_release(unsigned a, u32 v) {
  asm volatile("{ .reg .b32 old; atom.release.cluster.shared::cluster.exch.b32 old, [%0], %1; }"
               ::"r"(a), "r"(v) : "memory");
}
__device__ __forceinline__ u64 ld_acquire64(unsigned a) {
  u64 v;
  asm volatile("atom.acquire.cluster.shared::cluster.or.b64 %0, [%1], %2;"
               : "=l"(v) : "r"(a), "l"(0ull) : "memory");
  return v;
}
__device__ __forceinline__ void st_relaxed64(unsigned a, u64 v) {
  asm volatile("{ .reg .b64 old; atom.relaxed.cluster.shared::cluster.exch.b64 old, [%0], %1; }"
               ::"r"(a), "l"(v) : "memory");
}
__device__ __forceinline__ void st_release64(unsigned a, u64 v) {
  asm volatile("{ .reg .b64 old; atom.release.cluster.shared::cluster.exch.b64 old, [%0], %1; }"
               ::"r"(a), "l"(v) : "memory");
}

}  // namespace mcs

namespace sync {

/// The MCS cohort lock; `Lazy`: park the global lock when the cohort goes idle.
template <bool Lazy>
struct McsCohortMutexT {
  static constexpr unsigned kPrim = Lazy ? Prim::LazyCohortMutex : Prim::McsCohortMutex;
  u32* gticket;    // the global ticket counter; the global turn is gticket[32]
  unsigned node;   // this block's node (shared::cluster address)
  unsigned node0;  // rank 0's node
  unsigned rank;
  bool clustered;
  u32 gt_;          // the global ticket the cohort holds (holder only)
  u32 n_;           // critical sections since the global lock was taken or last checked
  u32 want_;        // the global ticket counter, loaded at a parked re-acquire
  bool have_want_;
  bool parked_;     // lazy without clusters: this block holds the global lock parked

  __device__ explicit McsCohortMutexT(u32* state)
      : gticket(state), gt_(0u), n_(0u), want_(0u), have_want_(false), parked_(false) {
    __shared__ mcs::Node s_node;
    if (local_linear_id() == 0u) {
      s_node.go = 0ull;
      s_node.next = 0u;
      s_node.tail = mcs::kFree;
      s_node.pgt = 0u;
      s_node.ppass = 0u;
    }
    clustered = cluster_size() > 1u;
    if (clustered) cluster_sync(); else __syncthreads();
    rank = clustered ? cluster_rank() : 0u;
    // Without clusters the block's own shared::cta address (valid in the shared::cluster
    // window) is used, so the lock works in any launch.
    node = (unsigned)__cvta_generic_to_shared(&s_node);
    node0 = clustered ? cluster_map(&s_node, 0u) : node;
  }

  __device__ ~McsCohortMutexT() {
    if (clustered) cluster_sync(); else __syncthreads();
    // Lazy without clusters: the thread that locked parked the lock in its own copy.
    if (Lazy && parked_) st_release(gticket + 32, gt_ + 1u);
    // Every block of the cluster is past its last unlock: a parked lock goes back.
    if (Lazy && rank == 0u && local_linear_id() == 0u) {
      if (mcs::cas_relaxed(node0 + mcs::kTail, mcs::kParked, mcs::kFree) == mcs::kParked)
        st_release(gticket + 32, mcs::ld_relaxed(node0 + mcs::kPgt) + 1u);
    }
  }

  /// Called by one thread of the block; false if the launch was aborted (then the caller leaves
  /// without unlocking).
  __device__ __forceinline__ bool lock() {
    if (Lazy && !clustered) {
      // The cohort is this block alone: no queue; a parked re-acquire touches no memory (the
      // "wanted" load issued at the park stays in flight through the critical section).
      if (parked_) {
        parked_ = false;
        return true;
      }
      if (!acquire_global()) return false;
      want_ = ld_relaxed(gticket);  // in flight during the critical section
      have_want_ = true;
      return true;
    }
    have_want_ = false;
    const u32 prev = mcs::exch_acq_rel(node0 + mcs::kTail, rank + 2u);
    if (Lazy && prev == mcs::kParked) {
      gt_ = mcs::ld_relaxed(node0 + mcs::kPgt);
      n_ = mcs::ld_relaxed(node0 + mcs::kPpass);
      want_ = ld_relaxed(gticket);  // in flight during the critical section
      have_want_ = true;
      return true;
    }
    if (prev == mcs::kFree) return acquire_global();
    const unsigned pred = clustered ? cluster_map_node(prev - 2u) : node;
    mcs::st_release(pred + mcs::kNext, rank + 1u);
    const unsigned go = node + mcs::kGo;
    u64 g = 0ull;
    if (!poll_until(kPrim, [go, &g] {
          g = mcs::ld_acquire64(go);
          return g != 0ull;
        }))
      return false;
    mcs::st_relaxed64(go, 0ull);
    const u32 hi = (u32)(g >> 32);
    if (hi & 2u) {
      gt_ = (u32)g;
      n_ = hi >> 2;
      return true;
    }
    return acquire_global();
  }

  __device__ __forceinline__ void unlock() {
    if (Lazy && !clustered) {
      // Park unless another block took a global ticket (seen by the load issued at the last
      // park or right after the global acquire); a waiter is seen within two critical
      // sections. Parking issues the next load, read at the next unlock.
      if (want_ == gt_ + 1u) {
        parked_ = true;
        want_ = ld_relaxed(gticket);
        have_want_ = true;
        return;
      }
      st_release(gticket + 32, gt_ + 1u);
      return;
    }
    u32 n = n_ + 1u;
    const unsigned nx = node + mcs::kNext;
    u32 nxt = mcs::ld_acquire(nx);
    int decided = -1;  // -1: by the pass bound; 0: release the global lock; 1: keep it
    if (nxt == 0u) {
      const u32 me = rank + 2u;
      if (Lazy) {
        const u32 t = have_want_ ? want_ : ld_relaxed(gticket);
        if (t == gt_ + 1u) {  // no other cohort took a ticket: park
          mcs::st_relaxed(node0 + mcs::kPgt, gt_);
          mcs::st_relaxed(node0 + mcs::kPpass, 0u);
          if (mcs::cas_release(node0 + mcs::kTail, me, mcs::kParked) == me) return;
          decided = 1;
          n = 0u;
        } else {
          decided = 0;
        }
      }
      if (decided != 1) {
        if (mcs::cas_relaxed(node0 + mcs::kTail, me, mcs::kFree) == me) {
          st_release(gticket + 32, gt_ + 1u);
          return;
        }
      }
      // A block joined the queue behind this one: wait until it has linked itself.
      if (!poll_until(kPrim, [nx, &nxt] {
            nxt = mcs::ld_acquire(nx);
            return nxt != 0u;
          }))
        return;  // aborted
    }
    mcs::st_relaxed(nx, 0u);
    bool with_global;
    if (decided >= 0) {
      with_global = decided == 1;
    } else if (n < (u32)OCC_COHORT_PASSES) {
      with_global = true;
    } else {
      const u32 t = (Lazy && have_want_) ? want_ : ld_relaxed(gticket);
      with_global = t == gt_ + 1u;
      if (with_global) n = 0u;
    }
    u64 msg;
    if (with_global) {
      msg = ((u64)(3u | (n << 2)) << 32) | (u64)gt_;
    } else {
      st_release(gticket + 32, gt_ + 1u);
      msg = 1ull << 32;
    }
    const unsigned succ = clustered ? cluster_map_node(nxt - 1u) : node;
    mcs::st_release64(succ + mcs::kGo, msg);
  }

 private:
  __device__ __forceinline__ bool acquire_global() {
    const u32 t = atomic_add_relaxed(gticket, 1u);
    u32* turn = gticket + 32;
    if (!poll_until(kPrim, [turn, t] { return ld_acquire(turn) == t; })) return false;
    gt_ = t;
    n_ = 0u;
    return true;
  }

  /// The shared::cluster address of block `r`'s node (same offset as ours, in block r).
  __device__ __forceinline__ unsigned cluster_map_node(unsigned r) const {
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(node), "r"(r));
    return remote;
  }
};

/// MCS cohort lock: releases the global lock when its cohort's queue empties.
typedef McsCohortMutexT<false> McsCohortMutex;
/// MCS cohort lock that parks the global lock in an idle cohort until another cohort asks.
typedef McsCohortMutexT<true> LazyCohortMutex;

}  // namespace sync
}  // namespace occ
