// occupant device library: HierarchicalBarrier — a one-phase all-to-all flag barrier among
// cluster leaders, framed by the Hopper thread-block-cluster hardware barrier.
// CPU twin: occupant::cpu::sync (hierarchical barrier).
//
// Why: a two-phase (arrive, then release) barrier pays the inter-SM release→acquire latency
// twice, and a counter barrier serialises every arrival on one L2 line. Here each leader both
// signals and observes in one phase: it writes its own epoch flag (st.release.gpu, no atomic)
// and its threads read every leader's flag (ld.acquire.gpu, spread over the block's threads,
// coalesced) until all show the epoch. Blocks inside a cluster meet at the cluster hardware
// barrier (barrier.cluster.arrive.release / wait.acquire), so only one block per cluster takes
// part in the global phase and the flag array stays short as blocks grow.
//
// Per barrier (epoch e):
//   all threads of the cluster: cluster barrier (without clusters: __syncthreads)
//   leader (cluster rank 0): thread 0 st.release.gpu(flag[cluster_id], e);
//           thread t polls flag[t], flag[t + blockDim], ... >= e (ld.relaxed, four in
//           flight at once, then one fence.acq_rel.gpu: see occ::poll_flags)
//   all threads of the cluster: cluster barrier (the leader's result is read from its shared
//           memory through distributed shared memory); without clusters: __syncthreads_and.
// Use with occ::discover_clusters (cluster launch) or occ::discover (no clusters; then every
// block is its own leader and this is the flat all-to-all barrier). State: env.num_clusters u32
// words, zeroed by the host. Every thread of every participating block calls wait(); false
// means the watchdog aborted the launch.
#pragma once

#include "cluster.cuh"
#include "discovery.cuh"
#include "poll.cuh"

namespace occ {
namespace sync {

struct HierarchicalBarrier {
  u32* flags;
  u32 leader_id;
  u32 leaders;
  u32 rank;
  u32 csize;
  u32 epoch;
  __device__ HierarchicalBarrier(u32* state, const Env& env)
      : flags(state),
        leader_id(env.cluster_id),
        leaders(env.num_clusters),
        rank(cluster_rank()),
        csize(cluster_size()),
        epoch(0u) {}

  __device__ __forceinline__ bool wait() {
    __shared__ u32 s_ok;
    ++epoch;
    const u32 e = epoch;
    const unsigned t = local_linear_id();
    if (csize > 1u) cluster_sync(); else __syncthreads();
    bool ok = true;
    if (rank == 0u) {
      if (t == 0u) st_release(flags + leader_id, e);
      ok = poll_flags(Prim::HierarchicalBarrier, flags, t, local_count(), leaders, e);
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
