// occupant device library: occupancy discovery (seed 001, Fig. 3) and the participating
// execution environment (seed 001, Table 2). CPU twin: occupant::cpu::sync (discovery).
//
// Every block of a kernel launched with many more blocks than can be co-resident calls
// occ::discover at its start. A block *participates* iff it polls while the poll is open; the
// poll is closed by a participant, and no participant leaves the protocol before the poll is
// closed, so all participants were co-resident at once (seed 001 §3.2) and are fairly scheduled
// from then on: spin barriers and locks among them cannot deadlock. Non-participants return
// false and must leave at once (`if (!occ::discover(env)) return;`), freeing their SM
// slots. Participants get contiguous ids 0..n-1 and all agree on n.
//
// Three ways to run the protocol (argument `method`):
//   DiscoveryMethod::Quiescent (default) — lock-free: one atom.acq_rel.gpu.add on a word whose bit
//     31 means "closed" and whose low bits count participants (the old value is the id). The
//     first participant (id 0) closes the poll, with one more atomic add of bit 31, as soon as
//     the count reaches the occupancy hint (0 = none) or has not grown for
//     OCC_DISCOVERY_QUIET_NS ns. The count at closing is n; it
//     is published with st.release.gpu and read by the other participants with ld.acquire.gpu.
//     Cost: two atomics per block instead of two lock hand-offs per block.
//   DiscoveryMethod::TicketLock / SpinLock — seed 001 Fig. 3 verbatim: a polling phase and a
//     closing phase, each a critical section of a TicketMutex / SpinMutex.
//
// State: the module global `occ_discovery` (defined here, C linkage), which the runtime zeroes
// before every LaunchMode::Discovery launch and whose first member, `participants`, it reports
// afterwards (LaunchReport::participants); the closer writes n there. Its `words` hold
//   [kDiscWord] closed bit | count (Quiescent)   [kDiscN] n (Quiescent; published, >= 1)
//   [kDiscLock ...] mutex state (lock methods)   [kDiscCount] count, [kDiscClosed] poll closed
// The occupancy hint (the occupancy API's bound, 0 = none) is an argument of discover(): the
// host passes it to the kernel. One representative thread per block runs the protocol; the
// block's other threads wait at __syncthreads and read the result from shared memory.
//
// Cluster launches: occ::discover_clusters runs the protocol once per thread-block cluster (by
// block rank 0), because the blocks of a cluster are co-scheduled by the hardware: a cluster
// participates as a whole, so the cluster hardware barrier may be used among its blocks.
#pragma once

#include "cluster.cuh"
#include "poll.cuh"
#include "spin_mutex.cuh"
#include "ticket_mutex.cuh"

#ifndef OCC_DISCOVERY_QUIET_NS
#define OCC_DISCOVERY_QUIET_NS 4000
#endif

namespace occ {

enum DiscoveryMethod : unsigned { Quiescent = 0, TicketLock = 1, SpinLock = 2 };

enum : unsigned {
  kDiscWord = 0,
  kDiscN = 32,
  kDiscLock = 64,  // TicketMutex uses [64] and [96]; SpinMutex [64]
  kDiscCount = 128,
  kDiscClosed = 160,
  kDiscStateWords = 192,
};

/// The layout of `occ_discovery`: `participants` first (read by the host), then the protocol's
/// words, each group of 32 on its own 128-byte line.
struct __align__(128) DiscoveryState {
  unsigned participants;
  unsigned pad[31];
  u32 words[kDiscStateWords];
};

}  // namespace occ

// One per module, with C linkage so the runtime finds it (LaunchMode::Discovery zeroes it).
extern "C" {
__device__ occ::DiscoveryState occ_discovery;
}

namespace occ {

/// The participating execution environment (seed 001 Table 2).
struct Env {
  u32 group_id;      // p_group_id: 0..num_groups-1, contiguous among participants
  u32 num_groups;    // p_num_groups: participants (blocks)
  u32 cluster_id;    // participating cluster id (== group_id without clusters)
  u32 num_clusters;  // participating clusters (== num_groups without clusters)
  __device__ __forceinline__ u32 p_group_id() const { return group_id; }
  __device__ __forceinline__ u32 p_num_groups() const { return num_groups; }
  __device__ __forceinline__ u32 p_local_id() const { return local_linear_id(); }
  __device__ __forceinline__ u32 p_global_id() const {
    return group_id * local_count() + local_linear_id();
  }
  __device__ __forceinline__ u32 p_global_size() const { return num_groups * local_count(); }
};

namespace detail {

// Result codes of the single-thread protocol.
enum : unsigned { kParticipating = 0, kNotParticipating = 1, kAborted = 2 };

__device__ __forceinline__ unsigned discover_quiescent(u32* s, u32 hint, u32 scale, u32& id, u32& n) {
  const u32 kClosedBit = 0x80000000u;
  const u32 old = atomic_add_acq_rel(s + kDiscWord, 1u);
  if (old & kClosedBit) return kNotParticipating;
  id = old;
  if (id == 0u) {
    const u32 quiet = OCC_DISCOVERY_QUIET_NS;
    u32* w = s + kDiscWord;
    u32 last = 0u;
    unsigned long long t_last = globaltimer();
    const bool ok = poll_until(Prim::Discovery, [&] {
      const u32 c = ld_relaxed(w);
      if (hint != 0u && c >= hint) return true;
      const unsigned long long now = globaltimer();
      if (c != last) {
        last = c;
        t_last = now;
        return false;
      }
      return now - t_last > quiet;
    });
    if (!ok) return kAborted;
    n = atomic_add_acq_rel(w, kClosedBit) & ~kClosedBit;
    st_relaxed(&occ_discovery.participants, n * scale);
    st_release(s + kDiscN, n);
    return kParticipating;
  }
  u32* pn = s + kDiscN;
  u32 seen = 0u;
  if (!poll_until(Prim::Discovery, [pn, &seen] { return (seen = ld_acquire(pn)) != 0u; }))
    return kAborted;
  n = seen;
  return kParticipating;
}

template <class M>
__device__ __forceinline__ unsigned discover_locked(u32* s, u32 scale, u32& id, u32& n) {
  M m(s + kDiscLock);
  // Polling phase.
  if (!m.lock()) return kAborted;
  const bool open = ld_relaxed(s + kDiscClosed) == 0u;
  if (open) {
    id = ld_relaxed(s + kDiscCount);
    st_relaxed(s + kDiscCount, id + 1u);
  }
  m.unlock();
  if (!open) return kNotParticipating;
  // Closing phase.
  if (!m.lock()) return kAborted;
  n = ld_relaxed(s + kDiscCount);
  if (ld_relaxed(s + kDiscClosed) == 0u) {
    st_relaxed(s + kDiscClosed, 1u);
    st_relaxed(&occ_discovery.participants, n * scale);
  }
  m.unlock();
  return kParticipating;
}

__device__ __forceinline__ unsigned discover_one(unsigned method, u32 hint, u32 scale, u32& id,
                                                 u32& n) {
  u32* s = occ_discovery.words;
  switch (method) {
    case TicketLock: return discover_locked<sync::TicketMutex>(s, scale, id, n);
    case SpinLock: return discover_locked<sync::SpinMutex>(s, scale, id, n);
    default: return discover_quiescent(s, hint, scale, id, n);
  }
}

}  // namespace detail

/// Occupancy discovery with block semantics: every thread of every block calls it first thing.
/// True iff this block participates (then `env` holds its participating environment); false
/// for non-participants and when the watchdog aborted the launch — either way, leave at once.
/// `hint`: the occupancy API's bound on co-resident blocks (0 = unknown; Quiescent only).
__device__ __forceinline__ bool discover(Env& env, unsigned method = Quiescent, u32 hint = 0u) {
  __shared__ u32 s_res[3];
  if (local_linear_id() == 0u) {
    u32 id = 0u, n = 0u;
    s_res[0] = detail::discover_one(method, hint, 1u, id, n);
    s_res[1] = id;
    s_res[2] = n;
  }
  __syncthreads();
  const u32 res = s_res[0];
  env.group_id = env.cluster_id = s_res[1];
  env.num_groups = env.num_clusters = s_res[2];
  __syncthreads();  // s_res may be reused by a later call
  return res == detail::kParticipating;
}

/// Occupancy discovery per thread-block cluster: block rank 0 of each cluster runs the protocol
/// for the whole cluster (`hint` counts clusters). Participating blocks get group ids
/// cluster_id * cluster_size + rank; occ_discovery.participants counts blocks. Every thread of
/// every block calls it.
__device__ __forceinline__ bool discover_clusters(Env& env, unsigned method = Quiescent,
                                                  u32 hint = 0u) {
  __shared__ u32 s_res[3];
  const unsigned rank = cluster_rank();
  const unsigned cs = cluster_size();
  if (rank == 0u && local_linear_id() == 0u) {
    u32 id = 0u, n = 0u;
    s_res[0] = detail::discover_one(method, hint, cs, id, n);
    s_res[1] = id;
    s_res[2] = n;
  }
  cluster_sync();  // rank 0's result is visible in the cluster
  u32 r[3];
  if (rank == 0u) {
    r[0] = s_res[0];
    r[1] = s_res[1];
    r[2] = s_res[2];
  } else {
    for (int i = 0; i < 3; ++i) r[i] = ld_shared_cluster(cluster_map(&s_res[i], 0u));
  }
  cluster_sync();  // nobody leaves or reuses s_res while others still read rank 0's copy
  env.cluster_id = r[1];
  env.num_clusters = r[2];
  env.group_id = r[1] * cs + rank;
  env.num_groups = r[2] * cs;
  return r[0] == detail::kParticipating;
}

}  // namespace occ

// For kernels compiled both as plain and as cluster launches (-DOCC_CLUSTER_SIZE=k, k > 1):
// OCC_KATTR is the kernel's cluster attribute and OCC_DISCOVER the matching discovery
// (occ::discover_clusters for clusters, occ::discover otherwise).
#if defined(OCC_CLUSTER_SIZE) && OCC_CLUSTER_SIZE > 1
#define OCC_KATTR __cluster_dims__(OCC_CLUSTER_SIZE, 1, 1)
#define OCC_DISCOVER occ::discover_clusters
#else
#define OCC_KATTR
#define OCC_DISCOVER occ::discover
#endif
