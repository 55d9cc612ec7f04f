// occupant device library: barrier-lab designs past Lean (issue 11, part 2), none of them a
// library kind: measured slower than Lean on an H100 in every shape
// (bench/results/nvidia-h100/i11-barrier-fast/). ClusterLean's CPU twin:
// occupant::cpu::sync::ClusterLeanBarrier (tests/loom_replica_barrier.rs).
//
// Why the cluster designs lose: a release at .cluster scope costs a full MEMBAR
// (fence.acq_rel.cluster 356 ns with nothing outstanding, the same as .gpu), the cluster
// hardware barrier with .release arrivals ~400 ns (with .relaxed ones ~55 ns), and relaying the
// members' writes through the leader needs a second release after the leader's acquire: two or
// three MEMBARs on the critical path instead of Lean's one. At 16 blocks of 128 threads per SM,
// cluster launches also leave blocks out: only 8 per SM are resident (2112x128: 1056 blocks in
// clusters of 2, 992 in 4 and 8, 928 in 16; a 200 us discovery window changes nothing).
// The flag variant (bar.sync + a shared flag instead of bar.red.and) costs 30-40 ns; the
// proportional pause wins at 1056x256 and 2112x128 and loses at 132 and 264 blocks.
//
// LeanFlagBarrierT<DELAY, PB, EVERY>  Lean (replica_barrier.cuh: one line, a returned
//     atom.acq_rel.gpu arrival by thread 0, which polls unless it was last, fence.acquire.gpu
//     after the poll), with the block's result broadcast through a shared-memory flag and
//     bar.sync instead of bar.red.and (__syncthreads_and), and an optional proportional pause
//     before the first poll: (arrivals still missing) << PB cycles (PB < 0: none), plus DELAY
//     cycles when there are more blocks than SMs.
//
// ClusterLeanBarrierT<HW_ARRIVE, HW_RELEASE, DELAY, EVERY>  for cluster launches: the blocks
//     of a cluster meet first, one block per cluster (rank 0, the leader) takes part in a Lean
//     barrier among the leaders (one global line: n / cluster arrivals and pollers instead of
//     n), then releases its cluster. The meeting and the release each go one of two ways:
//       arrival, HW_ARRIVE: the cluster hardware barrier (barrier.cluster.arrive.release /
//         wait.acquire, every thread); else __syncthreads, then thread 0 of every other block
//         red.release.cluster.shared::cluster.add's 1 on the leader's shared arrival counter,
//         which the leader's thread 0 polls locally (ld.relaxed.cluster, then
//         fence.acquire.cluster) until it reaches epoch * (cluster - 1).
//       release, HW_RELEASE: the hardware barrier again (the leader's warp 0 arrives with
//         .release after its global wait, every other warp with .relaxed at once); else the
//         leader's thread 0, after fence.acq_rel.cluster, red.relaxed.cluster.add's 1 on every
//         other block's shared release counter, which its thread 0 polls locally until it
//         reaches epoch (then fence.acquire.cluster).
//     Ordering: a block's writes -> (bar.sync, cta) its thread 0 -> (release/acquire, cluster)
//     the leader -> (atom.acq_rel.gpu on the line, then the other leaders' polls with
//     fence.acquire.gpu) every leader -> (release/acquire, cluster) every block of its
//     cluster -> (bar.sync) every thread: a chain of morally strong synchronisations, so the
//     barrier orders every write before it with every read after it (PTX causality order is
//     transitive across scopes). A leader whose global wait failed (watchdog) sets a sticky
//     flag in every block of its cluster before releasing it; every wait is bounded.
//     Without a cluster launch (cluster size 1) this is LeanFlagBarrierT.
//     State: one line (32 u32 words), zeroed by the host; shared: 4 words per block (a
//     function-scope __shared__ array: one barrier of this kind per kernel). Every thread of
//     every block constructs it (the constructor initialises the shared words and synchronises
//     the cluster; the destructor synchronises it again so that no block leaves while the leader
//     may still write its shared memory).
#pragma once

#include "cluster.cuh"
#include "replica_barrier.cuh"

namespace occ {
namespace dsm {

/// The 32-bit shared (cta window) address of a shared variable.
__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
/// ld.relaxed.cluster.shared::cta.u32: a load of this block's own shared word that other blocks
/// of the cluster write (through shared::cluster).
__device__ __forceinline__ u32 ld_relaxed_local(unsigned a) {
  u32 v;
  asm volatile("ld.relaxed.cluster.shared::cta.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
  return v;
}
__device__ __forceinline__ void red_add_release_cluster(unsigned remote, u32 v) {
  asm volatile("red.release.cluster.shared::cluster.add.u32 [%0], %1;" ::"r"(remote), "r"(v)
               : "memory");
}
__device__ __forceinline__ void red_add_relaxed_cluster(unsigned remote, u32 v) {
  asm volatile("red.relaxed.cluster.shared::cluster.add.u32 [%0], %1;" ::"r"(remote), "r"(v)
               : "memory");
}
__device__ __forceinline__ void red_or_relaxed_cluster(unsigned remote, u32 v) {
  asm volatile("red.relaxed.cluster.shared::cluster.or.b32 [%0], %1;" ::"r"(remote), "r"(v)
               : "memory");
}
__device__ __forceinline__ void fence_acquire_cluster() {
  asm volatile("fence.acquire.cluster;" ::: "memory");
}
__device__ __forceinline__ void fence_acq_rel_cluster() {
  asm volatile("fence.acq_rel.cluster;" ::: "memory");
}
/// barrier.cluster.arrive.relaxed.aligned: an arrival that orders nothing.
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

/// Waits until this block's shared word at `a` (written by other blocks of the cluster) is at
/// or after `target`, then fence.acquire.cluster. Bounded as pulse::poll_pipelined.
template <unsigned EVERY>
__device__ __forceinline__ bool poll_local(unsigned prim, unsigned a, u32 target) {
  const bool given_up = aborted();
  const unsigned long long t0 = globaltimer();
  for (unsigned i = 1;; ++i) {
    if (epoch_diff(ld_relaxed_local(a), target) >= 0) {
      fence_acquire_cluster();
      return true;
    }
    if (given_up) return false;
    if (i % EVERY != 0u) continue;
    if (((i / EVERY) & 7u) == 0u && aborted()) {
      note_waiting();
      return false;
    }
    if (globaltimer() - t0 > (unsigned long long)OCC_FAST_SPIN_NS) break;
  }
  const bool ok =
      wait_until(prim, [a, target] { return epoch_diff(ld_relaxed_local(a), target) >= 0; });
  if (ok) fence_acquire_cluster();
  return ok;
}

}  // namespace dsm

namespace pulse {

/// Lean's global phase by one thread: a returned atom.acq_rel.gpu arrival on `word`; unless it
/// was the last of `target`, a pause (`delay` cycles plus, PB >= 0, the missing arrivals << PB)
/// and a poll until `word` reaches `target` (fence.acquire.gpu after it).
template <int PB, unsigned EVERY>
__device__ __forceinline__ bool lean_global(unsigned prim, u32* word, u32 target, unsigned delay) {
  const u32 old = atomic_add_acq_rel(word, 1u);
  const int left = epoch_diff(target, old + 1u);
  if (left <= 0) return true;
  unsigned d = delay;
  if (PB >= 0) d += (unsigned)left << (PB >= 0 ? PB : 0);
  if (d != 0u) spin_cycles(d);
  return poll_pipelined<1u, 0u, EVERY>(prim, word, target);
}

}  // namespace pulse

namespace sync {

/// LeanFlagBarrierT (see the top of this file). State: one line.
template <unsigned DELAY = OCC_LEAN_DELAY_CYCLES, int PB = -1, unsigned EVERY = OCC_POLL_EVERY>
struct LeanFlagBarrierT {
  u32* word;
  u32 n;
  u32 epoch;
  unsigned delay;
  __device__ LeanFlagBarrierT(u32* state, const Env& env)
      : word(state), n(env.num_groups), epoch(0u) {
    delay = n > pulse::sm_count() ? DELAY : 0u;
  }
  __device__ __forceinline__ bool wait() {
    __shared__ u32 s_ok;
    ++epoch;
    __syncthreads();
    if (local_linear_id() == 0u)
      s_ok = pulse::lean_global<PB, EVERY>(Prim::LeanBarrier, word, epoch * n, delay) ? 1u : 0u;
    __syncthreads();
    return s_ok != 0u;
  }
};

/// ClusterLeanBarrierT (see the top of this file). State: one line.
template <bool HW_ARRIVE, bool HW_RELEASE, unsigned DELAY = OCC_LEAN_DELAY_CYCLES,
          unsigned EVERY = OCC_POLL_EVERY>
struct ClusterLeanBarrierT {
  u32* word;
  u32 leaders;
  u32 rank;
  u32 csize;
  u32 epoch;
  unsigned delay;
  unsigned local;  // this block's shared words (cta window)

  // [0] arrivals (leader), [1] releases, [2] failed (sticky), [3] the block's result.
  __device__ static __forceinline__ u32* words() {
    __shared__ u32 s[4];
    return s;
  }

  __device__ ClusterLeanBarrierT(u32* state, const Env& env)
      : word(state), leaders(env.num_clusters), rank(cluster_rank()), csize(cluster_size()),
        epoch(0u) {
    u32* s = words();
    if (local_linear_id() == 0u) s[0] = s[1] = s[2] = s[3] = 0u;
    delay = leaders > pulse::sm_count() ? DELAY : 0u;
    local = dsm::smem_addr(s);
    if (csize > 1u) cluster_sync(); else __syncthreads();
  }
  __device__ ~ClusterLeanBarrierT() {
    if (csize > 1u) cluster_sync();
  }

  __device__ __forceinline__ bool wait() {
    ++epoch;
    const u32 e = epoch;
    const unsigned t = local_linear_id();
    u32* s = words();
    const bool clustered = csize > 1u;
    // 1. The blocks of the cluster meet.
    if (HW_ARRIVE && clustered) {
      cluster_arrive();
      cluster_wait();
    } else {
      __syncthreads();
      if (!HW_ARRIVE && clustered && rank != 0u && t == 0u)
        dsm::red_add_release_cluster(cluster_map(s, 0u), 1u);
    }
    // 2. The leader's global phase, 3. its release of the cluster.
    if (t == 0u && rank == 0u) {
      bool ok = true;
      if (!HW_ARRIVE && clustered)
        ok = dsm::poll_local<EVERY>(Prim::LeanBarrier, local, e * (csize - 1u));
      if (ok) ok = pulse::lean_global<-1, EVERY>(Prim::LeanBarrier, word, e * leaders, delay);
      if (!ok) {
        s[2] = 1u;
        for (u32 k = 1u; k < csize; ++k) dsm::red_or_relaxed_cluster(cluster_map(s + 2, k), 1u);
      }
      if (clustered && !HW_RELEASE) {
        dsm::fence_acq_rel_cluster();
        for (u32 k = 1u; k < csize; ++k) dsm::red_add_relaxed_cluster(cluster_map(s + 1, k), 1u);
      }
      if (!clustered || !HW_RELEASE) s[3] = ok ? 1u : 0u;
    }
    if (clustered && HW_RELEASE) {
      if (rank == 0u && t < 32u) {
        __syncwarp();
        cluster_arrive();  // .release: after the leader's global wait
      } else {
        dsm::cluster_arrive_relaxed();
      }
      cluster_wait();
      return s[2] == 0u;
    }
    if (clustered && rank != 0u && t == 0u) {
      const bool ok = dsm::poll_local<EVERY>(Prim::LeanBarrier, local + 4u, e);
      s[3] = ok && s[2] == 0u ? 1u : 0u;
    }
    __syncthreads();
    return s[3] != 0u;
  }
};

}  // namespace sync
}  // namespace occ
