// occupant device library: HierarchicalBarrier — the Hopper thread-block-cluster hardware
// barrier inside each cluster, and a one-phase counter barrier among the cluster leaders.
// CPU twin: occupant::cpu::sync (hierarchical barrier).
//
// Why: a two-phase (arrive, then release) barrier pays the inter-SM release→acquire latency
// twice, and a counter barrier over every block serialises every arrival on one L2 line. Here
// the blocks of a cluster meet at the cluster hardware barrier (barrier.cluster.arrive.release /
// wait.acquire), and only one block per cluster (rank 0, the leader) takes part in the global
// phase, so the global contention is divided by the cluster size. The global phase is one
// phase: each leader adds 1 to a monotone counter (atom.release.gpu.add) and polls it
// (ld.acquire.gpu) until it reaches epoch × leaders — every leader both signals and observes
// with one atomic and no second store (the algorithm of cooperative_groups' grid.sync, here
// behind the watchdog). An all-to-all flag array was measured first and was slower on an H200
// (the fence after the flag reads and the flag-read traffic; see bench/results).
//
// Per barrier (epoch e):
//   all threads of the cluster: cluster barrier (without clusters: __syncthreads)
//   leader thread 0: atom.release.gpu.add(counter, 1); poll ld.acquire.gpu(counter) >= e * L
//   all threads of the cluster: cluster barrier; the leader's result is read from its shared
//           memory through distributed shared memory. Without clusters: __syncthreads_and.
// The destructor ends with one more cluster barrier, so that no block leaves the kernel while
// another still reads its shared memory.
// Use with occ::discover_clusters (cluster launch) or occ::discover (no clusters; then every
// block is its own leader). State: 32 u32 words (the counter), zeroed by the host. Every thread
// of every participating block calls wait(); false means the watchdog aborted the launch.
#pragma once

#include "cluster.cuh"
#include "discovery.cuh"
#include "poll.cuh"

namespace occ {
namespace sync {

struct HierarchicalBarrier {
  u32* counter;
  u32 leader_id;
  u32 leaders;
  u32 rank;
  u32 csize;
  u32 epoch;
  __device__ HierarchicalBarrier(u32* state, const Env& env)
      : counter(state),
        leader_id(env.cluster_id),
        leaders(env.num_clusters),
        rank(cluster_rank()),
        csize(cluster_size()),
        epoch(0u) {}

  __device__ ~HierarchicalBarrier() {
    if (csize > 1u) cluster_sync();
  }

  __device__ __forceinline__ bool wait() {
    __shared__ u32 s_ok;
    ++epoch;
    const u32 e = epoch;
    const unsigned t = local_linear_id();
    if (csize > 1u) cluster_sync(); else __syncthreads();
    bool ok = true;
    if (rank == 0u) {
      if (t == 0u) {
        u32* c = counter;
        const u32 target = e * leaders;
        atomic_add_release(c, 1u);
        ok = poll_until(Prim::HierarchicalBarrier,
                        [c, target] { return epoch_diff(ld_acquire(c), target) >= 0; });
      }
      ok = __syncthreads_and(ok) != 0;
      if (csize == 1u) return ok;
      if (t == 0u) s_ok = ok ? 1u : 0u;
    }
    cluster_sync();
    if (rank != 0u) ok = ld_shared_cluster(cluster_map(&s_ok, 0u)) != 0u;
    return ok;
  }
};

}  // namespace sync
}  // namespace occ
