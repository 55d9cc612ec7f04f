// occupant device library: CohortMutex, a cohort lock (Dice, Marathe, Shavit) whose cohort is a
// thread-block cluster. CPU twin: occupant::cpu::sync::CohortMutex.
//
// Why: a hand-off through L2 costs a release store plus the next holder's miss (~0.5 us on an
// H100), which caps any lock on one global word near 2 Mops/s. Inside a cluster a hand-off goes
// through distributed shared memory instead. The lock has two levels:
//   local  a ticket lock in the shared memory of the cluster's rank-0 block (DSMEM atomics at
//          .cluster scope: atom.{relaxed,acquire,release}.cluster.shared::cluster);
//   global a ticket lock in global memory (ticket at state[0], turn at state[32]).
// lock(): take a local ticket and wait for the local turn; if the previous local holder passed
// the global lock along (`gheld`), the block holds the lock; else it takes the global lock too.
// unlock(): if another block of the cluster took a local ticket and fewer than
// OCC_COHORT_PASSES hand-offs were made in a row, pass the global lock with the local turn
// (one DSMEM store); else release the global lock, then the local turn. The bound keeps the
// global ticket queue fair among clusters: a cluster keeps the lock for at most
// OCC_COHORT_PASSES + 1 consecutive critical sections. Without a cluster launch the cohort is
// the block itself and the lock is a ticket lock.
//
// Release/acquire at .cluster scope orders all memory, global included, among the threads of a
// cluster, so critical-section writes reach the next local holder through the local hand-off.
//
// Use: EVERY thread of every block constructs it (the constructor initialises the cluster's
// local lock and synchronises the cluster; the destructor synchronises it again, so that no
// block leaves while another reads its shared memory), then block semantics as for every mutex:
//   occ::sync::CohortMutex m(state);
//   if (!occ::block_lock(m)) return;  ... ;  occ::block_unlock(m);
// One CohortMutex per kernel (its local state is a function-scope __shared__ variable).
// State: 64 u32 words, zeroed by the host.
#pragma once

#include "cluster.cuh"
#include "poll.cuh"

#ifndef OCC_COHORT_PASSES
#define OCC_COHORT_PASSES 32
#endif

namespace occ {
namespace cohort {

/// The local lock, in the shared memory of the cluster's rank-0 block.
struct Local {
  u32 ticket;
  u32 turn;
  u32 gheld;    // 1: the holder got the global lock passed along
  u32 gticket;  // the global ticket the cohort holds
  u32 passes;   // local hand-offs in a row
};

// Every access to the local lock words is an atomic, so that compute-sanitizer's racecheck
// (which does not model ld.acquire/st.release on shared memory) sees no race: loads are
// atom.or 0, stores atom.exch, with the semantics named.
__device__ __forceinline__ u32 atom_add_cluster(unsigned addr, u32 v) {
  u32 old;
  asm volatile("atom.relaxed.cluster.shared::cluster.add.u32 %0, [%1], %2;"
               : "=r"(old) : "r"(addr), "r"(v) : "memory");
  return old;
}
__device__ __forceinline__ u32 ld_acquire_cluster(unsigned addr) {
  u32 v;
  asm volatile("atom.acquire.cluster.shared::cluster.or.b32 %0, [%1], 0;"
               : "=r"(v) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ u32 ld_relaxed_cluster(unsigned addr) {
  u32 v;
  asm volatile("atom.relaxed.cluster.shared::cluster.or.b32 %0, [%1], 0;"
               : "=r"(v) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ void st_relaxed_cluster(unsigned addr, u32 v) {
  asm volatile("{ .reg .b32 old; atom.relaxed.cluster.shared::cluster.exch.b32 old, [%0], %1; }"
               ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ void st_release_cluster(unsigned addr, u32 v) {
  asm volatile("{ .reg .b32 old; atom.release.cluster.shared::cluster.exch.b32 old, [%0], %1; }"
               ::"r"(addr), "r"(v) : "memory");
}

}  // namespace cohort

namespace sync {

struct CohortMutex {
  static constexpr unsigned kPrim = Prim::CohortMutex;
  u32* gticket;
  u32* gturn;
  unsigned l_ticket, l_turn, l_gheld, l_gticket, l_passes;  // shared::cluster addresses
  u32 my;
  bool clustered;

  __device__ explicit CohortMutex(u32* state) : gticket(state), gturn(state + 32), my(0u) {
    __shared__ cohort::Local s_local;
    if (local_linear_id() == 0u) {
      s_local.ticket = 0u;
      s_local.turn = 0u;
      s_local.gheld = 0u;
      s_local.gticket = 0u;
      s_local.passes = 0u;
    }
    clustered = cluster_size() > 1u;
    if (clustered) cluster_sync(); else __syncthreads();
    // Without clusters the block's own shared::cta address (valid in the shared::cluster
    // window) is used, so the lock works in any launch.
    const unsigned base = clustered ? cluster_map(&s_local, 0u)
                                    : (unsigned)__cvta_generic_to_shared(&s_local);
    l_ticket = base + 0u;  // Local::ticket
    l_turn = base + 4u;  // Local::turn
    l_gheld = base + 8u;  // Local::gheld
    l_gticket = base + 12u;  // Local::gticket
    l_passes = base + 16u;  // Local::passes
  }

  __device__ ~CohortMutex() {
    if (clustered) cluster_sync(); else __syncthreads();
  }

  /// Called by one thread of the block; false if the launch was aborted (then the caller leaves
  /// without unlocking).
  __device__ __forceinline__ bool lock() {
    my = cohort::atom_add_cluster(l_ticket, 1u);
    const unsigned turn = l_turn;
    const u32 m = my;
    if (!poll_until(kPrim, [turn, m] { return cohort::ld_acquire_cluster(turn) == m; })) return false;
    if (cohort::ld_relaxed_cluster(l_gheld) != 0u) return true;  // passed along with the turn
    const u32 g = atomic_add_relaxed(gticket, 1u);
    u32* t = gturn;
    if (!poll_until(kPrim, [t, g] { return ld_acquire(t) == g; })) return false;
    cohort::st_relaxed_cluster(l_gticket, g);
    return true;
  }

  __device__ __forceinline__ void unlock() {
    const u32 waiting = cohort::ld_relaxed_cluster(l_ticket);
    const u32 passes = cohort::ld_relaxed_cluster(l_passes);
    if (waiting != my + 1u && passes < (u32)OCC_COHORT_PASSES) {
      cohort::st_relaxed_cluster(l_passes, passes + 1u);
      cohort::st_relaxed_cluster(l_gheld, 1u);
      cohort::st_release_cluster(l_turn, my + 1u);
    } else {
      const u32 g = cohort::ld_relaxed_cluster(l_gticket);
      cohort::st_relaxed_cluster(l_passes, 0u);
      cohort::st_relaxed_cluster(l_gheld, 0u);
      // One fence for both releases: fence.acq_rel.gpu followed by strong relaxed writes is a
      // release pattern at .gpu scope (and so at .cluster scope).
      fence_acq_rel();
      st_relaxed(gturn, g + 1u);
      cohort::st_relaxed_cluster(l_turn, my + 1u);
    }
  }
};

}  // namespace sync
}  // namespace occ
